"""Finished runs for tests, made by the real job, and helpers to copy and compare run folders.

`run_corpus` runs `audit.job.plan.run_audit` (whatever backend it picks) over a fixtures_corpus
corpus; `clone_run` copies a corpus with its run so a test may change both (takedowns rewrite
shards) without paying for another run.
"""
from __future__ import annotations

import json
import shutil
from dataclasses import replace
from pathlib import Path
from typing import Sequence

import pyarrow as pa
import pyarrow.dataset as pads
import pyarrow.parquet as pq

from audit.cli import main
from audit.config import parse_config
from audit.job.plan import run_audit
from tests.fixtures_corpus import Corpus, files_holding

# The settings the lookup/takedown tests were written against: no models, no dedup (the copies
# of the shared document stay kept), passage fingerprints on.
CORPUS_JOB = {"languages": {"identify": False}, "dedup": {"exact": False, "near": False},
              "pii": {"enabled": False}, "lookup": {"passages": True}}
# The datasets two runs over the same input must hold row for row.
OUTPUTS = ("lineage", "quarantine", "duplicates", "contamination", "pii")


def audit(*argv: str) -> int:
    """The `audit` command line, in process."""
    return main(list(argv))


def run_shards(root: Path, name: str = "run", paths: Sequence[str] = ("shards/",)) -> Path:
    """Run the job over `paths` (relative to `root`) into `root/name` with CORPUS_JOB's settings;
    returns the run folder. A test calling it asks for the `ray_session` fixture too."""
    config = parse_config({"input": {"paths": list(paths)}, "output": name, **CORPUS_JOB}, base_dir=root)
    return Path(run_audit(config, out=root / name, progress=False).out)


def run_corpus(corpus: Corpus, name: str = "run") -> Path:
    """Run the job over `corpus.root/shards/` into `corpus.root/name` with CORPUS_JOB's settings."""
    run = run_shards(corpus.root, name)
    assert json.loads((run / "summary.json").read_text())["documents"] > 0
    return run


def clone_run(corpus: Corpus, run: Path, dest: Path) -> tuple[Corpus, Path]:
    """Copy `corpus.root` (shards and the run inside it) to `dest`; the copy's run names the copied
    shards (run.json and the completion records hold absolute locations), mtimes kept."""
    assert run.parent == corpus.root, "the run must sit inside the corpus folder"
    shutil.copytree(corpus.root, dest)  # copy2: shard mtimes stay, so the shards count as unchanged
    old, new = str(corpus.root.resolve()), str(dest.resolve())
    for f in (dest / run.name).rglob("*.json"):
        text = f.read_text(encoding="utf-8")
        if old in text:
            f.write_text(text.replace(json.dumps(old)[1:-1], json.dumps(new)[1:-1]), encoding="utf-8")
    left = files_holding(dest / run.name, old)
    assert not left, f"the copied run still names the original corpus in {left}: teach clone_run that format"
    return replace(corpus, root=dest), dest / run.name


def node_of_shard(run: Path) -> dict[str, str]:
    """Which Ray node measured each shard, from the completion records."""
    out = {}
    for rec in (run / "measurements" / "_done").glob("*.json"):
        data = json.loads(rec.read_text())
        out[data["shard"]] = data["result"]["node"]
    return out


def dataset(run: Path, name: str) -> pa.Table:
    """A run's dataset in a canonical row order."""
    t = pads.dataset(run / name, format="parquet").to_table()
    keys = [c for c in ("doc_id", "eval_set", "eval_id", "entity_type", "start") if c in t.column_names]
    return t.sort_by([(k, "ascending") for k in keys])


def assert_same_index(a: Path, b: Path) -> None:
    """Two index/ folders hold the same files, row for row, and the same meta.json but its date."""
    meta_a, meta_b = (json.loads((x / "meta.json").read_text()) for x in (a, b))
    assert {**meta_a, "built": None} == {**meta_b, "built": None}
    names = sorted(p.relative_to(a).as_posix() for p in a.rglob("*.parquet"))
    assert names == sorted(p.relative_to(b).as_posix() for p in b.rglob("*.parquet"))
    for name in names:
        assert pq.read_table(a / name).equals(pq.read_table(b / name)), name


def assert_same_outputs(a: Path, b: Path) -> None:
    """Two run folders hold the same OUTPUTS datasets and the same lookup index."""
    for name in OUTPUTS:
        ta, tb = dataset(a, name), dataset(b, name)
        assert ta.num_rows == tb.num_rows, name
        assert ta.equals(tb), name
    assert_same_index(a / "index", b / "index")


def write_dataset(folder: Path, tables: list[pa.Table]) -> None:
    """A Parquet dataset folder of one file per table (part-00000.parquet, ...)."""
    folder.mkdir(parents=True, exist_ok=True)
    for i, table in enumerate(tables):
        pq.write_table(table, folder / f"part-{i:05d}.parquet")
