"""Pass 2, global: exact and near duplicates across the run, computed on the cluster.

Exact: the records' exact keys are hash-partitioned by Ray Data (groupby on the key's partition);
each partition finds its duplicates (earliest record kept, as `exact_duplicates` rules) and its
task writes them as a part of `duplicates/`.

Near: every record's band keys are exploded and hash-partitioned by Ray Data; each partition finds
the candidate pairs of its band buckets (`bucket_edges`). A record whose exact key already
appeared earlier in the same bucket is an exact duplicate (its copy shares every band) and takes
no part, as in the one-process rule. The pairs are then confirmed, joined into components and
resolved on the cluster (audit.job.near_clusters: same confirmation, same deterministic kept
record as `confirmed_clusters`), each partition writing its part of `duplicates/`.

A run with fewer keys than `ray.partition_rows` runs the same partition functions in one task
(`confirmed_clusters` resolving its single partition): a shuffle's fixed cost would dominate.
The driver receives only counts.
"""
from __future__ import annotations

import json
from collections import Counter
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from audit.config import AuditConfig
from audit.io.storage import Location, write_parquet
from audit.job.parts import read_part, read_parts
from audit.normalize import mix64
from audit.records import DUPLICATES_SCHEMA
from audit.stages.exact_dup import exact_duplicates, global_order
from audit.stages.near_dup import bands_of, bucket_edges, confirmed_clusters, exploded_band_keys

_WHERE = ["doc_id", "source_id", "shard", "shard_index", "record"]


def write_part(rows: pa.Table, dest: Location) -> None:
    """A part of duplicates/, sorted by shard so a decide task reads only its shard's row groups."""
    rows = rows.sort_by([("shard", "ascending"), ("record", "ascending")])
    write_parquet(rows.select(DUPLICATES_SCHEMA.names).cast(DUPLICATES_SCHEMA), dest)


def cluster_sizes(cluster_ids: list[str]) -> dict[int, int]:
    """Cluster size (duplicates + the kept record) -> number of clusters."""
    return dict(Counter(n + 1 for n in Counter(cluster_ids).values()))


def _key_heads(keys: pa.ChunkedArray | pa.Array) -> np.ndarray:
    """The first 8 bytes of each 16-byte exact key as uint64 (0 for a null key)."""
    k = keys.combine_chunks() if isinstance(keys, pa.ChunkedArray) else keys
    valid = pc.is_valid(k).to_numpy(zero_copy_only=False)
    k = pc.fill_null(k, pa.scalar(bytes(16), k.type))
    raw = np.frombuffer(k.buffers()[1], dtype=np.uint8)[k.offset * 16:(k.offset + len(k)) * 16]
    head = raw.reshape(-1, 16)[:, :8].copy().view("<u8").ravel()
    return np.where(valid, head, np.uint64(0))


def _exact_partition_udf(batch: pa.Table, partitions: int) -> pa.Table:
    batch = batch.filter(pc.and_(pc.is_valid(batch.column("record")), pc.is_valid(batch.column("exact_key"))))
    part = (mix64(_key_heads(batch.column("exact_key"))) % np.uint64(partitions)).astype(np.int64)
    return batch.append_column("part", pa.array(part))


def _exact_group_udf(group: pa.Table, out: Location) -> pa.Table:
    """One partition of exact keys: its duplicates written as a part of duplicates/; counts returned."""
    part = int(group.column("part")[0].as_py())
    found = exact_duplicates(group.select(["doc_id", "shard_index", "record", "exact_key"]))
    if found.num_rows:
        where = group.select(_WHERE)
        rows = found.join(where, "doc_id").append_column(
            "similarity", pa.array([1.0] * found.num_rows, pa.float64()))
        write_part(rows, out.child(f"exact-{part:05d}.parquet"))
    return pa.table({"exact": [found.num_rows],
                     "sizes": [json.dumps(cluster_sizes(found.column("cluster_id").to_pylist()))]})


def _explode_udf(batch: pa.Table, bands: int, partitions: int) -> pa.Table:
    """A record's band keys as one row per band, with the key's partition (and the record's exact
    key, so an exact duplicate can step aside in its buckets)."""
    batch = batch.filter(pc.and_(pc.is_valid(batch.column("record")), pc.is_valid(batch.column("minhash_bands"))))
    mat = bands_of(batch.column("minhash_bands"), bands)
    order = global_order(batch)
    keys = np.concatenate([exploded_band_keys(mat, j) for j in range(bands)]) if len(order) else np.zeros(0, np.uint64)
    cols: dict[str, Any] = {"part": (mix64(keys) % np.uint64(partitions)).astype(np.int64), "key": keys,
                            "order": np.tile(order, bands)}
    if "exact_key" in batch.column_names:
        # |1 keeps a real key from reading as 0, which marks "no exact key" (never steps aside)
        head = _key_heads(batch.column("exact_key"))
        cols["exact"] = np.tile(np.where(head != 0, head | np.uint64(1), np.uint64(0)), bands)
    return pa.table(cols)


