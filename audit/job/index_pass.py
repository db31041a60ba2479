"""The index pass: the run's lookup index (audit/lookup_index.py), after the decide pass.

A run whose keys fit one partition (`ray.partition_rows`), or any run on the in-process backend,
is indexed by `lookup_index.build_in_one` (in one Ray task, or here), which reads each lineage
part once. A larger run on Ray spreads the same work: a task per records bucket reads the lineage
parts of its shards once, writes that bucket and returns the key rows (sha256, url, source_id,
doc_id) of its positions; those and the passage fingerprints go to their buckets by a Ray Data
shuffle with one partition per bucket, whose task sorts and writes the bucket. A last task
writes each index's fences and meta.json. Both builds write the same files from the same layout.
"""
from __future__ import annotations

from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from audit.config import AuditConfig
from audit.io.storage import Location
from audit.job.executor import Executor
from audit.job.parts import read_part, read_parts
from audit.lookup_index import (INDEX_DIR, KEY_SCHEMA, KEYED, PASSAGE_COLUMNS, PASSAGES, RECORD_BITS, RECORD_COLUMNS,
                                RECORDS, IndexLayout, build_in_one, key_rows, passage_rows, pos_of, record_rows,
                                write_bucket, write_fences, write_meta)

_PARTED = pa.schema([*KEY_SCHEMA, ("part", pa.int64())])


def _parted(layout: IndexLayout, found: list[tuple[str, pa.Table]]) -> pa.Table:
    """(key, pos, part) rows; part = the key's bucket among all keyed indexes (the shuffle's partition)."""
    base = layout.partition_base()
    tables = []
    for name, rows in found:
        part = layout.bucket_of(name, rows.column("key").to_numpy()).astype(np.int64) + base[name]
        tables.append(rows.append_column("part", pa.array(part, pa.int64())))
    return pa.concat_tables(tables) if tables else _PARTED.empty_table()


def _passage_keys_udf(batch: pa.Table, layout: IndexLayout) -> pa.Table:
    """Ray Data UDF: the keyed rows of a batch of passage fingerprints."""
    return _parted(layout, [(PASSAGES, passage_rows(batch, layout.shard_array()))])


def _name_of(layout: IndexLayout, part: int) -> tuple[str, int]:
    """The keyed index and bucket of a partition number."""
    for name, first in sorted(layout.partition_base().items(), key=lambda x: -x[1]):
        if part >= first:
            return name, part - first
    raise ValueError(f"partition {part} is outside the layout")


def _key_bucket_udf(group: pa.Table, layout: IndexLayout, folder: Location) -> pa.Table:
    """One keyed bucket: sorted and written; its fences returned, tagged with the index."""
    name, bucket = _name_of(layout, int(group.column("part")[0].as_py()))
    fences = write_bucket(group.select(["key", "pos"]), folder.child(name), name, bucket)
    return fences.append_column("index", pa.array([name] * fences.num_rows, pa.string()))


def _record_bucket(layout: IndexLayout, bucket: int, lineage: dict[str, str], fs: Any,
                   folder: Location) -> tuple[pa.Table, pa.Table]:
    """One records bucket from the lineage parts of its shards, each read once: the bucket is
    written; returns its fences and the keyed rows of its positions (for the shuffle)."""
    lo = layout.record_starts[bucket]
    hi = layout.record_starts[bucket + 1] if bucket + 1 < len(layout.record_starts) else None
    last = len(layout.shards) - 1 if hi is None else (hi - 1) >> RECORD_BITS
    shards = layout.shard_array()
    records, keys = [], []
    for no in range(lo >> RECORD_BITS, last + 1):
        for t in read_part(lineage[layout.shards[no]], fs, RECORD_COLUMNS):
            pos = pos_of(t, shards)
            keep = (pos >= np.uint64(lo)) & (pos < np.uint64(hi) if hi is not None else True)
            if keep.any():
                t, pos = t.filter(pa.array(keep)), pos[keep]
                records.append(record_rows(t, pos))
                keys.append(_parted(layout, [(k, key_rows(t.column(k), pos)) for k in KEYED if k in t.column_names]))
    fences = write_bucket(pa.concat_tables(records), folder.child(RECORDS), RECORDS, bucket)
    fences = fences.append_column("index", pa.array([RECORDS] * fences.num_rows, pa.string()))
    return fences, pa.concat_tables(keys) if keys else _PARTED.empty_table()


def _write_index_files(folder: Location, layout: IndexLayout, *fences: pa.Table) -> dict[str, int]:
    """Every index's fences.parquet (an index without a row still gets an empty one), then meta.json."""
    have = [f for f in fences if f.num_rows]
    table = pa.concat_tables(have) if have else None
    counts = {}
    for name in [RECORDS, *layout.keyed]:
        mine = [table.filter(pc.equal(table.column("index"), name)).drop_columns(["index"])] if table is not None else []
        counts[name] = write_fences(folder.child(name), mine)
    write_meta(folder, layout, counts)
    return counts


def build_index(executor: Executor, config: AuditConfig, work: Location, lineage: list[tuple[Location, str, int]],
                passages: list[Location], passage_rows_in_all: int) -> dict[str, int]:
    """Write work/index/ from the run's lineage parts (part, shard, rows) and the measurement
    parts holding passage fingerprints (`passage_rows_in_all` rows in all); returns rows per index."""
    folder = work.child(INDEX_DIR)
    layout = IndexLayout.plan({shard: rows for _, shard, rows in lineage}, passage_rows_in_all)
    files = {shard: p.path for p, shard, rows in lineage if rows > 0}
    fs = work.fs
    keyed_rows = sum(rows for _, _, rows in lineage) * len(KEYED) + passage_rows_in_all
    if not executor.uses_ray or keyed_rows <= config.ray.partition_rows:
        # one partition: a shuffle's fixed cost would outweigh its work
        return executor.call(build_in_one, folder, layout, [files[s] for s in layout.shards],
                             [p.path for p in passages], fs, name="lookup_index")
    import ray

    record_task = ray.remote(_record_bucket).options(num_returns=2, max_retries=3, name="index_records")
    made = [record_task.remote(layout, b, files, fs, folder) for b in range(len(layout.record_starts))]
    key_ds = ray.data.from_arrow_refs([keys for _, keys in made])
    if passages:
        key_ds = key_ds.union(read_parts([p.path for p in passages], fs, PASSAGE_COLUMNS).map_batches(
            _passage_keys_udf, batch_format="pyarrow", fn_kwargs={"layout": layout}))
    buckets = sum(layout.buckets(k) for k in layout.keyed)
    fenced = key_ds.groupby("part", num_partitions=buckets).map_groups(
        _key_bucket_udf, batch_format="pyarrow", fn_kwargs={"layout": layout, "folder": folder}).materialize()
    fences = [f for f, _ in made] + list(fenced.to_arrow_refs())
    return executor.call(_write_index_files, folder, layout, *fences, name="index_fences")
