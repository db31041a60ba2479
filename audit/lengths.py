"""Document length statistics for the summary and the report: percentiles, a log-spaced
histogram, and how much of the corpus fits each training context length.

`LengthStats` gathers them a block at a time (rows with a null length are left out) and
`length_report` gives the summary's view of them.
`TokenCounter` counts tokens with a `tokenizers` JSON file (stats.tokenizer) when one is named;
without one, context fit is measured in words.
"""
from __future__ import annotations

import copy
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa

PERCENTILES = (50, 90, 95, 99)
# Histogram bins per power of ten (edges at 1, 1.78, 3.16, 5.62, 10, ...).
BINS_PER_DECADE = 4



def log_bin_edges(max_value: float, bins_per_decade: int = BINS_PER_DECADE) -> np.ndarray:
    """Histogram edges 0, 1, then `bins_per_decade` log-spaced edges per decade up to max_value.

    The edges depend only on the largest value, so histograms of the sources of one run (made
    with the overall maximum) share their bins.
    """
    top = max(1, int(np.ceil(np.log10(max(max_value, 1) + 1) * bins_per_decade)))
    return np.concatenate([[0.0], 10 ** (np.arange(top + 1) / bins_per_decade)])


# The sketch keeps lengths below EXACT_BELOW exactly and larger ones in log bins of
# SKETCH_BINS_PER_DECADE per power of ten: a percentile above EXACT_BELOW is within 0.6% of
# the true value (half a bin's width, 10**(1/200) ~ 1.0116), below it exact.
EXACT_BELOW = 1024
SKETCH_BINS_PER_DECADE = 200
_LOG_EXACT = np.log10(EXACT_BELOW)


def _sketch_bin(values: np.ndarray) -> np.ndarray:
    """Sketch bin of each non-negative integer length."""
    v = np.asarray(values, dtype=np.float64)
    big = v >= EXACT_BELOW
    out = np.floor(v).astype(np.int64)
    if big.any():
        # +1e-9: exact powers of ten must not fall one bin low through float rounding
        out[big] = EXACT_BELOW + np.floor((np.log10(v[big]) - _LOG_EXACT) * SKETCH_BINS_PER_DECADE + 1e-9).astype(np.int64)
    return out


def _bin_value(bins: np.ndarray) -> np.ndarray:
    """The value a bin stands for: itself below EXACT_BELOW, else the geometric centre of its range."""
    b = np.asarray(bins, dtype=np.int64)
    out = b.astype(np.float64)
    big = b >= EXACT_BELOW
    out[big] = 10 ** (_LOG_EXACT + (b[big] - EXACT_BELOW + 0.5) / SKETCH_BINS_PER_DECADE)
    return out


class LengthSketch:
    """Mergeable length statistics of one group of documents for one unit (chars, words, tokens).

    Count, total, max and context fit are exact; percentiles come from the sketch (exact below
    EXACT_BELOW, within 0.6% above). Partials from workers are added with `merge`, so the driver
    never holds one value per document.
    """

    def __init__(self, context_lengths: Sequence[int] = ()) -> None:
        self.counts: dict[int, int] = {}
        self.n = 0
        self.total = 0.0
        self.max: float | None = None
        self.context_lengths = [int(c) for c in context_lengths]
        self.fit_docs = [0] * len(self.context_lengths)     # documents of length <= c
        self.fit_text = [0.0] * len(self.context_lengths)   # their total length
        self.cut_text = [0.0] * len(self.context_lengths)   # sum of min(length, c)

    def add(self, values: np.ndarray) -> None:
        """Add non-null lengths."""
        v = np.asarray(values, dtype=np.float64)
        v = v[~np.isnan(v)]
        if v.size == 0:
            return
        bins, counts = np.unique(_sketch_bin(v), return_counts=True)
        for b, c in zip(bins.tolist(), counts.tolist()):
            self.counts[b] = self.counts.get(b, 0) + c
        self.n += int(v.size)
        self.total += float(v.sum())
        self.max = float(v.max()) if self.max is None else max(self.max, float(v.max()))
        for i, c in enumerate(self.context_lengths):
            fits = v <= c
            self.fit_docs[i] += int(fits.sum())
            self.fit_text[i] += float(v[fits].sum())
            self.cut_text[i] += float(np.minimum(v, c).sum())

    def merge(self, other: "LengthSketch") -> None:
        """Add another sketch of the same unit and context lengths."""
        for b, c in other.counts.items():
            self.counts[b] = self.counts.get(b, 0) + c
        self.n += other.n
        self.total += other.total
        if other.max is not None:
            self.max = other.max if self.max is None else max(self.max, other.max)
        for i in range(len(self.context_lengths)):
            self.fit_docs[i] += other.fit_docs[i]
            self.fit_text[i] += other.fit_text[i]
            self.cut_text[i] += other.cut_text[i]

    def to_dict(self) -> dict[str, Any]:
        """A JSON-able form (for per-shard partials)."""
        return {"counts": [[b, c] for b, c in sorted(self.counts.items())], "n": self.n, "total": self.total,
                "max": self.max, "context_lengths": self.context_lengths, "fit_docs": self.fit_docs,
                "fit_text": self.fit_text, "cut_text": self.cut_text}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> "LengthSketch":
        s = cls(d["context_lengths"])
        s.counts = {int(b): int(c) for b, c in d["counts"]}
        s.n, s.total, s.max = int(d["n"]), float(d["total"]), d["max"]
        s.fit_docs, s.fit_text, s.cut_text = list(d["fit_docs"]), list(d["fit_text"]), list(d["cut_text"])
        return s

    def _order_stat(self, bins: np.ndarray, cum: np.ndarray, k: np.ndarray) -> np.ndarray:
        """Value of the k-th smallest document (0-based)."""
        return _bin_value(bins[np.searchsorted(cum, k, side="right")])

    def describe(self) -> dict[str, Any]:
        """p50/p90/p95/p99 (numpy's linear interpolation over the sketch's order statistics), max, mean, total."""
        if self.n == 0:
            return {f"p{q}": None for q in PERCENTILES} | {"max": None, "mean": None, "total": 0}
        bins = np.array(sorted(self.counts), dtype=np.int64)
        cum = np.cumsum([self.counts[b] for b in bins.tolist()])
        out: dict[str, Any] = {}
        for q in PERCENTILES:
            h = (self.n - 1) * q / 100
            lo = int(np.floor(h))
            a, b = self._order_stat(bins, cum, np.array([lo, min(lo + 1, self.n - 1)]))
            out[f"p{q}"] = float(a + (h - lo) * (b - a))
        out.update(max=self.max, mean=self.total / self.n, total=self.total)
        return out

    def histogram(self, edges: np.ndarray) -> list[int]:
        """Documents per display bin [edges[i], edges[i+1]) (the last bin closed), from the sketch."""
        if not self.counts:
            return [0] * (len(edges) - 1)
        bins = np.array(sorted(self.counts), dtype=np.int64)
        counts = np.array([self.counts[b] for b in bins.tolist()], dtype=np.int64)
        idx = np.clip(np.searchsorted(edges, _bin_value(bins), side="right") - 1, 0, len(edges) - 2)
        return np.bincount(idx, weights=counts, minlength=len(edges) - 1).astype(np.int64).tolist()

    def context_fit(self) -> dict[str, dict[str, float | None]]:
        """Per context length: share of documents that fit whole, share of the text in them, and
        the share of the text kept if every document were cut at the context length."""
        out: dict[str, dict[str, float | None]] = {}
        for i, c in enumerate(self.context_lengths):
            out[str(c)] = {
                "documents": self.fit_docs[i] / self.n if self.n else None,
                "text": self.fit_text[i] / self.total if self.total else None,
                "text_if_truncated": self.cut_text[i] / self.total if self.total else None,
            }
        return out


