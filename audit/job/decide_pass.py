"""Pass 3, decide: one task per measurement part joins the part with its shard's
duplicate decisions and the blocklist, judges every record (audit.decide.Decider) and writes the
shard's parts of lineage/, quarantine/, contamination/ and pii/. It returns the shard's summary
partial (counts and sketches, a few KB), which the driver merges.
"""
from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.dataset as pads
import pyarrow.parquet as pq

from audit.blocklist import Blocklist
from audit.config import AuditConfig
from audit.decide import Decider
from audit.io.storage import Location, write_parquet
from audit.job.executor import Executor, Shared
from audit.job.index_pass import RecordsBucket
from audit.job.parts import PartWriter, with_run_id
from audit.lookup_index import RECORD_COLUMNS, RECORDS, positions, record_rows, write_bucket
from audit.records import (CONTAMINATION_SCHEMA, INTERNAL_COLUMNS, LINEAGE_COLUMNS, PII_SCHEMA, RECORD_SCHEMA,
                           WHERE_COLUMNS)
from audit.summary import SummaryBuilder
from audit.tagger import StageError, build_stages

_BATCH_ROWS = 65_536
# Fingerprints the global and index passes read; no verdict or output of this pass uses them,
# and they are most of a part's bytes (passage hashes alone about half).
_NOT_JUDGED = frozenset({"exact_key", "minhash_bands", "passage_hashes"})


def explode(table: pa.Table, column: str, schema: pa.Schema) -> pa.Table:
    """One row per element of a list<struct> column, with the record's location columns."""
    col = table.column(column).combine_chunks()
    parents = pc.list_parent_indices(col)
    items = pc.list_flatten(col)
    cols = {name: table.column(name).take(parents) for name, _ in WHERE_COLUMNS}
    names = [x.name for x in items.type]
    for f in schema:
        if f.name not in cols:
            cols[f.name] = items.field(f.name) if f.name in names else pa.nulls(len(items), f.type)
    return pa.table(cols).cast(schema)


def lineage_table(table: pa.Table) -> pa.Table:
    """Lineage columns of CONTRACT.md first, then every flat measurement column."""
    n = table.num_rows
    cols: dict[str, Any] = {}
    for name in LINEAGE_COLUMNS:
        if name in table.column_names:
            cols[name] = table.column(name)
        elif name == "language":
            cols[name] = pa.nulls(n, pa.string())
        elif name == "language_score":
            cols[name] = pa.nulls(n, pa.float32())
    skip = set(LINEAGE_COLUMNS) | set(INTERNAL_COLUMNS) | {"details", "measured"}
    for name in table.column_names:
        t = table.schema.field(name).type
        # flat measurements only: keys, band keys, fingerprints and findings have their own outputs
        if name not in skip and not (pa.types.is_list(t) or pa.types.is_struct(t) or pa.types.is_binary(t)
                                     or pa.types.is_fixed_size_binary(t) or pa.types.is_large_list(t)):
            cols[name] = table.column(name)
    return pa.table(cols)


def quarantine_table(lineage: pa.Table, decided: pa.Table) -> pa.Table:
    """quarantine/: the lineage columns, `details` (JSON text) and `measured` (the same values, typed)."""
    return (lineage.select(LINEAGE_COLUMNS).append_column("details", decided.column("details"))
            .append_column("measured", decided.column("measured")))


def empty_outputs(config: AuditConfig) -> dict[str, pa.Schema]:
    """The schema each per-record dataset has when no record reached it."""
    empty = Decider(config, build_stages(config))(RECORD_SCHEMA.empty_table().drop_columns(["text"]))
    lineage = lineage_table(empty)
    quarantine = quarantine_table(lineage, empty)
    return {"lineage": lineage.schema, "quarantine": quarantine.schema,
            "contamination": CONTAMINATION_SCHEMA, "pii": PII_SCHEMA}


def duplicate_files(duplicates: Location) -> list[str]:
    """The duplicates/ parts, listed once for every decide task."""
    return [p.path for p in duplicates.ls() if p.name.endswith(".parquet")]


def _duplicates_of(fs: Any, files: list[str], shard: str) -> dict[str, tuple[str, str]]:
    """{doc_id: (kind, kept_doc_id)} of one shard (duplicates/ parts are sorted by shard, so the
    filter reads only the row groups that hold it)."""
    if not files:
        return {}
    t = pads.dataset(files, format="parquet", filesystem=fs).to_table(
        columns=["doc_id", "kind", "kept_doc_id"], filter=pc.field("shard") == shard)
    return {d: (k, kept) for d, k, kept in zip(t.column("doc_id").to_pylist(), t.column("kind").to_pylist(),
                                               t.column("kept_doc_id").to_pylist())}


