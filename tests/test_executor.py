"""The job's executor: the in-process and Ray backends run the same passes to the same outputs; the
Ray backend bounds what it has in flight, retries a lost worker and never retries our own errors."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pyarrow.dataset as pads
import pytest

from audit.config import load_config
from audit.demo_corpus import build_demo_corpus
from audit.job.executor import LocalExecutor, RayExecutor, wants_ray
from audit.job.plan import run_audit
from tests.fixtures_procs import ended_or_ending, session_processes, wait_for_exit

OUTPUTS = ("lineage", "quarantine", "duplicates", "contamination", "pii")


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    return build_demo_corpus(tmp_path_factory.mktemp("executor") / "corpus", docs=400, seed=5)


def _with_executor(corpus, mode: str):
    cfg = load_config(corpus.config_path)
    cfg.ray.executor = mode
    return cfg


def _square(x: int, offset: int) -> int:
    return x * x + offset


def _die_once(marker: str) -> int:
    """Kill this worker the first time (as a lost node would), answer the second."""
    if not os.path.exists(marker):
        Path(marker).write_text("died")
        os._exit(1)
    return os.getpid()


def _fail(x: int, counter: str) -> int:
    with open(counter, "a") as f:
        f.write("x")
    raise ValueError(f"bad item {x}")


def test_the_local_backend_maps_in_order_and_raises_our_errors(tmp_path):
    ex = LocalExecutor()
    assert list(ex.map(_square, [1, 2, 3], 10)) == [(1, 11), (2, 14), (3, 19)]
    assert ex.put({"a": 1}).get() == {"a": 1}
    assert ex.call(_square, 4, 0) == 16
    with pytest.raises(ValueError, match="bad item 7"):
        list(ex.map(_fail, [7], str(tmp_path / "n")))


class _Slots(LocalExecutor):
    """The in-process backend counting `slots` slots, recording the order it is given items in."""

    def __init__(self, slots: int) -> None:
        super().__init__()
        self.slots, self.order = slots, []

    def map(self, fn, items, *common, name="", num_cpus=1.0):
        self.order = [shard.path for shard, _ in items]
        return iter(())


def test_the_scan_gives_several_slots_the_largest_shards_first():
    """Ordered by their text, estimated from file size and kind (a gzip file of 2 MB holds more
    than a plain one of 3 MB); one slot keeps the shards' order."""
    from audit.config import parse_config
    from audit.io.shards import Shard
    from audit.job.resume import ShardState
    from audit.job.scan import scan

    sizes = {"a.jsonl": 3_000_000, "b.jsonl.gz": 2_000_000, "c.parquet": 1_000_000, "d.jsonl": 4_000_000,
             "e.jsonl": None}
    todo = [(Shard(name, f"/data/{name}", i), ShardState(name, f"/data/{name}", i, size, 0, ""))
            for i, (name, size) in enumerate(sizes.items())]
    for slots, want in ((2, ["b.jsonl.gz", "d.jsonl", "a.jsonl", "c.parquet", "e.jsonl"]), (1, list(sizes))):
        ex = _Slots(slots)
        list(scan(ex, parse_config({"input": {"paths": ["x"]}}), todo, None, ex.put({}), False))
        assert ex.order == want


def test_a_run_s_tagger_is_frozen_out_of_the_collector_until_the_next_run():
    """The models and eval index of the run in progress are left out of full collections; the
    next run's tagger makes the last one's collectable again (a cycle in it included)."""
    import gc
    import weakref

    from audit.config import parse_config
    from audit.job import scan

    config = parse_config({"input": {"paths": ["x"]}, "languages": {"identify": False}, "pii": {"enabled": False},
                           "dedup": {"near": False}, "lookup": {"passages": False}})
    shared = LocalExecutor().put({})
    try:
        first = scan._tagger("run-a", config, shared)
        assert gc.get_freeze_count() > 0 and scan._tagger("run-a", config, shared) is first
        first.me = first  # a cycle: only the collector frees it
        gone = weakref.ref(first)
        del first
        assert scan._tagger("run-b", config, shared) is not None
        gc.collect()
        assert gone() is None
    finally:
        scan._TAGGERS.clear()
        gc.unfreeze()


