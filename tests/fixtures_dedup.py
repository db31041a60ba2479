"""Test helpers for dedup: documents, edited copies, and measurement tables as the scan writes them."""
from __future__ import annotations

import random

import numpy as np
import pyarrow as pa

from audit.config import AuditConfig
from audit.normalize import with_tokens
from audit.stages.exact_dup import ExactDupStage
from audit.stages.near_dup import NearDupStage


def doc(seed: int, words: int = 300) -> str:
    """A document of random words (unrelated documents share almost no 5-word shingle)."""
    rng = random.Random(seed)
    return " ".join(f"w{rng.randint(0, 20000)}" for _ in range(words))


def edit(text: str, every: int, seed: int = 0) -> str:
    """Reverse one word in `every` (each edit breaks the 5 shingles over it)."""
    rng = random.Random(seed)
    words = text.split(" ")
    for i in range(rng.randrange(every), len(words), every):
        words[i] = words[i][::-1] + "x"
    return " ".join(words)


def measured(config: AuditConfig, texts: list[str | None], order: list[int] | None = None,
             shards: int = 1) -> pa.Table:
    """Measurement rows of `texts` as the scan writes them (doc_id d<i>, location, exact_key,
    minhash_bands). Row i is record order[i] (default i) of shard i % shards."""
    n = len(texts)
    table = with_tokens(pa.table({"text": pa.array(texts, pa.string())}))
    table = NearDupStage(config)(ExactDupStage(config)(table))
    pos = np.asarray(order if order is not None else range(n), dtype=np.int64)
    shard = np.arange(n) % shards if order is None else np.zeros(n, np.int64)
    record = pos // shards if order is None else pos
    return pa.table({"doc_id": [f"d{i}" for i in range(n)], "source_id": pa.nulls(n, pa.string()),
                     "shard": [f"s{k}.jsonl" for k in shard], "shard_index": pa.array(shard, pa.int32()),
                     "record": pa.array(record, pa.int64()), "exact_key": table.column("exact_key"),
                     "minhash_bands": table.column("minhash_bands")})


def band_table(rows: list[list[int]]) -> pa.Table:
    """Measurement rows of records given by their band keys (no exact key), record i in order i."""
    data = np.array(rows, dtype="<u4")
    n = len(rows)
    return pa.table({"doc_id": [f"d{i}" for i in range(n)], "source_id": pa.nulls(n, pa.string()),
                     "shard": ["s0.jsonl"] * n, "shard_index": pa.array(np.zeros(n), pa.int32()),
                     "record": pa.array(range(n), pa.int64()), "exact_key": pa.nulls(n, pa.binary(16)),
                     "minhash_bands": pa.array([r.tobytes() for r in data], pa.binary(data.shape[1] * 4))})


def sidecar_keys(bands: pa.ChunkedArray | pa.Array, width: int) -> list[list[int]]:
    """Each record's band keys as the sidecar remembers them: made distinct across bands, band order."""
    from audit.dedup.minhash import bands_of, exploded_band_keys

    col = bands.combine_chunks() if isinstance(bands, pa.ChunkedArray) else bands
    valid = col.is_valid().to_numpy(zero_copy_only=False)
    out: list[list[int]] = []
    for i in range(len(col)):
        if not valid[i]:
            out.append([])
            continue
        mat = bands_of(col.slice(i, 1), width)
        out.append([int(exploded_band_keys(mat, j)[0]) for j in range(width)])
    return out


def chained_bands() -> list[list[int]]:
    """Band keys of A; X sharing 2 bands with A; B sharing 2 with X and none with A; C sharing 15
    of 16 with B. The rule reports X (of A) and C (of B): B meets A's cluster only through X."""
    a = [100 + j for j in range(16)]
    x = a[:2] + [200 + j for j in range(2, 16)]
    b = [900, 901] + x[2:4] + [300 + j for j in range(4, 16)]
    return [a, x, b, b[:15] + [999]]
