"""Keys that survive translation, for the rewrite tier (method "rewrite", evidence "keys ..."): an
eval unit translated into another language (a quiz site's German or Chinese copy of a math word
problem) loses every word the other tiers read, and keeps its numbers and, in Latin script, its
names.

1. Keys. A unit's numbers, normalised so that the ways languages write one number meet
   ("5,000", "5.000", "5 000" and "5000" -> 5000; "1.2" and "1,2" -> 1.2; full-width digits as
   ASCII; a number inside a time, date, range, version or identifier is none), and its names:
   capitalised Latin-script words (Eliza, Toula, Windows) whose lower-case form is no word of any
   unit nor of the corpus sample ("What" is a word). Each key is weighted by its rarity: the lower
   of its inverse frequency among the units and among the corpus sample's documents (a "2" or a
   "10" is in most documents with numbers: nearly no evidence).
2. Candidates, from the sets of the record's numbers and names (one findall each): a unit holding
   _MIN_RARE of its rare keys (in at most _RARE_SHARE of the units and of the sample: short
   postings) and possibly enough keys of enough weight (step 3's bounds, wherever they stand).
   Most records stop here; for the rest, the positions of the candidates' keys.
3. Match. The best window of the record (_WINDOW times the unit's characters, at least
   _MIN_WINDOW) holds _MIN_KEYS distinct keys of the unit and _KEYS_SHARE of them (a unit with
   fewer is not indexed), _MIN_NUMBERS of them numbers, none on a line of code, markup or a table;
   the unit's numbers are most of the numbers there and words stand between them (no list of
   figures); their weight is at least _MIN_WEIGHT (a rare combination) and covers the measure
   floor of the unit's key weight (judged, like every rewrite match, by `rewrite_threshold`).

Not reached: a translation that keeps fewer than _MIN_KEYS keys (a question with one or two
numbers and no name, a multiple-choice question in words), numbers written as words, and names
in another script (transliteration).
"""
from __future__ import annotations

import math
import re
from bisect import bisect_left, bisect_right
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np

# A number in ASCII or full-width digits (digit groups joined by one separator each; not part of
# a time, date, range, version or identifier: 07:21:23, 28/01, 9-14, MiG-19, task1) ...
# (the first digit is matched before the look-behind: one test per digit, not per character)
_NUMBER = re.compile(r"[0-9０-９](?<![A-Za-z0-9０-９_:/\-–.,][0-9０-９])[0-9０-９]*"
                     r"(?:[.,\u00a0\u202f\u2009' ][0-9０-９]+)*(?![A-Za-z0-9０-９_]|[:/\-–][0-9０-９])")
# ... or a capitalised Latin-script word.
_CAPITAL = re.compile(r"[A-ZÀ-ÖØ-Þ](?<![\w][A-ZÀ-ÖØ-Þ])[a-zà-öø-ÿ]{2,}(?![\w])")
# Lower-case words (a capitalised word whose lower-case form is one is no name) and the
# separators of digit groups.
_LOWER = re.compile(r"(?<![\w])[a-zà-öø-ÿ]{3,}(?![\w])")
_SEPARATORS = re.compile(r"[.,\u00a0\u202f\u2009' ]")
# What stands between two numbers of a list (no word, no currency sign).
_LIST_GAP = re.compile(r"[\s,;.()%]*")
# Code, markup and tables (doctest output, a reST table): no word problem's window holds these,
# and a number on such a line (or an indented one) is no key.
_CODE = re.compile(r">>>|::|[\[\]{}=|<>_\\]")
_INDENT = re.compile(r"[ \t]{3,}")


def _code_line(text: str, at: int) -> bool:
    """Whether the line of `text` holding `at` is code, markup or a table row (or indented)."""
    a = text.rfind("\n", 0, at) + 1
    b = text.find("\n", at)
    b = len(text) if b < 0 else b
    return bool(_INDENT.match(text, a) or _CODE.search(text, a, b))


