"""Near duplicates: MinHash LSH band keys per record, then clusters across the whole run.

Per batch (on the workers), `NearDupStage` hashes each record's word shingles (the shared
normaliser's words, `dedup.shingle_words` at a time), takes `bands x rows` MinHash values and
folds each band into a 32-bit key: `minhash_bands` holds `bands` x 4 bytes a record, so what the
global pass holds grows with the number of records, never with their length.

Globally, `near_duplicate_clusters` groups the band keys (records sharing a key are candidates),
confirms a candidate pair when it shares at least `dedup.min_shared_bands` keys, joins confirmed
pairs with union-find and keeps the earliest record of each cluster. The confirmation reads the
two records' band keys: with only band keys kept, the share of matching bands is the available
similarity estimate (a band matches with probability J^rows). A record is reported only when it
is confirmed against its cluster's kept record itself, so a chain of partial overlaps does not
reach records unlike the kept one; the records left are resolved again in further rounds among
themselves.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from audit.normalize import Tokens, block_tokens, char_tables_ready, chunk_texts, mix64, ngram_hashes, tokenize_hashed
from audit.stages import Stage

if TYPE_CHECKING:
    from audit.config import AuditConfig, DedupConfig

# A band bucket up to this size links all its pairs; a bigger one (boilerplate shared by many
# records) links each member to its earliest record only, so edges grow linearly.
_ALL_PAIRS_MAX = 16
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


class NearDupStage(Stage):
    """Writes `minhash_bands`: fixed_size_binary(bands x 4) of little-endian uint32 band keys.

    Null when the text is null (unreadable) or has no words after normalisation.
    """

    name = "near_dup"
    reads = ("text", "words")
    writes = ("minhash_bands",)

    def __init__(self, config: "AuditConfig") -> None:
        super().__init__(config)
        self.dedup: DedupConfig = config.dedup
        self.perms = minhash_permutations(self.dedup.num_perm, self.dedup.seed)
        char_tables_ready()

    def band_matrix(self, texts: list[str | None], all_tokens: Tokens | None = None) -> tuple[np.ndarray, np.ndarray]:
        """Band keys (records x bands, uint32) and which records have any (words > 0).

        `all_tokens`: the texts' words when already tokenised (the pipeline tokenises once).
        """
        d = self.dedup
        keys = np.zeros((len(texts), d.bands), dtype=np.uint32)
        valid = np.zeros(len(texts), dtype=bool)
        all_tokens = all_tokens if all_tokens is not None else tokenize_hashed(texts)
        for a, b in chunk_texts(texts):  # bounds the signature matrix of a run of texts
            tokens = all_tokens.slice(a, b)
            shingles, first = ngram_hashes(tokens, d.shingle_words, short=True)
            text = tokens.text_of[first]
            bounds = np.searchsorted(text, np.arange(b - a + 1), side="left")
            sig = minhash_signatures(shingles, bounds, self.perms)
            keys[a:b] = band_keys(sig, d.bands, d.rows)
            valid[a:b] = np.diff(bounds) > 0
        return keys, valid

    def __call__(self, batch: pa.Table) -> pa.Table:
        keys, valid = self.band_matrix(batch.column("text").to_pylist(), block_tokens(batch))
        width = self.dedup.bands * 4
        mask = pa.array(valid).buffers()[1] if not valid.all() else None  # validity: 1 = has bands
        data = pa.py_buffer(keys.astype("<u4").tobytes())  # little-endian uint32 x bands
        column = pa.Array.from_buffers(pa.binary(width), len(valid), [mask, data],
                                       null_count=int((~valid).sum()))
        return batch.append_column("minhash_bands", column)


def bands_of(column: pa.Array | pa.ChunkedArray, bands: int) -> np.ndarray:
    """The `minhash_bands` column (no nulls) as uint32 (records x bands)."""
    if isinstance(column, pa.ChunkedArray):
        column = column.combine_chunks()
    if len(column) == 0:
        return np.zeros((0, bands), dtype=np.uint32)
    width = column.type.byte_width  # fixed_size_binary, as NearDupStage writes it
    raw = np.frombuffer(column.buffers()[1], dtype=np.uint8)
    raw = raw[column.offset * width:(column.offset + len(column)) * width]
    return raw.view("<u4").reshape(len(column), -1)[:, :bands].astype(np.uint32)


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
    small = shared & (size <= _ALL_PAIRS_MAX)
    for d in range(1, min(_ALL_PAIRS_MAX, int(sizes.max()))):
        sel = np.flatnonzero(small & (pos >= 1) & (pos + d < size))
        if len(sel) == 0:
            break
        a_parts.append(r[sel + d])
        b_parts.append(r[sel])
    return np.concatenate(a_parts), np.concatenate(b_parts)


def exploded_band_keys(bands: np.ndarray, band: int) -> np.ndarray:
    """Band keys of one band made unique across bands: band index in the high 32 bits."""
    return (np.uint64(band) << np.uint64(32)) | bands[:, band].astype(np.uint64)


def _edges_local(bands: np.ndarray, order: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    rows = np.arange(len(bands), dtype=np.int64)
    a_parts, b_parts = [], []
    for j in range(bands.shape[1]):  # one band at a time: memory stays ~16 bytes a record
        a, b = bucket_edges(exploded_band_keys(bands, j), rows, order)
        a_parts.append(a)
        b_parts.append(b)
    return np.concatenate(a_parts), np.concatenate(b_parts)


def connected_components(a: np.ndarray, b: np.ndarray, n: int) -> np.ndarray:
    """Union-find over edges (a, b) of nodes 0..n-1: each node's component label (its smallest node)."""
    parent = np.arange(n, dtype=np.int64)
    while True:
        ra, rb = parent[a], parent[b]
        lo, hi = np.minimum(ra, rb), np.maximum(ra, rb)
        moving = lo != hi
        if not moving.any():
            return parent
        np.minimum.at(parent, hi[moving], lo[moving])
        while True:  # pointer jumping: every node straight to its root
            up = parent[parent]
            if np.array_equal(up, parent):
                break
            parent = up


