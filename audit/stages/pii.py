"""PII findings with Presidio's pattern recognisers, behind a vectorised prefilter.

Writes `pii`: list<struct<entity_type, start, end, score>> per record (character offsets into
the text; an empty list when nothing is found; null for unreadable records). The value itself is
never stored.

Presidio runs at about 0.2 MB/s on whole documents, so a cheap prefilter comes first. RE2
regexes over the whole Arrow batch (one per candidate kind: "@" between non-spaces, runs of 7+
digits with phone/card separators, IPv4/IPv6 shapes, IBAN country codes with check digits)
mark the records that can hold PII at all and which kinds. In those, Python's `re` finds each
candidate, and only a window around it (widened to white space, with room for Presidio's
context words) is analysed. The windows of one kind are packed into one analyzer call for that
kind's entities and the findings mapped back to document offsets; Presidio reads each result's
context words from the lines around it, tokenized when asked for (LineTokens), so a pack is
never tokenized whole. The candidate patterns are looser than the recognisers', so whatever the
analyzer finds in the whole text lies in a window; bench/eval_language_pii.py measures recall
with and without the prefilter.

Start-up needs no network and no model download: spaCy is a blank English pipeline (a plain
tokenizer only) saved once to a cache folder, and the e-mail recogniser's domain check uses
tldextract's bundled public-suffix snapshot instead of fetching the list.
"""
from __future__ import annotations

import bisect
import functools
import os
import re
import shutil
import tempfile
import unicodedata
from collections import Counter
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from audit.cache import cache_roots
from audit.stages import ConfigStage, Finding, filter_list

if TYPE_CHECKING:
    from presidio_analyzer import AnalyzerEngine

    from audit.config import AuditConfig

PII_FINDING = pa.struct([("entity_type", pa.string()), ("start", pa.int64()), ("end", pa.int64()),
                         ("score", pa.float32())])
PII_TYPE = pa.list_(PII_FINDING)

# Characters of context kept before and after a candidate: Presidio looks up to 6 words back
# for context words ("Phone:", "IBAN", "card number").
WINDOW_BEFORE = 120
WINDOW_AFTER = 60
# Windows closer than this are analysed as one.
WINDOW_MERGE_GAP = 40
# Without the prefilter, long texts are analysed in pieces of this size (spaCy's limit is 1e6).
CHUNK_CHARS = 50_000
CHUNK_OVERLAP = 200


# Candidate patterns by kind, as (RE2 for the batch mask, Python `re` for the offsets); both are
# looser than the recognisers' patterns. Python's `re` scans fast only when a pattern begins with
# a literal or a narrow class, so its forms begin with "@", ":" or a digit and check what comes
# before in look-behinds.
_HEX = "[0-9A-Fa-f]"
_DIGIT_RUN = r"[0-9](?:[ ().+\-]{0,3}[0-9]){6,}"


def _after_hex_group(tail: str) -> str:
    """Look-behind: `tail` preceded by a whole group of 1-4 hex digits."""
    return "(?:" + "|".join(f"(?<=\\b{_HEX}{{{k}}}{tail})" for k in (1, 2, 3, 4)) + ")"


@functools.cache
def candidate_patterns() -> dict[str, tuple[str, str]]:
    """{kind: (RE2 pattern, Python pattern)} of the prefilter's candidates."""
    # the IBAN country codes Presidio validates (imported here: presidio is slow to import)
    from presidio_analyzer.predefined_recognizers.generic.iban_patterns import regex_per_country

    countries = "|".join(sorted(regex_per_country))
    return {
        "email": (r"[^\s@]@[^\s@]", r"@(?<=[^\s@]@)(?=[^\s@])"),
        # phone numbers, card numbers, SSN/ITIN: 7 or more digits with separators
        "digits": (_DIGIT_RUN, _DIGIT_RUN),
        # IPv4; IPv6 in full (8 groups) or compressed ("::" next to a hex group)
        "ip": (r"[0-9]{1,3}\.[0-9]{1,3}\.[0-9]{1,3}\.[0-9]{1,3}"
               f"|\\b{_HEX}{{1,4}}::|::{_HEX}{{1,4}}\\b|\\b(?:{_HEX}{{1,4}}:){{7}}{_HEX}{{1,4}}\\b",
               r"[0-9]{1,3}\.[0-9]{1,3}\.[0-9]{1,3}\.[0-9]{1,3}"
               f"|::(?:{_after_hex_group('::')}|(?={_HEX}{{1,4}}\\b))"
               f"|:{_after_hex_group(':')}(?:{_HEX}{{1,4}}:){{6}}{_HEX}{{1,4}}\\b"),
        # a country code and two check digits, in either case
        "iban": (f"(?i:(?:{countries})[0-9]{{2}}[ \\-]?[A-Za-z0-9]{{4}})",
                 f"[0-9]{{2}}(?i:(?<=(?:{countries})[0-9]{{2}}))[ \\-]?[A-Za-z0-9]{{4}}"),
        "mac": (f"{_HEX}{{2}}[:\\-]{_HEX}{{2}}[:\\-]{_HEX}{{2}}",
                f"[:\\-](?<={_HEX}{{2}}[:\\-]){_HEX}{{2}}[:\\-]{_HEX}{{2}}"),
        "crypto": (r"\b(?:bc1|[13])[a-zA-HJ-NP-Z0-9]{25,59}\b", r"\b(?:bc1|[13])[a-zA-HJ-NP-Z0-9]{25,59}\b"),
    }


