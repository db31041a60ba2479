"""European text read through cognates, for the rewrite tier (method "rewrite", evidence "cognate ..."):
an eval unit translated into German, Spanish, French, Russian, Italian, Portuguese, Dutch, Polish or
Ukrainian (a quiz page's copy of a multiple-choice question) often keeps no number and few names for
the translation keys (audit/stages/contamination_keys.py), and no wheel on the registry ships a
multilingual embedding or a bilingual dictionary for these languages. What survives such a
translation is the unit's academic and technical words: photosynthesis, Photosynthese, fotosíntesis,
photosynthèse, фотосинтез.

1. Cognate form (`cognate_form`): a word lowercased, Cyrillic transliterated, accents stripped, and
   spelling told apart by language made one (ph -> f, th -> t, ch/c/k/q -> k, c before e/i -> s,
   z -> s, v/w -> f, y/j -> i, h dropped, ei/eu -> e, a Spanish e- before s+consonant dropped,
   -tion/-ción/-ção/-zione/-cja/-tie/-ция/-cia -> si, French -aire -> ar, doubled letters
   collapsed). Keys are the form's first 6 and 5 letters (4 for a word of four):
   the inflection endings of each language lie past them (Atmosphäre, atmósfera, атмосфера:
   atmosf). A record word is read as its longest prefix (6, 5, 4 letters) that is a key and, a
   compound, as each full key further in (Sortieralgorithmus: sort, algori; Internetprotokoll:
   intern, protok); a word of several (Last-in-First-out, l'ozone) as each of its parts; a Russian
   word with г and no key is read again with г as a Latin h (гормон, гипотеза: hormone, hypothesis).
2. Keys of a unit: its evidence stems of the rewrite tier (RewriteIndex: units, rarity weights,
   postings) of four letters or more whose key is attested in the word lists of two of _LANGS
   (German, Spanish, French, Russian, Italian, Portuguese, Dutch, Polish, Ukrainian: the `wordfreq`
   wheel's lists, less their English words: a cognate, not "earth"), and its numbers (read as
   themselves). A stem with no such key that the unit tokenizer joined from two words (Mid-Atlantic:
   midatlantic; its first part a word of the embedding's vocabulary) is keyed by each part's keys
   (atlantic); a stem cut from a word of -ce (plac, produc) is keyed by that word's form too (plase:
   French place, its c soft). A key of everyday words of one of them (words summing to _COMMON_FREQ
   of running text: system, energi) counts but is never a strong hit; with _MIN_DOCS such documents
   in the corpus sample, a stem in more than _DOC_SHARE of its non-English Latin- or Cyrillic-script
   documents is no evidence.
3. Records read: those of _MIN_WORDS words, mostly in Latin or Cyrillic script, that are not English
   (under _EN_SHARE of their words English function words: an English record is the rewrite
   tier's). A match: one window of the record (_WINDOW times the unit's words, at least
   _MIN_WINDOW) holding _MIN_STEMS distinct keyed stems of the unit (a translation keeps a few of a
   unit's words as cognates, rarely most; two are met by chance), _MIN_RARE_HIT of them strong
   (rare words, few units holding them, matched on a key of five letters or more that no everyday
   word has), and the measure floor of the unit's keyable weight. Judged like every rewrite match
   (`rewrite_threshold`).

Cost: English records are told apart by one array pass over the block's word hashes; a read
record's words are mapped to keys through a per-process cache sorted by word hash and written
length (a word's form is computed once per process, a block's new words in one batch of regex
passes; a word written with an apostrophe or hyphen once per block), the (record,
unit) pairs holding enough distinct stems found by array passes over the batch, then windows are
counted per such pair over its few hits.
The word lists are read into the cache folder once per machine (audit.cache, a few seconds).

Not reached: words that are not cognates (oxygen / Sauerstoff, constitution / Verfassung, white
blood cell / Leukozyt / лейкоцит, percentage / Prozentsatz), German compounds whose cognate is not
a full key at their start nor further in (Blutzuckerspiegel: glucose), Latin h rendered as
Russian х (Хиросима), cognates whose endings part before the fifth letter other than by the
suffixes above (capture / capta / capte, valeur / value), rare stems of four letters (immun, escap:
never strong), questions with fewer than three keyable words (planet, solar, rotate), English text
(left to the rewrite tier), and a translation that paraphrases the unit's terms.
"""
from __future__ import annotations

import hashlib
import re
import unicodedata
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import cache, cached_property
from itertools import islice
from pathlib import Path

import numpy as np

from audit.cache import cached_arrays
from audit.normalize import HashSet, Tokens, hash_words, normalize, tokenize_hashed
from audit.stages.contamination_rewrite import RewriteIndex

