"""Pass 2, global: exact and near duplicates across the run (the steps: audit.dedup.steps).

The measurement parts are read once, their dedup columns only (`steps.measured_columns`).

A run whose keys fit one partition (`ray.partition_rows`) calls the steps in one process with
one partition and no shuffle (`steps.one_partition`): in this process with `use_ray=False` (no
Ray call at all), else in one Ray task, so the driver holds no record. A larger run reads the
parts once into the object store and puts a Ray Data hash shuffle between consecutive steps: exact
keys; band keys (candidate pairs); pairs meeting a's then b's band keys (confirmed pairs);
large-star/small-star rounds (components); records and pairs by component (resolve). Every
partition task writes its part of duplicates/ and returns typed cluster-size rows; the driver
receives only those.
"""
from __future__ import annotations

from collections import Counter
from typing import Any

import pyarrow as pa

from audit.config import AuditConfig
from audit.dedup import steps
from audit.dedup.components import star_components
from audit.io.storage import Location, write_parquet
from audit.job.parts import read_part, read_parts
from audit.records import DUPLICATES_SCHEMA


def write_part(rows: pa.Table, dest: Location) -> None:
    """A part of duplicates/, sorted by shard so a decide task reads only its shard's row groups."""
    rows = rows.sort_by([("shard", "ascending"), ("record", "ascending")])
    write_parquet(rows.select(DUPLICATES_SCHEMA.names).cast(DUPLICATES_SCHEMA), dest)


def _written(rows: pa.Table | None, kind: str, out: Location, part: int) -> pa.Table:
    """Write a partition's duplicates (if any) as a part of duplicates/; its cluster-size rows."""
    if rows is None or rows.num_rows == 0:
        return steps.HISTOGRAM.empty_table()
    write_part(rows, out.child(f"{kind}-{part:05d}.parquet"))
    return steps.histogram(kind, rows.column("cluster_id"))


def _exact_group_udf(group: pa.Table, out: Location) -> pa.Table:
    return _written(steps.exact_group(group), "exact", out, int(group.column("part")[0].as_py()))


def _resolve_udf(group: pa.Table, config: AuditConfig, out: Location) -> pa.Table:
    return _written(steps.resolve(group, config), "near", out, int(group.column("part")[0].as_py()))


def global_duplicates(config: AuditConfig, parts: list[Location], records: int, out: Location,
                      slots: int, *, use_ray: bool = True) -> dict[str, Any]:
    """Write `out` (the run's duplicates/ dataset) from the measurement parts; returns
    {"exact": n, "near": n, "cluster_sizes": {size: clusters}}.

    A run whose keys fit one partition (`ray.partition_rows`), or any run with `use_ray=False`,
    runs the one-partition steps (in this process without Ray, else in one Ray task); larger
    runs are hash-partitioned by Ray Data.
    """
    out.mkdir()
    d = config.dedup
    stats: dict[str, Any] = {"exact": 0, "near": 0, "cluster_sizes": {}}
    if not parts or not (d.exact or d.near):
        write_parquet(DUPLICATES_SCHEMA.empty_table(), out.child("empty.parquet"))
        return stats
    fs = parts[0].fs
    paths = [p.path for p in parts]
    rows = records * (d.bands if d.near else 1)
    if not use_ray:
        found = _one_partition(config, paths, fs, out)
    elif rows <= config.ray.partition_rows:
        import ray

        # a shuffle's fixed cost (~0.7 s on 2 CPUs) would outweigh the work of a single partition
        found = ray.get(ray.remote(_one_partition).remote(config, paths, fs, out))
    else:
        found = _partitioned(config, paths, fs, out, slots, records)
    sizes: Counter[int] = Counter()
    for kind, size, clusters in zip(*(found.column(c).to_pylist() for c in ("kind", "size", "clusters"))):
        stats[kind] += (size - 1) * clusters  # a cluster of n reports n - 1 duplicates
        sizes[size] += clusters
    if not any(p.name.endswith(".parquet") for p in out.ls()):
        write_parquet(DUPLICATES_SCHEMA.empty_table(), out.child("empty.parquet"))
    stats["cluster_sizes"] = {int(k): int(v) for k, v in sorted(sizes.items())}
    return stats