# The candidate kind that covers each entity type.
CANDIDATES: dict[str, str] = {
    "EMAIL_ADDRESS": "email", "PHONE_NUMBER": "digits", "CREDIT_CARD": "digits", "US_SSN": "digits",
    "US_ITIN": "digits", "IP_ADDRESS": "ip", "IBAN_CODE": "iban", "MAC_ADDRESS": "mac", "CRYPTO": "crypto",
}
SUPPORTED_ENTITIES = tuple(CANDIDATES)

# Words that make a weak phone-shaped match a phone number when they stand near it.
PHONE_CONTEXT = ["phone", "phones", "telephone", "tel", "mobile", "cell", "cellphone", "fax", "call",
                 "contact", "desk", "office", "reach", "sms", "whatsapp", "dial", "ring", "message",
                 "messages", "answering", "registered", "hotline"]


# ---------------------------------------------------------------- start-up without network


# Presidio needs tokens only to find context words ("Phone:", "IBAN"), so the blank pipeline
# gets a plain tokenizer: no exception rules; brackets and quotes split off the front, closing
# punctuation off the end; ":;=/\\," (and "-" between a digit and a letter) split inside. It
# tokenizes about 6x faster than spaCy's English rules. The folder name carries the version.
_TOKENIZER_VERSION = "plain2"
_PREFIX = r"""^[\(\[\{<"'\u201c\u2018\u00ab]"""
_SUFFIX = r"""[\)\]\}>"'\u201d\u2019\u00bb.,;:!?]$"""
_INFIX = r"""[:;=/\\,]|(?<=[0-9])-(?=[^\W\d_])"""


def _blank_pipeline():
    import spacy
    from spacy.tokenizer import Tokenizer

    nlp = spacy.blank("en")
    nlp.tokenizer = Tokenizer(nlp.vocab, rules={}, prefix_search=re.compile(_PREFIX).search,
                              suffix_search=re.compile(_SUFFIX).search,
                              infix_finditer=re.compile(_INFIX).finditer)
    return nlp


def blank_spacy_path(cache_dir: Path | None = None) -> Path:
    """A blank English spaCy pipeline on disk (created once; written atomically).

    Presidio loads spaCy models by name or path; a blank pipeline gives it a tokenizer without
    downloading a model. Falls back to the temp folder when the cache folder is not writable.
    """
    import spacy

    for root in ([cache_dir] if cache_dir else cache_roots()):
        target = root / f"spacy-blank-en-{_TOKENIZER_VERSION}-{spacy.__version__}"
        if (target / "config.cfg").is_file():
            return target
        try:
            root.mkdir(parents=True, exist_ok=True)
            tmp = Path(tempfile.mkdtemp(prefix=".spacy-blank-en-", dir=root))
            _blank_pipeline().to_disk(tmp)
            try:
                os.rename(tmp, target)  # atomic; fails if another worker got there first
            except OSError:
                shutil.rmtree(tmp, ignore_errors=True)
            if (target / "config.cfg").is_file():
                return target
        except OSError:
            continue
    raise OSError("cannot write the blank spaCy pipeline to a cache folder (set XDG_CACHE_HOME)")


def offline_tld_extractor():
    """A tldextract extractor on the bundled public-suffix snapshot: no HTTP, no cache file."""
    import tldextract

    extractor = tldextract.TLDExtract(cache_dir=None, suffix_list_urls=(), fallback_to_snapshot=True)
    extractor("example.com")  # load the snapshot now, not in the middle of a batch
    return extractor


# ---------------------------------------------------------------- recognisers


def _luhn_ok(digits: str) -> bool:
    total = 0
    for i, ch in enumerate(reversed(digits)):
        d = ord(ch) - 48
        if i % 2:
            d = d * 2 - 9 if d > 4 else d * 2
        total += d
    return total % 10 == 0