def _band_group_udf(group: pa.Table) -> pa.Table:
    """One partition of band keys: candidate pairs (as global orders) of its buckets."""
    keys = group.column("key").to_numpy()
    order = group.column("order").to_numpy()
    if "exact" in group.column_names:
        # within a bucket, a later record with an earlier member's exact key is an exact duplicate
        exact = group.column("exact").to_numpy()
        idx = np.lexsort((order, exact, keys))
        k, e = keys[idx], exact[idx]
        clone = np.zeros(len(idx), dtype=bool)
        clone[1:] = (k[1:] == k[:-1]) & (e[1:] == e[:-1]) & (e[1:] != 0)
        keep = np.sort(idx[~clone])
        keys, order = keys[keep], order[keep]
    a, b = bucket_edges(keys, order, order)
    return pa.table({"a": pa.array(a, pa.int64()), "b": pa.array(b, pa.int64())})


def _nodes_of(*edge_tables: pa.Table) -> np.ndarray:
    """The sorted distinct records (global orders) of candidate pairs."""
    parts = [np.concatenate([t.column("a").to_numpy(), t.column("b").to_numpy()]) for t in edge_tables if t.num_rows]
    return np.unique(np.concatenate(parts)) if parts else np.zeros(0, np.int64)


def _node_rows(batch: pa.Table, nodes: np.ndarray) -> pa.Table:
    """The measurements (where + band keys) of the records that are in candidate pairs."""
    batch = batch.filter(pc.and_(pc.is_valid(batch.column("record")), pc.is_valid(batch.column("minhash_bands"))))
    order = global_order(batch)
    hit = np.isin(order, nodes)
    batch = batch.filter(pa.array(hit))
    return batch.select(_WHERE + ["minhash_bands"]).append_column("order", pa.array(order[hit], pa.int64()))


def near_rows(where: pa.Table, dup_rows: np.ndarray, kept_rows: np.ndarray, sim: np.ndarray) -> pa.Table:
    """duplicates/ rows of near duplicates: `dup_rows` and their `kept_rows` index `where`."""
    ids = where.column("doc_id").combine_chunks()
    kept = ids.take(pa.array(kept_rows, pa.int64()))
    rows = where.select(_WHERE).take(pa.array(dup_rows, pa.int64()))
    return rows.append_column("kind", pa.array(["near"] * len(dup_rows), pa.string())) \
        .append_column("cluster_id", pc.binary_join_element_wise("near-", kept, "")) \
        .append_column("kept_doc_id", kept) \
        .append_column("similarity", pa.array(np.round(np.asarray(sim, np.float64), 4), pa.float64()))


def _resolve_near(config: AuditConfig, out: Location, edges: list[pa.Table], nodes: list[pa.Table]) -> dict[str, Any]:
    """Confirm the candidate pairs and resolve the clusters; writes near-00000.parquet; returns counts."""
    edges = [e for e in edges if e.num_rows]
    nodes = [n for n in nodes if n.num_rows]
    if not edges or not nodes:
        return {"near": 0, "sizes": {}}
    info = pa.concat_tables(nodes).sort_by("order")
    order = info.column("order").to_numpy()
    e = pa.concat_tables(edges)
    lo = np.searchsorted(order, e.column("a").to_numpy())
    hi = np.searchsorted(order, e.column("b").to_numpy())
    mat = bands_of(info.column("minhash_bands"), config.dedup.bands)
    dup_rows, kept_rows, sim = confirmed_clusters(lo, hi, mat, order, config.dedup)
    if len(dup_rows) == 0:
        return {"near": 0, "sizes": {}}
    rows = near_rows(info, dup_rows, kept_rows, sim)
    write_part(rows, out.child("near-00000.parquet"))
    return {"near": len(dup_rows), "sizes": cluster_sizes(rows.column("cluster_id").to_pylist())}


