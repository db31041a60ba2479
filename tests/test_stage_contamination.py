"""Contamination stage: leaks found verbatim, re-cased, partial, buried, split, edited; spans right."""
from __future__ import annotations

import json
import pickle
import random
import re
from pathlib import Path

import pyarrow as pa
import pytest

from audit.config import ConfigError, parse_config
from audit.stages.contamination import COLUMN_TYPE, ContaminationIndex, ContaminationStage, counted, first_match

ITEMS = {
    "long": ("A farmer has 17 sheep and buys 5 more at the spring market, then sells a third of the flock "
             "to his neighbour for 12 dollars each. How much money does the farmer receive from the sale?\n"
             "The farmer has 17+5=<<17+5=22>>22 sheep; a third is about 7, so he receives 7*12=84 dollars.\n#### 84"),
    "other": ("Write a function that returns the longest common prefix of a list of strings, or the empty "
              "string when the list is empty or the strings share no prefix at all."),
    "short": "Which planet is closest to the sun today?",  # 8 words: below the 13-gram size
    "tiny": "Add two numbers",                              # 3 words: too short to index
}


def _filler(words: int, seed: int = 0) -> str:
    """Deterministic prose-like text that shares no 5 words in a row with the items."""
    rng = random.Random(seed)
    vocab = [f"{a}{b}" for a in ("lo", "ra", "ven", "mi", "sto", "ka", "pel", "dru") for b in
             ("ta", "mor", "sen", "quil", "dab", "ro", "nix", "vel", "tor", "gan")]
    out, line = [], []
    for _ in range(words):
        line.append(rng.choice(vocab))
        if len(line) >= rng.randint(8, 16):
            out.append(" ".join(line).capitalize() + ".")
            line = []
    return " ".join(out + [" ".join(line)]).strip()


@pytest.fixture(scope="module")
def config(tmp_path_factory):
    d = tmp_path_factory.mktemp("evals")
    with open(d / "toy.jsonl", "w", encoding="utf-8") as f:
        for k, v in ITEMS.items():
            f.write(json.dumps({"id": k, "text": v}) + "\n")
    with open(d / "second.jsonl", "w", encoding="utf-8") as f:
        f.write(json.dumps({"q": "Translate the following sentence into French and explain each of the "
                                 "grammatical choices you made along the way."}) + "\n")
    return parse_config({"input": {"paths": ["shards/"]}, "eval_sets": [
        {"name": "toy", "path": "toy.jsonl", "text_fields": ["text"], "id_field": "id"},
        {"name": "second", "path": "second.jsonl", "text_fields": ["q"]}]}, base_dir=d)


@pytest.fixture(scope="module")
def stage(config):
    return ContaminationStage(config).ready()


def _measure(stage, texts):
    """The matches that count (as contamination/ reports them): the measurements hold every tier's."""
    out = stage(pa.table({"text": pa.array(texts, pa.string())}))
    assert out.schema.field("contamination").type == COLUMN_TYPE
    return counted(out.column("contamination"), stage.config).to_pylist()


def _only(matches, eval_id):
    hits = [m for m in matches if m["eval_id"] == eval_id]
    assert len(hits) == 1, matches
    return hits[0]


def test_index_describes_its_eval_sets(stage):
    assert stage.index.items_per_set == {"toy": 4, "second": 1}
    assert stage.index.too_short == {"toy": 1, "second": 0}


def test_verbatim_leak_with_spans_on_the_original_text(stage):
    text = _filler(300, 1) + "\n\n" + ITEMS["long"] + "\n\n" + _filler(200, 2)
    [matches] = _measure(stage, [text])
    m = _only(matches, "long")
    assert (m["eval_set"], m["overlap"], m["method"]) == ("toy", 1.0, "exact_ngram")
    [[start, end]] = m["spans"]
    assert text[start:end] == ITEMS["long"]


def test_leak_buried_at_the_end_of_a_1mb_document(stage):
    host = _filler(180_000, 3)
    assert len(host) > 1_000_000
    text = host + " " + ITEMS["long"]
    [matches] = _measure(stage, [text])
    m = _only(matches, "long")
    assert m["overlap"] == 1.0
    assert text[m["spans"][0][0]:m["spans"][0][1]] == ITEMS["long"]


