"""Local alignment of an eval item's words against a stretch of a record (the fuzzy tier's check).

An item is cut into pieces (its lines and sentences, long ones cut again); each piece is
aligned on its own, Smith-Waterman with linear gaps (match +1, substitution -1, a word inserted
or dropped -1), against the record's words, so pieces moved elsewhere in the record (reordered,
split far apart) each find their own place and their matched words add up. An edit costs one
word of score, so a piece with a fifth of its words replaced, dropped or repeated still aligns
whole, while unrelated text gives only short runs of common words.

The dynamic programme runs one item word at a time, vectorised over the record's words: the
horizontal (record-word-inserted) moves of a row are a running maximum of
`E[k] + |gap| * k`, so a row costs a few numpy passes and no Python loop over the record.
Alongside each cell's score it carries the column the alignment started at and the weight
of the item words matched so far, so the best cell of a piece gives its span and coverage
without a traceback.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from audit.normalize import Tokens

_MATCH = 1.0
_MISMATCH = -1.0
_GAP = -1.0
_BREAKS = np.array([ord(c) for c in "\n.?!;"], dtype=np.uint32)


@dataclass
class PieceHit:
    """The best local alignment of one item piece: matched item-word weight, matched words, and
    the record columns [start, end) it spans."""

    weight: float
    words: int
    start: int
    end: int


def piece_starts(texts: Sequence[str], tokens: Tokens) -> np.ndarray:
    """Per word of `tokens` (the words of `texts`): whether a line break or a sentence end
    (. ? ! ;) stands between it and the word before it in its text, or ends that word."""
    lengths = np.fromiter(map(len, texts), dtype=np.int64, count=len(texts))
    text_start = np.zeros(len(texts), dtype=np.int64)
    if len(texts) > 1:
        np.cumsum(lengths[:-1] + 1, out=text_start[1:])
    cps = np.frombuffer(" ".join(texts).encode("utf-32-le", "surrogatepass"), dtype=np.uint32)
    upto = np.zeros(len(cps) + 1, dtype=np.int64)
    np.cumsum(np.isin(cps, _BREAKS), out=upto[1:])
    base = np.repeat(text_start, np.diff(tokens.bounds))
    out = np.zeros(len(tokens.hashes), dtype=bool)
    if len(out) > 1:
        # from the last character of the word before (a word may end with its full stop) to this one
        prev_last = np.maximum(np.minimum(tokens.ends[:-1], tokens.starts[1:]) - 1, 0)
        out[1:] = upto[base[1:] + tokens.starts[1:]] > upto[base[1:] + prev_last]
    return out


def item_pieces(cut: np.ndarray, max_words: int = 24, min_words: int = 3) -> np.ndarray:
    """Piece bounds (word indices, len = pieces + 1) of an item whose words start a new piece
    where `cut` is set (see piece_starts): pieces longer than `max_words` cut evenly, pieces
    shorter than `min_words` joined to the one before."""
    n = len(cut)
    if n == 0:
        return np.zeros(1, dtype=np.int64)
    cuts = [0, *np.flatnonzero(cut[1:]).__add__(1).tolist(), n]
    bounds = [0]
    for a, b in zip(cuts[:-1], cuts[1:]):
        parts = max(1, -(-(b - a) // max_words))
        for p in range(1, parts + 1):
            bounds.append(a + (b - a) * p // parts)
    merged = [0]
    for b in bounds[1:]:
        if b - merged[-1] < min_words and len(merged) > 1:
            merged[-1] = b  # too short: joined to the piece before
        else:
            merged.append(b)
    if len(merged) > 2 and merged[-1] - merged[-2] < min_words:
        merged.pop(-2)
    return np.asarray(merged, dtype=np.int64)


def align_pieces(item: np.ndarray, weights: np.ndarray, pieces: np.ndarray, doc: np.ndarray) -> list[PieceHit]:
    """Best local alignment of each item piece `item[pieces[p]:pieces[p+1]]` (word hashes, with
    per-word `weights`) against the record words `doc`. All pieces advance together, one row of
    each per step (pieces x record words arrays), so an item costs as many numpy passes as its
    longest piece has words, not as it has words."""
    n = len(doc)
    n_pieces = len(pieces) - 1
    if n == 0 or n_pieces <= 0:
        return [PieceHit(0.0, 0, 0, 0) for _ in range(max(n_pieces, 0))]
    order = np.argsort(-np.diff(np.asarray(pieces, dtype=np.int64)), kind="stable")  # longest first
    first = np.asarray(pieces[:-1], dtype=np.int64)[order]
    length = np.diff(np.asarray(pieces, dtype=np.int64))[order]
    ramp = np.arange(n + 1, dtype=np.float64) * -_GAP  # E[k] + gap*k form of the running maximum
    idx_row = np.arange(n + 1, dtype=np.int64)
    h = np.zeros((n_pieces, n + 1))
    # What each cell carries, stacked so that one numpy pass moves all three: the start column of
    # the alignment ending there, the matched item-word weight and the matched words along it.
    st = np.zeros((3, n_pieces, n + 1))
    st[0] = idx_row
    restarted = np.zeros((3, 1, n + 1))  # what a path starting at a cell carries: its column, nothing matched
    restarted[0, 0] = idx_row
    best_score = np.zeros(n_pieces)
    best = np.zeros((n_pieces, 4))  # weight, words, start, end
    row_base = (np.arange(n_pieces, dtype=np.int64) * (n + 1))[:, None]
    for i in range(int(length[0])):
        k = int(np.count_nonzero(length > i))  # the pieces still going: the first k (longest first)
        at = first[:k] + i
        hk = h[:k]
        eq = doc[None, :] == item[at][:, None]
        diag = hk[:, :-1] + np.where(eq, _MATCH, _MISMATCH)
        vert = hk[:, 1:] + _GAP
        use_diag = diag >= vert
        e = np.empty((k, n + 1))
        e[:, 0] = -1.0
        e[:, 1:] = np.maximum(diag, vert)
        gain = np.zeros((3, k, n))  # a diagonal step adds the item word's weight and one word where it matches
        gain[1] = eq * weights[at][:, None]
        gain[2] = eq
        carried = np.empty((3, k, n + 1))
        carried[:, :, 0] = 0.0
        carried[:, :, 1:] = np.where(use_diag, st[:, :k, :-1] + gain, st[:, :k, 1:])
        # A path falling below zero restarts here; one at zero goes on (its matches still count).
        restart = e < 0.0
        e[restart] = 0.0
        carried = np.where(restart, restarted, carried)
        t = e + ramp
        run = np.maximum.accumulate(t, axis=1)
        arg = np.maximum.accumulate(np.where(t >= run, idx_row, 0), axis=1)
        h[:k] = run - ramp
        flat = (arg + row_base[:k]).ravel()  # each row's cell `arg` in the flattened (k, n + 1) arrays
        st[:, :k] = carried.reshape(3, -1)[:, flat].reshape(3, k, n + 1)
        j = np.argmax(h[:k], axis=1)
        rows = np.arange(k)
        top = h[rows, j]
        better = top > best_score[:k]
        if better.any():
            b = rows[better]
            jb = j[better]
            best_score[b] = top[better]
            best[b] = np.stack([st[1, b, jb], st[2, b, jb], st[0, b, jb], jb], axis=1)
    out = [PieceHit(0.0, 0, 0, 0)] * n_pieces
    for p, hit in zip(order.tolist(), best.tolist()):
        out[p] = PieceHit(float(hit[0]), int(hit[1]), int(hit[2]), int(hit[3]))
    return out
