"""The example user stage on a two-node Ray cluster: its module reaches every worker through the
config's python_path, its reasons reach lineage and quarantine, and `audit decide` with another
threshold re-judges its kept measurements without calling `__call__` or `setup`."""
from __future__ import annotations

import json
import sys
from pathlib import Path

import pyarrow.dataset as pads
import pytest
import yaml

from audit.config import load_config
from audit.job.plan import run_audit
from tests.fixtures_runs import audit, node_of_shard
from tests.fixtures_user_stages import HERE, example_job, stage_config

pytestmark = [pytest.mark.ray, pytest.mark.cluster]

# No model-loading built-in stage: the cluster's two workers load only what this test is about.
LIGHT = {"languages": {"identify": False}, "pii": {"enabled": False}}


def _shouting(run: Path) -> set[str]:
    """The source ids of the records a shouting reason quarantined."""
    rows = pads.dataset(run / "lineage").to_table(columns=["source_id", "reasons"]).to_pylist()
    return {r["source_id"] for r in rows if "shouting" in r["reasons"]}


def _on_every_node(config: Path, folder: Path) -> None:
    """Add fixtures_user_stages.OnEveryNode to a job: every node of the cluster measures a shard."""
    job = yaml.safe_load(config.read_text())
    job["stages"].append({"use": f"{HERE}:OnEveryNode", "params": {"folder": str(folder)}})
    config.write_text(yaml.safe_dump(job, sort_keys=False))


def _sample_ids(source_ids: set[str]) -> set[str]:
    """The example shard's ids behind copies' ids ("<shard>-<copy>-shout-0" -> "shout-0")."""
    return {"-".join(s.split("-")[-2:]) for s in source_ids}


def test_a_user_stage_on_two_nodes_reaches_lineage_and_decide_only_judges(tmp_path: Path, two_node_cluster,
                                                                          monkeypatch) -> None:
    import ray

    config = example_job(tmp_path, {"threshold": 0.5}, shards=4, copies=50, **LIGHT)
    (tmp_path / "nodes").mkdir()
    _on_every_node(config, tmp_path / "nodes")
    run = tmp_path / "run"
    summary = run_audit(load_config(config), out=run, address=two_node_cluster, progress=False).summary
    assert len([n for n in ray.nodes() if n["Alive"]]) == 2
    assert len(set(node_of_shard(run).values())) == 2  # both nodes measured shards: both imported the stage
    assert summary["documents"] == 4 * 50 * 6
    flagged = _shouting(run)
    assert len(flagged) == summary["reasons"]["shouting"] == 4 * 50 * 2
    assert _sample_ids(flagged) == {"shout-0", "shout-1"}
    quarantine = pads.dataset(run / "quarantine").to_table(columns=["reasons", "details"]).to_pylist()
    shouted = [json.loads(r["details"])["shouting"] for r in quarantine if "shouting" in r["reasons"]]
    assert len(shouted) == len(flagged) and all(d == {"share": 1.0, "threshold": 0.5} for d in shouted)
    assert summary["retried_blocks"] == {} and summary["unreadable"] == 0

    # decide, in this process, with a lower threshold: the stage is built and judges; it never measures
    cls = sys.modules["shouting"].ShoutingStage

    def never(*_args: object, **_kwargs: object) -> None:
        raise AssertionError("audit decide measured")

    monkeypatch.setattr(cls, "__call__", never)
    monkeypatch.setattr(cls, "setup", never)
    lenient = example_job(tmp_path, {"threshold": 0.15}, shards=4, copies=50, ray={"executor": "local"}, **LIGHT)
    _on_every_node(lenient, tmp_path / "nodes")
    assert audit("decide", str(run), "--config", str(lenient)) == 0
    rejudged = _shouting(run)
    assert flagged < rejudged and _sample_ids(rejudged) == {"shout-0", "shout-1", "mixed-0"}
    assert json.loads((run / "summary.json").read_text())["reasons"]["shouting"] == 4 * 50 * 3


def test_a_user_stage_breaking_the_protocol_on_a_worker_exits_2_naming_it(tmp_path: Path, two_node_cluster,
                                                                           capsys) -> None:
    """Raised in a Ray task on either node: one line naming the stage, its use and the shard."""
    example_job(tmp_path)
    data = stage_config(tmp_path, f"{HERE}:WritesOtherColumns", python_path=[str(Path(__file__).parents[1])])
    (tmp_path / "job.yaml").write_text(yaml.safe_dump(data), encoding="utf-8")
    assert audit("run", str(tmp_path / "job.yaml"), "--out", str(tmp_path / "run"), "--address", two_node_cluster,
                 "--quiet") == 2
    err = capsys.readouterr().err
    assert err.startswith(f"audit: stage sloppy (stages[0].use {HERE}:WritesOtherColumns): __call__ returned 6 rows "
                          "and added columns ['sloppy_other']") and err.count("\n") == 1
    assert "(measuring shard shards/part-0.jsonl)" in err
