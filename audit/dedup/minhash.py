"""MinHash signatures of word shingles and their LSH band keys.

Kept as our own vectorised NumPy code rather than datasketch or rensa, on bench/bench_minhash.py
(6,000-document make_corpus corpus, the same 2.1M shingle hashes, 48 permutations, one core of a
busy 2-core machine): ours 46k-71k signatures/s, rensa 0.5 RMinHash (flat buffer) 156k/s, rensa
CMinHash 19k/s, datasketch 1.6 MinHash.bulk 3.7k/s. Shingling, shared by all, costs 7-11x our
signing, so rensa would save 5-10% of the stage while changing every band key; through the same
rule all four find 99.75-100% of pairs at Jaccard >= 0.8 (0.94-0.98 at 0.6-0.8, 1-5 pairs
below 0.4 among ~400 reported).
"""
from __future__ import annotations

import numpy as np
import pyarrow as pa

from audit.normalize import mix64

_EMPTY_SIG = np.uint32(0xFFFFFFFF)


def minhash_permutations(num_perm: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Multipliers (odd) and increments of the `num_perm` hash permutations."""
    rng = np.random.default_rng(seed)
    a = rng.integers(1, 2**63, num_perm, dtype=np.uint64) * np.uint64(2) + np.uint64(1)
    b = rng.integers(0, 2**63, num_perm, dtype=np.uint64) * np.uint64(2)
    return a, b


def minhash_signatures(shingles: np.ndarray, bounds: np.ndarray, perms: tuple[np.ndarray, np.ndarray]) -> np.ndarray:
    """MinHash signatures, uint32 (groups x num_perm), of groups of 64-bit shingle hashes.

    Group g is `shingles[bounds[g]:bounds[g+1]]`. Permutation p maps a shingle s to the top 32
    bits of a_p * s + b_p (mod 2^64), multiply-add-shift hashing over already well-mixed
    hashes. An empty group's signature is all 0xFFFFFFFF.
    """
    a, b = perms
    groups = len(bounds) - 1
    sig = np.full((groups, len(a)), _EMPTY_SIG, dtype=np.uint32)
    counts = np.diff(bounds)
    nonempty = np.flatnonzero(counts > 0)
    if len(nonempty) == 0:
        return sig
    starts = bounds[nonempty]
    v = np.empty(len(shingles), dtype=np.uint64)
    shift = np.uint64(32)
    for p in range(len(a)):
        np.multiply(shingles, a[p], out=v)
        v += b[p]
        v >>= shift
        sig[nonempty, p] = np.minimum.reduceat(v, starts)
    return sig


def band_keys(sig: np.ndarray, bands: int, rows: int) -> np.ndarray:
    """Fold each band of `rows` MinHash values into a 32-bit key: uint32 (records x bands)."""
    keys = np.empty((sig.shape[0], bands), dtype=np.uint32)
    for j in range(bands):
        acc = np.full(sig.shape[0], ((j + 1) * 0x9E3779B97F4A7C15) & 0xFFFFFFFFFFFFFFFF, dtype=np.uint64)
        for r in range(rows):
            acc = mix64(acc ^ sig[:, j * rows + r].astype(np.uint64))
        keys[:, j] = (acc >> np.uint64(32)).astype(np.uint32)
    return keys


def bands_column(keys: np.ndarray, valid: np.ndarray) -> pa.Array:
    """Band keys as the `minhash_bands` column: fixed_size_binary(bands x 4) of little-endian
    uint32, null where a record has none."""
    mask = pa.array(valid).buffers()[1] if not valid.all() else None  # validity: 1 = has bands
    data = pa.py_buffer(np.ascontiguousarray(keys.astype("<u4")).tobytes())
    return pa.Array.from_buffers(pa.binary(keys.shape[1] * 4), len(valid), [mask, data],
                                 null_count=int((~valid).sum()))


def bands_of(column: pa.Array | pa.ChunkedArray, bands: int) -> np.ndarray:
    """The `minhash_bands` column (no nulls; fixed or variable binary) as uint32 (records x bands)."""
    if isinstance(column, pa.ChunkedArray):
        column = column.combine_chunks()
    if len(column) == 0:
        return np.zeros((0, bands), dtype=np.uint32)
    if not pa.types.is_fixed_size_binary(column.type):  # carried as variable binary through a shuffle
        column = column.cast(pa.binary(len(column[0].as_py())))
    width = column.type.byte_width
    raw = np.frombuffer(column.buffers()[1], dtype=np.uint8)
    raw = raw[column.offset * width:(column.offset + len(column)) * width]
    return raw.view("<u4").reshape(len(column), -1)[:, :bands].astype(np.uint32)


def exploded_band_keys(bands: np.ndarray, band: int) -> np.ndarray:
    """Band keys of one band made unique across bands: band index in the high 32 bits."""
    return (np.uint64(band) << np.uint64(32)) | bands[:, band].astype(np.uint64)