def test_the_choice_follows_size_config_and_address(corpus):
    cfg = _with_executor(corpus, "auto")
    assert wants_ray(cfg, "10.0.0.1:6379", 0)  # --address always means Ray
    assert wants_ray(cfg, None, cfg.ray.local_max_bytes)
    cfg.ray.executor = "local"
    assert not wants_ray(cfg, None, 10 * cfg.ray.local_max_bytes)
    assert wants_ray(cfg, "10.0.0.1:6379", 0)
    cfg.ray.executor = "ray"
    assert wants_ray(cfg, None, 0)


def test_the_driver_reaches_ray_start_without_the_report_readers_imports():
    """What `audit run` imports before it starts Ray: not the report's readers (pyarrow.dataset and,
    with it, pandas: a quarter second of every run's start), which its report task imports."""
    code = ("import sys, audit.cli, audit.config, audit.job.plan, audit.takedown.ledger; "
            "print([m for m in ('pandas', 'pyarrow.dataset') if m in sys.modules])")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


@pytest.mark.slow  # seconds, not milliseconds: kept out of the fast tier
def test_a_small_run_never_starts_ray(corpus, tmp_path):
    """`auto` on a small input: the whole job in this process, Ray not even imported."""
    code = ("import gc, sys, json; from audit.config import load_config; from audit.job.plan import run_audit; "
            f"r = run_audit(load_config({str(corpus.config_path)!r}), out={str(tmp_path / 'run')!r}, progress=False); "
            "print(json.dumps({'ray': 'ray' in sys.modules, 'docs': r.summary['documents'], "
            "'start': r.summary['ray_start_seconds'], 'frozen': gc.get_freeze_count(), "
            "'executor': r.summary['executor']}))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    got = json.loads(out.stdout.strip().splitlines()[-1])
    # frozen: the scan leaves none of the caller's objects out of the collector's reach
    assert got == {"ray": False, "docs": got["docs"], "start": 0.0, "frozen": 0, "executor": got["executor"]}
    assert got["docs"] > 400
    # the summary says which backend ran and why
    assert got["executor"]["backend"] == "local" and got["executor"]["slots"] == 1
    assert got["executor"]["why"].startswith("auto: ") and " < " in got["executor"]["why"]
    assert (tmp_path / "run" / "index" / "meta.json").is_file()


@pytest.mark.ray
def test_the_ray_and_local_backends_write_the_same_run(corpus, tmp_path, ray_session, monkeypatch):
    from audit.job import scan

    here_calls: list[str] = []  # shards measured in this process (a Ray worker appends to its own copy)
    task = scan.scan_task

    def counted(todo, *args):
        here_calls.append(todo[0].path)
        return task(todo, *args)

    monkeypatch.setattr(scan, "scan_task", counted)
    on_ray = run_audit(_with_executor(corpus, "ray"), out=tmp_path / "ray", progress=False)
    assert here_calls == []
    here = run_audit(_with_executor(corpus, "local"), out=tmp_path / "local", progress=False)
    assert len(here_calls) == len(corpus.shards)
    for key in ("documents", "kept", "quarantined", "reasons", "duplicates", "unreadable"):
        assert on_ray.summary[key] == here.summary[key], key
    for name in (*OUTPUTS, "index"):
        files = sorted(p.relative_to(tmp_path / "ray").as_posix() for p in (tmp_path / "ray" / name).rglob("*.parquet"))
        assert files, name
        if name == "index":  # the same files, row for row
            assert files == sorted(p.relative_to(tmp_path / "local").as_posix()
                                   for p in (tmp_path / "local" / name).rglob("*.parquet"))
            for f in files:
                assert pads.dataset(tmp_path / "ray" / f).to_table().equals(
                    pads.dataset(tmp_path / "local" / f).to_table()), f
            continue
        a, b = (pads.dataset(tmp_path / run / name, format="parquet").to_table() for run in ("ray", "local"))
        keys = [(k, "ascending") for k in ("doc_id", "eval_set", "eval_id", "entity_type", "start")
                if k in a.column_names]
        assert a.sort_by(keys).equals(b.sort_by(keys)), name


@pytest.mark.ray
def test_the_ray_backend_keeps_a_bounded_window(ray_session):
    ex = RayExecutor(_default_config(), None, window=2)
    pulled = []

    def items():
        for i in range(8):
            pulled.append(i)
            yield i

    got = []
    for item, result in ex.map(_square, items(), 1):
        # when a result comes back, at most the window plus the one just pulled have been taken
        assert len(pulled) <= len(got) + 1 + 2
        got.append((item, result))
    assert sorted(got) == [(i, i * i + 1) for i in range(8)]


@pytest.mark.ray
def test_a_lost_worker_is_retried_and_our_errors_are_not(tmp_path, ray_session):
    assert wants_ray(_default_config(), None, 0)  # auto: a session this process holds is used whatever the size
    ex = RayExecutor(_default_config(), None)
    marker = tmp_path / "died"
    [(_, pid)] = list(ex.map(_die_once, [str(marker)]))
    assert marker.read_text() == "died" and pid != os.getpid()
    counter = tmp_path / "tries"
    with pytest.raises(ValueError, match="bad item 3"):
        list(ex.map(_fail, [3], str(counter)))
    assert counter.read_text() == "x"  # once: a bug is not retried
    ex.warm(_fail, 5, str(tmp_path / "warmed"))  # a warm-up that fails fails the next pass, once
    with pytest.raises(ValueError, match="bad item 5"):
        list(ex.map(_square, [1, 2], 0))
    assert sorted(ex.map(_square, [1, 2], 0)) == [(1, 1), (2, 4)]


# A process tree like a local Ray's, in a process that owns it: a child (the raylet) whose own child
# (a worker) runs in a session of its own; end_local_ray ends both; a second call has nothing to end.
_TREE = """
import json, os, subprocess, sys
from audit.job import ray_session
from tests.fixtures_procs import ended_or_ending
raylet = subprocess.Popen([sys.executable, "-c", "import subprocess, sys, time; "
                           "subprocess.Popen(['sleep', '600'], start_new_session=True); print(flush=True); time.sleep(600)"],
                          stdout=subprocess.PIPE)
raylet.stdout.readline()  # its worker is started
tree = ray_session.descendants(os.getpid())
ray_session._SESSION["local"] = True  # as start_ray marks the local Ray it starts
ended = ray_session.end_local_ray()
print(json.dumps({"tree": tree, "ended": ended, "ending": [ended_or_ending(p) for p in tree],
                  "again": ray_session.end_local_ray()}))
"""


def test_ending_the_local_ray_leaves_none_of_its_processes():
    out = subprocess.run([sys.executable, "-c", _TREE], capture_output=True, text=True, timeout=60,
                         env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parent.parent)})
    assert out.returncode == 0, out.stderr
    got = json.loads(out.stdout)
    assert len(got["tree"]) == 2 and got["ended"] and not got["again"], got
    assert all(got["ending"]), got  # SIGKILLed, every one: none runs on
    wait_for_exit(got["tree"], time.monotonic() + 60)


