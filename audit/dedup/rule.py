"""The near-duplicate rule, the same in the job (shuffled or in one partition) and the sidecar.

- Candidates: records sharing a band key. A record whose exact key an earlier member of the
  same bucket has is an exact duplicate (its copy shares every band) and steps aside.
- Confirmed: a candidate pair sharing at least `dedup.min_shared_bands` band keys (a lone 32-bit
  key collision, whose count grows with the square of the record count, is never enough).
- Similarity: the Jaccard estimated from the shared bands, (shared / bands) ^ (1 / rows), as a
  band matches with probability J^rows.
- Clusters: connected components of confirmed pairs keep their earliest record; a member is
  reported only when confirmed against that kept record itself, and the rest are resolved again
  in rounds (`resolve_rounds`), so a chain of partial overlaps does not reach unlike records.
"""
from __future__ import annotations

import numpy as np

from audit.dedup.components import connected_components

# A band bucket up to this size links all its pairs; a bigger one (boilerplate shared by many
# records) links each member to its earliest record only, so edges grow linearly.
ALL_PAIRS_MAX = 16


# Above this many keys, `repeated` first counts the keys into a table of about 4 slots a key
# (at most 2**24 slots): a key alone in its slot is not repeated, so only the ~quarter of rows
# sharing a slot are sorted (a 1M-key band: 63 -> 36 ms; 64-bit keys 161 -> 63 ms).
_COUNTED_FROM = 1 << 14
_SLOT_MIX = np.uint64(0x9E3779B97F4A7C15)  # odd: a multiplicative hash whose top bits are the slot


def repeated(keys: np.ndarray) -> np.ndarray:
    """The rows (ascending) whose key occurs more than once. Only those can pair or step aside,
    and they are few: one sort of the keys finds them, several times faster than the rule's
    sorts over every row (32-bit keys: sorted with their row in the low bits, no argsort)."""
    if len(keys) >= _COUNTED_FROM:
        bits = min(24, int(4 * len(keys) - 1).bit_length())
        slot = ((keys.astype(np.uint64) * _SLOT_MIX) >> np.uint64(64 - bits)).astype(np.int64)
        maybe = np.flatnonzero(np.bincount(slot, minlength=1 << bits)[slot] > 1)
        return maybe[_repeated_sorted(keys[maybe])]
    return _repeated_sorted(keys)


def _repeated_sorted(keys: np.ndarray) -> np.ndarray:
    """`repeated` by sorting every key."""
    if keys.dtype.itemsize <= 4 and len(keys) < 1 << 32:
        packed = np.sort((keys.astype(np.uint64) << np.uint64(32)) | np.arange(len(keys), dtype=np.uint64))
        hi = packed >> np.uint64(32)
        same = hi[1:] == hi[:-1]
        twice = np.zeros(len(packed), bool)
        twice[1:] |= same
        twice[:-1] |= same
        return np.sort((packed[twice] & np.uint64(0xFFFFFFFF)).astype(np.int64))
    s = np.sort(keys)
    twice = np.unique(s[1:][s[1:] == s[:-1]])
    if not len(twice):
        return np.zeros(0, np.int64)
    return np.flatnonzero(twice[np.minimum(np.searchsorted(twice, keys), len(twice) - 1)] == keys)


def step_aside(keys: np.ndarray, order: np.ndarray, exact: np.ndarray) -> np.ndarray:
    """Rows (sorted) that stay in their buckets: within a bucket (`keys`), a later record with an
    earlier member's exact key (`exact`, uint64; 0 = none, never steps aside) is left out."""
    idx = np.lexsort((order, exact, keys))
    k, e = keys[idx], exact[idx]
    clone = np.zeros(len(idx), dtype=bool)
    clone[1:] = (k[1:] == k[:-1]) & (e[1:] == e[:-1]) & (e[1:] != 0)
    return np.sort(idx[~clone])


