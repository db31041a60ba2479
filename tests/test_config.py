"""Config: the contract's keys validate; a bad key is one line naming it; the CLI exits 2."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path


import pytest

from audit.config import ConfigError, load_config, parse_config
from tests.fixtures_runs import audit

CONTRACT_EXAMPLE = """
input:
  paths: ["shards/"]
  text_field: text
  id_field: id
  url_field: url
eval_sets:
  - name: gsm8k
    path: evals/gsm8k.jsonl
    text_fields: [question, answer]
    id_field: id
languages:
  expected: {en: 0.7, zh: 0.2, ru: 0.1}
sidecar:
  sample_rate: 0.01
  window: 1000
  output: sidecar/
output: runs/latest
"""


def test_contract_example_validates(tmp_path: Path) -> None:
    p = tmp_path / "job.yaml"
    p.write_text(CONTRACT_EXAMPLE)
    cfg = load_config(p)
    assert cfg.input.paths == ["shards/"]
    assert cfg.eval_sets[0].text_fields == ["question", "answer"]
    assert cfg.languages.expected == {"en": 0.7, "zh": 0.2, "ru": 0.1}
    assert cfg.resolve(cfg.output) == tmp_path / "runs/latest"


def test_default_config_file_validates() -> None:
    cfg = load_config(Path(__file__).parents[1] / "configs" / "default.yaml")
    assert cfg.filters.length.min_chars >= 0


@pytest.mark.parametrize("data, needle", [
    ({"input": {"paths": ["x"], "txt_field": "t"}}, "unknown key 'input.txt_field'"),
    ({"input": {"paths": ["x"]}, "filters": {"length": {"min_chars": -3}}}, "filters.length.min_chars"),
    ({"eval_sets": [{"path": "e.jsonl"}]}, "missing key 'eval_sets[0].name'"),
    ({"input": {"paths": ["x"]}, "languages": {"expected": {"en": 0.5}}}, "add up to 1"),
    ({"input": {"paths": ["x"]}, "dedup": {"num_perm": 100, "bands": 7}}, "multiple of bands"),
    ({"sidecar": {"reservoir_text": "masked"}, "pii": {"enabled": False}}, "masked needs pii.enabled"),
])
def test_bad_key_is_one_line_naming_it(data: dict, needle: str) -> None:
    with pytest.raises(ConfigError) as e:
        parse_config(data)
    msg = str(e.value)
    assert needle in msg and "\n" not in msg


def test_cli_bad_config_exits_2_with_one_line(tmp_path: Path) -> None:
    p = tmp_path / "bad.yaml"
    p.write_text("input:\n  paths: [x]\nfliters: {}\n")
    r = subprocess.run([sys.executable, "-m", "audit", "run", str(p)], capture_output=True, text=True)
    assert r.returncode == 2
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and "unknown key 'fliters'" in lines[0]


def test_cli_missing_input_path_exits_2(tmp_path: Path, capsys) -> None:
    p = tmp_path / "job.yaml"
    p.write_text("input:\n  paths: [nowhere/]\n")
    assert audit("run", str(p)) == 2  # in this process: the exit status of a process is the test above's
    err = capsys.readouterr().err
    assert "nowhere/" in err and "Traceback" not in err


def test_run_without_input_paths_is_a_config_error(tmp_path: Path, capsys) -> None:
    p = tmp_path / "job.yaml"
    p.write_text("sidecar: {window: 500}\n")  # valid for the sidecar, not for a run
    assert audit("run", str(p)) == 2
    err = capsys.readouterr().err
    assert "input.paths" in err and len(err.strip().splitlines()) == 1


def test_cli_unparsable_yaml_exits_2(tmp_path: Path, capsys) -> None:
    p = tmp_path / "job.yaml"
    p.write_text("input: [unclosed\n")
    assert audit("run", str(p)) == 2 and "not valid YAML" in capsys.readouterr().err


def test_default_yaml_is_generated_from_the_code() -> None:
    """configs/default.yaml documents every setting; it is regenerated, never edited by hand."""
    root = Path(__file__).parents[1]
    r = subprocess.run([sys.executable, str(root / "scripts" / "gen_default_config.py"), "--check"],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    text = (root / "configs" / "default.yaml").read_text()
    for section in ["input", "filters", "dedup", "contamination", "languages", "pii", "stats", "sidecar", "ray"]:
        assert f"\n{section}:" in text


def test_every_min_max_pair_is_checked():
    """A minimum above its maximum is refused, for every min_X / max_X pair of every section."""
    from pydantic import BaseModel

    from audit.config import AuditConfig, ConfigError, parse_config

    pairs = []

    def walk(model: type[BaseModel], path: list[str]) -> None:
        fields = model.model_fields
        for name, f in fields.items():
            sub = f.annotation
            if isinstance(sub, type) and issubclass(sub, BaseModel):
                walk(sub, path + [name])
            elif name.startswith("min_") and f"max_{name[4:]}" in fields:
                pairs.append((path, name, f"max_{name[4:]}"))

    walk(AuditConfig, [])
    assert (["filters", "length"], "min_chars", "max_chars") in pairs and len(pairs) >= 2
    for path, lo, hi in pairs:
        section: dict = {lo: 10, hi: 1}
        data: dict = {"input": {"paths": ["x"]}}
        node = data
        for p in path[:-1]:
            node = node.setdefault(p, {})
        node[path[-1]] = section
        with pytest.raises(ConfigError, match=rf"{lo} \(10(\.0)?\) is above {hi}"):
            parse_config(data)


def test_an_object_store_below_rays_minimum_names_the_key():
    from audit.config import ConfigError, parse_config

    with pytest.raises(ConfigError, match="ray.object_store_memory"):
        parse_config({"ray": {"object_store_memory": 10 * 2**20}})


def test_every_setting_says_whether_it_measures_judges_or_runs():
    """Each field of the config tree has a role where it is defined; a floored threshold names a
    measuring sibling; a new field without a mark fails here."""
    from audit.config import config_roles

    roles = config_roles()
    assert [f.path for f in roles if f.role not in ("measure", "judge", "run")] == []
    by_path = {f.path: f for f in roles}
    assert by_path["contamination.threshold"].role == "judge"
    assert by_path["contamination.threshold"].floor == "contamination.measure_floor"
    assert by_path["contamination.ngram"].role == "measure" and by_path["output"].role == "run"
    assert {by_path[p].role for p in by_path if p.startswith(("ray.", "sidecar."))} == {"run"}
    for f in roles:
        if f.floor is not None:
            assert f.role == "judge" and by_path[f.floor].role == "measure", f


def test_measuring_settings_are_the_measure_marks():
    """Judge and run settings are not in the fingerprint; every measure setting is; a floored
    threshold enters as what it is measured down to."""
    from audit.config import config_roles
    from audit.job.resume import measure_fingerprint, measuring_settings

    config = parse_config({"input": {"paths": ["x"]}, "eval_sets": [{"name": "e", "path": "e.jsonl"}]})
    flat = measuring_settings(config)
    roles = config_roles()
    measure = {f.path for f in roles if f.role == "measure" and not f.path.startswith(("eval_sets", "stages"))}
    floored = {f.path for f in roles if f.floor}
    assert set(flat) == measure | floored | {"eval_sets.0.name", "eval_sets.0.path", "eval_sets.0.text_fields",
                                             "eval_sets.0.id_field", "eval_sets.0.units", "eval_sets.0.path@file"}
    assert flat["contamination.threshold"] == 0.3  # min(measure_floor 0.3, threshold 0.5)
    raised = parse_config({"input": {"paths": ["x"]}, "eval_sets": [{"name": "e", "path": "e.jsonl"}],
                           "contamination": {"threshold": 0.9}, "pii": {"max_findings": 1},
                           "languages": {"chi2_pvalue": 0.5}, "ray": {"num_cpus": 1}, "output": "elsewhere"})
    assert measure_fingerprint(raised) == measure_fingerprint(config)


def test_decide_refuses_only_measuring_changes_and_names_them_all():
    from audit.job.resume import measuring_settings, refused_changes

    def cfg(**sections):
        return parse_config({"input": {"paths": ["x"]}, **sections})

    measured = measuring_settings(cfg())
    # judge-only, including the two the hand list used to refuse; thresholds raised
    assert refused_changes(measured, cfg(pii={"max_findings": 0, "min_score": 0.9}, languages={"chi2_pvalue": 0.5},
                                         contamination={"threshold": 0.9, "minhash_threshold": 0.9})) == []
    # a threshold lowered to its measured floor is re-judged; below it needs measuring
    assert refused_changes(measured, cfg(contamination={"threshold": 0.3})) == []
    assert refused_changes(measured, cfg(contamination={"threshold": 0.2, "semantic_threshold": 0.1},
                                         pii={"min_score": 0.1})) == [
        "contamination.semantic_threshold", "contamination.threshold", "pii.min_score"]
    # every measuring change, by its config path, not only the first few
    assert refused_changes(measured, cfg(contamination={"ngram": 9, "code": False}, dedup={"num_perm": 32},
                                         languages={"sample_chars": 500}, pii={"entities": ["US_SSN"]})) == [
        "contamination.code", "contamination.ngram", "dedup.num_perm", "languages.sample_chars", "pii.entities"]


def test_decide_names_every_measuring_change_in_one_line(tmp_path):
    """`audit decide` with measuring changes: exit 2, one line naming each by its config path."""
    import json

    from audit.job.plan import decide_run
    from audit.job.resume import measuring_settings

    run = tmp_path / "run"
    (run / "measurements").mkdir(parents=True)
    measured = parse_config({"input": {"paths": ["x"]}})
    (run / "run.json").write_text(json.dumps({"config": json.loads(measured.model_dump_json()), "shards": [],
                                              "measuring_settings": measuring_settings(measured)}))
    (run / "summary.json").write_text("{}")  # a finished run (decide refuses an unfinished one)
    changed = parse_config({"input": {"paths": ["x"]}, "contamination": {"ngram": 9, "threshold": 0.1},
                            "dedup": {"seed": 2}, "languages": {"min_score": 0.2}, "pii": {"max_findings": 0}})
    with pytest.raises(ConfigError) as e:
        decide_run(run, changed)
    msg = str(e.value)
    assert "\n" not in msg
    assert msg.startswith("contamination.ngram, contamination.threshold, dedup.seed, languages.min_score: ")
    assert "floor" not in msg and "pii" not in msg
