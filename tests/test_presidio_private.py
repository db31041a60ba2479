"""Guards on the one Presidio private method audit.stages.pii overrides.

`LemmaContextAwareEnhancer._extract_surrounding_words` is replaced by one that tokenizes only the
lines around a result (Presidio tokenizes the whole text and walks every token per result).
pyproject.toml bounds presidio-analyzer; these tests fail when a new version renames it, changes
its signature, stops calling it, or when ours returns other words than Presidio's own.
"""
from __future__ import annotations

import inspect

import pytest

from audit.stages.pii import build_analyzer

# Tokens holding ":" (their pieces are keywords too), "be", punctuation, white-space tokens,
# blank lines, characters whose lower case is longer, a text ending in white space.
TEXTS = [
    "Call me on +44 20 7946 0958, or  write:\tmaria.lopez@example.org (phone 555-124564).",
    " \n\n  be: :be :foo x:y ... :... http://a.b/c  \n\n~~~~ ~~~~\n  tel: 555 1234 567\n",
    "İstanbul İ phone\u00a0number\u2028line two: ::1 fe80::1 \n\n\n",
    "a", " ", "\n", "x\n\ny\n",
]


@pytest.fixture(scope="module")
def analyzer():
    return build_analyzer(["PHONE_NUMBER"])


def test_the_private_method_keeps_its_name_and_signature() -> None:
    from presidio_analyzer.context_aware_enhancers import LemmaContextAwareEnhancer

    raw = inspect.getattr_static(LemmaContextAwareEnhancer, "_extract_surrounding_words")
    assert inspect.isfunction(raw)
    assert list(inspect.signature(raw).parameters) == ["self", "nlp_artifacts", "word", "start"]


@pytest.mark.parametrize("text", TEXTS)
def test_the_context_words_are_presidios(analyzer, text) -> None:
    from presidio_analyzer.context_aware_enhancers import LemmaContextAwareEnhancer
    from presidio_analyzer.nlp_engine import NlpArtifacts

    ours = analyzer.context_aware_enhancer
    theirs = LemmaContextAwareEnhancer(context_prefix_count=ours.context_prefix_count,
                                       context_suffix_count=ours.context_suffix_count,
                                       context_matching_mode="whole_word")
    art = analyzer.nlp_engine.process_text(text, "en")
    # the whole text's artifacts, built as Presidio builds them
    whole = NlpArtifacts(entities=[], tokens=art.tokens, tokens_indices=art.tokens_indices, lemmas=art.lemmas,
                         nlp_engine=analyzer.nlp_engine, language="en")
    # past the last token Presidio raises; the starts of results lie before it
    end = art.tokens_indices[-1] + len(art.tokens[-1])
    for start in range(end):
        want = theirs._extract_surrounding_words(nlp_artifacts=whole, word="w", start=start)
        got = ours._extract_surrounding_words(nlp_artifacts=art, word="w", start=start)
        assert sorted(got) == sorted(want), (text, start)


def test_presidio_calls_it_and_context_raises_the_score(analyzer, monkeypatch) -> None:
    cls = type(analyzer.context_aware_enhancer)
    calls: list[int] = []
    original = cls._extract_surrounding_words

    def counted(self, nlp_artifacts, word, start):
        calls.append(start)
        return original(self, nlp_artifacts=nlp_artifacts, word=word, start=start)

    monkeypatch.setattr(cls, "_extract_surrounding_words", counted)
    number = "212 555 0187"  # a pattern scored 0.4 alone: context words raise it
    with_context = analyzer.analyze(text=f"my phone {number}", language="en", entities=["PHONE_NUMBER"])
    without = analyzer.analyze(text=f"the value {number}", language="en", entities=["PHONE_NUMBER"])
    assert calls, "Presidio no longer reads a result's context through _extract_surrounding_words"
    assert max(r.score for r in with_context) > max(r.score for r in without)


def test_only_the_lines_around_a_result_are_tokenized(analyzer) -> None:
    lines = [f"line {i} holds nothing of note at all" for i in range(200)]
    lines[100] = "phone 212 555 0187"
    text = "\n".join(lines)
    art = analyzer.nlp_engine.process_text(text, "en")
    found = analyzer.analyze(text=text, language="en", entities=["PHONE_NUMBER"], nlp_artifacts=art)
    assert [text[r.start:r.end] for r in found] == ["212 555 0187"] and found[0].score > 0.4
    assert 1 <= len(art.lines._lines) <= 4  # the result's line and its neighbours, not 200


def test_batch_and_single_calls_give_the_same_artifacts(analyzer) -> None:
    texts = ["Call me on 212-555-0187.", "No number HERE."]
    engine = analyzer.nlp_engine
    batch = list(engine.process_batch(texts, "en"))
    for text, (got_text, art) in zip(texts, batch):
        single = engine.process_text(text, "en")
        assert got_text == text and art.lemmas == single.lemmas and art.tokens_indices == single.tokens_indices
    assert batch[1][1].lemmas == ["no", "number", "here", "."]
    assert batch[1][1].keywords == ["no", "number", "here"]
    tupled = list(engine.process_batch([(t, i) for i, t in enumerate(texts)], "en", as_tuples=True))
    assert [c for _, _, c in tupled] == [0, 1]
