"""Leaks in the wild: one unit (field) of an item on its own, short items copied in part, code
ported to another language (code_key), and items restated in other words (rewrite)."""
from __future__ import annotations

import gzip
import json
from pathlib import Path

import pyarrow as pa
import pytest

from audit.config import ConfigError, parse_config
from audit.evalsets import load_eval_sets
from audit.stages.contamination import ContaminationStage, counted
from audit.stages.contamination_codekey import CodeKeyIndex, key_tokens, looks_like_any_code
from tests.fixtures_contamination import (ANSWER, EVERY_THIRD, HOST, JS_CLEAN, JS_PORT, PY_FUNC, QUESTION,
                                          QUESTION_RESTATED, STORY)

# Items of 10, 15 and 20 words, all words rare enough to be the item's own.
SHORT = {
    "q10": "Which Roman emperor ordered the construction of the wall across northern Britain?",
    "q15": "How many kilometres did the Apollo fifteen lunar rover travel across the surface of the Moon?",
    "q20": ("Explain why the boiling point of water decreases at higher altitudes and how pressure cookers "
            "overcome this effect in mountain kitchens."),
}


def _config(tmp: Path, rows: list[dict], fields: list[str], **kw) -> object:
    contamination = kw.pop("contamination", {})
    with open(tmp / "items.jsonl", "w", encoding="utf-8") as f:
        f.writelines(json.dumps(r) + "\n" for r in rows)
    return parse_config({"input": {"paths": ["x/"]}, "contamination": contamination, "eval_sets": [
        {"name": "evals", "path": "items.jsonl", "text_fields": fields, "id_field": "id", **kw}]}, base_dir=tmp)


def _counted(config, texts):
    out = ContaminationStage(config)(pa.table({"text": pa.array(texts, pa.string())}))
    return counted(out.column("contamination"), config).to_pylist()


def _short(tmp):
    return _config(tmp, [{"id": k, "text": v} for k, v in SHORT.items()], ["text"])


