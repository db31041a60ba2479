"""User stages (CONTRACT.md "A stage of your own"): the example stage on a small Arrow table, the
config's `stages:`/`python_path:` loaded and checked before any work, a user stage's failures named,
its params split into measuring and judging settings. No Ray here (tests/test_user_stages_cluster.py
runs the example on a two-node cluster)."""
from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import pyarrow as pa
import pyarrow.dataset as pads
import pytest
import yaml

import audit
from audit.config import ConfigError, load_config, parse_config
from audit.decide import Decider
from audit.tagger import StageError, Tagger, build_stages
from tests.fixtures_runs import audit as audit_cli
from tests.fixtures_stages import records
from tests.fixtures_user_stages import EXAMPLE, HERE, example_job, stage_config


@pytest.fixture(autouse=True)
def _clean_imports(monkeypatch):
    """Each test imports the example afresh from where its config says (python_path edits sys.path)."""
    monkeypatch.setattr(sys, "path", list(sys.path))
    sys.modules.pop("shouting", None)
    yield
    sys.modules.pop("shouting", None)


@pytest.fixture
def shouting(monkeypatch):
    monkeypatch.syspath_prepend(str(EXAMPLE))
    import shouting

    return shouting


TEXTS = ["The committee met on Tuesday to review the budget for the new library.",
         "BUY NOW!!! THE BEST DEAL OF THE YEAR, ONLY TODAY, CALL US RIGHT AWAY!!!",
         "WARNING: The bridge on Main Street is CLOSED for repairs until further notice.",
         "OK", None, "", "1234 5678"]


def test_the_example_stage_measures_and_judges_a_small_table(shouting) -> None:
    stage = shouting.ShoutingStage(threshold=0.5)
    assert isinstance(stage, audit.Stage)
    batch = records(TEXTS)
    out = stage(batch)
    assert out.column_names == batch.column_names + ["shouting_share", "shouting_letters"]
    share = out.column("shouting_share").to_pylist()
    assert share[0] < 0.05 and share[1] == 1.0 and 0.1 < share[2] < 0.3 and share[3] == 1.0
    assert share[4:] == [None, None, None]  # unreadable, empty, no letters: nothing to share
    assert out.column("shouting_letters").to_pylist()[3:] == [2, None, 0, 0]
    measured = out.drop_columns(["text"])
    assert [(r, reason) for r, reason, _ in stage.judge(measured)] == [(1, "shouting")]  # "OK": too few letters
    lenient = shouting.ShoutingStage(threshold=0.1, min_letters=2)
    assert [r for r, _, _ in lenient.judge(measured)] == [1, 2, 3]
    assert next(iter(lenient.judge(measured)))[2] == {"share": 1.0, "threshold": 0.1}


def test_built_in_stages_are_stages_of_the_same_kind_cheap_until_set_up() -> None:
    from audit.stages.language import LanguageStage
    from audit.stages.length import LengthStage

    config = parse_config({"input": {"paths": ["x"]}})
    assert issubclass(LengthStage, audit.Stage) and issubclass(LanguageStage, audit.Stage)
    stage = LanguageStage(config)
    assert not hasattr(stage, "model")  # __init__ loads no model: decide builds stages to judge only
    assert stage.ready() is stage and stage.model is not None
    model = stage.model
    assert stage.ready().model is model  # once
    out = stage(records(["Das ist ein Satz auf Deutsch, der lang genug ist."]))
    assert out.column("language").to_pylist() == ["de"]


def test_a_config_with_a_user_stage_builds_it_after_the_built_ins(tmp_path: Path) -> None:
    config = load_config(example_job(tmp_path, {"threshold": 0.3, "sample_chars": 500}))
    stages = build_stages(config)
    assert [s.name for s in stages][-1] == "shouting" and "length" in [s.name for s in stages[:-1]]
    user = stages[-1]
    assert (user.threshold, user.sample_chars) == (0.3, 500)
    assert sys.modules["shouting"].__file__ == str(tmp_path / "shouting.py")  # found through python_path


