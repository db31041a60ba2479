"""Windowed statistics of the sampled stream, and the references they are compared with.

A window is `sidecar.window` consecutive sampled records. `WindowStats` accumulates one window's
language counts, length histogram and problem counts (duplicates, PII, junk, contamination),
with the step/rank/sample-id range it covers and a few example records per problem for replay.
`DuplicateMemory` remembers MinHash band keys (and exact keys) of the last few windows, so the
duplicate rate sees repeats within a window and across recent windows in bounded memory.
`LengthReference` and `LanguageReference` hold what a window is compared with: the recipe
(`languages.expected`) when it is given, else the first full windows of the stream.
"""
from __future__ import annotations

from collections import Counter, deque
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from audit.dedup.rule import confirmed
from audit.drift import UNDETERMINED, chi_square, compare_mix, js_distance
from audit.lengths import log_bin_edges

# Fixed length-histogram edges (4 per decade up to 10^8 characters), the summary's binning, so
# every window shares its bins with every other.
LENGTH_EDGES = log_bin_edges(1e8)
# Pseudo-count added to every bin of the length reference: a bin the reference happened to leave
# empty is unlikely, not impossible.
LENGTH_SMOOTHING = 0.5
# Problem kinds counted per record in a window.
PROBLEMS = ("duplicate", "pii", "junk", "contamination")


def length_bins(chars: np.ndarray) -> np.ndarray:
    """Bin index of each length in LENGTH_EDGES (lengths beyond the last edge go to the last bin)."""
    idx = np.searchsorted(LENGTH_EDGES, chars, side="right") - 1
    return np.clip(idx, 0, len(LENGTH_EDGES) - 2)


def replay_ref(row: Mapping[str, Any]) -> dict[str, Any]:
    """What names a sampled record for replay: sample id, step, rank, micro-batch, ids."""
    ref = {k: row.get(k) for k in ("sample_id", "global_step", "rank", "micro_batch", "source_id", "doc_id", "seq")}
    if row.get("eval"):
        ref["eval"] = row["eval"]
    return ref


@dataclass
class WindowStats:
    """Counts of one window of sampled records."""

    index: int
    examples_per_kind: int = 20
    records: int = 0
    languages: Counter = field(default_factory=Counter)
    lengths: np.ndarray = field(default_factory=lambda: np.zeros(len(LENGTH_EDGES) - 1, dtype=np.int64))
    problems: Counter = field(default_factory=Counter)
    # Records with any PII finding (the judge counts only those it would quarantine).
    pii_any: int = 0
    eval_sets: Counter = field(default_factory=Counter)
    steps: list[int] = field(default_factory=list)
    ranks: set[int] = field(default_factory=set)
    first_seq: int | None = None
    last_seq: int | None = None
    examples: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    by_language: dict[str, list[dict[str, Any]]] = field(default_factory=dict)

    def add(self, row: Mapping[str, Any], problems: Iterable[str], pii_any: bool, eval_sets: Iterable[str]) -> None:
        """Count one measured record (`row` holds its replay fields, language and chars)."""
        self.records += 1
        seq = row.get("seq")
        if self.first_seq is None:
            self.first_seq = seq
        self.last_seq = seq
        lang = row.get("language") or UNDETERMINED
        self.languages[lang] += 1
        self.lengths[int(length_bins(np.array([row.get("chars") or 0]))[0])] += 1
        if row.get("global_step") is not None:
            step = int(row["global_step"])
            if not self.steps:
                self.steps = [step, step]
            else:
                self.steps = [min(self.steps[0], step), max(self.steps[1], step)]
        if row.get("rank") is not None:
            self.ranks.add(int(row["rank"]))
        ref = replay_ref(row)
        for kind in problems:
            self.problems[kind] += 1
            bucket = self.examples.setdefault(kind, [])
            if len(bucket) < self.examples_per_kind:
                bucket.append(ref)
        self.pii_any += int(pii_any)
        for name in eval_sets:
            self.eval_sets[name] += 1
        # A few records per language: the examples of a new language or a drift.
        bucket = self.by_language.setdefault(lang, [])
        if len(bucket) < self.examples_per_kind:
            bucket.append(ref)

    def rate(self, kind: str) -> float:
        """Share of the window's records with problem `kind`."""
        return self.problems[kind] / self.records if self.records else 0.0

    def context(self) -> dict[str, Any]:
        """Where the window sits in the stream: steps, ranks, sampled-record range."""
        return {"records": self.records, "steps": list(self.steps) or None, "ranks": sorted(self.ranks)[:64],
                "seq": [self.first_seq, self.last_seq]}

    def summary(self) -> dict[str, Any]:
        """The window's figures for status.json and the metrics."""
        n = self.records
        return {"window": self.index, **self.context(),
                "languages": dict(self.languages.most_common()),
                "duplicate_rate": self.rate("duplicate"), "pii_rate": self.rate("pii"),
                "pii_any_rate": self.pii_any / n if n else 0.0, "junk_rate": self.rate("junk"),
                "contamination_hits": self.problems["contamination"],
                "eval_sets": dict(self.eval_sets), "length_p50": self.length_quantile(0.5)}

    def length_quantile(self, q: float) -> float | None:
        """Approximate quantile of the lengths (upper edge of the bin that holds it)."""
        total = int(self.lengths.sum())
        if not total:
            return None
        i = int(np.searchsorted(np.cumsum(self.lengths), q * total))
        return float(LENGTH_EDGES[min(i + 1, len(LENGTH_EDGES) - 1)])