def test_leak_split_across_a_line_break(stage):
    words = ITEMS["other"].split(" ")
    split = " ".join(words[:9]) + "\n" + " ".join(words[9:18]) + "\r\n    " + " ".join(words[18:])
    text = _filler(50, 4) + " " + split + " " + _filler(50, 5)
    [matches] = _measure(stage, [text])
    m = _only(matches, "other")
    assert m["overlap"] == 1.0
    [[start, end]] = m["spans"]
    assert text[start:end] == split


def test_case_and_punctuation_changed_leak(stage):
    variant = re.sub(r"\s+", " ", re.sub(r"[^\w\s]", "", ITEMS["long"].lower()))
    [matches] = _measure(stage, [_filler(80, 6) + "\n" + variant])
    assert _only(matches, "long")["overlap"] == 1.0


def test_partial_leaks_over_and_under_the_threshold(stage):
    words = ITEMS["long"].split(" ")
    sixty = " ".join(words[:int(len(words) * 0.6)])
    thirty = " ".join(words[:int(len(words) * 0.3)])
    over, under = _measure(stage, [_filler(60, 7) + "\n\n" + sixty, _filler(60, 8) + "\n\n" + thirty])
    m = _only(over, "long")
    assert 0.5 <= m["coverage"] <= 0.7
    # overlap is the contract's share of the item's n-grams found: lower than coverage for a prefix
    assert 0 < m["overlap"] < m["coverage"]
    assert under == []


def test_item_shorter_than_the_ngram_size(stage):
    [matches] = _measure(stage, [_filler(40, 9) + " " + ITEMS["short"] + " " + _filler(40, 10)])
    assert _only(matches, "short")["overlap"] == 1.0
    # Six of its eight words copied is 60% or more of a short item: a leak (issue 20, item 5).
    [matches] = _measure(stage, [_filler(40, 9) + " which planet is closest to the " + _filler(40, 10)])
    assert _only(matches, "short")["coverage"] == 0.75


def test_item_shorter_than_min_ngram_is_not_indexed(stage):
    [matches] = _measure(stage, [_filler(40, 11) + " " + ITEMS["tiny"] + " " + _filler(40, 12)])
    assert matches == []


def test_edited_item_is_caught_by_alignment(stage):
    words = ITEMS["long"].split(" ")
    edited = " ".join(w[::-1] if i % 8 == 4 else w for i, w in enumerate(words))  # breaks every 13-gram
    text = _filler(200, 13) + "\n\n" + edited + "\n\n" + _filler(200, 14)
    [matches] = _measure(stage, [text])
    m = _only(matches, "long")
    assert m["method"] == "fuzzy" and m["overlap"] >= 0.5
    # Spans: the aligned pieces, inside the edited item, covering most of it; the longest among them.
    at = text.index(edited)
    assert all(at <= a < b <= at + len(edited) for a, b in m["spans"])
    assert sum(b - a for a, b in m["spans"]) >= 0.8 * len(edited) and m["longest_span"] in m["spans"]


def test_clean_empty_and_unreadable_records(stage):
    clean, empty, unreadable = _measure(stage, [_filler(500, 15), "", None])
    assert clean == [] and empty == [] and unreadable is None


def test_judge_reasons_per_eval_set_and_thresholds(stage, config):
    words = ITEMS["long"].split(" ")
    both = ITEMS["long"] + "\n" + "Translate the following sentence into French and explain each of the " \
                                  "grammatical choices you made along the way."
    partial = _filler(30, 16) + " " + " ".join(words[:int(len(words) * 0.6)])
    out = stage(pa.table({"text": pa.array([_filler(100, 17), both, None, partial], pa.string())}))
    findings = sorted(ContaminationStage(config).judge(out.drop_columns(["text"])))
    assert [(r, reason) for r, reason, _ in findings] == [
        (1, "contamination:second"), (1, "contamination:toy"), (3, "contamination:toy")]
    details = findings[1][2]
    assert details["eval_id"] == "long" and details["overlap"] == 1.0 and details["method"] == "exact_ngram"
    json.dumps(details)
    # every method's threshold: the 60% prefix is also a fuzzy and a rewrite match, judged by theirs
    strict = config.model_copy(update={"contamination": config.contamination.model_copy(
        update={"threshold": 0.9, "minhash_threshold": 0.9, "rewrite_threshold": 0.9})})
    assert [r for r, _, _ in ContaminationStage(strict).judge(out)] == [1, 1]


