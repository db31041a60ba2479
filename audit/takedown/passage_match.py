"""Confirm a passage against a record's original text and find where it sits.

Both texts go through THE shared tokeniser (audit.normalize.tokenize_hashed), whose words keep
their character offsets in the original text, so case, punctuation and line breaks no longer
matter. The passage's word n-grams (CONFIRM_NGRAM words) are matched against the record's; the
densest run of matching n-grams is the matched span, reported in characters of the original
text, and the score is the share of the passage's words that run covers. A few edited words
inside a copy cost only those words and their neighbours, not the match.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from audit.normalize import ngram_hashes, tokenize_hashed

# Word n-gram size of the confirmation. Shorter than the index's n-grams: a changed or split word
# then costs only itself and at most 3 neighbours at an edge, while unrelated text rarely holds
# long dense runs of shared 4-grams.
CONFIRM_NGRAM = 4


@dataclass(frozen=True)
class PassageSpan:
    """Where a passage sits in a record: character offsets [start, end) of the original text."""

    score: float          # share of the passage's words found in the span, 0..1
    start: int
    end: int


class PassagePattern:
    """A passage prepared once, matched against many record texts."""

    def __init__(self, passage: str, ngram: int = CONFIRM_NGRAM) -> None:
        self.ngram = ngram
        tokens = tokenize_hashed([passage])
        self.words = len(tokens.hashes)
        self.grams, _ = ngram_hashes(tokens, ngram, short=True)

    def match(self, text: str | None) -> PassageSpan | None:
        """The best span of `text` holding the passage, or None when no n-gram is shared."""
        if not text or len(self.grams) == 0:
            return None
        tokens = tokenize_hashed([text])
        rec_grams, first = ngram_hashes(tokens, self.ngram, short=True)
        hit = np.flatnonzero(np.isin(rec_grams, self.grams))
        if len(hit) == 0:
            return None
        # Runs of matching n-grams; a gap of a few edited words does not split a run.
        breaks = np.flatnonzero(np.diff(first[hit]) > 3 * self.ngram) + 1
        best = max(np.split(hit, breaks), key=len)
        in_span = np.isin(self.grams, rec_grams[best])
        n = min(self.ngram, self.words)
        covered = np.zeros(self.words + 1, dtype=np.int64)
        starts = np.flatnonzero(in_span)
        np.add.at(covered, starts, 1)
        np.add.at(covered, np.minimum(starts + n, self.words), -1)
        words_matched = int((np.cumsum(covered)[:self.words] > 0).sum())
        last_word = min(int(first[best[-1]]) + n - 1, len(tokens.hashes) - 1)
        return PassageSpan(score=words_matched / max(self.words, 1), start=int(tokens.starts[first[best[0]]]),
                           end=int(tokens.ends[last_word]))
