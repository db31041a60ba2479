"""The lookup index, built on the cluster (after pass 3): a task per bucket, no record on the driver.

Key-hash indexes (sha256, url, source_id, doc_id of lineage; passage fingerprints of the
measurements): every (key, position) row goes to its index's bucket, the key's top bits, by a
Ray Data shuffle with one partition per bucket; the partition's task sorts the bucket and writes
its file. Records index: one task per bucket of consecutive shards reads their lineage parts.
A last task writes each index's fences and meta.json. The buckets, files and fences are those of
the one-process build (`audit.lookup_index.build_lookup_indexes`), which a small run still uses,
in one task, because a shuffle's fixed cost outweighs its work there.
"""
from __future__ import annotations

from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from audit.config import AuditConfig
from audit.io.storage import Location
from audit.job.parts import read_part, read_parts
from audit.lookup_index import (INDEX_DIR, KEYED, PASSAGES, RECORD_BITS, RECORD_COLUMNS, RECORDS, IndexLayout,
                                _key_rows, _passage_rows, _pos_of, _record_rows, _write_bucket, write_fences,
                                write_meta)

_LINEAGE_KEYS = ["shard", "record", *KEYED]
_PASSAGE_KEYS = ["shard", "record", "hash", "passage_hashes"]


def _key_rows_udf(batch: pa.Table, layout: IndexLayout, source: str) -> pa.Table:
    """(part, key, pos) rows of a lineage or passage batch; part = the key's bucket among all keyed indexes."""
    base = layout.partition_base()
    shards = layout.shard_array()
    found = []
    if source == PASSAGES:
        found.append((PASSAGES, _passage_rows(batch, shards)))
    else:
        pos = _pos_of(batch, shards)
        found += [(k, _key_rows(batch.column(k), pos)) for k in KEYED if k in batch.column_names]
    tables = []
    for name, rows in found:
        part = layout.bucket_of(name, rows.column("key").to_numpy()).astype(np.int64) + base[name]
        tables.append(rows.append_column("part", pa.array(part, pa.int64())))
    return pa.concat_tables(tables) if tables else pa.table({"key": pa.array([], pa.uint64()),
                                                             "pos": pa.array([], pa.uint64()),
                                                             "part": pa.array([], pa.int64())})


def _name_of(layout: IndexLayout, part: int) -> tuple[str, int]:
    """The keyed index and bucket of a partition number."""
    for name, first in sorted(layout.partition_base().items(), key=lambda x: -x[1]):
        if part >= first:
            return name, part - first
    raise ValueError(f"partition {part} is outside the layout")


def _key_bucket_udf(group: pa.Table, layout: IndexLayout, folder: Location) -> pa.Table:
    """One keyed bucket: sorted and written; its fences returned, tagged with the index."""
    name, bucket = _name_of(layout, int(group.column("part")[0].as_py()))
    fences = _write_bucket(group.select(["key", "pos"]), folder.child(name), name, bucket)
    return fences.append_column("index", pa.array([name] * fences.num_rows, pa.string()))


def _record_bucket(layout: IndexLayout, bucket: int, lineage: dict[str, str], fs: Any, folder: Location) -> pa.Table:
    """One records bucket: the lineage rows of its positions, from the parts of its shards."""
    lo = layout.record_starts[bucket]
    hi = layout.record_starts[bucket + 1] if bucket + 1 < len(layout.record_starts) else None
    last = len(layout.shards) - 1 if hi is None else (hi - 1) >> RECORD_BITS
    shards = layout.shard_array()
    tables = []
    for no in range(lo >> RECORD_BITS, last + 1):
        for t in read_part(lineage[layout.shards[no]], fs, RECORD_COLUMNS):
            pos = _pos_of(t, shards)
            keep = (pos >= np.uint64(lo)) & (pos < np.uint64(hi) if hi is not None else True)
            if keep.any():
                tables.append(_record_rows(t.filter(pa.array(keep)), pos[keep]))
    fences = _write_bucket(pa.concat_tables(tables), folder.child(RECORDS), RECORDS, bucket)
    return fences.append_column("index", pa.array([RECORDS] * fences.num_rows, pa.string()))