class DuplicateMemory:
    """Exact keys and MinHash band keys of the records of the last `windows` windows.

    A record duplicates an earlier one by the job's rules (audit.dedup): the same exact key (the
    earliest remembered copy is named), or near: a remembered record sharing a band key is a
    candidate, confirmed when the two share at least `min_shared` band keys
    (audit.dedup.rule.confirmed, dedup.min_shared_bands), and the earliest confirmed one is
    named. As in the job, where a cluster is resolved around its kept record, only records that
    are no duplicate themselves are candidates, so a chain of partial overlaps does not reach
    records unlike the first. Memory is bounded by the windows remembered.
    """

    def __init__(self, windows: int, min_shared: int) -> None:
        self.windows = windows
        self.min_shared = min_shared
        # band key -> sequence numbers (ascending) of the remembered kept records that have it
        self._bands: dict[int, list[int]] = {}
        self._keys: dict[int, np.ndarray] = {}  # kept record's sequence number -> its band keys
        self._exact: dict[str, deque[int]] = {}  # exact key -> sequence numbers of its copies
        # per remembered window: [window index, last sequence number, kept records, exact keys]
        self._per_window: deque[list[Any]] = deque()

    def __len__(self) -> int:
        return len(self._keys) + len(self._exact)

    def _near(self, keys: np.ndarray) -> int | None:
        """The earliest remembered kept record that `keys` (band keys, band order) is confirmed against."""
        candidates = sorted({seq for k in keys.tolist() for seq in self._bands.get(k, ())})
        if not candidates:
            return None
        mat = np.stack([self._keys[c] for c in candidates])
        hit = np.flatnonzero(confirmed(mat, np.broadcast_to(keys, mat.shape), self.min_shared))
        return candidates[hit[0]] if len(hit) else None

    def check_and_add(self, band_keys: Sequence[int], exact: str | None, seq: int, window: int) -> int | None:
        """The sequence number of a remembered record this one duplicates (or None); then remember it.

        `band_keys`: the record's band keys made distinct across bands, in band order (empty
        when it has none); `exact`: its exact key (None when it has none)."""
        copies = self._exact.get(exact) if exact is not None else None
        found: int | None = copies[0] if copies else None
        keys = np.asarray(band_keys, dtype=np.uint64)
        if found is None and len(keys):
            found = self._near(keys)
        if not self._per_window or self._per_window[-1][0] != window:
            self._per_window.append([window, seq, [], []])
        entry = self._per_window[-1]
        entry[1] = seq
        if found is None and len(keys):  # a kept record: a candidate for later ones
            self._keys[seq] = keys
            for k in keys.tolist():
                self._bands.setdefault(k, []).append(seq)
            entry[2].append(seq)
        if exact is not None:
            self._exact.setdefault(exact, deque()).append(seq)
            entry[3].append(exact)
        return found

    def forget_before(self, window: int) -> None:
        """Forget the windows older than the last `windows` (called when `window` opens)."""
        oldest = window - self.windows + 1
        while self._per_window and self._per_window[0][0] < oldest:
            _, last, kept, exacts = self._per_window.popleft()
            for seq in kept:
                for k in self._keys.pop(seq).tolist():
                    holders = self._bands[k]
                    holders.remove(seq)  # the oldest holders come first: a short scan
                    if not holders:
                        del self._bands[k]
            for k in exacts:
                copies = self._exact.get(k)
                while copies and copies[0] <= last:
                    copies.popleft()
                if copies is not None and not copies:
                    del self._exact[k]


class LengthReference:
    """The length histogram of the first `windows` full windows, and the shift of a window from it."""

    def __init__(self, windows: int) -> None:
        self.windows = windows
        self.seen = 0
        self.counts = np.zeros(len(LENGTH_EDGES) - 1, dtype=np.int64)

    @property
    def ready(self) -> bool:
        return self.seen >= self.windows

    def learn(self, hist: np.ndarray) -> None:
        """Add a full window to the reference (until it holds `windows` of them)."""
        if not self.ready:
            self.counts += hist
            self.seen += 1

    def compare(self, hist: np.ndarray, threshold: float, pvalue: float) -> dict[str, Any]:
        """JS distance and chi-square test of a window's histogram against the reference.

        A shift is both large (JS above `threshold`) and unlikely by chance (p below `pvalue`),
        the rule of audit.drift.compare_mix.
        """
        ref = self.counts + LENGTH_SMOOTHING
        js = js_distance(hist, ref)
        _, p, _ = chi_square(hist, ref / ref.sum())
        return {"js": round(js, 6), "pvalue": p, "shift": bool(js > threshold and p < pvalue)}


class LanguageReference:
    """The language mix a window is compared with: the recipe, else the first full windows."""

    def __init__(self, expected: Mapping[str, float] | None, windows: int) -> None:
        self.recipe = dict(expected) if expected else None
        self.windows = windows
        self.seen = 0
        self.counts: Counter = Counter()

    @property
    def ready(self) -> bool:
        return self.recipe is not None or self.seen >= self.windows

    def learn(self, languages: Mapping[str, int]) -> None:
        """Add a full window to the baseline (no-op with a recipe or once it is complete)."""
        if not self.ready:
            self.counts.update(languages)
            self.seen += 1

    def expected(self) -> dict[str, float] | None:
        """Expected shares (undetermined left out), or None until the baseline is complete."""
        if self.recipe is not None:
            return self.recipe
        if not self.ready:
            return None
        known = {k: v for k, v in self.counts.items() if k != UNDETERMINED}
        total = sum(known.values())
        return {k: v / total for k, v in known.items()} if total else None

    def compare(self, languages: Mapping[str, int], config: Any) -> dict[str, Any]:
        """audit.drift.compare_mix of a window's counts against the expected mix."""
        return compare_mix(languages, self.expected(), config)

    def describe(self) -> dict[str, Any]:
        """What the reference is, for status.json."""
        return {"source": "recipe" if self.recipe is not None else "first_windows",
                "ready": self.ready, "expected": self.expected()}
