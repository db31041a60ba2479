"""JunkStage: base64, long tokens, minified code, markup, word length, repetition."""
from __future__ import annotations

import gzip
import json
import random
import time

import pyarrow as pa
import pytest

from tests.fixtures_stages import measure_and_judge

from audit.config import parse_config
from audit.stages.junk import JunkStage

CLEAN = {
    "en": "The committee met on Tuesday to review the annual budget. Members agreed that spending on "
          "public libraries should rise next year, while roads would be funded from the regional grant.\n"
          "The chair thanked the staff for their work and closed the meeting shortly after noon.",
    "zh": "今天天气很好，我们一起去公园散步。公园里有很多人在锻炼身体，孩子们在草地上玩耍，老人们在树下下棋聊天。\n"
          "傍晚的时候，我们在湖边吃了晚饭，然后慢慢地走回家。",
    "ru": "Вчера вечером мы долго гуляли по набережной и обсуждали планы на лето. Погода была тёплой, "
          "а над рекой медленно садилось солнце.\nПотом мы зашли в маленькое кафе и выпили чаю.",
    "ar": "ذهبنا أمس إلى السوق القديم في وسط المدينة واشترينا الخبز والفاكهة. كان الجو معتدلا والناس "
          "يتحدثون بهدوء في المقاهي.\nثم عدنا إلى البيت قبل غروب الشمس.",
}
PROSE = CLEAN["en"]
B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
MINIFIED_JS = ('!function(e,t){"use strict";var n=[],r=Object.getPrototypeOf,i=n.slice,o=n.flat?function(e)'
               '{return n.flat.call(e)}:function(e){return n.concat.apply([],e)},u=n.push,a=n.indexOf,s={},'
               'c=s.toString;if(e&&t.length>0){for(var f=0;f<t.length;f++){u.call(n,t[f])}}return a}(window);')




def config(**junk):
    return parse_config({"input": {"paths": ["x"]}, "filters": {"junk": junk}})


def judged(texts: list[str | None], cfg=None) -> tuple[list[dict], dict[int, dict[str, dict]]]:
    measured, reasons = measure_and_judge(JunkStage, texts, cfg or config())
    return measured.to_pylist(), reasons


def random_base64(chars: int, seed: int = 0) -> str:
    rng = random.Random(seed)
    return "".join(rng.choice(B64) for _ in range(chars))


def pem(lines: int = 20) -> str:
    body = random_base64(64 * lines)
    wrapped = "\n".join(body[i:i + 64] for i in range(0, len(body), 64))
    return f"-----BEGIN CERTIFICATE-----\n{wrapped}\nAg==\n-----END CERTIFICATE-----"


def test_clean_text_in_four_scripts_has_no_reason():
    rows, reasons = judged(list(CLEAN.values()))
    assert reasons == {}
    zh = rows[1]
    assert zh["junk_mean_word_chars"] is None and zh["junk_top_2gram_share"] is None  # no spaced words
    assert 4 < rows[0]["junk_mean_word_chars"] < 6


def test_each_reason_fires_on_its_case():
    rng = random.Random(1)
    hexes = " ".join("".join(rng.choice("0123456789abcdef") for _ in range(120)) for _ in range(4))
    texts = [
        PROSE + "\n\n" + pem() + "\n",
        '<img alt="plot" src="data:image/png;base64,' + random_base64(3000) + '">\n' + PROSE,
        "Checksums follow. " + hexes,
        "\n".join([MINIFIED_JS * 8] * 3),
        '<html lang="en">\n  <head>\n    <meta charset="utf-8" />\n    <title>Contents</title>\n  </head>\n'
        '  <body>\n    <div class="menu">\n      <ul>\n        <li><a href="/news">News</a></li>\n'
        '        <li><a href="/about">About us</a></li>\n      </ul>\n    </div>\n    <p>Welcome home.</p>\n'
        '  </body>\n</html>',
        "a b c d e f g h i j k l m n o p q r s t u v w x y z a b c d e f g h i j k l m n o p",
        "Buy cheap pills now!\n" * 60 + PROSE,
        "click here to win a prize " * 40,
    ]
    rows, reasons = judged(texts)
    assert "junk:base64" in reasons[0] and "junk:base64" in reasons[1]
    assert rows[0]["junk_base64_share"] > 0.8 * len(pem()) / len(texts[0])  # the wrapped body counts
    assert "junk:long_tokens" in reasons[2] and "junk:base64" not in reasons[2]  # hex: no capitals
    assert "junk:minified" in reasons[3]
    assert set(reasons[4]) == {"junk:markup"}
    assert set(reasons[5]) == {"junk:word_length"}
    assert set(reasons[6]) == {"junk:repetition"}
    assert reasons[6]["junk:repetition"]["dup_line_share"] > 0.7
    assert set(reasons[7]) == {"junk:repetition"}
    assert reasons[7]["junk:repetition"]["top_4gram_share"] > 0.75  # "prize click here to": 16 of 21 bytes


def test_long_words_and_hex_digests_are_not_base64():
    protein = "methionylglutaminylarginyltyrosylglutamylserylleucylphenylalanylalanylglutaminyl" * 4
    digest = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"
    rows, _ = judged([f"The longest word is {protein}.", f"Its SHA-256 is {digest}, as printed."])
    assert [r["junk_base64_share"] for r in rows] == [0.0, 0.0]


