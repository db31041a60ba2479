"""The job on a two-node Ray cluster gives the same outputs as on the local session."""
from __future__ import annotations

import json
from pathlib import Path

import pyarrow.compute as pc
import pytest

from audit.config import load_config
from audit.demo_corpus import DemoCorpus
from audit.job.plan import run_audit
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
