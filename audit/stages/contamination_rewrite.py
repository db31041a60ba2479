"""The rewrite tier of the contamination stage (method "rewrite"): an eval item, or one unit of it,
restated in other words and another order (a tutorial that retells a word problem, a model's
rephrasing).

A rewrite keeps what the item is about: its rare words (in some inflection), its numbers and its
names, and loses the word order and the common words that n-grams and alignment need. So:

1. Keys. Each unit's words are reduced to stems by suffix rules (`stem_words`: walks, walked, walking
   -> walk; acceleration, accelerates -> accelerat; the inflection first, so powers and power, or
   addresses and address, meet); every inflected form of a stem the rules
   produce is hashed like a record word (audit.normalize), so a record's already hashed words map
   to stems by one sorted lookup, with no per-word Python. Stems are weighted by rarity among the
   units (inverse document frequency); stems of more than _MAX_DF_SHARE of the units (how, many,
   total) are no evidence. Numbers are stems of their own: a restated problem keeps them; so is
   each Han character (the normaliser's word in Chinese), weighted by rarity like any stem, so a
   Chinese unit reworded in Chinese is compared (contamination_translation's paraphrase reading)
   where before it had no stem at all.
2. Candidates. The record's stems are looked up in the units' postings; per (record, unit) the
   windows of the record (_WINDOW times the unit's words, starting every third of a window) holding
   _MIN_STEMS distinct stems of the unit (fewer for a short question, `stems_needed`) and the measure
   floor of its stem weight; coverage is the stem weight of the unit in the best window over the
   unit's stem weight.
3. Confirmation. The best window's span of hits (first to last; with _PAD words either side, the
   unit's common words around it) is embedded with WordLlama (audit/stages/semantic.py, the model
   inside its wheel) and compared with the unit: a cosine under `rewrite_similarity` drops the
   pair (a news story sharing a question's names and numbers is about something else). When the
   whole span fails, the part of it (_MIN_SPAN of the unit long) holding the most stem weight that
   passes stands for it (a stem of the unit in the host text after a rewording stretches the span
   over the host's words).
4. More than the topic (`Topic`). Text about a question's topic holds its terms as a restatement
   does (a news story on the ozone layer: ozone, ultraviolet, radiation, sun, layer) and passes
   1-3; it lacks the question's form. A unit that asks (a question mark) is matched only by a
   span whose sentences, or one either side, ask (a question mark, a question word or a request
   opening one: which, find, name...) or that holds two of the unit's numbers; a list unit (the
   choices; any unit of several lines and no question mark) only by words of two of its lines,
   each that line's own, with a word of the rest of its item (its question) near. On 11,421 clean
   documents: 21 false documents -> 1 (bench/eval_heldout_rewrites.py --clean 14000
   --clean-synthetic 300). Not reached: a question restated as a statement of its answer (an MRI
   "relies on powerful magnets and radio waves"), which reads as text about the topic does.

Compounds (`Bridges`): a unit word written with a hyphen (beta-blocker) is one joined word to the
normaliser, as a record's beta-blocker or betablocker is; a record that writes it apart (beta
blockers) is read, by the chained hashes of its words, as that word's stem, and so is one that writes
apart a unit word written joined (left over for leftover: each split into two words of the
embedding's vocabulary). A record word that is two adjacent unit words joined or hyphenated
(next-best for next best) counts as both their stems.

The embedding runs only on the few candidate windows, so the tier costs the stem lookup (a few
array passes per block) and a handful of window embeddings per contaminated record.
"""
from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from scipy.sparse import coo_matrix

from audit.cache import cached_arrays
from audit.normalize import HashSet, Tokens, hash_words, distinct, mix64, normalize_array, tokenize_hashed
from audit.stages.semantic import WordVectors

# A Han character (CJK unified and compatibility ideographs): a stem of its own.
_HAN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
# Suffixes the stemmer strips (longest first) and the forms it generates from a stem.
_SUFFIXES = ("ions", "ion", "ity", "ings", "ing", "edly", "ed", "ies", "es", "s", "ly", "ers", "er", "est", "e")
_FORMS = ("", "s", "es", "ed", "d", "ing", "e", "er", "ers", "ly", "est", "ies", "ied", "y", "ion", "ions", "ity")
# Noun suffixes stripped only when this many letters remain (acceleration, immunity; not station, city).
_NOUN_SUFFIXES = frozenset({"ions", "ion", "ity"})
_NOUN_STEM = 5
# ... and comparative/agent endings when 4 remain (teacher, larger; not meter, power, forest).
_MIN_LEFT = {**{s: _NOUN_STEM for s in _NOUN_SUFFIXES}, "er": 4, "ers": 4, "est": 4}
# Inflections `stem_words` strips first (the plural, the past, the participle), and the endings
# `_forms` adds to a stem's forms for them.
_INFLECTIONS = ("ies", "ied", "es", "s", "ed", "ing")
_INFLECTED = ("s", "es", "d", "ed", "ing")
# ... after these suffixes of a stem (powers, stations, buildings, changed, exceeded, requested).
_BEFORE_INFLECTION = ("er", "ion", "ing", "e", "ed", "est")
_INFLECTIONS_BY_LAST = {c: tuple((s, len(s)) for s in _INFLECTIONS if s[-1] == c)
                        for c in {s[-1] for s in _INFLECTIONS}}
# ... not after these letters (address, bonus, basis: not plurals);
_NOT_PLURAL = frozenset("sui")
# ... then one suffix of the rest (an "s" again would eat the stem: address -> addres -> addr).
_DERIVED_BY_LAST = {c: tuple((s, len(s)) for s in _SUFFIXES if s[-1] == c and s not in ("ies", "es", "s"))
                    for c in {s[-1] for s in _SUFFIXES}}
_SUFFIXES_BY_LAST = {c: tuple((s, len(s)) for s in _SUFFIXES if s[-1] == c) for c in {s[-1] for s in _SUFFIXES}}
# This module's stemming rules and the word hash (normalize.py), in the cache key of the form hashes.
_RULES = hashlib.blake2b(Path(__file__).read_bytes() + Path(hash_words.__code__.co_filename).read_bytes(),
                         digest_size=8).hexdigest()