@pytest.mark.ray
def test_the_command_ends_the_local_ray_it_started(corpus, tmp_path):
    """`audit run` on a local Ray of its own: when the command has exited, every process of that
    Ray has ended or is ending (SIGKILLed, not stopped one by one with a grace period), and ends."""
    cfg = tmp_path / "job.yaml"
    cfg.write_text(json.dumps({**_absolute(corpus.config_path), "ray": {"executor": "ray", "num_cpus": 1}}))
    # a session of its own: Ray's processes, whatever their process groups, are in it
    proc = subprocess.Popen([sys.executable, "-m", "audit", "run", str(cfg), "--out", str(tmp_path / "run")],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    _, err = proc.communicate(timeout=300)
    left = session_processes(proc.pid)
    ending = {pid: ended_or_ending(pid) for pid in left}
    assert proc.returncode == 0 and "[audit] Ray job " in err, err
    assert (tmp_path / "run" / "summary.json").is_file()
    assert all(ending.values()), ending
    wait_for_exit(left, time.monotonic() + 60)


def _absolute(config: Path) -> dict:
    """A config's data with its input and eval-set paths (relative to it) made absolute."""
    import yaml

    data = yaml.safe_load(config.read_text())
    data["input"]["paths"] = [str(config.parent / p) for p in data["input"]["paths"]]
    for item in data.get("eval_sets", []):
        item["path"] = str(config.parent / item["path"])
    return data


def _default_config():
    from audit.config import parse_config

    return parse_config({}, base_dir=Path.cwd(), source="test")
