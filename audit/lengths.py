"""Document length statistics for the summary and the report: percentiles, a log-spaced
histogram, and how much of the corpus fits each training context length.

`length_summary` works on numpy or Arrow arrays (nulls, i.e. unreadable records, are left out).
`TokenCounter` counts tokens with a `tokenizers` JSON file (stats.tokenizer) when one is named;
without one, context fit is measured in words.
"""
from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

PERCENTILES = (50, 90, 95, 99)
# Histogram bins per power of ten (edges at 1, 1.78, 3.16, 5.62, 10, ...).
BINS_PER_DECADE = 4

ArrayLike = np.ndarray | pa.Array | pa.ChunkedArray | Sequence


def _as_float(values: ArrayLike) -> np.ndarray:
    """A float array with NaN for nulls."""
    if isinstance(values, (pa.Array, pa.ChunkedArray)):
        return pc.cast(values, pa.float64()).to_numpy(zero_copy_only=False)
    return np.asarray([np.nan if v is None else v for v in values] if isinstance(values, (list, tuple))
                      else values, dtype=float)


def log_bin_edges(max_value: float, bins_per_decade: int = BINS_PER_DECADE) -> np.ndarray:
    """Histogram edges 0, 1, then `bins_per_decade` log-spaced edges per decade up to max_value.

    The edges depend only on the largest value, so histograms of the sources of one run (made
    with the overall maximum) share their bins.
    """
    top = max(1, int(np.ceil(np.log10(max(max_value, 1) + 1) * bins_per_decade)))
    return np.concatenate([[0.0], 10 ** (np.arange(top + 1) / bins_per_decade)])


def _describe(values: np.ndarray) -> dict[str, float]:
    if values.size == 0:
        return {f"p{q}": None for q in PERCENTILES} | {"max": None, "mean": None, "total": 0}
    pct = np.percentile(values, PERCENTILES)
    out: dict[str, Any] = {f"p{q}": float(v) for q, v in zip(PERCENTILES, pct)}
    out.update(max=float(values.max()), mean=float(values.mean()), total=float(values.sum()))
    return out


def _context_fit(lengths: np.ndarray, context_lengths: Sequence[int]) -> dict[str, dict[str, float]]:
    """Per context length: share of documents that fit whole, share of the text in them, and the
    share of the text kept if every document were cut at the context length."""
    n = lengths.size
    total = float(lengths.sum())
    out = {}
    for c in context_lengths:
        fits = lengths <= c
        out[str(c)] = {
            "documents": float(fits.mean()) if n else None,
            "text": float(lengths[fits].sum() / total) if total else None,
            "text_if_truncated": float(np.minimum(lengths, c).sum() / total) if total else None,
        }
    return out


def _summary(cols: dict[str, np.ndarray], fit_unit: str, context_lengths: Sequence[int],
             edges: dict[str, np.ndarray]) -> dict[str, Any]:
    out: dict[str, Any] = {"documents": int(next(iter(cols.values())).size)}
    for unit, values in cols.items():
        counts, _ = np.histogram(values, bins=edges[unit])
        out[unit] = _describe(values) | {"histogram": {"edges": edges[unit].tolist(), "counts": counts.tolist()}}
    out["context_fit"] = {"unit": fit_unit, "lengths": _context_fit(cols[fit_unit], context_lengths)}
    return out


def length_summary(chars: ArrayLike, words: ArrayLike, tokens: ArrayLike | None = None,
                   sources: ArrayLike | None = None,
                   context_lengths: Sequence[int] = (2048, 4096, 8192, 32768)) -> dict[str, Any]:
    """Length statistics overall and per source.

    Returns {"overall": S, "by_source": {source: S}} where S is {"documents", "chars", "words",
    ["tokens"], "context_fit"}; each unit holds p50/p90/p95/p99/max/mean/total and a histogram
    {"edges", "counts"} on log-spaced bins (shared by all sources). "context_fit" is measured in
    tokens when given, else in words: for each context length, the share of documents that fit
    whole, the share of the text inside those documents, and the share of the text kept when
    every document is cut to the context length. Rows with a null length are left out.
    """
    cols = {"chars": _as_float(chars), "words": _as_float(words)}
    if tokens is not None:
        cols["tokens"] = _as_float(tokens)
    n = cols["chars"].size
    if any(v.size != n for v in cols.values()):
        raise ValueError("chars, words and tokens must have the same length")
    keep = np.logical_and.reduce([~np.isnan(v) for v in cols.values()])
    cols = {k: v[keep] for k, v in cols.items()}
    fit_unit = "tokens" if tokens is not None else "words"
    edges = {k: log_bin_edges(float(v.max()) if v.size else 0.0) for k, v in cols.items()}
    result: dict[str, Any] = {"overall": _summary(cols, fit_unit, context_lengths, edges), "by_source": {}}
    if sources is not None:
        src = (sources.to_pylist() if isinstance(sources, (pa.Array, pa.ChunkedArray)) else list(sources))
        if len(src) != n:
            raise ValueError("sources must have one entry per document")
        src_arr = np.asarray(["" if s is None else str(s) for s in src], dtype=object)[keep]
        if src_arr.size:
            # one sort groups every source's rows (a mask per source would be O(rows x sources))
            names, inv = np.unique(src_arr.astype(str), return_inverse=True)
            by = np.argsort(inv, kind="stable")
            cuts = np.searchsorted(inv[by], np.arange(1, len(names)))
            for name, rows in zip(names.tolist(), np.split(by, cuts)):
                result["by_source"][name] = _summary({k: v[rows] for k, v in cols.items()}, fit_unit,
                                                     context_lengths, edges)
    return result


class TokenCounter:
    """Token counts with a Hugging Face `tokenizers` JSON file (no download: a local path only)."""

    def __init__(self, path: str | Path, batch_size: int = 256) -> None:
        from tokenizers import Tokenizer

        p = Path(path).expanduser()
        if not p.is_file():
            raise FileNotFoundError(f"{p}: tokenizer file not found (stats.tokenizer must name a tokenizer.json)")
        self.tokenizer = Tokenizer.from_file(str(p))
        self.batch_size = batch_size
        # encode_batch_fast (tokenizers >= 0.20) skips the character offsets a count does not need.
        self._encode = getattr(self.tokenizer, "encode_batch_fast", self.tokenizer.encode_batch)

    def count(self, texts: pa.Array | pa.ChunkedArray | Sequence[str | None]) -> pa.Array:
        """Tokens per text (special tokens not added), int64; null for a null text."""
        values = texts.to_pylist() if isinstance(texts, (pa.Array, pa.ChunkedArray)) else list(texts)
        out = np.zeros(len(values), dtype=np.int64)
        present = [i for i, t in enumerate(values) if t is not None]
        for k in range(0, len(present), self.batch_size):
            rows = present[k:k + self.batch_size]
            encs = self._encode([values[i] for i in rows], add_special_tokens=False)
            out[rows] = [len(e.ids) for e in encs]
        mask = np.array([t is None for t in values], dtype=bool)
        return pa.array(out, pa.int64(), mask=mask if mask.any() else None)
