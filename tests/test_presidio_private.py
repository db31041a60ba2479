"""Guards on the one Presidio private method audit.stages.pii overrides.

`LemmaContextAwareEnhancer._find_index_of_match_token` is replaced by a bisection (Presidio walks
every token per result). pyproject.toml bounds presidio-analyzer; these tests fail when a new
version renames it, changes its signature, stops calling it, or changes what it returns.
"""
from __future__ import annotations

import inspect

import pytest

from audit.stages.pii import build_analyzer


@pytest.fixture(scope="module")
def analyzer():
    return build_analyzer(["PHONE_NUMBER"])


def test_the_private_method_keeps_its_name_and_signature() -> None:
    from presidio_analyzer.context_aware_enhancers import LemmaContextAwareEnhancer

    raw = inspect.getattr_static(LemmaContextAwareEnhancer, "_find_index_of_match_token")
    assert isinstance(raw, staticmethod)
    assert list(inspect.signature(raw.__func__).parameters) == ["word", "start", "tokens", "tokens_indices"]


def test_the_bisection_finds_the_token_presidio_finds(analyzer) -> None:
    from presidio_analyzer.context_aware_enhancers import LemmaContextAwareEnhancer

    text = "Call me on +44 20 7946 0958, or  write:\tmaria.lopez@example.org (phone 555-124564)."
    art = analyzer.nlp_engine.process_text(text, "en")
    ours = type(analyzer.context_aware_enhancer)._find_index_of_match_token
    for start in range(len(text)):
        want = LemmaContextAwareEnhancer._find_index_of_match_token("w", start, art.tokens, art.tokens_indices)
        assert ours("w", start, art.tokens, art.tokens_indices) == want, start


def test_presidio_calls_it_and_context_raises_the_score(analyzer, monkeypatch) -> None:
    cls = type(analyzer.context_aware_enhancer)
    calls: list[int] = []
    original = cls._find_index_of_match_token

    def counted(word, start, tokens, tokens_indices):
        calls.append(start)
        return original(word, start, tokens, tokens_indices)

    monkeypatch.setattr(cls, "_find_index_of_match_token", staticmethod(counted))
    number = "212 555 0187"  # a pattern scored 0.4 alone: context words raise it
    with_context = analyzer.analyze(text=f"my phone {number}", language="en", entities=["PHONE_NUMBER"])
    without = analyzer.analyze(text=f"the value {number}", language="en", entities=["PHONE_NUMBER"])
    assert calls, "Presidio no longer finds the match's token through _find_index_of_match_token"
    assert max(r.score for r in with_context) > max(r.score for r in without)


def test_batch_and_single_calls_give_the_same_artifacts(analyzer) -> None:
    texts = ["Call me on 212-555-0187.", "No number HERE."]
    engine = analyzer.nlp_engine
    batch = list(engine.process_batch(texts, "en"))
    for text, (got_text, art) in zip(texts, batch):
        single = engine.process_text(text, "en")
        assert got_text == text and art.lemmas == single.lemmas and art.tokens_indices == single.tokens_indices
    assert batch[1][1].lemmas == ["no", "number", "here", "."]
    tupled = list(engine.process_batch([(t, i) for i, t in enumerate(texts)], "en", as_tuples=True))
    assert [c for _, _, c in tupled] == [0, 1]