def _one_partition(config: AuditConfig, paths: list[str], fs: Any, out: Location) -> pa.Table:
    """The pass of a small run in one process: each part read once, the steps with one partition."""
    cols = steps.measured_columns(config)
    tables = [t for p in paths for t in read_part(p, fs, cols)]
    if not tables:  # parts without a row group: nothing to compare
        return steps.HISTOGRAM.empty_table()
    exact, near = steps.one_partition(pa.concat_tables(tables), config)
    return pa.concat_tables([_written(exact, "exact", out, 0), _written(near, "near", out, 0)])


def _partitioned(config: AuditConfig, paths: list[str], fs: Any, out: Location, slots: int,
                 records: int) -> pa.Table:
    """The pass hash-partitioned by Ray Data: the parts read once, then each step a shuffle."""
    d = config.dedup
    per = config.ray.partition_rows
    partitions = max(slots, -(-records // per))
    base = read_parts(paths, fs, steps.measured_columns(config)).map_batches(
        steps.base_rows, batch_format="pyarrow").materialize()  # every step below reads these blocks
    found: list[pa.Table] = []
    if d.exact:
        keyed = base.map_batches(steps.exact_keyed, batch_format="pyarrow", fn_kwargs={"partitions": partitions})
        found += _take(keyed.groupby("part", num_partitions=partitions).map_groups(
            _exact_group_udf, batch_format="pyarrow", fn_kwargs={"out": out}))
    if d.near:
        band_parts = max(slots, -(-records * d.bands // per))
        candidates = base.map_batches(steps.explode, batch_format="pyarrow",
                                      fn_kwargs={"bands": d.bands, "partitions": band_parts}) \
            .groupby("part", num_partitions=band_parts).map_groups(steps.bucket_pairs, batch_format="pyarrow")
        found += _near(config, base, candidates, partitions, out)
    return pa.concat_tables([steps.HISTOGRAM.empty_table(), *found])


def _near(config: AuditConfig, base: Any, candidates: Any, partitions: int, out: Location) -> list[pa.Table]:
    """Candidate pairs -> confirmed pairs -> components -> resolved parts of duplicates/."""
    d = config.dedup
    kw = {"partitions": partitions}
    nodes = base.map_batches(steps.node_rows, batch_format="pyarrow", fn_kwargs={**kw, "where": False})
    with_a = nodes.union(candidates.map_batches(steps.pair_rows, batch_format="pyarrow", fn_kwargs=kw)) \
        .groupby("part", num_partitions=partitions).map_groups(steps.attach_a, batch_format="pyarrow", fn_kwargs=kw)
    confirmed = nodes.union(with_a).groupby("part", num_partitions=partitions).map_groups(
        steps.confirm_b, batch_format="pyarrow", fn_kwargs={"bands": d.bands, "min_shared": d.min_shared_bands}) \
        .materialize()
    if confirmed.count() == 0:
        return []
    stars = star_components(confirmed, partitions)
    labelled = base.map_batches(steps.node_rows, batch_format="pyarrow", fn_kwargs={**kw, "where": True}).union(
        stars.map_batches(steps.label_rows, batch_format="pyarrow", fn_kwargs=kw),
        confirmed.map_batches(steps.confirmed_rows, batch_format="pyarrow", fn_kwargs=kw))
    by_component = labelled.groupby("part", num_partitions=partitions).map_groups(
        steps.label, batch_format="pyarrow", fn_kwargs=kw)
    return _take(by_component.groupby("part", num_partitions=partitions).map_groups(
        _resolve_udf, batch_format="pyarrow", fn_kwargs={"config": config, "out": out}))


def _take(ds: Any) -> list[pa.Table]:
    """The typed cluster-size rows a step's partitions returned (small: one row per size)."""
    import ray

    tables = (ray.get(ref) for ref in ds.to_arrow_refs())
    return [t.select(steps.HISTOGRAM.names).cast(steps.HISTOGRAM) for t in tables if t.num_rows]
