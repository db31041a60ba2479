"""Pass 2, global: exact and near duplicates across the run (the steps: audit.dedup.steps).

Plain tasks on the run's executor (Ray Core tasks, or calls in this process), each reading only
the measurement columns it needs; no record passes through the driver, and nothing is shuffled
but what the band keys confirm:

    exact       a task per partition of the exact keys reads every part's keys and locations
                (projected), keeps its partition's and writes its exact duplicates
    band rows   a task per part: its band keys, input orders and exact-key heads as arrays
                (~90 bytes a record), kept in Ray's object store
    band pairs  a task per band (and partition of its keys, for a large run) reads those arrays
                from shared memory and returns its buckets' confirmed pairs (few: the
                near duplicates, not the records)
    nodes       a task per part: the location rows of the records those pairs name
    resolve     one task resolves the components and writes the near duplicates; a run whose
                pairs and records outgrow `ray.partition_rows` hashes them by Ray Data
                (large-star/small-star components, then label and resolve shuffles)

Every task that writes returns typed cluster-size rows; the driver receives only those, and the
confirmed pairs. Band keys once ran through a Ray Data shuffle, a row per record and band (16x
the records; 0.5 GB at 1M records, spilled past the object store and 5.7x slower at 4x the
records); the arrays are read in place instead.
"""
from __future__ import annotations

from collections import Counter
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from audit.config import AuditConfig
from audit.dedup import steps
from audit.dedup.components import star_components
from audit.io.storage import Location, write_parquet
from audit.job.executor import Executor, Shared
from audit.job.parts import with_run_id
from audit.records import DUPLICATES_SCHEMA


def write_part(rows: pa.Table, dest: Location, run_id: str | None) -> None:
    """A part of duplicates/, sorted by shard so a decide task reads only its shard's row groups,
    with the run id in its schema metadata."""
    rows = rows.sort_by([("shard", "ascending"), ("record", "ascending")])
    write_parquet(rows.select(DUPLICATES_SCHEMA.names).cast(with_run_id(DUPLICATES_SCHEMA, run_id)), dest)


def _written(rows: pa.Table | None, kind: str, out: Location, part: int, run_id: str | None) -> pa.Table:
    """Write a partition's duplicates (if any) as a part of duplicates/; its cluster-size rows."""
    if rows is None or rows.num_rows == 0:
        return steps.HISTOGRAM.empty_table()
    write_part(rows, out.child(f"{kind}-{part:05d}.parquet"), run_id)
    return steps.histogram(kind, rows.column("cluster_id"))


def _resolve_udf(group: pa.Table, config: AuditConfig, out: Location, run_id: str | None) -> pa.Table:
    return _written(steps.resolve(group, config), "near", out, int(group.column("part")[0].as_py()), run_id)


def _base(path: str, fs: Any, columns: list[str]) -> pa.Table:
    """A part's base rows (steps.base_rows) of `columns` (those it has; a projected read)."""
    with fs.open_input_file(path) as f:
        pf = pq.ParquetFile(f)
        return steps.base_rows(pf.read(columns=[c for c in columns if c in pf.schema_arrow.names]))


def key_rows_task(path: str, fs: Any, bands: int) -> dict[str, np.ndarray]:
    """A part's exact keys, band keys and orders as arrays (steps.key_rows)."""
    return steps.key_rows(_base(path, fs, ["shard_index", "record", "exact_key", "minhash_bands"]), bands)


def pairs_task(item: tuple[str, int], rows: list[Shared[dict[str, np.ndarray]]], partitions: int, bands: int,
               min_shared: int) -> pa.Table:
    """("exact", partition): its exact duplicates (dup, kept orders); ("band", band): the
    confirmed pairs of that band's buckets."""
    kind, no = item
    parts = [r.get() for r in rows]
    if kind == "exact":
        return steps.exact_of(parts, no, partitions)
    return steps.band_pairs(parts, no, partitions, bands, min_shared)


def pairs_and_orders_task(bands: list[Shared[pa.Table]], exact: list[pa.Table]) -> tuple[pa.Table, np.ndarray]:
    """The confirmed pairs of every band, each once, and the orders of the records that they and
    the exact duplicates name."""
    pairs = steps.distinct_pairs([b.get() for b in bands])
    return pairs, steps.named([*exact, pairs])


def nodes_task(path: str, fs: Any, orders: np.ndarray) -> pa.Table:
    """A part's base rows of the records `orders` (those the pairs name)."""
    return steps.involved(_base(path, fs, steps.WHERE + ["minhash_bands"]), orders)


def write_task(item: tuple[str, int, pa.Table | None], nodes: list[Shared[pa.Table]], pairs: pa.Table,
               config: AuditConfig, out: Location, run_id: str | None) -> pa.Table:
    """("exact", partition, its (dup, kept) orders) or ("near", 0, None): those duplicates (all
    components of the confirmed `pairs`, in one partition) written; their cluster-size rows."""
    kind, no, exact = item
    located = pa.concat_tables([n.get() for n in nodes])
    if kind == "exact":
        return _written(steps.exact_rows(located, exact), "exact", out, no, run_id)
    return _written(steps.near_of_pairs(located, pairs, config), "near", out, 0, run_id)


