"""Distribution distances over category counts, shared by the audit job and the sidecar.

The measures:
- Jensen-Shannon distance (base 2, in 0..1): symmetric, bounded, defined when a category is
  missing on one side; it does not grow with the sample size.
- PSI (population stability index): sum of (p - q) * ln(p / q), with a small epsilon standing in
  for empty bins; by convention 0.1 is a slight and 0.25 a major shift.
- Chi-square goodness of fit of the observed counts against the expected shares, with its
  p-value from scipy.stats.

Decision rule (`compare_mix`, `compare_shards`): a mix drifts when the shift is both *large* and
*real*: (JS > js_threshold or PSI > psi_threshold) and chi-square p-value < chi2_pvalue. The
distances measure the size of the shift and do not depend on the number of documents, so on
large samples they alone decide (there any large shift is also significant). On small samples
(a sidecar window of a few hundred records) a distance can be large by chance; the chi-square
test then holds the alert back until the counts make the shift unlikely under the recipe.

Languages outside the recipe are folded into one "other" bin for the distances and the test,
so the number of bins (and the test's degrees of freedom) does not grow with every stray label
and the mass leaving the recipe counts whole however it splits. Up to `other_tolerance` of the
documents may sit in "other" without counting as shift (language-ID noise and stray languages
are always present at some low rate): the recipe is scaled to leave that much room, so only the
excess moves the distances. Languages outside the recipe with at least `new_language_min_share` of the documents
are, in addition, listed as new languages: a new language is its own finding, reported whether
or not the mix drifts. "und" (undetermined: empty or unidentifiable text) is reported in the
observed shares but left out of the comparison: it measures text quality, not the mix.
"""
from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

import numpy as np

from audit.langcodes import UNDETERMINED

if TYPE_CHECKING:
    from audit.config import LanguagesConfig

# Stands in for an empty bin in PSI and for a zero expected share in the chi-square test.
EPSILON = 1e-4
OTHER = "other"


# ---------------------------------------------------------------- distances and the test


def _shares(values: np.ndarray) -> np.ndarray:
    total = values.sum()
    return values / total if total > 0 else values.astype(float)


def js_distance(p: Iterable[float], q: Iterable[float]) -> float:
    """Jensen-Shannon distance (base 2, 0..1) between two distributions over the same bins.

    Inputs are counts or shares; each side is normalised to sum to 1 first.
    """
    pa_ = _shares(np.asarray(list(p), dtype=float))
    qa = _shares(np.asarray(list(q), dtype=float))
    m = (pa_ + qa) / 2

    def kl(x: np.ndarray) -> float:
        nz = x > 0
        return float(np.sum(x[nz] * np.log2(x[nz] / m[nz])))

    jsd = (kl(pa_) + kl(qa)) / 2
    return math.sqrt(min(max(jsd, 0.0), 1.0))


def psi(p: Iterable[float], q: Iterable[float], epsilon: float = EPSILON) -> float:
    """Population stability index of `p` (observed) against `q` (expected) over the same bins.

    Shares below `epsilon` are raised to it so an empty bin gives a large but finite term.
    """
    pa_ = np.maximum(_shares(np.asarray(list(p), dtype=float)), epsilon)
    qa = np.maximum(_shares(np.asarray(list(q), dtype=float)), epsilon)
    return float(np.sum((pa_ - qa) * np.log(pa_ / qa)))


def chi2_sf(x: float, dof: int) -> float:
    """Survival function P(X >= x) of the chi-square distribution with `dof` degrees of freedom."""
    if dof <= 0:
        raise ValueError(f"degrees of freedom must be > 0, got {dof}")
    # scipy.special's survival function: what scipy.stats.chi2.sf calls, without scipy.stats' 0.7 s import
    from scipy.special import chdtrc

    return float(chdtrc(dof, x))


def chi_square(observed: Iterable[float], expected_shares: Iterable[float],
               epsilon: float = EPSILON) -> tuple[float, float, int]:
    """Chi-square goodness of fit of observed counts against expected shares.

    Returns (statistic, p-value, degrees of freedom). Expected shares below `epsilon` are raised
    to it (a bin the recipe says is empty but that holds documents is strong evidence, not an
    infinity). With fewer than two bins or no documents the p-value is 1.
    """
    obs = np.asarray(list(observed), dtype=float)
    exp_shares = _shares(np.maximum(np.asarray(list(expected_shares), dtype=float), epsilon))
    n = obs.sum()
    dof = len(obs) - 1
    if n <= 0 or dof < 1:
        return 0.0, 1.0, max(dof, 0)
    exp = exp_shares * n
    stat = float(np.sum((obs - exp) ** 2 / exp))
    return stat, chi2_sf(stat, dof), dof


# ---------------------------------------------------------------- language mix


