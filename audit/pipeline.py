"""The audit job: read -> tag -> decide -> write, with Ray Data doing the reading and measuring.

Plan:
1. Ray Data runs a task per shard that streams the shard's records in blocks through a `Tagger`
   holding every stage with its heavy state (models, eval index), built once per worker process
   and reused by its later tasks. A Tagger returns the block measured and without its text.
2. The driver streams the measured blocks (small: no text) into a staging Parquet dataset,
   printing progress and watching the contamination canary.
3. Global passes over staging key columns: exact duplicates, near-duplicate clusters.
4. Decide and write: every record gets its verdict; lineage, quarantine, duplicates,
   contamination, pii, unreadable.jsonl, summary.json and report.html are written into a fresh
   folder that then replaces the previous run whole (blocklist/, takedowns/ and ledger.jsonl stay).
"""
from __future__ import annotations

import json
import os
import shutil
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.dataset as pads

from audit import __version__
from audit.config import AuditConfig, ConfigError
from audit.decide import Decider
from audit.io.atomic import DatasetWriter, write_json_atomic
from audit.io.shards import InputError, Shard, discover_shards, read_shard
from audit.lookup_index import build_lookup_indexes
from audit.progress import Progress
from audit.records import (CONTAMINATION_SCHEMA, DUPLICATES_SCHEMA, INTERNAL_COLUMNS, LINEAGE_COLUMNS, PII_SCHEMA,
                           RECORD_SCHEMA, WHERE_COLUMNS)
from audit.report import write_report
from audit.job.ray_session import start_ray, task_slots
from audit.tagger import _TIMING_PREFIX, Tagger, _with_time, stage_classes
from audit.summary import SummaryBuilder
from audit.blocklist import Blocklist

# What a re-run into the same output folder keeps; everything else is replaced whole.
PRESERVED = ("blocklist", "takedowns", "ledger.jsonl", "ledger.jsonl.lock")
DATASETS = ("lineage", "quarantine", "duplicates", "contamination", "pii")
# What a run writes: a folder holding anything else is not a run folder, and is not touched.
RUN_OUTPUTS = (*DATASETS, "index", "unreadable.jsonl", "run.json", "summary.json", "report.html")


class CanaryTripped(RuntimeError):
    """fail_on_contamination: a record matched an eval item."""

    def __init__(self, match: dict) -> None:
        self.match = match
        super().__init__(
            f"contamination canary: record {match.get('record')} of shard {match.get('shard')} "
            f"(doc_id {match.get('doc_id')}) contains eval item {match.get('eval_id')} of "
            f"eval set '{match.get('eval_set')}' (overlap {match.get('overlap', 0):.2f})")


@dataclass
class RunResult:
    """Where the run's outputs are and its summary."""

    out: Path
    summary: dict[str, Any] = field(default_factory=dict)


# Per worker process: the Tagger of the run in progress, built on the worker's first block of
# that run. Ray reuses worker processes across tasks, so models and indexes load once per
# worker, not once per block; tasks (unlike an actor pool) reuse Ray's warm workers.
_TAGGERS: dict[str, Tagger] = {}


def _read_and_tag(items: pa.Table, run_id: str, config: AuditConfig, shared_ref: list[Any]) -> Iterator[pa.Table]:
    """Ray Data UDF: shard descriptions in, measured record blocks (no text) out."""
    tagger = _TAGGERS.get(run_id)
    if tagger is None:
        import ray

        _TAGGERS.clear()
        tagger = _TAGGERS[run_id] = Tagger(config, ray.get(shared_ref[0]))
    for row in items.to_pylist():
        t0 = time.perf_counter()
        for block in read_shard(Shard(row["path"], row["location"], row["index"]), config.input):
            yield tagger(_with_time(block, "read", t0))
            t0 = time.perf_counter()


def _shared_state(config: AuditConfig) -> dict[str, Any]:
    """Heavy state built once on the driver and shipped to every Tagger: the eval-set index and
    the tokenizer. A bad eval set or tokenizer file is a config error here, before any work."""
    shared: dict[str, Any] = {}
    if config.stats.tokenizer:
        from audit.stages.tokens import load_token_counter

        shared["tokens"] = {"counter": load_token_counter(config)}
    if config.eval_sets:
        from audit.stages.contamination import ContaminationIndex

        shared["contamination"] = {"index": ContaminationIndex.build(config)}
    return shared