def decide_part(config: AuditConfig, part: Location, shard: str, index: int, work: Location,
                blocklist: Blocklist, dup_files: list[str], run_id: str | None = None,
                records: RecordsBucket | None = None) -> tuple[dict[str, Any], int, pa.Table | None]:
    """Judge one shard's measurements and write its output parts (the run id in their schema
    metadata), and its records bucket when given one; returns its summary partial, the rows of
    its lineage part and the bucket's fences."""
    decider = Decider(config, build_stages(config), _duplicates_of(work.fs, dup_files, shard), blocklist)
    summary = SummaryBuilder(config)
    name = f"part-{index:06d}.parquet"
    writers = {d: PartWriter(work.child(d, name), run_id=run_id)
               for d in ("lineage", "quarantine", "contamination", "pii")}
    kept: list[pa.Table] = []  # the lineage columns the records index holds
    try:
        with part.fs.open_input_file(part.path) as f:
            pf = pq.ParquetFile(f)
            # a blocked passage is matched by the records' fingerprints (only read when there is one)
            columns = [c for c in pf.schema_arrow.names
                       if c not in _NOT_JUDGED or (c == "passage_hashes" and blocklist.passages)]
            for batch in pf.iter_batches(batch_size=_BATCH_ROWS, columns=columns):
                try:
                    decided = decider(pa.Table.from_batches([batch]))
                except StageError as e:  # a user stage's judge: named with the shard it judged
                    raise StageError(f"{e} (judging shard {shard})") from None
                lineage = _write_decided(decided, writers, summary)
                if records is not None and lineage is not None:
                    kept.append(lineage.select([c for c in RECORD_COLUMNS if c in lineage.column_names]))
        for w in writers.values():
            w.close()
    except BaseException:
        for w in writers.values():
            w.abort()
        raise
    fences = None
    if records is not None and kept:
        table = pa.concat_tables(kept, promote_options="permissive")
        pos = positions(np.full(table.num_rows, records.shard_no), table.column("record").to_numpy())
        fences = write_bucket(record_rows(table, pos), records.folder, RECORDS, records.bucket)
    return summary.to_dict(), writers["lineage"].rows, fences


def _write_decided(table: pa.Table, writers: dict[str, PartWriter], summary: SummaryBuilder) -> pa.Table | None:
    """Split a decided batch into the run's datasets and feed the summary; its lineage rows (None: none)."""
    file_level = pc.is_null(table.column("record"))
    if pc.any(file_level).as_py():
        for row in table.filter(file_level).select(["shard", "line", "byte_offset", "error"]).to_pylist():
            summary.add_unreadable(row)
        table = table.filter(pc.invert(file_level))
    if table.num_rows == 0:
        return None
    for row in table.filter(pc.is_valid(table.column("error"))).select(
            ["shard", "record", "line", "byte_offset", "doc_id", "error"]).to_pylist():
        summary.add_unreadable(row)
    lineage = lineage_table(table)
    writers["lineage"].write(lineage)
    quarantined = pc.equal(table.column("verdict"), "quarantined")
    q = table.filter(quarantined)
    writers["quarantine"].write(quarantine_table(lineage.filter(quarantined), q))
    if "contamination" in table.column_names:
        writers["contamination"].write(explode(table, "contamination", CONTAMINATION_SCHEMA))
    if "pii" in table.column_names:
        writers["pii"].write(explode(table, "pii", PII_SCHEMA))
    summary.add(table)
    return lineage


@dataclass
class DecidedPart:
    """What judging one shard's part returns to the driver."""

    shard: str
    summary: dict[str, Any]  # the shard's SummaryBuilder partial: counts and sketches, a few KB
    lineage_rows: int
    record_fences: pa.Table | None = None  # of the records bucket it wrote (RecordsBucket), if any


def decide_task(item: tuple[str, str, int, RecordsBucket | None], config: AuditConfig, work: Location,
                blocklist: Shared[Blocklist], dup_files: list[str], run_id: str | None = None) -> DecidedPart:
    """One measurement part of pass 3 (a Ray task or a call here): (part path, shard, shard index,
    the records bucket it writes or None)."""
    path, shard, index, records = item
    partial, rows, fences = decide_part(config, Location(work.fs, path, path), shard, index, work, blocklist.get(),
                                        dup_files, run_id, records)
    return DecidedPart(shard, partial, rows, fences)


def decide_all(executor: Executor, config: AuditConfig, parts: list[tuple[Location, str, int]], work: Location,
               blocklist: Blocklist, run_id: str | None = None,
               records: dict[str, RecordsBucket] | None = None) -> Iterator[DecidedPart]:
    """Run the decide pass over (part, shard, shard index), a task per part, each writing its
    shard's records bucket where `records` names one; yields each part's result as it finishes."""
    if not parts:
        return
    items = [(p.path, shard, index, (records or {}).get(shard)) for p, shard, index in parts]
    for _, done in executor.map(decide_task, items, config, work, executor.put(blocklist),
                                duplicate_files(work.child("duplicates")), run_id, name="decide_part",
                                num_cpus=config.ray.task_cpus):
        yield done


def fill_empty_datasets(config: AuditConfig, work: Location, run_id: str | None = None) -> None:
    """A dataset no record reached still exists, with its columns (one empty file)."""
    for name, schema in empty_outputs(config).items():
        folder = work.child(name)
        folder.mkdir()
        if not any(p.name.endswith(".parquet") for p in folder.ls()):
            write_parquet(with_run_id(schema, run_id).empty_table(), folder.child("part-empty.parquet"))