def _card_prefix_ok(d: str) -> bool:
    """Issuer prefixes and lengths of the major card schemes (Visa, Mastercard, Amex, Discover,
    JCB, Diners, Maestro, UnionPay)."""
    n = len(d)
    p2, p4 = int(d[:2]), int(d[:4])
    if d[0] == "4":
        return n in (13, 16, 19)
    if 51 <= p2 <= 55 or 2221 <= p4 <= 2720:
        return n == 16
    if p2 in (34, 37):
        return n == 15
    if p4 in (2131, 1800):
        return n == 15
    if 3500 <= p4 <= 3599:
        return 16 <= n <= 19
    if 300 <= int(d[:3]) <= 305 or p2 in (36, 38, 39):
        return 14 <= n <= 19
    if p4 == 6011 or 644 <= int(d[:3]) <= 649 or p2 == 65 or p2 == 62:
        return 16 <= n <= 19
    if p2 == 50 or 56 <= p2 <= 69 or p4 == 604:
        return 12 <= n <= 19
    return False


def _build_recognizers(entities: Sequence[str], tld) -> list:
    from presidio_analyzer import Pattern, PatternRecognizer
    from presidio_analyzer.predefined_recognizers import (
        CreditCardRecognizer, CryptoRecognizer, EmailRecognizer, IbanRecognizer, IpRecognizer,
        MacAddressRecognizer, UsItinRecognizer, UsSsnRecognizer)

    class OfflineEmailRecognizer(EmailRecognizer):
        """E-mail addresses whose domain has a known public suffix (bundled snapshot)."""

        def validate_result(self, pattern_text: str) -> bool:
            return tld(pattern_text).fqdn != ""

    class CardNumberRecognizer(CreditCardRecognizer):
        """Presidio's card pattern plus 12-19 digit runs (Maestro, 19-digit Visa, 2-series
        Mastercard, 15-digit JCB), accepted only with a scheme prefix and a valid Luhn digit."""

        PATTERNS = CreditCardRecognizer.PATTERNS + [
            Pattern("Card (12-19 digits)", r"\b\d{12,19}\b", 0.3),
            Pattern("Card (groups of 4)", r"\b\d{4}([ -])\d{4}\1\d{4}(?:\1\d{1,7})?\b", 0.3),
            Pattern("Card (Amex groups)", r"\b\d{4}([ -])\d{6}\1\d{4,5}\b", 0.3),
        ]

        def validate_result(self, pattern_text: str) -> bool:
            digits = re.sub(r"\D", "", pattern_text)
            return 12 <= len(digits) <= 19 and _card_prefix_ok(digits) and _luhn_ok(digits)

    class CaseInsensitiveIbanRecognizer(IbanRecognizer):
        """IBANs written in lower case too ("gb42nawi0445...")."""

        def __init__(self) -> None:
            super().__init__(regex_flags=re.DOTALL | re.MULTILINE | re.IGNORECASE)

        def validate_result(self, pattern_text: str):
            return super().validate_result(pattern_text.upper())

    class PhoneFormatRecognizer(PatternRecognizer):
        """Phone numbers in the many national formats ("99 577450", "(37) 788-063",
        "+41 (0)71 526 99 04"): 7-15 digits in groups. A bare group of digits is weak (below
        the default threshold) until a context word stands near it; an international prefix,
        an area code in brackets, a US 3-3-4 shape or an extension is strong on its own.
        It stands in for Presidio's PhoneRecognizer, which runs phonenumbers' matcher once per
        region (60% of the stage's time on the corpus) and misses most of these formats."""

        PHONE = (r"(?<![\w+/.\-])(?:\+\d{1,3}[ .\-]?)?(?:\(0\)[ .\-]?)?(?:\(\d{1,5}\)[ .\-]?)?"
                 r"\d{1,12}(?:[ .\-]\d{1,8}){0,5}(?:\s?(?:x|ext\.?)\s?\d{1,5})?(?![\w/]|[.,\-]\d)")
        STRONG = re.compile(r"^\+|^\(\d{2,5}\)|^\d{3}([.\-])\d{3}\1\d{4}\b|\d\s?(?:x|ext\.?)\s?\d+$", re.I)
        # Dates, year ranges ("(1955-2011)") and YYYYMMDD stamps are digit groups too.
        DATE = re.compile(r"\b(?:(?:1[5-9]|20)\d\d([./\-])[01]?\d\1[0-3]?\d|[0-3]?\d([./\-])[01]?\d\2(?:\d\d)?\d\d)\b"
                          r"|^\(?(?:1[5-9]|20)\d\d\s?[\-\u2013]\s?(?:1[5-9]|20)\d\d\)?$"
                          r"|^(?:19|20)\d\d[01]\d[0-3]\d$")
        EXTENSION = re.compile(r"\s?(?:x|ext\.?)\s?\d+$", re.I)

        def __init__(self) -> None:
            super().__init__(supported_entity="PHONE_NUMBER", name="PhoneFormatRecognizer",
                             patterns=[Pattern("Phone (grouped digits)", self.PHONE, 0.4)],
                             context=PHONE_CONTEXT)

        def validate_result(self, pattern_text: str) -> bool | None:
            text = pattern_text.strip()
            digits = sum(ch.isdigit() for ch in self.EXTENSION.sub("", text))
            if not 7 <= digits <= 15 or self.DATE.search(text):
                return False
            return True if self.STRONG.search(text) else None

    makers = {
        "EMAIL_ADDRESS": lambda: [OfflineEmailRecognizer()],
        "PHONE_NUMBER": lambda: [PhoneFormatRecognizer()],
        "CREDIT_CARD": lambda: [CardNumberRecognizer()],
        "IP_ADDRESS": lambda: [IpRecognizer()],
        "IBAN_CODE": lambda: [CaseInsensitiveIbanRecognizer()],
        "US_SSN": lambda: [UsSsnRecognizer()],
        "US_ITIN": lambda: [UsItinRecognizer()],
        "MAC_ADDRESS": lambda: [MacAddressRecognizer()],
        "CRYPTO": lambda: [CryptoRecognizer()],
    }
    return [r for e in dict.fromkeys(entities) for r in makers[e]()]


