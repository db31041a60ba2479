"""The exact-duplicate rule: equal exact keys (normalised text), the earliest record kept."""
from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from audit.dedup.rule import repeated

KEY_TYPE = pa.binary(16)  # the first 16 bytes of SHA-256: collisions are out of reach at any corpus size


def global_order(table: pa.Table) -> np.ndarray:
    """Position of each record in the input: shard index, then record index (earlier is smaller).

    int64 with the record in the low 40 bits: up to 2^23 (8 million) shards of up to 2^40
    (10^12) records each, far past 10^10 records in all; a larger input is refused."""
    shard = table.column("shard_index").to_numpy(zero_copy_only=False).astype(np.int64)
    record = table.column("record").to_numpy(zero_copy_only=False).astype(np.int64)
    if len(shard) and (shard.max() >= 1 << 23 or record.max() >= 1 << 40):
        raise ValueError(f"input positions past the int64 order key: shard index {shard.max()}, record {record.max()}")
    return (shard << 40) | record


def key_bytes(keys: pa.Array | pa.ChunkedArray) -> np.ndarray:
    """16-byte exact keys (no nulls) as a uint8 matrix (records x 16)."""
    k = keys.combine_chunks() if isinstance(keys, pa.ChunkedArray) else keys
    raw = np.frombuffer(k.buffers()[1], dtype=np.uint8) if len(k) else np.zeros(0, np.uint8)
    return raw[k.offset * 16:(k.offset + len(k)) * 16].reshape(-1, 16)


def key_heads(keys: pa.Array | pa.ChunkedArray) -> np.ndarray:
    """The first 8 bytes of each 16-byte exact key as uint64 (0 for a null key)."""
    k = keys.combine_chunks() if isinstance(keys, pa.ChunkedArray) else keys
    valid = pc.is_valid(k).to_numpy(zero_copy_only=False)
    head = key_bytes(pc.fill_null(k, pa.scalar(bytes(16), k.type)))[:, :8].copy().view("<u8").ravel()
    return np.where(valid, head, np.uint64(0))


def exact_pairs(keys: np.ndarray, order: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Rows that repeat an earlier row's key (uint8 matrix `keys`, input `order`), and the row
    of the earliest record with that key each one keeps: (duplicate rows, kept rows)."""
    if len(order) == 0:
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    words = np.ascontiguousarray(keys).view("<u8").reshape(-1, 2)  # equal keys, equal words: grouping only
    rows = repeated(words[:, 0])  # only a repeated head can repeat a key
    idx = rows[np.lexsort((order[rows], words[rows, 1], words[rows, 0]))]  # by key, then input order
    k = words[idx]
    first = np.ones(len(idx), dtype=bool)
    first[1:] = (k[1:] != k[:-1]).any(axis=1)
    group = np.cumsum(first) - 1
    kept = idx[np.flatnonzero(first)][group]
    return idx[~first], kept[~first]


def exact_duplicates(keys: pa.Table) -> pa.Table:
    """One row per record whose normalised text appeared earlier in the input.

    `keys` holds doc_id, shard_index, record and exact_key for every record of the run. Returns
    doc_id, kind ("exact"), cluster_id and kept_doc_id (the earliest record with that text).
    """
    keys = keys.filter(pc.is_valid(keys.column("exact_key")))
    dup, kept = exact_pairs(key_bytes(keys.column("exact_key")), global_order(keys))
    order = np.argsort(dup, kind="stable")  # in the table's row order
    dup, kept = dup[order], kept[order]
    ids = keys.column("doc_id").combine_chunks()
    kept_ids = ids.take(pa.array(kept, pa.int64()))
    return pa.table({
        "doc_id": ids.take(pa.array(dup, pa.int64())).cast(pa.string()),
        "kind": pa.array(["exact"] * len(dup), pa.string()),
        "cluster_id": pc.binary_join_element_wise("exact-", kept_ids, "").cast(pa.string()),
        "kept_doc_id": kept_ids.cast(pa.string()),
    })
