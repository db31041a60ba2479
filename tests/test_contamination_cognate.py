"""German, Spanish, French, Russian, Italian, Portuguese, Dutch, Polish and Ukrainian read through
cognates (audit/stages/contamination_cognate.py): a multiple-choice question translated alone (no
number, few names) is found by the cognates of its rare words, with the pairs as evidence; European
text on the same subject sharing two of them is not; English text is not read by the tier."""
from __future__ import annotations

import numpy as np

from audit.normalize import tokenize_hashed
from audit.stages.contamination import ContaminationIndex
from audit.stages.contamination_cognate import cognate_form, cognate_forms, lexicon
from tests.fixtures_rewrite import HOST, MC_ITEMS, mc_config, mc_counted

# These tests read one tier: the translation tier (contamination_translation.py) finds these
# translations too, with another evidence.
NO_TRANSLATION = {"rewrite_translation": False}
# Two questions of academic words (cognates in every language here), beside MC_ITEMS.
ITEMS = MC_ITEMS + [
    ("photo", "Which organelle is the site of photosynthesis in plant cells, containing the chlorophyll that "
              "captures light energy?", ["Mitochondrion", "Chloroplast", "Ribosome", "Golgi apparatus"]),
    ("parkinson", "Which neurotransmitter is most closely associated with the degeneration of neurons in "
                  "Parkinson's disease?", ["Serotonin", "Dopamine", "Acetylcholine", "GABA"]),
]
HEAP = ("heap", "Which sorting algorithm has a worst-case running time of O(n log n) and sorts in place using a "
                "binary heap?", ["Quicksort", "Heapsort", "Merge sort", "Insertion sort"])
# Translated by hand, question alone, among text of the same language (a city council; a weather report).
PHOTO_DE = ("In welchem Organell der Pflanzenzelle läuft die Photosynthese ab, das Chlorophyll enthält und so "
            "die Energie des Lichts einfängt?")
PARKINSON_RU = "С каким нейромедиатором сильнее всего связана дегенерация нейронов при болезни Паркинсона?"
HOST_DE = ("Der Stadtrat hat am Dienstag beschlossen, die Brücke über den Fluss im kommenden Jahr zu erneuern. "
           "Die Arbeiten sollen im Frühjahr beginnen und etwa acht Monate dauern.")
HOST_RU = ("Синоптики обещают в выходные тёплую погоду без осадков. В понедельник ожидается небольшое "
           "похолодание и ветер с севера.")
# The same subjects, asking nothing: each shares two of the unit's cognates (a question needs three).
PHOTO_CLEAN_DE = ("Im Herbst wird das Chlorophyll in den Blättern abgebaut, und die Photosynthese kommt langsam zum "
                  "Erliegen; dann zeigen sich die gelben und roten Farbstoffe, die vorher verdeckt waren.")
PARKINSON_CLEAN_RU = ("Нейроны головного мозга у пациентов с болезнью Паркинсона гибнут постепенно, поэтому "
                      "врачи советуют больше двигаться и регулярно проходить обследование.")


def test_cognate_form_makes_one_spelling_of_a_loanword():
    forms = {cognate_form(w)[:6] for w in ("photosynthesis", "Photosynthese", "fotosíntesis", "photosynthèse",
                                            "фотосинтез")}
    assert forms == {"fotosi"}
    assert cognate_form("Zitrat") == cognate_form("цитрат") == cognate_form("citrat") == "sitrat"
    assert cognate_form("Chlorophyll")[:6] == cognate_form("хлорофилл")[:6] == "klorof"
    # everyday words of the languages are no keys; an English-only word is attested in none of them
    common, attested = lexicon()
    assert "atmosf" in attested and "atmosf" not in common and "eart" not in attested
    assert cognate_form("система")[:6] in common


def test_forms_made_in_one_batch_are_each_word_alone():
    """The rules run once over a batch of words, one a line: a rule tied to a word's start or end
    (Spanish es-, French -aire) or to a doubled letter applies within each word, never across two,
    and a line break inside a word is dropped as any non-letter is."""
    words = ["estructura", "Photosynthèse", "tes", "solaire", "Lampe\nnation", "es", "gasse", "sse", "нация", "",
             "escapar", "aire"]
    expected = ["struktura", "fotosintese", "tes", "solar", "lampenasi", "es", "gase", "se", "nasi", "", "skapar", "ar"]
    assert cognate_forms(words) == expected
    assert [cognate_form(w) for w in words] == expected