@functools.lru_cache(maxsize=65536)
def _is_punct(word: str) -> bool:
    return bool(word) and all(unicodedata.category(ch).startswith("P") for ch in word)


# Where spaCy's tokenization may be cut: the first character after a run of white space holding
# a line break (spaCy tokenizes the runs between white space each on its own, so the tokens of
# the pieces cut there are the tokens of the whole text).
_LINE_START = re.compile(r"\n\s*(?=\S)")
# The stretches of non-space text holding a ":" (Presidio's keyword list splits tokens at ":").
_COLON_CHUNK = re.compile(r"\S*:\S*")


class LineTokens:
    """spaCy's tokens of a text, tokenized a line at a time and only where asked.

    Presidio needs tokens only for the few words of context around each result, but tokenizing
    the whole analysed text and building its keyword list cost more than the analysis itself.
    The text is cut at line starts (`_LINE_START`), each piece tokenized on first use; the tokens
    are exactly those of the whole text (tests/test_presidio_context.py checks it word by word).
    """

    def __init__(self, text: str, tokenizer) -> None:
        self.text, self.tokenizer = text, tokenizer
        self.cuts = [0, *(m.end() for m in _LINE_START.finditer(text)), len(text)]
        self._lines: dict[int, tuple[list[int], list[str]]] = {}
        self._colon_pieces: frozenset[str] | None = None
        self._keywords: dict[str, bool] = {}  # is_keyword, by lemma

    def line(self, k: int) -> tuple[list[int], list[str]]:
        """(token ends in the text, lower-cased token texts) of piece `k`."""
        got = self._lines.get(k)
        if got is None:
            from spacy.attrs import IDX, LENGTH

            a, b = self.cuts[k], self.cuts[k + 1]
            doc = self.tokenizer(self.text[a:b])
            spans = doc.to_array([IDX, LENGTH]).tolist() if len(doc) else []
            got = self._lines[k] = ([a + i + n for i, n in spans], [self.text[a + i:a + i + n].lower() for i, n in spans])
        return got

    def is_keyword(self, lemma: str) -> bool:
        """`lemma in NlpArtifacts.keywords` of the whole text: Presidio keeps every lemma that is
        not punctuation nor "be", split at ":", so a lemma is a keyword when it is one itself or
        a piece of another's split (those are found in the text's stretches holding a ":")."""
        if ":" not in lemma and lemma != "be" and not _is_punct(lemma):
            return True
        if self._colon_pieces is None:
            pieces: set[str] = set()
            # the stretches joined by single spaces tokenize as each does alone
            for token in self.tokenizer(" ".join(m.group() for m in _COLON_CHUNK.finditer(self.text))):
                k = token.text.lower()
                if ":" in k and k != "be" and not _is_punct(k):
                    pieces.update(k.lower().split(":"))
            self._colon_pieces = frozenset(pieces)
        return lemma in self._colon_pieces

    def context(self, start: int, before: int, after: int) -> list[str]:
        """Presidio's context words of a result starting at `start` (its `_add_n_words` both
        ways): from the first token ending after `start` (else the last token), up to
        `before` + 1 keywords back and `after` + 1 forward, the result's own token included."""
        last = len(self.cuts) - 2
        k = min(max(bisect.bisect_right(self.cuts, start) - 1, 0), last)
        while True:  # no token of an earlier piece ends after `start`
            ends = self.line(k)[0]
            j = bisect.bisect_right(ends, start)
            if j < len(ends):
                break
            if k == last:  # none ends after it: Presidio's walk stops on the last token
                while k > 0 and not self.line(k)[0]:
                    k -= 1
                j = len(self.line(k)[0]) - 1
                break
            k += 1
        return self._walk(k, j, before + 1, -1) + self._walk(k, j, after + 1, 1)

    def _walk(self, k: int, j: int, remaining: int, step: int) -> list[str]:
        out: list[str] = []
        last = len(self.cuts) - 2
        lemmas = self.line(k)[1]
        known = self._keywords
        while remaining > 0:
            if not 0 <= j < len(lemmas):
                k += step
                if not 0 <= k <= last:
                    break
                lemmas = self.line(k)[1]
                j = len(lemmas) - 1 if step < 0 else 0
                continue
            lemma = lemmas[j].lower()
            keyword = known.get(lemma)
            if keyword is None:
                keyword = known[lemma] = self.is_keyword(lemma)
            if keyword:
                out.append(lemma)
                remaining -= 1
            j += step
        return out


