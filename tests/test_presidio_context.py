"""audit.stages.pii's context enhancement against Presidio's own (LemmaContextAwareEnhancer).

Ours reads a result's context words from the lines around it (LineTokens) instead of tokenizing
the whole analysed text. pyproject.toml bounds presidio-analyzer; these tests fail when a new
version reads other context words or scores them otherwise than ours.
"""
from __future__ import annotations

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
ENTITIES = ["PHONE_NUMBER", "EMAIL_ADDRESS", "CREDIT_CARD", "IP_ADDRESS", "IBAN_CODE", "US_SSN"]
# Results with and without context words, on one line and across lines.
FOUND = ("Contact:\n  phone 212 555 0187 (office)\nfax: 212-555-0188\nthe value 212 555 0189 here\n"
         "card number\n4111 1111 1111 1111\nIBAN: DE89 3704 0044 0532 0130 00 and 10.0.0.1 or "
         "maria.lopez@example.org, ssn 536-22-8726; also 078-05-1120 alone")


@pytest.fixture(scope="module")
def analyzer():
    return build_analyzer(ENTITIES)


def presidios(analyzer):
    from presidio_analyzer.context_aware_enhancers import LemmaContextAwareEnhancer

    ours = analyzer.context_aware_enhancer
    return LemmaContextAwareEnhancer(context_prefix_count=ours.context_prefix_count,
                                     context_suffix_count=ours.context_suffix_count,
                                     context_matching_mode="whole_word")


def whole_text_artifacts(analyzer, text: str):
    """The text's artifacts built as Presidio builds them: every token and keyword at once."""
    from presidio_analyzer.nlp_engine import NlpArtifacts

    art = analyzer.nlp_engine.process_text(text, "en")
    return NlpArtifacts(entities=[], tokens=art.tokens, tokens_indices=art.tokens_indices, lemmas=art.lemmas,
                        nlp_engine=analyzer.nlp_engine, language="en")


@pytest.mark.parametrize("text", TEXTS)
def test_the_context_words_are_presidios(analyzer, text) -> None:
    theirs = presidios(analyzer)
    ours = analyzer.context_aware_enhancer
    art = analyzer.nlp_engine.process_text(text, "en")
    whole = whole_text_artifacts(analyzer, text)
    # past the last token Presidio raises; the starts of results lie before it
    end = art.tokens_indices[-1] + len(art.tokens[-1])
    for start in range(end):
        want = theirs._extract_surrounding_words(nlp_artifacts=whole, word="w", start=start)
        got = art.lines.context(start, ours.context_prefix_count, ours.context_suffix_count)
        assert sorted(set(got)) == sorted(want), (text, start)


def test_the_scores_are_presidios(analyzer) -> None:
    theirs = presidios(analyzer)
    ours = analyzer.context_aware_enhancer
    recognizers = analyzer.registry.get_recognizers(language="en", entities=ENTITIES)

    def raw():
        from presidio_analyzer import RecognizerResult

        out = []
        for r in recognizers:
            found = r.analyze(text=FOUND, entities=ENTITIES, nlp_artifacts=None) or []
            for f in found:
                f.recognition_metadata = {**(f.recognition_metadata or {}), RecognizerResult.RECOGNIZER_IDENTIFIER_KEY: r.id}
            out += found
        return out

    want = theirs.enhance_using_context(FOUND, raw(), whole_text_artifacts(analyzer, FOUND), recognizers)
    got = ours.enhance_using_context(FOUND, raw(), analyzer.nlp_engine.process_text(FOUND, "en"), recognizers)
    # a result found at the top score keeps it: Presidio still names its context word, we do not look
    top = [r.score >= ours.MAX_SCORE for r in raw()]
    assert any(top) and not all(top)
    key = [(r.entity_type, r.start, r.end, r.score, "" if at_top else r.analysis_explanation.supportive_context_word)
           for r, at_top in zip(want, top)]
    assert [(r.entity_type, r.start, r.end, r.score, r.analysis_explanation.supportive_context_word)
            for r in got] == key
    assert any(k[4] for k in key) and any(not k[4] for k in key)  # raised and left alone both seen
    with_words = ours.enhance_using_context(FOUND, raw(), analyzer.nlp_engine.process_text(FOUND, "en"),
                                            recognizers, context=["Fax"])
    assert [r.score for r in with_words] == [r.score for r in theirs.enhance_using_context(
        FOUND, raw(), whole_text_artifacts(analyzer, FOUND), recognizers, context=["Fax"])]


def test_context_raises_the_score(analyzer) -> None:
    number = "212 555 0187"  # a pattern scored 0.4 alone: context words raise it
    with_context = analyzer.analyze(text=f"my phone {number}", language="en", entities=["PHONE_NUMBER"])
    without = analyzer.analyze(text=f"the value {number}", language="en", entities=["PHONE_NUMBER"])
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
