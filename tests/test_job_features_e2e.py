"""Whole-job behaviour on Ray: the contamination canary, language drift of a run, token lengths."""
from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from faker import Faker

from audit.cli import main

pytestmark = pytest.mark.ray

GSM_ITEM = ("Natalia sold clips to 48 of her friends in April, and then she sold half as many clips in May. "
            "How many clips did Natalia sell altogether in April and May? Natalia sold 48/2 = 24 clips in May. "
            "Natalia sold 48+24 = 72 clips altogether in April and May.")


def _write_jsonl(path: Path, rows: list[dict]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")


def _prose(locale: str, n: int, seed: int) -> list[str]:
    fake = Faker(locale)
    fake.seed_instance(seed)
    return ["\n\n".join(fake.paragraph(nb_sentences=6) for _ in range(3)) for _ in range(n)]


def test_canary_stops_the_run_with_exit_1_naming_record_and_item(tmp_path: Path, ray_session, capsys) -> None:
    docs = [{"id": f"d{i}", "text": t} for i, t in enumerate(_prose("en_US", 30, 1))]
    docs[17]["text"] += "\n\n" + GSM_ITEM.lower()
    _write_jsonl(tmp_path / "shards" / "a.jsonl", docs)
    _write_jsonl(tmp_path / "evals" / "gsm.jsonl", [{"id": "gsm-0", "question": GSM_ITEM}])
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "summary.json").write_text('{"previous": true}')
    cfg = tmp_path / "job.yaml"
    cfg.write_text("input: {paths: [shards/]}\n"
                   "eval_sets: [{name: gsm8k, path: evals/gsm.jsonl, text_fields: [question], id_field: id}]\n"
                   "fail_on_contamination: true\noutput: out\n")
    assert main(["run", str(cfg), "--quiet"]) == 1
    err = capsys.readouterr().err
    assert "record 17 of shard shards/a.jsonl" in err and "gsm-0" in err and "gsm8k" in err
    # the previous run's outputs are left as they were
    assert json.loads((tmp_path / "out" / "summary.json").read_text()) == {"previous": True}
    assert not list((tmp_path / "out").glob(".tmp-*"))


def test_canary_trips_on_a_reused_shard_measured_without_it(tmp_path: Path, ray_session, capsys) -> None:
    """The canary judges a reused shard from its measurements under this run's settings, not by
    what the run that measured it (canary off) stored in its completion record."""
    docs = [{"id": f"d{i}", "text": t} for i, t in enumerate(_prose("en_US", 12, 2))]
    docs[7]["text"] += "\n\n" + GSM_ITEM.lower()
    _write_jsonl(tmp_path / "shards" / "a.jsonl", docs)
    _write_jsonl(tmp_path / "evals" / "gsm.jsonl", [{"id": "gsm-0", "question": GSM_ITEM}])
    base = ("input: {paths: [shards/]}\n"
            "eval_sets: [{name: gsm8k, path: evals/gsm.jsonl, text_fields: [question], id_field: id}]\n"
            "output: out\n")
    (tmp_path / "job.yaml").write_text(base)
    assert main(["run", str(tmp_path / "job.yaml"), "--quiet"]) == 0
    (tmp_path / "canary.yaml").write_text(base + "fail_on_contamination: true\n")
    capsys.readouterr()
    assert main(["run", str(tmp_path / "canary.yaml"), "--quiet"]) == 1
    err = capsys.readouterr().err
    assert "record 7 of shard shards/a.jsonl" in err and "gsm-0" in err


def test_contamination_rows_carry_method_spans_and_the_changed_numbers(tmp_path: Path, ray_session) -> None:
    import pyarrow.dataset as pads
    docs = [{"id": f"d{i}", "text": t} for i, t in enumerate(_prose("en_US", 12, 4))]
    changed = GSM_ITEM.replace("48", "36").replace("24", "18").replace("72", "54")
    docs[5]["text"] += "\n\n" + changed
    _write_jsonl(tmp_path / "shards" / "a.jsonl", docs)
    _write_jsonl(tmp_path / "evals" / "gsm.jsonl", [{"id": "gsm-0", "question": GSM_ITEM}])
    cfg = tmp_path / "job.yaml"
    cfg.write_text("input: {paths: [shards/]}\n"
                   "eval_sets: [{name: gsm8k, path: evals/gsm.jsonl, text_fields: [question], id_field: id}]\n"
                   "output: out\n")
    assert main(["run", str(cfg), "--quiet"]) == 0
    [row] = pads.dataset(tmp_path / "out" / "contamination", format="parquet").to_table().to_pylist()
    assert (row["record"], row["eval_id"], row["method"]) == (5, "gsm-0", "skeleton")
    assert {"48 -> 36", "24 -> 18", "72 -> 54"} <= set(row["evidence"])
    a, b = row["longest_span"]
    assert docs[5]["text"][a:b] in changed and row["longest_span"] in row["spans"]
    # the corpus sample the index left common n-grams out by: every document of this small input
    summary = json.loads((tmp_path / "out" / "summary.json").read_text())
    assert summary["contamination"]["corpus_df"] == {"sample_documents": 12, "ngrams_left_out": 0}