def _write_index_files(folder: Location, layout: IndexLayout, fences: list[pa.Table]) -> dict[str, int]:
    """Every index's fences.parquet (an index without a row still gets an empty one), then meta.json."""
    table = pa.concat_tables([f for f in fences if f.num_rows]) if any(f.num_rows for f in fences) else None
    counts = {}
    for name in [RECORDS, *layout.keyed]:
        mine = [table.filter(pc.equal(table.column("index"), name)).drop_columns(["index"])] if table is not None else []
        counts[name] = write_fences(folder.child(name), mine)
    write_meta(folder, layout, counts)
    return counts


def _finish_task(folder: Location, layout: IndexLayout, *fences: pa.Table) -> dict[str, int]:
    return _write_index_files(folder, layout, list(fences))


def _one_task(layout: IndexLayout, folder: Location, lineage: dict[str, str], passages: list[str],
              fs: Any) -> dict[str, int]:
    """A small run's whole index in one task, by the same bucket functions."""
    rows = [_key_rows_udf(t, layout, "lineage") for p in lineage.values() for t in read_part(p, fs, _LINEAGE_KEYS)]
    rows += [_key_rows_udf(t, layout, PASSAGES) for p in passages for t in read_part(p, fs, _PASSAGE_KEYS)]
    keyed = pa.concat_tables(rows)
    part = keyed.column("part").to_numpy()
    order = np.argsort(part, kind="stable")
    fences = [_record_bucket(layout, b, lineage, fs, folder) for b in range(len(layout.record_starts))]
    if len(order):
        cuts = np.flatnonzero(np.diff(part[order])) + 1
        for chunk in np.split(order, cuts):
            fences.append(_key_bucket_udf(keyed.take(pa.array(chunk)), layout, folder))
    return _write_index_files(folder, layout, fences)


def build_index(config: AuditConfig, work: Location, lineage: list[tuple[Location, str, int]],
                passages: list[Location], passage_rows: int) -> dict[str, int]:
    """Write work/index/ from the run's lineage parts (part, shard, rows) and the measurement
    parts holding passage fingerprints (`passage_rows` rows in all); returns rows per index."""
    import ray

    folder = work.child(INDEX_DIR)
    layout = IndexLayout.plan({shard: rows for _, shard, rows in lineage}, passage_rows)
    files = {shard: p.path for p, shard, rows in lineage if rows > 0}
    fs = work.fs
    keyed_rows = sum(rows for _, _, rows in lineage) * len(KEYED) + passage_rows
    if keyed_rows <= config.ray.partition_rows:
        return ray.get(ray.remote(_one_task).remote(layout, folder, files, [p.path for p in passages], fs))
    key_ds = read_parts(list(files.values()), fs, _LINEAGE_KEYS).map_batches(
        _key_rows_udf, batch_format="pyarrow", fn_kwargs={"layout": layout, "source": "lineage"})
    if passages:
        key_ds = key_ds.union(read_parts([p.path for p in passages], fs, _PASSAGE_KEYS).map_batches(
            _key_rows_udf, batch_format="pyarrow", fn_kwargs={"layout": layout, "source": PASSAGES}))
    buckets = sum(layout.buckets(k) for k in layout.keyed)
    fenced = key_ds.groupby("part", num_partitions=buckets).map_groups(
        _key_bucket_udf, batch_format="pyarrow", fn_kwargs={"layout": layout, "folder": folder}).materialize()
    record_task = ray.remote(_record_bucket)
    fences = [record_task.remote(layout, b, files, fs, folder) for b in range(len(layout.record_starts))]
    fences += list(fenced.to_arrow_refs())
    return ray.get(ray.remote(_finish_task).remote(folder, layout, *fences))