def build_analyzer(entities: Sequence[str], cache_dir: Path | None = None) -> "AnalyzerEngine":
    """A Presidio AnalyzerEngine with the pattern recognisers for `entities`, no network."""
    from presidio_analyzer import AnalyzerEngine, RecognizerRegistry, RecognizerResult
    from presidio_analyzer.context_aware_enhancers import LemmaContextAwareEnhancer
    from presidio_analyzer.nlp_engine import NlpArtifacts, NlpEngineProvider, SpacyNlpEngine
    from spacy.attrs import IDX, LENGTH, LOWER

    unknown = [e for e in entities if e not in CANDIDATES]
    if unknown:
        raise ValueError(f"pii.entities: unsupported {unknown}; supported: {list(SUPPORTED_ENTITIES)}")

    class LineArtifacts(NlpArtifacts):
        """Presidio's NLP artifacts of a text, tokenized only where a result's context is read
        (`lines`, a LineTokens); the whole text's tokens, lemmas and keywords are built if asked for."""

        def __init__(self, text: str, nlp, engine: "BlankSpacyNlpEngine", language: str) -> None:
            # NlpArtifacts.__init__ is not called: it builds the keyword list of every token
            self.entities, self.scores, self.nlp_engine, self.language = [], [], engine, language
            self.nlp = nlp
            self.lines = LineTokens(text, nlp.tokenizer)

        @functools.cached_property
        def tokens(self):
            return self.nlp(self.lines.text)

        @functools.cached_property
        def _spans(self) -> list[list[int]]:
            # offsets from one array call: building a Token object per token costs more
            return self.tokens.to_array([IDX, LENGTH]).tolist() if len(self.tokens) else []

        @functools.cached_property
        def tokens_indices(self) -> list[int]:
            return [i for i, _ in self._spans]

        @functools.cached_property
        def lemmas(self) -> list[str]:
            return [self.lines.text[i:i + n].lower() for i, n in self._spans]

        @functools.cached_property
        def keywords(self) -> list[str]:
            return NlpArtifacts.set_keywords(self.nlp_engine, self.lemmas, self.language)

    class BlankSpacyNlpEngine(SpacyNlpEngine):
        """spaCy with a tokenizer only: lower-cased tokens stand in for lemmas, and no word is a
        stop word, so context words ("call", "phone") count where Presidio looks for them."""

        def process_text(self, text: str, language: str):
            return LineArtifacts(text, self.nlp[language], self, language)

        def process_batch(self, texts, language: str, batch_size: int = 1, n_process: int = 1,
                          as_tuples: bool = False, **kwargs):
            # Presidio's own batch call builds artifacts through a private method: ours do not
            for item in texts:
                text, context = (str(item[0]), item[1]) if as_tuples else (str(item), None)
                art = self.process_text(text, language)
                yield (text, art, context) if as_tuples else (text, art)

        def load(self) -> None:
            super().load()
            # Lexeme attributes are computed in Python for every new token string (each number,
            # each address); Presidio reads only the lower-case form.
            for nlp in self.nlp.values():
                nlp.vocab.lex_attr_getters = {LOWER: str.lower}

        def is_stopword(self, word: str, language: str) -> bool:
            return False

        def is_punct(self, word: str, language: str) -> bool:
            return _is_punct(word)

    class LineContextEnhancer(LemmaContextAwareEnhancer):
        """Presidio's context enhancement (LemmaContextAwareEnhancer, whole-word matching) on
        LineArtifacts: each result's context words are read from the lines around it (the whole
        text is never tokenized), and its results are raised in place (Presidio deep-copies
        every result first; the analyzer keeps only what this returns).
        tests/test_presidio_context.py checks the words and scores against Presidio's own."""

        def enhance_using_context(self, text: str, raw_results: list, nlp_artifacts, recognizers: list,
                                  context: list[str] | None = None) -> list:
            lines = getattr(nlp_artifacts, "lines", None)
            if not isinstance(lines, LineTokens):  # artifacts made elsewhere: Presidio's own way
                return super().enhance_using_context(text, raw_results, nlp_artifacts, recognizers, context)
            by_id = {r.id: r for r in recognizers}
            given = [w.lower() for w in context or []]
            for result in raw_results:
                meta = result.recognition_metadata or {}
                recognizer = by_id.get(meta.get(RecognizerResult.RECOGNIZER_IDENTIFIER_KEY))
                # a result already at the top score (a validated card, e-mail, IBAN: a third of
                # them) stays there: its context words are not looked up
                if recognizer is None or not recognizer.context or result.score >= self.MAX_SCORE or \
                        meta.get(RecognizerResult.IS_SCORE_ENHANCED_BY_CONTEXT_KEY):
                    continue
                words = lines.context(result.start, self.context_prefix_count,
                                      self.context_suffix_count) if lines.text else [""]
                present = {w.lower() for w in words} | set(given)
                word = next((w for w in recognizer.context if w.lower() in present), "")
                if word:
                    result.score = min(max(result.score + self.context_similarity_factor,
                                           self.min_score_with_context_similarity), self.MAX_SCORE)
                    result.analysis_explanation.set_supportive_context_word(word)
                    result.analysis_explanation.set_improved_score(result.score)
            return raw_results

    provider = NlpEngineProvider(
        nlp_engines=(BlankSpacyNlpEngine,),
        nlp_configuration={"nlp_engine_name": "spacy",
                           "models": [{"lang_code": "en", "model_name": str(blank_spacy_path(cache_dir))}]})
    registry = RecognizerRegistry(supported_languages=["en"])
    for recognizer in _build_recognizers(entities, offline_tld_extractor()):
        registry.add_recognizer(recognizer)
    enhancer = LineContextEnhancer(context_prefix_count=6, context_suffix_count=6,
                                      context_matching_mode="whole_word")
    return AnalyzerEngine(registry=registry, nlp_engine=provider.create_engine(), supported_languages=["en"],
                          context_aware_enhancer=enhancer)