def _tagged_blocks(config: AuditConfig, shards: list[Shard], shared: dict[str, Any]) -> Iterator[pa.Table]:
    """Run read + tag on Ray Data, a task per shard; yields measured blocks (no text) as they finish."""
    import ray

    items = [{"path": s.path, "location": s.location, "index": s.index} for s in shards]
    ds = ray.data.from_items(items, override_num_blocks=len(items))
    # The shared state goes to the object store once; a list keeps Ray from resolving the ref
    # for every task, so only a worker's first task of the run fetches it.
    ds = ds.map_batches(_read_and_tag, batch_size=1, batch_format="pyarrow", num_cpus=config.ray.task_cpus,
                        concurrency=min(task_slots(config), len(items)),
                        fn_kwargs={"run_id": uuid.uuid4().hex, "config": config, "shared_ref": [ray.put(shared)]})
    yield from ds.iter_batches(batch_size=None, batch_format="pyarrow", prefetch_batches=1)


def run_audit(config: AuditConfig, out: Path | None = None, address: str | None = None,
              progress: bool = True) -> RunResult:
    """Run the whole job; returns where the outputs are and the summary.

    Raises audit.io.shards.InputError for unusable input paths and CanaryTripped when
    fail_on_contamination is set and a match is found (the previous outputs are left untouched).
    """
    if not config.input.paths:
        raise ConfigError("input.paths: name at least one shard file, folder or glob for `audit run` "
                          "(see configs/default.yaml)")
    out = Path(out) if out else config.resolve(config.output)
    started = datetime.now(timezone.utc)
    shards, problems = discover_shards(config.input.paths, config.base_dir)
    _check_output_folder(out, shards)
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise InputError(f"output {out}: cannot create the folder: {e.strerror or e}") from None
    _clean_leftovers(out)
    work = out / f".tmp-{uuid.uuid4().hex[:12]}"
    work.mkdir()
    try:
        summary = _run(config, out, work, shards, problems, address, progress, started)
        _replace_run(out, work)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return RunResult(out=out, summary=summary)


def _run(config: AuditConfig, out: Path, work: Path, shards: list[Shard], problems: list[dict],
         address: str | None, progress: bool, started: datetime) -> dict[str, Any]:
    classes = stage_classes(config)
    blocklist = Blocklist.load(out)
    shared = _shared_state(config)  # eval sets are read here: a bad one stops the run before Ray starts
    ray_seconds = start_ray(config, address) if shards else 0.0
    t0 = time.perf_counter()
    staging = work / ".staging"
    timing: dict[str, float] = {}
    writer: DatasetWriter | None = None
    meter = Progress(enabled=progress, total_shards=len(shards))
    canary = config.fail_on_contamination and bool(config.eval_sets)
    if canary:
        from audit.stages.contamination import first_match
    if shards:
        for block in _tagged_blocks(config, shards, shared):
            match = first_match(block) if canary else None
            if match:
                raise CanaryTripped(match)
            for name in [c for c in block.column_names if c.startswith(_TIMING_PREFIX)]:
                timing[name[len(_TIMING_PREFIX):]] = timing.get(name[len(_TIMING_PREFIX):], 0.0) + float(
                    pc.sum(block.column(name)).as_py() or 0.0)
                block = block.drop_columns([name])
            if writer is None:
                writer = DatasetWriter(staging, block.schema)
            writer.write(block)
            meter.update(block.num_rows, int(pc.sum(block.column("bytes")).as_py() or 0))
    if writer is not None:
        writer.close()
    scan_seconds = time.perf_counter() - t0

    t1 = time.perf_counter()
    duplicates, dup_table = _global_duplicates(config, staging if writer else None)
    timing["dedup_global"] = time.perf_counter() - t1

    t2 = time.perf_counter()
    decider = Decider(config, classes, duplicates, blocklist)
    summary = SummaryBuilder(config)
    for p in problems:
        summary.add_unreadable(p)
    writers = _OutputWriters(work)
    writers.duplicates.write(dup_table)
    if writer is not None:
        for batch in pads.dataset(staging, format="parquet").to_batches(batch_size=65_536):
            table = decider(pa.Table.from_batches([batch]))
            _write_decided(table, writers, summary)
    # A run with no document still has its lineage/ and quarantine/ datasets, with their columns.
    empty = decider(RECORD_SCHEMA.empty_table().drop_columns(["text"]))
    lineage = _lineage_table(empty)
    writers.get("lineage", lineage.schema)
    writers.get("quarantine", lineage.select(LINEAGE_COLUMNS).append_column("details", empty.column("details")).schema)
    writers.close()
    timing["decide_write"] = time.perf_counter() - t2
    if writer is not None:
        t3 = time.perf_counter()
        # lineage keys (and passage fingerprints), so lookups read a small part of the run
        build_lookup_indexes(work, passages=staging if config.lookup.passages else None)
        timing["lookup_index"] = time.perf_counter() - t3
    shutil.rmtree(staging, ignore_errors=True)

    seconds = time.perf_counter() - t0
    result = summary.finish(
        seconds=seconds, scan_seconds=scan_seconds, ray_start_seconds=ray_seconds, stages=timing,
        shards=len(shards), duplicates=dup_table, started=started, version=__version__)
    (work / "unreadable.jsonl").write_text(
        "".join(json.dumps(u, ensure_ascii=False) + "\n" for u in summary.unreadable), encoding="utf-8")
    _write_run_manifest(work, config, shards, started)
    write_json_atomic(work / "summary.json", result)
    write_report(work, result)
    meter.close(result)
    return result