def resolve_rounds(lo: np.ndarray, hi: np.ndarray, mat: np.ndarray, order: np.ndarray,
                    min_shared: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Duplicate rows, their kept rows and shared band counts from confirmed edges (lo, hi).

    Each round takes the connected components of the remaining edges, keeps each component's
    earliest record and reports the members confirmed against it (a member linked only through
    a chain of others may be unlike the kept record, so it stays). Edges touching a resolved
    record (kept or reported) are then dropped and the rest resolved again, so records chained
    to a cluster only through its kept record still meet each other. Every round resolves at
    least one record per component.
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
        same = (mat[nodes] == mat[kept_row]).sum(axis=1)
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


def _result(doc_ids: list, cluster: list, kept: list, similarity: list) -> pa.Table:
    return pa.table({"doc_id": pa.array(doc_ids, pa.string()),
                     "cluster_id": pa.array(cluster, pa.string()),
                     "kept_doc_id": pa.array(kept, pa.string()),
                     "similarity": pa.array(similarity, pa.float64())})


def confirmed_clusters(lo: np.ndarray, hi: np.ndarray, mat: np.ndarray, order: np.ndarray,
                       config: "DedupConfig") -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """From candidate pairs (row lo, row hi) to reported duplicates: (duplicate rows, their kept
    rows, estimated Jaccard). A pair is confirmed when the two rows' band keys (`mat`) agree in at
    least `min_shared_bands` bands; clusters are then resolved in rounds (`resolve_rounds`)."""
    empty = np.zeros(0, np.int64)
    if len(lo) == 0:
        return empty, empty, np.zeros(0)
    a, b = np.minimum(lo, hi), np.maximum(lo, hi)
    pairs = np.unique(np.stack([a, b], axis=1), axis=0)  # no packed key: no overflow at any row count
    a, b = pairs[:, 0], pairs[:, 1]
    keep = (a != b) & ((mat[a] == mat[b]).sum(axis=1) >= config.min_shared_bands)
    a, b = a[keep], b[keep]
    if len(a) == 0:
        return empty, empty, np.zeros(0)
    dup_rows, kept_rows, same = resolve_rounds(a, b, mat, order, config.min_shared_bands)
    return dup_rows, kept_rows, (same / config.bands) ** (1.0 / config.rows)


def near_duplicate_clusters(keys: pa.Table, config: "AuditConfig") -> pa.Table:
    """Near-duplicate clusters of a table of records, in one process (the job runs the same rule
    distributed: audit.job.global_dedup); one row per record reported as a near duplicate.

    `keys`: doc_id, order (int64, smaller = earlier in the input) and minhash_bands of every
    record (null bands are skipped). Records sharing a band key are candidates; a candidate
    pair sharing at least `dedup.min_shared_bands` keys is confirmed; union-find over confirmed
    pairs gives clusters, and each cluster keeps its earliest record. A member is reported when
    it is confirmed against that kept record itself; members linked only through a chain of
    others are resolved again, in rounds, over the confirmed pairs between them. Returns doc_id,
    cluster_id ("near-" + kept doc_id), kept_doc_id and similarity: the Jaccard estimated from
    the shared band keys, (shared / bands) ^ (1 / rows).
    """
    d = config.dedup
    keys = keys.filter(pc.is_valid(keys.column("minhash_bands")))
    if keys.num_rows < 2:
        return _result([], [], [], [])
    mat = bands_of(keys.column("minhash_bands"), d.bands)
    order = keys.column("order").to_numpy(zero_copy_only=False).astype(np.int64)
    a, b = _edges_local(mat, order)
    dup_rows, kept_rows, sim = confirmed_clusters(a, b, mat, order, d)
    ids = keys.column("doc_id").combine_chunks()
    dup_ids = ids.take(pa.array(dup_rows, pa.int64())).to_pylist()
    kept_ids = ids.take(pa.array(kept_rows, pa.int64())).to_pylist()
    return _result(dup_ids, [f"near-{k}" for k in kept_ids], kept_ids, [round(float(x), 4) for x in sim])