# ---------------------------------------------------------------- windows


def candidate_kinds(entities: Iterable[str]) -> dict[str, tuple[str, str]]:
    """The candidate patterns `entities` need, by kind: {kind: (RE2 form, Python form)}."""
    table = candidate_patterns()
    return {k: table[k] for k in dict.fromkeys(CANDIDATES[e] for e in entities)}


# The last white space character of a stretch (greedy), and the first one.
_LAST_SPACE = re.compile(r".*\s", re.DOTALL)
_SPACE = re.compile(r"\s")


def _widen(text: str, start: int, end: int, reach: int = 40) -> tuple[int, int]:
    """Move window edges out to the nearest white space, at most `reach` characters further,
    so a window does not begin or end inside a number or a word."""
    low, high = max(0, start - reach), min(len(text), end + reach)
    before = _LAST_SPACE.match(text, low, start)
    after = _SPACE.search(text, end, high)
    return (before.end() if before else low), (after.start() if after else high)


def candidate_windows(text: str, patterns: Iterable[re.Pattern]) -> list[tuple[int, int]]:
    """Merged (start, end) windows around every match of `patterns` in `text`."""
    n = len(text)
    spans = sorted(_widen(text, max(0, m.start() - WINDOW_BEFORE), min(n, m.end() + WINDOW_AFTER))
                   for p in patterns for m in p.finditer(text))
    windows: list[list[int]] = []
    for s, e in spans:
        # merge with the previous window unless that makes it longer than a chunk (spaCy's
        # length limit); the windows may then overlap, and the findings are deduplicated
        if windows and s <= windows[-1][1] + WINDOW_MERGE_GAP and e - windows[-1][0] <= CHUNK_CHARS:
            windows[-1][1] = max(windows[-1][1], e)
        else:
            windows.append([s, e])
    # a single match may itself be longer than a chunk (a run of a million digits)
    return [piece for s, e in windows for piece in chunk_windows(s, e)]


def chunk_windows(start: int, end: int) -> list[tuple[int, int]]:
    """[start, end) as overlapping pieces of at most CHUNK_CHARS characters."""
    n = end - start
    if n <= CHUNK_CHARS:
        return [(start, end)] if n > 0 else []
    step = CHUNK_CHARS - CHUNK_OVERLAP
    return [(s, min(end, s + CHUNK_CHARS)) for s in range(start, end - CHUNK_OVERLAP, step)]


# Between windows analysed together: blank lines stop every pattern, and eight plain tokens use
# up Presidio's context reach (6 words back and forth), so no context word crosses over.
WINDOW_SEPARATOR = "\n\n" + " ".join(["~~~~"] * 8) + "\n\n"
# Strings in spaCy's vocabulary above which the blank pipeline is loaded afresh.
VOCAB_RESET = 200_000
# Windows are analysed together in texts of about this many characters (one analyzer call
# costs ~1 ms whatever its size; spaCy's limit is 1e6 characters).
PACK_CHARS = 100_000


