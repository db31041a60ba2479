"""LengthStage: characters, bytes, words, lines, and the length reasons."""
from __future__ import annotations

import json
import time

import pyarrow as pa
import pytest

from tests.fixtures_stages import measure_and_judge, records

from audit.config import parse_config
from audit.stages.length import LengthStage

CLEAN = {
    "en": "The committee met on Tuesday to review the annual budget. Members agreed that spending on "
          "public libraries should rise next year.",
    "zh": "今天天气很好，我们一起去公园散步。公园里有很多人在锻炼身体，孩子们在草地上玩耍。",
    "ru": "Вчера вечером мы долго гуляли по набережной и обсуждали планы на лето. Погода была тёплой.",
    "ar": "ذهبنا أمس إلى السوق القديم في وسط المدينة واشترينا الخبز والفاكهة. كان الجو معتدلا.",
}




def config(**length):
    return parse_config({"input": {"paths": ["x"]}, "filters": {"length": length}})


def judged(texts: list[str | None], cfg=None) -> tuple[pa.Table, dict[int, dict[str, dict]]]:
    measured, reasons = measure_and_judge(LengthStage, texts, cfg or config())
    return measured, reasons


def test_measures_words_and_lines_only():
    text = "héllo wörld\nfoo 你好\n"
    measured, _ = judged([text])
    row = measured.to_pylist()[0]
    # Characters and bytes are the reader's columns: the stage does not repeat them.
    assert LengthStage.writes == ("length_words", "length_lines")
    assert measured.column_names[-2:] == ["length_words", "length_lines"]
    assert row["length_words"] == 5  # héllo wörld foo + one word per Han character
    assert row["length_lines"] == 2
    assert judged(["one\ntwo\nthree"])[0].column("length_lines").to_pylist() == [3]


def test_each_reason_fires_on_its_case():
    texts = ["", " \n\t  \n", "ok", "Supercalifragilistic expialidocious antidisestablishmentarianism",
             "word " * 30]
    _, reasons = judged(texts, config(max_chars=100))
    assert set(reasons[0]) == {"length:empty"}
    assert set(reasons[1]) == {"length:whitespace"}
    assert set(reasons[2]) == {"length:too_short"}
    assert reasons[3]["length:too_short"]["words"] == 3  # 64 characters, but 3 words < 5
    assert reasons[4]["length:too_long"] == {"chars": 150, "max_chars": 100}
    assert "length:too_short" not in reasons[4]


def test_clean_text_in_four_scripts_passes():
    measured, reasons = judged(list(CLEAN.values()), config(min_chars=30))
    assert reasons == {}
    words = dict(zip(CLEAN, measured.column("length_words").to_pylist()))
    assert words["zh"] > 30  # Han characters count as words: not "one word per line"
    assert 15 <= words["en"] <= 25


def test_ansi_colour_codes_are_not_words():
    measured, _ = judged(["\x1b[33m    --\x1b[32m《谚语》\x1b[m\x1b[m hello"])
    # "--" and "hello", plus one word per character of 《谚语》; the codes would add two more.
    assert measured.column("length_words").to_pylist() == [2 + 4]


def test_an_escape_sequence_ends_with_its_record():
    # The record before ends inside "ESC[31": its sequence must not swallow the next record's words.
    measured, _ = judged(["ok \x1b[31", "a b c d e", "\x1b[", "1;32m x", "\x1b", "[1m y"])
    assert measured.column("length_words").to_pylist() == [1, 5, 0, 2, 1, 2]


def test_controls_that_are_white_space_still_separate_words():
    measured, _ = judged(["one\x1ftwo\x0bthree\x0cfour\x85five\x1csix"])
    assert measured.column("length_words").to_pylist() == [6]


def test_escape_only_text_is_measured_in_little_memory():
    """Memory for escape sequences is a few integers per sequence, not a window of indexes."""
    import tracemalloc

    from audit.stages.utf8view import Utf8View, ansi_escapes
    view = Utf8View.of(pa.array(["\x1b[31m" * 1_000_000 + "\x1b[1;2;3;4;5;6;7;88m"]))
    tracemalloc.start()
    try:
        mask = ansi_escapes(view)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert mask.all()
    assert peak < 20 * len(view.data)


