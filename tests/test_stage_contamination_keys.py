"""Keys that survive translation (audit/stages/contamination_keys.py): a GSM8K question translated
into German, Chinese or Russian is found by its numbers (in digits or words) and names (in Latin
script, or transliterated); lists of figures, code, dates and news sharing a few of its numbers
are not."""
from __future__ import annotations

import json
import random
from pathlib import Path

import pyarrow as pa
import pytest

from audit.config import parse_config
from audit.stages.contamination import ContaminationStage, counted
from audit.stages import contamination_keys
from audit.stages.contamination_keys import (KeyIndex, number_keys, number_words, sound_key, sound_keys, text_keys,
                                             texts_holding, word_numbers)

# GSM8K test item 11 (Toula's bakery), translated by hand.
DE_11 = ("Toula ging in die Bäckerei und kaufte verschiedene Gebäcksorten. Sie kaufte 3 Dutzend Donuts zu "
         "68 $ pro Dutzend, 2 Dutzend Mini-Cupcakes zu 80 $ pro Dutzend und 6 Dutzend Mini-Käsekuchen zu "
         "55 $ pro Dutzend. Wie hoch waren die Gesamtkosten?")
ZH_11 = "图拉去面包店买了各种糕点。她买了3打甜甜圈，每打68美元；2打迷你纸杯蛋糕，每打80美元；还有6打迷你芝士蛋糕，每打55美元。总共花了多少钱？"
# GSM8K test item 5 (Kylar's glasses) in Russian: two of its three numbers and the name are what
# carries (Кайлар), and item 21 with a number in words (шесть: 6).
RU_5 = ("Кайлар пошёл в магазин купить стаканы для своей новой квартиры. Один стакан стоит 5 $, но каждый "
        "второй стакан стоит только 60 % от цены. Кайлар хочет купить 16 стаканов. Сколько ему нужно за них "
        "заплатить?")
RU_21 = ("Раймонд и Саманта — двоюродные брат и сестра. Раймонд родился на шесть лет раньше Саманты. В 23 года у "
         "Раймонда родился сын. Если Саманте сейчас 31 год, сколько лет назад родился сын Раймонда?")
# Items 5 and 17 in Japanese (names in katakana; "1時間20ドル": 20 dollars an hour, a 1 for "per")
# and item 5 in Greek.
JA_5 = ("カイラーは新しいアパートのためにグラスを買いに店へ行きました。グラス1個は5ドルですが、2個目ごとに価格の60%しか"
        "かかりません。カイラーはグラスを16個買いたいと思っています。全部でいくら払う必要がありますか？")
JA_17 = ("ジルは教師として1時間20ドル、チアリーディングのコーチとして1時間30ドルをもらっています。年に50週、教師として週35時間、"
         "コーチとして週15時間働くとすると、年収はいくらですか？")
EL_5 = ("Ο Κάιλαρ πήγε στο κατάστημα να αγοράσει ποτήρια για το νέο του διαμέρισμα. Ένα ποτήρι κοστίζει 5 $, αλλά "
        "κάθε δεύτερο ποτήρι κοστίζει μόνο το 60% της τιμής. Ο Κάιλαρ θέλει να αγοράσει 16 ποτήρια. Πόσα πρέπει να "
        "πληρώσει;")
# Item 27 (Cynthia's ice cream) in Japanese: her name as Japanese writes "th", with an s (シンシア).
JA_27 = ("シンシアは毎晩アイスを1食分食べる。アイスは1箱15食分入りで、1箱4.00ドルで売られている。60日たつと、"
         "彼女はアイスにいくら払っていることになるか。")
# Item 11 in Japanese, each price before its count as Japanese puts them (1ダース68ドルのドーナツを3ダース):
# three neighbours swapped of seven keys, after a page whose own 2 and 3 come first.
JA_11 = ("トゥーラはケーキ屋でお菓子をいろいろ買った。1ダース68ドルのドーナツを3ダース、1ダース80ドルのミニカップケーキを"
         "2ダース、1ダース55ドルのミニチーズケーキを6ダース。全部でいくらかかったか。")
JA_PAGE = "週末の予定：土曜日は2時から買い物、日曜日は3時から友だちとお茶。"
# Item 498 (Brianne's orange pies) in Danish, its small numbers in words (fem, ti, tre): without
# them it holds one number of two digits (20), too few with its names.
DA_498 = ("Brianne og Ashley laver græsk appelsintærte. Ashley havde fem kasser med ti appelsiner i hver kasse med, "
          "mens Brianne havde 20 appelsiner mere med end Ashley. Hvis en græsk appelsintærte kræver tre appelsiner, "
          "hvor mange tærter kan de så lave?")