class LanguageMix:
    """Document counts per language code, and the shares they make."""

    def __init__(self, counts: Mapping[str, int] | None = None) -> None:
        self.counts: Counter[str] = Counter()
        if counts:
            self.update(counts)

    def add(self, languages: Iterable[str | None]) -> None:
        """Count more language codes; None (unreadable) is skipped."""
        self.counts.update(x for x in languages if x is not None)

    def update(self, counts: Mapping[str, int]) -> None:
        """Add counts from another mapping."""
        for k, v in counts.items():
            if v < 0:
                raise ValueError(f"count of {k!r} is negative: {v}")
            self.counts[k] += int(v)

    @property
    def total(self) -> int:
        return sum(self.counts.values())

    def shares(self) -> dict[str, float]:
        """Share of each language, largest first."""
        n = self.total
        return {k: v / n for k, v in sorted(self.counts.items(), key=lambda kv: (-kv[1], kv[0]))} if n else {}


def _decide(js: float, psi_value: float, pvalue: float, config: "LanguagesConfig") -> bool:
    large = js > config.js_threshold or psi_value > config.psi_threshold
    return bool(large and pvalue < config.chi2_pvalue)


def _measure(observed: Mapping[str, int], expected: Mapping[str, float]) -> dict[str, Any]:
    """Distances and test of observed counts against expected shares over the expected's bins."""
    bins = list(expected)
    obs = np.array([observed.get(b, 0) for b in bins], dtype=float)
    exp = np.array([expected[b] for b in bins], dtype=float)
    stat, pvalue, dof = chi_square(obs, exp)
    return {"js": round(js_distance(obs, exp), 6), "psi": round(psi(obs, exp), 6),
            "chi2": round(stat, 4), "dof": dof, "pvalue": pvalue}


def compare_mix(observed: Mapping[str, int], expected: Mapping[str, float] | None,
                config: "LanguagesConfig") -> dict[str, Any]:
    """Compare observed language counts with the recipe (see the module docstring for the rule).

    Returns {"documents", "observed" (shares), "expected", "js", "psi", "chi2", "dof", "pvalue",
    "drift", "verdict" ("ok" | "drift" | "no_recipe"), "new_languages"}. Without a recipe the
    observed mix is still reported and the measures are None.
    """
    mix = LanguageMix(observed)
    out: dict[str, Any] = {"documents": mix.total, "observed": mix.shares(),
                           "expected": dict(expected) if expected else None,
                           "js": None, "psi": None, "chi2": None, "dof": None, "pvalue": None,
                           "drift": False, "verdict": "no_recipe", "new_languages": []}
    if not expected:
        return out
    counts = {k: v for k, v in mix.counts.items() if k != UNDETERMINED}
    n = sum(counts.values())
    out["new_languages"] = sorted(
        (k for k, v in counts.items() if k not in expected and n and v / n >= config.new_language_min_share),
        key=lambda k: (-counts[k], k))
    out["verdict"] = "ok"
    if n == 0:
        return out
    obs_bins = {k: counts.get(k, 0) for k in expected}
    other = sum(v for k, v in counts.items() if k not in expected)
    # Mass outside the recipe is expected up to the tolerance; only the excess counts as shift.
    tolerated = min(other / n, config.other_tolerance)
    total = sum(expected.values())
    exp_bins = {k: v / total * (1 - tolerated) for k, v in expected.items()}
    if other:
        obs_bins[OTHER] = other
        exp_bins[OTHER] = tolerated
    out.update(_measure(obs_bins, exp_bins))
    out["drift"] = _decide(out["js"], out["psi"], out["pvalue"], config)
    out["verdict"] = "drift" if out["drift"] else "ok"
    return out


_SHARD_FIELDS = ("documents", "js", "psi", "chi2", "dof", "pvalue", "drift")


def compare_shards(per_shard_counts: Mapping[str, Mapping[str, int]], config: "LanguagesConfig") -> dict[str, Any]:
    """Compare each shard's (or source's) language mix with the typical mix of all of them.

    The reference is the per-language median of the shards' shares (renormalised), not the pooled
    mix: a few odd shards would pull the pooled mix towards themselves and make every normal
    shard look shifted. Returns {"overall": pooled shares, "reference": the median mix,
    "shards": {name: {"documents", "js", "psi", "chi2", "dof", "pvalue", "drift"}},
    "drifting": [names]}; each shard's entry is `compare_mix` of its counts against the reference.
    """
    overall = LanguageMix()
    for counts in per_shard_counts.values():
        overall.update(counts)
    known = {name: {k: v for k, v in counts.items() if k != UNDETERMINED and v > 0}
             for name, counts in per_shard_counts.items()}
    shares = [LanguageMix(c).shares() for c in known.values() if c]
    languages = sorted({k for c in known.values() for k in c})
    median = {k: float(np.median([sh.get(k, 0.0) for sh in shares])) for k in languages} if shares else {}
    total = sum(median.values())
    reference = {k: v / total for k, v in sorted(median.items(), key=lambda kv: -kv[1]) if v > 0} if total else {}
    # Each shard is judged against the reference exactly as the run is against the recipe
    # (compare_mix): languages outside the reference go to the "other" bin, tolerated up to
    # other_tolerance.
    shards: dict[str, dict[str, Any]] = {}
    for name, counts in per_shard_counts.items():
        result = compare_mix(counts, reference, config)
        shards[name] = {k: result[k] for k in _SHARD_FIELDS}
    return {"overall": overall.shares(), "reference": reference, "shards": shards,
            "drifting": sorted(k for k, v in shards.items() if v["drift"])}
