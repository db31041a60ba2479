"""User-stage test helpers: the example stage's folder copied where a config can name it, and stages
that break the protocol in one way each (named in configs as "tests.fixtures_user_stages:Class")."""
from __future__ import annotations

import shutil
import time
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc
import yaml

from audit import Stage

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "shouting"
HERE = "tests.fixtures_user_stages"


def example_job(root: Path, params: dict[str, Any] | None = None, shards: int = 1, copies: int = 1,
                **settings: Any) -> Path:
    """The example's module and shards copied into `root` (the module reachable only through the
    config's python_path), and a config for them with `params` and top-level `settings`; its path.
    `shards` copies of the example shard, each its records `copies` times."""
    shutil.copy2(EXAMPLE / "shouting.py", root / "shouting.py")  # its time kept: unchanged code, same fingerprint
    (root / "shards").mkdir(exist_ok=True)
    lines = (EXAMPLE / "shards" / "sample.jsonl").read_text(encoding="utf-8").splitlines()
    for s in range(shards):
        (root / "shards" / f"part-{s}.jsonl").write_text("".join(
            line.replace('"id": "', f'"id": "{s}-{c}-') + "\n" for c in range(copies) for line in lines),
            encoding="utf-8")
    data = {"input": {"paths": ["shards/"]}, "python_path": ["."],
            "stages": [{"use": "shouting:ShoutingStage", "params": params or {"threshold": 0.5}}], **settings}
    path = root / "config.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    return path


def stage_config(root: Path, use: str, params: dict[str, Any] | None = None, **settings: Any) -> dict[str, Any]:
    """A config mapping with one user stage and no model-loading built-in stage."""
    return {"input": {"paths": ["shards/"]}, "languages": {"identify": False}, "pii": {"enabled": False},
            "stages": [{"use": use, "params": params or {}}], **settings}


class OnEveryNode(Stage):
    """Holds each worker's first batch until a worker on each of `nodes` Ray nodes has one: a busy
    node's CPU sends the next shard to another node, so tiny shards cannot all land on one (Ray
    reuses a worker lease for short tasks). In `__call__`, not `setup`: the run's warm-up sets the
    stage up on every worker, measuring nothing. Adds a column, judges nothing."""

    name = "on_every_node"
    writes = ("on_every_node",)

    def __init__(self, folder: str, nodes: int = 2) -> None:
        self.folder, self.nodes = Path(folder), nodes
        self._held = False

    def __call__(self, batch: pa.Table) -> pa.Table:
        if not self._held:
            import ray

            self._held = True
            (self.folder / ray.get_runtime_context().get_node_id()).touch()
            deadline = time.monotonic() + 120
            # another node's worker announces itself by a file: nothing to wait on across nodes but the folder
            while len(list(self.folder.iterdir())) < self.nodes and time.monotonic() < deadline:
                time.sleep(0.05)
        return batch.append_column("on_every_node", pa.array([True] * batch.num_rows, pa.bool_()))


class HoldsUntilReleased(Stage):
    """Says "holding" on stdout in `setup`, then blocks until a line is written to the FIFO `gate`:
    a run held at a known point (its output folder locked) for as long as a test needs. Judges nothing."""

    name = "held"
    writes = ("held",)

    def __init__(self, gate: str) -> None:
        self.gate = gate

    def setup(self) -> None:
        print("holding", flush=True)
        with open(self.gate, encoding="utf-8") as f:  # opening a FIFO for reading waits for its writer
            f.readline()

    def __call__(self, batch: pa.Table) -> pa.Table:
        return batch.append_column("held", pa.array([True] * batch.num_rows, pa.bool_()))


class FailsOnMarked(Stage):
    """Raises on a record holding MARK, as a library bug on one odd record would."""

    name = "marked"
    writes = ("marked_chars",)

    def __call__(self, batch: pa.Table) -> pa.Table:
        if any(t and "\u2063BOOM" in t for t in batch.column("text").to_pylist()):
            raise ValueError("cannot handle this record")
        return batch.append_column("marked_chars", pc.utf8_length(batch.column("text")))


class FailsOnNullText(Stage):
    """Forgets that an unreadable record's text is null, and fails on one record too."""

    name = "nullish"
    writes = ("nullish_chars",)

    def __call__(self, batch: pa.Table) -> pa.Table:
        texts = batch.column("text").to_pylist()
        if any(t and "\u2063BOOM" in t for t in texts):
            raise ValueError("cannot handle this record")
        return batch.append_column("nullish_chars", pa.array([len(t) for t in texts], pa.int64()))


class WritesOtherColumns(Stage):
    """Adds a column its `writes` does not name."""

    name = "sloppy"
    writes = ("sloppy_share",)

    def __call__(self, batch: pa.Table) -> pa.Table:
        return batch.append_column("sloppy_other", pc.utf8_length(batch.column("text")))


class WrongReason(Stage):
    """Judges with a reason of another kind."""

    name = "borrower"
    writes = ("borrower_chars",)

    def __call__(self, batch: pa.Table) -> pa.Table:
        return batch.append_column("borrower_chars", pc.utf8_length(batch.column("text")))

    def judge(self, table: pa.Table):
        yield 0, "length:too_short", {}


class NamedLength(FailsOnMarked):
    """Takes a built-in reason kind as its name."""

    name = "length"


class WritesChars(FailsOnMarked):
    """Writes a column the reader already has."""

    name = "charcount"
    writes = ("chars",)


class MeasuresNothing(Stage):
    """Forgets `__call__`."""

    name = "idle"


class NotAStage:
    """Has the methods but not the base class."""

    name = "plain"

    def __call__(self, batch: pa.Table) -> pa.Table:
        return batch