@pytest.mark.parametrize("item", sorted(SHORT))
def test_short_item_with_its_first_sixty_percent_copied_is_found(tmp_path, item):
    words = SHORT[item].split(" ")
    head = " ".join(words[:-(-len(words) * 6 // 10)])  # at least 60% of the words, verbatim
    [got] = _counted(_short(tmp_path), [HOST + "\n" + head + "\n" + HOST])
    assert [(m["eval_id"], m["method"]) for m in got] == [(item, "exact_ngram")]
    assert got[0]["coverage"] >= 0.6


@pytest.mark.parametrize("item", sorted(SHORT))
def test_short_item_with_under_half_copied_is_not_found(tmp_path, item):
    words = SHORT[item].split(" ")
    [got] = _counted(_short(tmp_path), [HOST + "\n" + " ".join(words[:len(words) * 4 // 10]) + "\n" + HOST])
    assert got == []


def test_the_question_alone_matches_as_its_unit_with_spans_on_both_sides(tmp_path):
    rows = [{"id": "w1", "question": QUESTION, "answer": ANSWER}]
    text = HOST + "\n" + QUESTION + "\n" + HOST
    [got] = _counted(_config(tmp_path, rows, ["question", "answer"], contamination={"rewrite": False}), [text])
    [m] = got
    assert (m["eval_id"], m["unit"], m["method"], m["coverage"]) == ("w1", "question", "exact_ngram", 1.0)
    assert [text[a:b] for a, b in m["spans"]] == [QUESTION]
    assert [QUESTION[a:b] for a, b in m["item_spans"]] == [QUESTION]  # offsets in the unit's own text
    # Matched as a whole item only, the question is under half of it: no match.
    whole_only = _config(tmp_path, rows, ["question", "answer"], units=[], contamination={"rewrite": False})
    assert _counted(whole_only, [text]) == [[]]


def test_a_whole_copy_is_reported_once_as_the_whole_item(tmp_path):
    rows = [{"id": "w1", "question": QUESTION, "answer": ANSWER}]
    [got] = _counted(_config(tmp_path, rows, ["question", "answer"]), [HOST + "\n" + QUESTION + "\n" + ANSWER])
    assert [(m["eval_id"], m["unit"], m["coverage"]) for m in got] == [("w1", "item", 1.0)]


def test_units_must_be_text_fields(tmp_path):
    with pytest.raises(ConfigError) as e:
        _config(tmp_path, [{"id": "w1", "question": QUESTION, "answer": ANSWER}], ["question"], units=["answer"])
    assert "units" in str(e.value) and "text_fields" in str(e.value)


def test_a_list_field_reads_as_its_elements_one_a_line(tmp_path):
    rows = [{"id": "m1", "question": "Which gas do plants take in?",
             "choices": ["Oxygen", "Carbon dioxide", "Helium", "Neon"]}]
    [s] = load_eval_sets(_config(tmp_path, rows, ["question", "choices"]))
    assert s.texts == ["Which gas do plants take in?\nOxygen\nCarbon dioxide\nHelium\nNeon"]
    assert s.units == {"question": ["Which gas do plants take in?"],
                       "choices": ["Oxygen\nCarbon dioxide\nHelium\nNeon"]}


ARC_STEM = "Which property of a mineral can be determined just by looking at it?"
ARC_CHOICES = ["luster", "mass", "weight", "hardness"]


@pytest.mark.parametrize("layout", ["arc", "hf"])
def test_an_object_field_reads_as_its_values_and_its_members_are_units(tmp_path, layout):
    """ARC as published (question: {stem, choices: [{text, label}]}) and as on the Hub (choices:
    {text: [...], label: [...]}): never Python's rendering of a dict; the question is its own unit."""
    if layout == "arc":
        rows = [{"id": "a1", "question": {"stem": ARC_STEM, "choices": [{"text": t, "label": "ABCD"[k]}
                                                                          for k, t in enumerate(ARC_CHOICES)]}}]
        fields, units = ["question"], {"question.stem": [ARC_STEM],
                                       "question.choices": ["luster A\nmass B\nweight C\nhardness D"]}
    else:
        rows = [{"id": "a1", "question": ARC_STEM, "choices": {"text": ARC_CHOICES, "label": list("ABCD")}}]
        fields, units = ["question", "choices"], {"question": [ARC_STEM],
                                                  "choices": ["luster A\nmass B\nweight C\nhardness D"]}
    config = _config(tmp_path, rows, fields)
    [s] = load_eval_sets(config)
    assert s.texts == [ARC_STEM + "\nluster A\nmass B\nweight C\nhardness D"]
    assert s.units == units
    # the question copied alone is found as its unit (as one field of the whole item it is under half)
    [got] = _counted(config, [HOST + "\n" + ARC_STEM + "\n" + HOST])
    assert [(m["eval_id"], m["unit"], m["coverage"]) for m in got] == [("a1", next(iter(units)), 1.0)]


def test_a_dotted_text_field_reads_a_nested_one(tmp_path):
    rows = [{"id": "a1", "question": {"stem": ARC_STEM, "choices": [{"text": "luster", "label": "A"}]}},
            {"id": "a2", "question": {"stem": "What gas do plants take in?"}}]
    [s] = load_eval_sets(_config(tmp_path, rows, ["question.stem"], units=["question.stem"]))
    assert s.texts == [ARC_STEM, "What gas do plants take in?"]
    assert s.units == {"question.stem": [ARC_STEM, "What gas do plants take in?"]}
    with pytest.raises(ConfigError) as e:
        load_eval_sets(_config(tmp_path, rows, ["question.body"]))
    assert "no field 'question.body'" in str(e.value) and "dotted" in str(e.value)


ZH_ITEMS = [{"id": "z1", "question": "在有丝分裂的哪个时期，姐妹染色单体彼此分离并移向细胞的两极？",
             "choices": ["前期", "中期", "后期", "末期"]},
            {"id": "z2", "question": "按照鲍林标度，电负性最高的元素是哪一种？", "choices": ["氧", "氟", "氯", "氮"]}]
ZH_HOST = "市政府周二宣布，明年将对河上的老桥进行全面翻修。工程预计在春季开工，持续大约八个月。"


def test_a_chinese_question_copied_into_chinese_text_is_found(tmp_path):
    """Chinese is written without spaces: its n-grams are of characters (the normaliser's words),
    so a C-Eval-style question copied into a Chinese page is found, and a page of other Chinese
    text sharing common characters is not (before: a question was one or two "words", not indexed)."""
    config = _config(tmp_path, ZH_ITEMS, ["question", "choices"])
    leak = ZH_HOST + ZH_ITEMS[0]["question"] + ZH_HOST
    [got, clean] = _counted(config, [leak, ZH_HOST + "细胞在春季分离，元素的时期很长。" + ZH_HOST])
    assert [(m["eval_id"], m["unit"], m["method"], m["coverage"]) for m in got] == [
        ("z1", "question", "exact_ngram", 1.0)]
    [[a, b]] = got[0]["spans"]
    assert leak[a:b] == ZH_ITEMS[0]["question"].rstrip("？")
    assert clean == []


def test_a_python_item_is_found_in_its_javascript_port(tmp_path):
    config = _config(tmp_path, [{"id": "f1", "text": PY_FUNC}, {"id": "s1", "text": STORY}], ["text"])
    port, clean, prose = _counted(config, [JS_PORT, JS_CLEAN, HOST + " Count the vowel runs in a sentence."])
    [m] = port
    assert (m["eval_id"], m["method"]) == ("f1", "code_key") and m["coverage"] >= 0.5
    assert m["evidence"][0].startswith("keys ") and "vowel" in m["evidence"][0]
    [[a, b]] = m["spans"]
    assert "countVowelRuns" in JS_PORT[a:b] and "return runs" in JS_PORT[a:b]
    assert all(0 <= x < y <= len(PY_FUNC) for x, y in m["item_spans"])
    assert clean == [] and prose == []
    # Off, nothing else finds the port (no 13-gram, no canonical code n-gram in common).
    off = _config(tmp_path, [{"id": "f1", "text": PY_FUNC}, {"id": "s1", "text": STORY}], ["text"],
                  contamination={"code_key": False})
    assert _counted(off, [JS_PORT]) == [[]]


def test_a_question_restated_in_other_words_is_found_by_the_rewrite_tier(tmp_path):
    rows = [{"id": "w1", "question": QUESTION, "answer": ANSWER}, {"id": "s1", "question": STORY, "answer": "#### 0"}]
    # the stems alone (the sentence embedding finds the restatement too: test_contamination_translation.py)
    config = _config(tmp_path, rows, ["question", "answer"], contamination={"rewrite_translation": False})
    restated, every_third, clean = _counted(config, [HOST + "\n" + QUESTION_RESTATED + "\n" + HOST,
                                                     HOST + "\n" + EVERY_THIRD + "\n" + HOST, HOST + "\n" + HOST])
    [m] = restated
    assert (m["eval_id"], m["unit"], m["method"]) == ("w1", "question", "rewrite")
    assert m["evidence"][0].startswith("cosine ") and "gannet" in m["evidence"][1]
    [[a, b]] = m["spans"]  # the window's words holding the unit's stems (HOST's "Tuesday" is one of them)
    at = len(HOST) + 1
    assert a < at + 20 and b > at + len(QUESTION_RESTATED) - 20
    assert [(x["eval_id"], x["method"]) for x in every_third] == [("s1", "rewrite")]
    assert clean == []
    # Its threshold judges it; off, no other tier finds the restatement.
    strict = _config(tmp_path, rows, ["question", "answer"], contamination={"rewrite_threshold": 0.99})
    assert _counted(strict, [HOST + "\n" + QUESTION_RESTATED + "\n" + HOST]) == [[]]
    off = _config(tmp_path, rows, ["question", "answer"], contamination={"rewrite": False})
    assert _counted(off, [HOST + "\n" + QUESTION_RESTATED + "\n" + HOST]) == [[]]


def test_library_calls_read_alike_in_every_language():
    for code in ("s.lower()", "std::tolower(c)", "s.to_lowercase()", "s.toLowerCase()", "strings.ToLower(s)"):
        assert "lower" in {k for k, _, _ in key_tokens(code)}, code


def test_a_short_port_defining_the_items_own_name_is_found_with_one_key_fewer(shared_data):
    with gzip.open(shared_data / "evals/HumanEval.jsonl.gz", "rt", encoding="utf-8") as f:
        items = [json.loads(x) for x in f if x.strip()]
    texts = [r["prompt"] + "\n" + r["canonical_solution"] for r in items]
    index = CodeKeyIndex.build(texts, looks_like_any_code(texts))
    # HumanEval/24 in C++ (humaneval_x): its name and a 0 are all that is left of the item's key
    port = ("int largest_divisor(int n){\n    for (int i=2;i*i<=n;i++)\n        if (n%i==0) return  n/i;\n"
            "    return 1;\n}\n")
    found = {item: cov for item, cov, *_ in index.matches(port, 0.5)}
    assert 24 in found
    # merely calling it, or defining a name of one key piece (is_prime: "is" is none), asks the full three
    assert 24 not in {item for item, *_ in index.matches("x = largest_divisor(n) + 0\n" + port.split("{", 1)[1], 0.5)}
    doc = "def is_prime(n):\n    if n % 2 == 0:\n        return False\n    return max(n, 1) > 0\n"
    assert [item for item, *_ in index.matches(doc, 0.5)] == []