def global_duplicates(config: AuditConfig, parts: list[Location], records: int, out: Location,
                      executor: Executor, run_id: str | None = None) -> dict[str, Any]:
    """Write `out` (the run's duplicates/ dataset) from the measurement parts on `executor`;
    returns {"exact": n, "near": n, "cluster_sizes": {size: clusters}}.

    A task holds about `ray.partition_rows` keys: the exact keys are split into that many
    range partitions, each band's keys go through as many one after the other."""
    out.mkdir()
    d = config.dedup
    stats: dict[str, Any] = {"exact": 0, "near": 0, "cluster_sizes": {}}
    if not parts or not (d.exact or d.near):
        write_parquet(with_run_id(DUPLICATES_SCHEMA, run_id).empty_table(), out.child("empty.parquet"))
        return stats
    found = _found(config, executor, parts, records, out, run_id)
    sizes: Counter[int] = Counter()
    table = pa.concat_tables([steps.HISTOGRAM.empty_table(), *(f.select(steps.HISTOGRAM.names) for f in found)])
    for kind, size, clusters in zip(*(table.column(c).to_pylist() for c in ("kind", "size", "clusters"))):
        stats[kind] += (size - 1) * clusters  # a cluster of n reports n - 1 duplicates
        sizes[size] += clusters
    if not any(p.name.endswith(".parquet") for p in out.ls()):
        write_parquet(with_run_id(DUPLICATES_SCHEMA, run_id).empty_table(), out.child("empty.parquet"))
    stats["cluster_sizes"] = {int(k): int(v) for k, v in sorted(sizes.items())}
    return stats


def _found(config: AuditConfig, ex: Executor, parts: list[Location], records: int, out: Location,
           run_id: str | None) -> list[pa.Table]:
    """Key rows -> exact duplicates and confirmed pairs -> the rows they name -> duplicates/ parts;
    their cluster-size rows."""
    d = config.dedup
    fs = parts[0].fs
    paths = [p.path for p in parts]
    partitions = 1 << steps.range_bits(max(1, -(-records // config.ray.partition_rows)))
    rows = ex.map_kept(key_rows_task, paths, fs, d.bands, name="dedup_key_rows")
    common = (rows, partitions, d.bands, d.min_shared_bands)
    # a pair is found in many bands (4M records: 545k band rows, 80k distinct): the bands' rows
    # stay in the object store and a task keeps each pair once, so the driver's peak does not grow
    # with them (4M records: +54 MB when the driver made them distinct, measured)
    bands = ex.map_kept(pairs_task, [("band", j) for j in range(d.bands) if d.near], *common, name="dedup_pairs")
    exact = [t for _, t in ex.map(pairs_task, [("exact", h) for h in range(partitions) if d.exact], *common,
                                  name="dedup_exact")]
    del rows, common  # the key rows leave the object store
    pairs, orders = ex.call(pairs_and_orders_task, bands, exact, name="dedup_distinct")
    del bands
    if not len(orders):
        return []
    nodes = ex.map_kept(nodes_task, paths, fs, orders, name="dedup_nodes")
    held = pairs.num_rows * 3  # a pair and about two records' rows each
    one = not ex.uses_ray or held <= config.ray.partition_rows
    writes = [("exact", h, t) for h, t in enumerate(exact) if t.num_rows] + ([("near", 0, None)] if one and
                                                                              pairs.num_rows else [])
    found = [h for _, h in ex.map(write_task, writes, nodes, pairs, config, out, run_id, name="dedup_write")]
    if one or not pairs.num_rows:
        return found
    return [*found, *_shuffled(config, nodes, pairs, max(ex.slots, -(-held // config.ray.partition_rows)), out,
                               run_id)]


def _shuffled(config: AuditConfig, nodes: list[Shared[pa.Table]], pairs: pa.Table, partitions: int,
              out: Location, run_id: str | None) -> list[pa.Table]:
    """Components and their resolution hash-partitioned by Ray Data (pairs past one task's share)."""
    import ray

    from audit.job.ray_session import use_ray_data

    use_ray_data()
    kw = {"partitions": partitions}
    confirmed = ray.data.from_arrow(pairs)
    stars = star_components(confirmed, partitions)
    labelled = ray.data.from_arrow_refs([n.ref[0] for n in nodes if n.ref]).map_batches(
        steps.node_rows, batch_format="pyarrow", fn_kwargs=kw).union(
        stars.map_batches(steps.label_rows, batch_format="pyarrow", fn_kwargs=kw),
        confirmed.map_batches(steps.confirmed_rows, batch_format="pyarrow", fn_kwargs=kw))
    by_component = labelled.groupby("part", num_partitions=partitions).map_groups(
        steps.label, batch_format="pyarrow", fn_kwargs=kw)
    return _take(by_component.groupby("part", num_partitions=partitions).map_groups(
        _resolve_udf, batch_format="pyarrow", fn_kwargs={"config": config, "out": out, "run_id": run_id}))


def _take(ds: Any) -> list[pa.Table]:
    """The typed cluster-size rows a step's partitions returned (small: one row per size)."""
    import ray

    tables = (ray.get(ref) for ref in ds.to_arrow_refs())
    return [t.select(steps.HISTOGRAM.names).cast(steps.HISTOGRAM) for t in tables if t.num_rows]