class LengthStats:
    """Length sketches of one group of documents: chars, words and (when counted) tokens."""

    UNITS = ("chars", "words", "tokens")

    def __init__(self, context_lengths: Sequence[int] = ()) -> None:
        self.context_lengths = list(context_lengths)
        self.units: dict[str, LengthSketch] = {}

    def add(self, cols: dict[str, np.ndarray]) -> None:
        """Add documents: {unit: lengths}, same length per unit, rows with any null left out."""
        keep = np.logical_and.reduce([~np.isnan(np.asarray(v, dtype=np.float64)) for v in cols.values()])
        for unit, values in cols.items():
            sk = self.units.get(unit)
            if sk is None:
                sk = self.units[unit] = LengthSketch(self.context_lengths)
            sk.add(np.asarray(values, dtype=np.float64)[keep])

    def merge(self, other: "LengthStats") -> None:
        for unit, sk in other.units.items():
            if unit in self.units:
                self.units[unit].merge(sk)
            else:
                self.units[unit] = copy.deepcopy(sk)

    def to_dict(self) -> dict[str, Any]:
        return {"context_lengths": self.context_lengths, "units": {u: s.to_dict() for u, s in self.units.items()}}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> "LengthStats":
        s = cls(d["context_lengths"])
        s.units = {u: LengthSketch.from_dict(x) for u, x in d["units"].items()}
        return s

    @property
    def documents(self) -> int:
        return self.units["chars"].n if "chars" in self.units else 0

    def summary(self, edges: dict[str, np.ndarray]) -> dict[str, Any]:
        """{"documents", unit: {percentiles, histogram}, "context_fit"} on the given display edges."""
        out: dict[str, Any] = {"documents": self.documents}
        for unit in self.UNITS:
            sk = self.units.get(unit)
            if sk is None:
                continue
            out[unit] = sk.describe() | {"histogram": {"edges": edges[unit].tolist(),
                                                       "counts": sk.histogram(edges[unit])}}
        fit_unit = "tokens" if "tokens" in self.units else "words"
        fit = self.units.get(fit_unit) or LengthSketch(self.context_lengths)
        out["context_fit"] = {"unit": fit_unit, "lengths": fit.context_fit()}
        return out


def length_report(overall: LengthStats, by_source: dict[str, LengthStats]) -> dict[str, Any]:
    """{"overall": S, "by_source": {source: S}}: every source's histogram on the overall bins."""
    edges = {u: log_bin_edges(sk.max or 0.0) for u, sk in overall.units.items()}
    for u in ("chars", "words"):
        edges.setdefault(u, log_bin_edges(0.0))
    return {"overall": overall.summary(edges),
            "by_source": {name: by_source[name].summary(edges) for name in sorted(by_source)}}


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
