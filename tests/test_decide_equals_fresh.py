"""Measure and judge declared once: `audit decide` with any judge-only setting changed gives what a
fresh run with that setting gives, and what was measured never depends on a judge-only setting.

One measured run of a small labelled corpus (every default stage, two eval sets, the semantic tier
on, a planted paraphrase and a planted 70% prefix of an item); then every judge setting changed at
once, stricter and more lenient: decide into a copy of the run vs a fresh run. Each setting alone
is checked to act on this corpus (so the comparison covers it), and the fresh runs' measurements
must equal the first run's.
"""
from __future__ import annotations

import json
import shutil
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.dataset as pads
import pyarrow.parquet as pq
import pytest
import yaml

from audit.config import config_roles, load_config
from tests.fixtures_judge import JUDGE_CHANGES, NOT_IN_A_RUN, changed, judge_corpus

OUTPUTS = ("lineage", "quarantine", "contamination", "pii", "duplicates")
# summary.json figures that are about the run, not the records: times, dates, reuse
VOLATILE = ("run_id", "started", "finished", "seconds", "mb_per_s", "scan_seconds", "ray_start_seconds", "stages", "resume",
            "retried_blocks", "scan_retries")


def _config(root: Path, data: dict[str, Any], name: str):
    path = root / f"{name}.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    return load_config(path)


def _outputs(run: Path) -> dict[str, Any]:
    """A run's datasets (rows in a canonical order) and its summary without timings."""
    out: dict[str, Any] = {}
    for name in OUTPUTS:
        rows = pads.dataset(run / name, format="parquet").to_table().to_pylist()
        out[name] = sorted(rows, key=lambda r: json.dumps(r, sort_keys=True, default=str))
    summary = json.loads((run / "summary.json").read_text())
    out["summary"] = {k: v for k, v in summary.items() if k not in VOLATILE}
    return out


def _measurements(run: Path) -> dict[str, pa.Table]:
    return {p.name: pq.read_table(p) for p in sorted((run / "measurements").glob("part-*.parquet"))}


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    root = tmp_path_factory.mktemp("judge") / "corpus"
    _, base = judge_corpus(root)
    return root, base


@pytest.fixture(scope="module")
def measured(corpus, tmp_path_factory, ray_session) -> Path:
    from audit.job.plan import run_audit

    root, base = corpus
    out = tmp_path_factory.mktemp("measured") / "run"
    run_audit(_config(root, base, "base"), out=out, progress=False)
    return out


def test_every_judge_setting_has_a_change_to_test():
    judge = {f.path for f in config_roles() if f.role == "judge"}
    assert judge == set(JUDGE_CHANGES)


@pytest.mark.ray
@pytest.mark.parametrize("direction", [0, 1], ids=["stricter", "more_lenient"])
def test_decide_with_every_judge_setting_changed_equals_a_fresh_run(direction, corpus, measured, tmp_path):
    from audit.job.plan import decide_run, run_audit

    root, base = corpus
    config = _config(root, changed(base, {k: v[direction] for k, v in JUDGE_CHANGES.items()}), f"changed{direction}")
    decided = tmp_path / "decided"
    shutil.copytree(measured, decided)
    decide_run(decided, config)
    run_audit(config, out=tmp_path / "fresh", progress=False)
    got, want = _outputs(decided), _outputs(tmp_path / "fresh")
    for name in want:
        assert got[name] == want[name], name
    before = _outputs(measured)
    assert got != before  # the changes act
    if direction == 0:  # dedup.min_shared_bands acts in the global pass: all 16 bands confirm fewer pairs
        assert len(got["duplicates"]) < len(before["duplicates"])
    # what was measured does not depend on any judge setting
    first, fresh = _measurements(measured), _measurements(tmp_path / "fresh")
    assert sorted(first) == sorted(fresh)
    for name, table in first.items():
        assert table.equals(fresh[name]), name