def test_the_array_passes_of_the_rules_equal_their_plain_forms():
    """Transliteration by a code point table and doubled letters made one by an array pass: the same
    as str.translate over the table and the regex (.)\\1+ on text mixing scripts, ß, ъ/ь and runs."""
    import re

    from audit.stages.contamination_cognate import _CYRILLIC, _transliterate, _undouble

    text = "объём\nгросс straße ŁÓDŹ łódź café Подъезд ь ъъ\nплюс ẞ\u0306й ascii only"
    assert _transliterate(text.lower()) == text.lower().translate(_CYRILLIC)
    assert _transliterate("plain") == "plain"
    letters = "aab\n\nbbbc\ncc\nxyz\nssss\n"
    assert _undouble(letters) == re.sub(r"(.)\1+", r"\1", letters) == "ab\n\nbc\nc\nxyz\ns\n"
    assert _undouble("") == ""


def test_a_german_and_a_russian_translated_question_are_found_with_their_evidence(tmp_path):
    de = HOST_DE + "\n" + PHOTO_DE + "\n" + HOST_DE
    ru = HOST_RU + "\n" + PARKINSON_RU + "\n" + HOST_RU
    [[m], [r]] = mc_counted(tmp_path, [de, ru], NO_TRANSLATION, items=ITEMS)
    assert (m["eval_id"], m["unit"], m["method"]) == ("photo", "question", "rewrite") and m["coverage"] >= 0.5
    kind, pairs = m["evidence"]
    assert kind.startswith("cognate ")
    found = dict(p.split("=")[::-1] for p in pairs.split())  # unit stem = record word, in record order
    assert found["Photosynthese"].startswith("photosynthes") and found["Chlorophyll"].startswith("chlorophyl")
    [[a, b]] = m["spans"]
    start = de.index(PHOTO_DE)
    assert start <= a < b <= start + len(PHOTO_DE)
    assert (r["eval_id"], r["unit"]) == ("parkinson", "question") and r["evidence"][0].startswith("cognate ")
    assert dict(p.split("=")[::-1] for p in r["evidence"][1].split())["Паркинсона"] == "parkinson"
    # with the tier off, neither is found
    assert mc_counted(tmp_path, [de, ru], NO_TRANSLATION | {"rewrite_cognate": False}, ITEMS) == [[], []]


# Italian and Portuguese, worded apart from bench/heldout_romance.py's (a school page; a news brief).
PARKINSON_IT = ("Domanda 4: nella malattia di Parkinson, quale neurotrasmettitore si lega più di tutti alla "
                "degenerazione dei neuroni?")
PHOTO_PT = ("Pergunta do dia: em que organela das células das plantas acontece a fotossíntese, a que guarda a "
            "clorofila e capta a energia da luz?")
HOST_IT = ("Il consiglio comunale ha approvato ieri sera il nuovo piano per le piste ciclabili del centro. I lavori "
           "cominceranno a marzo e dureranno circa sei mesi.")
HOST_PT = ("A prefeitura anunciou nesta terça-feira que a ponte sobre o rio será reformada no próximo ano. As obras "
           "devem começar na primavera e durar cerca de oito meses.")


def test_italian_and_portuguese_spellings_meet_the_english_one():
    assert {cognate_form(w)[:6] for w in ("radiation", "radiazione", "radiação", "radiações")} == {"radias"}
    assert cognate_form("versões") == cognate_form("versione")[:5] == cognate_form("version") == "fersi"
    assert cognate_form("fotossíntese")[:6] == cognate_form("fotosintesi")[:6] == "fotosi"
    # Polish -cja and its cases, Dutch -tie: the same -sion (and Polish ł an l, Ukrainian і an i)
    assert {cognate_form(w) for w in ("degeneracja", "degeneracji", "degeneratie", "degeneration")} == {"degenerasi"}
    assert cognate_form("molekuła")[:5] == cognate_form("molecule")[:5] and cognate_form("ультрафіолетове")[:6] == "ultraf"
    # -são/-ção only at a word's end, after two letters: casa, classe, são stay as they are
    assert [cognate_form(w) for w in ("casa", "classe", "são")] == ["kasa", "klase", "sao"]


