"""Stable 64-bit hashes of Arrow strings, vectorised with numpy: the keys of the lookup index.

Every lookup key (URL, SHA-256, source id, doc_id) is hashed the same way when the index is built
and when it is queried, by this code (passage fingerprints hash words with the shared normaliser's
tokenize_hashed / ngram_hashes instead). The string hash is a polynomial over the UTF-8 bytes
modulo 2**64 followed by the splitmix64 finaliser, so its top bits are uniform (the index buckets
by them). It is not a cryptographic hash: a collision only costs a wasted row-group read, because
every lookup compares the real value.
"""
from __future__ import annotations

import numpy as np
import pyarrow as pa

from audit.normalize import mix64

_BYTE_BASE = np.uint64(0x100000001B3)          # odd multiplier of the byte polynomial
_LEN_SALT = np.uint64(0xD6E8FEB86659FD93)


def _powers(base: np.uint64, n: int) -> np.ndarray:
    """base**0 .. base**(n-1) modulo 2**64."""
    out = np.empty(max(n, 1), dtype=np.uint64)
    out[0] = 1
    if n > 1:
        out[1:] = base
        np.cumprod(out[1:], out=out[1:])
    return out[:n] if n else out[:0]


def hash_strings(values: pa.Array | pa.ChunkedArray) -> np.ndarray:
    """A uint64 hash of every string (nulls hash like the empty string; callers drop them)."""
    if isinstance(values, pa.ChunkedArray):
        values = values.combine_chunks() if values.num_chunks != 1 else values.chunk(0)
    if not (pa.types.is_string(values.type) or pa.types.is_binary(values.type)):
        values = values.cast(pa.string())
    n = len(values)
    if n == 0:
        return np.zeros(0, dtype=np.uint64)
    offsets = np.frombuffer(values.buffers()[1], dtype=np.int32)[values.offset:values.offset + n + 1]
    data_buf = values.buffers()[2]
    lo, hi = int(offsets[0]), int(offsets[-1])
    lengths = np.diff(offsets).astype(np.int64)
    h = np.zeros(n, dtype=np.uint64)
    if hi > lo:
        data = np.frombuffer(data_buf, dtype=np.uint8)[lo:hi].astype(np.uint64) + np.uint64(1)
        ends = offsets[1:].astype(np.int64) - lo
        owner = np.repeat(np.arange(n), lengths)
        exponent = ends[owner] - 1 - np.arange(hi - lo, dtype=np.int64)
        contrib = data * _powers(_BYTE_BASE, int(lengths.max()))[exponent]
        nonempty = lengths > 0
        h[nonempty] = np.add.reduceat(contrib, (offsets[:-1].astype(np.int64) - lo)[nonempty])
    return mix64(h ^ (lengths.astype(np.uint64) * _LEN_SALT))