# A candidate holds this many distinct rare keys of the unit ...
_MIN_RARE = 1
# ... rare: held by at most this share of the units and of the sample's documents.
_RARE_SHARE = 0.05
# The unit's numbers are at least this share of the numbers between its first and last key found,
# and at most this share of those numbers follow the one before with no word between.
_KEY_SHARE = 0.75
_BARE_SHARE = 0.25
_MIN_DF = 3
# A match: this many distinct keys of the unit in one window (a unit with fewer is not indexed:
# two numbers are any news story's), this many of them numbers (names alone: weekdays, a cast) ...
_MIN_KEYS = 3
# ... and at least this share of the unit's keys (three numbers of a long problem are a coincidence)
_KEYS_SHARE = 0.5
_MIN_NUMBERS = 2
# ... whose rarity weights sum to this much (natural log units) ...
_MIN_WEIGHT = 12.0
# ... in a window of this many times the unit's characters (at least _MIN_WINDOW).
_WINDOW = 2.5
_MIN_WINDOW = 300


def number_keys(digits: str) -> list[str]:
    """The numbers a run of digit groups reads as, language-neutral: groups after the first all of
    three digits are thousands (5,000 = 5.000 = 5 000 = 5000); two groups otherwise a decimal
    (1,2 = 1.2, trailing zeros dropped); a run of dotted groups (a version, an address) none; any
    other run (1,2,3: a list) its groups."""
    groups = _SEPARATORS.split(digits)
    if len(groups) == 1:
        return [str(int(groups[0]))]
    if all(len(g) == 3 for g in groups[1:]):
        return [str(int("".join(groups)))]
    if len(groups) == 2:
        whole, frac = str(int(groups[0])), str(int(groups[1][::-1]))[::-1].rstrip("0")
        return [f"{whole}.{frac}" if frac else whole]
    if "." in digits:  # a version or an address (3.11.2, 192.0.2.1): no quantity
        return []
    return [str(int(g)) for g in groups]


def text_numbers(text: str) -> Iterable[tuple[str, int, int]]:
    """(number key, start, end) of every number of `text`."""
    for m in _NUMBER.finditer(text):
        g = m.group()
        # most numbers are plain ASCII digits: their own key
        for k in ((g,) if g.isascii() and g.isdigit() and g[0] != "0" else number_keys(g)):
            yield k, m.start(), m.end()


def text_keys(text: str) -> Iterable[tuple[str, int, int]]:
    """(key, start, end) of every number and capitalised word of `text` (names not yet told from
    sentence-initial words: the index does that)."""
    yield from text_numbers(text)
    for m in _CAPITAL.finditer(text):
        yield m.group(), m.start(), m.end()


def _word_at(text: str, word: str) -> Iterable[int]:
    """Where `word` stands in `text` as a whole word (str.find: no regex scan per name)."""
    at = text.find(word)
    while at >= 0:
        end = at + len(word)
        if (at == 0 or not text[at - 1].isalnum()) and (end == len(text) or not text[end].isalnum()):
            yield at
        at = text.find(word, at + 1)