# Function words and the commonest verbs: no evidence whatever the eval set (a small set of
# items has no document frequency to tell them).
STOP_WORDS = frozenset("""
a about above after again against all also am an and any are as at be because been before being below
between both but by can could did do does doing down during each few for from further had has have
having he her here hers herself him himself his how i if in into is it its itself just me more most my
myself no nor not now of off on once only or other our ours out over own same she should so some such
than that the their theirs them then there these they this those through to too under until up very
was we were what when where which while who whom why will with would you your yours yourself get got
make made take took go went one two three first many much how total each every per""".split())
# A stem held by more than this share of the units (and _MIN_DF of them) is common, not evidence.
_MAX_DF_SHARE = 0.03
_MIN_DF = 3
# The prefilter: a (record, unit) pair is looked at when one window of the record holds this many
# distinct stems of the unit held by at most _RARE_SHARE of the units (a rare stem's postings are short).
_MIN_RARE = 2
_RARE_SHARE = 0.01
# ... and in at most this share of the corpus sample's documents (when the job has one). Not
# lower: a short question's terms (algorithm, demand, protocol) are in 1-3% of web text, and
# without them its few rare stems rarely make _MIN_RARE. A stem in more than _CORPUS_SOME of
# them is a key only when at most _RARE_SOME of the units hold it (its postings, read for many
# records, stay short: the tier's cost).
_CORPUS_SHARE = 0.03
_CORPUS_SOME = 0.01
_RARE_SOME = 0.0025
# A pair needs this many distinct stems of the unit in one window (or 60% of a unit's stems when it
# has fewer than that, at least _MIN_RARE + 1; a short question of 7 or 8 stems, half of them, at
# least _MIN_RARE + 2: a restated one keeps its few terms, not its wording) ...
_MIN_STEMS = 5
# ... in windows of this many times the unit's words (at least _MIN_WINDOW words), starting every
# _BLOCKS-th of a window.
_WINDOW = 2.0
_MIN_WINDOW = 24
_BLOCKS = 3
# A span confirmed by its embedding holds at least this share of its unit's words (a restatement
# is not much shorter than what it restates; a sentence naming three of its terms is).
_MIN_SPAN = 1 / 3
# ... and is embedded also with this many words either side.
_PAD = 2
# Compounds (`Bridges`): a unit word written with a hyphen or slash between letters or digits
# (beta-blocker, e-mail, peer-to-peer: normalised joined) of at most _MAX_PARTS parts, and two
# adjacent unit words of at least _MIN_PART letters (next best, blood stream) joined, the last
# part also with these endings of its stem (beta-blockers).
_CONNECTOR = re.compile(r"(?<=\w)[-\u2010\u2011\u2013/](?=\w)")
_LINKED = r"\w[-\x{2010}\x{2011}\x{2013}/]\w"  # a word holding one (RE2: no lookbehind)
_MAX_PARTS = 3
_MIN_PART = 3
_JOINED_ENDINGS = ("", "s", "es", "d", "ed", "ing", "er", "ers")
# A unit that asks (a question mark in it) is matched by a span whose sentences ask too: a question
# in other words is still a question (or a request: find, name...), while text about the question's
# topic states facts in the same terms. Sentences end at these marks (a line break too).
_QUESTION = re.compile(r"[?\uff1f]")
_SENTENCE_END = re.compile(r"[!?\n\u3002\uff01\uff1f]|\.(?!\w)")  # (not the point of 1.20)
_ASKING = re.compile(r"(?:^|[.!?:;\n])\s*(?:which|what|how many|how much|find|name|identify|determine|"
                     r"calculate|compute|choose|select)\b", re.IGNORECASE)
# ... looked for in the span's sentences and _SENTENCES_AROUND either side (each at most
# _SENTENCE_CHARS characters); or the span holds _NUMBERS of the unit's numbers.
_SENTENCES_AROUND = 1
_SENTENCE_CHARS = 300
_NUMBERS = 2
# A list unit (see Topic) is matched by stems of this many of its lines.
_LIST_LINES = 2
_KEY_MUL = np.uint64(0x9E3779B97F4A7C15)


def asks(text: str, start: int, end: int) -> bool:
    """Whether the sentences of `text` holding characters `start` to `end`, or the sentence either
    side of them, ask (a restatement may put its question after the facts, or first): a question
    mark in them, or one opening with a question word or a request (find, name, choose...)."""
    lo, hi = start, end
    for _ in range(_SENTENCES_AROUND + 1):
        # back over the previous sentence's end marks and spaces ("left?. He"), then to its start
        while lo > 0 and (text[lo - 1].isspace() or _SENTENCE_END.match(text, lo - 1)):
            lo -= 1
        ends = [m.end() for m in _SENTENCE_END.finditer(text, max(0, lo - _SENTENCE_CHARS), lo)]
        lo = ends[-1] if ends else max(0, lo - _SENTENCE_CHARS)
        while hi < len(text) and (text[hi].isspace() or _SENTENCE_END.match(text, hi)):
            hi += 1
        after = _SENTENCE_END.search(text, hi, min(len(text), hi + _SENTENCE_CHARS))
        hi = after.end() if after else min(len(text), hi + _SENTENCE_CHARS)
    part = text[lo:hi]
    return bool(_QUESTION.search(part) or _ASKING.search(part))