@pytest.mark.ray
def test_the_semantic_tier_measures_what_another_tier_matched(corpus, measured, tmp_path):
    """The issue's case: with the semantic tier on, raising `threshold` and `minhash_threshold` to
    0.9 by `audit decide` must find the planted 70% prefix by its semantic match, as a fresh run
    does: the semantic tier measured it although other tiers matched it at 0.5."""
    from audit.job.plan import decide_run

    root, base = corpus
    config = _config(root, changed(base, {"contamination.threshold": 0.9, "contamination.minhash_threshold": 0.9,
                                          "contamination.rewrite_threshold": 0.99}), "raised")
    decided = tmp_path / "decided"
    shutil.copytree(measured, decided)
    decide_run(decided, config)
    rows = [r for r in _outputs(decided)["contamination"] if r["eval_set"] == "stories"]
    by_doc = {r["doc_id"]: r["method"] for r in rows}
    lineage = {r["source_id"]: r["doc_id"] for r in _outputs(decided)["lineage"] if r.get("source_id")}
    assert by_doc[lineage["story-2"]] == "exact_ngram"  # the verbatim copy
    assert by_doc[lineage["story-1"]] == "semantic"     # the prefix: its other tiers' 0.7 is under 0.9
    assert by_doc[lineage["story-0"]] == "semantic"     # the paraphrase


@pytest.mark.ray
def test_each_judge_setting_alone_acts_on_the_corpus(corpus, measured):
    """Each changed value, alone, changes what is judged from the measured run (reasons, verdicts,
    counted findings, summary figures or the canary), so the comparison above covers every judge
    setting. dedup.min_shared_bands acts in the global pass and is checked by its outputs."""
    from audit.decide import Decider
    from audit.stages.contamination import first_match
    from audit.summary import SummaryBuilder
    from audit.tagger import build_stages

    root, base = corpus
    table = pa.concat_tables(list(_measurements(measured).values()), promote_options="default")
    table = table.filter(pc.is_valid(table.column("record")))  # file-level faults: no record to judge

    def judged(config) -> Any:
        decided = Decider(config, build_stages(config))(table)
        summary = SummaryBuilder(config)
        summary.add(decided)
        figures = summary.finish(seconds=1.0, scan_seconds=0.0, ray_start_seconds=0.0, stages={}, shards=1,
                                 duplicates={}, started=datetime(2026, 1, 1, tzinfo=timezone.utc), version="")
        figures.pop("finished")
        return (decided.select(["verdict", "reasons", "details", "contamination", "pii"]).to_pylist(), figures,
                first_match(table, config))

    before = judged(_config(root, base, "base"))
    idle = []
    for path, values in JUDGE_CHANGES.items():
        if path == "dedup.min_shared_bands" or path in NOT_IN_A_RUN:
            continue
        if all(judged(_config(root, changed(base, {path: v}), "one")) == before for v in values):
            idle.append(path)
    assert idle == [], idle


def test_a_judge_setting_no_run_can_reach_acts_on_a_measured_table():
    """charset.max_surrogates: lone surrogates reach the charset stage only from a caller's own
    Arrow data (the reader calls such a record unreadable); its change acts there."""
    from audit.config import parse_config
    from audit.stages.charset import CharsetStage

    assert set(NOT_IN_A_RUN) == {"filters.charset.max_surrogates"}
    data = "Hello ".encode() + b"\xed\xa0\x80" + " world, with a lone surrogate in it.".encode()
    base = parse_config({"input": {"paths": ["x"]}})
    measured = CharsetStage(base)(pa.table({"text": pa.array([data], pa.binary()).view(pa.string())}))

    def reasons(value: int) -> list[str]:
        config = parse_config({"input": {"paths": ["x"]}, "filters": {"charset": {"max_surrogates": value}}})
        return [r for _, r, _ in CharsetStage(config).judge(measured.drop_columns(["text"]))]

    strict, lenient = JUDGE_CHANGES["filters.charset.max_surrogates"]
    assert reasons(strict) == ["charset:surrogates"] and reasons(lenient) == []