def _explode(table: pa.Table, column: str, schema: pa.Schema) -> pa.Table:
    """One row per element of a list<struct> column, with the record's location columns."""
    col = table.column(column).combine_chunks()
    parents = pc.list_parent_indices(col)
    items = pc.list_flatten(col)
    cols = {name: table.column(name).take(parents) for name, _ in WHERE_COLUMNS}
    for f in schema:
        if f.name not in cols:
            cols[f.name] = items.field(f.name) if f.name in [x.name for x in items.type] else pa.nulls(len(items), f.type)
    return pa.table(cols).cast(schema)


class _OutputWriters:
    """The run's Parquet datasets, created on the first table each receives."""

    def __init__(self, work: Path) -> None:
        self.work = work
        self._open: dict[str, DatasetWriter] = {}
        self.duplicates = DatasetWriter(work / "duplicates", DUPLICATES_SCHEMA)
        self._open["duplicates"] = self.duplicates
        # Datasets that exist in every run, empty when nothing was found or the stage is off.
        self.get("contamination", CONTAMINATION_SCHEMA)
        self.get("pii", PII_SCHEMA)

    def get(self, name: str, schema: pa.Schema) -> DatasetWriter:
        if name not in self._open:
            self._open[name] = DatasetWriter(self.work / name, schema)
        return self._open[name]

    def close(self) -> None:
        for w in self._open.values():
            w.close()


def _lineage_table(table: pa.Table) -> pa.Table:
    """Lineage columns of CONTRACT.md first, then every flat measurement column."""
    n = table.num_rows
    cols: dict[str, pa.Array] = {}
    for name in LINEAGE_COLUMNS:
        if name in table.column_names:
            cols[name] = table.column(name)
        elif name == "language":
            cols[name] = pa.nulls(n, pa.string())
        elif name == "language_score":
            cols[name] = pa.nulls(n, pa.float32())
    skip = set(LINEAGE_COLUMNS) | set(INTERNAL_COLUMNS) | {"details"}
    for name in table.column_names:
        t = table.schema.field(name).type
        # flat measurements only: keys, band keys, fingerprints and findings have their own outputs
        if name not in skip and not (pa.types.is_list(t) or pa.types.is_struct(t) or pa.types.is_binary(t)
                                     or pa.types.is_fixed_size_binary(t) or pa.types.is_large_list(t)):
            cols[name] = table.column(name)
    return pa.table(cols)


def _write_decided(table: pa.Table, writers: _OutputWriters, summary: SummaryBuilder) -> None:
    """Split a decided batch into the run's datasets and feed the summary."""
    file_level = pc.is_null(table.column("record"))
    if pc.any(file_level).as_py():
        for row in table.filter(file_level).select(["shard", "line", "byte_offset", "error"]).to_pylist():
            summary.add_unreadable({"shard": row["shard"], "line": row["line"], "byte_offset": row["byte_offset"],
                                    "error": row["error"]})
        table = table.filter(pc.invert(file_level))
    if table.num_rows == 0:
        return
    for row in table.filter(pc.is_valid(table.column("error"))).select(
            ["shard", "record", "line", "byte_offset", "doc_id", "error"]).to_pylist():
        summary.add_unreadable(row)
    lineage = _lineage_table(table)
    writers.get("lineage", lineage.schema).write(lineage)
    quarantined = pc.equal(table.column("verdict"), "quarantined")
    q = table.filter(quarantined)
    qt = lineage.filter(quarantined).select(LINEAGE_COLUMNS).append_column("details", q.column("details"))
    writers.get("quarantine", qt.schema).write(qt)
    if "contamination" in table.column_names:
        writers.get("contamination", CONTAMINATION_SCHEMA).write(_explode(table, "contamination", CONTAMINATION_SCHEMA))
    if "pii" in table.column_names:
        writers.get("pii", PII_SCHEMA).write(_explode(table, "pii", PII_SCHEMA))
    summary.add(table)




