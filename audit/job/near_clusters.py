"""Near-duplicate clusters of a large run, resolved on the cluster from candidate pairs.

Every step is a Ray Data shuffle (groupby on a hashed key) followed by a task per partition;
no step holds more than a partition, and the driver receives a fingerprint per partition.

    confirm     candidate pairs (a, b) meet a's band keys (partitioned by a), then b's (by b):
                a pair sharing at least `dedup.min_shared_bands` band keys is confirmed
    components  connected components of the confirmed pairs by alternating large-star and
                small-star rounds (Kiveris et al. 2014, "Connected components in MapReduce and
                beyond"): at the fixed point every component is a star around its smallest node,
                the record earliest in the input
    resolve     each record and pair is labelled with its component, partitioned by component,
                and every partition resolves its whole components with the one-process rule
                (`near_dup.resolve_rounds`), writing its part of duplicates/

Records are named by their global order (shard index << 40 | record), so the smallest node of a
component is the record the one-process rule keeps, and the results equal its results.
"""
from __future__ import annotations

import json
from collections import Counter
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from audit.config import AuditConfig
from audit.io.storage import Location
from audit.job.global_dedup import cluster_sizes, near_rows, write_part
from audit.job.parts import read_parts
from audit.normalize import mix64
from audit.stages.exact_dup import global_order
from audit.stages.near_dup import bands_of, resolve_rounds

_NODE, _EDGE, _LABEL = 0, 1, 2  # row kinds: node rows and pair rows share a shuffle
_WHERE = ["doc_id", "source_id", "shard", "shard_index", "record"]
_MAX_ROUNDS = 200  # large-star/small-star converges in O(log^2 n) rounds; far more is a bug


def _part(keys: np.ndarray, partitions: int) -> pa.Array:
    return pa.array((mix64(keys.astype(np.uint64)) % np.uint64(partitions)).astype(np.int64))


def _rows(kind: int, u: np.ndarray, v: np.ndarray | None, partitions: int, bands: pa.Array | None = None,
          where: pa.Table | None = None) -> pa.Table:
    """Rows of one shuffle: kind, u (the key, partitioned on), v, band keys and, for the
    resolve step, the record's location columns (null where not carried)."""
    n = len(u)
    cols: dict[str, Any] = {
        "part": _part(u, partitions), "kind": pa.array(np.full(n, kind, np.int8)),
        "u": pa.array(u, pa.int64()), "v": pa.array(v if v is not None else np.full(n, -1, np.int64), pa.int64()),
        "bands": bands.cast(pa.binary()) if bands is not None else pa.nulls(n, pa.binary())}
    if where is not None:
        cols["doc_id"] = where.column("doc_id").cast(pa.string())
        cols["source_id"] = where.column("source_id").cast(pa.string())
        cols["shard"] = where.column("shard").cast(pa.string())
        cols["shard_index"] = where.column("shard_index").cast(pa.int32())
        cols["record"] = where.column("record").cast(pa.int64())
    return pa.table(cols)


def _with_where(table: pa.Table) -> pa.Table:
    """Null location columns on rows that carry none (pair and label rows of the resolve step)."""
    n = table.num_rows
    types = {"doc_id": pa.string(), "source_id": pa.string(), "shard": pa.string(), "shard_index": pa.int32(),
             "record": pa.int64()}
    for name, t in types.items():
        if name not in table.column_names:
            table = table.append_column(name, pa.nulls(n, t))
    return table


def _node_udf(batch: pa.Table, partitions: int, where: bool) -> pa.Table:
    """Measurement rows -> node rows keyed by the record's order."""
    batch = batch.filter(pc.and_(pc.is_valid(batch.column("record")), pc.is_valid(batch.column("minhash_bands"))))
    return _rows(_NODE, global_order(batch), None, partitions, batch.column("minhash_bands"),
                 batch.select(_WHERE) if where else None)


def _pair_udf(batch: pa.Table, partitions: int) -> pa.Table:
    """Candidate pairs (a, b) -> pair rows keyed by a."""
    return _rows(_EDGE, batch.column("a").to_numpy(), batch.column("b").to_numpy(), partitions)


def _split(group: pa.Table) -> tuple[pa.Table, pa.Table]:
    kind = group.column("kind")
    return group.filter(pc.equal(kind, _NODE)), group.filter(pc.equal(kind, _EDGE))