# Cyrillic transliterated towards the Latin spelling of the same loanword (в, ф -> f as v is;
# х -> k as ch is; ц -> s as c before e/i is; ю -> u: компьютер, глюкоза).
_CYRILLIC = str.maketrans({
    "а": "a", "б": "b", "в": "f", "г": "g", "д": "d", "е": "e", "ё": "e", "ж": "s", "з": "s", "и": "i",
    "й": "i", "к": "k", "л": "l", "м": "m", "н": "n", "о": "o", "п": "p", "р": "r", "с": "s", "т": "t",
    "у": "u", "ф": "f", "х": "k", "ц": "s", "ч": "k", "ш": "s", "щ": "s", "ъ": "", "ы": "i", "ь": "",
    "э": "e", "ю": "u", "я": "a", "і": "i", "ї": "i", "є": "e", "ґ": "g", "ß": "ss", "ł": "l"})
# ... as a code point table (the one-letter entries; ß -> ss and the letters dropped by str.replace): a
# str.translate with a dict looks every character of non-ASCII text up in it, five times slower.
_CYRILLIC_WIDE = {chr(k): v for k, v in _CYRILLIC.items() if v is None or len(v) != 1}
_CYRILLIC_CPS = np.arange(max(_CYRILLIC) + 1, dtype=np.uint32)
_CYRILLIC_CPS[[k for k, v in _CYRILLIC.items() if chr(k) not in _CYRILLIC_WIDE]] = [
    ord(v) for k, v in _CYRILLIC.items() if chr(k) not in _CYRILLIC_WIDE]
_DIGRAPHS = (("sch", "s"), ("ph", "f"), ("th", "t"), ("ch", "k"), ("sh", "s"), ("ck", "k"), ("qu", "k"))
# (the rules read many words at once, one a line: ^ and $ are a word's ends, no rule crosses a line break)
_SOFT_C = re.compile(r"c(?=[eiy])")
_SINGLE = str.maketrans({"c": "k", "q": "k", "z": "s", "v": "f", "w": "f", "y": "i", "j": "i", "h": None})
_DIPHTHONG = re.compile(r"e[iu]")
_PROSTHETIC_E = re.compile(r"^es(?=[^aeiou\n])", re.M)  # Spanish estructura, escapar = structure, escape
# Suffixes spelled apart by language, made one: -tion/-ción/-sion/-ция/-cia -> si (nation, nación, нация:
# nasi; radiation, радиация: radiasi); French -aire -> ar (binaire, solaire = binary, solar).
_TION = re.compile(r"[ts](?<=[a-z]{2}[ts])i[oa]n?")
# ... and the same suffix at a word's end in Portuguese -ção/-ções/-são (accents stripped: radiacao,
# versoes), Polish -cja/-sja/-zja and their cases (degeneracji, wersja, telewizja), Dutch -tie
# (degeneratie, informatie) is first made -sion.
# (each pattern opens with the letters it can start at, its look-behind after them: the engine then skips
# to those letters instead of trying the look-behind at every character; the same matches)
_CAO = re.compile(r"[cstz](?<=[a-z]{2}[cstz])(?:(?<=[cs])(?:ao|oes)|(?<=[csz])j[aeiou]|(?<=t)ie)$", re.M)
_AIRE = re.compile(r"aire?s?$", re.M)
_LETTERS = re.compile(r"[^a-z\n]+")
_RUNS = re.compile(r"[^\W\d_]+|\d+")
_EDGES = re.compile(r"^\W+|\W+$")  # a word's punctuation, left out of the evidence
# A word of more than this many letters past a key is read for a key inside it too (a compound's later part).
_COMPOUND_REST = 6
# How a record word is read: its (stem, key length) pairs, and -2 for a word of no Latin or
# Cyrillic letter (0 else).
_Value = tuple[tuple[tuple[int, int], ...], int]
# Key lengths: a unit's form gives keys of its first _KEY_LENS letters (a form of _MIN_LEN: itself).
_KEY_LENS = (6, 5)
_MIN_LEN = 4
# A joined word's first part (mid of Mid-Atlantic) has this many letters at least.
_MIN_PART = 3
# A key counts as "strong" (for _MIN_RARE_HIT) from this many letters.
_STRONG_LEN = 5
# Everyday words: the `wordfreq` lists of these languages (their _LEX_WORDS most frequent words); a key
# whose words sum to _COMMON_FREQ of running text in one of them (zipf 5: one word in 10,000) is
# common, and a unit word is keyable only when its key is one of theirs (a cognate: atmosf, not the
# English-only eart of "earth").
_LANGS = ("de", "es", "fr", "ru", "it", "pt", "nl", "pl", "uk")
_LEX_WORDS = 100_000
# ... in this many of the languages (each list holds English words and names too: "earth" in one)
_ATTESTED_LANGS = 2
_COMMON_FREQ = 1e-4
# English function words: a record where they are this share of the words is English.
_EN_WORDS = ("the", "and", "of", "that", "with", "which", "is", "are", "this", "from", "have", "what", "you", "it")
_EN_SHARE = 0.04
# ... and a record is read only when this share of its words are function words of _LANGS (their
# _FUNCTION_WORDS most frequent words, less English ones): the languages the word lists know, and
# close ones (Catalan, Galician, Belarusian); text of the other Latin- and
# Cyrillic-script languages, whose every word would be read for nothing, is left.
_FUNCTION_WORDS = 40
_LANG_SHARE = 0.12
# A record is read when it has this many words, this share of them holding Latin or Cyrillic letters.
_MIN_WORDS = 8
_SCRIPT_SHARE = 0.5
# With this many non-English Latin/Cyrillic documents in the corpus sample, a key in more than this
# share of them is common in this corpus.
_MIN_DOCS = 50
_DOC_SHARE = 0.05
# Windows of _WINDOW times the unit's words (at least _MIN_WINDOW record words).
_WINDOW = 2.0
_MIN_WINDOW = 24
# A match holds this many distinct keyed stems at least, and this many rare word stems on a strong key;
# rare: held by at most _RARE_SHARE of the units (and _MIN_DF of them).
_MIN_STEMS = 3
_MIN_RARE_HIT = 2
_RARE_SHARE = 0.01
_MIN_DF = 3
# The per-process cache of word hash -> keyed stems is emptied past this many words.
_CACHE_WORDS = 2_000_000
# mixes a word's written length into its cache key (an odd 64-bit constant: lengths spread over all bits)
_LENGTH_MIX = np.uint64(0x9E3779B97F4A7C15)


