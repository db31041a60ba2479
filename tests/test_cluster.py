"""The job on a two-node Ray cluster gives the same outputs as on the local session."""
from __future__ import annotations

import json
import os
import signal
import threading
import time
from pathlib import Path
from typing import Any

import pyarrow.compute as pc
import pytest

from audit.config import load_config
from audit.demo_corpus import DemoCorpus
from audit.job.plan import run_audit
from tests.fixtures_faults import pids_titled
from tests.fixtures_runs import assert_same_outputs, dataset, node_of_shard

pytestmark = [pytest.mark.ray, pytest.mark.cluster]


def test_two_node_cluster_matches_local_run(tmp_path: Path, demo: tuple[DemoCorpus, Path], two_node_cluster) -> None:
    import ray

    corpus, local_run = demo  # the session's demo run, made on the local session with the corpus's config
    cfg = load_config(corpus.config_path)
    local = json.loads((local_run / "summary.json").read_text())
    # the cluster run hash-partitions its global pass (the local run, this small, takes one task)
    cfg.ray.partition_rows = 500
    remote = run_audit(cfg, out=tmp_path / "cluster", address=two_node_cluster, progress=False)
    assert len([n for n in ray.nodes() if n["Alive"]]) == 2
    assert remote.summary["documents"] == local["documents"] > 0
    assert remote.summary["unreadable"] == local["unreadable"]
    assert_same_outputs(local_run, tmp_path / "cluster")
    # both nodes measured shards, and near-duplicate clusters join records measured on different nodes
    node = node_of_shard(tmp_path / "cluster")
    assert len(set(node.values())) == 2
    dups = dataset(tmp_path / "cluster", "duplicates")
    near = dups.filter(pc.equal(dups.column("kind"), "near")).to_pylist()
    lineage = {r["doc_id"]: r["shard"] for r in dataset(tmp_path / "cluster", "lineage").select(["doc_id", "shard"]).to_pylist()}
    spanning = [d for d in near if node[lineage[d["doc_id"]]] != node[lineage[d["kept_doc_id"]]]]
    assert near and spanning


def test_a_worker_killed_mid_task_changes_no_output(tmp_path: Path, demo: tuple[DemoCorpus, Path],
                                                    two_node_cluster) -> None:
    corpus, local_run = demo
    cfg = load_config(corpus.config_path)
    cfg.ray.partition_rows = 500  # as the undisturbed cluster run above
    out = tmp_path / "killed"
    finished: dict[str, Any] = {}

    def job() -> None:
        try:
            finished["run"] = run_audit(cfg, out=out, address=two_node_cluster, progress=False)
        except BaseException as e:  # noqa: BLE001 - the test thread reports it
            finished["error"] = e

    thread = threading.Thread(target=job, daemon=True)
    thread.start()
    killed = None
    deadline = time.monotonic() + 300
    while killed is None and thread.is_alive() and time.monotonic() < deadline:
        # the event: a scan task has started (its attempt counter exists) and a worker runs one
        if any((out / "measurements" / "_done").glob("*.attempts")):
            for pid in pids_titled("ray::scan_shard"):
                os.kill(pid, signal.SIGKILL)
                killed = pid
                break
        thread.join(0.01)
    thread.join(300)
    assert killed is not None, "no scan task was caught running"
    # Ray ran the killed task again (max_retries); scan_retries counts it only when the kill came
    # after the task had counted its attempt, so the check is the run itself
    assert "error" not in finished, finished.get("error")
    summary = finished["run"].summary
    local = json.loads((local_run / "summary.json").read_text())
    for k in ("documents", "kept", "quarantined", "unreadable", "reasons"):
        assert summary[k] == local[k], k
    assert_same_outputs(local_run, out)
