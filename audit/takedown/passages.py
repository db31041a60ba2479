"""Passage fingerprints: which records might contain a given passage, from a small per-record sample.

A record's text is normalised with THE shared normaliser (audit.normalize.normalize_array: NFKC,
lowercase, punctuation dropped, whitespace collapsed), split on spaces into words, and every word
n-gram (PASSAGE_NGRAM words) is hashed. Winnowing keeps the minimum hash of every window of
PASSAGE_WINDOW consecutive n-grams: about 2 / (PASSAGE_WINDOW + 1) of the n-grams, and any passage
of at least MIN_GUARANTEED_WORDS words copied from anywhere in the record shares at least one kept
hash with it, because a window lying wholly inside the copy has the same minimum in both texts.
A query therefore winnows the passage the same way and looks its hashes up in the index.

(audit/normalize.py has no tokeniser or n-gram hashing yet, so the words and hashes are made here
on top of normalize_array and a split on single spaces.)
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from numpy.lib.stride_tricks import sliding_window_view

from audit.normalize import normalize_array
from audit.stages import Stage
from audit.takedown.hashing import hash_strings, ngram_hashes

PASSAGE_NGRAM = 7
PASSAGE_WINDOW = 20
# Words a copied passage needs for a find that does not depend on luck.
MIN_GUARANTEED_WORDS = PASSAGE_NGRAM + PASSAGE_WINDOW - 1
# A passage query sends at most this many fingerprints (the smallest: a consistent sample).
MAX_QUERY_KEYS = 256
PASSAGE_HASHES_TYPE = pa.list_(pa.uint64())


@dataclass(frozen=True)
class Words:
    """The normalised words of many texts, back to back, as hashes."""

    hashes: np.ndarray   # uint64, one per word
    starts: np.ndarray   # int64, first word of each text
    counts: np.ndarray   # int64, words of each text


def split_words(normalized: pa.Array | pa.ChunkedArray) -> tuple[pa.Array, np.ndarray]:
    """Words of already normalised texts: (flat string array of words, owner text of each word)."""
    if isinstance(normalized, pa.ChunkedArray):
        normalized = normalized.combine_chunks()
    lists = pc.split_pattern(normalized, " ")
    flat = pc.list_flatten(lists)
    owners = pc.list_parent_indices(lists)
    nonempty = pc.greater(pc.binary_length(flat), 0)  # "" is what an empty text splits into
    return flat.filter(nonempty), owners.filter(nonempty).to_numpy().astype(np.int64)


def text_words(texts: pa.Array | pa.ChunkedArray) -> Words:
    """Normalise texts and hash their words (null texts have no words)."""
    n = len(texts)
    flat, owners = split_words(normalize_array(texts))
    counts = np.bincount(owners, minlength=n).astype(np.int64) if n else np.zeros(0, np.int64)
    starts = np.cumsum(counts) - counts
    if len(flat) == 0:
        return Words(np.zeros(0, np.uint64), starts, counts)
    # Hash each distinct word once: a block repeats its vocabulary many times over.
    encoded = pc.dictionary_encode(flat)
    if isinstance(encoded, pa.ChunkedArray):
        encoded = encoded.combine_chunks()
    word_hashes = hash_strings(encoded.dictionary)[encoded.indices.to_numpy(zero_copy_only=False)]
    return Words(word_hashes, starts, counts)


def _sliding_min(values: np.ndarray, window: int) -> np.ndarray:
    """min(values[i : i + window]) for every i (van Herk / Gil-Werman: three linear passes)."""
    n = len(values)
    blocks = -(-n // window)
    pad = np.full(blocks * window, np.iinfo(np.uint64).max, dtype=np.uint64)
    pad[:n] = values
    grid = pad.reshape(blocks, window)
    prefix = np.minimum.accumulate(grid, axis=1).ravel()
    suffix = np.minimum.accumulate(grid[:, ::-1], axis=1)[:, ::-1].ravel()
    i = np.arange(n - window + 1)
    return np.minimum(suffix[i], prefix[i + window - 1])


def winnow(hashes: np.ndarray, owners: np.ndarray, docs: int, window: int = PASSAGE_WINDOW) -> tuple[np.ndarray, np.ndarray]:
    """The winnowed fingerprints of each document: (values, owner), unique per owner, sorted by owner.

    `hashes`/`owners` are n-gram hashes in document then position order (as ngram_hashes gives
    them). A document with fewer n-grams than the window keeps the minimum of all of them.
    """
    if len(hashes) == 0:
        return np.zeros(0, np.uint64), np.zeros(0, np.int64)
    grams = np.bincount(owners, minlength=docs)
    starts = np.cumsum(grams) - grams
    long_docs = grams >= window
    picked_vals: list[np.ndarray] = []
    picked_owners: list[np.ndarray] = []
    if long_docs.any() and len(hashes) >= window:
        mins = _sliding_min(hashes, window)
        per_doc = grams[long_docs] - window + 1
        first = np.repeat(starts[long_docs], per_doc)
        offset = np.arange(per_doc.sum()) - np.repeat(np.cumsum(per_doc) - per_doc, per_doc)
        picked_vals.append(mins[first + offset])
        picked_owners.append(np.repeat(np.nonzero(long_docs)[0], per_doc))
    short = (grams > 0) & ~long_docs
    if short.any():
        nonempty = grams > 0
        per_doc_min = np.minimum.reduceat(hashes, starts[nonempty])
        short_in_nonempty = short[nonempty]
        picked_vals.append(per_doc_min[short_in_nonempty])
        picked_owners.append(np.nonzero(short)[0])
    vals = np.concatenate(picked_vals)
    own = np.concatenate(picked_owners).astype(np.int64)
    # Neighbouring windows mostly share their minimum: drop the repeats before sorting.
    fresh = np.ones(len(vals), dtype=bool)
    fresh[1:] = (vals[1:] != vals[:-1]) | (own[1:] != own[:-1])
    vals, own = vals[fresh], own[fresh]
    order = np.lexsort((vals, own))
    vals, own = vals[order], own[order]
    keep = np.ones(len(vals), dtype=bool)
    keep[1:] = (vals[1:] != vals[:-1]) | (own[1:] != own[:-1])
    return vals[keep], own[keep]


def passage_fingerprints(texts: pa.Array | pa.ChunkedArray, ngram: int = PASSAGE_NGRAM,
                         window: int = PASSAGE_WINDOW) -> pa.ListArray:
    """The winnowed n-gram hashes of every text, as list<uint64> (null for a null text)."""
    if isinstance(texts, pa.ChunkedArray):
        texts = texts.combine_chunks()
    n = len(texts)
    words = text_words(texts)
    grams, owners = ngram_hashes(words.hashes, words.starts, words.counts, ngram)
    vals, own = winnow(grams, owners, n, window)
    counts = np.bincount(own, minlength=n) if n else np.zeros(0, np.int64)
    offsets = np.zeros(n + 1, dtype=np.int32)
    np.cumsum(counts, out=offsets[1:])
    mask = pc.is_null(texts) if texts.null_count else None
    return pa.ListArray.from_arrays(pa.array(offsets, pa.int32()), pa.array(vals, pa.uint64()),
                                    type=PASSAGE_HASHES_TYPE, mask=mask)


@dataclass(frozen=True)
class PassageQuery:
    """A passage ready to look up: its normalised words and the fingerprints to send."""

    words: int
    keys: np.ndarray       # uint64 fingerprints, at most MAX_QUERY_KEYS, sorted
    all_keys: int          # fingerprints before the cap


def passage_query(text: str, ngram: int = PASSAGE_NGRAM, window: int = PASSAGE_WINDOW,
                  max_keys: int = MAX_QUERY_KEYS) -> PassageQuery:
    """Winnow a passage like an indexed record; long passages send their smallest fingerprints."""
    words = text_words(pa.array([text], pa.string()))
    grams, owners = ngram_hashes(words.hashes, words.starts, words.counts, ngram)
    vals, _ = winnow(grams, owners, 1, window)
    vals = np.sort(vals)
    return PassageQuery(words=int(words.counts[0]), keys=vals[:max_keys], all_keys=len(vals))


class PassageIndexStage(Stage):
    """Writes `passage_hashes`: the record's winnowed word n-gram hashes, for passage lookups.

    The pipeline explodes them into `passages/` (hash, doc_id, shard, record) and
    audit.lookup_index.build_lookup_indexes sorts them into index/passages/.
    """

    name: ClassVar[str] = "passages"
    reads: ClassVar[tuple[str, ...]] = ("text",)
    writes: ClassVar[tuple[str, ...]] = ("passage_hashes",)

    def __call__(self, batch: pa.Table) -> pa.Table:
        return batch.append_column("passage_hashes", passage_fingerprints(batch.column("text")))