@dataclass
class KeyIndex:
    """Per unit its language-neutral keys (numbers, names) with rarity weights; postings of the rare ones."""

    key_id: dict[str, int]          # key -> id
    names: list[str]                # per key id, its text (evidence)
    weight: list[float]             # per key id
    rare_units: dict[int, np.ndarray]  # rare key id -> units holding it (int32)
    unit_keys: list[dict[int, list[list[int]]]]  # per unit: key id -> its [start, end) spans in the unit
    unit_total: list[float]         # per unit: its keys' weight
    unit_chars: list[int]
    name_keys: frozenset[str]       # the keys that are names
    unit_total_arr: np.ndarray      # float64, unit_total as an array
    unit_need: np.ndarray           # int32, per unit: distinct keys a window must hold (_MIN_KEYS, _KEYS_SHARE of its keys)

    @classmethod
    def build(cls, texts: Sequence[str], indexed: Sequence[bool], sample: Sequence[str] | None = None) -> "KeyIndex":
        """Index the keys of the units `indexed` (bool per unit) of `texts`; `sample`: corpus
        documents, for the rarity of keys and the words that are not names."""
        lower: set[str] = set()
        for t in texts:
            lower.update(_LOWER.findall(t))
        for t in sample or ():
            lower.update(_LOWER.findall(t))
        unit_keys: list[dict[str, list[list[int]]]] = []
        for t, on in zip(texts, indexed):
            keys: dict[str, list[list[int]]] = {}
            if on:
                for k, a, b in text_keys(t):
                    if k[0].isdigit() or k.lower() not in lower:
                        keys.setdefault(k, []).append([a, b])
            unit_keys.append(keys if len(keys) >= _MIN_KEYS else {})
        n_units = max(1, sum(1 for k in unit_keys if k))
        df = Counter(k for keys in unit_keys for k in keys)
        key_id = {k: i for i, k in enumerate(df)}
        sdf: Counter = Counter()
        for t in sample or ():
            sdf.update({k for k, _, _ in text_keys(t) if k in key_id})
        n_sample = len(sample or ())
        weight, rare = [], []
        for k in key_id:
            w = math.log((n_units + 1) / (df[k] + 1))
            if n_sample:
                w = min(w, math.log((n_sample + 1) / (sdf[k] + 1)))
            weight.append(max(0.0, w))
            rare.append(df[k] <= max(_MIN_DF, _RARE_SHARE * n_units)
                        and (not n_sample or sdf[k] <= max(_MIN_DF, _RARE_SHARE * n_sample)))
        postings: dict[int, list[int]] = {}
        ids = [{key_id[k]: spans for k, spans in keys.items()} for keys in unit_keys]
        for u, keys in enumerate(ids):
            for i in keys:
                if rare[i]:
                    postings.setdefault(i, []).append(u)
        rare_units = {i: np.array(us, dtype=np.int32) for i, us in postings.items()}
        return cls(key_id, list(key_id), weight, rare_units, ids,
                   [sum(weight[i] for i in keys) for keys in ids], [len(t) for t in texts],
                   frozenset(k for k in key_id if not k[0].isdigit()),
                   np.array([sum(weight[i] for i in keys) for keys in ids], dtype=np.float64),
                   np.array([max(_MIN_KEYS, math.ceil(_KEYS_SHARE * len(keys))) for keys in ids], dtype=np.int32))

    def matches(self, text: str, floor: float) -> Iterable[tuple[int, float, list[int], list[list[int]], list[str]]]:
        """(unit, coverage, record span, unit spans, keys found) of each unit whose keys the best
        window of `text` holds (see the module docstring)."""
        # A first look, by one findall each: the units holding enough of the text's keys (by
        # count and by weight, wherever they stand); most texts stop here.
        key_id = self.key_id
        present = {key_id[k] for g in set(_NUMBER.findall(text)) for k in
                   ((g,) if g.isascii() and g.isdigit() and g[0] != "0" else number_keys(g)) if k in key_id}
        if len(present) < _MIN_NUMBERS:
            return
        names = {key_id[g] for g in set(_CAPITAL.findall(text)).intersection(self.name_keys)}
        present |= names
        rare = [i for i in present if i in self.rare_units]
        if not rare:
            return
        # a unit's keys in the text: its rare ones (counted, weighed) and at most every common one
        common = [i for i in present if i not in self.rare_units]
        post = np.concatenate([self.rare_units[i] for i in rare])
        units, inverse, n_rare = np.unique(post, return_inverse=True, return_counts=True)
        got = np.bincount(inverse, weights=np.repeat(np.array([self.weight[i] for i in rare]),
                                                     [len(self.rare_units[i]) for i in rare]), minlength=len(units))
        got += sum(self.weight[i] for i in common)
        ok = (n_rare >= _MIN_RARE) & (n_rare + len(common) >= self.unit_need[units]) & (got >= _MIN_WEIGHT) \
            & (got >= floor * self.unit_total_arr[units])
        cands = []
        for u in units[ok].tolist():
            mine = present.intersection(self.unit_keys[u])
            if len(mine) >= self.unit_need[u] and sum(self.weight[i] for i in mine) >= \
                    max(_MIN_WEIGHT, floor * self.unit_total[u]):
                cands.append(u)
        if not cands:
            return
        wanted = {i for u in cands for i in self.unit_keys[u]}
        numbers: list[tuple[int, int]] = []  # (start, end) of each number of the text
        hits: list[tuple[int, int, int]] = []  # (start, end, key id) of each key of the candidates
        for k, a, b in text_numbers(text):
            if not numbers or numbers[-1][0] != a:
                numbers.append((a, b))
            if key_id.get(k, -1) in wanted:
                hits.append((a, b, key_id[k]))
        # numbers on lines of code, markup or tables are no word problem's
        hits = [h for h in hits if not _code_line(text, h[0])]
        for i in names & wanted:
            hits += ((a, a + len(self.names[i]), i) for a in _word_at(text, self.names[i]))
        hits.sort()
        present = {i for _, _, i in hits}
        for u in cands:
            keys = self.unit_keys[u]
            mine = present.intersection(keys)
            # the weight of all its keys in the text (off code lines) bounds the best window's
            if len(mine) < self.unit_need[u] or sum(self.weight[i] for i in mine) < \
                    max(_MIN_WEIGHT, floor * self.unit_total[u]):
                continue
            best = self._best_window(u, [h for h in hits if h[2] in keys])
            if best is None or best[0] < max(_MIN_WEIGHT, floor * self.unit_total[u]):
                continue
            got, window = best
            found = {i for _, _, i in window}
            a, b = window[0][0], window[-1][1]
            # a table, a list of figures or page numbers holds any numbers: the unit's numbers must
            # be most of the numbers where they are found, ...
            first = bisect_left(numbers, (a, -1))
            last = bisect_right(numbers, (b, b))
            n_mine = sum(1 for _, _, i in window if self.names[i][0].isdigit())
            # ... words (or currency signs) stand between them (a list of figures has none: 10, 15, 20)
            bare = sum(1 for n in range(first, last - 1)
                       if _LIST_GAP.fullmatch(text, numbers[n][1], numbers[n + 1][0]))
            if len({i for i in found if self.names[i][0].isdigit()}) < _MIN_NUMBERS \
                    or n_mine < _KEY_SHARE * (last - first) or bare > _BARE_SHARE * max(1, last - first - 1) \
                    or _CODE.search(text, a, b):
                continue
            spans = sorted(s for i in found for s in keys[i])
            rarest = sorted(found, key=lambda i: -self.weight[i])[:10]
            yield u, got / self.unit_total[u], [a, b], spans, ["keys " + " ".join(self.names[i] for i in rarest)]

    def _best_window(self, u: int, mine: list[tuple[int, int, int]]) -> tuple[float, list[tuple[int, int, int]]] | None:
        """(weight, hits) of the window of `mine` (the text's hits of unit u's keys, in order) of
        the most distinct key weight, holding _MIN_KEYS distinct keys; None when none does."""
        width = max(_MIN_WINDOW, int(_WINDOW * self.unit_chars[u]))
        need = self.unit_need[u]
        held: Counter = Counter()
        got, lo = 0.0, 0
        best: tuple[float, int, int] | None = None
        for hi, (a, _, i) in enumerate(mine):  # windows ending at each hit
            if not held[i]:
                got += self.weight[i]
            held[i] += 1
            while a - mine[lo][0] > width:
                j = mine[lo][2]
                held[j] -= 1
                if not held[j]:
                    got -= self.weight[j]
                    del held[j]
                lo += 1
            if len(held) >= need and (best is None or got > best[0] + 1e-9):
                best = (got, lo, hi)
        return None if best is None else (best[0], mine[best[1]:best[2] + 1])