def test_italian_and_portuguese_questions_are_found_with_their_evidence(tmp_path):
    it = HOST_IT + "\n" + PARKINSON_IT + "\n" + HOST_IT
    pt = HOST_PT + "\n" + PHOTO_PT + "\n" + HOST_PT
    [[i], [p]] = mc_counted(tmp_path, [it, pt], NO_TRANSLATION, items=ITEMS)
    assert (i["eval_id"], i["unit"], i["method"]) == ("parkinson", "question", "rewrite")
    assert (p["eval_id"], p["unit"], p["method"]) == ("photo", "question", "rewrite")
    assert dict(x.split("=")[::-1] for x in p["evidence"][1].split())["fotossíntese"].startswith("photosynthes")
    assert mc_counted(tmp_path, [HOST_IT + " " + HOST_IT, HOST_PT + " " + HOST_PT], items=ITEMS) == [[], []]


def test_european_text_on_the_same_subject_is_not_found(tmp_path):
    texts = [HOST_DE + " " + PHOTO_CLEAN_DE + " " + HOST_DE, HOST_RU + " " + PARKINSON_CLEAN_RU + " " + HOST_RU]
    assert mc_counted(tmp_path, texts, items=ITEMS) == [[], []]


def test_english_text_is_not_read_by_the_tier(tmp_path):
    index = ContaminationIndex.build(mc_config(tmp_path, items=ITEMS))
    assert index.cognate is not None
    # the German question quoted in an English paragraph: the rewrite tier's text, not this tier's
    english = HOST + " The German exam asked: " + PHOTO_DE + " Most of the students in the class knew the answer."
    german = HOST_DE + " " + PHOTO_DE
    got = {t for t, *_ in index.cognate.matches([english, german], tokenize_hashed([english, german]), 0.3)}
    assert got == {1}


def test_the_units_read_in_a_record_are_those_its_hits_name_enough_stems_of(tmp_path):
    """The (record, unit) pairs are tallied for the whole batch by array passes: the units read in
    a record are those with `unit_need` distinct stems among its hits, in the order its hits first
    name them, each with its hits in order, as reading every unit of every hit would find them."""
    cognate = ContaminationIndex.build(mc_config(tmp_path, items=ITEMS)).cognate
    texts = [HOST_DE + " " + PHOTO_DE, HOST_RU + " " + PARKINSON_RU, PHOTO_CLEAN_DE, HOST_DE]
    tokens = tokenize_hashed(texts)
    hits_of = cognate._hits(texts, tokens, np.flatnonzero(cognate._readable(texts, tokens)))
    expected = {}
    for t, hits in hits_of.items():
        rows: dict[int, list[int]] = {}
        for r, (_, stem, _) in enumerate(hits):
            for u in cognate.post[stem].tolist() if stem in cognate.post else ():
                rows.setdefault(u, []).append(r)
        enough = [(u, r) for u, r in rows.items() if len({hits[i][1] for i in r}) >= cognate.unit_need[u]]
        if enough:
            expected[t] = enough
    assert expected and len(expected) < len(hits_of) <= len(texts)  # some records hold no unit's stems enough
    assert cognate._units_held(hits_of) == expected


def test_suffixes_spelled_apart_by_language_are_made_one():
    # -tion, -ción, -ция, -cia end alike, so a short stem's key survives (nation, acción, радиация)
    assert {cognate_form(w) for w in ("nation", "Nation", "nación", "нация", "нации")} == {"nasi"}
    assert {cognate_form(w) for w in ("action", "acción", "акция")} == {"aksi"}
    assert {cognate_form(w)[:6] for w in ("radiation", "radiación", "радиация", "радиацией")} == {"radias"}
    # French -aire is -ar (binaire, solaire), not a key of its own
    assert cognate_form("binaire")[:5] == cognate_form("binary")[:5] and cognate_form("solaire") == cognate_form("solar")


def _pairs_found(tmp_path, item: tuple[str, str, list[str]], text: str) -> list[dict[str, str]]:
    """Per cognate match of `text` against ITEMS and `item` (all of them `item`'s), its pairs as
    record word -> unit stem."""
    contamination = ContaminationIndex.build(mc_config(tmp_path, items=ITEMS + [item]))
    assert contamination.cognate is not None
    got = list(contamination.cognate.matches([text], tokenize_hashed([text]), 0.3))
    assert got and {contamination.item_ids[u] for _, u, *_ in got} == {item[0]}
    return [dict(p.split("=")[::-1] for p in pairs) for *_, pairs in got]


def test_a_russian_g_is_read_as_a_latin_h_too(tmp_path):
    insulin = ("insulin", "Which organ produces insulin, the hormone that lowers blood glucose levels after a meal?",
               ["Liver", "Pancreas", "Kidney", "Spleen"])
    # insulin, гормон (hormone) and глюкоза (glucose, г as g): three of the unit's keys, found only with гормон
    text = HOST_RU + " Врачи напоминают, что инсулин — это гормон, от которого зависит уровень глюкозы в крови."
    for found in _pairs_found(tmp_path, insulin, text):
        assert found["гормон"] == "hormon" and found["глюкозы"] == "glucos" and found["инсулин"] == "insulin"