def test_repetition_is_exact():
    rows, _ = judged(["alpha beta\ngamma\n\nalpha beta\r\n", "a b a b c", "x x x x"])
    assert rows[0]["junk_dup_line_share"] == pytest.approx(10 / 25)  # blank lines and newlines aside
    assert rows[1]["junk_top_2gram_share"] == pytest.approx(4 / 5)  # "a b" twice, over 5 word bytes
    assert rows[1]["junk_top_3gram_share"] == 0.0
    assert rows[2]["junk_top_2gram_share"] == pytest.approx(1.0)  # overlapping repeats count once


def test_word_and_token_measures_are_exact():
    rows, _ = judged(["abc de", "short " + "x" * 150 + " words", "line one\nline two is longer"])
    assert rows[0]["junk_mean_word_chars"] == pytest.approx(2.5)
    assert rows[1]["junk_long_token_share"] == pytest.approx(150 / (6 + 150 + 6))
    assert rows[2]["junk_mean_line_chars"] == pytest.approx(27 / 2)


def test_repetition_reads_only_the_sample():
    text = PROSE + "\n" + "the same line again\n" * 2000
    rows, reasons = judged([text], config(sample_chars=len(PROSE)))
    assert rows[0]["junk_dup_line_share"] == 0.0 and reasons == {}
    rows, reasons = judged([text])
    assert "junk:repetition" in reasons[0]


def test_null_text_gives_null_measures_and_no_reason():
    rows, reasons = judged([None, PROSE, None])
    assert all(rows[0][c] is None and rows[2][c] is None for c in JunkStage.writes)
    assert reasons == {}


@pytest.mark.slow  # a 50 MB line: seconds, kept out of the fast tier
def test_fifty_megabyte_line_is_quick():
    text = random_base64(1 << 16) * (50_000_000 >> 16)
    start = time.process_time()  # CPU seconds: a busy machine does not make a linear pass look slow
    rows, reasons = judged([text, PROSE])
    assert time.process_time() - start < 5
    assert {"junk:base64", "junk:long_tokens"} <= set(reasons[0])
    assert 1 not in reasons


def test_real_junk_is_caught_and_real_prose_is_not(shared_data):
    rng = random.Random(0)
    minified = []
    for path in sorted((shared_data / "junk" / "minified").iterdir()):
        source = path.read_text(encoding="utf-8")
        for _ in range(6):
            start = rng.randrange(len(source) - 6000)
            minified.append(source[start:start + rng.randint(1500, 6000)])
    with open(shared_data / "junk" / "base64" / "base64_blobs.jsonl", encoding="utf-8") as f:
        blobs = [json.loads(line)["text"] for line in f]
    with gzip.open(shared_data / "junk" / "html" / "python311_docs_html.jsonl.gz", "rt", encoding="utf-8") as f:
        pages = [json.loads(line)["html"] for _, line in zip(range(100), f)]
    with open(shared_data / "prose" / "nltk_abc_news_paragraphs.jsonl", encoding="utf-8") as f:
        news = [json.loads(line)["text"] for _, line in zip(range(1000), f)]
    with open(shared_data / "prose" / "gutenberg_books.jsonl", encoding="utf-8") as f:
        books = [json.loads(line)["text"] for line in f]

    _, reasons = judged(minified)
    assert all("junk:minified" in reasons[i] for i in range(len(minified)))
    _, reasons = judged(blobs)
    assert all("junk:base64" in reasons[i] for i in range(len(blobs)))
    _, reasons = judged(pages)
    assert all("junk:markup" in reasons[i] for i in range(len(pages)))
    _, reasons = judged(news + books)
    assert len(reasons) <= 1  # ABC news holds a few odd paragraphs; books never fire
    assert not any(i >= len(news) for i in reasons)


@pytest.mark.parametrize("texts", [[None, None], ["", ""], [None, ""], ["\n", None]])
def test_a_block_without_text_bytes_is_measured(texts) -> None:
    """A block of only unreadable, empty or blank records (a shard of bad lines) must not fail."""
    from audit.config import AuditConfig

    cfg = AuditConfig(input={"paths": ["x"]})
    t = JunkStage(cfg)(pa.table({"text": pa.array(texts, pa.string())}))
    assert t.num_rows == len(texts)
    assert list(JunkStage(cfg).judge(t.drop_columns(["text"]))) == []


def test_distinct_links_sharing_their_ends_are_not_repeats():
    """Long words differing only in their middle (URLs, paths) are different words."""
    topics = ("river budget harvest library railway election festival museum bridge school weather market "
              "hospital theatre football orchestra airport forest village council tram ferry castle garden "
              "harbour vineyard bakery cinema stadium parliament monastery glacier island desert canal "
              "lighthouse cathedral brewery zoo observatory").split()
    page = "Articles on the region this year:\n" + "".join(
        f"{topic.title()} report https://example.org/articles/{1000 + 37 * i}/index.html\n"
        for i, topic in enumerate(topics))
    rows, reasons = judged([page, "see https://example.org/articles/1000/index.html now " * 20])
    assert [rows[0][f"junk_top_{n}gram_share"] for n in (2, 3, 4)] == [0, 0, 0]
    assert "junk:repetition" not in reasons.get(0, {})
    assert rows[1]["junk_top_4gram_share"] > 0.9  # the same link repeated is still a repeat