# The same numbers where no word problem is: a doctest, a list of figures, a time stamp.
DOCTEST = ">>> prices = [68, 80, 55]\n>>> sum(p * n for p, n in zip(prices, [3, 2, 6]))\n694"
FIGURES = "Scores this season: 3, 68, 2, 80, 6, 55, 12, 40, 9, 31."
STAMPS = "Logged 03:68:02 and 80-55 on 2/6; build 3.68.2 with MiG-80 and task55."


def _matches(index: KeyIndex, text: str, floor: float) -> list[tuple]:
    """(unit, coverage, record span, unit spans, keys found) of `text` alone."""
    return [tuple(m) for _, *m in index.matches_many([text], floor)]


@pytest.mark.parametrize("written,key", [
    ("5,000", ["5000"]), ("5.000", ["5000"]), ("5 000", ["5000"]), ("5000", ["5000"]), ("1.2", ["1.2"]),
    ("1,2", ["1.2"]), ("2,50", ["2.5"]), ("1,2,3", ["1", "2", "3"]), ("192.0.2.1", []), ("０６８", ["68"])])
def test_numbers_read_alike_in_every_language(written, key):
    assert number_keys(written) == key


def test_an_ascii_text_is_read_for_numbers_as_any_text():
    """ASCII texts are read with an ASCII-only regex (faster): the numbers it finds are _NUMBER's."""
    rng = random.Random(3)
    texts = ["".join(rng.choice("0123456789 .,'-:/_aZ\n;") for _ in range(rng.randint(0, 16))) for _ in range(20000)]
    texts += [STAMPS, FIGURES, DOCTEST, "she paid 5 000 $ for 16 glasses, 5,000 in all; 1.2 or 3,75"]
    assert all(contamination_keys.number_strings(t) == contamination_keys._NUMBER.findall(t) for t in texts)
    assert contamination_keys.number_strings("5,000 and 16") == ["5,000", "16"]


def test_times_dates_ranges_versions_and_identifiers_hold_no_number():
    assert [k for k, _, _ in text_keys(STAMPS) if k[0].isdigit()] == []
    assert [k for k, _, _ in text_keys("she paid 5 000 $ for 16 glasses")] == ["5000", "16"]


@pytest.mark.parametrize("text,keys", [
    ("twenty-five and three hundred and five", ["25", "305"]), ("the second glass, twice", ["2"]),
    ("fünfundzwanzig, dreimal, zweiten", ["25", "3"]), ("veinticinco, treinta y cinco, segunda", ["25", "35"]),
    ("vingt-cinq, quatre-vingt-dix, deuxième", ["25", "90"]), ("двадцать пять, шесть, второй", ["25", "6"]),
    ("三千五百, 十二, 第二, 两个, 二〇二三", ["3500", "12", "2", "2023"]),
    # one is an article or a pronoun (a, ein, un, один, 一个): no number
    ("one day, ein Tag, un jour, один день, 一个, 统一", []),
    # case folding matches Turkish dotless ı to i: no number word, and no error
    ("SIX sıx altı", ["6"]),
    # first in the text and after punctuation, in a text whose lower case is longer (İ): read
    # case-insensitively; none inside a word (someone, twentyfive)
    ("Two İstanbul trips, (three) nights; someone twentyfive", ["2", "3"])])
def test_numbers_written_as_words_read_as_digits(text, keys):
    assert [k for k, _, _ in word_numbers(text)] == keys


@pytest.mark.parametrize("lang,text,keys", [
    # the library's words, compounds written as one word or as a phrase: a language no table was written for
    ("nl", "vijfentwintig koeien en twaalf schapen", ["25", "12"]), ("sv", "tjugofem kor, tolv får", ["25", "12"]),
    ("pl", "dwadzieścia pięć krów i dwanaście owiec", ["25", "12"]),
    ("cs", "dvacet pět krav a dvanáct ovcí", ["25", "12"]),
    # joined by the language's own word (e, og), hundreds and a unit; Turkish teens as ten and a unit
    ("pt", "duzentos e cinco dias", ["205"]), ("no", "tre hundre og tolv", ["312"]),
    ("tr", "yirmi beş inek ve on iki koyun", ["25", "12"]),
    # a lid.176 label the library names otherwise (nb: Norwegian Bokmål), a Ukrainian apostrophe either way
    ("nb", "tjuefem", ["25"]), ("uk", "п'ять і п’ять", ["5", "5"]),
    # one in no language, nor ordinals (pt segundo: as often the unit of time)
    ("nl", "een tweede koe", []), ("pt", "um segundo", [])])
