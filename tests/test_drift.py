"""audit.drift: distances, the chi-square test and the language-mix verdicts."""
from __future__ import annotations

import json
import math

import numpy as np
import pytest

from audit.config import LanguagesConfig
from audit.drift import (LanguageMix, chi2_sf, chi_square, compare_mix, compare_shards, js_distance,
                         psi)

RECIPE = {"en": 0.7, "zh": 0.2, "ru": 0.1}
CONFIG = LanguagesConfig(expected=RECIPE)


def sample(shares: dict[str, float], n: int, seed: int = 0) -> dict[str, int]:
    counts = np.random.default_rng(seed).multinomial(n, list(shares.values()))
    return dict(zip(shares, counts.tolist()))


# ---------------------------------------------------------------- chi-square survival function


@pytest.mark.parametrize("x,dof,expected", [
    (3.841458820694124, 1, 0.05),    # the 5% critical values of the chi-square tables
    (6.634896601021214, 1, 0.01),
    (5.991464547107979, 2, 0.05),
    (7.814727903251178, 3, 0.05),
    (18.307038053275146, 10, 0.05),
    (37.65248413348277, 25, 0.05),
    (124.34211340400407, 100, 0.05),
    (10.0, 5, 0.07523524614651217),
    (0.0, 4, 1.0),
])
def test_chi2_sf_known_values(x, dof, expected):
    assert chi2_sf(x, dof) == pytest.approx(expected, rel=1e-9, abs=1e-15)


@pytest.mark.parametrize("x", [1e-6, 0.3, 1.0, 2.5, 7.0, 30.0, 150.0])
def test_chi2_sf_closed_forms(x):
    # dof 1: erfc(sqrt(x/2)); dof 2: exp(-x/2); dof 3: erfc(sqrt(x/2)) + sqrt(2x/pi) exp(-x/2)
    assert chi2_sf(x, 1) == pytest.approx(math.erfc(math.sqrt(x / 2)), rel=1e-9, abs=1e-300)
    assert chi2_sf(x, 2) == pytest.approx(math.exp(-x / 2), rel=1e-9, abs=1e-300)
    want3 = math.erfc(math.sqrt(x / 2)) + math.sqrt(2 * x / math.pi) * math.exp(-x / 2)
    assert chi2_sf(x, 3) == pytest.approx(want3, rel=1e-9, abs=1e-300)


@pytest.mark.parametrize("x,dof,before", [
    (0.5, 1, 0.4795001221869536), (3.0, 2, 0.22313016014843), (12.7, 7, 0.07976405917700846),
    (45.0, 30, 0.03860175826631727), (250.0, 200, 0.009379131668826505), (80.0, 3, 3.069277486172416e-17),
])
def test_chi2_sf_by_scipy_matches_the_incomplete_gamma_it_replaced(x, dof, before):
    # the values the hand-written incomplete gamma gave before scipy took over
    assert chi2_sf(x, dof) == pytest.approx(before, rel=1e-9, abs=1e-300)


def test_chi2_sf_of_an_infinite_statistic_is_zero():
    assert chi2_sf(math.inf, 3) == 0.0


def test_chi2_sf_rejects_no_degrees_of_freedom():
    with pytest.raises(ValueError):
        chi2_sf(1.0, 0)


def test_chi_square_statistic():
    stat, p, dof = chi_square([30, 70], [0.5, 0.5])
    assert (stat, dof) == (pytest.approx(16.0), 1)
    assert p == pytest.approx(math.erfc(math.sqrt(8.0)))
    assert chi_square([0, 0], [0.5, 0.5]) == (0.0, 1.0, 1)


# ---------------------------------------------------------------- distances


def test_js_distance_bounds_and_symmetry():
    assert js_distance([1, 2, 3], [10, 20, 30]) == pytest.approx(0.0, abs=1e-12)
    assert js_distance([1, 0], [0, 1]) == pytest.approx(1.0)
    p, q = [0.7, 0.2, 0.1], [0.5, 0.4, 0.1]
    assert js_distance(p, q) == pytest.approx(js_distance(q, p))
    assert 0.1 < js_distance(p, q) < 0.3


def test_psi_values():
    assert psi([0.5, 0.5], [0.5, 0.5]) == pytest.approx(0.0)
    want = (0.6 - 0.5) * math.log(0.6 / 0.5) + (0.4 - 0.5) * math.log(0.4 / 0.5)
    assert psi([0.6, 0.4], [0.5, 0.5]) == pytest.approx(want)
    assert math.isfinite(psi([0.5, 0.5], [1.0, 0.0]))


# ---------------------------------------------------------------- language mix


def test_same_mix_is_ok_at_every_sample_size():
    for n in (100, 1000, 100_000):
        result = compare_mix(sample(RECIPE, n, seed=n), RECIPE, CONFIG)
        assert result["verdict"] == "ok" and result["drift"] is False, (n, result)
        assert result["js"] < CONFIG.js_threshold