def cognate_form(word: str) -> str:
    """The spelling-neutral form of one word (see the module docstring): Photosynthese,
    photosynthèse, фотосинтез -> fotosintese, fotosintese, fotosintes."""
    return cognate_forms([word])[0]


def cognate_forms(words: Sequence[str]) -> list[str]:
    """`cognate_form` of each of `words`: each rule applied once to all of them, one a line (a
    rule per word costs five times as much for the thousands of words new to a block)."""
    # (a line break is no letter: cognate_form leaves it out wherever it stands)
    w = _transliterate("\n".join(x.replace("\n", "") for x in words).lower())
    # accents stripped: the decomposed marks (and any letter of another script) are not ASCII
    w = _LETTERS.sub("", unicodedata.normalize("NFKD", w).encode("ascii", "ignore").decode())
    w = _CAO.sub("sion", w)
    for a, b in _DIGRAPHS:
        w = w.replace(a, b)
    w = _SOFT_C.sub("s", w).translate(_SINGLE)
    w = _PROSTHETIC_E.sub("s", _DIPHTHONG.sub("e", w))
    return _undouble(_AIRE.sub("ar", _TION.sub("si", w))).split("\n")


def _transliterate(w: str) -> str:
    """`w.translate(_CYRILLIC)`, by str.replace for the entries of other than one letter and a numpy
    table over the code points for the rest."""
    if w.isascii():
        return w
    for k, v in _CYRILLIC_WIDE.items():
        w = w.replace(k, v or "")
    cps = np.frombuffer(w.encode("utf-32-le", "surrogatepass"), dtype=np.uint32)
    inside = cps < len(_CYRILLIC_CPS)
    out = np.where(inside, _CYRILLIC_CPS[np.where(inside, cps, 0)], cps)
    return out.tobytes().decode("utf-32-le", "surrogatepass")


def _undouble(w: str) -> str:
    """A run of one letter made one letter (letters and line breaks: what the rules leave, ASCII),
    by one array pass rather than a regex match per run."""
    b = np.frombuffer(w.encode("ascii"), dtype=np.uint8)
    keep = np.ones(len(b), dtype=bool)
    keep[1:] = (b[1:] != b[:-1]) | (b[1:] == 0x0A)
    return b[keep].tobytes().decode("ascii")


def _h_forms_of(words: Sequence[str]) -> dict[str, list[str]]:
    """Per word of `words` with a г (Russian), its forms read with its first г, then every г, as a
    Latin h (dropped, as cognate_form drops h): гормон, гипотеза, гемоглобин = hormone, hypothesis,
    hemoglobin; г is also Latin g (грамм), the form tried first. (The forms made in one batch.)"""
    readings = {w: (low[:at] + low[at + 1:], low.replace("г", "")) for w in words if "г" in w or "Г" in w
                if (at := (low := w.lower()).find("г")) >= 0}
    forms = iter(cognate_forms([x for pair in readings.values() for x in pair]))
    out: dict[str, list[str]] = {}
    for w in readings:
        first, every = next(forms), next(forms)
        out[w] = [first] if first == every else [first, every]
    return out