def test_a_word_the_unit_tokenizer_joined_is_keyed_by_its_parts(tmp_path):
    ridge = ("ridge", "Which type of plate boundary forms where two tectonic plates move apart from each other, as "
                      "along the Mid-Atlantic Ridge?", ["Convergent", "Divergent", "Transform", "Subduction"])
    # midatlantic has no key of its own (midatl); its part atlantic has (Atlantik, atlántico, атлантический)
    text = ("Quel type de limite de plaques se forme là où deux plaques tectoniques s'éloignent l'une de l'autre, "
            "comme le long de la dorsale médio-atlantique ?")
    for found in _pairs_found(tmp_path, ridge, text):
        assert found["médio-atlantique"] == "midatlantic" and found["tectoniques"] == "tectonic"


def test_a_stem_cut_from_a_soft_c_word_keys_the_word_too(tmp_path):
    # the stem plac (place, c soft) is read in French place; with algorithme and binaire, three keys
    text = ("Quel algorithme de tri a un temps d'exécution dans le pire des cas en O(n log n) et trie sur place à "
            "l'aide d'un tas binaire ?")
    for found in _pairs_found(tmp_path, HEAP, text):
        assert found["place"] == "plac" and found["binaire"] == "binary"


def test_a_german_compound_is_read_by_its_head_past_a_shorter_key(tmp_path):
    # Sortieralgorithmus: the four letters sort are a key, the head algorithmus a longer one further in
    text = ("Welcher Sortieralgorithmus hat im schlechtesten Fall eine Laufzeit von O(n log n) und sortiert mithilfe "
            "eines binären Heaps in-place?")
    for found in _pairs_found(tmp_path, HEAP, text):
        assert found["Sortieralgorithmus"] == "algorithm"



def test_a_word_is_read_as_written_whatever_spelling_of_it_the_process_met_first(tmp_path):
    """L'efficacité and Lefficacité, D-Mark and DMark are one word each to the normaliser, but read
    apart (an elided article, a hyphen's parts). The tier's per-process cache must not hand one
    the other's reading: a record's hits would then hang on which worker read which shards first."""
    cognate = ContaminationIndex.build(mc_config(tmp_path, items=ITEMS)).cognate
    assert cognate is not None
    written = "L'efficacité du traitement contre la maladie de Parkinson dépend de la D-Mark-Herstellung."
    joined = written.replace("L'efficacité", "Lefficacité").replace("D-Mark-Herstellung", "DMarkHerstellung")

    def hits(texts: list[str]) -> dict[int, list[tuple[int, int, int]]]:
        return cognate._hits(texts, tokenize_hashed(texts), np.arange(len(texts)))

    alone = hits([written])[0]
    assert hits([joined])[0] != alone  # the two spellings are read apart ...
    assert hits([joined, written])[1] == alone  # ... whichever of them came first
    assert hits([written])[0] == alone and hits([joined])[0] == hits([joined, written])[0]



def test_a_compound_is_read_by_each_of_its_parts(tmp_path):
    """Internetprotokoll is internet and protocol, Sortieralgorithmus sort and algorithm: every
    part that is a key is read, the first one past a full key too (the question's cognates are
    often a compound's two halves)."""
    dns = ("dns", "Which Internet protocol translates human-readable domain names into the numeric IP addresses "
                  "used by computers?", ["HTTP", "DNS", "FTP", "SMTP"])
    items = [i for i in ITEMS if i[0] != "tcp"] + [dns, HEAP]  # (tcp: protocol would be no rare stem)
    contamination = ContaminationIndex.build(mc_config(tmp_path, items=items))
    cognate, names = contamination.cognate, contamination.rewrite.names
    assert cognate is not None
    texts = ["Welches Internetprotokoll übersetzt für Menschen lesbare Domainnamen in die numerischen IP-Adressen?",
             "Welcher Sortieralgorithmus hat im schlechtesten Fall eine Laufzeit von O(n log n)?"]
    hits = cognate._hits(texts, tokenize_hashed(texts), np.arange(2))
    assert {names[s] for rank, s, _ in hits[0] if rank == 1} >= {"internet", "protocol"}
    assert {names[s] for rank, s, _ in hits[1] if rank == 1} >= {"sort", "algorithm"}
