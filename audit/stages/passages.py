"""Passage fingerprints: which records might contain a given passage, from a small per-record sample.

A record's words are THE shared normaliser's (audit.normalize.tokenize_hashed: NFKC, lowercase,
punctuation dropped, split on white space) and its word n-grams (PASSAGE_NGRAM words) are hashed
with audit.normalize.ngram_hashes. Winnowing keeps the minimum hash of every window of
PASSAGE_WINDOW consecutive n-grams: about 2 / (PASSAGE_WINDOW + 1) of the n-grams, and any passage
of at least MIN_GUARANTEED_WORDS words copied from anywhere in the record shares at least one kept
hash with it, because a window lying wholly inside the copy has the same minimum in both texts.
A query looks up the passage's n-gram hashes (see passage_query).
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from audit.normalize import (Tokens, block_tokens, char_tables_ready, ngram_hashes, tables_fingerprint,
                             tokenize_hashed)
from audit.stages import ConfigStage

PASSAGE_NGRAM = 7
PASSAGE_WINDOW = 20
# Words a copied passage needs for a find that does not depend on luck.
MIN_GUARANTEED_WORDS = PASSAGE_NGRAM + PASSAGE_WINDOW - 1
# A passage query sends at most this many fingerprints (the smallest: a consistent sample).
MAX_QUERY_KEYS = 256
PASSAGE_HASHES_TYPE = pa.list_(pa.uint64())


def text_ngrams(texts: Sequence[str | None], ngram: int = PASSAGE_NGRAM,
                tokens: Tokens | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(n-gram hashes, owner text of each, words per text), in text then position order.

    `tokens`: the texts' words when already tokenised (the pipeline tokenises a block once).
    """
    tokens = tokens if tokens is not None else tokenize_hashed(texts)
    g, first = ngram_hashes(tokens, ngram)
    return g, tokens.text_of[first], tokens.counts.astype(np.int64)


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
                         window: int = PASSAGE_WINDOW, tokens: Tokens | None = None) -> pa.ListArray:
    """The winnowed n-gram hashes of every text, as list<uint64> (null for a null text)."""
    if isinstance(texts, pa.ChunkedArray):
        texts = texts.combine_chunks()
    n = len(texts)
    grams, owners, _ = text_ngrams(texts.to_pylist(), ngram, tokens)
    vals, own = winnow(grams, owners, n, window)
    counts = np.bincount(own, minlength=n) if n else np.zeros(0, np.int64)
    offsets = np.zeros(n + 1, dtype=np.int32)
    np.cumsum(counts, out=offsets[1:])
    mask = pc.is_null(texts) if texts.null_count else None
    return pa.ListArray.from_arrays(pa.array(offsets, pa.int32()), pa.array(vals, pa.uint64()),
                                    type=PASSAGE_HASHES_TYPE, mask=mask)


def passage_scheme() -> dict[str, object]:
    """What an index's fingerprints were made with (the normaliser's word rules among it: Chinese
    was cut into characters from its version 2 on); a lookup needs the same to use them."""
    return {"words": f"audit.normalize.tokenize_hashed {tables_fingerprint()}", "ngram": PASSAGE_NGRAM,
            "window": PASSAGE_WINDOW}


@dataclass(frozen=True)
class PassageQuery:
    """A passage ready to look up: its normalised word count and the fingerprints to send."""

    words: int
    keys: np.ndarray       # uint64 n-gram hashes, at most MAX_QUERY_KEYS, the smallest, sorted


def passage_query(text: str, ngram: int = PASSAGE_NGRAM, max_keys: int = MAX_QUERY_KEYS) -> PassageQuery:
    """The fingerprints to look a passage up by: its n-gram hashes, the smallest `max_keys` of them.

    Every n-gram is asked for (not only the passage's own window minima), so any record
    fingerprint lying in an unchanged stretch of the passage is found, even a stretch shorter
    than MIN_GUARANTEED_WORDS. Small hashes are what winnowing keeps, so the smallest are the
    best sample; the passage's smallest n-gram is a record fingerprint whenever the record holds
    MIN_GUARANTEED_WORDS or more of the passage unchanged around it.
    """
    grams, _, words = text_ngrams([text], ngram)
    keys = np.unique(grams)  # sorted
    return PassageQuery(words=int(words[0]), keys=keys[:max_keys])


class PassageIndexStage(ConfigStage):
    """Writes `passage_hashes`: the record's winnowed word n-gram hashes, for passage lookups.

    They travel in the measurement parts; the index pass (audit.job.index_pass) sorts them into
    index/passages/, which `audit lookup --passage` and takedowns query.
    """

    name: ClassVar[str] = "passages"
    reads: ClassVar[tuple[str, ...]] = ("text", "words")
    writes: ClassVar[tuple[str, ...]] = ("passage_hashes",)

    def setup(self) -> None:
        char_tables_ready()  # the tokeniser's tables, built once per worker rather than in a batch

    def __call__(self, batch: pa.Table) -> pa.Table:
        return batch.append_column("passage_hashes", passage_fingerprints(batch.column("text"),
                                                                          tokens=block_tokens(batch)))
