"""Benchmark contamination: which eval items a record contains, where, and how much of each.

The index (`ContaminationIndex`, built once on the driver, shipped to every worker) holds the
hashed word n-grams of every eval item, words from the shared normaliser: `ngram`-grams for
items of at least `ngram` words, `min_ngram`-grams for shorter ones. A record is probed with
one vectorised pass per n-gram size: a bitmap filter, then a binary search for the few that
pass, so the cost per record does not grow with the number of items.

Two figures per (record, item): `overlap`, the share of the item's n-grams found in the record
(CONTRACT.md), and `coverage`, the share of the item's words covered by those n-grams. The
decision reads coverage: 1.0 for a verbatim or re-cased/re-punctuated copy, ~0.6 for the first
60% of an item, where overlap gives a 60% prefix of a 40-word item only 12 of 28 13-grams, 0.43.
A match needs coverage >= `threshold` and at least `ngram` item words covered (all the words of
a shorter item). Spans are [start, end) character offsets
(end exclusive) in the original text of the merged runs of matching n-grams. Words run
across line breaks, so a leak split over lines matches as well.

Edited items, whose n-grams break, are caught by the fuzzy tier: a record holding enough of an
item's rare `fuzzy_ngram`-grams (item document frequency: n-grams of many items, templates and
idioms, neither propose nor weigh) is aligned with the item around those hits, each item piece
(line, sentence) on its own (audit/stages/alignment.py), and the aligned item words summed over
the record; coverage: their share of the item's weight, judged with `minhash_threshold`.
Spans: the aligned pieces; longest_span: the piece with most words matched.

Two more tiers, each a sub-index of the same kind probed the same way: "skeleton" (`contamination.skeleton`): items
holding numbers, every number-holding word one placeholder, n-grams mostly numbers left out;
"code" (`contamination.code`): items that look like code as canonical code tokens
(audit/stages/code_canon.py), `code_ngram`-grams, n-grams shared by more than two items left out.
"semantic" (`contamination.semantic`, off by default): windows of the record sized to the items,
embedded with WordLlama (audit/stages/semantic.py), propose the items at cosine >=
`semantic_similarity`; the item's pieces aligned around the window confirm (coverage >=
`semantic_threshold`, a piece counting with a quarter of its words aligned).
"code_key" (`contamination.code_key`, audit/stages/contamination_codekey.py): a code item's
language-neutral key (identifier pieces, literals, docstring examples) in one window of a
code-like record naming its function, for ports to other languages. "rewrite"
(`contamination.rewrite`, audit/stages/contamination_rewrite.py): a unit's rare word stems,
numbers and names in one record window in any order, confirmed by the window's embedding, for
restatements; across languages by numbers and names (contamination_keys.py) and, for Chinese, by
the English glosses of its words (contamination_gloss.py, `contamination.rewrite_gloss`), for German,
Spanish, French and Russian by cognates (contamination_cognate.py, `contamination.rewrite_cognate`).
Units: every item is indexed whole and, per `eval_sets[].units`, each text field
on its own (an index "item" is a unit; `item_units` names it), so a leak of the question alone
counts; a match names its `unit` and `item_spans` (the unit's matched character spans).
Measurements keep each tier's best match of each (record, item) down to the measure floor,
whatever the thresholds; `counted` keeps, per (record, item), the best of those at or over their
method's threshold (what the outputs and reasons report), so a threshold changed by `audit
decide` finds every tier's evidence measured. No tier's measuring reads a threshold.
Methods: exact_ngram, skeleton, code, fuzzy (alignment), semantic, code_key, rewrite. Every match carries `score` (its
coverage), `longest_span`, and `evidence` (skeleton: the numbers that differ, "item number ->
record number"; semantic: "cosine 0.862").
"""
from __future__ import annotations

import dataclasses
import hashlib
import logging
import re
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from audit.config import ConfigError
from audit.evalsets import EvalSet, load_eval_sets
from audit.normalize import (HashSet, Tokens, block_tokens, char_tables_ready, chunk_texts, distinct,
                             ngram_hashes, ngram_hashes_by_size, number_skeleton, tokenize_hashed)
from audit.stages import ConfigStage, Finding, add_seconds, filter_list
from audit.stages.alignment import align_pieces, item_pieces, piece_starts
from audit.stages.code_canon import code_tokens, looks_like_code
from audit.stages.contamination_codekey import CodeKeyIndex, looks_like_any_code
from audit.stages.contamination_cognate import CognateIndex
from audit.stages.contamination_gloss import GlossIndex, han_counts
from audit.stages.contamination_keys import KeyIndex
from audit.stages.contamination_rewrite import RewriteIndex
from audit.stages.contamination_translation import TranslationIndex
from audit.stages.semantic import WordVectors

if TYPE_CHECKING:
    from audit.config import AuditConfig, ContaminationConfig

log = logging.getLogger(__name__)
_DIGIT = re.compile(r"[0-9]")

MATCH_TYPE = pa.struct([
    ("eval_set", pa.string()),
    ("eval_id", pa.string()),
    ("overlap", pa.float64()),
    ("coverage", pa.float64()),
    ("spans", pa.list_(pa.list_(pa.int64()))),
    ("method", pa.string()),
    ("score", pa.float64()),
    ("longest_span", pa.list_(pa.int64())),
    ("evidence", pa.list_(pa.string())),
    ("unit", pa.string()),
    ("item_spans", pa.list_(pa.list_(pa.int64()))),
])
COLUMN_TYPE = pa.list_(MATCH_TYPE)

# Item document frequency: an n-gram shared by more than this share of the indexed items (and
# more than _MIN_DF items) is template text (instructions, "Which of the following", a
# `__main__` guard), not evidence of a leak: it is left out, and the words only such n-grams hold
# are left out of the item's coverage too, so a verbatim copy still covers 1.0 and a record
# holding only the template covers nothing.
_MAX_DF_SHARE = 0.01
_MIN_DF = 4
# Canonical code n-grams (names erased) shared by several items are idioms (a loop header, a
# `return result`), not evidence of one item.
_MAX_ITEMS_PER_CODE_GRAM = 2
# A code item of fewer than `code_ngram` canonical tokens (a one-line body) is indexed in n-grams of
# this many and matches only when all of it is found; shorter ones are not indexed.
_CODE_MIN_NGRAM = 12
# A (record, item) pair is aligned when the record holds this share of the item's rare
# `fuzzy_ngram`-grams (a fifth of the words edited leaves about half of its 3-grams), and at least
# _FUZZY_MIN_HITS of them.
_FUZZY_CANDIDATE_SHARE = 0.2
_FUZZY_MIN_HITS = 3
# Record words aligned around each candidate hit: this many either side (merged), at most
# _FUZZY_REGION_PER_WORD record words per item word in all.
_FUZZY_PAD_WORDS = 12
_FUZZY_REGION_PER_WORD = 4
# ... and at most this many alignment cells (item words x record words) per pair, so a long item
# (a passage, a whole program) costs a bounded time per candidate record.
_FUZZY_MAX_CELLS = 2_000_000
# A piece's alignment counts only with this many item words matched and at least this share
# of the piece's words: a few common words in a row ("you need to") are anyone's.
_FUZZY_PIECE_MIN_WORDS = 3
_FUZZY_PIECE_MIN_SHARE = 0.5
# A fuzzy match aligns at least `ngram` item words, or this share of a shorter item (and at least
# `min_ngram`): an edited short question still matches, a few of its common words do not.
_FUZZY_SHORT_SHARE = 0.8
# A short item is found with this share (in tenths) of its words copied verbatim: an item of fewer
# than ngram / 0.6 words is indexed in min_ngram-grams, and a match covers 60% of it.
_SHORT_SHARE_TENTHS = 6
# The hash every number-holding word takes in the skeleton tier (any fixed value off the word hashes).
_NUMBER = 0x4E554D4245520001
# Skeleton evidence: at most this many differing numbers per match, each at most this long.
_MAX_EVIDENCE = 20
_MAX_EVIDENCE_CHARS = 16
# The settings that build only the n-gram tiers (words, skeleton, code): all that `exclude` changes.
_NGRAM_TIERS_ONLY = {"semantic": False, "rewrite": False, "code_key": False, "minhash": False}
# The word between two aligned windows of a record: matches no item word.
_SEPARATOR = np.uint64(0x5345504152415445)