def test_a_fifth_of_english_replaced_is_drift():
    # to a language of the recipe ...
    moved = compare_mix(sample({"en": 0.5, "zh": 0.4, "ru": 0.1}, 2000), RECIPE, CONFIG)
    assert moved["verdict"] == "drift" and moved["drift"] is True
    assert moved["js"] > CONFIG.js_threshold and moved["pvalue"] < CONFIG.chi2_pvalue
    assert moved["new_languages"] == []
    # ... or to a language outside it, which is also reported as new
    new = compare_mix(sample({"en": 0.5, "zh": 0.2, "ru": 0.1, "de": 0.2}, 2000), RECIPE, CONFIG)
    assert new["verdict"] == "drift" and new["new_languages"] == ["de"]


def test_new_language_is_reported_apart_from_drift():
    result = compare_mix(sample({"en": 0.68, "zh": 0.2, "ru": 0.1, "fr": 0.02}, 5000), RECIPE, CONFIG)
    assert result["new_languages"] == ["fr"]
    assert result["verdict"] == "ok"
    # below new_language_min_share a stray label is noise, not a new language
    noise = compare_mix({"en": 7000, "zh": 2000, "ru": 995, "fr": 5}, RECIPE, CONFIG)
    assert noise["new_languages"] == [] and noise["verdict"] == "ok"


def test_no_recipe_still_reports_the_mix():
    result = compare_mix({"en": 30, "de": 10}, None, LanguagesConfig())
    assert result["verdict"] == "no_recipe" and result["drift"] is False
    assert result["observed"] == {"en": 0.75, "de": 0.25} and result["documents"] == 40
    assert result["js"] is None and result["expected"] is None
    json.dumps(result)


def test_small_sample_needs_significance():
    # 20 documents, half of them Chinese: far from the recipe, but not unlikely enough by chance
    small = compare_mix({"en": 10, "zh": 8, "ru": 2}, RECIPE, CONFIG)
    assert small["js"] > CONFIG.js_threshold
    assert small["pvalue"] > CONFIG.chi2_pvalue and small["verdict"] == "ok"
    # the same shares over 2000 documents are drift
    large = compare_mix({"en": 1000, "zh": 800, "ru": 200}, RECIPE, CONFIG)
    assert large["verdict"] == "drift"


def test_undetermined_is_reported_but_not_compared():
    base = compare_mix({"en": 700, "zh": 200, "ru": 100}, RECIPE, CONFIG)
    with_und = compare_mix({"en": 700, "zh": 200, "ru": 100, "und": 400}, RECIPE, CONFIG)
    assert with_und["observed"]["und"] == pytest.approx(400 / 1400)
    assert with_und["js"] == base["js"] and with_und["verdict"] == "ok"


def test_compare_shards_flags_the_odd_shard():
    shards = {f"s{i}": sample(RECIPE, 2000, seed=i) for i in range(5)}
    shards["odd"] = sample({"en": 0.2, "zh": 0.7, "ru": 0.1}, 2000, seed=9)
    result = compare_shards(shards, CONFIG)
    assert result["drifting"] == ["odd"]
    assert set(result["shards"]) == set(shards) and result["shards"]["odd"]["drift"] is True
    assert sum(result["overall"].values()) == pytest.approx(1.0)
    json.dumps(result)


def test_compare_shards_follows_the_rule_of_compare_mix():
    # a little German in an all-English run: "other" mass within other_tolerance, as for the recipe
    shards = {f"s{i}": {"en": 1000} for i in range(4)}
    shards["bit_of_german"] = {"en": 950, "de": 50}
    result = compare_shards(shards, CONFIG)
    assert result["reference"] == {"en": 1.0}
    entry = result["shards"]["bit_of_german"]
    mix = compare_mix(shards["bit_of_german"], {"en": 1.0}, CONFIG)
    assert mix["verdict"] == "ok" and entry["drift"] is False and result["drifting"] == []
    assert {k: entry[k] for k in ("js", "psi", "chi2", "pvalue")} == {k: mix[k] for k in ("js", "psi", "chi2", "pvalue")}
    assert set(entry) == {"documents", "js", "psi", "chi2", "dof", "pvalue", "drift"} and entry["documents"] == 1000
    # beyond the tolerance it drifts
    shards["half_german"] = {"en": 500, "de": 500}
    assert compare_shards(shards, CONFIG)["drifting"] == ["half_german"]


def test_language_mix_counts():
    mix = LanguageMix({"en": 2, "de": 1, "und": 1})
    assert mix.total == 4
    mix.add(["de", None])
    assert mix.shares() == {"de": 0.4, "en": 0.4, "und": 0.2}
    with pytest.raises(ValueError):
        mix.update({"en": -1})