def test_number_words_of_a_language_are_read_from_the_library(lang, text, keys):
    assert [k for k, _, _ in word_numbers(text, han=False, lang=lang)] == keys


def test_a_number_word_of_another_language_is_no_number_in_an_english_text():
    """Italian due, Dutch elf, Turkish on, Spanish once, French cents are English words: read in a
    record of their language, not in an English one; where no language is known, the words of
    English, German, Spanish, French and Russian are read (as before the language was asked), less
    those that are everyday English words (wordfreq)."""
    text = "The elf on the shelf is due back once more: twenty cents, acht, tre, sei."

    def keys(lang: str | None) -> list[str]:
        return [k for k, _, _ in word_numbers(text, han=False, lang=lang)]
    assert keys("en") == ["20"] and keys(None) == ["20", "8"]
    assert keys("it") == ["2", "3", "6"] and keys("nl") == ["11", "8"] and keys("tr") == ["10"]
    assert keys("de") == ["11", "8"] and keys("es") == ["11"]  # (elf, acht; once) where they are numbers
    # an unknown label or a language whose words are unspaced (Korean): the words read with none known
    assert number_words("xx") is number_words("ko") is number_words("und") is number_words()
    assert "zwölf" in number_words().value and "elf" not in number_words().value


def test_a_name_transliterated_into_cyrillic_chinese_katakana_or_greek_meets_its_latin_form():
    for latin, *others in (("Kylar", "Кайлар", "凯拉", "カイラー", "Κάιλαρ"), ("Jill", "Джилл", "吉尔", "ジル"),
                           ("Samantha", "Саманты", "萨曼莎", "サマンサ", "Σαμάνθα"),
                           ("Raymond", "Раймонда", "雷蒙德", "レイモンド", "Ρέιμοντ"), ("Marissa", "Марисса", "玛丽莎"),
                           ("Gunter", "Гюнтер", "Γκούντερ"), ("Robert", "Роберт", "Ρόμπερτ"), ("Donna", "Донна", "Ντόνα")):
        assert {sound_key(n) for n in others} == {sound_key(latin)}, latin
    assert len({sound_key(n) for n in ("Kylar", "Jill", "Samantha", "Marissa", "Toula")}) == 5
    # "th": a t in Cyrillic and Greek, an s in katakana and Chinese; a unit's name is read both ways
    assert sound_keys("Cynthia") == {sound_key("Синтия"), sound_key("シンシア")} and sound_key("辛西娅") == sound_key("シンシア")
    assert sound_keys("Kylar") == {sound_key("Kylar")}


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
    for translated in (DE_11, ZH_11):
        found = {u: (cov, span, spans, ev) for u, cov, span, spans, ev in _matches(index, host + " " + translated, 0.3)}
        assert 11 in found, translated
        cov, (a, b), spans, [evidence, order] = found[11]
        # the record's span is the translation; the item's spans are its numbers (and its name)
        assert a >= len(host) and b <= len(host) + 1 + len(translated) and cov >= 0.5
        assert evidence.startswith("keys ") and {"68", "55", "80"} <= set(evidence.split()[1:])
        assert order.startswith("in order ")
        # the name too: in Latin script as written, in Chinese transliterated (图拉 ~ Toula)
        assert "Toula" in evidence and len(spans) >= 6


def test_japanese_and_greek_translations_are_found_by_their_numbers_and_names(gsm_keys):
    """Names in katakana and Greek letters count as the unit's names; a 1 that says "per" (1時間: an
    hour) is no figure of a list, so the unit's numbers are still most of the window's."""
    index, sentences = gsm_keys
    host = " ".join(sentences[:6])
    for item, translated, keys in ((5, JA_5, {"Kylar", "16", "60"}), (17, JA_17, {"Jill", "20", "30", "50", "35"}),
                                   (5, EL_5, {"Kylar", "16", "60"}), (27, JA_27, {"Cynthia", "15", "60"})):
        found = {u: ev for u, _, _, _, ev in _matches(index, host + " " + translated, 0.3)}
        assert item in found and keys <= set(found[item][0].split()[1:]), (item, found)


def test_neighbours_swapped_by_the_grammar_are_in_order_and_the_window_is_the_leaks(gsm_keys):
    """Japanese puts a price before its count: the longest run in order is 4 of 7 keys, but most
    pairs are in order; the page's own 2 and 3 before the leak are not read as the leak's, and
    the evidence's span starts at the leak."""
    index, _ = gsm_keys
    text = JA_PAGE + JA_11
    found = [(u, span, ev) for u, _, span, _, ev in _matches(index, text, 0.3)]
    assert [u for u, _, _ in found] == [11]
    assert found[0][1][0] == len(JA_PAGE) and found[0][2][1] == "in order 4 of 7"
    # the same keys in an order no translation has (most pairs reversed) are still no match
    shuffled = "トゥーラ：6ダース、55ドル、2ダース、80ドル、3ダース、68ドル。"
    assert _matches(index, JA_PAGE + shuffled, 0.3) == []