@dataclass
class GramIndex:
    """The n-grams (one size n) of some eval items: hash -> (item, position of its first word)."""

    n: int
    hashes: HashSet
    item: np.ndarray  # int32, parallel to hashes.sorted
    pos: np.ndarray   # int32

    @classmethod
    def build(cls, n: int, grams: np.ndarray, item: np.ndarray, pos: np.ndarray,
              max_items: int = 1000, exclude: np.ndarray | None = None,
              parent: np.ndarray | None = None) -> "GramIndex":
        """Sort the postings by hash, leaving out n-grams of more than `max_items` items (templates)
        and those in `exclude` (common in the corpus, see corpus_common). `parent`: the eval item
        of each indexed unit (units of one item share n-grams: they count as one item)."""
        if exclude is not None and len(exclude):
            keep = ~np.isin(grams, exclude)
            grams, item, pos = grams[keep], item[keep], pos[keep]
        owner = item if parent is None else parent[item]
        order = np.lexsort((item, owner, grams))
        grams, item, pos, owner = grams[order], item[order], pos[order], owner[order]
        if len(grams):
            pair_new = np.ones(len(grams), dtype=bool)
            pair_new[1:] = (grams[1:] != grams[:-1]) | (owner[1:] != owner[:-1])
            gram_new = np.ones(len(grams), dtype=bool)
            gram_new[1:] = grams[1:] != grams[:-1]
            gram_id = np.cumsum(gram_new) - 1
            items_per_gram = np.bincount(gram_id, weights=pair_new)
            keep = items_per_gram[gram_id] <= max_items
            grams, item, pos = grams[keep], item[keep], pos[keep]
        index = HashSet.build(grams)  # grams are sorted already: its sorted array lines up with item/pos
        return cls(n, index, item.astype(np.int32), pos.astype(np.int32))

    def lookup(self, probe: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Every (probe index, posting index) pair with equal hashes."""
        cand, lo = self.hashes.find(probe)
        count = np.searchsorted(self.hashes.sorted, probe[cand], side="right") - lo
        total = int(count.sum())
        probe_idx = np.repeat(cand, count)
        offset = np.arange(total, dtype=np.int64) - np.repeat(np.cumsum(count) - count, count)
        return probe_idx, np.repeat(lo, count) + offset


# The unit name of a whole eval item (its other units are named by their field).
WHOLE = "item"
# A unit that looks like code is matched on its own only with this many words (whitespace-separated).
_MIN_CODE_UNIT_WORDS = 40


def _with_units(s: EvalSet) -> tuple[str, list[str], list[str], list[str]]:
    """An eval set as (name, ids, texts, units) of the index: every whole item, then each unit
    field's text of each item where it is not empty, not the whole item's text again, and not a
    short piece of code."""
    ids, texts, units = list(s.ids), list(s.texts), [WHOLE] * len(s.ids)
    for name, unit_texts in s.units.items():
        code = looks_like_code(unit_texts)
        for item_id, text, whole, is_code in zip(s.ids, unit_texts, s.texts, code.tolist()):
            # a short piece of code (a three-line body) is an idiom of many programs, not a unit
            if text.strip() and text.strip() != whole.strip() and not (is_code and len(text.split()) < _MIN_CODE_UNIT_WORDS):
                ids.append(item_id)
                texts.append(text)
                units.append(name)
    return s.name, ids, texts, units


def _kind_tokens(kind: str, texts: Sequence[str | None], words: Tokens | None = None) -> Tokens:
    """The tokens an index of `kind` reads: words, number skeleton, or canonical code (`words`:
    the texts' words when already tokenised)."""
    if kind == "code":
        return code_tokens(texts)
    tokens = words if words is not None else tokenize_hashed(texts)
    return number_skeleton(texts, tokens, _NUMBER) if kind == "skeleton" else tokens


def _max_df(indexed_items: int) -> int:
    """The most items an n-gram may be shared by and still be evidence (see _MAX_DF_SHARE)."""
    return max(_MIN_DF, int(_MAX_DF_SHARE * indexed_items))


def _held_words(gi: GramIndex, bounds: np.ndarray) -> np.ndarray:
    """Per word of the indexed items (item after item, `bounds` as in Tokens): whether one of the
    n-grams kept in `gi` holds it."""
    start = bounds[gi.item] + gi.pos
    size = int(bounds[-1]) + gi.n + 1
    # +1 where an n-gram starts, -1 past its end: a word is held where the running sum is positive
    held = np.bincount(start, minlength=size) - np.bincount(start + gi.n, minlength=size)
    return np.cumsum(held)[:int(bounds[-1])] > 0


def _runs(key: np.ndarray) -> np.ndarray:
    """Start index of each run of equal values in a sorted array."""
    new = np.ones(len(key), dtype=bool)
    new[1:] = key[1:] != key[:-1]
    return np.flatnonzero(new)


@dataclass
class FuzzyIndex:
    """What the fuzzy tier keeps per item: its rare `n`-grams (candidates), and its words, word
    weights (0 for words only in template n-grams) and pieces (alignment)."""

    grams: GramIndex
    rare: np.ndarray         # int32, distinct rare n-grams of each item
    words: np.ndarray        # uint64, every item's words, item after item
    bounds: np.ndarray       # int64, item i's words are words[bounds[i]:bounds[i+1]]
    weights: np.ndarray      # float32, parallel to words
    pieces: list[np.ndarray]  # per item, piece bounds in its own word indices

    @classmethod
    def build(cls, n: int, tokens: Tokens, texts: list[str], indexed: np.ndarray,
              parent: np.ndarray | None = None) -> "FuzzyIndex":
        """Index the items `indexed` (bool per item) of `tokens` for the fuzzy tier (`parent`:
        the eval item of each unit, as in GramIndex.build)."""
        n_items = len(texts)
        g, first = ngram_hashes(tokens, n)
        item = tokens.text_of[first]
        mine = indexed[item]
        items = int(indexed.sum()) if parent is None else len(np.unique(parent[indexed]))
        grams = GramIndex.build(n, g[mine], item[mine], first[mine] - tokens.bounds[item[mine]],
                                _max_df(items), parent=parent)
        rare = np.bincount(grams.item, minlength=n_items).astype(np.int32)  # postings are distinct per (item, pos)
        weights = _held_words(grams, tokens.bounds).astype(np.float32)
        cut = piece_starts(texts, tokens)
        pieces = [item_pieces(cut[tokens.bounds[i]:tokens.bounds[i + 1]]) for i in range(n_items)]
        return cls(grams, rare, tokens.hashes.copy(), tokens.bounds.copy(), weights, pieces)


# Semantic tier: windows of 2 x half words, half = _SEMANTIC_BASE x 2^k up to _SEMANTIC_TOP
# (an item of L words is compared with the windows of the largest size <= L, at least the
# smallest); windows start every `half` words, so a leak of 1.5 window lengths holds one whole.
_SEMANTIC_BASE = 8
_SEMANTIC_TOP = 128
# A paraphrase keeps fewer words of each piece in place than an edit does: a piece's alignment
# counts for the semantic tier with a quarter of its words (the window's cosine vouches for the rest).
_SEMANTIC_PIECE_MIN_SHARE = 0.25
# Words embedded at a time (the vectors take words x dim x 4 bytes).
_SEMANTIC_WORDS = 65_536


@dataclass
class SemanticIndex:
    """Per window size, the unit embedding of each item compared with windows of that size."""

    vectors: WordVectors
    halves: list[int]          # half window (words) of each size class
    items: list[np.ndarray]    # per class, the item indices
    mats: list[np.ndarray]     # per class, items x dim unit vectors (float32)

    @classmethod
    def build(cls, texts: list[str], tokens: Tokens, indexed: np.ndarray, vectors: WordVectors) -> "SemanticIndex":
        """Embed every indexed item (bool per item) of `tokens`, the words of `texts` (`vectors`:
        holding every word of theirs, see WordVectors.add_words)."""
        dim = vectors.dim
        rows = vectors.rows(tokens.hashes)
        counts = tokens.counts
        sums = np.stack([vectors.vecs[rows[a:b]].sum(axis=0) for a, b in
                         zip(tokens.bounds[:-1].tolist(), tokens.bounds[1:].tolist())]) if len(texts) else \
            np.zeros((0, dim), dtype=np.float32)
        nonempty = counts > 0
        unit = sums / np.maximum(np.linalg.norm(sums, axis=1, keepdims=True), 1e-9)
        halves = [_SEMANTIC_BASE << k for k in range(int(np.log2(_SEMANTIC_TOP // _SEMANTIC_BASE)) + 1)]
        size = np.clip(2 ** np.floor(np.log2(np.maximum(counts, 1))) // 2, halves[0], halves[-1]).astype(np.int64)
        items, mats = [], []
        for h in halves:
            mine = np.flatnonzero(indexed & nonempty & (size == h))
            items.append(mine)
            mats.append(np.ascontiguousarray(unit[mine]))
        return cls(vectors, halves, items, mats)

    def candidates(self, texts: Sequence[str | None], tokens: Tokens, n_items: int,
                   similarity: float) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """(text x item pair, cosine, first word, end word) of the best window of each pair at
        cosine >= `similarity`, pairs sorted."""
        out = []
        bounds = tokens.bounds
        a = 0
        while a < len(texts):  # texts in groups of about _SEMANTIC_WORDS words
            b = int(np.searchsorted(bounds, bounds[a] + _SEMANTIC_WORDS, side="right"))
            b = min(len(texts), max(b - 1, a + 1))
            g_pair, g_sim, g_lo, g_hi = self._group(texts, tokens.slice(a, b), a, n_items, similarity)
            out.append((g_pair, g_sim, g_lo + int(bounds[a]), g_hi + int(bounds[a])))
            a = b
        pair, sim, lo, hi = (np.concatenate([o[k] for o in out]) for k in range(4))
        order = np.lexsort((-sim, pair))
        pair, sim, lo, hi = pair[order], sim[order], lo[order], hi[order]
        first = _runs(pair) if len(pair) else np.zeros(0, dtype=np.int64)
        return pair[first], sim[first], lo[first], hi[first]

    def _group(self, texts: Sequence[str | None], tokens: Tokens, offset: int, n_items: int,
               similarity: float) -> tuple[np.ndarray, ...]:
        empty = (np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.float32), np.zeros(0, dtype=np.int64),
                 np.zeros(0, dtype=np.int64))
        if len(tokens.hashes) == 0:
            return empty
        rows = self.vectors.rows(tokens.hashes)
        counts = tokens.counts
        base = self.halves[0]
        # Base segments: `base` words from each text's start, summed by one padded gather.
        nseg = -(-counts // base)
        seg_text = np.repeat(np.arange(len(counts)), nseg)
        seg_rank = np.arange(int(nseg.sum())) - np.repeat(np.cumsum(nseg) - nseg, nseg)
        seg_start = tokens.bounds[seg_text] + seg_rank * base
        seg_end = np.minimum(seg_start + base, tokens.bounds[seg_text + 1])
        at = seg_start[:, None] + np.arange(base)
        zero = len(self.vectors.vecs) - 1
        padded = np.where(at < seg_end[:, None], rows[np.minimum(at, len(rows) - 1)], zero)
        s_sum = self.vectors.vecs[padded].sum(axis=1)
        s_text, s_rank, s_lo, s_hi = seg_text, seg_rank, seg_start, seg_end
        cols_pair, cols_sim, cols_lo, cols_hi = [], [], [], []
        for k, h in enumerate(self.halves):
            if k:  # this size's segments: pairs of the last size's, within a text
                head = np.flatnonzero(s_rank % 2 == 0)
                nb = np.minimum(head + 1, len(s_text) - 1)
                has = (head + 1 < len(s_text)) & (s_text[nb] == s_text[head])
                partner = np.where(has, nb, head)
                s_sum = s_sum[head] + np.where(has[:, None], s_sum[partner], 0)
                s_text, s_rank, s_lo, s_hi = s_text[head], s_rank[head] // 2, s_lo[head], s_hi[partner]
            if len(self.items[k]) == 0:
                continue
            # Windows: two consecutive class segments of a text, or a text's only one.
            nxt = np.zeros(len(s_text), dtype=bool)
            nxt[:-1] = s_text[1:] == s_text[:-1]
            alone = ~nxt & np.append(True, ~nxt[:-1])
            w_first = np.concatenate([np.flatnonzero(nxt), np.flatnonzero(alone)])
            w_last = np.concatenate([np.flatnonzero(nxt) + 1, np.flatnonzero(alone)])
            w_sum = s_sum[w_first] + np.where(alone[w_first][:, None], 0, s_sum[w_last])
            w_lo, w_hi = s_lo[w_first], s_hi[w_last]
            big = (w_hi - w_lo) >= h  # a window of fewer than `half` words says little
            w_sum, w_lo, w_hi, w_text = w_sum[big], w_lo[big], w_hi[big], s_text[w_first][big]
            if len(w_sum) == 0:
                continue
            w_sum /= np.maximum(np.linalg.norm(w_sum, axis=1, keepdims=True), 1e-9)
            sims = w_sum @ self.mats[k].T
            wi, ii = np.nonzero(sims >= similarity)
            cols_pair.append((w_text[wi] + offset) * n_items + self.items[k][ii])
            cols_sim.append(sims[wi, ii])
            cols_lo.append(w_lo[wi])
            cols_hi.append(w_hi[wi])
        if not cols_pair:
            return empty
        return (np.concatenate(cols_pair), np.concatenate(cols_sim), np.concatenate(cols_lo),
                np.concatenate(cols_hi))


def _stem_runs(rw: RewriteIndex, u: int, stems: Sequence[int]) -> list[tuple[int, int]]:
    """(first, end) word runs of unit `u` holding one of `stems` (a rewrite match's unit words)."""
    base, top = int(rw.unit_bounds[u]), int(rw.unit_bounds[u + 1])
    held = np.isin(rw.word_stem[base:top], stems)
    edge = np.diff(np.concatenate([[0], held.astype(np.int8), [0]]))
    return list(zip(np.flatnonzero(edge == 1).tolist(), np.flatnonzero(edge == -1).tolist()))


@dataclass
class ContaminationIndex:
    """Eval items' n-grams and fuzzy-tier words: plain data, cheap to ship to workers."""

    set_names: list[str]
    item_ids: list[str]
    item_set: np.ndarray    # int32, eval set of each item
    item_words: np.ndarray  # int32, words of each item
    grams: list[GramIndex]
    fuzzy: FuzzyIndex | None  # the fuzzy tier (alignment), None when off
    settings: "ContaminationConfig"
    items_per_set: dict[str, int] = field(default_factory=dict)
    too_short: dict[str, int] = field(default_factory=dict)
    skeleton: "ContaminationIndex | None" = None  # number-skeleton n-grams of the items holding numbers
    code: "ContaminationIndex | None" = None      # canonical code n-grams of the items that look like code
    numbers: dict[int, str] = field(default_factory=dict)  # skeleton: (item << 32 | word) -> the item's number
    coverable: np.ndarray | None = None  # int32, words of each item held by its kept (not template) n-grams
    code_records: int = 0  # records the code tier canonicalised (its prefilter passed them), in this process
    tier_seconds: dict[str, float] = field(default_factory=dict)  # per tier, its seconds in `match`, in this process
    semantic: SemanticIndex | None = None  # item embeddings (the semantic tier), None when off
    corpus_common_grams: int = 0  # n-grams left out as common in the corpus sample (corpus_common)
    corpus_sample_docs: int = 0   # documents in that sample
    corpus_digest: str = ""       # of the n-grams left out: part of what shard measurements depend on
    code_key: CodeKeyIndex | None = None  # language-neutral code keys of the code items (the code_key tier)
    rewrite: RewriteIndex | None = None  # rare word stems and embeddings of the units (the rewrite tier)
    keys: KeyIndex | None = None  # numbers and names of the units, across languages (the rewrite tier)
    gloss: GlossIndex | None = None  # the units' stems as Chinese words gloss them (the rewrite tier)
    cognate: CognateIndex | None = None  # the units' stems by cognate form, for European text (the rewrite tier)
    translation: TranslationIndex | None = None  # the asking units' multilingual embeddings (the rewrite tier)
    need: np.ndarray | None = None  # int32, item words an n-gram match must cover (see from_items)
    item_units: list[str] = field(default_factory=list)  # per indexed item, its unit (WHOLE: the whole item)
    item_starts: np.ndarray | None = None  # int32, character start of each item token in its unit's text
    item_ends: np.ndarray | None = None    # int32, its end (exclusive)
    item_bounds: np.ndarray | None = None  # int64, item i's tokens are [item_bounds[i], item_bounds[i+1])

    @classmethod
    def build(cls, config: "AuditConfig", sample: list[str] | None = None) -> "ContaminationIndex | None":
        """Load every eval set of the config and index it; None when there is none. `sample`:
        corpus texts whose common n-grams are left out (`contamination.corpus_df`)."""
        if not config.eval_sets:
            return None
        c = config.contamination
        sets = [_with_units(s) for s in load_eval_sets(config)]
        if sample and c.corpus_df:
            sample_tokens = tokenize_hashed(sample)  # once, for corpus_common and the rewrite tier's rarity
            index = cls.from_items(sets, c, sample=sample, sample_tokens=sample_tokens)
            common = index.corpus_common(sample, c.corpus_df_min_docs, c.corpus_df_ratio, sample_tokens)
            if len(common):
                # only the n-gram tiers read `exclude`: build them again without the common n-grams
                lean = cls.from_items(sets, c.model_copy(update=_NGRAM_TIERS_ONLY), exclude=common)
                index.grams, index.coverable = lean.grams, lean.coverable
                for tier in ("skeleton", "code"):
                    old, new = getattr(index, tier), getattr(lean, tier)
                    setattr(index, tier, None if new is None else dataclasses.replace(new, settings=old.settings))
            index.corpus_common_grams, index.corpus_sample_docs = int(len(common)), len(sample)
            index.corpus_digest = hashlib.sha256(np.sort(common).tobytes()).hexdigest()[:16]
        else:
            index = cls.from_items(sets, c)
        return index

    def corpus_common(self, texts: list[str], min_docs: int, ratio: float, words: Tokens | None = None) -> np.ndarray:
        """Hashes of the indexed n-grams that are boilerplate in `texts` (a corpus sample): held by
        at least `min_docs` documents and by `ratio` times the median count of every item's other
        n-grams. Relative, so an item copied into many documents keeps all of its n-grams.
        `words`: the texts' words when already tokenised."""
        out = []
        for index, kind in ((self, "words"), (self.skeleton, "skeleton"), (self.code, "code")):
            if index is None:
                continue
            tokens = _kind_tokens(kind, texts, words)
            hashed = ngram_hashes_by_size(tokens, [gi.n for gi in index.grams])
            for gi in index.grams:
                g, first = hashed[gi.n]
                hit = gi.hashes.contains(g)
                gram, doc = g[hit], tokens.text_of[first[hit]]
                order = np.lexsort((doc, gram))
                gram, doc = gram[order], doc[order]
                df = np.zeros(len(gi.hashes.sorted), dtype=np.int64)  # sampled documents holding each posting's n-gram
                if len(gram):
                    once = np.ones(len(gram), dtype=bool)  # each (n-gram, document) once
                    once[1:] = (gram[1:] != gram[:-1]) | (doc[1:] != doc[:-1])
                    held, docs = np.unique(gram[once], return_counts=True)
                    at = np.minimum(np.searchsorted(held, gi.hashes.sorted), len(held) - 1)
                    df = np.where(held[at] == gi.hashes.sorted, docs[at], 0)
                # The median count of each item's n-grams (postings sorted by item, then count).
                order = np.lexsort((df, gi.item))
                items, start, size = np.unique(gi.item[order], return_index=True, return_counts=True)
                median = np.zeros(int(gi.item.max()) + 1 if len(gi.item) else 0, dtype=np.float64)
                median[items] = df[order][start + size // 2]
                common = (df >= min_docs) & (df >= ratio * np.maximum(median[gi.item], 1.0))
                # A hash shared by items is left out only where it is boilerplate for all of them.
                if len(common):
                    new = np.ones(len(common), bool)
                    new[1:] = gi.hashes.sorted[1:] != gi.hashes.sorted[:-1]
                    starts = np.flatnonzero(new)
                    all_common = np.minimum.reduceat(common.astype(np.int8), starts).astype(bool)
                    out.append(gi.hashes.sorted[starts][all_common])
        return distinct(np.concatenate(out)) if out else np.zeros(0, np.uint64)

    @classmethod
    def from_items(cls, sets: list[tuple[str, list[str], list[str]]], c: "ContaminationConfig",
                   kind: str = "words", exclude: np.ndarray | None = None,
                   sample: list[str] | None = None, sample_tokens: Tokens | None = None,
                   words: Tokens | None = None) -> "ContaminationIndex":
        """Index eval sets given as (name, item ids, item texts). `kind` "skeleton": the
        number-skeleton sub-index (items holding numbers, numbers as one placeholder word);
        "code": the canonical-code sub-index (items that look like code, `code_ngram`-grams). `sample`:
        corpus documents the rewrite tier reads the rarity of stems in (`sample_tokens`: their
        words when already tokenised). `words`: the words of every item of `sets` when already
        tokenised (a sub-index reads those of its items)."""
        char_tables_ready()
        sub_index = kind != "words"
        # (name, ids, texts[, units]): an item without units is its whole self
        sets = [(s[0], s[1], s[2], s[3] if len(s) > 3 else [WHOLE] * len(s[1])) for s in sets]
        if sub_index:
            def kept(texts: list[str]) -> list[bool]:
                return [bool(_DIGIT.search(t)) for t in texts] if kind == "skeleton" else looks_like_code(texts).tolist()
            flagged = [(n, i, t, u, kept(t)) for n, i, t, u in sets]
            if words is not None:
                words = words.take(np.array([k for s in flagged for k in s[4]], dtype=bool))
            sets = [(name, [i for i, k in zip(ids, flags) if k], [t for t, k in zip(texts, flags) if k],
                     [u for u, k in zip(units, flags) if k])
                    for name, ids, texts, units, flags in flagged]
            sets = [s for s in sets if s[1]]
        if kind == "code":  # a function shorter than code_ngram tokens: all of it, in _CODE_MIN_NGRAM-grams
            c = c.model_copy(update={"ngram": c.code_ngram, "min_ngram": min(c.code_ngram, _CODE_MIN_NGRAM)})
        names = [s[0] for s in sets]
        ids = [i for s in sets for i in s[1]]
        texts = [t for s in sets for t in s[2]]
        units = [u for s in sets for u in s[3]]
        item_set = np.concatenate([np.full(len(s[1]), k, dtype=np.int32) for k, s in enumerate(sets)])
        owners: dict[tuple[int, str], int] = {}
        parent = np.array([owners.setdefault((k, i), len(owners)) for k, i in zip(item_set.tolist(), ids)],
                          dtype=np.int64)
        whole = np.array([u == WHOLE for u in units], dtype=bool)
        tokens = _kind_tokens(kind, texts, words)
        numbers: dict[int, str] = {}
        if kind == "skeleton":
            at = np.flatnonzero(tokens.hashes == np.uint64(_NUMBER))
            of = tokens.text_of[at]
            for t, w, a, b in zip(of.tolist(), (at - tokens.bounds[of]).tolist(), tokens.starts[at].tolist(),
                                  tokens.ends[at].tolist()):
                numbers[(t << 32) | w] = texts[t][a:b]
        words = tokens.counts.astype(np.int32)
        if kind == "words":
            # A short item (under ngram / _SHORT_SHARE words) in min_ngram-grams, so that the
            # _SHORT_SHARE of it copied verbatim still holds whole n-grams (a 13-gram never fits in
            # 9 words of a 15-word question).
            long_item = words * _SHORT_SHARE_TENTHS >= c.ngram * 10
        else:
            long_item = words >= c.ngram
        size = np.where(long_item, c.ngram, np.where(words >= c.min_ngram, c.min_ngram, 0))
        # Words a match must cover: `ngram`, or _SHORT_SHARE of a short item (at least min_ngram).
        need = np.where(long_item | (kind != "words"), c.ngram,
                        np.maximum(c.min_ngram, (words * _SHORT_SHARE_TENTHS + 9) // 10)).astype(np.int32)
        too_short = {name: int(((item_set == k) & (size == 0) & whole).sum()) for k, name in enumerate(names)}
        for k, name in enumerate(names):
            if not sub_index and not (size[item_set == k] > 0).any():  # a set nothing could ever match
                raise ConfigError(f"eval set '{name}': none of its {int((item_set == k).sum())} items has "
                                  f"contamination.min_ngram={c.min_ngram} words, so nothing can match it: "
                                  "lower contamination.min_ngram or remove the eval set")
        if any(too_short.values()) and not sub_index:
            log.warning("eval items shorter than min_ngram=%d words are not indexed: %s", c.min_ngram,
                        {k: v for k, v in too_short.items() if v})
        grams = []
        sizes = sorted({int(x) for x in size if x}, reverse=True)
        hashed = ngram_hashes_by_size(tokens, sizes)
        for n in sizes:
            g, first = hashed[n]
            item = tokens.text_of[first]
            mine = size[item] == n
            if kind == "skeleton":  # a run of numbers (a list, a table) is no item's skeleton
                upto = np.concatenate([[0], np.cumsum(tokens.hashes == np.uint64(_NUMBER))])
                mine &= (upto[first + n] - upto[first]) <= n // 4
            grams.append(GramIndex.build(n, g[mine], item[mine], first[mine] - tokens.bounds[item[mine]],
                                         _MAX_ITEMS_PER_CODE_GRAM if kind == "code" else
                                         _max_df(len(np.unique(parent[size > 0]))), exclude, parent))
        held = np.zeros(len(tokens.hashes), dtype=bool)
        for gi in grams:
            held |= _held_words(gi, tokens.bounds)
        coverable = np.add.reduceat(held.astype(np.int32), tokens.bounds[:-1]) if len(held) else np.zeros(0, np.int32)
        coverable = np.where(words > 0, coverable, 0).astype(np.int32)
        fuzzy = None
        if (c.minhash or c.semantic) and not sub_index:
            fuzzy = FuzzyIndex.build(c.fuzzy_ngram, tokens, texts, size > 0, parent)
        per_set = {name: int(((item_set == k) & whole).sum()) for k, name in enumerate(names)}
        sub = code = None
        if c.skeleton and not sub_index and any(_DIGIT.search(t) for t in texts):
            sub = cls.from_items(sets, c, "skeleton", exclude, words=tokens)
        if c.code and not sub_index and looks_like_code(texts).any():
            code = cls.from_items(sets, c, "code", exclude)
        vectors = None
        if (c.semantic or c.rewrite) and not sub_index:  # the model loaded, the items' words embedded, once
            vectors = WordVectors(c.semantic_dim)
            vectors.add_words(texts, tokens)
        semantic = SemanticIndex.build(texts, tokens, size > 0, vectors) if c.semantic and vectors is not None else None
        code_key = CodeKeyIndex.build(texts, looks_like_any_code(texts)) if c.code_key and not sub_index else None
        rewrite = keys = gloss = cognate = translation = None
        if c.rewrite and not sub_index:
            # code items (every unit of an item any of whose units looks like code) are the code tiers'
            code_parent = np.zeros(len(owners), dtype=bool)
            code_parent[parent[looks_like_code(texts)]] = True
            rewrite = RewriteIndex.build(texts, tokens, (size > 0) & ~code_parent[parent], vectors, sample,
                                         sample_tokens, parent)
            if c.rewrite_keys:
                keys = KeyIndex.build(texts, ((size > 0) & ~code_parent[parent]).tolist(), sample)
            if c.rewrite_gloss:
                gloss = GlossIndex.build(rewrite, sample, texts, tokens)
            if c.rewrite_cognate:
                cognate = CognateIndex.build(rewrite, sample, sample_tokens)
            if c.rewrite_translation:
                # (an item's whole self only where it has no field unit of its own)
                alone = np.bincount(parent, minlength=len(owners))[parent] == 1
                translation = TranslationIndex.build(
                    texts, ((size > 0) & ~code_parent[parent] & (~whole | alone)).tolist(),
                    c.rewrite_translation_similarity, sample)
        return cls(names, ids, item_set, words, grams, fuzzy, c, per_set, too_short, sub, code, numbers, coverable,
                   semantic=semantic, code_key=code_key, rewrite=rewrite, keys=keys, gloss=gloss, cognate=cognate,
                   translation=translation, need=need, item_units=units, item_starts=tokens.starts.astype(np.int32),
                   item_ends=tokens.ends.astype(np.int32), item_bounds=tokens.bounds.copy())

    def match(self, texts: list[str | None], tokens: Tokens | None = None,
              column: pa.Array | pa.ChunkedArray | None = None,
              languages: list[str | None] | None = None) -> list[list[dict[str, Any]] | None]:
        """Per text, its matches (eval_set, eval_id, overlap, coverage, spans, method), best first; None for None.

        `tokens`: the texts' words when already tokenised (the pipeline tokenises a block once);
        `column`: the texts as an Arrow array when at hand (the code tier's prefilter reads it);
        `languages`: each text's identified language, when the language stage ran (number words).
        """
        out: list[list[dict[str, Any]] | None] = [None if t is None else [] for t in texts]
        tokens = tokens if tokens is not None else tokenize_hashed(texts)
        t0 = time.perf_counter()
        tiers = []
        if self.skeleton is not None:
            tiers.append((self.skeleton, number_skeleton(texts, tokens, _NUMBER), "skeleton"))
        t0 = self._clock("skeleton", t0)
        arr = column if column is not None or (self.code is None and self.code_key is None) else \
            pa.array(list(texts), pa.string())
        # the code_key tier's signs of code hold the code tier's: one pass over every text, the
        # code tier's only over the texts with a sign (tests/test_stage_contamination_codekey.py)
        signs = looks_like_any_code(arr) if self.code_key is not None else None
        t0 = self._clock("code_key", t0)
        if self.code is not None:
            if signs is None:
                code = looks_like_code(arr)
            else:
                code = np.zeros(len(signs), dtype=bool)
                if signs.any():
                    code[signs] = looks_like_code(arr.filter(pa.array(signs)))
            self.code_records += int(code.sum())
            tiers.append((self.code, code_tokens(texts, code), "code"))
        t0 = self._clock("code", t0)
        keyed = signs
        if keyed is not None:
            if keyed.any():  # the names' regex (the costlier) only over the texts that look like code
                keyed[keyed] = self.code_key.maybe(arr.filter(pa.array(keyed)))
        t0 = self._clock("code_key", t0)
        # only records holding Chinese are glossed
        han = han_counts(column if column is not None else texts) if self.gloss is not None else None
        t0 = self._clock("rewrite_gloss", t0)
        for a, b in chunk_texts(texts):  # bounds the probe's temporary arrays
            found = self._match_chunk(tokens.slice(a, b))
            t0 = self._clock("exact_ngram+fuzzy", t0)
            for sub, sub_tokens, method in tiers:
                for k, extra in sub._match_chunk(sub_tokens.slice(a, b), method, texts[a:b]).items():
                    found.setdefault(k, []).extend(extra)
                t0 = self._clock(method, t0)
            if self.semantic is not None:
                self._semantic_matches(texts[a:b], tokens.slice(a, b), found)
                t0 = self._clock("semantic", t0)
            if keyed is not None:
                self._code_key_matches(texts, a, b, keyed, found)
                t0 = self._clock("code_key", t0)
            if self.rewrite is not None:
                self._rewrite_matches(tokens.slice(a, b), found, texts[a:b])
                t0 = self._clock("rewrite", t0)
            if self.keys is not None:
                self._key_matches(texts, a, b, found, None if column is None else column.slice(a, b - a),
                                  None if languages is None else languages[a:b])
                t0 = self._clock("rewrite_keys", t0)
            if han is not None:
                self._gloss_matches(texts, a, b, han, found)
                t0 = self._clock("rewrite_gloss", t0)
            if self.cognate is not None:
                self._cognate_matches(texts, a, b, tokens.slice(a, b), found)
                t0 = self._clock("rewrite_cognate", t0)
            if self.translation is not None:
                self._translation_matches(texts, a, b, found, None if languages is None else languages[a:b])
                t0 = self._clock("rewrite_translation", t0)
            for k, matches in found.items():
                out[a + k] = _best_per_method(matches)
        return out

    def _clock(self, tier: str, t0: float) -> float:
        """Add the seconds since `t0` to `tier`'s (tier_seconds); now."""
        return add_seconds(self.tier_seconds, tier, t0)

    def _match_chunk(self, tokens: Tokens, method: str = "exact_ngram",
                     texts: list[str | None] | None = None) -> dict[int, list[dict[str, Any]]]:
        if len(tokens.hashes) == 0:
            return {}
        text_of = tokens.text_of
        n_items = len(self.item_ids)
        found: dict[int, list[dict[str, Any]]] = {}
        # Pairs whose n-grams cover the whole item: alignment cannot do better (a fixed bar, not the
        # threshold, so what is measured does not depend on a judge-only setting).
        strong: set[int] = set()
        fuzzy = self.fuzzy is not None and self.settings.minhash
        hashed = ngram_hashes_by_size(tokens, [gi.n for gi in self.grams] + ([self.fuzzy.grams.n] if fuzzy else []))
        for gi in self.grams:
            g, first = hashed[gi.n]
            probe, post = gi.lookup(g)
            if len(probe) == 0:
                continue
            win = first[probe]
            pair = text_of[win] * n_items + gi.item[post]
            for p, overlap, coverage, spans, evidence, runs in self._ngram_matches(pair, gi.pos[post], win, gi.n,
                                                                                   tokens, texts):
                if coverage >= 1.0:
                    strong.add(p)
                self._add(found, p, overlap, coverage, spans, method, evidence=evidence, item_words=runs)
        if fuzzy:
            for p, coverage, spans, longest, runs in self._fuzzy_matches(tokens, text_of, strong, hashed):
                if coverage >= self.settings.minhash_floor:
                    self._add(found, p, coverage, coverage, spans, "fuzzy", longest, item_words=runs)
        return found

    def _semantic_matches(self, texts: Sequence[str | None], tokens: Tokens, found: dict[int, list[dict[str, Any]]]) -> None:
        """Add to `found` the semantic matches: pairs proposed by a window's embedding, confirmed
        by alignment around it. Only pairs another tier found whole (coverage 1.0, which every
        threshold counts) are skipped: a fixed bar, so what is measured never depends on a
        threshold, which `audit decide` may change."""
        sem = self.semantic
        assert sem is not None and self.fuzzy is not None
        c = self.settings
        n_items = len(self.item_ids)
        pair, sim, lo, hi = sem.candidates(texts, tokens, n_items, c.semantic_similarity)
        done = {(text, m["eval_set"], m["eval_id"]) for text, ms in found.items() for m in ms if m["coverage"] >= 1.0}
        for p, cosine, a, b in zip(pair.tolist(), sim.tolist(), lo.tolist(), hi.tolist()):
            text, it = divmod(p, n_items)
            if (text, self.set_names[self.item_set[it]], self.item_ids[it]) in done:
                continue
            pad = (b - a) // 2  # the window and half its length either side
            cols = np.arange(max(a - pad, int(tokens.bounds[text])), min(b + pad, int(tokens.bounds[text + 1])))
            got = self._aligned(it, cols, tokens, _SEMANTIC_PIECE_MIN_SHARE)
            if got is not None and got[0] >= c.semantic_floor:
                coverage, spans, longest, runs = got
                self._add(found, p, coverage, coverage, spans, "semantic", longest, [f"cosine {cosine:.3f}"], runs)

    def _rewrite_matches(self, tokens: Tokens, found: dict[int, list[dict[str, Any]]],
                         texts: Sequence[str | None]) -> None:
        """Add to `found` the rewrite matches of the chunk's records (`texts`: them, whose
        sentences confirm a unit that asks; pairs another tier found whole are skipped: a fixed
        bar, as for the semantic tier)."""
        rw = self.rewrite
        assert rw is not None
        c = self.settings
        n_items = len(self.item_ids)
        done = {(text, m["eval_set"], m["eval_id"]) for text, ms in found.items() for m in ms if m["coverage"] >= 1.0}
        for t, u, coverage, w0, w1, cosine, stems in rw.matches(tokens, c.rewrite_floor, c.rewrite_similarity, texts):
            if (t, self.set_names[self.item_set[u]], self.item_ids[u]) in done:
                continue
            runs = _stem_runs(rw, u, stems)
            span = [int(tokens.starts[w0]), int(tokens.ends[w1 - 1])]
            rare = sorted(stems, key=lambda s: -float(rw.weight[s]))[:10]
            self._add(found, t * n_items + u, coverage, coverage, [span], "rewrite", span,
                      [f"cosine {cosine:.3f}", "stems " + " ".join(rw.names[s] for s in rare)], runs)

    def _key_matches(self, texts: Sequence[str | None], a: int, b: int, found: dict[int, list[dict[str, Any]]],
                     column: pa.Array | pa.ChunkedArray | None = None, languages: list[str | None] | None = None
                     ) -> None:
        """Add to `found` (keyed by text - a) the rewrite matches by language-neutral keys (numbers,
        names) of texts[a:b] (`column`: them as Arrow; `languages`: their identified languages): a
        unit translated into another language."""
        assert self.keys is not None
        n_items = len(self.item_ids)
        for t, u, coverage, span, item_chars, evidence in self.keys.matches_many(texts[a:b], self.settings.rewrite_floor,
                                                                                  column, languages):
            self._add(found, t * n_items + u, coverage, coverage, [span], "rewrite", span, evidence,
                      item_chars=item_chars)

    def _gloss_matches(self, texts: Sequence[str | None], a: int, b: int, han: np.ndarray,
                       found: dict[int, list[dict[str, Any]]]) -> None:
        """Add to `found` (keyed by text - a) the rewrite matches of texts[a:b] holding Chinese,
        read through the dictionary (a unit translated into Chinese)."""
        assert self.gloss is not None
        n_items = len(self.item_ids)
        rw = self.gloss.rewrite
        for t, u, coverage, span, stems, pairs in self.gloss.matches(texts[a:b], han[a:b], self.settings.rewrite_floor):
            runs = _stem_runs(rw, u, stems)
            self._add(found, t * n_items + u, coverage, coverage, [span], "rewrite", span,
                      [f"gloss {len(stems)} stems", " ".join(pairs)], runs)

    def _cognate_matches(self, texts: Sequence[str | None], a: int, b: int, tokens: Tokens,
                         found: dict[int, list[dict[str, Any]]]) -> None:
        """Add to `found` (keyed by text - a) the rewrite matches of the non-English European texts
        of texts[a:b], read through cognates (a unit translated into German, Spanish, French, Russian)."""
        assert self.cognate is not None
        n_items = len(self.item_ids)
        rw = self.cognate.rewrite
        for t, u, coverage, span, stems, pairs in self.cognate.matches(texts[a:b], tokens, self.settings.rewrite_floor):
            runs = _stem_runs(rw, u, stems)
            self._add(found, t * n_items + u, coverage, coverage, [span], "rewrite", span,
                      [f"cognate {len(stems)} keys", " ".join(pairs)], runs)

    def _translation_matches(self, texts: Sequence[str | None], a: int, b: int, found: dict[int, list[dict[str, Any]]],
                             languages: list[str | None] | None = None) -> None:
        """Add to `found` (keyed by text - a) the rewrite matches of texts[a:b] read through the
        multilingual sentence embedding: a question translated into another language, or reworded
        in its own (the units sharing enough of its stems, by the rewrite tier's `stem_cover`)."""
        assert self.translation is not None
        n_items = len(self.item_ids)
        cover = self.rewrite.stem_cover if self.rewrite is not None else None
        # the units of items another tier found whole are not compared again (as for the rewrite tier)
        units_of: dict[tuple[str, str], list[int]] = {}
        skip: dict[int, set[int]] = {}
        for text, ms in found.items():
            whole = {(m["eval_set"], m["eval_id"]) for m in ms if m["coverage"] >= 1.0}
            if whole and not units_of:
                for it in self.translation.units.tolist():
                    units_of.setdefault((self.set_names[self.item_set[it]], self.item_ids[it]), []).append(it)
            if whole:
                skip[text] = {it for key in whole for it in units_of.get(key, ())}
        for t, u, cosine, span, unit_span, evidence in self.translation.matches(texts[a:b], self.settings.rewrite_floor,
                                                                                languages, cover, skip):
            self._add(found, t * n_items + u, cosine, cosine, [span], "rewrite", span, evidence, item_chars=[unit_span])

    def _code_key_matches(self, texts: Sequence[str | None], a: int, b: int, keyed: np.ndarray,
                          found: dict[int, list[dict[str, Any]]]) -> None:
        """Add to `found` (keyed by text - a) the code_key matches of the code-like texts[a:b]."""
        assert self.code_key is not None
        n_items = len(self.item_ids)
        for t in np.flatnonzero(keyed[a:b]).tolist():
            for it, coverage, spans, item_chars, evidence in self.code_key.matches(texts[a + t] or "",
                                                                                  self.settings.code_key_floor):
                self._add(found, t * n_items + it, coverage, coverage, spans, "code_key", evidence=evidence,
                          item_chars=item_chars)

    def _add(self, found: dict, pair: int, overlap: float, coverage: float, spans: list[list[int]],
             method: str, longest: list[int] | None = None, evidence: list[str] | None = None,
             item_words: list[tuple[int, int]] | None = None, item_chars: list[list[int]] | None = None) -> None:
        """Record a match of pair (text x item); `item_words`: the [start, end) word ranges of the
        item matched, reported as character spans of the unit's text (`item_spans`), or
        `item_chars`: those spans already."""
        text, item = divmod(pair, len(self.item_ids))
        found.setdefault(text, []).append({
            "eval_set": self.set_names[self.item_set[item]], "eval_id": self.item_ids[item],
            "overlap": round(min(1.0, overlap), 4), "coverage": round(min(1.0, coverage), 4), "spans": spans,
            "method": method, "score": round(min(1.0, coverage), 4),
            "longest_span": longest or max(spans, key=lambda s: (s[1] - s[0], -s[0])), "evidence": evidence or [],
            "unit": self.item_units[item] if self.item_units else WHOLE,
            "item_spans": _merge_spans(item_chars) if item_chars else self._item_spans(item, item_words or [])})

    def _item_spans(self, item: int, words: list[tuple[int, int]]) -> list[list[int]]:
        """Character spans, in the text of unit `item`, of its word ranges `words` (merged)."""
        if self.item_bounds is None or self.item_starts is None or self.item_ends is None:
            return []
        base, top = int(self.item_bounds[item]), int(self.item_bounds[item + 1])
        spans = [[int(self.item_starts[base + a]), int(self.item_ends[min(base + b, top) - 1])]
                 for a, b in words if b > a and base + a < top]
        return _merge_spans(spans)

    def _ngram_matches(self, pair: np.ndarray, pos: np.ndarray, win: np.ndarray, n: int, tokens: Tokens,
                       texts: list[str | None] | None = None) -> Iterable[tuple[int, float, float, list[list[int]], list[str]]]:
        """(text x item, overlap, coverage, spans, evidence) of pairs whose n-grams cover >= threshold
        of the item. Evidence (skeleton index with `texts`): "item number -> record number" for the
        numbers that differ in the matched n-grams."""
        n_items = len(self.item_ids)
        # Covered item words: the union of [pos, pos + n) over distinct positions found.
        order = np.lexsort((pos, pair))
        ps, qs = pair[order], pos[order].astype(np.int64)
        keep = np.ones(len(ps), dtype=bool)
        keep[1:] = (ps[1:] != ps[:-1]) | (qs[1:] != qs[:-1])
        ps, qs = ps[keep], qs[keep]
        starts = _runs(ps)
        step = np.full(len(ps), n, dtype=np.int64)
        same_next = np.zeros(len(ps), dtype=bool)
        same_next[:-1] = ps[1:] == ps[:-1]
        step[:-1][same_next[:-1]] = np.minimum(np.diff(qs)[same_next[:-1]], n)
        covered = np.add.reduceat(step, starts)
        pairs = ps[starts]
        words = self.item_words[pairs % n_items]
        coverable = words if self.coverable is None else self.coverable[pairs % n_items]
        coverage = covered / np.maximum(1, coverable)
        # The contract's overlap: distinct item n-grams found / the item's n-grams.
        found_grams = np.diff(np.append(starts, len(ps)))
        overlap = found_grams / np.maximum(1, words - n + 1)
        # A match also covers at least `ngram` words (all of a shorter item): one common 5-word
        # phrase must not make a 9-word question a leak.
        need = self.settings.ngram if self.need is None else self.need[pairs % n_items]
        good = (coverage >= self.settings.floor) & (covered >= np.minimum(coverable, need))
        if not good.any():
            return
        wanted = pairs[good]
        # The item side: merged runs of matched n-gram positions [q, q + n) of each wanted pair.
        brk = np.ones(len(ps), dtype=bool)
        brk[1:] = (ps[1:] != ps[:-1]) | (qs[1:] > qs[:-1] + n)
        run_at = np.flatnonzero(brk)
        run_end = np.maximum.reduceat(qs, run_at) + n if len(run_at) else run_at
        item_runs: dict[int, list[tuple[int, int]]] = {}
        chosen = np.isin(ps[run_at], wanted)
        for p, a, b in zip(ps[run_at][chosen].tolist(), qs[run_at][chosen].tolist(), run_end[chosen].tolist()):
            item_runs.setdefault(p, []).append((a, b))
        # Spans: merged runs of matching windows [win, win + n) in the record.
        sel = np.isin(pair, wanted)
        order = np.lexsort((win[sel], pair[sel]))
        wp, ww, wq = pair[sel][order], win[sel][order], pos[sel][order]
        new = np.ones(len(wp), dtype=bool)
        new[1:] = (wp[1:] != wp[:-1]) | (ww[1:] > ww[:-1] + n)
        span_start = np.flatnonzero(new)
        last_word = np.maximum.reduceat(ww, span_start) + n - 1
        char_a = tokens.starts[ww[span_start]]
        char_b = tokens.ends[last_word]
        spans_by_pair: dict[int, list[list[int]]] = {}
        for p, a, b in zip(wp[span_start].tolist(), char_a.tolist(), char_b.tolist()):
            spans_by_pair.setdefault(p, []).append([a, b])
        evidence = self._number_evidence(wp, ww, wq, n, tokens, texts) if self.numbers and texts else {}
        for p, ov, cov in zip(wanted.tolist(), overlap[good].tolist(), coverage[good].tolist()):
            yield p, ov, cov, spans_by_pair[p], evidence.get(p, []), item_runs.get(p, [])

    def _number_evidence(self, pair: np.ndarray, win: np.ndarray, pos: np.ndarray, n: int, tokens: Tokens,
                         texts: list[str | None]) -> dict[int, list[str]]:
        """Per pair, "item number -> record number" for each number word of its matched n-grams
        that differs from the item's (in record order, each record word once)."""
        k = np.arange(n, dtype=np.int64)
        rec = (win[:, None] + k).ravel()
        itm = (pos.astype(np.int64)[:, None] + k).ravel()
        prs = np.repeat(pair, n)
        num = tokens.hashes[rec] == np.uint64(_NUMBER)
        rec, itm, prs = rec[num], itm[num], prs[num]
        _, first = np.unique(prs * (len(tokens.hashes) + 1) + rec, return_index=True)
        n_items = len(self.item_ids)
        out: dict[int, list[str]] = {}
        text_of = tokens.text_of
        for p, r, i in zip(prs[first].tolist(), rec[first].tolist(), itm[first].tolist()):
            text = texts[int(text_of[r])] or ""
            got = text[int(tokens.starts[r]):int(tokens.ends[r])]
            want = self.numbers.get(((p % n_items) << 32) | i, "")
            ev = out.setdefault(p, [])
            if got != want and len(ev) < _MAX_EVIDENCE and max(len(got), len(want)) <= _MAX_EVIDENCE_CHARS:
                ev.append(f"{want} -> {got}")
        return out

    def _fuzzy_matches(self, tokens: Tokens, text_of: np.ndarray, skip: set[int],
                       hashed: dict[int, tuple[np.ndarray, np.ndarray]]
                       ) -> Iterable[tuple[int, float, list[list[int]], list[int], list[tuple[int, int]]]]:
        """(text x item, coverage, spans, longest span, item word ranges aligned) of the pairs holding enough of the item's
        rare n-grams, confirmed by aligning the item's pieces against the record around those hits.
        Coverage: the weight of the item words aligned (matches only) over the item's weight.
        `hashed`: the record's n-grams by size (ngram_hashes_by_size), the fuzzy tier's among them."""
        f = self.fuzzy
        assert f is not None
        n_items = len(self.item_ids)
        g, first = hashed[f.grams.n]
        probe, post = f.grams.lookup(g)
        if len(probe) == 0:
            return
        win = first[probe]
        item = f.grams.item[post].astype(np.int64)
        pair = text_of[win] * n_items + item
        pos = f.grams.pos[post]
        order = np.lexsort((pos, pair))
        pair, pos, win = pair[order], pos[order], win[order]
        starts = _runs(pair)
        new_pos = np.ones(len(pair), dtype=bool)
        new_pos[1:] = (pair[1:] != pair[:-1]) | (pos[1:] != pos[:-1])
        distinct = np.add.reduceat(new_pos.astype(np.int64), starts)
        cand_item = pair[starts] % n_items
        need = np.maximum(_FUZZY_MIN_HITS, np.ceil(_FUZZY_CANDIDATE_SHARE * f.rare[cand_item]))
        ends = np.append(starts[1:], len(pair))
        for k in np.flatnonzero(distinct >= need).tolist():
            p = int(pair[starts[k]])
            if p in skip:
                continue
            text, it = divmod(p, n_items)
            size = int(f.bounds[it + 1] - f.bounds[it])
            cols = self._fuzzy_region(np.unique(win[starts[k]:ends[k]]), tokens, text, size, f.grams.n)
            got = self._aligned(it, cols, tokens)
            if got is not None:
                yield p, *got

    def _aligned(self, it: int, cols: np.ndarray, tokens: Tokens,
                 min_share: float = _FUZZY_PIECE_MIN_SHARE
                 ) -> tuple[float, list[list[int]], list[int], list[tuple[int, int]]] | None:
        """Item `it` aligned piece by piece against the record words `cols` (-1: a separator):
        (coverage, spans, longest span, the item word ranges of the pieces counted), or None when under the measure floor or too few words
        (the confirmation of the fuzzy and semantic tiers). A piece counts with `min_share` of its
        words aligned (and _FUZZY_PIECE_MIN_WORDS)."""
        f = self.fuzzy
        assert f is not None
        lo, hi = int(f.bounds[it]), int(f.bounds[it + 1])
        total = float(f.weights[lo:hi].sum())
        if total <= 0:
            return None
        doc = tokens.hashes[cols]
        doc[cols < 0] = _SEPARATOR
        c = self.settings
        floor = min(c.minhash_floor, c.semantic_floor)
        need_words = min(c.ngram, max(c.min_ngram, _FUZZY_SHORT_SHARE * (hi - lo)))
        # An aligned word is a word present in `doc`: pieces with too few present cannot count, and
        # when those that can hold too little of the item, no alignment reaches the floor.
        present = np.isin(f.words[lo:hi], doc)
        starts = f.pieces[it][:-1]
        piece_present = np.add.reduceat(present.astype(np.int64), starts)
        could = piece_present >= np.maximum(_FUZZY_PIECE_MIN_WORDS, min_share * np.diff(f.pieces[it]))
        if float(np.add.reduceat(f.weights[lo:hi] * present, starts)[could].sum()) < floor * total \
                or int(piece_present[could].sum()) < need_words:
            return None
        covered = 0.0
        words = 0
        spans, longest, longest_words, runs = [], None, 0, []
        piece_words = np.diff(f.pieces[it])
        for k, (hit, size) in enumerate(zip(align_pieces(f.words[lo:hi], f.weights[lo:hi], f.pieces[it], doc),
                                            piece_words)):
            if hit.words < max(_FUZZY_PIECE_MIN_WORDS, min_share * size):
                continue
            runs.append((int(f.pieces[it][k]), int(f.pieces[it][k + 1])))
            covered += hit.weight
            words += hit.words
            span = [int(tokens.starts[cols[hit.start]]), int(tokens.ends[cols[hit.end - 1]])]
            spans.append(span)
            if hit.words > longest_words:
                longest, longest_words = span, hit.words
        coverage = covered / total
        if coverage < floor or longest is None or words < need_words:
            return None
        return coverage, _merge_spans(spans), longest, runs

    @staticmethod
    def _fuzzy_region(hits: np.ndarray, tokens: Tokens, text: int, item_words: int, n: int) -> np.ndarray:
        """Record word indices to align an item against: windows around the candidate hits
        (merged, the densest first when over the cap), -1 between windows (a separator)."""
        lo, hi = int(tokens.bounds[text]), int(tokens.bounds[text + 1])
        a = np.maximum(hits - _FUZZY_PAD_WORDS, lo)
        b = np.minimum(hits + n + _FUZZY_PAD_WORDS, hi)
        new = np.ones(len(a), dtype=bool)
        new[1:] = a[1:] > np.maximum.accumulate(b)[:-1]
        first = np.flatnonzero(new)
        wa = a[first]
        wb = np.maximum.reduceat(b, first)
        density = np.diff(np.append(first, len(a)))
        cap = min(_FUZZY_REGION_PER_WORD * item_words + 2 * _FUZZY_PAD_WORDS,
                  max(4 * _FUZZY_PAD_WORDS, _FUZZY_MAX_CELLS // max(1, item_words)))
        keep = np.zeros(len(wa), dtype=bool)
        size = 0
        for w in np.argsort(-density, kind="stable").tolist():
            if size and size + wb[w] - wa[w] > cap:
                continue
            keep[w] = True
            wb[w] = min(wb[w], wa[w] + cap)  # the densest window alone may be over the cap
            size += int(wb[w] - wa[w])
        parts = []
        for x, y in zip(wa[keep].tolist(), wb[keep].tolist()):
            parts += [np.arange(x, y, dtype=np.int64), np.array([-1], dtype=np.int64)]
        return np.concatenate(parts[:-1])


# Methods in the order their tiers run: a tie in coverage goes to the earlier (the simpler evidence).
METHODS = ("exact_ngram", "fuzzy", "skeleton", "code", "semantic", "code_key", "rewrite")
_METHOD_RANK = {m: k for k, m in enumerate(METHODS)}
# Tiers whose coverage is not a share of the item's words in order (an embedding's proposal, a
# bag of code keys or word stems): a match of the other tiers that counts is preferred to theirs.
_LOOSE = frozenset({"semantic", "code_key", "rewrite"})


def _best_per_method(matches: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """One match per (record, item, method), the highest coverage, sorted best first: each tier's
    evidence is kept whatever the thresholds, so `audit decide` can judge every method with its
    own threshold (which one counts is `counted`'s choice, not the measuring's). An item covered
    whole keeps only the first method covering it whole: every threshold counts it, and it wins."""
    best: dict[tuple[str, str, str], dict[str, Any]] = {}
    for m in matches:
        key = (m["eval_set"], m["eval_id"], m["method"])
        if key not in best or m["coverage"] > best[key]["coverage"]:
            best[key] = m
    ranked = sorted(best.values(), key=lambda m: (m["method"] in _LOOSE, -m["coverage"], m["eval_set"], m["eval_id"],
                                                  _METHOD_RANK[m["method"]]))
    whole = set()
    out = []
    for m in ranked:
        item = (m["eval_set"], m["eval_id"])
        if item in whole:
            continue
        if m["coverage"] >= 1.0:
            whole.add(item)
        out.append(m)
    return out


def _merge_spans(spans: list[list[int]]) -> list[list[int]]:
    """Sorted spans, overlapping ones merged."""
    out: list[list[int]] = []
    for a, b in sorted(spans):
        if out and a <= out[-1][1]:
            out[-1][1] = max(out[-1][1], b)
        else:
            out.append([a, b])
    return out


class ContaminationStage(ConfigStage):
    """Writes `contamination`: the eval items each record contains (empty list: none; null: unreadable)."""

    name = "contamination"
    reads = ("text", "words", "language")  # (language: the language stage's column, when it ran)
    writes = ("contamination",)

    def __init__(self, config: "AuditConfig", index: ContaminationIndex | None = None) -> None:
        super().__init__(config)
        self.index = index

    def setup(self) -> None:
        if self.index is None:
            self.index = ContaminationIndex.build(self.config)
        char_tables_ready()

    def __call__(self, batch: pa.Table) -> pa.Table:
        texts = batch.column("text").to_pylist()
        if self.index is None:
            matches: list = [None if t is None else [] for t in texts]
        else:
            languages = batch.column("language").to_pylist() if "language" in batch.column_names else None
            matches = self.index.match(texts, block_tokens(batch), batch.column("text"), languages)
        return batch.append_column("contamination", pa.array(matches, COLUMN_TYPE))

    def judge(self, table: pa.Table) -> Iterable[Finding]:
        """`contamination:<eval_set>` per record and eval set, for its best item among the matches
        that count (`counted`: the one rule of the thresholds)."""
        config = self.config
        if "contamination" not in table.column_names:
            return
        for row, matches in enumerate(counted(table.column("contamination"), config).to_pylist()):
            if not matches:
                continue
            best: dict[str, dict] = {}
            count: dict[str, int] = {}
            for m in matches:  # best first, one per item
                count[m["eval_set"]] = count.get(m["eval_set"], 0) + 1
                best.setdefault(m["eval_set"], m)
            for name, m in best.items():
                yield row, f"contamination:{name}", {"eval_id": m["eval_id"], "overlap": m["overlap"],
                                                     "coverage": m["coverage"], "method": m["method"],
                                                     "items": count[name]}


def counted(column: pa.Array | pa.ChunkedArray, config: "AuditConfig") -> pa.Array:
    """The `contamination` column with only the matches that count: of each (record, item), the
    best match (highest coverage, the earlier method on a tie) among those at or over their
    method's threshold (`contamination.limit`). The kept measurements hold every method's match
    down to the measure floor, so this is where thresholds act, in a run and in `audit decide`."""
    c = config.contamination
    col = column.combine_chunks() if isinstance(column, pa.ChunkedArray) else column
    flat = pc.list_flatten(col)
    if len(flat) == 0:
        return col
    methods = pc.struct_field(flat, "method").to_numpy(zero_copy_only=False)
    limits = {m: c.limit(m) for m in set(methods.tolist())}
    limit = np.array([limits[m] for m in methods.tolist()], dtype=np.float64)
    coverage = pc.struct_field(flat, "coverage").to_numpy(zero_copy_only=False)
    keep = coverage >= limit
    # Matches are stored best first: the first of each (record, item) that counts is its best.
    parents = pc.list_parent_indices(col).to_numpy(zero_copy_only=False)
    rows = np.flatnonzero(keep)
    if len(rows):
        keys = pa.table({"p": parents[rows], "s": pc.struct_field(flat, "eval_set").take(pa.array(rows)),
                         "i": pc.struct_field(flat, "eval_id").take(pa.array(rows)), "k": rows})
        first = keys.group_by(["p", "s", "i"], use_threads=False).aggregate([("k", "min")]).column("k_min")
        keep = np.zeros(len(flat), dtype=bool)
        keep[first.to_numpy()] = True
    return filter_list(col, pa.array(keep))


def first_match(table: pa.Table, config: "AuditConfig") -> dict | None:
    """The first record (in table order) with a contamination match that counts: the canary's
    stop signal. Returns doc_id, shard, record, eval_set, eval_id, overlap and method of its
    best match of a method in `contamination.canary_methods`, or None when no record of `table` has one.
    """
    if "contamination" not in table.column_names or table.num_rows == 0:
        return None
    col = table.column("contamination").combine_chunks()
    flat = pc.list_flatten(col)
    if len(flat):  # the canary's methods first: a match of one of them counts even where another method's is better
        wanted = pc.is_in(pc.struct_field(flat, "method"), pa.array(config.contamination.canary_methods, pa.string()))
        col = filter_list(col, wanted)
    table = table.set_column(table.schema.get_field_index("contamination"), "contamination", counted(col, config))
    lengths = pc.fill_null(pc.list_value_length(table.column("contamination")), 0)
    hits = pc.indices_nonzero(pc.greater(lengths, 0))
    if len(hits) == 0:
        return None
    row = hits[0].as_py()
    m = table.column("contamination")[row].as_py()[0]
    out = {k: (table.column(k)[row].as_py() if k in table.column_names else None)
           for k in ("doc_id", "shard", "record")}
    out.update(eval_set=m["eval_set"], eval_id=m["eval_id"], overlap=m["overlap"], method=m["method"])
    return out