def global_duplicates(config: AuditConfig, parts: list[Location], records: int, out: Location,
                      slots: int) -> dict[str, Any]:
    """Write `out` (the run's duplicates/ dataset) from the measurement parts; returns
    {"exact": n, "near": n, "cluster_sizes": {size: clusters}}.

    A run whose keys fit one partition (`ray.partition_rows`) is resolved by one task that runs
    the same partition functions without a shuffle; larger runs are hash-partitioned.
    """
    import ray

    out.mkdir()
    stats: dict[str, Any] = {"exact": 0, "near": 0, "cluster_sizes": {}}
    if not parts or not (config.dedup.exact or config.dedup.near):
        write_parquet(DUPLICATES_SCHEMA.empty_table(), out.child("empty.parquet"))
        return stats
    fs = parts[0].fs
    paths = [p.path for p in parts]
    rows = records * (config.dedup.bands if config.dedup.near else 1)
    rows_per_partition = config.ray.partition_rows
    if rows <= rows_per_partition:
        # a shuffle's fixed cost (~0.7 s on 2 CPUs) would outweigh the work of a single partition
        found = ray.get(ray.remote(_one_partition_task).remote(config, paths, fs, out))
    else:
        found = _partitioned(config, paths, fs, out, slots, records, rows_per_partition)
    stats["exact"], stats["near"] = found["exact"], found["near"]
    if not any(p.name.endswith(".parquet") for p in out.ls()):
        write_parquet(DUPLICATES_SCHEMA.empty_table(), out.child("empty.parquet"))
    stats["cluster_sizes"] = {int(k): int(v) for k, v in sorted(found["sizes"].items())}
    return stats


def _read_all(paths: list[str], fs: Any, columns: list[str]) -> pa.Table:
    """The measurement parts' `columns` as one table (the one-partition path)."""
    return pa.concat_tables([t for p in paths for t in read_part(p, fs, columns)])


def _one_partition_task(config: AuditConfig, paths: list[str], fs: Any, out: Location) -> dict[str, Any]:
    """The global pass of a small run in one task: the partition functions over all records."""
    sizes: Counter[int] = Counter()
    found: dict[str, Any] = {"exact": 0, "near": 0}
    cols = list(_WHERE) + (["exact_key"] if config.dedup.exact else []) + (["minhash_bands"] if config.dedup.near else [])
    table = _read_all(paths, fs, cols)
    keyed = _exact_partition_udf(table.select(_WHERE + ["exact_key"]), 1) if config.dedup.exact else None
    if keyed is not None and keyed.num_rows:
        got = _exact_group_udf(keyed, out)
        found["exact"] = int(got.column("exact")[0].as_py())
        sizes.update({int(k): v for k, v in json.loads(got.column("sizes")[0].as_py()).items()})
    if config.dedup.near:
        edges = _band_group_udf(_explode_udf(table, config.dedup.bands, 1))
        nodes = [_node_rows(table, _nodes_of(edges))]
        near = _resolve_near(config, out, [edges], nodes)
        found["near"] = near["near"]
        sizes.update(near["sizes"])
    found["sizes"] = sizes
    return found


def _partitioned(config: AuditConfig, paths: list[str], fs: Any, out: Location, slots: int, records: int,
                 rows_per_partition: int) -> dict[str, Any]:
    """The global pass hash-partitioned by Ray Data: exact keys, then band keys."""
    from audit.job.near_clusters import near_clusters

    sizes: Counter[int] = Counter()
    found: dict[str, Any] = {"exact": 0, "near": 0}
    if config.dedup.exact:
        partitions = max(slots, -(-records // rows_per_partition))
        ds = read_parts(paths, fs, _WHERE + ["exact_key"])
        ds = ds.map_batches(_exact_partition_udf, batch_format="pyarrow", fn_kwargs={"partitions": partitions})
        ds = ds.groupby("part", num_partitions=partitions).map_groups(_exact_group_udf, batch_format="pyarrow",
                                                                     fn_kwargs={"out": out})
        for row in ds.take_all():
            found["exact"] += int(row["exact"])
            sizes.update({int(k): v for k, v in json.loads(row["sizes"]).items()})
    if config.dedup.near:
        cols = ["shard_index", "record", "minhash_bands"] + (["exact_key"] if config.dedup.exact else [])
        ds = read_parts(paths, fs, cols)
        band_parts = max(slots, -(-records * config.dedup.bands // rows_per_partition))
        ds = ds.map_batches(_explode_udf, batch_format="pyarrow",
                            fn_kwargs={"bands": config.dedup.bands, "partitions": band_parts})
        edges = ds.groupby("part", num_partitions=band_parts).map_groups(_band_group_udf, batch_format="pyarrow")
        found["near"], near_sizes = near_clusters(config, paths, fs, edges.materialize(), out,
                                                  max(slots, -(-records // rows_per_partition)))
        sizes.update(near_sizes)
    found["sizes"] = sizes
    return found