class WindowPack:
    """Windows of many texts joined into one analyzer input, with the way back to each text."""

    def __init__(self) -> None:
        self.parts: list[str] = []
        self.starts: list[int] = []       # start of each window in the packed text
        self.owners: list[tuple[int, int, int]] = []  # (row, window start in its text, length)
        self.size = 0

    def add(self, row: int, text: str, start: int, end: int) -> None:
        if self.parts:
            self.parts.append(WINDOW_SEPARATOR)
            self.size += len(WINDOW_SEPARATOR)
        self.starts.append(self.size)
        self.owners.append((row, start, end - start))
        self.parts.append(text[start:end])
        self.size += end - start

    def text(self) -> str:
        return "".join(self.parts)

    def locate(self, start: int, end: int) -> tuple[int, int, int] | None:
        """(row, start, end) in the row's text of a packed span; None if it crosses windows."""
        k = bisect.bisect_right(self.starts, start) - 1
        if k < 0:
            return None
        row, offset, length = self.owners[k]
        a, b = start - self.starts[k], end - self.starts[k]
        return (row, offset + a, offset + b) if b <= length else None


# ---------------------------------------------------------------- the stage


class PiiStage(ConfigStage):
    """Presidio PII findings (type, offsets, score; never the value) per record."""

    name: ClassVar[str] = "pii"
    reads: ClassVar[tuple[str, ...]] = ("text",)
    writes: ClassVar[tuple[str, ...]] = ("pii",)

    def __init__(self, config: "AuditConfig", prefilter: bool | None = None) -> None:
        super().__init__(config)
        cfg = config.pii
        self.enabled = cfg.enabled
        self.entities = list(cfg.entities)
        self.min_score = cfg.floor  # findings down to the floor are kept; judge counts those >= min_score
        self.prefilter = cfg.prefilter if prefilter is None else prefilter
        self.analyzer = None

    # The candidate patterns come from Presidio's recognisers (1.7 s to import): built when first
    # measured, never for `audit decide`, which builds the stage to judge only.
    @functools.cached_property
    def _kinds(self) -> dict[str, tuple[str, str]]:
        return candidate_kinds(self.entities)

    @functools.cached_property
    def kinds_re2(self) -> dict[str, str]:
        """RE2 candidate pattern per kind."""
        return {k: r2 for k, (r2, _) in self._kinds.items()}

    @functools.cached_property
    def kinds_re(self) -> dict[str, re.Pattern[str]]:
        """Python candidate pattern per kind."""
        return {k: re.compile(py) for k, (_, py) in self._kinds.items()}

    @functools.cached_property
    def kind_entities(self) -> dict[str | None, list[str]]:
        """The entities each candidate kind stands for (None: every entity)."""
        out: dict[str | None, list[str]] = {k: [e for e in self.entities if CANDIDATES[e] == k] for k in self._kinds}
        out[None] = self.entities
        return out

    def setup(self) -> None:
        self.analyzer = build_analyzer(self.entities) if self.enabled and self.entities else None

    @functools.cached_property
    def any_kind_re2(self) -> str:
        """One RE2 pattern matching where any candidate kind matches."""
        return "|".join(f"(?:{r2})" for r2 in self.kinds_re2.values())

    def candidate_kinds(self, texts: pa.Array | pa.ChunkedArray) -> dict[str, np.ndarray]:
        """Per candidate kind, the rows whose text holds such a candidate (vectorised, RE2): one
        pass over every text for any kind (a pass costs the same for one pattern or their union),
        then a pass per kind over the few texts that hold one."""
        hit = pc.fill_null(pc.match_substring_regex(texts, self.any_kind_re2), False).to_numpy(zero_copy_only=False)
        rows = np.flatnonzero(hit)
        some = pc.take(texts, pa.array(rows)) if len(rows) else None
        out: dict[str, np.ndarray] = {}
        for k, r2 in self.kinds_re2.items():
            out[k] = np.zeros(len(hit), dtype=bool)
            if some is not None:
                out[k][rows] = pc.fill_null(pc.match_substring_regex(some, r2), False).to_numpy(zero_copy_only=False)
        return out

    def windows(self, text: str, kinds: Iterable[str] | None = None) -> list[tuple[str | None, list[tuple[int, int]]]]:
        """The parts of `text` the analyzer reads, as (candidate kind, windows) pairs: with the
        prefilter, windows around the candidates of each of `kinds` (default: all); without it,
        the whole text under kind None (every entity)."""
        if not self.prefilter:
            return [(None, chunk_windows(0, len(text)))]
        return [(k, candidate_windows(text, [self.kinds_re[k]])) for k in (self.kinds_re if kinds is None else kinds)]

    def _analyze_pack(self, pack: WindowPack, entities: list[str],
                      found: dict[int, dict[tuple[str, int, int], float]]) -> None:
        nlp_engine = self.analyzer.nlp_engine
        # spaCy keeps every new token string (each number, each address) in its vocabulary:
        # start again from the saved blank pipeline before a long-running worker's memory grows.
        if len(nlp_engine.nlp["en"].vocab.strings) > VOCAB_RESET:
            nlp_engine.load()
        for r in self.analyzer.analyze(text=pack.text(), language="en", entities=entities,
                                       score_threshold=self.min_score):
            where = pack.locate(r.start, r.end)
            if where is None:
                continue
            row, a, b = where
            key = (r.entity_type, a, b)
            per_row = found.setdefault(row, {})
            per_row[key] = max(per_row.get(key, 0.0), float(r.score))

    def analyze_texts(self, texts: Sequence[tuple[int, str, Sequence[str] | None]]) -> dict[int, list[dict[str, Any]]]:
        """Findings per row for (row, text, candidate kinds or None for all), sorted by offset.

        Windows of one candidate kind are packed together and analysed for that kind's
        entities only, so e.g. the e-mail pattern never scans the digit windows."""
        found: dict[int, dict[tuple[str, int, int], float]] = {}
        packs: dict[str | None, WindowPack] = {}
        for row, text, kinds in texts:
            for kind, windows in self.windows(text, kinds):
                for s, e in windows:
                    pack = packs.setdefault(kind, WindowPack())
                    if pack.size and pack.size + (e - s) > PACK_CHARS:
                        self._analyze_pack(pack, self.kind_entities[kind], found)
                        pack = packs[kind] = WindowPack()
                    pack.add(row, text, s, e)
        for kind, pack in packs.items():
            if pack.size:
                self._analyze_pack(pack, self.kind_entities[kind], found)
        return {row: [{"entity_type": t, "start": a, "end": b, "score": sc}
                      for (t, a, b), sc in sorted(items.items(), key=lambda kv: (kv[0][1], kv[0][2], kv[0][0]))]
                for row, items in found.items()}

    def measure(self, texts: pa.Array | pa.ChunkedArray) -> pa.Array:
        """The `pii` column for an Arrow string array."""
        if isinstance(texts, pa.ChunkedArray):
            texts = texts.combine_chunks()
        valid = pc.is_valid(texts).to_numpy(zero_copy_only=False)
        out: list[list[dict[str, Any]] | None] = [[] if v else None for v in valid]
        if self.analyzer is not None:
            if self.prefilter:
                masks = self.candidate_kinds(texts)
                rows = np.flatnonzero(np.logical_or.reduce(list(masks.values()))).tolist()
                todo = [(i, texts[i].as_py(), [k for k, m in masks.items() if m[i]]) for i in rows]
            else:
                todo = [(i, texts[i].as_py(), None) for i in np.flatnonzero(valid).tolist()]
            for row, findings in self.analyze_texts(todo).items():
                out[row] = findings
        return pa.array(out, PII_TYPE)

    def __call__(self, batch: pa.Table) -> pa.Table:
        return batch.append_column("pii", self.measure(batch.column("text")))

    def judge(self, table: pa.Table) -> Iterable[Finding]:
        """`pii:<TYPE>` for findings of a quarantined type; `pii:many` above max_findings findings of
        max_findings_types (findings scoring at least min_score only)."""
        config = self.config
        cfg = config.pii
        if not cfg.enabled or "pii" not in table.column_names:
            return
        column = counted(table.column("pii"), config)
        lengths = pc.fill_null(pc.list_value_length(column), 0).to_numpy(zero_copy_only=False)
        if not lengths.any():
            return
        flat = pc.list_flatten(column)
        parents = pc.list_parent_indices(column).to_numpy(zero_copy_only=False)
        types = pc.struct_field(flat, "entity_type").to_numpy(zero_copy_only=False)
        quarantined = np.isin(types, np.array(cfg.quarantine_types, dtype=object))
        # technical identifiers (IP addresses) are reported in pii/ but do not count towards pii:many
        personal = np.bincount(parents[np.isin(types, np.array(cfg.max_findings_types, dtype=object))],
                               minlength=len(lengths))
        rows = set(parents[quarantined].tolist()) | set(np.flatnonzero(personal > cfg.max_findings).tolist())
        for i in sorted(rows):
            # parent indices ascend, so a row's findings are one contiguous run
            lo, hi = np.searchsorted(parents, i, "left"), np.searchsorted(parents, i, "right")
            counts = Counter(types[lo:hi].tolist())
            details = {"findings": int(lengths[i]), "counted": int(personal[i]), "counts": dict(sorted(counts.items()))}
            for t in sorted(t for t in counts if t in cfg.quarantine_types):
                yield i, f"pii:{t}", details
            if personal[i] > cfg.max_findings:
                yield i, "pii:many", details


def counted(column: pa.Array | pa.ChunkedArray, config: "AuditConfig") -> pa.Array:
    """The `pii` column with only the findings scoring at least pii.min_score (the kept
    measurements reach down to the measure floor, for re-judging)."""
    col = column.combine_chunks() if isinstance(column, pa.ChunkedArray) else column
    flat = pc.list_flatten(col)
    if len(flat) == 0:
        return col
    return filter_list(col, pc.greater_equal(pc.struct_field(flat, "score"), config.pii.min_score))
