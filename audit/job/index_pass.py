"""The index pass: the run's lookup index (audit/lookup_index.py), after the decide pass.

A run whose keys fit one partition (`ray.partition_rows`), or any run on the in-process backend,
is indexed by `lookup_index.build_in_one` (in one Ray task, or here), which reads each lineage
part once. A larger run spreads the same work as a task per bucket of every index, no shuffle: a
records bucket that a shard has to itself (a shard of 31k to 4M rows) is written by that shard's
decide task from the lineage rows it holds (planned before the decide pass, `plan_index`), and
any other records bucket reads the lineage parts of its shards; a keyed bucket (sha256, url, source_id,
doc_id) reads its key column, projected, of every lineage part and keeps its bucket's keys; a
passage bucket likewise the measurement parts' fingerprints. Buckets hold about 4M rows, so most
indexes have one and a key column is read once or a few times. Each task sorts and writes its
bucket and returns its fences; a last task writes each index's fences and meta.json. Both builds
write the same files from the same layout. (The keys once went to their buckets by a Ray Data
shuffle, spilled past the object store at a few million records.)
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from audit.config import AuditConfig
from audit.io.storage import Location
from audit.job.executor import Executor
from audit.job.parts import read_part
from audit.lookup_index import (INDEX_DIR, KEY_SCHEMA, KEYED, PASSAGE_COLUMNS, PASSAGES, RECORD_BITS, RECORD_COLUMNS,
                                RECORDS, IndexLayout, build_in_one, key_rows, passage_rows, pos_of, record_rows,
                                write_bucket, write_fences, write_meta)


def _tagged(fences: pa.Table, name: str) -> pa.Table:
    return fences.append_column("index", pa.array([name] * fences.num_rows, pa.string()))


def _record_bucket(layout: IndexLayout, bucket: int, lineage: dict[str, str], fs: Any, folder: Location) -> pa.Table:
    """One records bucket from the lineage parts of its shards, each read once: written; its fences."""
    lo = layout.record_starts[bucket]
    hi = layout.record_starts[bucket + 1] if bucket + 1 < len(layout.record_starts) else None
    last = len(layout.shards) - 1 if hi is None else (hi - 1) >> RECORD_BITS
    shards = layout.shard_array()
    records = []
    for no in range(lo >> RECORD_BITS, last + 1):
        for t in read_part(lineage[layout.shards[no]], fs, RECORD_COLUMNS):
            pos = pos_of(t, shards)
            keep = (pos >= np.uint64(lo)) & (pos < np.uint64(hi) if hi is not None else True)
            if keep.any():
                records.append(record_rows(t.filter(pa.array(keep)), pos[keep]))
    return _tagged(write_bucket(pa.concat_tables(records), folder.child(RECORDS), RECORDS, bucket), RECORDS)


def _key_bucket(layout: IndexLayout, name: str, bucket: int, lineage: list[str], passages: list[str], fs: Any,
                folder: Location) -> pa.Table:
    """One bucket of a keyed index: its key column read from every part (projected), the bucket's
    (key, pos) rows kept, sorted and written; its fences (none for an empty bucket)."""
    shards = layout.shard_array()
    rows = []
    for path in passages if name == PASSAGES else lineage:
        for t in read_part(path, fs, PASSAGE_COLUMNS if name == PASSAGES else [name, "shard", "record"]):
            if name == PASSAGES:
                keyed = passage_rows(t, shards)
            elif name in t.column_names:
                keyed = key_rows(t.column(name), pos_of(t, shards))
            else:
                continue
            mine = layout.bucket_of(name, keyed.column("key").to_numpy()) == np.uint64(bucket)
            rows.append(keyed.filter(pa.array(mine)))
    table = pa.concat_tables([KEY_SCHEMA.empty_table(), *rows])
    if table.num_rows == 0:
        return pa.table({"index": pa.array([], pa.string())})  # an empty bucket has no file
    return _tagged(write_bucket(table, folder.child(name), name, bucket), name)


def _bucket_task(item: tuple[str, int], layout: IndexLayout, lineage: dict[str, str], passages: list[str], fs: Any,
                 folder: Location) -> pa.Table:
    """(index, bucket): that bucket written; its fences, tagged with the index."""
    name, bucket = item
    if name == RECORDS:
        return _record_bucket(layout, bucket, lineage, fs, folder)
    return _key_bucket(layout, name, bucket, [lineage[s] for s in layout.shards], passages, fs, folder)


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


@dataclass(frozen=True)
class RecordsBucket:
    """The lookup index's records bucket that holds one shard's rows alone (IndexLayout.own_bucket):
    the shard's decide task writes it from the lineage rows it has in hand, so the index pass
    reads no lineage for it."""

    bucket: int
    shard_no: int  # the shard's number in the index (its place in IndexLayout.shards)
    folder: Location  # the run's index/records/


@dataclass(frozen=True)
class IndexPlan:
    """How the index pass builds a run's index, decided before the decide pass."""

    layout: IndexLayout
    per_bucket: bool  # a task per bucket (else one task, or here: see the module)
    own: dict[str, RecordsBucket]  # by shard: the records buckets the decide tasks write themselves


def plan_index(executor: Executor, config: AuditConfig, work: Location, shard_rows: dict[str, int],
               passage_rows_in_all: int) -> IndexPlan:
    """The index's plan from the lineage rows each shard will have (its records) and the passage
    fingerprints' rows: its layout, and for a bucket-per-task build the records buckets that a
    shard has to itself, which its decide task writes."""
    layout = IndexLayout.plan(shard_rows, passage_rows_in_all)
    keyed_rows = sum(shard_rows.values()) * len(KEYED) + passage_rows_in_all
    if not executor.uses_ray or keyed_rows <= config.ray.partition_rows:
        return IndexPlan(layout, False, {})
    folder = work.child(INDEX_DIR, RECORDS)
    return IndexPlan(layout, True, {shard: RecordsBucket(b, no, folder) for no, shard in enumerate(layout.shards)
                                    if (b := layout.own_bucket(no)) is not None})


def build_index(executor: Executor, work: Location, plan: IndexPlan, lineage: list[tuple[Location, str]],
                passages: list[Location], written: list[pa.Table]) -> dict[str, int]:
    """Write work/index/ as `plan` says from the run's lineage parts (part, shard) and the
    measurement parts holding passage fingerprints; `written`: the fences of the records buckets
    the decide tasks wrote. Returns rows per index."""
    folder = work.child(INDEX_DIR)
    layout = plan.layout
    files = {shard: p.path for p, shard in lineage}
    fs = work.fs
    if not plan.per_bucket:
        # one task reading each lineage part once: several would each read every part's key columns
        return executor.call(build_in_one, folder, layout, [files[s] for s in layout.shards],
                             [p.path for p in passages], fs, name="lookup_index")
    done = {b.bucket for b in plan.own.values()}
    # the largest first (records, then passages), so the last task to finish is a small one
    jobs = [(RECORDS, b) for b in range(len(layout.record_starts)) if b not in done] + \
        [(name, b) for name in sorted(layout.keyed, key=lambda n: n != PASSAGES) for b in range(layout.buckets(name))]
    fences = [f for _, f in executor.map(_bucket_task, jobs, layout, files, [p.path for p in passages], fs, folder,
                                         name="index_bucket")]
    return executor.call(_write_index_files, folder, layout, *fences, *(_tagged(f, RECORDS) for f in written),
                         name="index_fences")
