"""CharsetStage: character-class shares, broken-decoding signs, and the charset reasons."""
from __future__ import annotations

import json
import time
from collections import defaultdict

import numpy as np
import pyarrow as pa
import pytest

from tests.fixtures_stages import measure_and_judge

from audit.config import parse_config
from audit.stages.charset import CharsetStage

CLEAN = {
    "en": "The committee met on Tuesday to review the annual budget. Members agreed that spending on "
          "public libraries should rise next year, while roads would be funded from the regional grant.",
    "zh": "今天天气很好，我们一起去公园散步。公园里有很多人在锻炼身体，孩子们在草地上玩耍，老人们在树下下棋聊天。",
    "ru": "Вчера вечером мы долго гуляли по набережной и обсуждали планы на лето. Погода была тёплой, "
          "а над рекой медленно садилось солнце.",
    "ar": "ذهبنا أمس إلى السوق القديم في وسط المدينة واشترينا الخبز والفاكهة. كان الجو معتدلا والناس "
          "يتحدثون بهدوء في المقاهي.",
    "hi": "कल शाम हम सब दोस्त नदी के किनारे घूमने गए। मौसम बहुत सुहावना था और आसमान में बादल छाए हुए थे।",
    "th": "เมื่อวานนี้เราไปเที่ยวตลาดน้ำกับครอบครัว อากาศดีมากและมีผู้คนมากมายมาซื้อของกินริมคลอง",
    "ja": "昨日は友達と一緒に京都へ行きました。古いお寺を見て、おいしい抹茶を飲みました。",
    # Legitimate pairs that look like CP1252 glyphs after an accented letter.
    "cs": "Cena byla snížená o třicet procent, takže jsme koupili nový kovový kříž na zahradu.",
    "fr": "Le café’s terrace… « Élégant », dit-elle — naïve, mais sûre d’elle.",
}




def config(**charset):
    return parse_config({"input": {"paths": ["x"]}, "filters": {"charset": charset}})


def judged(texts, cfg=None) -> tuple[pa.Table, dict[int, dict[str, dict]]]:
    measured, reasons = measure_and_judge(CharsetStage, texts, cfg or config())
    return measured, reasons


def mojibake(text: str) -> str:
    """UTF-8 bytes read as Latin-1 (what a wrong decoder makes of them)."""
    return text.encode("utf-8").decode("latin-1")


def test_clean_text_in_many_scripts_has_no_reason():
    measured, reasons = judged(list(CLEAN.values()))
    assert reasons == {}
    assert measured.column("charset_mojibake").to_pylist() == [0] * len(CLEAN)
    letters = dict(zip(CLEAN, measured.column("charset_letter_share").to_pylist()))
    assert letters["hi"] > 0.85 and letters["th"] > 0.85  # vowel signs (marks) count as letters


def test_shares_are_exact():
    measured, _ = judged(["ab 12 !?\x01\ufffd"])
    row = measured.to_pylist()[0]
    # 10 characters, 2 spaces: 8 visible; the control and U+FFFD are shares of all 10.
    assert row["charset_letter_share"] == pytest.approx(2 / 8)
    assert row["charset_digit_share"] == pytest.approx(2 / 8)
    assert row["charset_punct_share"] == pytest.approx(2 / 8)
    assert row["charset_control_share"] == pytest.approx(1 / 10)
    assert row["charset_replacement_share"] == pytest.approx(1 / 10)


def test_each_reason_fires_on_its_case():
    texts = [
        "!!! ??? ... ### *** --- ((( ))) ;;; !!! ??? ... ### word",
        "Some text with control bytes" + "\x01\x02\x07\x1b" * 5,
        "Some text whose bytes were lost" + "\ufffd" * 10,
        mojibake("Le café était naïve et très élégant, à côté de l’école."),
        "So the boss said â€œnoâ€\x9d and thatâ€™s that.",  # CP1252 reading of “no” and ’
    ]
    _, reasons = judged(texts)
    assert set(reasons[0]) == {"charset:low_alnum"}
    assert set(reasons[1]) == {"charset:control"}
    assert set(reasons[2]) == {"charset:replacement"}
    assert "charset:mojibake" in reasons[3]
    assert "charset:mojibake" in reasons[4]
    assert reasons[3]["charset:mojibake"]["mojibake_share"] == pytest.approx(1.0)


def test_mojibake_of_non_latin_scripts():
    texts = [mojibake(CLEAN[lang]) for lang in ("ru", "zh", "ar", "hi")]
    _, reasons = judged(texts)
    assert all("charset:mojibake" in reasons[i] for i in range(len(texts)))


