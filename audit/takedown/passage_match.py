"""Confirm a passage against a record's original text and find where it sits.

The record's text is cut into whitespace-separated tokens with their character offsets; each
token goes through THE shared normaliser (so case, punctuation and line breaks no longer matter)
and yields zero or more words that remember their token. The passage's word n-grams are matched
against the record's; the densest run of matching n-grams is the matched span, reported in
characters of the original text, and the score is the share of the passage's words that run
covers. A few edited words inside a copy cost only those words, not the match.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np
import pyarrow as pa

from audit.takedown.hashing import ngram_hashes
from audit.takedown.passages import PASSAGE_NGRAM, text_words

# The normaliser's white space: RE2's \s ([\t\n\f\r ]) and Unicode separators \p{Z}.
_TOKEN = re.compile(r"[^\t\n\f\r \u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+")


@dataclass(frozen=True)
class PassageSpan:
    """Where a passage sits in a record: character offsets [start, end) of the original text."""

    score: float          # share of the passage's words found in the span, 0..1
    start: int
    end: int
    words_matched: int
    words: int


class PassagePattern:
    """A passage prepared once, matched against many record texts."""

    def __init__(self, passage: str, ngram: int = PASSAGE_NGRAM) -> None:
        self.ngram = ngram
        w = text_words(pa.array([passage], pa.string()))
        self.words = int(w.counts[0])
        self.grams, _ = ngram_hashes(w.hashes, w.starts, w.counts, ngram)

    def match(self, text: str | None) -> PassageSpan | None:
        """The best span of `text` holding the passage, or None when no n-gram is shared."""
        if not text or len(self.grams) == 0:
            return None
        tokens = [(m.start(), m.end()) for m in _TOKEN.finditer(text)]
        if not tokens:
            return None
        w = text_words(pa.array([text[a:b] for a, b in tokens], pa.string()))
        word_token = np.repeat(np.arange(len(tokens)), w.counts)
        total = len(w.hashes)
        rec_grams, _ = ngram_hashes(w.hashes, np.array([0]), np.array([total]), self.ngram)
        hit = np.flatnonzero(np.isin(rec_grams, self.grams))
        if len(hit) == 0:
            return None
        # Runs of matching n-grams; a gap of a few edited words does not split a run.
        breaks = np.flatnonzero(np.diff(hit) > 2 * self.ngram) + 1
        runs = np.split(hit, breaks)
        best = max(runs, key=len)
        in_span = np.isin(self.grams, rec_grams[best])
        covered = np.zeros(self.words + 1, dtype=np.int64)
        starts = np.flatnonzero(in_span)
        np.add.at(covered, starts, 1)
        np.add.at(covered, starts + self.ngram, -1)
        words_matched = int((np.cumsum(covered)[:self.words] > 0).sum())
        first_word, last_word = int(best[0]), int(best[-1]) + self.ngram - 1
        start = tokens[int(word_token[first_word])][0]
        end = tokens[int(word_token[last_word])][1]
        return PassageSpan(score=words_matched / max(self.words, 1), start=start, end=end,
                           words_matched=words_matched, words=self.words)