def _global_duplicates(config: AuditConfig, staging: Path | None) -> tuple[dict[str, tuple[str, str]], pa.Table]:
    """Exact duplicates, then near-duplicate clusters of the rest, over the whole run.

    Reads only key columns of the staging data (no text). Returns {doc_id: (kind, kept_doc_id)}
    and the duplicates/ table.
    """
    from audit.stages.exact_dup import exact_duplicates, global_order
    from audit.stages.near_dup import near_duplicate_clusters

    if staging is None or not (config.dedup.exact or config.dedup.near):
        return {}, DUPLICATES_SCHEMA.empty_table()
    cols = ["doc_id", "source_id", "shard_index", "record"]
    cols += ["exact_key"] if config.dedup.exact else []
    cols += ["minhash_bands"] if config.dedup.near else []
    keys = pads.dataset(staging, format="parquet").to_table(columns=cols)
    keys = keys.filter(pc.is_valid(keys.column("record")))
    parts: list[pa.Table] = []
    exact_ids = pa.array([], pa.string())
    if config.dedup.exact:
        ex = exact_duplicates(keys.select(["doc_id", "shard_index", "record", "exact_key"]))
        exact_ids = ex.column("doc_id")
        parts.append(ex.append_column("similarity", pa.array([1.0] * ex.num_rows, pa.float64())))
    if config.dedup.near:
        rest = keys.filter(pc.invert(pc.is_in(keys.column("doc_id"), value_set=exact_ids)))
        near = near_duplicate_clusters(pa.table({"doc_id": rest.column("doc_id"),
                                                 "order": pa.array(global_order(rest)),
                                                 "minhash_bands": rest.column("minhash_bands")}), config,
                                      use_ray=rest.num_rows >= config.dedup.ray_min_records)
        parts.append(near.append_column("kind", pa.array(["near"] * near.num_rows, pa.string())))
    dups = pa.concat_tables([p.select([c for c in DUPLICATES_SCHEMA.names if c != "source_id"])
                             .cast(pa.schema([f for f in DUPLICATES_SCHEMA if f.name != "source_id"])) for p in parts])
    if dups.num_rows == 0:
        return {}, DUPLICATES_SCHEMA.empty_table()
    dups = dups.join(keys.select(["doc_id", "source_id"]), "doc_id").select(DUPLICATES_SCHEMA.names)
    mapping = {d: (k, kept) for d, k, kept in zip(dups.column("doc_id").to_pylist(), dups.column("kind").to_pylist(),
                                                   dups.column("kept_doc_id").to_pylist())}
    return mapping, dups


def _write_run_manifest(work: Path, config: AuditConfig, shards: list[Shard], started: datetime) -> None:
    """run.json: what was read and how, so lookup and takedown can find the shards again."""
    manifest = {
        "version": __version__,
        "started": started.isoformat(),
        "base_dir": str(config.base_dir.resolve()),
        "config": json.loads(config.model_dump_json()),
        "shards": [{"shard": s.path, "location": str(Path(s.location).resolve()), "index": s.index,
                    "size": _size(s.location)} for s in shards],
    }
    write_json_atomic(work / "run.json", manifest)


def _size(path: str) -> int | None:
    try:
        return os.path.getsize(path)
    except OSError:
        return None


def _check_output_folder(out: Path, shards: list[Shard]) -> None:
    """Refuse an output folder that is not (yet) a run folder: a re-run replaces what a run
    wrote, and nothing of a user's own may stand in the way (or be read as a shard)."""
    resolved = out.resolve()
    inside = [s.path for s in shards if Path(s.location).resolve().is_relative_to(resolved)]
    if inside:
        raise InputError(f"output {out}: holds input shards ({inside[0]}, ...): write the run to another folder")
    if out.exists() and not out.is_dir():
        raise InputError(f"output {out}: is a file, not a folder")
    if out.is_dir():
        known = set(RUN_OUTPUTS) | set(PRESERVED)
        foreign = sorted(p.name for p in out.iterdir() if p.name not in known and not p.name.startswith((".tmp-", ".old-")))
        if foreign:
            raise InputError(f"output {out}: holds {', '.join(foreign[:3])}{', ...' if len(foreign) > 3 else ''}, "
                             "which no audit run wrote: use an empty folder or an earlier run's folder")


def _clean_leftovers(out: Path) -> None:
    """Remove the temporary folders of runs that were killed before they finished."""
    for p in out.glob(".tmp-*"):
        shutil.rmtree(p, ignore_errors=True)
    for p in out.glob(".old-*"):
        shutil.rmtree(p, ignore_errors=True)


def _replace_run(out: Path, work: Path) -> None:
    """Swap the finished run into `out`: old outputs out of the way first, summary.json last.

    A run killed during the swap leaves no summary.json, so a half-replaced folder never looks
    like a finished run; the next run clears the leftovers.
    """
    old = out / f".old-{work.name[5:]}"
    old.mkdir()
    for p in sorted(out.iterdir(), key=lambda p: p.name != "summary.json"):  # the old summary goes first
        if p.name in RUN_OUTPUTS:
            os.replace(p, old / p.name)
    for p in sorted(work.iterdir(), key=lambda p: p.name == "summary.json"):
        if not p.name.startswith("."):
            os.replace(p, out / p.name)
    shutil.rmtree(old, ignore_errors=True)