def _in_vocabulary(words: list[str], vocabulary: np.ndarray) -> np.ndarray:
    """Per word (normalised) whether its hash is in `vocabulary` (sorted word hashes)."""
    if not words or len(vocabulary) == 0:
        return np.zeros(len(words), dtype=bool)
    h = hash_words(words)
    return vocabulary[np.minimum(np.searchsorted(vocabulary, h), len(vocabulary) - 1)] == h


def _joined_parts(names: dict[int, str], vocabulary: np.ndarray) -> dict[int, set[str]]:
    """Per stem of `names` that is two words joined (midatlantic, firstout, humanreadabl), the
    parts of each split whose first part, of _MIN_PART letters or more, is a word of `vocabulary`
    (sorted word hashes: the embedding's words) and whose rest is _MIN_LEN letters or more."""
    splits = [(s, i) for s, name in names.items() for i in range(_MIN_PART, len(name) - _MIN_LEN + 1)]
    found = _in_vocabulary([names[s][:i] for s, i in splits], vocabulary)
    out: dict[int, set[str]] = defaultdict(set)
    for (s, i), ok in zip(splits, found.tolist()):
        if ok:
            out[s].update((names[s][:i], names[s][i:]))
    return out


def _keys_of(form: str) -> list[str]:
    """The keys a unit word's form gives (see _KEY_LENS)."""
    if len(form) < _MIN_LEN:
        return []
    return [form[:k] for k in _KEY_LENS if len(form) >= k] or [form]


def _derive_lexicon() -> dict[str, np.ndarray]:
    """The keys of the word lists of _LANGS (the wordfreq wheel's data, most frequent first):
    "common", those whose words sum to _COMMON_FREQ of running text in one language, and
    "attested", those of the _LEX_WORDS most frequent words (less those more frequent in English)
    of _ATTESTED_LANGS of them (each as one UTF-8 string)."""
    from wordfreq import get_frequency_dict
    common: set[str] = set()
    langs_of: dict[str, int] = defaultdict(int)
    english = get_frequency_dict("en")
    for lang in _LANGS:
        total: dict[str, float] = defaultdict(float)
        own: set[str] = set()
        top = list(islice(get_frequency_dict(lang).items(), _LEX_WORDS))
        for (w, freq), f in zip(top, cognate_forms([w for w, _ in top])):
            if len(f) < _MIN_LEN:
                continue
            keys = {f[:6], f[:5], f[:4]}
            for k in keys:
                total[k] += freq
            if english.get(w, 0.0) < freq:  # not an English word of the list ("around" in German web text)
                own.update(keys)
        common.update(k for k, v in total.items() if v >= _COMMON_FREQ)
        for k in own:
            langs_of[k] += 1
    attested = {k for k, n in langs_of.items() if n >= _ATTESTED_LANGS}
    return {name: np.frombuffer("\n".join(sorted(keys)).encode(), dtype=np.uint8)
            for name, keys in (("common", common), ("attested", attested))}


@cache
def lexicon() -> tuple[frozenset[str], frozenset[str]]:
    """(common, attested) keys of the words of _LANGS (see _derive_lexicon):
    derived once per machine into the cache folder (audit.cache; a few seconds), then loaded."""
    from importlib.metadata import version
    rules = hashlib.blake2b(Path(__file__).read_bytes(), digest_size=8).hexdigest()
    a = cached_arrays("cognate-lexicon", f"wordfreq {version('wordfreq')}|{rules}", _derive_lexicon)
    common, attested = (frozenset(a[k].tobytes().decode().split("\n")) for k in ("common", "attested"))
    return common, attested


def _derive_markers() -> dict[str, np.ndarray]:
    """The word hashes of _EN_WORDS and of the _FUNCTION_WORDS most frequent words of each of
    _LANGS (no one-letter Latin word, none of the 200 most frequent English
    words), sorted, and per hash whether it is an English one."""
    from wordfreq import top_n_list
    english = set(top_n_list("en", 200))
    words = {w for lang in _LANGS for w in top_n_list(lang, _FUNCTION_WORDS)
             if (len(w) > 1 or not w.isascii()) and w not in english}  # Russian в, и, с; not a, y, l
    h = np.concatenate([hash_words(list(_EN_WORDS)), hash_words(sorted(normalize(w) for w in words))])
    order = np.argsort(h, kind="stable")
    return {"hash": h[order], "english": (np.arange(len(h)) < len(_EN_WORDS))[order]}


@cache
def _markers() -> tuple[HashSet, np.ndarray]:
    """_derive_markers' (hashes, English or not), derived once per machine into the cache folder
    (importing wordfreq and reading its lists is about half a second a process)."""
    from importlib.metadata import version
    rules = hashlib.blake2b(Path(__file__).read_bytes() + Path(hash_words.__code__.co_filename).read_bytes(),
                            digest_size=8).hexdigest()
    a = cached_arrays("cognate-markers", f"wordfreq {version('wordfreq')}|{rules}", _derive_markers)
    return HashSet.build(a["hash"].astype(np.uint64, copy=False)), a["english"].astype(bool, copy=False)


