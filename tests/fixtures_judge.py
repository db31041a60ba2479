"""Shared helpers for the measure/judge tests: a changed value for every judge-only setting, in
two directions, and a small corpus with a planted paraphrase the semantic tier alone finds."""
from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import yaml

from audit.demo_corpus import DemoCorpus, build_demo_corpus
from tests.fixtures_contamination import EVERY_THIRD, HOST, JS_PORT, PY_FUNC, STORY

# Every `judge` setting of audit/config.py, with a stricter and a more lenient value than the base
# config below (a test fails when a judge setting has none here). Each value is chosen to act on
# the corpus of `judge_corpus` (tests/test_decide_equals_fresh.py checks that it does).
JUDGE_CHANGES: dict[str, tuple[Any, Any]] = {
    "languages.expected": ({"en": 0.9, "de": 0.1}, {"en": 0.4, "de": 0.15, "fr": 0.15, "es": 0.1, "ru": 0.1,
                                                    "zh": 0.05, "ja": 0.05}),
    "languages.js_threshold": (0.01, 0.9),
    "languages.psi_threshold": (0.01, 50.0),
    "languages.chi2_pvalue": (0.9, 1e-12),
    "languages.new_language_min_share": (0.0, 0.9),
    "languages.other_tolerance": (0.0, 0.5),
    "languages.allowed": (["en"], ["en", "de", "fr", "es", "ru", "zh", "ja", "und"]),
    "languages.max_und_share": (0.0, 1.0),
    "filters.length.min_chars": (900, 1),
    "filters.length.max_chars": (3000, 10_000_000),
    "filters.length.min_words": (150, 0),
    "filters.charset.min_alnum_share": (0.8, 0.0),
    "filters.charset.max_control_share": (0.0, 1.0),
    "filters.charset.max_replacement_share": (0.0, 1.0),
    "filters.charset.min_mojibake": (1, 1000),
    "filters.charset.min_mojibake_share": (0.05, 1.0),
    "filters.charset.max_surrogates": (0, 1000),  # never acts in a run: see NOT_IN_A_RUN
    "filters.junk.max_base64_share": (0.01, 1.0),
    "filters.junk.max_long_token_share": (0.01, 1.0),
    "filters.junk.max_code_line_share": (0.01, 1.0),
    "filters.junk.max_mean_line_chars": (100, 10_000_000),
    "filters.junk.max_symbol_share": (0.01, 1.0),
    "filters.junk.max_markup_share": (0.01, 1.0),
    "filters.junk.min_mean_word_chars": (5.0, 0.0),
    "filters.junk.max_mean_word_chars": (6.0, 1000.0),
    "filters.junk.max_dup_line_share": (0.01, 1.0),
    "filters.junk.max_top_ngram_share": ([0.05, 0.05, 0.05], [1.0, 1.0, 1.0]),
    "dedup.min_shared_bands": (16, 1),
    "contamination.threshold": (0.9, 0.3),
    "contamination.minhash_threshold": (0.9, 0.3),
    "contamination.semantic_threshold": (0.9, 0.3),
    "contamination.code_key_threshold": (0.99, 0.3),
    "contamination.rewrite_threshold": (0.99, 0.3),
    "contamination.canary_methods": (["semantic"], ["exact_ngram", "skeleton", "code", "fuzzy", "semantic",
                                                    "code_key", "rewrite"]),
    "pii.min_score": (0.9, 0.3),
    "pii.quarantine_types": (["EMAIL_ADDRESS", "PHONE_NUMBER", "CREDIT_CARD", "IP_ADDRESS", "IBAN_CODE", "US_SSN"],
                             []),
    "pii.max_findings": (0, 100),
    "pii.max_findings_types": (["EMAIL_ADDRESS", "PHONE_NUMBER", "CREDIT_CARD", "IP_ADDRESS", "IBAN_CODE", "US_SSN"],
                               []),
    "stats.context_lengths": ([128, 512], [100_000]),
}

# Judge settings that cannot act on a run's records, and why (checked on a measured table instead).
NOT_IN_A_RUN = {"filters.charset.max_surrogates": "a lone surrogate makes its record unreadable when read"}

# The base values the changes move from, where the defaults would not do (a recipe close to the
# corpus's mix, and thresholds between the two directions).
BASE: dict[str, Any] = {
    "languages.expected": {"en": 0.5, "de": 0.1, "fr": 0.1, "es": 0.1, "ru": 0.1, "zh": 0.05, "ja": 0.05},
    "languages.js_threshold": 0.15,
    "languages.chi2_pvalue": 0.2,
    "languages.allowed": ["en", "de", "fr", "es", "ru", "zh", "ja"],
    "filters.charset.min_mojibake": 2,
    "contamination.semantic": True,
    "contamination.threshold": 0.5,
    "contamination.minhash_threshold": 0.5,
    "contamination.semantic_threshold": 0.5,
    "contamination.canary_methods": ["exact_ngram", "fuzzy"],
    "pii.quarantine_types": ["CREDIT_CARD", "US_SSN"],
    "pii.max_findings": 0,  # every counted finding is one too many: pii.max_findings_types then acts alone
    "stats.context_lengths": [1024, 4096],
}

# The first 70% of the item verbatim: exact n-grams and alignment cover about 0.7 of it, so whether
# it counts for them depends on their thresholds, while the semantic tier measures it too.
PREFIX = " ".join(STORY.split(" ")[:int(len(STORY.split(" ")) * 0.7)])
# The first 40%: under `threshold` for exact n-grams, over a lowered `minhash_threshold` for alignment.
SHORT_PREFIX = " ".join(STORY.split(" ")[:int(len(STORY.split(" ")) * 0.4)])


def set_path(data: dict[str, Any], path: str, value: Any) -> None:
    """Set a dotted config path in a YAML mapping."""
    *parents, last = path.split(".")
    node = data
    for p in parents:
        node = node.setdefault(p, {})
    node[last] = copy.deepcopy(value)


def judge_corpus(root: Path, docs: int = 240, seed: int = 11) -> tuple[DemoCorpus, dict[str, Any]]:
    """The demo corpus plus a shard of planted rewrites of an eval item of a second eval set (and
    a JavaScript port of its Python function), and its base config (as a YAML mapping, paths
    relative to `root`)."""
    corpus = build_demo_corpus(root, docs=docs, seed=seed)
    (root / "evals" / "stories.jsonl").write_text(json.dumps({"id": "s1", "text": STORY}) + "\n" +
                                                  json.dumps({"id": "f1", "text": PY_FUNC}) + "\n", encoding="utf-8")
    rows = [{"id": f"story-{k}", "text": t, "url": f"https://example.org/{k}", "source": "stories"} for k, t in
            enumerate([HOST + "\n" + EVERY_THIRD + "\n" + HOST, HOST + "\n" + PREFIX + "\n" + HOST,
                       HOST + "\n" + STORY + "\n" + HOST, HOST + "\n" + SHORT_PREFIX + "\n" + HOST, JS_PORT])]
    (root / "shards" / "stories.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    data = yaml.safe_load(corpus.config_path.read_text())
    data["eval_sets"] = list(data.get("eval_sets") or []) + [
        {"name": "stories", "path": "evals/stories.jsonl", "text_fields": ["text"], "id_field": "id"}]
    for path, value in BASE.items():
        set_path(data, path, value)
    return corpus, data


def changed(base: dict[str, Any], changes: dict[str, Any]) -> dict[str, Any]:
    """A copy of a config mapping with the dotted paths of `changes` set."""
    data = copy.deepcopy(base)
    for path, value in changes.items():
        set_path(data, path, value)
    return data