def test_first_match_is_the_canary_signal(stage, config):
    texts = [_filler(50, 18), _filler(50, 19) + " " + ITEMS["other"], ITEMS["long"]]
    out = stage(pa.table({"doc_id": ["a", "b", "c"], "shard": ["s.jsonl"] * 3, "record": [0, 1, 2],
                          "text": texts}))
    hit = first_match(out, config)
    assert hit["doc_id"] == "b" and hit["record"] == 1 and hit["shard"] == "s.jsonl"
    assert (hit["eval_set"], hit["eval_id"]) == ("toy", "other")
    assert first_match(out.slice(0, 1), config) is None


def test_no_eval_sets_means_no_index_and_empty_lists():
    config = parse_config({"input": {"paths": ["x"]}})
    assert ContaminationIndex.build(config) is None
    out = ContaminationStage(config)(pa.table({"text": pa.array(["anything", None], pa.string())}))
    assert out.column("contamination").to_pylist() == [[], None]


def test_an_empty_eval_set_file_stops_the_stage_with_a_clear_error(tmp_path):
    (tmp_path / "empty.jsonl").write_text("", encoding="utf-8")
    config = parse_config({"input": {"paths": ["x"]}, "eval_sets": [{"name": "empty", "path": "empty.jsonl"}]},
                          base_dir=tmp_path)
    with pytest.raises(ConfigError, match=r"eval set 'empty': .*empty\.jsonl: the file has no items"):
        ContaminationStage(config).setup()


def test_index_survives_pickling_as_ray_ships_it(stage, config):
    index = pickle.loads(pickle.dumps(stage.index))
    text = _filler(100, 20) + " " + ITEMS["long"]
    assert ContaminationStage(config, index)(pa.table({"text": [text]})).column("contamination").to_pylist() == \
        _measure(stage, [text])


@pytest.mark.slow  # seconds, not milliseconds: kept out of the fast tier
def test_real_gsm8k_leaks_in_real_prose(shared_data, tmp_path):
    evals = [json.loads(line) for line in (shared_data / "evals" / "gsm8k_test.jsonl").open(encoding="utf-8")]
    config = parse_config({"input": {"paths": ["x"]}, "eval_sets": [
        {"name": "gsm8k", "path": str(shared_data / "evals" / "gsm8k_test.jsonl"),
         "text_fields": ["question", "answer"]}]})
    stage = ContaminationStage(config)
    prose = [json.loads(line)["text"] for line in
             (shared_data / "prose" / "nltk_abc_news_paragraphs.jsonl").open(encoding="utf-8")][:400]
    assert all(m == [] for m in _measure(stage, prose))
    rng = random.Random(0)
    picks = rng.sample(range(len(evals)), 40)
    texts = []
    for k, i in enumerate(picks):
        item = evals[i]["question"] + "\n" + evals[i]["answer"]
        if k % 2:
            item = re.sub(r"\s+", " ", re.sub(r"[^\w\s]", "", item.lower()))
        texts.append(prose[k] + "\n\n" + item + "\n\n" + prose[k + 100])
    for i, matches in zip(picks, _measure(stage, texts)):
        assert _only(matches, str(i))["overlap"] == 1.0


def test_missing_eval_file_message_names_the_set(tmp_path):
    config = parse_config({"input": {"paths": ["x"]}, "eval_sets": [{"name": "gone", "path": "gone.jsonl"}]},
                          base_dir=Path(tmp_path))
    with pytest.raises(ConfigError, match="eval set 'gone'"):
        ContaminationIndex.build(config)