def stems_needed(n: int) -> int:
    """Distinct stems a window must hold of a unit of `n` evidence stems (see _MIN_STEMS)."""
    return min(_MIN_STEMS, max(_MIN_RARE + 1, -(-n * 6 // 10)), max(_MIN_RARE + 2, -(-n // 2)))


def stem_words(words: Sequence[str]) -> list[str]:
    """A crude English stem of each word: its inflection (_INFLECTIONS) stripped, then the first
    listed suffix of the rest (_SUFFIXES), each when at least 3 letters remain (a final doubled consonant
    undone: running -> run); digits and short words as they are. Two steps, so every inflection
    of a word meets at one stem (teachers -> teacher -> teach, as teacher; addresses -> address, as
    address). One loop over the words, no call per word: it runs over every form of every item
    word."""
    out = []
    for word in words:
        stem = word
        if len(word) > 3 and word.isalpha():
            for table in (_INFLECTIONS_BY_LAST, _DERIVED_BY_LAST):
                n = len(stem)
                for suf, k in table.get(stem[-1], ()):  # the listed order, among those that can end it
                    if (n - k >= _MIN_LEFT.get(suf, 3) and stem.endswith(suf)
                            and not (suf == "s" and stem[-2] in _NOT_PLURAL)):
                        stem = stem[:-k]
                        if suf in ("ies", "ied"):
                            stem += "y"
                        # a doubled consonant before a suffix, not the word's own (kilowatts: kilowatt)
                        if (suf not in ("s", "es") and len(stem) > 3 and stem[-1] == stem[-2]
                                and stem[-1] not in "aeiouls"):
                            stem = stem[:-1]
                        break
        out.append(stem)
    return out


def _forms(stems: Sequence[str]) -> list[list[str]]:
    """Per stem, the words that `stem_words` maps to it, as far as the listed suffixes go: the stem
    with a suffix, and that with an inflection (teach: teacher, teachers)."""
    cands = []
    for stem in stems:
        if not stem.isalpha():
            cands.append([stem])
            continue
        out = [stem + f for f in _FORMS]
        if stem.endswith("y"):
            out += [stem[:-1] + "ies", stem[:-1] + "ied"]
        if len(stem) >= 3 and stem[-1] not in "aeiouwxy":
            out += [stem + stem[-1] + f for f in ("e", "es", "ing", "ed", "er", "ers", "est")]
        bases = [stem + b for b in _BEFORE_INFLECTION]
        if len(stem) >= 3 and stem[-1] not in "aeiouwxy":
            bases += [stem + stem[-1] + b for b in ("er", "ing")]
        out += [w + g for w in bases for g in _INFLECTED]
        out += [stem + "err" + g for g in ("ing", "ed")]  # transferring, referred
        out += [stem + b[:-1] + g for b in ("ly", "ity") for g in ("ies", "ied")]  # applies, activities
        out += [stem + b + "ing" for b in ("ly", "ity")]
        cands.append(list(dict.fromkeys(out)))
    back = iter(stem_words([w for stem, c in zip(stems, cands) if stem.isalpha() for w in c]))
    return [c if not stem.isalpha() else [w for w in c if next(back) == stem] for stem, c in zip(stems, cands)]


def form_hashes(stems: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
    """(word hashes of every form of `stems`, stem after stem; how many forms each stem has): the
    forms of `_forms`, kept in the cache folder under the stems and this module's rules (stemming
    every candidate form of an eval set's stems is about a second a process, each run)."""
    def derive() -> dict[str, np.ndarray]:
        forms = _forms(stems)
        return {"hash": hash_words([w for mine in forms for w in mine]),
                "count": np.array([len(mine) for mine in forms], dtype=np.int64)}

    digest = hashlib.blake2b("\x00".join(stems).encode(), digest_size=16).hexdigest()
    a = cached_arrays("rewrite-forms", f"{digest}|{len(stems)}|{_RULES}", derive)
    if len(a["count"]) != len(stems) or int(a["count"].sum()) != len(a["hash"]):
        a = derive()  # a copy of other stems under the same name: derived again
    return a["hash"].astype(np.uint64, copy=False), a["count"]


def _chain(parts: Sequence[np.ndarray]) -> np.ndarray:
    """One key per position of word hashes in order (a compound's parts written apart): equal for
    equal word sequences."""
    acc = parts[0].astype(np.uint64, copy=True)
    for h in parts[1:]:
        acc = acc * _KEY_MUL + h
    return mix64(acc ^ np.uint64(len(parts)))


@dataclass
class Bridges:
    """A compound a record writes otherwise than the unit, read as the unit's stems: the parts
    apart (beta blockers) of a unit word written with a hyphen (beta-blockers, normalised joined:
    the hyphenated and joined forms meet already), found by their chained hashes, as that word's
    stem; and one record word (next-best, nextbest) that is two adjacent unit words joined (next
    best), found by its hash, as their two stems."""

    first: HashSet            # the first parts of the split compounds
    split: HashSet            # chained hashes of their parts (every form of the last part)
    split_stem: np.ndarray    # int32, parallel to split.sorted: the compound's stem
    joined: HashSet           # hashes of two adjacent unit words joined (endings of the second)
    joined_stems: np.ndarray  # int32 (n, 2), parallel to joined.sorted: their stems

    @classmethod
    def build(cls, raw: Sequence[str], vocab: Sequence[str], word: np.ndarray, word_stem: np.ndarray,
              names: Sequence[str], evidence: np.ndarray, live: np.ndarray, text_of: np.ndarray,
              known: np.ndarray) -> "Bridges":
        """From the unit words: `raw` as written, `word` (index into `vocab`, normalised) and
        `word_stem` per word, `text_of` its unit, `live` whether that unit is indexed; `evidence`
        per stem (not common); `known`: the hashes of the words a joined one may be split into
        (the embedding's vocabulary)."""
        # Split: a hyphenated word of an evidence stem, its parts normalised
        linked = pc.match_substring_regex(pa.array(raw, pa.string()), _LINKED).to_numpy(zero_copy_only=False)
        at = np.flatnonzero(linked & live & evidence[word_stem])
        pieces = [_CONNECTOR.split(raw[j]) for j in at.tolist()]
        flat = normalize_array(pa.array([p for ps in pieces for p in ps], pa.string())).to_pylist()
        compounds: dict[tuple[str, ...], int] = {}
        k = 0
        for j, ps in zip(at.tolist(), pieces):
            parts = tuple(flat[k:k + len(ps)])
            k += len(ps)
            # (a word among them: 3/4, 1990-2000 and a calculation are no compound)
            if 2 <= len(parts) <= _MAX_PARTS and all(parts) and any(p.isalpha() for p in parts):
                compounds.setdefault(parts, int(word_stem[j]))
        # ... and a word written joined (leftover, bloodstream) at each split into two known words,
        # neither a function word, of _MIN_PART letters or more
        mine = live & evidence[word_stem]
        uw, at = np.unique(word[mine], return_index=True)
        joined_words = [(vocab[w], int(t)) for w, t in zip(uw.tolist(), word_stem[mine][at].tolist())
                        if vocab[w].isalpha() and len(vocab[w]) >= 2 * _MIN_PART]
        cuts = [(w, i, t) for w, t in joined_words for i in range(_MIN_PART, len(w) - _MIN_PART + 1)
                if w[:i] not in STOP_WORDS and w[i:] not in STOP_WORDS]
        def is_known(words: list[str]) -> np.ndarray:
            h = hash_words(words)
            return known[np.minimum(np.searchsorted(known, h), max(len(known) - 1, 0))] == h if len(known) else h < 0
        whole = is_known([w[:i] for w, i, _ in cuts]) & is_known([w[i:] for w, i, _ in cuts])
        for (w, i, t), ok in zip(cuts, whole.tolist()):
            if ok:
                compounds.setdefault((w[:i], w[i:]), t)
        split = list(compounds)
        n_parts = np.array([len(parts) for parts in split], dtype=np.int64)
        # each compound's last part: as written, and its stem with the endings of _JOINED_ENDINGS
        lasts = [parts[-1] for parts in split]
        end_h = hash_words(lasts + [st + e for e in _JOINED_ENDINGS for st in stem_words(lasts)])
        owner = np.tile(np.arange(len(split)), 1 + len(_JOINED_ENDINGS))
        heads = [hash_words([parts[i] if i < len(parts) - 1 else "" for parts in split]) for i in range(_MAX_PARTS - 1)]
        compound_stem = np.array(list(compounds.values()), dtype=np.int32)
        keys, stems = [], []
        for n in range(2, _MAX_PARTS + 1):
            mine = n_parts[owner] == n
            keys.append(_chain([h[owner[mine]] for h in heads[:n - 1]] + [end_h[mine]]))
            stems.append(compound_stem[owner[mine]])
        # Joined: two adjacent words of one unit, neither a function word nor short, one of them
        # evidence, each pair once
        j = np.flatnonzero(live[:-1] & (text_of[:-1] == text_of[1:]))
        long = np.array([len(v) >= _MIN_PART and v not in STOP_WORDS for v in vocab], dtype=bool)
        stem_a, stem_b = word_stem[j], word_stem[j + 1]
        j = j[long[word[j]] & long[word[j + 1]] & (evidence[stem_a] | evidence[stem_b])]
        j = j[np.unique(word[j].astype(np.int64) * len(vocab) + word[j + 1], return_index=True)[1]]
        a_words = [vocab[a] for a in word[j].tolist()]
        b_stems = [names[t] for t in word_stem[j + 1].tolist()]
        texts = [a + vocab[b] for a, b in zip(a_words, word[j + 1].tolist())]
        for e in _JOINED_ENDINGS:
            texts += [a + b + e for a, b in zip(a_words, b_stems)]
        pair_stems = np.tile(np.stack([word_stem[j], word_stem[j + 1]], axis=1), (1 + len(_JOINED_ENDINGS), 1))
        jh = hash_words(texts)
        order = np.unique(jh, return_index=True)[1]  # sorted, each joined word once (its first pair)
        key, kst = np.concatenate(keys), np.concatenate(stems)
        k_order = np.argsort(key, kind="stable")
        return cls(HashSet.build(heads[0]), HashSet.build(key[k_order]), kst[k_order], HashSet.build(jh[order]),
                   pair_stems.astype(np.int32)[order])

    def hits(self, tokens: Tokens, at: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
        """(word, stem) of the compounds among the words `at` (None: all) of `tokens` (a split one
        at its first word; a joined one twice, once per stem)."""
        h = tokens.hashes
        words, stems = [], []
        if at is None:
            first = np.flatnonzero(self.first.contains(h))
            found, pos = self.joined.find(h)
        else:
            first = at[self.first.contains(h[at])]
            found, pos = self.joined.find(h[at])
            found = at[found]
        if len(first):
            end = tokens.bounds[np.searchsorted(tokens.bounds, first, side="right")]  # each one's text's end
            for n in range(2, _MAX_PARTS + 1):
                ok = first[first + n <= end]
                hit, pos_n = self.split.find(_chain([h[ok + k] for k in range(n)]))
                words.append(ok[hit])
                stems.append(self.split_stem[pos_n])
        words += [found, found]
        stems += [self.joined_stems[pos, 0], self.joined_stems[pos, 1]]
        return np.concatenate(words).astype(np.int64), np.concatenate(stems).astype(np.int64)


@dataclass
class Topic:
    """What a rewrite match must hold beyond its unit's topic words. Text about a question's topic
    names its terms as a restatement does (a news story on ozone: ozone, ultraviolet, radiation,
    sun, layer); it lacks the question's form and particulars. So a unit that asks (a question
    mark, or one line with a request: find, name, select...) is matched by a span among sentences
    that ask (`asks`) or holding _NUMBERS of its numbers (a restated problem keeps them); a list (several lines, no question mark: the choices
    of a multiple-choice item, a worked answer's steps) by stems of _LIST_LINES of its lines, each
    a stem of that line alone (one choice named, GNU General Public License, is that thing, not the list; License, in each
    choice, names none), with a stem of the rest of its item (its question) near the span (three
    gases in a story on air pollution are a list of gases, not the item's choices)."""

    asks: np.ndarray        # bool, per unit: it holds a question mark, or is one line with a request
    listed: np.ndarray      # bool, per unit: a list (several lines, no question mark)
    word_line: np.ndarray   # int32, per unit word (as RewriteIndex.word_stem): its line in its unit
    own_line: np.ndarray    # bool, per unit word: its stem is in no other line of its unit
    num_start: np.ndarray   # int64, unit u's numbers' word hashes: num_hash[num_start[u]:num_start[u + 1]]
    num_hash: np.ndarray    # uint64
    rest_start: np.ndarray  # int64, a list unit u's item's other evidence stems: rest_stem[rest_start[u]:...]
    rest_stem: np.ndarray   # int64

    @classmethod
    def build(cls, texts: Sequence[str], tokens: Tokens, indexed: np.ndarray, word_stem: np.ndarray,
              evidence: np.ndarray, number: np.ndarray, item_of: np.ndarray | None) -> "Topic":
        """From the units `texts` (`tokens`: their words, `word_stem` and `number` per word),
        `indexed` per unit, `evidence` per stem and `item_of` per unit (None: each its own item)."""
        n = len(texts)
        # (one line opening a request asks too: "Find the number of edges in a complete graph")
        asks_ = np.array([bool(_QUESTION.search(t) or "\n" not in t.strip() and _ASKING.search(t)) for t in texts],
                         dtype=bool)
        word_line = np.zeros(len(tokens.hashes), dtype=np.int32)
        own = np.ones(len(tokens.hashes), dtype=bool)
        listed = np.zeros(n, dtype=bool)
        for u in np.flatnonzero(indexed & ~asks_).tolist():
            lo, hi = int(tokens.bounds[u]), int(tokens.bounds[u + 1])
            breaks = np.flatnonzero(np.frombuffer(texts[u].encode("utf-32-le"), dtype=np.uint32) == 10)
            line = np.searchsorted(breaks, tokens.starts[lo:hi])
            if hi == lo or line[-1] == line[0]:
                continue
            listed[u] = True
            word_line[lo:hi] = line
            # a stem in several lines of the list (License in each licence's name) is no line's own
            pairs = np.unique(word_stem[lo:hi].astype(np.int64) * (int(line[-1]) + 1) + line)
            stems_, count = np.unique(pairs // (int(line[-1]) + 1), return_counts=True)
            own[lo:hi] = count[np.searchsorted(stems_, word_stem[lo:hi])] == 1
        nums = [np.unique(tokens.hashes[int(tokens.bounds[u]):int(tokens.bounds[u + 1])][
            number[int(tokens.bounds[u]):int(tokens.bounds[u + 1])]]) for u in range(n)]
        # the rest of a list's item: the evidence stems of its item's units that the list lacks
        item = np.arange(n) if item_of is None else np.asarray(item_of)
        of_item: dict[int, set[int]] = {}
        for u in np.flatnonzero(indexed).tolist():
            mine = word_stem[int(tokens.bounds[u]):int(tokens.bounds[u + 1])]
            of_item.setdefault(int(item[u]), set()).update(mine[evidence[mine]].tolist())
        rest = [sorted(of_item[int(item[u])] - set(word_stem[int(tokens.bounds[u]):int(tokens.bounds[u + 1])].tolist()))
                if listed[u] else [] for u in range(n)]
        def starts(parts: list) -> np.ndarray:
            return np.concatenate([[0], np.cumsum([len(p) for p in parts], dtype=np.int64)]).astype(np.int64)
        return cls(asks_, listed, word_line, own, starts(nums),
                   np.concatenate(nums or [np.zeros(0, np.uint64)]).astype(np.uint64), starts(rest),
                   np.array([s for r in rest for s in r], dtype=np.int64))

    def settles(self, u: int, stems: Sequence[int], text: str, tokens: Tokens, a_w: int, b_w: int,
                rw: "RewriteIndex") -> bool:
        """Whether the match of unit `u` of `rw` by `stems` in words `a_w` to `b_w` of `tokens`
        (of the record `text`) holds more than the unit's topic (see Topic)."""
        lo, hi = int(rw.unit_bounds[u]), int(rw.unit_bounds[u + 1])
        if self.listed[u]:
            held = np.isin(rw.word_stem[lo:hi], np.asarray(stems, dtype=np.int64)) & self.own_line[lo:hi]
            if len(np.unique(self.word_line[lo:hi][held])) < _LIST_LINES:
                return False
            rest = self.rest_stem[self.rest_start[u]:self.rest_start[u + 1]]
            if len(rest):  # (a list that is its whole item has no rest)
                t = int(tokens.text_of[a_w])
                reach = max(_MIN_WINDOW, 2 * (b_w - a_w))
                w0, w1 = max(int(tokens.bounds[t]), a_w - reach), min(int(tokens.bounds[t + 1]), b_w + reach)
                _, at = rw.forms.find(tokens.hashes[w0:w1])
                near = rw.form_stem[at]
                if rw.bridges is not None:  # (and its compounds written otherwise: next-best)
                    near = np.concatenate([near, rw.bridges.hits(tokens, np.arange(w0, w1))[1]])
                if not np.isin(rest, near).any():
                    return False
        if self.asks[u] and not asks(text, int(tokens.starts[a_w]), int(tokens.ends[b_w - 1])):
            mine = self.num_hash[self.num_start[u]:self.num_start[u + 1]]
            return int(np.isin(mine, tokens.hashes[a_w:b_w]).sum()) >= _NUMBERS
        return True


@dataclass
class RewriteIndex:
    """Per unit its rare stems with weights; word-form hashes -> stem; postings stem -> units."""

    forms: HashSet          # hashes of every form of every stem (sorted)
    form_stem: np.ndarray   # int32, parallel to forms.sorted: its stem
    weight: np.ndarray      # float32, per stem (0: common, not evidence)
    post_start: np.ndarray  # int64, postings of stem s: post_unit[post_start[s]:post_start[s+1]]
    post_unit: np.ndarray   # int32
    unit_total: np.ndarray  # float64, per unit: its distinct rare stems' weight
    unit_words: np.ndarray  # int32, per unit: its words
    unit_vec: np.ndarray    # float32, per unit: unit-length embedding
    vectors: WordVectors
    names: list[str]        # per stem, its text (evidence)
    word_stem: np.ndarray   # int32, per unit word (units after units), its stem
    unit_bounds: np.ndarray  # int64, unit u's words are word_stem[unit_bounds[u]:unit_bounds[u+1]]
    unit_stem_keys: np.ndarray  # int64, sorted: unit * (stems + 1) + stem of every posting
    unit_need: np.ndarray    # int32, per unit: distinct stems a window must hold (see _MIN_STEMS)
    rare_forms: HashSet      # the forms of the rare stems: held by few units (the prefilter's short postings)
    rare_form_stem: np.ndarray  # int32, parallel to rare_forms.sorted: its stem
    bridges: Bridges | None = None  # the units' compounds, read in a record's other spelling of them
    topic: "Topic | None" = None  # what a match must hold beyond the unit's topic words (see settles)

    @classmethod
    def build(cls, texts: Sequence[str], tokens: Tokens, indexed: np.ndarray, vectors: WordVectors,
              sample: Sequence[str] | None = None, sample_tokens: Tokens | None = None,
              item_of: np.ndarray | None = None) -> "RewriteIndex":
        """Index the units `indexed` (bool per unit) of `texts` (`tokens`: their words, all of them
        in `vectors`, see WordVectors.add_words); the caller leaves code out (its words are syntax
        and names: the code tiers' evidence).
        `sample`: corpus documents; a stem in more than _CORPUS_SHARE of them is no prefilter key
        (its postings would be read for most records of this corpus; `sample_tokens`: their words
        when already tokenised). `item_of`: per unit, its item (units of one item share it; None:
        each unit its own item)."""
        text_of = tokens.text_of
        raw = [texts[int(t)][int(a):int(b)] for t, a, b in zip(text_of.tolist(), tokens.starts.tolist(),
                                                               tokens.ends.tolist())]
        # the distinct normalised words in order of first use, and each token's
        words = pc.dictionary_encode(pc.fill_null(normalize_array(pa.array(raw, pa.string())), ""))
        inverse = words.indices.to_numpy(zero_copy_only=False).astype(np.int64)
        stems: dict[str, int] = {}
        word_stem = np.array([stems.setdefault(st, len(stems)) for st in stem_words(words.dictionary.to_pylist())] or [0],
                             dtype=np.int32)[inverse]
        names = list(stems)
        # no evidence: function words, one- and two-letter words that are not numbers, nor a Han
        # character (a word of the normaliser's own, with meaning: rarity weights its evidence)
        stop = np.array([n in STOP_WORDS or (len(n) <= 2 and not n.isdigit() and not _HAN.fullmatch(n))
                         for n in names], dtype=bool)
        unit_stems = [set(word_stem[int(tokens.bounds[u]):int(tokens.bounds[u + 1])].tolist()) if indexed[u] else set()
                      for u in range(len(texts))]
        n_units = int(indexed.sum())
        df = np.zeros(len(stems), dtype=np.int64)
        for mine in unit_stems:
            df[list(mine)] += 1
        common = (df > max(_MIN_DF, _MAX_DF_SHARE * n_units)) | stop
        weight = np.where(common, 0.0, np.log((n_units + 1) / (df + 1))).astype(np.float32)
        evidence = np.flatnonzero(~common)
        hashes, per_stem = form_hashes([names[s] for s in evidence.tolist()])
        order = np.argsort(hashes, kind="stable")
        forms_set = HashSet.build(hashes[order])
        form_stem_of = np.repeat(evidence.astype(np.int32), per_stem)[order]
        corpus_common = corpus_some = np.zeros(len(stems), dtype=bool)
        if sample:
            st = sample_tokens if sample_tokens is not None else tokenize_hashed(list(sample))
            found, at = forms_set.find(st.hashes)
            doc_stem = distinct(st.text_of[found] * len(stems) + form_stem_of[at])
            docs = np.bincount(doc_stem % len(stems), minlength=len(stems))
            corpus_common = docs > max(_MIN_DF, _CORPUS_SHARE * len(sample))
            corpus_some = docs > max(_MIN_DF, _CORPUS_SOME * len(sample))
        # a stem of some corpus use keys the prefilter only when few units hold it (a short postings list)
        rare = ((df <= max(_MIN_DF, _RARE_SHARE * n_units)) & ~common & ~corpus_common
                & (~corpus_some | (df <= max(_MIN_DF, _RARE_SOME * n_units))))
        # a form (by hash) is rare when the stem a lookup finds for it (its first entry) is
        rare_form = rare[form_stem_of[np.searchsorted(forms_set.sorted, forms_set.sorted)]]
        pairs = sorted((s, u) for u, mine in enumerate(unit_stems) for s in mine if not common[s])
        post_of = np.array([s for s, _ in pairs], dtype=np.int64)
        post_start = np.searchsorted(post_of, np.arange(len(stems) + 1))
        total = np.array([float(weight[list(m)].sum()) if m else 0.0 for m in unit_stems])
        # per unit the sum of its words' vectors: a sparse (units x vocabulary) count matrix times
        # the vectors, never a (words x dim) array
        counts = coo_matrix((np.ones(len(tokens.hashes), np.float32), (tokens.text_of, vectors.rows(tokens.hashes))),
                            shape=(len(texts), len(vectors.vecs))).tocsr()
        sums = np.asarray(counts @ vectors.vecs, dtype=np.float32)
        unit_vec = sums / np.maximum(np.linalg.norm(sums, axis=1, keepdims=True), 1e-9)
        vocab = words.dictionary.to_pylist()
        bridges = Bridges.build(raw, vocab, inverse, word_stem, names, ~common,
                                np.repeat(indexed.astype(bool), tokens.counts), text_of, vectors.keys)
        topic = Topic.build(texts, tokens, indexed, word_stem, ~common, number=np.array(
            [v.isdigit() for v in vocab], dtype=bool)[inverse], item_of=item_of)
        return cls(forms_set, form_stem_of, weight, post_start,
                   np.array([u for _, u in pairs], dtype=np.int32), total, tokens.counts.astype(np.int32),
                   unit_vec.astype(np.float32), vectors, names, word_stem, tokens.bounds.copy(),
                   np.sort(np.array([u * (len(stems) + 1) + s for s, u in pairs], dtype=np.int64)),
                   np.array([stems_needed(len([s for s in m if not common[s]])) for m in unit_stems], dtype=np.int32),
                   HashSet.build(forms_set.sorted[rare_form]), form_stem_of[rare_form], bridges, topic)

    def postings(self, words: np.ndarray, stems: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(word, stem, unit) for every posting of each word's stem."""
        lo, hi = self.post_start[stems], self.post_start[stems + 1]
        count = hi - lo
        total = int(count.sum())
        unit = self.post_unit[np.repeat(lo, count) + np.arange(total) - np.repeat(np.cumsum(count) - count, count)]
        return np.repeat(words, count), np.repeat(stems, count), unit.astype(np.int64)

    def stem_cover(self, texts: Sequence[str]) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """(text, unit, distinct stems, share of the unit's stem weight) of each unit holding a
        stem of one of the short `texts` (a sentence or two each: the whole text is the window)."""
        tokens = tokenize_hashed(list(texts))
        hit, at = self.forms.find(tokens.hashes)
        stem = self.form_stem[at].astype(np.int64)
        if self.bridges is not None:  # compounds written otherwise count, as in `matches`
            b_word, b_stem = self.bridges.hits(tokens)
            hit, stem = np.concatenate([hit, b_word]), np.concatenate([stem, b_stem])
        word, stem, unit = self.postings(hit, stem)
        n_units, n_stems = len(self.unit_total), len(self.weight) + 1
        key = distinct((tokens.text_of[word] * n_units + unit) * n_stems + stem)
        pairs, first, count = np.unique(key // n_stems, return_index=True, return_counts=True)
        got = np.add.reduceat(self.weight[key % n_stems], first) if len(first) else np.zeros(0)
        text, unit = np.divmod(pairs, n_units)
        return text, unit, count, got / np.maximum(self.unit_total[unit], 1e-9)

    def _step(self, unit: np.ndarray) -> np.ndarray:
        """Per unit, the words of a block: a window (_WINDOW times its words, at least _MIN_WINDOW)
        over _BLOCKS."""
        return np.maximum(_MIN_WINDOW // _BLOCKS, (self.unit_words[unit] * _WINDOW / _BLOCKS).astype(np.int64))

    def _windows(self, word: np.ndarray, text: np.ndarray, pair: np.ndarray, unit: np.ndarray, tokens: Tokens
                 ) -> np.ndarray:
        """(pair << 20) + first block of each window holding each hit (a hit's `word`, `text`, `pair`
        and `unit`), _BLOCKS per hit in np.tile order: a unit's record words fall in blocks of a
        window over _BLOCKS, a window is _BLOCKS consecutive blocks, so a hit counts in the windows
        starting at its block and the _BLOCKS - 1 before. Windows overlapping by all but a block hold
        whole any rewrite up to (_BLOCKS - 1) / _BLOCKS of a window long (a model's rewording is
        longer than the item)."""
        block = (word - tokens.bounds[text]) // self._step(unit)
        starts = np.concatenate([np.maximum(block - k, 0) for k in range(_BLOCKS)])
        return np.tile(pair, _BLOCKS) * (1 << 20) + starts

    def matches(self, tokens: Tokens, floor: float, similarity: float, texts: Sequence[str | None]
                ) -> Iterable[tuple[int, int, float, int, int, float, list[int]]]:
        """(text, unit, coverage, first word, end word, cosine, unit stems found) of each pair whose
        best window covers at least `floor` of the unit's stem weight at cosine >= `similarity`
        (one vectorised pass over the record's stems; the embedding only for those windows), and
        whose span `settles` the pair (`texts`: the records, whose sentences it reads)."""
        if len(tokens.hashes) == 0 or len(self.forms.sorted) == 0:
            return
        n_units = len(self.unit_total)
        n_stems = len(self.weight) + 1
        # Prefilter: pairs holding _MIN_RARE distinct rare stems (short postings: a small fan-out),
        # found by the forms of the rare stems alone (most record words are none of them).
        rare = np.zeros(len(self.weight), dtype=bool)
        rare[self.rare_form_stem] = True
        rare_hit, rare_at = self.rare_forms.find(tokens.hashes)
        rare_st = self.rare_form_stem[rare_at].astype(np.int64)
        if self.bridges is not None:  # ... and the rare ones among the compounds written otherwise
            b_word, b_stem = self.bridges.hits(tokens)
            keep = rare[b_stem]
            rare_hit, rare_st = np.concatenate([rare_hit, b_word[keep]]), np.concatenate([rare_st, b_stem[keep]])
        word, st, unit = self.postings(rare_hit, rare_st)
        if len(word) == 0:
            return
        # ... within one window (blocks as below): distinct rare stems per (pair, window)
        wtext = tokens.text_of[word]
        key = distinct(self._windows(word, wtext, wtext * n_units + unit, unit, tokens) * n_stems + np.tile(
            st, _BLOCKS)) // n_stems
        wins, n_rare = np.unique(key, return_counts=True)
        cand = wins[n_rare >= _MIN_RARE]
        if len(cand) == 0:
            return
        # Every stem hit in those windows (and the blocks either side) whose stem the unit holds.
        c_pair, c_block = cand >> 20, cand & ((1 << 20) - 1)
        c_text, c_unit = c_pair // n_units, c_pair % n_units
        c_step = self._step(c_unit)
        lo_word = tokens.bounds[c_text] + np.maximum(c_block - 1, 0) * c_step
        hi_word = np.minimum(tokens.bounds[c_text] + (c_block + _BLOCKS + 1) * c_step, tokens.bounds[c_text + 1])
        # the stem hits of every form, looked up only in the words those windows span
        size = len(tokens.hashes) + 1
        some = hi_word > lo_word
        spanned = np.flatnonzero(np.cumsum(np.bincount(lo_word[some], minlength=size)
                                           - np.bincount(hi_word[some], minlength=size))[:-1] > 0)
        hit, at = self.forms.find(tokens.hashes[spanned])
        hit, stem = spanned[hit], self.form_stem[at].astype(np.int64)
        if self.bridges is not None:
            b_word, b_stem = self.bridges.hits(tokens, spanned)
            hit, stem = np.concatenate([hit, b_word]), np.concatenate([stem, b_stem])
            order = np.argsort(hit, kind="stable")
            hit, stem = hit[order], stem[order]
        t_lo, t_hi = np.searchsorted(hit, lo_word), np.searchsorted(hit, hi_word)
        count = t_hi - t_lo
        at_hit = np.repeat(t_lo, count) + np.arange(int(count.sum())) - np.repeat(np.cumsum(count) - count, count)
        unit = np.repeat(c_unit, count)
        st = stem[at_hit]
        probe = unit * n_stems + st
        at_key = np.minimum(np.searchsorted(self.unit_stem_keys, probe), len(self.unit_stem_keys) - 1)
        held = self.unit_stem_keys[at_key] == probe
        word, st, unit = hit[at_hit][held], st[held], unit[held]
        text = tokens.text_of[word]
        pair = text * n_units + unit
        # Windows (see _windows). Distinct stems per (pair, window).
        key = distinct(self._windows(word, text, pair, unit, tokens) * n_stems + np.tile(st, _BLOCKS))
        win, kst = key // n_stems, key % n_stems
        wins, first, count = np.unique(win, return_index=True, return_counts=True)
        got = np.add.reduceat(self.weight[kst], first) if len(first) else np.zeros(0)
        w_pair = wins >> 20
        w_unit = w_pair % n_units
        ok = (count >= self.unit_need[w_unit]) & (got >= floor * self.unit_total[w_unit]) & (self.unit_total[w_unit] > 0)
        if not ok.any():
            return
        # The best window of each pair (the earliest on a tie).
        w_pair, wins, first, count, got = w_pair[ok], wins[ok], first[ok], count[ok], got[ok]
        order = np.lexsort((wins, -got, w_pair))
        keep = order[np.concatenate([[True], w_pair[order][1:] != w_pair[order][:-1]])]
        for k in keep.tolist():
            p, blk = int(w_pair[k]), int(wins[k] & ((1 << 20) - 1))
            t, u = divmod(p, n_units)
            h = int(self._step(np.array([u]))[0])
            lo_w = int(tokens.bounds[t]) + blk * h
            hi_w = min(lo_w + _BLOCKS * h, int(tokens.bounds[t + 1]))
            sel = (pair == p) & (word >= lo_w) & (word < hi_w)
            best = self._best_span(u, word[sel], st[sel], tokens, floor, similarity, rare)
            if best is not None and (self.topic is None or self.topic.settles(
                    u, best[4], texts[t] or "", tokens, best[1], best[2], self)):
                got_u, a_w, b_w, cos, stems = best
                yield t, u, got_u / float(self.unit_total[u]), a_w, b_w, cos, stems

    def _best_span(self, u: int, hits: np.ndarray, hit_stems: np.ndarray, tokens: Tokens, floor: float,
                   similarity: float, rare: np.ndarray) -> tuple[float, int, int, float, list[int]] | None:
        """(stem weight, first word, end word, cosine, stems) of the span of a window, from one hit
        of unit `u`'s stems to another, that holds the most of the unit's stem weight (the one more
        like the unit on a tie) with the unit's `floor`, distinct stems (`unit_need`) and _MIN_RARE
        `rare` ones (as the prefilter asks of a window), _MIN_SPAN of the unit's words long, and
        its embedding at cosine >= `similarity`; None when no span does. Its embedding, not the
        whole window's, confirms: a window holds the host's text too, and a stem of the unit in it
        (a way, a book) would stretch the span over words the rewrite does not hold."""
        # each (word, stem) once, in word order (a joined compound's word holds two stems)
        key = np.unique(hits.astype(np.int64) * (len(self.weight) + 1) + hit_stems)
        hits, hit_stems = key // (len(self.weight) + 1), key % (len(self.weight) + 1)
        # (padded by _PAD words either side, inside the record: see below)
        a0 = max(int(hits[0]) - _PAD, int(tokens.bounds[int(tokens.text_of[hits[0]])]))
        b0 = min(int(hits[-1]) + 1 + _PAD, int(tokens.bounds[int(tokens.text_of[hits[0]]) + 1]))
        # sums of the word vectors from the first hit: a span's vector is a difference of two
        cum = np.concatenate([np.zeros((1, self.vectors.vecs.shape[1]), np.float32), np.cumsum(
            self.vectors.vecs[self.vectors.rows(tokens.hashes[a0:b0])], axis=0, dtype=np.float32)])
        need, least = int(self.unit_need[u]), floor * float(self.unit_total[u])
        shortest = int(self.unit_words[u]) * _MIN_SPAN
        best: tuple[float, int, int, float, list[int]] | None = None
        n = len(hits)
        # the whole span first (no part of it holds more): when it is confirmed, it is the span
        for i, j_from in [(0, n - 1)] + [(i, i) for i in range(n)]:
            seen: set[int] = set()
            got, n_rare = 0.0, 0
            for j in range(i, n):
                s = int(hit_stems[j])
                if s not in seen:
                    seen.add(s)
                    got += float(self.weight[s])
                    n_rare += bool(rare[s])
                if (j < j_from or len(seen) < need or got < least or n_rare < _MIN_RARE
                        or hits[j] + 1 - hits[i] < shortest or (best is not None and got < best[0])):
                    continue
                a_w, b_w = int(hits[i]), int(hits[j]) + 1
                # the span, or with the _PAD words either side: the unit's common words (which
                # cost: sunk, marginal...) are no hits but carry its meaning
                vec = cum[b_w - a0] - cum[a_w - a0]
                wide = cum[min(b_w + _PAD, b0) - a0] - cum[max(a_w - _PAD, a0) - a0]
                cos = max(float(v @ self.unit_vec[u]) / max(float(np.linalg.norm(v)), 1e-9) for v in (vec, wide))
                if cos >= similarity and (best is None or (got, cos) > (best[0], best[3])):
                    best = (got, a_w, b_w, cos, sorted(seen))
            if best is not None and j_from == n - 1:
                break
        return best
