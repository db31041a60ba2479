"""Exact duplicates: SHA-256 of the normalised text, first occurrence kept.

The normalised text is taken as its words (the shared normaliser's, as 64-bit hashes: the
tokenisation every word-reading stage shares), so equal normalised texts have equal keys. The
stage only hashes, per batch on the workers; which record is first is a global question,
answered by `exact_duplicates` over the keys of the whole run in the order of the input.
"""
from __future__ import annotations

import hashlib

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from audit.normalize import block_tokens
from audit.stages import Stage

KEY_TYPE = pa.binary(16)  # the first 16 bytes of SHA-256: collisions are out of reach at any corpus size


class ExactDupStage(Stage):
    """Writes `exact_key`: 16 bytes of SHA-256 of the normalised words (null for unreadable records).

    Text that normalises to nothing (empty, control characters, lone punctuation) is keyed by its
    raw text instead, so copies of it are still duplicates of each other and not of every other
    such text.
    """

    name = "exact_dup"
    reads = ("text", "words")
    writes = ("exact_key",)

    def __call__(self, batch: pa.Table) -> pa.Table:
        raw = batch.column("text").to_pylist()
        tokens = block_tokens(batch)
        words, bounds = tokens.hashes.astype("<u8"), tokens.bounds
        keys: list[bytes | None] = []
        for i, r in enumerate(raw):
            if r is None:
                keys.append(None)
            elif bounds[i + 1] > bounds[i]:
                keys.append(hashlib.sha256(words[bounds[i]:bounds[i + 1]].tobytes()).digest()[:16])
            else:
                keys.append(_key("\x00raw\x00" + r))
        return batch.append_column("exact_key", pa.array(keys, KEY_TYPE))


def _key(text: str) -> bytes:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).digest()[:16]


def global_order(table: pa.Table) -> np.ndarray:
    """Position of each record in the input: shard index, then record index (earlier is smaller).

    int64 with the record in the low 40 bits: up to 2^23 (8 million) shards of up to 2^40
    (10^12) records each, far past 10^10 records in all; a larger input is refused."""
    shard = table.column("shard_index").to_numpy(zero_copy_only=False).astype(np.int64)
    record = table.column("record").to_numpy(zero_copy_only=False).astype(np.int64)
    if len(shard) and (shard.max() >= 1 << 23 or record.max() >= 1 << 40):
        raise ValueError(f"input positions past the int64 order key: shard index {shard.max()}, record {record.max()}")
    return (shard << 40) | record


def exact_duplicates(keys: pa.Table) -> pa.Table:
    """One row per record whose normalised text appeared earlier in the input.

    `keys` holds doc_id, shard_index, record and exact_key for every record of the run. Returns
    doc_id, kind ("exact"), cluster_id and kept_doc_id (the earliest record with that text).
    """
    keys = keys.filter(pc.is_valid(keys.column("exact_key")))
    empty = pa.table({"doc_id": pa.array([], pa.string()), "kind": pa.array([], pa.string()),
                      "cluster_id": pa.array([], pa.string()), "kept_doc_id": pa.array([], pa.string())})
    if keys.num_rows == 0:
        return empty
    keys = keys.append_column("order", pa.array(global_order(keys)))
    keys = keys.sort_by([("exact_key", "ascending"), ("order", "ascending")])
    k = keys.column("exact_key").combine_chunks()
    raw = np.frombuffer(k.buffers()[1], dtype=np.uint8)[k.offset * 16:(k.offset + len(k)) * 16].reshape(-1, 16)
    first = np.ones(len(k), dtype=bool)
    first[1:] = (raw[1:] != raw[:-1]).any(axis=1)
    group = np.cumsum(first) - 1
    first_idx = np.flatnonzero(first)
    dup = ~first
    if not dup.any():
        return empty
    doc_ids = keys.column("doc_id").combine_chunks()
    kept = doc_ids.take(pa.array(first_idx[group[dup]]))
    dups = doc_ids.filter(pa.array(dup))
    return pa.table({
        "doc_id": dups,
        "kind": pa.array(["exact"] * len(dups), pa.string()),
        "cluster_id": pc.binary_join_element_wise("exact-", kept, ""),
        "kept_doc_id": kept,
    })