@pytest.mark.parametrize("use, params, says", [
    ("nowhere:Stage", {}, "stages[0].use: cannot import module 'nowhere'"),
    (f"{HERE}:Missing", {}, f"stages[0].use: module '{HERE}' has no 'Missing'"),
    (f"{HERE}:NotAStage", {}, "is not a subclass of audit.Stage"),
    (f"{HERE}:MeasuresNothing", {}, "MeasuresNothing does not define __call__"),
    ("no-such-plugin", {}, "stages[0].use: 'no-such-plugin' is neither module:Class nor an installed stage"),
    (f"{HERE}:FailsOnMarked", {"threshold": 1}, "stages[0].params: tests.fixtures_user_stages:FailsOnMarked(**params)"),
    (f"{HERE}:NamedLength", {}, "name 'length' is a built-in"),
    (f"{HERE}:WritesChars", {}, "writes column 'chars', a record column"),
])
def test_a_stage_that_cannot_be_used_is_refused_at_config_load(tmp_path, capsys, use, params, says) -> None:
    data = stage_config(tmp_path, use, params)
    (tmp_path / "job.yaml").write_text(yaml.safe_dump(data), encoding="utf-8")
    with pytest.raises(ConfigError) as e:
        load_config(tmp_path / "job.yaml")
    assert says in str(e.value) and "\n" not in str(e.value)
    assert audit_cli("run", str(tmp_path / "job.yaml"), "--out", str(tmp_path / "run")) == 2
    err = capsys.readouterr().err
    assert says in err and err.count("\n") == 1 and not (tmp_path / "run").exists()  # before any work


def test_bad_params_and_python_path_are_named(tmp_path, shouting) -> None:
    with pytest.raises(ConfigError, match=r"stages\[0\]\.params: .*ValueError: threshold must be between 0 and 1"):
        load_config(example_job(tmp_path, {"threshold": 2}))
    with pytest.raises(ConfigError, match=r"python_path\[1\]: folder .*plugins not found"):
        parse_config({"python_path": [".", "plugins"], "stages": [{"use": "shouting:ShoutingStage"}]}, tmp_path)
    with pytest.raises(ConfigError, match=r"stages\[1\]\.use: .*name 'shouting' is the name of stages\[0\]"):
        parse_config({"stages": [{"use": "shouting:ShoutingStage"}] * 2}, tmp_path)


def test_an_installed_stage_is_found_by_its_entry_point_name(tmp_path, monkeypatch) -> None:
    """A package's entry point in group audit.stages (here a dist-info on sys.path, as pip writes it)."""
    site = tmp_path / "site"
    dist = site / "shouting_plugin-1.0.dist-info"
    dist.mkdir(parents=True)
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: shouting-plugin\nVersion: 1.0\n")
    (dist / "entry_points.txt").write_text("[audit.stages]\nshouting = shouting:ShoutingStage\n")
    shutil.copy(EXAMPLE / "shouting.py", site / "shouting.py")
    monkeypatch.syspath_prepend(str(site))
    config = parse_config({"stages": [{"use": "shouting", "params": {"threshold": 0.2}}]}, tmp_path)
    assert build_stages(config)[-1].threshold == 0.2
    with pytest.raises(ConfigError, match="entry points of group audit.stages: shouting"):
        parse_config({"stages": [{"use": "shout"}]}, tmp_path)


def _tagger(tmp_path: Path, use: str) -> Tagger:
    return Tagger(parse_config(stage_config(tmp_path, use, dedup={"near": False}, lookup={"passages": False}),
                               tmp_path))


def test_a_record_a_user_stage_fails_on_is_named_and_counted(tmp_path) -> None:
    tagger = _tagger(tmp_path, f"{HERE}:FailsOnMarked")
    out = tagger(records(["fine text", "bad \u2063BOOM text", None, "more text"]))
    errors = out.column("error").to_pylist()
    label = f"stage marked (stages[0].use {HERE}:FailsOnMarked)"
    assert errors[1] == f"could not be measured: {label}: ValueError: cannot handle this record"
    assert [errors[i] for i in (0, 2, 3)] == [None, None, None]
    assert out.column("marked_chars").to_pylist() == [9, None, None, 9]
    stats = tagger.take_stats()
    assert stats["retried_blocks"] == {label: 1} and stats["records_failed"] == {label: 1}
    config = parse_config(stage_config(tmp_path, f"{HERE}:FailsOnMarked"), tmp_path)
    assert Decider(config, tagger.stages)(out).column("reasons").to_pylist()[1] == ["unreadable"]


def test_a_user_stage_that_breaks_the_protocol_stops_the_job_named(tmp_path) -> None:
    with pytest.raises(StageError, match=r"stage sloppy \(stages\[0\]\.use .*WritesOtherColumns\): __call__ returned "
                                         r"1 rows and added columns \['sloppy_other'\]"):
        _tagger(tmp_path, f"{HERE}:WritesOtherColumns")(records(["text"]))
    with pytest.raises(StageError, match=r"stage nullish .*: fails on a record whose text is null"):
        _tagger(tmp_path, f"{HERE}:FailsOnNullText")(records(["fine", "bad \u2063BOOM"]))


