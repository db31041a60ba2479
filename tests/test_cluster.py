"""The job on a two-node Ray cluster gives the same lineage as on the local session."""
from __future__ import annotations

from pathlib import Path

import pyarrow.dataset as pads
import pytest

from audit.job.plan import run_audit
from tests.test_pipeline_e2e import config_for, make_corpus

pytestmark = [pytest.mark.ray, pytest.mark.cluster]


def _lineage(out: Path) -> list[dict]:
    return sorted(pads.dataset(out / "lineage", format="parquet").to_table().to_pylist(), key=lambda r: r["doc_id"])


def test_two_node_cluster_matches_local_run(tmp_path: Path, ray_session) -> None:
    import ray
    from ray.cluster_utils import Cluster

    cfg = config_for(make_corpus(tmp_path))
    local = run_audit(cfg, out=tmp_path / "local", progress=False)
    ray.shutdown()
    cluster = Cluster(initialize_head=True, head_node_args={"num_cpus": 1, "object_store_memory": 150 * 2**20})
    cluster.add_node(num_cpus=1, object_store_memory=150 * 2**20)
    cluster.wait_for_nodes()
    try:
        remote = run_audit(cfg, out=tmp_path / "cluster", address=cluster.address, progress=False)
        assert len([n for n in ray.nodes() if n["Alive"]]) == 2
    finally:
        ray.shutdown()
        cluster.shutdown()
    a, b = _lineage(local.out), _lineage(remote.out)
    assert len(a) == local.summary["documents"] > 0
    assert a == b
    assert local.summary["unreadable"] == remote.summary["unreadable"]