def test_an_eval_set_with_nothing_to_index_is_a_config_error(tmp_path):
    with open(tmp_path / "short.jsonl", "w", encoding="utf-8") as f:
        for t in ("Add two numbers", "Sort a list", "Name a colour"):  # all under min_ngram=5 words
            f.write(json.dumps({"text": t}) + "\n")
    with open(tmp_path / "fine.jsonl", "w", encoding="utf-8") as f:
        f.write(json.dumps({"text": ITEMS["other"]}) + "\n")
    config = parse_config({"input": {"paths": ["shards/"]}, "eval_sets": [
        {"name": "fine", "path": "fine.jsonl", "text_fields": ["text"]},
        {"name": "shorts", "path": "short.jsonl", "text_fields": ["text"]}]}, base_dir=tmp_path)
    with pytest.raises(ConfigError) as e:
        ContaminationIndex.build(config)
    msg = str(e.value)
    assert "eval set 'shorts'" in msg and "min_ngram" in msg and "\n" not in msg


def test_matches_below_the_threshold_are_kept_for_rejudging_but_do_not_count(stage, config):
    """Tag, then decide: the stage keeps matches down to the measure floor; judge, the canary and
    the contamination/ rows count only those at or over the threshold."""
    from audit.stages.contamination import counted

    words = ITEMS["long"].split()
    partial = _filler(30, 21) + " " + " ".join(words[:int(len(words) * 0.4)])  # ~40% of the item
    # (the rewrite tier weighs the rare words of that 40%, most of the item's: judged by its own threshold)
    config = config.model_copy(update={"contamination": config.contamination.model_copy(update={"rewrite": False})})
    stage = ContaminationStage(config)
    out = stage(pa.table({"doc_id": ["p"], "shard": ["s"], "record": [0], "text": [partial]}))
    kept = out.column("contamination").to_pylist()[0]
    assert kept and 0.3 <= max(m["coverage"] for m in kept) < 0.5
    assert list(ContaminationStage(config).judge(out)) == []
    assert counted(out.column("contamination"), config).to_pylist() == [[]]
    assert first_match(out, config) is None
    lower = config.model_copy(update={"contamination": config.contamination.model_copy(update={"threshold": 0.35})})
    assert [r for r, _, _ in ContaminationStage(lower).judge(out)] == [0]
    assert first_match(out, lower)["doc_id"] == "p"


def test_skeleton_finds_an_item_with_every_number_changed(stage, config):
    changed = re.sub(r"\d+", lambda m: str(int(m.group()) * 3 + 1), ITEMS["long"])
    text = _filler(200, 7) + "\n\n" + changed + "\n\n" + _filler(200, 8)
    [matches] = _measure(stage, [text])
    m = _only(matches, "long")
    assert m["method"] == "skeleton" and m["coverage"] >= 0.9 and m["score"] == m["coverage"]
    # Evidence: the item's numbers against the record's, once each.
    assert {"17 -> 52", "5 -> 16", "12 -> 37"} <= set(m["evidence"]) and len(m["evidence"]) == len(set(m["evidence"]))
    a, b = m["longest_span"]
    assert changed[:40] in text[a:b]
    assert list(ContaminationStage(config).judge(pa.table({"contamination": pa.array([matches], COLUMN_TYPE)})))
    # Switched off, the same record only reaches the exact tier, which the changed numbers break.
    off = parse_config({**config.model_dump(mode="json"), "contamination": {"skeleton": False}}, base_dir=Path("/"))
    assert ContaminationIndex.from_items([("toy", ["long"], [ITEMS["long"]])], off.contamination).skeleton is None


def test_same_numbers_in_other_words_make_no_skeleton_match(stage):
    # Numbers alone (a list of prices, a table) share placeholders with the item but no words.
    text = _filler(100, 9) + " " + " ".join(str(i) for i in range(200)) + " " + _filler(100, 10)
    [matches] = _measure(stage, [text])
    assert [m for m in matches if m["method"] == "skeleton"] == []


def test_canary_fires_only_on_the_methods_it_names(stage, config):
    changed = re.sub(r"\d+", lambda m: str(int(m.group()) + 40), ITEMS["long"])
    block = stage(pa.table({"doc_id": ["d0", "d1"], "shard": ["s", "s"], "record": [0, 1],
                            "text": [_filler(100, 11), _filler(50, 12) + " " + changed]}))
    hit = first_match(block, config)
    assert hit is not None and (hit["doc_id"], hit["eval_id"], hit["method"]) == ("d1", "long", "skeleton")
    exact_only = parse_config({**config.model_dump(mode="json"),
                               "contamination": {"canary_methods": ["exact_ngram"]}}, base_dir=Path("/"))
    assert first_match(block, exact_only) is None