def _mixed_run(root: Path, english: int, german: int, expected: str | None) -> dict:
    texts = _prose("en_US", english, 2) + _prose("de_DE", german, 3)
    random.Random(0).shuffle(texts)
    _write_jsonl(root / "shards" / "a.jsonl", [{"id": f"d{i}", "text": t} for i, t in enumerate(texts)])
    cfg = root / "job.yaml"
    cfg.write_text("input: {paths: [shards/]}\noutput: out\n" + (f"languages: {{expected: {expected}}}\n" if expected else ""))
    assert main(["run", str(cfg), "--quiet"]) == 0
    return json.loads((root / "out" / "summary.json").read_text())


def test_shifting_the_language_mix_of_a_run_changes_the_drift_verdict(tmp_path: Path, ray_session) -> None:
    recipe = "{en: 0.8, de: 0.2}"
    as_planned = _mixed_run(tmp_path / "planned", 160, 40, recipe)
    assert as_planned["languages"] == {"en": 160, "de": 40}
    assert as_planned["drift"]["verdict"] == "ok" and not as_planned["drift"]["drift"]
    # 20% of the documents move from English to German: 60% / 40% against the 80/20 recipe
    shifted = _mixed_run(tmp_path / "shifted", 120, 80, recipe)
    assert shifted["languages"] == {"en": 120, "de": 80}
    assert shifted["drift"]["verdict"] == "drift" and shifted["drift"]["drift"]
    assert shifted["drift"]["js"] > as_planned["drift"]["js"]
    # with no recipe the mix is still measured and reported
    no_recipe = _mixed_run(tmp_path / "free", 120, 80, None)
    assert no_recipe["languages"] == {"en": 120, "de": 80}
    assert no_recipe["drift"]["verdict"] == "no_recipe"
    assert no_recipe["drift"]["observed"] == {"en": 0.6, "de": 0.4}


def test_token_lengths_with_a_configured_tokenizer(tmp_path: Path, ray_session, capsys) -> None:
    from tokenizers import Tokenizer, models, pre_tokenizers, trainers

    texts = _prose("en_US", 20, 4)
    tok = Tokenizer(models.WordLevel(unk_token="[UNK]"))
    tok.pre_tokenizer = pre_tokenizers.Whitespace()
    tok.train_from_iterator(texts, trainers.WordLevelTrainer(special_tokens=["[UNK]"]))
    tok.save(str(tmp_path / "tokenizer.json"))
    _write_jsonl(tmp_path / "shards" / "a.jsonl", [{"id": f"d{i}", "text": t} for i, t in enumerate(texts)])
    cfg = tmp_path / "job.yaml"
    cfg.write_text("input: {paths: [shards/]}\nstats: {tokenizer: tokenizer.json}\noutput: out\n")
    assert main(["run", str(cfg), "--quiet"]) == 0
    s = json.loads((tmp_path / "out" / "summary.json").read_text())
    tokens = s["length"]["overall"]["tokens"]
    words = s["length"]["overall"]["words"]
    # Whitespace pre-tokenizer: words and punctuation are tokens, so more tokens than words
    assert tokens["total"] > words["total"] > 0
    # a tokenizer file that is not there is a config error, exit 2, before any work
    cfg.write_text("input: {paths: [shards/]}\nstats: {tokenizer: missing.json}\noutput: out2\n")
    assert main(["run", str(cfg), "--quiet"]) == 2
    assert "stats.tokenizer" in capsys.readouterr().err
    assert not (tmp_path / "out2" / "summary.json").exists()


def test_mix_and_lengths_per_source_when_a_source_field_is_named(tmp_path: Path, ray_session) -> None:
    import pyarrow.dataset as pads

    web = [{"id": f"w{i}", "src": "web", "text": t} for i, t in enumerate(_prose("en_US", 60, 5) + _prose("de_DE", 20, 6))]
    books = [{"id": f"b{i}", "src": "books", "text": t} for i, t in enumerate(_prose("de_DE", 40, 7))]
    _write_jsonl(tmp_path / "shards" / "a.jsonl", web[:50] + books[:20])
    _write_jsonl(tmp_path / "shards" / "b.jsonl", web[50:] + books[20:] + [{"id": "x", "text": "ein kurzer Satz hier."}])
    cfg = tmp_path / "job.yaml"
    cfg.write_text("input: {paths: [shards/], source_field: src}\nlanguages: {expected: {en: 0.5, de: 0.5}}\n"
                   "output: out\n")
    assert main(["run", str(cfg), "--quiet"]) == 0
    out = tmp_path / "out"
    s = json.loads((out / "summary.json").read_text())
    sources = s["drift"]["sources"]
    assert set(sources) == {"web", "books", "(no source)"}
    assert sources["web"]["observed"] == {"en": 0.75, "de": 0.25} and sources["web"]["documents"] == 80
    assert sources["books"]["observed"] == {"de": 1.0} and sources["books"]["drift"]
    assert set(s["length"]["by_source"]) == {"web", "books", "(no source)"}
    assert s["length"]["by_source"]["books"]["documents"] == 40
    lineage = pads.dataset(out / "lineage", format="parquet").to_table(columns=["source_id", "source"]).to_pylist()
    assert {r["source_id"]: r["source"] for r in lineage}["b3"] == "books"
    assert "Per source, against the recipe" in (out / "report.html").read_text()
