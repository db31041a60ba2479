"""The partition hash: which partition of a key shuffle a key goes to."""
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