def bucket_edges(keys: np.ndarray, rows: np.ndarray, order: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Candidate pairs (row a, row b) of records sharing a bucket key.

    `keys` are band keys made unique per band (band index in the high bits); each bucket links
    every member to its earliest member, and small buckets also link all their pairs.
    """
    if len(keys) < 2:
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    idx = np.lexsort((order, keys))
    k, r = keys[idx], rows[idx]
    first = np.ones(len(k), dtype=bool)
    first[1:] = k[1:] != k[:-1]
    starts = np.flatnonzero(first)
    sizes = np.diff(np.append(starts, len(k)))
    group = np.repeat(np.arange(len(starts)), sizes)
    pos = np.arange(len(k)) - starts[group]
    size = sizes[group]
    shared = size > 1
    a_parts = [r[shared & (pos > 0)]]
    b_parts = [r[starts[group[shared & (pos > 0)]]]]
    small = shared & (size <= ALL_PAIRS_MAX)
    for d in range(1, min(ALL_PAIRS_MAX, int(sizes.max()))):
        sel = np.flatnonzero(small & (pos >= 1) & (pos + d < size))
        if len(sel) == 0:
            break
        a_parts.append(r[sel + d])
        b_parts.append(r[sel])
    return np.concatenate(a_parts), np.concatenate(b_parts)


def shared_bands(mat_a: np.ndarray, mat_b: np.ndarray) -> np.ndarray:
    """Band keys two records have in the same band, row by row of two (records x bands) matrices."""
    return (mat_a == mat_b).sum(axis=1)


def confirmed(mat_a: np.ndarray, mat_b: np.ndarray, min_shared: int) -> np.ndarray:
    """Whether each candidate pair (row of `mat_a`, same row of `mat_b`) is a near duplicate."""
    return shared_bands(mat_a, mat_b) >= min_shared


def estimated_jaccard(shared: np.ndarray, bands: int, rows: int) -> np.ndarray:
    """The Jaccard similarity estimated from shared band keys: (shared / bands) ^ (1 / rows)."""
    return (np.asarray(shared, np.float64) / bands) ** (1.0 / rows)


def resolve_rounds(lo: np.ndarray, hi: np.ndarray, mat: np.ndarray, order: np.ndarray,
                   min_shared: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Duplicate rows, their kept rows and shared band counts from confirmed pairs (lo, hi).

    Each round takes the connected components of the remaining pairs, keeps each component's
    earliest record and reports the members confirmed against it (a member linked only through
    a chain of others may be unlike the kept record, so it stays). Pairs touching a resolved
    record (kept or reported) are then dropped and the rest resolved again, so records chained
    to a cluster only through its kept record still meet each other. Every round resolves at
    least one record per component, and components are resolved independently of each other
    (so a partition of whole components resolves as the whole run would).
    """
    dup_parts, kept_parts, same_parts = [], [], []
    while len(lo):
        nodes, inv = np.unique(np.concatenate([lo, hi]), return_inverse=True)
        label = connected_components(inv[:len(lo)], inv[len(lo):], len(nodes))
        by = np.lexsort((order[nodes], label))  # per component, earliest first
        first = np.ones(len(by), dtype=bool)
        first[1:] = label[by][1:] != label[by][:-1]
        kept_of_label = np.empty(len(nodes), dtype=np.int64)
        kept_of_label[label[by][first]] = nodes[by][first]
        kept_row = kept_of_label[label]
        same = shared_bands(mat[nodes], mat[kept_row])
        dup = (nodes != kept_row) & (same >= min_shared)
        dup_parts.append(nodes[dup])
        kept_parts.append(kept_row[dup])
        same_parts.append(same[dup])
        resolved = nodes[dup | (nodes == kept_row)]
        live = ~(np.isin(lo, resolved) | np.isin(hi, resolved))
        lo, hi = lo[live], hi[live]
    if not dup_parts:
        empty = np.zeros(0, np.int64)
        return empty, empty, empty
    return np.concatenate(dup_parts), np.concatenate(kept_parts), np.concatenate(same_parts)