def test_null_text_gives_null_measures_and_no_reason():
    measured, reasons = judged([None, CLEAN["en"]])
    row = measured.to_pylist()[0]
    assert all(row[c] is None for c in LengthStage.writes)
    assert 0 not in reasons


def test_a_record_not_measured_is_not_judged_whatever_its_chars():
    """The reader counted characters, but a record whose measuring failed (length_words null) gets
    no length reason: the decide step calls it unreadable instead."""
    measured = records(["", "ok", "fine words in a row here"]).drop_columns(["text"])
    measured = measured.append_column("length_words", pa.array([None, None, 5], pa.int64()))
    measured = measured.append_column("length_lines", pa.array([None, None, 1], pa.int64()))
    assert list(LengthStage(config(min_chars=5)).judge(measured)) == []


@pytest.mark.slow  # a 50 MB line: seconds, kept out of the fast tier
def test_fifty_megabyte_line_is_quick_and_too_long():
    text = ("lorem ipsum dolor sit amet consectetur " * 1_300_000)[:50_000_000]
    start = time.perf_counter()
    measured, reasons = judged([text, CLEAN["en"]])
    assert time.perf_counter() - start < 5
    assert set(reasons[0]) == {"length:too_long"}
    assert measured.column("length_words").to_pylist()[0] == pytest.approx(50_000_000 / 39 * 6, rel=0.01)


def test_gutenberg_books_and_the_default_bound(shared_data):
    """Whole books are documents: the default max_chars keeps every one of them."""
    with open(shared_data / "prose" / "gutenberg_books.jsonl", encoding="utf-8") as f:
        books = [json.loads(line)["text"] for line in f]
    measured, reasons = judged(books)
    assert reasons == {}
    assert max(measured.column("chars").to_pylist()) > 500_000


def _view_stages(cfg) -> list:
    from audit.stages.charset import CharsetStage
    from audit.stages.junk import JunkStage

    return [LengthStage(cfg), CharsetStage(cfg), JunkStage(cfg)]


def test_the_stages_of_one_block_share_its_view_and_measure_as_alone():
    from audit.stages.utf8view import Utf8View
    from audit.tagger import Tagger

    texts = [CLEAN["zh"], None, "naïve café\x1b[31m red\x1b[m " * 40, CLEAN["en"] + "\x1f", ""]
    cfg = config()
    block = records(texts)
    view = Utf8View.of(block.column("text"))
    together = block
    for stage in _view_stages(cfg):
        together = stage(together, view=view)
    tagged = Tagger(cfg, stages=_view_stages(cfg))(records(texts))  # its one view, handed to each
    for stage in _view_stages(cfg):
        alone = stage(records(texts))
        for name in stage.writes:
            assert together.column(name).equals(alone.column(name)), name
            assert tagged.column(name).equals(alone.column(name)), name


def test_word_runs_are_made_once_per_block_and_counted_per_row():
    """Utf8View.words: one set of runs for every stage of the block, cut at row ends, so the
    words of each row are the runs starting in it (a word running into the next row, an escape
    sequence, an empty and a null row)."""
    import re

    from audit.stages.utf8view import Utf8View, words_per_row

    texts = ["tail\x1b[1m", "head more", "", None, "one\x1b[31mtwo  three\n", "x" * 5, "lead", "é"]
    view = Utf8View.of(pa.array(texts, pa.string()))
    assert view.words() is view.words()
    spaced, _ = words_per_row(view)
    # ANSI escapes are not words: a text's words are its runs of non-space outside them
    want = [len(re.sub(r"\x1b\[[0-9;]*m", " ", t or "").split()) for t in texts]
    assert spaced.tolist() == want
    inside, start, end = view.words()
    assert not inside.flags.writeable
    assert (view.row_of(start) == view.row_of(end - 1)).all()


def test_no_block_text_outlives_its_tagging():
    """The view goes with the block: nothing module-level keeps the last block's text alive."""
    import gc

    from audit.tagger import Tagger

    cfg = config(max_chars=10_000_000)
    tagger = Tagger(cfg, stages=_view_stages(cfg))
    tagger(records(["warm: tables built, imports done"]))
    gc.collect()
    before = pa.total_allocated_bytes()
    block = records(["x y " * 250_000] * 4)  # 4 MB of text
    tagger(block)
    del block
    gc.collect()
    assert pa.total_allocated_bytes() - before < 1_000_000
