"""Truthful configs: configs/default.yaml is the defaults and nothing else; every example in
configs/examples/ and every job in the README loads and runs on the real public files it names
(../shared/data)."""
from __future__ import annotations

import itertools
import json
import re
from pathlib import Path

import pyarrow.dataset as pads
import pytest
import yaml

from audit.config import AuditConfig, load_config
from audit.evalsets import load_eval_sets
from audit.job.plan import run_audit

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "configs" / "examples"


def _jsonl(path: Path, rows: list[dict]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")


def _job(tmp_path: Path, config_text: str, shared_data: Path, shards: dict[str, list[dict]]) -> Path:
    """A job folder as a user lays it out: the config, shards/ and evals/ (the public files)."""
    tmp_path.mkdir(parents=True, exist_ok=True)
    (tmp_path / "evals").symlink_to(shared_data / "evals", target_is_directory=True)
    for name, rows in shards.items():
        _jsonl(tmp_path / "shards" / name, rows)
    cfg = tmp_path / "job.yaml"
    cfg.write_text(config_text, encoding="utf-8")
    return cfg


def _prose(shared_data: Path, n: int, skip: int = 0) -> list[dict]:
    """`n` paragraphs of ABC news (real text) as records with an id and a URL."""
    with open(shared_data / "prose" / "nltk_abc_news_paragraphs.jsonl", encoding="utf-8") as f:
        rows = [json.loads(line) for line in itertools.islice(f, skip, skip + n)]
    return [{"id": f"abc-{skip + i}", "url": f"https://news.example.org/{skip + i}", "text": r["text"]}
            for i, r in enumerate(rows)]


def _first(path: Path, n: int) -> list[dict]:
    import gzip

    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt", encoding="utf-8") as f:
        return [json.loads(line) for line in itertools.islice(f, n)]


def _readme_jobs() -> list[str]:
    """The README's ```yaml jobs that name public files (eval sets); the user-stage block runs
    examples/shouting/, which tests/test_user_stages.py runs."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    return [b for b in re.findall(r"```yaml\n(.*?)```", text, re.S) if re.search(r"^eval_sets:", b, re.M)]


def test_default_yaml_is_the_defaults_and_nothing_else() -> None:
    """No example values (an eval set, a recipe) pass for defaults: the file parses to AuditConfig()."""
    data = yaml.safe_load((ROOT / "configs" / "default.yaml").read_text(encoding="utf-8"))
    assert data == AuditConfig().model_dump(mode="json")
    assert data["eval_sets"] == [] and data["languages"]["expected"] is None and data["input"]["paths"] == []


def test_every_example_loads() -> None:
    names = {p.stem for p in EXAMPLES.glob("*.yaml")}
    assert {"eval_sets", "language_recipe", "cluster", "object_storage"} <= names
    for p in EXAMPLES.glob("*.yaml"):
        cfg = load_config(p)
        assert cfg.input.paths, p  # every example names its shards


def test_the_readme_jobs_load_the_public_files_they_name(tmp_path: Path, shared_data: Path) -> None:
    """The README's job blocks, with their eval sets read from the real public files (GSM8K has no id
    field: an `id_field: id` there is refused, naming the field)."""
    jobs = _readme_jobs()
    assert jobs and any("gsm8k" in text for text in jobs)
    for i, text in enumerate(jobs):
        cfg = load_config(_job(tmp_path / str(i), text, shared_data, {}))
        for eval_set in load_eval_sets(cfg):
            assert len(eval_set.ids) > 100 and eval_set.texts[0].strip()


@pytest.mark.slow
def test_the_eval_sets_example_runs_on_gsm8k_and_humaneval(tmp_path: Path, shared_data: Path) -> None:
    gsm8k = _first(shared_data / "evals" / "gsm8k_test.jsonl", 6)[5]
    human = _first(shared_data / "evals" / "HumanEval.jsonl.gz", 1)[0]
    prose = _prose(shared_data, 40)
    prose[7]["text"] += "\n\nA reader asked: " + gsm8k["question"] + "\n" + gsm8k["answer"]
    prose[21]["text"] = "Solved it:\n" + human["prompt"] + human["canonical_solution"]
    cfg = _job(tmp_path, (EXAMPLES / "eval_sets.yaml").read_text(), shared_data,
               {"a.jsonl": prose[:20], "b.jsonl": prose[20:]})
    res = run_audit(load_config(cfg), progress=False)
    assert Path(res.out) == tmp_path / "runs" / "contamination"
    found = pads.dataset(Path(res.out) / "contamination").to_table(
        columns=["source_id", "eval_set", "eval_id"]).to_pylist()
    assert {"source_id": "abc-7", "eval_set": "gsm8k", "eval_id": "5"} in found  # named by its index
    assert {"source_id": "abc-21", "eval_set": "humaneval", "eval_id": "HumanEval/0"} in found


@pytest.mark.slow
def test_the_language_recipe_example_measures_drift_per_source(tmp_path: Path, shared_data: Path) -> None:
    by_lang: dict[str, list[dict]] = {"en": [], "zh": [], "ru": [], "de": []}
    want = {"en": 50, "zh": 10, "ru": 10, "de": 10}
    with open(shared_data / "multilingual" / "debian_fortunes_en_zh_ru_de_es.jsonl", encoding="utf-8") as f:
        for line in f:
            r = json.loads(line)
            if r["lang"] in want and len(by_lang[r["lang"]]) < want[r["lang"]] and len(r["text"]) > 120:
                by_lang[r["lang"]].append({"id": f"{r['lang']}-{len(by_lang[r['lang']])}", "text": r["text"],
                                           "source": "fortunes-en" if r["lang"] == "en" else "fortunes-intl"})
            if all(len(by_lang[k]) == n for k, n in want.items()):
                break
    rows = [r for rs in by_lang.values() for r in rs]
    text = (EXAMPLES / "language_recipe.yaml").read_text()
    cfg = _job(tmp_path, text, shared_data, {"mixed.jsonl": rows})
    summary = run_audit(load_config(cfg), progress=False).summary
    drift = summary["drift"]
    assert drift["expected"] == {"en": 0.7, "zh": 0.2, "ru": 0.1}
    assert "de" in drift["new_languages"] and drift["verdict"] == "drift"
    assert set(drift["sources"]) == {"fortunes-en", "fortunes-intl"}


@pytest.mark.ray
def test_the_cluster_example_runs_on_ray(tmp_path: Path, shared_data: Path, ray_session) -> None:
    cfg = _job(tmp_path, (EXAMPLES / "cluster.yaml").read_text(), shared_data,
               {"a.jsonl": _prose(shared_data, 30), "b.jsonl": _prose(shared_data, 30, skip=30)})
    res = run_audit(load_config(cfg), progress=False)
    assert res.summary["documents"] == 60 and Path(res.out) == tmp_path / "runs" / "cluster"
    nodes = {json.loads(p.read_text())["result"]["node"] for p in (Path(res.out) / "measurements" / "_done").glob("*")}
    assert len(nodes) == 1 and None not in nodes  # measured by Ray tasks, not in this process


@pytest.mark.slow
def test_the_object_storage_example_runs_on_an_s3_server(tmp_path: Path, shared_data: Path, s3_bucket: str) -> None:
    from audit.io.storage import location

    prefix = f"{s3_bucket}/{tmp_path.name}"
    text = (EXAMPLES / "object_storage.yaml").read_text().replace("s3://my-bucket", prefix)
    local = tmp_path / "upload"
    _jsonl(local / "a.jsonl", _prose(shared_data, 25))
    location(f"{prefix}/corpus/shards").upload(local)
    cfg = tmp_path / "job.yaml"
    cfg.write_text(text)
    res = run_audit(load_config(cfg), progress=False)
    assert res.out == f"{prefix}/runs/latest" and res.summary["documents"] == 25
    lineage = location(f"{prefix}/runs/latest/lineage")
    assert lineage.is_dir() and location(f"{prefix}/runs/latest/summary.json").read_json()["kept"] > 0