def test_a_stray_pair_in_good_text_is_not_mojibake():
    text = CLEAN["fr"] + " " + CLEAN["cs"] + " Ã©"  # one garbled pair among many good accents
    measured, reasons = judged([text])
    assert measured.column("charset_mojibake").to_pylist() == [1]
    assert reasons == {}


def test_lone_surrogates_as_wtf8_bytes():
    data = "Hello ".encode() + b"\xed\xa0\x80" + " world, with a lone surrogate in it.".encode()
    array = pa.Array.from_buffers(pa.string(), 1, [None, pa.py_buffer(np.array([0, len(data)], np.int32)),
                                                   pa.py_buffer(data)])
    measured, reasons = judged(array)
    assert measured.column("charset_surrogates").to_pylist() == [1]
    assert set(reasons[0]) == {"charset:surrogates"}


def test_ansi_colour_codes_are_not_control_characters():
    text = "\x1b[33m作者：杜审言\x1b[m\n独有宦游人，偏惊物候新。云霞出海曙，梅柳渡江春。\x1b[32m《诗》\x1b[m"
    measured, reasons = judged([text])
    assert measured.column("charset_control_share").to_pylist() == [0.0]
    assert reasons == {}


def test_an_escape_opens_a_sequence_only_inside_its_own_record():
    # "x" ESC ends a record; the "[" starting the next does not make that ESC a colour code.
    measured, _ = judged(["x\x1b", "[note] a bracket opens this record", "ok\x1b[31", "plain"])
    assert measured.column("charset_control_share").to_pylist() == [pytest.approx(0.5), 0.0, 0.0, 0.0]


def test_controls_that_are_also_white_space_count_as_controls():
    sentence = "The committee met on Tuesday to review the annual budget"
    texts = [sentence + "\x1f" * 10, "a\x0bb\x0cc\x1cd\x85e", sentence.replace(" ", "\x1e")]
    measured, reasons = judged(texts)
    shares = measured.column("charset_control_share").to_pylist()
    assert shares[0] == pytest.approx(10 / (len(sentence) + 10))
    assert shares[1] == pytest.approx(4 / 9)
    assert shares[2] == pytest.approx(sentence.count(" ") / len(sentence))
    assert set(reasons) == {0, 1, 2} and all("charset:control" in r for r in reasons.values())
    # They are not visible characters: the letter share is of the letters and punctuation only.
    assert measured.column("charset_letter_share").to_pylist()[1] == 1.0


def test_null_and_blank_text():
    measured, reasons = judged([None, "   \n", "", "", "x\x01"])  # trailing empty rows, then text
    rows = measured.to_pylist()
    assert all(rows[0][c] is None for c in CharsetStage.writes)
    assert rows[1]["charset_letter_share"] is None and rows[1]["charset_control_share"] == 0.0
    assert rows[4]["charset_control_share"] == pytest.approx(0.5)
    assert set(reasons) == {4}  # blank and empty text are the length stage's to name
    # Empty rows at the end of a batch do not shift the last bytes of the row before them.
    assert judged(["ab\n", "", ""])[0].column("charset_letter_share").to_pylist()[0] == 1.0


@pytest.mark.slow  # a 50 MB line: seconds, kept out of the fast tier
def test_fifty_megabyte_line_is_quick():
    text = ("naïve café " * 5_000_000)[:50_000_000]
    start = time.process_time()  # CPU seconds: a busy machine does not make a linear pass look slow
    measured, reasons = judged([text])
    assert time.process_time() - start < 5
    assert measured.column("charset_letter_share").to_pylist()[0] > 0.8
    assert reasons == {}


def _lingua_documents(shared_data) -> dict[str, str]:
    """One document per language: its first ten sentences."""
    sentences: dict[str, list[str]] = defaultdict(list)
    with open(shared_data / "multilingual" / "lingua_testdata_sentences.jsonl", encoding="utf-8") as f:
        for line in f:
            r = json.loads(line)
            if len(sentences[r["lang"]]) < 10:
                sentences[r["lang"]].append(r["text"])
    return {lang: "\n".join(s) for lang, s in sentences.items()}


def test_75_languages_pass_and_their_mojibake_is_caught(shared_data):
    docs = _lingua_documents(shared_data)
    assert len(docs) >= 70
    _, reasons = judged(list(docs.values()))
    flagged = {lang: sorted(reasons[i]) for i, lang in enumerate(docs) if i in reasons}
    assert flagged == {}
    broken = {lang: mojibake(text) for lang, text in docs.items() if any(ord(c) > 127 for c in text)}
    _, reasons = judged(list(broken.values()))
    missed = [lang for i, lang in enumerate(broken) if "charset:mojibake" not in reasons[i]]
    assert missed == []