def _lookup(nodes: pa.Table, keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Row in `nodes` of each key (nodes sorted by u), and whether it is there."""
    u = nodes.column("u").to_numpy()
    at = np.minimum(np.searchsorted(u, keys), max(len(u) - 1, 0))
    found = (u[at] == keys) if len(u) else np.zeros(len(keys), bool)
    return at, found


def _attach_a_udf(group: pa.Table, partitions: int) -> pa.Table:
    """Partition by a: each distinct pair takes a's band keys and moves on keyed by b."""
    nodes, pairs = _split(group)
    nodes = nodes.sort_by("u")
    ab = np.unique(np.stack([pairs.column("u").to_numpy(), pairs.column("v").to_numpy()], axis=1), axis=0)
    at, found = _lookup(nodes, ab[:, 0])
    ab, at = ab[found], at[found]
    return _rows(_EDGE, ab[:, 1], ab[:, 0], partitions, nodes.column("bands").take(pa.array(at, pa.int64())))


def _confirm_udf(group: pa.Table, bands: int, min_shared: int) -> pa.Table:
    """Partition by b: each pair meets b's band keys; the confirmed pairs (a, b) come out."""
    nodes, pairs = _split(group)
    nodes = nodes.sort_by("u")
    at, found = _lookup(nodes, pairs.column("u").to_numpy())
    pairs, at = pairs.filter(pa.array(found)), at[found]
    mat_a = _matrix(pairs.column("bands"), bands)
    mat_b = _matrix(nodes.column("bands").take(pa.array(at, pa.int64())), bands)
    a, b = pairs.column("v").to_numpy(), pairs.column("u").to_numpy()
    keep = (a != b) & ((mat_a == mat_b).sum(axis=1) >= min_shared)
    return pa.table({"a": pa.array(np.minimum(a, b)[keep], pa.int64()), "b": pa.array(np.maximum(a, b)[keep], pa.int64())})


def _matrix(column: pa.ChunkedArray | pa.Array, bands: int) -> np.ndarray:
    """Band keys carried as variable binary (so pair rows can hold nulls) back to a matrix."""
    col = column.combine_chunks() if isinstance(column, pa.ChunkedArray) else column
    width = len(col[0].as_py()) if len(col) else 4 * bands
    return bands_of(col.cast(pa.binary(width)), bands)


def _fingerprint(u: np.ndarray, v: np.ndarray) -> tuple[int, int]:
    """XOR-folded hash and count of a set of distinct pairs."""
    h = mix64(mix64(u.astype(np.uint64)) ^ v.astype(np.uint64))
    return int(np.bitwise_xor.reduce(h)) if len(h) else 0, len(h)


def _both_ways_udf(batch: pa.Table, partitions: int) -> pa.Table:
    """Pairs -> rows keyed by each end (the large-star step sees every node's neighbours)."""
    a, b = batch.column("a").to_numpy(), batch.column("b").to_numpy()
    u, v = np.concatenate([a, b]), np.concatenate([b, a])
    return pa.table({"part": _part(u, partitions), "u": pa.array(u, pa.int64()), "v": pa.array(v, pa.int64())})


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
    return pa.table({"part": _part(u, partitions), "u": pa.array(u, pa.int64()), "v": pa.array(v, pa.int64())})


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


def _components(pairs: Any, partitions: int) -> Any:
    """Star edges (leaf, smallest node) of every component of `pairs` (a dataset of a, b)."""
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


def _label_rows_udf(batch: pa.Table, partitions: int) -> pa.Table:
    """Star edges (a = smallest node, b = leaf) -> label rows: each node keyed by itself, v = its component."""
    a, b = batch.column("a").to_numpy(), batch.column("b").to_numpy()
    u = np.concatenate([b, a])
    return _with_where(_rows(_LABEL, u, np.concatenate([a, a]), partitions))


def _confirmed_rows_udf(batch: pa.Table, partitions: int) -> pa.Table:
    return _with_where(_rows(_EDGE, batch.column("a").to_numpy(), batch.column("b").to_numpy(), partitions))


def _label_udf(group: pa.Table, partitions: int) -> pa.Table:
    """Partition by node: nodes and confirmed pairs take their component; re-keyed by it."""
    kind = group.column("kind")
    labels = group.filter(pc.equal(kind, _LABEL))
    lu, lv = labels.column("u").to_numpy(), labels.column("v").to_numpy()
    order = np.argsort(lu, kind="stable")
    lu, lv = lu[order], lv[order]

    def label_of(keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        at = np.minimum(np.searchsorted(lu, keys), max(len(lu) - 1, 0))
        found = (lu[at] == keys) if len(lu) else np.zeros(len(keys), bool)
        return lv[at] if len(lu) else np.zeros(len(keys), np.int64), found

    out = []
    for k in (_NODE, _EDGE):
        rows = group.filter(pc.equal(kind, k))
        comp, found = label_of(rows.column("u").to_numpy())
        rows = rows.filter(pa.array(found))
        out.append(rows.set_column(0, "part", _part(comp[found], partitions)))
    return pa.concat_tables(out)


def _resolve_udf(group: pa.Table, config: AuditConfig, out: Location) -> pa.Table:
    """Partition by component: its whole components resolved by the one-process rule; writes a part."""
    kind = group.column("kind")
    nodes = group.filter(pc.equal(kind, _NODE)).sort_by("u")
    pairs = group.filter(pc.equal(kind, _EDGE))
    order = nodes.column("u").to_numpy()
    lo = np.searchsorted(order, pairs.column("u").to_numpy())
    hi = np.searchsorted(order, pairs.column("v").to_numpy())
    d = config.dedup
    mat = _matrix(nodes.column("bands"), d.bands)
    dup_rows, kept_rows, same = resolve_rounds(lo, hi, mat, order, d.min_shared_bands)
    part = int(group.column("part")[0].as_py())
    rows = near_rows(nodes.select(_WHERE), dup_rows, kept_rows, (same / d.bands) ** (1.0 / d.rows))
    if rows.num_rows:
        write_part(rows, out.child(f"near-{part:05d}.parquet"))
    return pa.table({"near": [rows.num_rows], "sizes": [json.dumps(cluster_sizes(rows.column("cluster_id").to_pylist()))]})


def near_clusters(config: AuditConfig, paths: list[str], fs: Any, edges: Any, out: Location, partitions: int
                  ) -> tuple[int, Counter[int]]:
    """Resolve the candidate pairs `edges` (a dataset of a, b global orders) into near-duplicate
    clusters, writing parts of duplicates/ to `out`; returns (near duplicates, cluster sizes)."""
    d = config.dedup
    keyed = read_parts(paths, fs, ["shard_index", "record", "minhash_bands"])
    nodes = keyed.map_batches(_node_udf, batch_format="pyarrow", fn_kwargs={"partitions": partitions, "where": False})
    by_a = nodes.union(edges.map_batches(_pair_udf, batch_format="pyarrow", fn_kwargs={"partitions": partitions}))
    with_a = by_a.groupby("part", num_partitions=partitions).map_groups(
        _attach_a_udf, batch_format="pyarrow", fn_kwargs={"partitions": partitions})
    confirmed = nodes.union(with_a).groupby("part", num_partitions=partitions).map_groups(
        _confirm_udf, batch_format="pyarrow", fn_kwargs={"bands": d.bands, "min_shared": d.min_shared_bands}) \
        .materialize()
    if confirmed.count() == 0:
        return 0, Counter()
    stars = _components(confirmed, partitions)
    located = read_parts(paths, fs, _WHERE + ["minhash_bands"]).map_batches(
        _node_udf, batch_format="pyarrow", fn_kwargs={"partitions": partitions, "where": True})
    labelled = located.union(
        stars.map_batches(_label_rows_udf, batch_format="pyarrow", fn_kwargs={"partitions": partitions}),
        confirmed.map_batches(_confirmed_rows_udf, batch_format="pyarrow", fn_kwargs={"partitions": partitions}))
    by_component = labelled.groupby("part", num_partitions=partitions).map_groups(
        _label_udf, batch_format="pyarrow", fn_kwargs={"partitions": partitions})
    results = by_component.groupby("part", num_partitions=partitions).map_groups(
        _resolve_udf, batch_format="pyarrow", fn_kwargs={"config": config, "out": out}).take_all()
    sizes: Counter[int] = Counter()
    for r in results:
        sizes.update({int(k): v for k, v in json.loads(r["sizes"]).items()})
    return sum(int(r["near"]) for r in results), sizes
