"""Contamination units (each field of an item matched on its own), short items copied in part, and
code ported to another language: what a leak in the wild looks like."""
from __future__ import annotations

import json
from pathlib import Path

import pyarrow as pa
import pytest

from audit.config import parse_config
from audit.evalsets import load_eval_sets
from audit.stages.contamination import ContaminationIndex, ContaminationStage, counted
from tests.fixtures_contamination import HOST

# Items of 10, 15 and 20 words, all words rare enough to be the item's own.
SHORT = {
    "q10": "Which Roman emperor ordered the construction of the wall across northern Britain?",
    "q15": "How many kilometres did the Apollo fifteen lunar rover travel across the surface of the Moon?",
    "q20": ("Explain why the boiling point of water decreases at higher altitudes and how pressure cookers "
            "overcome this effect in mountain kitchens."),
}


def _config(tmp: Path, items: dict[str, str], **contamination) -> object:
    with open(tmp / "short.jsonl", "w", encoding="utf-8") as f:
        for k, v in items.items():
            f.write(json.dumps({"id": k, "text": v}) + "\n")
    return parse_config({"input": {"paths": ["x/"]}, "contamination": contamination, "eval_sets": [
        {"name": "short", "path": "short.jsonl", "text_fields": ["text"], "id_field": "id"}]}, base_dir=tmp)


def _counted(config, texts):
    out = ContaminationStage(config)(pa.table({"text": pa.array(texts, pa.string())}))
    return counted(out.column("contamination"), config).to_pylist()


@pytest.mark.parametrize("item", sorted(SHORT))
def test_short_item_with_its_first_sixty_percent_copied_is_found(tmp_path, item):
    config = _config(tmp_path, SHORT)
    words = SHORT[item].split(" ")
    head = " ".join(words[:-(-len(words) * 6 // 10)])  # at least 60% of the words, verbatim
    [got] = _counted(config, [HOST + "\n" + head + "\n" + HOST])
    assert [(m["eval_id"], m["method"]) for m in got] == [(item, "exact_ngram")]
    assert got[0]["coverage"] >= 0.6


@pytest.mark.parametrize("item", sorted(SHORT))
def test_short_item_with_under_half_copied_is_not_found(tmp_path, item):
    config = _config(tmp_path, SHORT)
    words = SHORT[item].split(" ")
    [got] = _counted(config, [HOST + "\n" + " ".join(words[:len(words) * 4 // 10]) + "\n" + HOST])
    assert got == []