@dataclass
class CognateIndex:
    """The rewrite index's evidence stems keyed by cognate form, and per unit what a window needs."""

    rewrite: RewriteIndex
    key_stem: dict[str, tuple[int, ...]]  # cognate key -> the rewrite stems it stands for (numeric, numerical)
    number_stem: dict[str, tuple[int, ...]]  # a unit's numbers, as written, -> their stem
    everyday: set[str]         # keys of everyday words (system, energy): they count, never as strong
    weight: np.ndarray         # float32 per rewrite stem: its weight here (0: no evidence)
    rare: np.ndarray           # bool per rewrite stem: a rare word stem (few units hold it)
    unit_total: np.ndarray     # float64 per unit: its keyable weight
    unit_need: np.ndarray      # int32 per unit: distinct stems a window must hold
    unit_words: np.ndarray     # int32 per unit: its words (window length)
    post: dict[int, np.ndarray]  # keyed stem -> the units holding it
    markers: HashSet           # word hashes of the English function words and of those of _LANGS
    marker_en: np.ndarray      # bool, parallel to markers.sorted: an English one
    sample_docs: int = 0       # non-English Latin/Cyrillic documents of the corpus sample read
    # the per-process cache of record words: sorted keys (word hash mixed with written length)
    # and, parallel, the id of their value (_Value) in _values; _value_id interns the values
    _known: np.ndarray = field(default_factory=lambda: np.zeros(0, np.uint64))
    _known_value: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    _values: list[_Value] = field(default_factory=list)
    _value_id: dict[_Value, int] = field(default_factory=dict)

    @classmethod
    def build(cls, rw: RewriteIndex, sample: Sequence[str] | None = None,
              sample_tokens: Tokens | None = None) -> "CognateIndex":
        """Key the evidence stems of `rw` by cognate form; `sample`: corpus documents, whose
        non-English Latin/Cyrillic ones tell which keys are common in this corpus (`sample_tokens`:
        their words when already tokenised)."""
        everyday, attested = lexicon()
        df = np.diff(rw.post_start)
        stems_of: dict[str, list[int]] = defaultdict(list)
        number_stem: dict[str, tuple[int, ...]] = {}
        keyed = np.zeros(len(rw.weight), dtype=bool)
        strong = np.zeros(len(rw.weight), dtype=bool)  # keyed by a key no everyday word has

        def key(s: int, keys: Iterable[str]) -> None:
            for k in keys:
                if k in attested:
                    stems_of[k].append(s)
                    keyed[s] = True
                    strong[s] |= k not in everyday

        live = np.flatnonzero(rw.weight > 0).tolist()
        for s, form in zip(live, cognate_forms([rw.names[s] for s in live])):
            name = rw.names[s]
            if name.isdigit():
                number_stem[name] = (s,)
                keyed[s] = True
                continue
            key(s, _keys_of(form))
        # a stem cut from -ce (produc, plac, choic) keys its word too: c is soft there (producir, place)
        soft = [s for s in live if rw.names[s].endswith("c")]
        for s, ok in zip(soft, _in_vocabulary([rw.names[s] + "e" for s in soft], rw.vectors.keys).tolist()):
            if ok:
                key(s, _keys_of(cognate_form(rw.names[s] + "e")))
        # words the unit tokenizer joined (Mid-Atlantic: midatlantic) with no key of their own: keyed by each part
        for s, parts in _joined_parts({s: rw.names[s] for s in live if not keyed[s]}, rw.vectors.keys).items():
            key(s, {k for part in parts for k in _keys_of(cognate_form(part))})
        key_stem = {k: tuple(v) for k, v in stems_of.items()}
        weight = np.where(keyed, rw.weight, 0).astype(np.float32)
        index = cls(rw, key_stem, number_stem, everyday & key_stem.keys(), weight, np.zeros(len(weight), bool), np.zeros(0), np.zeros(0, np.int32),
                    rw.unit_words, {}, *_markers())
        # keys common among this corpus's European documents say nothing here
        if sample:
            docs = [t or "" for t in sample]
            st = sample_tokens if sample_tokens is not None else tokenize_hashed(docs)
            read = index._readable(docs, st)
            if int(read.sum()) >= _MIN_DOCS:
                index.sample_docs = int(read.sum())
                seen = np.zeros(len(weight), dtype=np.int64)
                for hits in index._hits(docs, st, np.flatnonzero(read)).values():
                    seen[list({s for _, s, _ in hits})] += 1
                weight[seen > _DOC_SHARE * index.sample_docs] = 0
                # the sample's words are not shipped with the index (plain data, cheap to send to workers)
                index._known, index._known_value = index._known[:0], index._known_value[:0]
        units = df <= max(_MIN_DF, _RARE_SHARE * len(rw.unit_total))
        index.rare = (weight > 0) & units & strong
        post_stem = np.repeat(np.arange(len(df)), df)
        live = weight[post_stem] > 0
        index.unit_total = np.bincount(rw.post_unit[live], weights=weight[post_stem[live]], minlength=len(rw.unit_total))
        n_keyable = np.bincount(rw.post_unit[live], minlength=len(rw.unit_total))
        index.unit_need = np.full(len(n_keyable), _MIN_STEMS, dtype=np.int32)
        for s in np.flatnonzero(weight > 0).tolist():
            index.post[s] = rw.post_unit[rw.post_start[s]:rw.post_start[s + 1]]
        return index

    def _readable(self, texts: Sequence[str | None], tokens: Tokens) -> np.ndarray:
        """Per text whether the tier reads it: _MIN_WORDS words, under _EN_SHARE of them English
        function words and _LANG_SHARE function words of _LANGS (array passes over
        the hashes; the script is checked per word later)."""
        counts = tokens.counts
        found, at = self.markers.find(tokens.hashes)
        text_of = np.searchsorted(tokens.bounds, found, side="right") - 1
        en = self.marker_en[at]
        n_en, n_lang = (np.bincount(text_of[m], minlength=len(counts)) for m in (en, ~en))
        return ((counts >= _MIN_WORDS) & (n_en < _EN_SHARE * np.maximum(counts, 1))
                & (n_lang >= _LANG_SHARE * counts))

    def _words(self, raws: Sequence[str]) -> list[_Value]:
        """(the (stem, key length) pairs it is read as, 0; -2 for a word of no Latin or Cyrillic
        letter) of each record word of `raws` (their forms made in one batch: `cognate_forms`)."""
        # (a word of letters alone, most of them, is one run)
        runs = [[raw] if raw.isalpha() else _RUNS.findall(raw) for raw in raws]
        letters = [r for rs in runs for r in rs if not r.isdigit()]
        forms = iter(cognate_forms(letters))
        h_forms = _h_forms_of(letters)
        return [self._word(rs, ["" if r.isdigit() else next(forms) for r in rs], h_forms) if len(rs) != 1 or rs[0].isdigit()
                else self._word_of(rs[0], next(forms), h_forms) for rs in runs]

    def _word_of(self, run: str, form: str, h_forms: dict[str, list[str]]) -> _Value:
        """`_word` of a word of one run of letters (most words: the loop over runs left out)."""
        if not form:
            return (), -2
        return self._keyed(self._run_keys(run, form, h_forms)), 0

    def _run_keys(self, run: str, form: str, h_forms: dict[str, list[str]]) -> list[str]:
        """The keys of a run of letters: its form's (`_keys`), else those of its first form with г
        read as h that has any."""
        keys = self._keys(form)
        if not keys and run in h_forms:
            keys = next((k for k in map(self._keys, h_forms[run]) if k), [])
        return keys

    def _keyed(self, keys: list[str]) -> tuple[tuple[int, int], ...]:
        """The (stem, key length) pairs of a word read as `keys`: a key of everyday words is read as
        one letter long (it counts, never as a strong hit)."""
        return tuple((st, 1 if key in self.everyday else len(key)) for key in keys for st in self.key_stem[key])

    def _word(self, runs: list[str], forms: list[str], h_forms: dict[str, list[str]]) -> _Value:
        """`_words` of one record word: its `runs` of letters or digits, their cognate forms ("" for
        digits) and `_h_forms_of` them. A token may be several words (l'ozone, Internet-Protokoll):
        each is read."""
        if not any(r.isdigit() or f for r, f in zip(runs, forms)):
            return (), -2
        pairs: list[tuple[int, int]] = []
        for r, f in zip(runs, forms):
            if r.isdigit():
                pairs += ((st, 0) for st in self.number_stem.get(r, ()))
            else:  # (the forms with г read as h where the plain one has no key)
                pairs += self._keyed(self._run_keys(r, f, h_forms))
        return tuple(dict.fromkeys(pairs)), 0

    def _keys(self, f: str) -> list[str]:
        """The keys a record word's form `f` is read as: its longest prefix key, and the full keys
        further in of a compound's later parts (Internetprotokoll: intern and protok;
        Sortieralgorithmus: sort and algori), each part once."""
        n = len(f)
        if n < _MIN_LEN:
            return []
        key_stem = self.key_stem
        out: list[str] = []
        i = 3
        for k in (6, 5, 4):  # (plain loops: this runs for every word new to a process)
            if n >= k and f[:k] in key_stem:
                out.append(f[:k])
                i = max(i, k)
                break
        while i < n - _COMPOUND_REST:
            if f[i:i + 6] in key_stem:
                out.append(f[i:i + 6])
                i += 6
            else:
                i += 1
        return out

    def _value_ids(self, texts: Sequence[str], tokens: Tokens, rows: np.ndarray) -> np.ndarray:
        """The value id (into _values) of each token `rows`: looked up in the cache, a word new to
        this process read once (`_words`).

        The cache is keyed by the word's hash and its length as written: "l'ozone" and "lozone"
        are one word to the normaliser but read apart (the elided article), so a cache by hash
        alone gave either one the reading of whichever came first to the process, and a record's
        matches hung on which worker had read which shards. Only words written in letters or
        digits alone are kept (their spellings of one key differ by case, read alike); the
        others are read again in each block that holds them."""
        h = tokens.hashes[rows] ^ ((tokens.ends[rows] - tokens.starts[rows]).astype(np.uint64) * _LENGTH_MIX)
        at = np.minimum(np.searchsorted(self._known, h), max(len(self._known) - 1, 0))
        found = self._known[at] == h if len(self._known) else np.zeros(len(h), bool)
        out = self._known_value[at] if len(self._known) else np.zeros(len(h), dtype=np.int64)
        if not found.all():
            new, first, inverse = np.unique(h[~found], return_index=True, return_inverse=True)
            new_rows = rows[~found][first]
            text_of = np.searchsorted(tokens.bounds, new_rows, side="right") - 1
            raws = [texts[t][a:b] for t, a, b in zip(text_of.tolist(), tokens.starts[new_rows].tolist(),
                                                      tokens.ends[new_rows].tolist())]
            ids = []
            for v in self._words(raws):
                ids.append(self._value_id.setdefault(v, len(self._value_id)))
                if ids[-1] == len(self._values):
                    self._values.append(v)
            new_ids = np.array(ids, dtype=np.int64)
            keep = np.array([raw.isalnum() for raw in raws], dtype=bool)
            if len(self._known) + int(keep.sum()) > _CACHE_WORDS:
                self._known, self._known_value = self._known[:0], self._known_value[:0]
            known = np.concatenate([self._known, new[keep]])
            order = np.argsort(known, kind="stable")
            self._known = known[order]
            self._known_value = np.concatenate([self._known_value, new_ids[keep]])[order]
            out[~found] = new_ids[inverse.reshape(-1)]  # (the new words' rows: no second lookup of every row)
        return out

    def _hits(self, texts: Sequence[str], tokens: Tokens, picked: np.ndarray) -> dict[int, list[tuple[int, int, int]]]:
        """Per text of `picked` holding a keyed word and _SCRIPT_SHARE of words in Latin or Cyrillic
        letters, its (word rank, stem, key length) in rank order (the tokens mapped by array passes)."""
        counts = tokens.counts[picked]
        rows = (np.repeat(tokens.bounds[picked] - np.cumsum(counts) + counts, counts)
                + np.arange(int(counts.sum())))
        if len(rows) == 0:
            return {}
        ids = self._value_ids(texts, tokens, rows)
        kinds = np.array([k for _, k in self._values], dtype=np.int64)
        keyed = np.array([bool(pairs) for pairs, _ in self._values], dtype=bool)
        which = np.repeat(np.arange(len(picked)), counts)
        other = np.bincount(which[kinds[ids] == -2], minlength=len(picked))
        ok = other <= (1 - _SCRIPT_SHARE) * counts
        hit = np.flatnonzero(keyed[ids] & ok[which])
        out: dict[int, list[tuple[int, int, int]]] = defaultdict(list)
        text_of = picked[which[hit]]
        values = self._values
        for t, rank, v in zip(text_of.tolist(), (rows[hit] - tokens.bounds[text_of]).tolist(), ids[hit].tolist()):
            pairs = values[v][0]
            if len(pairs) == 1:  # (most words stand for one stem)
                out[t].append((rank, *pairs[0]))
            else:
                out[t] += [(rank, st, k) for st, k in pairs]
        return out

    @cached_property
    def _post_csr(self) -> tuple[np.ndarray, np.ndarray]:
        """`post` as arrays: per stem where its units start in the second (stems in order)."""
        counts = np.zeros(len(self.weight) + 1, dtype=np.int64)
        for s, units in self.post.items():
            counts[s + 1] = len(units)
        flat = [self.post[s] for s in sorted(self.post)]
        return np.cumsum(counts), np.concatenate(flat).astype(np.int64) if flat else np.zeros(0, dtype=np.int64)

    def _units_held(self, hits_of: dict[int, list[tuple[int, int, int]]]) -> dict[int, list[tuple[int, list[int]]]]:
        """Per text of `hits_of`, the units (in the order its hits first name them) whose stems
        among its hits are `unit_need` distinct ones or more, each with the rows of its hits (in
        order, once per posting): every (text, unit) pair tallied by array passes, the few that
        may hold a window read in Python."""
        if not hits_of:
            return {}
        order = list(hits_of)
        sizes = np.array([len(hits_of[t]) for t in order], dtype=np.int64)
        stems = np.fromiter((s for t in order for _, s, _ in hits_of[t]), dtype=np.int64, count=int(sizes.sum()))
        start, flat = self._post_csr
        lens = start[stems + 1] - start[stems]
        hit = np.repeat(np.arange(len(stems)), lens)  # a row per (hit, unit holding its stem)
        unit = flat[np.repeat(start[stems], lens) + np.arange(int(lens.sum())) - np.repeat(np.cumsum(lens) - lens, lens)]
        n_units, n_stems = len(self.unit_need), len(self.weight)
        pair = np.repeat(np.arange(len(order)), sizes)[hit] * n_units + unit
        pairs, distinct = np.unique(np.unique(pair * n_stems + stems[hit]) // n_stems, return_counts=True)
        rows = np.flatnonzero(np.isin(pair, pairs[distinct >= self.unit_need[pairs % n_units]]))
        rows = rows[np.argsort(pair[rows], kind="stable")]  # by pair, each pair's rows in order
        cut = np.flatnonzero(np.diff(pair[rows], prepend=-1) != 0).tolist() + [len(rows)]
        in_text = (hit - np.repeat(np.cumsum(sizes) - sizes, sizes)[hit])[rows].tolist()
        held: dict[int, list[tuple[int, int, list[int]]]] = defaultdict(list)
        for a, b in zip(cut, cut[1:]):
            text, u = divmod(int(pair[rows[a]]), n_units)
            held[order[text]].append((int(rows[a]), u, in_text[a:b]))
        return {t: [(u, r) for _, u, r in sorted(units)] for t, units in held.items()}

    def matches(self, texts: Sequence[str | None], tokens: Tokens, floor: float
                ) -> Iterable[tuple[int, int, float, list[int], list[int], list[str]]]:
        """(text, unit, coverage, record span, unit stems found, "unit word=record word" pairs) of
        each pair whose best window covers at least `floor` of the unit's keyable weight; only
        non-English texts in Latin or Cyrillic script are read."""
        rw = self.rewrite
        # (plain lists, not numpy scalars, in the loops below; the same values, compared alike)
        hits_of = self._hits([x or "" for x in texts], tokens, np.flatnonzero(self._readable(texts, tokens)))
        weight = self.weight.tolist() if hits_of else []
        held = self._units_held(hits_of)
        for t, hits in hits_of.items():
            text = texts[t] or ""
            if len({s for _, s, _ in hits}) < _MIN_RARE_HIT:
                continue
            for u, rows in held.get(t, ()):
                mine: list[tuple[int, int, int]] = []
                for h in map(hits.__getitem__, rows):
                    # a record word counts once per unit: as its heaviest stem (numeric, numerical)
                    if mine and mine[-1][0] == h[0]:
                        if weight[h[1]] > weight[mine[-1][1]]:
                            mine[-1] = h
                    else:
                        mine.append(h)
                need = int(self.unit_need[u])
                if len({s for _, s, _ in mine}) < need:
                    continue
                span = max(_MIN_WINDOW, int(self.unit_words[u] * _WINDOW))
                best = None
                for i in range(len(mine)):  # windows starting at each hit (hits are in rank order)
                    win = {}
                    for r, s, k in mine[i:]:
                        if r - mine[i][0] >= span:
                            break
                        if s not in win or k > win[s][1]:
                            win[s] = (r, k)
                    if len(win) < need:
                        continue
                    strong = sum(1 for s, (_, k) in win.items() if self.rare[s] and k >= _STRONG_LEN)
                    got = float(self.weight[list(win)].sum())
                    if strong >= _MIN_RARE_HIT and got >= floor * self.unit_total[u] and self.unit_total[u] > 0 \
                            and (best is None or got > best[0]):
                        best = (got, win)
                if best is None:
                    continue
                got, win = best
                lo_t = int(tokens.bounds[t])
                ranks = sorted(r for r, _ in win.values())
                pairs = [f"{rw.names[s]}={_EDGES.sub('', text[int(tokens.starts[lo_t + r]):int(tokens.ends[lo_t + r])])}"
                         for s, (r, _) in sorted(win.items(), key=lambda x: x[1][0])]
                yield (t, u, min(1.0, got / float(self.unit_total[u])),
                       [int(tokens.starts[lo_t + ranks[0]]), int(tokens.ends[lo_t + ranks[-1]])], list(win), pairs)
