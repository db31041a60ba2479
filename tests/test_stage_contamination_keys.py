"""Keys that survive translation (audit/stages/contamination_keys.py): a GSM8K question translated
into German or Chinese is found by its numbers and names; lists of figures, code, dates and news
sharing a few of its numbers are not."""
from __future__ import annotations

import json
from pathlib import Path

import pyarrow as pa
import pytest

from audit.config import parse_config
from audit.stages.contamination import ContaminationStage, counted
from audit.stages.contamination_keys import KeyIndex, number_keys, text_keys

# GSM8K test item 11 (Toula's bakery), translated by hand.
DE_11 = ("Toula ging in die Bäckerei und kaufte verschiedene Gebäcksorten. Sie kaufte 3 Dutzend Donuts zu "
         "68 $ pro Dutzend, 2 Dutzend Mini-Cupcakes zu 80 $ pro Dutzend und 6 Dutzend Mini-Käsekuchen zu "
         "55 $ pro Dutzend. Wie hoch waren die Gesamtkosten?")
ZH_11 = "图拉去面包店买了各种糕点。她买了3打甜甜圈，每打68美元；2打迷你纸杯蛋糕，每打80美元；还有6打迷你芝士蛋糕，每打55美元。总共花了多少钱？"
# The same numbers where no word problem is: a doctest, a list of figures, a time stamp.
DOCTEST = ">>> prices = [68, 80, 55]\n>>> sum(p * n for p, n in zip(prices, [3, 2, 6]))\n694"
FIGURES = "Scores this season: 3, 68, 2, 80, 6, 55, 12, 40, 9, 31."
STAMPS = "Logged 03:68:02 and 80-55 on 2/6; build 3.68.2 with MiG-80 and task55."


@pytest.mark.parametrize("written,key", [
    ("5,000", ["5000"]), ("5.000", ["5000"]), ("5 000", ["5000"]), ("5000", ["5000"]), ("1.2", ["1.2"]),
    ("1,2", ["1.2"]), ("2,50", ["2.5"]), ("1,2,3", ["1", "2", "3"]), ("192.0.2.1", []), ("０６８", ["68"])])
def test_numbers_read_alike_in_every_language(written, key):
    assert number_keys(written) == key


def test_times_dates_ranges_versions_and_identifiers_hold_no_number():
    assert [k for k, _, _ in text_keys(STAMPS) if k[0].isdigit()] == []
    assert [k for k, _, _ in text_keys("she paid 5 000 $ for 16 glasses")] == ["5000", "16"]


@pytest.fixture(scope="module")
def gsm_keys(shared_data: Path) -> tuple[KeyIndex, list[str]]:
    with open(shared_data / "evals/gsm8k_test.jsonl", encoding="utf-8") as f:
        questions = [json.loads(x)["question"] for x in f if x.strip()]
    with open(shared_data / "multilingual/lingua_testdata_sentences.jsonl", encoding="utf-8") as f:
        sentences = [json.loads(x)["text"] for x in f if x.strip()]
    sample = [" ".join(sentences[k:k + 15]) for k in range(0, len(sentences), 15)][::5]
    return KeyIndex.build(questions, [True] * len(questions), sample), sentences


def test_a_translated_question_is_found_by_its_numbers_and_names(gsm_keys):
    index, sentences = gsm_keys
    host = " ".join(sentences[:6])
    for translated, name_kept in ((DE_11, True), (ZH_11, False)):
        found = {u: (cov, span, spans, ev) for u, cov, span, spans, ev in index.matches(host + " " + translated, 0.3)}
        assert 11 in found, translated
        cov, (a, b), spans, [evidence] = found[11]
        # the record's span is the translation; the item's spans are its numbers (and its name)
        assert a >= len(host) and b <= len(host) + 1 + len(translated) and cov >= 0.5
        assert evidence.startswith("keys ") and {"68", "55", "80"} <= set(evidence.split()[1:])
        assert ("Toula" in evidence) == name_kept and len(spans) >= 6


def test_figures_code_and_news_sharing_its_numbers_are_not_found(gsm_keys):
    index, sentences = gsm_keys
    news = "The council approved 68 new homes and 55 parking spaces for the 80 families who moved in."
    for text in (DOCTEST, FIGURES, STAMPS, news, " ".join(sentences[:40])):
        assert [u for u, *_ in index.matches(text, 0.3) if u == 11] == [], text


@pytest.mark.slow  # seconds, not milliseconds: kept out of the fast tier
def test_the_stage_reports_a_translation_as_a_rewrite_of_its_question(shared_data, tmp_path):
    rows = [json.loads(x) for x in open(shared_data / "evals/gsm8k_test.jsonl", encoding="utf-8") if x.strip()]
    with open(tmp_path / "gsm.jsonl", "w", encoding="utf-8") as f:
        f.writelines(json.dumps({"id": f"gsm{i}", **r}) + "\n" for i, r in enumerate(rows))

    def run(**contamination) -> list:
        config = parse_config({"input": {"paths": ["x/"]}, "contamination": contamination, "eval_sets": [
            {"name": "gsm8k", "path": "gsm.jsonl", "text_fields": ["question", "answer"], "id_field": "id"}]},
            base_dir=tmp_path)
        out = ContaminationStage(config)(pa.table({"text": pa.array([ZH_11, FIGURES], pa.string())}))
        return counted(out.column("contamination"), config).to_pylist()

    [m], clean = run(rewrite_keys=True)
    assert (m["eval_id"], m["unit"], m["method"]) == ("gsm11", "question", "rewrite") and clean == []
    assert m["evidence"][0].startswith("keys ") and m["spans"] == [m["longest_span"]]
    question = rows[11]["question"]
    assert {question[a:b] for a, b in m["item_spans"]} >= {"68", "80", "55"}
    # off (the default, for its cost), nothing else finds it
    assert run() == [[], []]