def test_a_name_followed_by_a_surname_is_another_person_except_where_nouns_are_capitalised(gsm_keys):
    """"Toula Papadakis" (or a byline's "Steve Dower") is not the unit's Toula: without its name,
    three numbers of two digits are no match. German capitalises its nouns: there a capitalised
    word after a name says nothing, and the translation is found."""
    index, sentences = gsm_keys
    host = " ".join(sentences[:6]) + " "
    text = host + DE_11.replace("Toula ging", "Toula Papadakis ging")
    assert [u for _, u, *_ in index.matches_many([text], 0.3, None, ["de"])] == [11]
    assert list(index.matches_many([text, text], 0.3, None, ["nl", None])) == []
    assert [u for _, u, *_ in index.matches_many([host + DE_11], 0.3, None, ["nl"])] == [11]


def test_a_name_lower_case_in_one_sample_document_is_still_a_name():
    """Gloria stands lower-case in a hymn once: still a name; "Will" is lower-case in most documents."""
    units = ["Gloria buys 12 boots for 35 dollars and 48 socks. Will she pay more than 90 dollars?"]
    hymn = "gloria in excelsis deo, sung at 9 in the morning"
    plain = [f"Page {k}: the weather will be fine." for k in range(20)]
    assert "Gloria" in KeyIndex.build(units, [True], [hymn] + plain).name_keys
    assert "Gloria" not in KeyIndex.build(units, [True], [hymn] * 3 + plain).name_keys
    assert "Will" not in KeyIndex.build(units, [True], [hymn] + plain).name_keys


def test_a_russian_translation_is_found_by_number_words_and_a_transliterated_name(gsm_keys):
    index, sentences = gsm_keys
    host = " ".join(sentences[:6])
    for item, translated, keys in ((5, RU_5, {"Kylar", "16", "60"}), (21, RU_21, {"Raymond", "Samantha", "6", "23", "31"})):
        found = {u: ev for u, _, _, _, ev in _matches(index, host + " " + translated, 0.3)}
        assert item in found and keys <= set(found[item][0].split()[1:]), (item, found)


def test_number_words_are_read_in_the_language_the_record_is_identified_in(gsm_keys):
    """A Danish translation whose small numbers are words is found where its record is known to be
    Danish (the language stage's column), not where it is read as English or its language is unknown."""
    index, sentences = gsm_keys
    text = " ".join(sentences[:6]) + " " + DA_498
    found = list(index.matches_many([text, text, text], 0.3, None, ["da", "en", None]))
    assert [(t, u) for t, u, *_ in found] == [(0, 498)]
    # (read through the stage's Arrow column, a language's RE2 pass over its own texts: the same)
    column = pa.chunked_array([[text, text], [text]], pa.string())
    assert list(index.matches_many([text] * 3, 0.3, column, ["en", "da", "da"])) == [(t, *found[0][1:]) for t in (1, 2)]
    assert {"Brianne", "20", "10", "5", "3"} <= set(found[0][-1][0].split()[1:])
    assert list(index.matches_many([text], 0.3)) == []


def test_numbers_alone_meeting_by_chance_are_not_a_translation(gsm_keys):
    """Three numbers of an item (1184: 850 kilos of coal in 50 kg bags at $18) in a news line, in its
    order, without a name: a coincidence (matched before four such numbers were asked)."""
    index, _ = gsm_keys
    news = "The shop sold 850 bicycles in its first year, 50 of them electric, to riders as young as 18."
    assert list(_matches(index, news, 0.3)) == []


def test_figures_code_and_news_sharing_its_numbers_are_not_found(gsm_keys):
    index, sentences = gsm_keys
    news = "The council approved 68 new homes and 55 parking spaces for the 80 families who moved in."
    for text in (DOCTEST, FIGURES, STAMPS, news, " ".join(sentences[:40])):
        assert [u for u, *_ in _matches(index, text, 0.3) if u == 11] == [], text


