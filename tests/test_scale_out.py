"""The job at cluster scale: a killed run resumes, `audit decide` re-judges from measurements."""
from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml

from audit.cli import main
from audit.config import load_config
from audit.demo_corpus import DemoCorpus
from audit.job.plan import run_audit
from tests.fixtures_procs import session_processes, wait_for_exit
from tests.fixtures_runs import assert_same_index, assert_same_outputs

pytestmark = pytest.mark.ray


@pytest.fixture(scope="module")
def corpus(demo: tuple[DemoCorpus, Path]) -> DemoCorpus:
    """The demo corpus (600 records in several shards), shared with the session: not to be changed."""
    return demo[0]


@pytest.fixture(scope="module")
def whole(demo: tuple[DemoCorpus, Path]) -> Path:
    """One uninterrupted run over `corpus` with its own config: the reference the tests compare with,
    read only (a test that writes into it works on a copy)."""
    assert json.loads((demo[1] / "summary.json").read_text())["resume"]["shards_reused"] == 0
    return demo[1]


def test_a_killed_run_resumes_and_measures_only_what_is_left(tmp_path, corpus, whole, ray_session):
    out = tmp_path / "run"
    done = out / "measurements" / "_done"
    total = len(corpus.shards)
    assert total >= 6
    # The driver in its own session, so SIGKILL takes it and the local Ray it started, mid-scan.
    proc = subprocess.Popen([sys.executable, "-m", "audit", "run", str(corpus.config_path), "--out", str(out),
                             "--quiet"], start_new_session=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 240
    try:
        # completion records are files another process writes: polled (no event reaches this one)
        while len(list(done.glob("*.json"))) < total // 2:
            assert proc.poll() is None, proc.stderr.read().decode() if proc.stderr else ""
            assert time.monotonic() < deadline, "the run measured no shard in time"
            time.sleep(0.02)
    finally:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
    # Ray's workers have process groups of their own, so a task already running when the driver died
    # may still commit its shard: wait until every process of the run's session has exited.
    wait_for_exit(session_processes(proc.pid), deadline)
    finished = len(list(done.glob("*.json")))
    assert total // 2 <= finished < total
    assert not (out / "summary.json").exists()  # nothing that looks whole

    resumed = run_audit(load_config(corpus.config_path), out=out, progress=False)
    assert resumed.summary["resume"] == {"shards_reused": finished, "shards_measured": total - finished}
    assert_same_outputs(out, whole)
    # the resumed folder holds only this run's parts: the killed tasks' leftovers are gone
    parts = sorted(p.name for p in (out / "measurements").iterdir() if p.name != "_done")
    assert len(parts) == total and all(p.startswith("part-") for p in parts)


def test_decide_rejudges_from_measurements_as_a_full_run_would(tmp_path, corpus, whole, ray_session):
    shutil.copytree(whole, tmp_path / "a")  # a finished run to re-judge in place
    first = json.loads((tmp_path / "a" / "summary.json").read_text())
    data = yaml.safe_load(corpus.config_path.read_text())
    data.setdefault("filters", {}).setdefault("length", {})["min_chars"] = 600
    data.setdefault("dedup", {})["min_shared_bands"] = 6
    data.setdefault("filters", {}).setdefault("junk", {})["max_markup_share"] = 0.05
    # thresholds that act on kept raw values: PII scores and contamination coverage, down to their floors
    data.setdefault("pii", {})["min_score"] = 0.35
    data["pii"]["quarantine_types"] = ["CREDIT_CARD", "US_SSN", "IBAN_CODE", "PHONE_NUMBER"]
    data.setdefault("contamination", {})["threshold"] = 0.35
    strict = corpus.root / "strict.yaml"
    strict.write_text(yaml.safe_dump(data))

    assert main(["decide", str(tmp_path / "a"), "--config", str(strict)]) == 0
    decided = yaml.safe_load((tmp_path / "a" / "summary.json").read_text())
    full = run_audit(load_config(strict), out=tmp_path / "b", progress=False)
    assert decided["resume"] == {"shards_reused": len(corpus.shards), "shards_measured": 0}
    assert decided["scan_seconds"] == 0
    assert decided["quarantined"] > first["quarantined"]  # the new thresholds act
    assert decided["quarantined"] == full.summary["quarantined"]
    assert_same_outputs(tmp_path / "a", tmp_path / "b")
    # measuring settings cannot change without measuring: one line, exit 2
    data["contamination"] = {"ngram": 9}
    strict.write_text(yaml.safe_dump(data))
    assert main(["decide", str(tmp_path / "a"), "--config", str(strict)]) == 2


def test_the_index_built_a_task_per_bucket_equals_the_one_process_build(tmp_path, corpus, whole, ray_session,
                                                                       monkeypatch):
    """Hash-partitioned on Ray Data into several buckets per index, the run's lookup index is the
    one `build_lookup_indexes` writes in one process from the same lineage and fingerprints."""
    from audit import lookup_index

    monkeypatch.setattr(lookup_index, "_BUCKET_ROWS", 150)  # several buckets per index
    cfg = load_config(corpus.config_path)
    cfg.ray.partition_rows = 100  # shuffled, not the small run's single task
    # a copy of the session's run: its measurements are reused (partition_rows only says how the
    # passes run) and the passes after the scan, the index among them, run again
    shutil.copytree(whole, tmp_path / "run")
    result = run_audit(cfg, out=tmp_path / "run", progress=False)
    assert result.summary["resume"]["shards_measured"] == 0
    meta = json.loads((tmp_path / "run" / "index" / "meta.json").read_text())
    assert meta["rows"]["records"] == result.summary["documents"] > 0 and meta["rows"]["passages"] > 0
    assert len(list((tmp_path / "run" / "index" / "records").glob("b*.parquet"))) >= 3
    assert len(list((tmp_path / "run" / "index" / "sha256").glob("b*.parquet"))) >= 4
    alone = tmp_path / "alone"
    shutil.copytree(tmp_path / "run" / "lineage", alone / "lineage")
    lookup_index.build_lookup_indexes(alone, sorted((tmp_path / "run" / "measurements").glob("part-*.parquet")))
    assert_same_index(tmp_path / "run" / "index", alone / "index")


def test_decide_refuses_a_folder_that_is_not_a_run(tmp_path, capsys):
    assert main(["decide", str(tmp_path)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "audit run" in err[0]


def _kill_first_scan_worker(stop, killed: list) -> None:
    """SIGKILL the first Ray worker seen running a scan task (its title names the UDF), until `stop` is set."""
    while not stop.is_set() and not killed:
        for pid in os.listdir("/proc"):
            if not pid.isdigit():
                continue
            try:
                cmd = Path(f"/proc/{pid}/cmdline").read_bytes()
            except OSError:
                continue
            if b"scan_shard" in cmd:
                os.kill(int(pid), signal.SIGKILL)
                killed.append(int(pid))
                return
        stop.wait(0.01)  # a process appearing has no event to wait on: look again, or end with the run


@pytest.fixture(scope="module")
def fresh_lost_worker(tmp_path_factory, corpus, whole, ray_session):
    """`--fresh` into a copy of `whole` while the first Ray worker seen running a scan task is
    SIGKILLed: (its folder, its RunResult, the pids killed). One run for the two tests below."""
    import threading

    out = tmp_path_factory.mktemp("fresh") / "run"
    shutil.copytree(whole, out)  # a finished run into this folder
    stop, killed = threading.Event(), []
    killer = threading.Thread(target=_kill_first_scan_worker, args=(stop, killed), daemon=True)
    killer.start()
    try:
        res = run_audit(load_config(corpus.config_path), out=out, progress=False, fresh=True)
    finally:
        stop.set()
        killer.join()
    return out, res, killed


def test_fresh_measures_every_shard_again(tmp_path, corpus, fresh_lost_worker):
    cfg = load_config(corpus.config_path)
    folder, fresh, _ = fresh_lost_worker
    assert fresh.summary["resume"] == {"shards_reused": 0, "shards_measured": len(corpus.shards)}
    shutil.copytree(folder, tmp_path / "r")  # a finished run into this folder
    again = run_audit(cfg, out=tmp_path / "r", progress=False)
    assert again.summary["resume"]["shards_reused"] == len(corpus.shards)
    # a shard that changes is measured again, the others are reused
    before = os.stat(corpus.shards[0])
    os.utime(corpus.shards[0], ns=(time.time_ns(), time.time_ns()))
    try:
        changed = run_audit(cfg, out=tmp_path / "r", progress=False)
    finally:  # the session's corpus as it was
        os.utime(corpus.shards[0], ns=(before.st_atime_ns, before.st_mtime_ns))
    assert changed.summary["resume"] == {"shards_reused": len(corpus.shards) - 1, "shards_measured": 1}


def test_a_worker_lost_mid_shard_is_retried_and_nothing_is_written_twice(corpus, whole, fresh_lost_worker):
    folder, res, killed = fresh_lost_worker
    assert killed, "no scan worker was seen to kill"
    clean = json.loads((whole / "summary.json").read_text())
    assert clean["scan_retries"] == 0
    assert res.summary["documents"] == clean["documents"]
    assert_same_outputs(folder, whole)
    parts = [p.name for p in (folder / "measurements").iterdir() if p.name != "_done"]
    assert len(parts) == len(corpus.shards)  # the retried shard's part once, no leftover


def test_a_shard_started_again_is_counted(tmp_path):
    """Each start of a shard's scan is counted in its completion record; the summary sums the restarts."""
    from audit.io.storage import location
    from audit.job.resume import ShardState, drop_unused, start_attempt

    meas = location(tmp_path / "measurements")
    state = ShardState("a.jsonl", "/x/a.jsonl", 0, 10, 1, "f")
    assert [start_attempt(meas, state) for _ in range(3)] == [1, 2, 3]
    drop_unused(meas, {state.key})  # a finished run starts the count afresh
    assert start_attempt(meas, state) == 1
