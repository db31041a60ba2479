"""The partition hash: which partition of a key shuffle a key goes to (dedup, and the lookup index's
range partitions of its sorted key files)."""
from __future__ import annotations

import numpy as np

from audit.normalize import mix64


def partition_of(keys: np.ndarray, partitions: int) -> np.ndarray:
    """Partition (int64, 0..partitions-1) of each integer key: splitmix64 of the key modulo
    `partitions`, so keys that are not uniform themselves (record orders, band keys made unique
    by their band in the high bits) still spread evenly. The same on every process and machine."""
    if partitions < 1:
        raise ValueError(f"partitions must be at least 1, not {partitions}")
    return (mix64(np.asarray(keys).astype(np.uint64)) % np.uint64(partitions)).astype(np.int64)


def range_partition_of(keys: np.ndarray, bits: int) -> np.ndarray:
    """Range partition (uint64, 0..2^bits-1) of well-mixed 64-bit keys: their top `bits` bits, so
    partitions are in key order (a sorted index's files follow each other). 0 for bits <= 0."""
    keys = np.asarray(keys).astype(np.uint64)
    return np.zeros(len(keys), dtype=np.uint64) if bits <= 0 else keys >> np.uint64(64 - bits)