def test_a_batch_is_matched_as_its_texts_one_by_one(gsm_keys):
    """The batch's tally (one sort for all texts) finds what each text alone finds, at its index."""
    index, sentences = gsm_keys
    host = " ".join(sentences[:6])
    batch = [host + " " + DE_11, None, "", FIGURES, host + " " + RU_5, DOCTEST, " ".join(sentences[:40]),
             host + " " + ZH_11, RU_21]
    alone = [(t, *m) for t, text in enumerate(batch) for m in _matches(index, text or "", 0.3)]
    assert {(t, u) for t, u, *_ in alone} >= {(0, 11), (4, 5), (7, 11), (8, 21)}
    assert list(index.matches_many(batch, 0.3)) == alone


def test_a_batch_read_through_its_arrow_column_matches_as_its_texts(gsm_keys):
    """With the stage's Arrow column at hand (its RE2 passes read it, not a copy), the matches are
    those of the texts alone, a chunked column too."""
    index, sentences = gsm_keys
    host = " ".join(sentences[:6])
    batch = [host + " " + DE_11, None, "", FIGURES, host + " " + RU_5, DOCTEST, host + " " + ZH_11, RU_21]
    alone = list(index.matches_many(batch, 0.3))
    assert {(t, u) for t, u, *_ in alone} >= {(0, 11), (4, 5), (6, 11), (7, 21)}
    column = pa.chunked_array([batch[:3], batch[3:]], pa.string())
    assert list(index.matches_many(batch, 0.3, column)) == alone


@pytest.mark.parametrize("text", [
    "FÜNF Äpfel", "ДВАДЦАТЬ ЛЕТ", "İki FİVE five", "x-five", "K ten", "DREIẞIG", "vingt-et-un", "(twenty-five)",
    "soixante-dix", "Σfive", "éfive", "ﬁve", "five_", "5five", "nothing to count", "一个"])
def test_the_re2_number_word_test_is_looser_than_the_regex(text):
    """A text the RE2 pass finds no number word in is not read for them: wherever the regex finds
    one (Unicode \\w, the text lower-cased), RE2 (ASCII \\W, case folded) finds one too."""
    found = word_numbers(text, han=False)
    held = bool(texts_holding(pa.array([text], pa.string()), number_words().re2)[0])
    assert held or not found
    assert word_numbers(text, han=False, words=held) == found


def test_lower_case_words_are_found_whatever_their_neighbours(monkeypatch):
    """The RE2 pass that picks the texts to read is looser than the Python regex, never stricter:
    a word next to a non-ASCII letter, an underscore or an apostrophe is told as the regex tells it."""
    monkeypatch.setattr(contamination_keys, "_RE2_WORDS", 2)  # several patterns per chunk
    texts = ["What did Eliza buy?", "xeliza and élisa", "éeliza eliza_ toula's", "the ñtoula", "Grün grün"] * 30 \
        + ["what else"] + ["nothing here"] * 200 + ["at last: élise, maría"]
    candidates = {"eliza", "toula", "what", "élise", "maría", "grün", "élisa", "kylar"}
    expect = {w for t in texts for w in contamination_keys._LOWER.findall(t)} & candidates
    assert expect == {"toula", "what", "élise", "maría", "grün", "élisa"}
    assert contamination_keys._lower_words(texts, candidates) == expect


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

    [m], clean = run()
    assert (m["eval_id"], m["unit"], m["method"]) == ("gsm11", "question", "rewrite") and clean == []
    # the language stage's column, when the batch has it, says whose number words are read
    config = parse_config({"input": {"paths": ["x/"]}, "eval_sets": [
        {"name": "gsm8k", "path": "gsm.jsonl", "text_fields": ["question", "answer"], "id_field": "id"}]},
        base_dir=tmp_path)
    stage = ContaminationStage(config)
    for language, found in (("da", [["gsm498"]]), ("en", [[]])):
        out = stage(pa.table({"text": [DA_498], "language": [language]}))
        assert [[x["eval_id"] for x in ms] for ms in counted(out.column("contamination"), config).to_pylist()] == found
    assert m["evidence"][0].startswith("keys ") and m["spans"] == [m["longest_span"]]
    question = rows[11]["question"]
    assert {question[a:b] for a, b in m["item_spans"]} >= {"68", "80", "55"}
    # without the keys (on by default) and the sentence embedding, only the gloss reader finds it
    # (its words, not its numbers)
    [g], _ = run(rewrite_keys=False, rewrite_translation=False)
    assert g["evidence"][0].startswith("gloss ")
    assert run(rewrite_keys=False, rewrite_gloss=False, rewrite_translation=False) == [[], []]
    # ... and the sentence embedding alone finds it too, its numbers there
    [t], _ = run(rewrite_keys=False, rewrite_gloss=False)
    assert t["evidence"][0].startswith("translation cosine ") and t["evidence"][-1] == "numbers 2 3 6 55 68 80"