def test_a_judge_reason_of_another_kind_is_refused(tmp_path) -> None:
    config = parse_config(stage_config(tmp_path, f"{HERE}:WrongReason"), tmp_path)
    measured = Tagger(config)(records(["some text of enough words to be judged here"]))
    with pytest.raises(StageError, match=r"stage borrower .*: judge yielded reason 'length:too_short': a reason is "
                                         r"'borrower' or 'borrower:<detail>'"):
        Decider(config, build_stages(config))(measured)


def test_params_the_class_names_in_judges_are_judging_settings(tmp_path) -> None:
    from audit.job.resume import measuring_settings, refused_changes

    base = measuring_settings(load_config(example_job(tmp_path, {"threshold": 0.5})))
    assert base["stages.0.params.sample_chars"] == 10_000  # a default counts as given
    assert "stages.0.params.threshold" not in base and "stages.0.params.min_letters" not in base
    assert base["stages.0.use@file"] != "missing"
    judged = load_config(example_job(tmp_path, {"threshold": 0.1, "min_letters": 3}))
    assert refused_changes(base, judged) == []
    measured = load_config(example_job(tmp_path, {"threshold": 0.5, "sample_chars": 100}))
    assert refused_changes(base, measured) == ["stages.0.params.sample_chars"]
    again = example_job(tmp_path, {"threshold": 0.5})
    (tmp_path / "shouting.py").write_text((tmp_path / "shouting.py").read_text() + "\n# edited\n")
    assert refused_changes(base, load_config(again)) == ["stages.0.use (its file changed)"]


@pytest.mark.slow
def test_a_run_in_this_process_puts_its_reasons_in_lineage_and_decide_only_judges(tmp_path, monkeypatch) -> None:
    """The in-process backend (LocalExecutor): the user stage measures every record; `audit decide`
    with a lower threshold builds it and calls judge only."""
    config = example_job(tmp_path, {"threshold": 0.5}, ray={"executor": "local"},
                         languages={"identify": False}, pii={"enabled": False})
    assert audit_cli("run", str(config), "--out", str(tmp_path / "run"), "--quiet") == 0
    lineage = {r["source_id"]: r for r in pads.dataset(tmp_path / "run" / "lineage").to_table().to_pylist()}
    assert {k for k, r in lineage.items() if "shouting" in r["reasons"]} == {"0-0-shout-0", "0-0-shout-1"}
    assert lineage["0-0-calm-0"]["shouting_share"] < 0.05
    summary = json.loads((tmp_path / "run" / "summary.json").read_text())
    assert summary["reasons"]["shouting"] == 2 and summary["documents"] == 6

    cls = sys.modules["shouting"].ShoutingStage

    def never(*_a, **_k):
        raise AssertionError("audit decide measured")

    monkeypatch.setattr(cls, "__call__", never)
    monkeypatch.setattr(cls, "setup", never)
    example_job(tmp_path, {"threshold": 0.15}, ray={"executor": "local"}, languages={"identify": False},
                pii={"enabled": False})
    assert audit_cli("decide", str(tmp_path / "run"), "--config", str(config)) == 0
    lineage = {r["source_id"]: r for r in pads.dataset(tmp_path / "run" / "lineage").to_table().to_pylist()}
    assert {k for k, r in lineage.items() if "shouting" in r["reasons"]} == {"0-0-shout-0", "0-0-shout-1",
                                                                             "0-0-mixed-0"}


@pytest.mark.slow
def test_a_record_a_user_stage_fails_on_in_a_run_is_named_with_its_shard_and_record(tmp_path) -> None:
    example_job(tmp_path)  # its shard
    with (tmp_path / "shards" / "part-0.jsonl").open("a", encoding="utf-8") as f:
        f.write(json.dumps({"id": "odd", "text": "an odd \u2063BOOM record"}) + "\n")
    data = stage_config(tmp_path, f"{HERE}:FailsOnMarked", python_path=[str(Path(__file__).parents[1])],
                        ray={"executor": "local"})
    (tmp_path / "job.yaml").write_text(yaml.safe_dump(data), encoding="utf-8")
    assert audit_cli("run", str(tmp_path / "job.yaml"), "--out", str(tmp_path / "run"), "--quiet") == 0
    summary = json.loads((tmp_path / "run" / "summary.json").read_text())
    label = f"stage marked (stages[0].use {HERE}:FailsOnMarked)"
    assert summary["unreadable"] == 1 and summary["retried_blocks"] == {label: 1} and summary["documents"] == 7
    (named,) = [json.loads(line) for line in (tmp_path / "run" / "unreadable.jsonl").read_text().splitlines()]
    assert (named["shard"], named["record"]) == ("shards/part-0.jsonl", 6)
    assert named["error"] == f"could not be measured: {label}: ValueError: cannot handle this record"
