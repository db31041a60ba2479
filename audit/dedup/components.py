"""Connected components: union-find in one process, large-star/small-star rounds on Ray Data.

Both end in the same shape for the resolve step: star edges (a, b), a component's smallest node
a and each other node b of it, one edge per non-smallest node. Nodes are int64 names (the
records' input orders), so a component's smallest node is its earliest record.
"""
from __future__ import annotations

from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from audit.dedup.partition import partition_of
from audit.normalize import mix64

_MAX_ROUNDS = 200  # large-star/small-star converges in O(log^2 n) rounds; far more is a bug


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


def star_edges(pairs: pa.Table) -> pa.Table:
    """Star edges (a = smallest node of the component, b = node) of the pairs (a, b) in one process."""
    a, b = pairs.column("a").to_numpy(), pairs.column("b").to_numpy()
    nodes, inv = np.unique(np.concatenate([a, b]), return_inverse=True)
    label = connected_components(inv[:len(a)], inv[len(a):], len(nodes))
    leaf = label != np.arange(len(nodes))
    return pa.table({"a": pa.array(nodes[label[leaf]], pa.int64()), "b": pa.array(nodes[leaf], pa.int64())})


# ---------------------------------------------------------------- distributed: Ray Data rounds

def _fingerprint(u: np.ndarray, v: np.ndarray) -> tuple[int, int]:
    """XOR-folded hash and count of a set of distinct pairs."""
    h = mix64(mix64(u.astype(np.uint64)) ^ v.astype(np.uint64))
    return int(np.bitwise_xor.reduce(h)) if len(h) else 0, len(h)


def _both_ways_udf(batch: pa.Table, partitions: int) -> pa.Table:
    """Pairs -> rows keyed by each end (the large-star step sees every node's neighbours)."""
    a, b = batch.column("a").to_numpy(), batch.column("b").to_numpy()
    u, v = np.concatenate([a, b]), np.concatenate([b, a])
    return pa.table({"part": partition_of(u, partitions), "u": pa.array(u, pa.int64()), "v": pa.array(v, pa.int64())})


def _large_star_udf(group: pa.Table) -> pa.Table:
    """Each node links its larger neighbours to the smallest of its neighbourhood (itself
    included). Also returns the fingerprint of the distinct input pairs, on a row with a = -1."""
    uv = np.unique(np.stack([group.column("u").to_numpy(), group.column("v").to_numpy()], axis=1), axis=0)
    u, v = uv[:, 0], uv[:, 1]
    fp, n = _fingerprint(u[u < v], v[u < v])  # each pair once: in the group of its smaller end
    first = np.ones(len(u), bool)
    first[1:] = u[1:] != u[:-1]
    starts = np.flatnonzero(first)
    low = np.minimum.reduceat(v, starts)
    m = np.minimum(np.repeat(low, np.diff(np.append(starts, len(u)))), u)
    out = v > u
    a = np.append(np.minimum(v[out], m[out]), -1)
    b = np.append(np.maximum(v[out], m[out]), -1)
    return pa.table({"a": pa.array(a, pa.int64()), "b": pa.array(b, pa.int64()),
                     "fp": pa.array(np.append(np.zeros(out.sum(), np.uint64), np.uint64(fp)), pa.uint64()),
                     "n": pa.array(np.append(np.zeros(out.sum(), np.int64), n), pa.int64())})


def _by_larger_udf(batch: pa.Table, partitions: int) -> pa.Table:
    """Pairs -> rows keyed by their larger end (the small-star step); fingerprint rows dropped."""
    a, b = batch.column("a").to_numpy(), batch.column("b").to_numpy()
    keep = a >= 0
    u, v = np.maximum(a, b)[keep], np.minimum(a, b)[keep]
    return pa.table({"part": partition_of(u, partitions), "u": pa.array(u, pa.int64()), "v": pa.array(v, pa.int64())})


def _small_star_udf(group: pa.Table) -> pa.Table:
    """Each node and its smaller neighbours all link to the smallest of them."""
    uv = np.unique(np.stack([group.column("u").to_numpy(), group.column("v").to_numpy()], axis=1), axis=0)
    u, v = uv[:, 0], uv[:, 1]
    first = np.ones(len(u), bool)
    first[1:] = u[1:] != u[:-1]
    starts = np.flatnonzero(first)
    low = np.minimum.reduceat(v, starts)
    m = np.repeat(low, np.diff(np.append(starts, len(u))))
    a = np.concatenate([m[v != m], low])          # smaller neighbours, then the node itself
    b = np.concatenate([v[v != m], u[starts]])
    return pa.table({"a": pa.array(a, pa.int64()), "b": pa.array(b, pa.int64())})


def _fingerprint_rows_udf(batch: pa.Table) -> pa.Table:
    return batch.filter(pc.less(batch.column("a"), 0)).select(["fp", "n"])


def _stats(ds: Any) -> tuple[int, int]:
    """Fingerprint and count of the distinct pairs a large-star round read."""
    rows = ds.map_batches(_fingerprint_rows_udf, batch_format="pyarrow").take_all()
    fp = 0
    for r in rows:
        fp ^= int(r["fp"])
    return fp, sum(int(r["n"]) for r in rows)


def star_components(pairs: Any, partitions: int) -> Any:
    """Star edges (a = smallest node, b = node) of every component of `pairs` (a Ray dataset of
    a, b) by alternating large-star and small-star rounds (Kiveris et al. 2014, "Connected
    components in MapReduce and beyond"), each a hash-partitioned shuffle; the driver receives
    one fingerprint per partition and round."""
    seen: tuple[int, int] | None = None
    for _ in range(_MAX_ROUNDS):
        large = pairs.map_batches(_both_ways_udf, batch_format="pyarrow", fn_kwargs={"partitions": partitions}) \
            .groupby("part", num_partitions=partitions).map_groups(_large_star_udf, batch_format="pyarrow") \
            .materialize()
        now = _stats(large)
        if now == seen:  # the pairs entering this round are those of the last: a fixed point
            return pairs
        seen = now
        pairs = large.map_batches(_by_larger_udf, batch_format="pyarrow", fn_kwargs={"partitions": partitions}) \
            .groupby("part", num_partitions=partitions).map_groups(_small_star_udf, batch_format="pyarrow") \
            .materialize()
    raise RuntimeError(f"connected components did not converge in {_MAX_ROUNDS} rounds")
