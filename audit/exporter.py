"""`audit export`: the records of one verdict of a finished run, in the input's own form.

One task per shard (audit/job/executor.py: a Ray Core task, or a call here for a small run) reads
the shard's verdicts from `lineage/` (record, verdict, reasons, sha256 of its part), reads the shard
once more (audit/io/shards.py opens and splits it, audit/io/records.py numbers its records as the
run did) and writes the records of the asked verdict to one file under DEST with the shard's
relative name. No record passes through the driver: it receives counts.

- JSON lines out of JSON lines: a kept record is its line's bytes as read; a quarantined record is
  its line with `"audit_reasons": [...]` added before the closing brace (every other byte kept).
- Parquet out of Parquet: the input row's columns (and `audit_reasons`, list<string>).
- Across formats: a JSON object becomes a Parquet row (columns inferred from the shard's first
  batch of records), a Parquet row a JSON object.

A record that is not a JSON object (a line that does not parse, invalid UTF-8, an oversize line)
cannot carry `audit_reasons`: it is not written, and counted per shard as `not_written` (the run
names each in unreadable.jsonl). A kept record that a takedown blocked since the run (the folder's
blocklist/: content hash, URL, source id or passage) is withheld, and counted as `withheld`. So,
per verdict, written + not_written + withheld == summary.json's count, which the export checks.

Resumable: each finished shard leaves `DEST/_done/<index>.json` after its file; a killed export run
again skips them. `DEST/manifest.json` is written last.
"""
from __future__ import annotations

import os
import time
import zlib
from dataclasses import asdict, dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import numpy as np
import orjson
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from audit import __version__
from audit.blocklist import Blocklist
from audit.config import AuditConfig
from audit.io.atomic import AtomicFile
from audit.io.records import BOM, LineDecoder, RecordFields
from audit.io.shards import (JSONL_SUFFIXES, PARQUET_SUFFIXES, DamagedStream, InputError, is_uri, open_stream,
                             split_lines)
from audit.io.storage import Location, location
from audit.job.executor import Executor, Shared, make_executor
from audit.job.parts import PartWriter
from audit.job.run_folder import (MEASUREMENTS, config_fingerprint, ledger_head, require_finished, run_config,
                                  run_manifest)

VERDICTS = ("kept", "quarantined")
FORMATS = ("jsonl", "parquet")
COMPRESSIONS = ("zstd", "gzip", "none")
REASONS_FIELD = "audit_reasons"
DONE = "_done"  # pyarrow datasets skip names starting with "_": DEST reads as a Parquet dataset
SETTINGS = "_export.json"
MANIFEST = "manifest.json"
_JSONL_EXT = {"zstd": ".zst", "gzip": ".gz", "none": ""}
_ROWS = 8192  # records per Parquet batch written; bounds a worker's memory with the block below
_BLOCK = 4 << 20  # bytes of JSON lines gathered before a write


@dataclass(frozen=True)
class ExportOptions:
    """What to export: `verdict`; `format` (None: each shard's own); `compression` (None: a
    JSON-lines shard's own when written as JSON lines, else zstd)."""

    verdict: str = "kept"
    format: str | None = None
    compression: str | None = None

    def __post_init__(self) -> None:
        for name, value, allowed in (("verdict", self.verdict, VERDICTS), ("format", self.format, FORMATS),
                                     ("compression", self.compression, COMPRESSIONS)):
            if value is not None and value not in allowed:
                raise InputError(f"export --{name} {value}: expected one of {', '.join(allowed)}")


@dataclass(frozen=True)
class ShardJob:
    """One shard to export: where it is, what the run recorded of it, and its output file."""

    shard: str
    location: str
    index: int
    size: int | None
    mtime_ns: int | None
    output: str  # relative to DEST
    format: str  # jsonl | parquet (of the output)
    compression: str
    part: str  # its measurement part in measurements/ (passage fingerprints, for the blocklist)


@dataclass
class ShardExport:
    """What exporting one shard wrote (its `_done/` record)."""

    shard: str
    output: str
    records: int  # written
    not_written: int  # records of the verdict that are not JSON objects (unreadable)
    withheld: int  # kept records a takedown blocked since the run
    replaced_reasons: int  # input records that already had an `audit_reasons` field (overwritten)
    bytes_read: int
    bytes_written: int
    seconds: float


@dataclass
class ExportResult:
    """Where the export is and its manifest."""

    out: Path | str
    manifest: dict[str, Any]


def export_run(run: str | os.PathLike, dest: str | os.PathLike, options: ExportOptions = ExportOptions(),
               address: str | None = None, executor: Executor | None = None) -> ExportResult:
    """Export the records of `options.verdict` of the finished run `run` into `dest` (see the
    module's docstring); raises InputError (exit 2) for an unfinished run, a foreign DEST, a shard
    changed since the run. The backend is chosen as for the run (`executor` forces one)."""
    run_loc, dest_loc = location(run, Path.cwd()), location(dest, Path.cwd())
    require_finished(run_loc, "audit export")
    manifest = run_manifest(run_loc)
    config = run_config(run_loc, manifest)
    summary = run_loc.child("summary.json").read_json()
    jobs = plan_jobs(manifest, options)
    _check_apart(dest_loc, run_loc, jobs)
    settings = {"run": run_loc.uri, "run_finished": summary.get("finished"), "verdict": options.verdict,
                "format": options.format, "compression": options.compression}
    _claim_dest(dest_loc, settings, jobs)
    done = _load_done(dest_loc, jobs)
    todo = [j for j in jobs if j.shard not in done]
    if todo:
        blocklist = _load_blocklist(run_loc) if options.verdict == "kept" else Blocklist({})
        # export measures nothing: in one process the 31 MB bench corpus exports in 1.2-1.4 s, so Ray
        # pays from judging's size (JUDGE_ONLY_FACTOR), not from the run's stages' crossover
        ex = executor or make_executor(config, address, sum(j.size or 0 for j in todo), judge_only=True)
        for _, res in ex.map(export_task, todo, run_loc.child("lineage"), run_loc.child(MEASUREMENTS), dest_loc,
                             options.verdict,
                             RecordFields.of(config.input), config.input.max_record_bytes, ex.put(blocklist),
                             name="export_shard", num_cpus=config.ray.task_cpus):
            done[res.shard] = res
    out = _write_manifest(dest_loc, run_loc, manifest, summary, options, jobs, done)
    return ExportResult(Path(dest_loc.path) if dest_loc.is_local else dest_loc.uri, out)


# ---- the plan (driver) ------------------------------------------------------------------------

def _split_suffix(name: str) -> tuple[str, str]:
    """(stem, shard suffix) of a shard file name (.jsonl.gz, .parquet, ...)."""
    low = name.lower()
    suffix = max((s for s in (*JSONL_SUFFIXES, *PARQUET_SUFFIXES, ".jsonl.zstd") if low.endswith(s)), key=len,
                 default="")
    return name[:len(name) - len(suffix)], name[len(name) - len(suffix):]


def _shown_path(shard: str) -> str:
    """A shard's path without scheme and query (bucket and key of a URI)."""
    if is_uri(shard):
        parts = urlsplit(shard)
        return f"{parts.netloc}{parts.path}"
    return os.path.normpath(shard)


def plan_jobs(manifest: dict[str, Any], options: ExportOptions) -> list[ShardJob]:
    """Every shard of the run with its output name: its path relative to the folder that holds all
    the run's shards, the suffix made the output's (`a/x.jsonl.gz` -> `a/x.parquet`)."""
    shards = manifest["shards"]
    paths = [_shown_path(s["shard"]) for s in shards]
    root = os.path.commonpath([os.path.dirname(p) or "." for p in paths]) if paths else ""
    jobs, seen = [], {}
    for s, path in zip(shards, paths):
        stem, suffix = _split_suffix(os.path.relpath(path, root or "."))
        own = "parquet" if suffix.lower() in PARQUET_SUFFIXES else "jsonl"
        fmt = options.format or own
        if fmt == "parquet":
            comp = options.compression or "zstd"
            output = f"{stem}.parquet"
        else:
            low = suffix.lower()
            given = "gzip" if low.endswith(".gz") else "zstd" if low.endswith((".zst", ".zstd")) else "none"
            comp = options.compression or (given if own == "jsonl" else "zstd")
            base = ".ndjson" if low.startswith(".ndjson") else ".jsonl"
            output = f"{stem}{base}{_JSONL_EXT[comp]}"
        if output in seen:
            raise InputError(f"export: shards {seen[output]} and {s['shard']} would both be written to {output}: "
                             "export with --format so that their outputs differ, or one input format at a time")
        seen[output] = s["shard"]
        jobs.append(ShardJob(s["shard"], s["location"], s["index"], s.get("size"), s.get("mtime_ns"), output,
                             fmt, comp, s.get("part") or ""))
    return jobs


def _check_apart(dest: Location, run: Location, jobs: list[ShardJob]) -> None:
    """Refuse a DEST inside the run folder (a run folder holds nothing of anyone else's) or beside
    the input shards (a later run over their folder would read the export as shards)."""
    if not dest.is_local:
        return
    where = Path(dest.path).resolve()
    folders = [(Path(run.path).resolve(), "the run folder")] if run.is_local else []
    folders += [(Path(j.location).resolve().parent, "the folder of input shard " + j.shard) for j in jobs
                if not is_uri(j.location)]
    for folder, what in folders:
        if where.is_relative_to(folder):
            raise InputError(f"export --out {dest}: is inside {what} ({folder}): write the export elsewhere")


def _claim_dest(dest: Location, settings: dict[str, Any], jobs: list[ShardJob]) -> None:
    """Make DEST this export's: an empty (or new) folder, or one holding this very export begun
    or finished before (resumed). Anything else in it is refused, untouched."""
    if dest.is_file():
        raise InputError(f"export --out {dest}: is a file, not a folder")
    ours = {SETTINGS, DONE, MANIFEST} | {j.output.split("/", 1)[0] for j in jobs}
    entries = dest.ls()
    if any(p.name == SETTINGS for p in entries):
        try:
            before = dest.child(SETTINGS).read_json()
        except (OSError, ValueError):
            before = None
        if before != settings:
            raise InputError(f"export --out {dest}: holds another export ({_describe(before)}): use another "
                             "folder, or remove it to export again")
    elif entries:
        what = ", ".join(p.name for p in entries[:3]) + (", ..." if len(entries) > 3 else "")
        raise InputError(f"export --out {dest}: holds {what}, which this export did not write: use an empty "
                         "or new folder")
    foreign = [p.name for p in entries if p.name not in ours and not p.name.startswith(".")]
    if foreign:
        raise InputError(f"export --out {dest}: holds {', '.join(foreign[:3])}, which this export did not write: "
                         "use an empty or new folder")
    for f in dest.walk():  # a killed export's temporary files (audit.io.atomic names them .tmp.*)
        if f.name.startswith(".tmp."):
            f.delete()
    dest.mkdir()
    dest.child(SETTINGS).write_json(settings)


def _describe(settings: Any) -> str:
    if not isinstance(settings, dict):
        return "unreadable settings"
    return (f"run {settings.get('run')} finished {settings.get('run_finished')}, verdict {settings.get('verdict')}, "
            f"format {settings.get('format') or 'as input'}, compression {settings.get('compression') or 'default'}")


def _load_done(dest: Location, jobs: list[ShardJob]) -> dict[str, ShardExport]:
    """The shards a previous attempt finished: a done record naming its output, which is there."""
    by_index = {j.index: j for j in jobs}
    done: dict[str, ShardExport] = {}
    for rec in dest.child(DONE).ls():
        try:
            data = rec.read_json()
            job = by_index[int(rec.name.split(".")[0])]
        except (OSError, ValueError, KeyError):
            continue  # a damaged or stray record: its shard is exported again
        if (data.get("shard") == job.shard and data.get("output") == job.output
                and dest.child(*job.output.split("/")).is_file()):
            done[job.shard] = ShardExport(**data)
    return done


def _load_blocklist(run: Location) -> Blocklist:
    """The run folder's blocklist now (a takedown executed after the run adds to it)."""
    from audit.job.plan import load_blocklist as load

    return load(run)


def _write_manifest(dest: Location, run: Location, manifest: dict[str, Any], summary: dict[str, Any],
                    options: ExportOptions, jobs: list[ShardJob], done: dict[str, ShardExport]) -> dict[str, Any]:
    """DEST/manifest.json, last: counts per shard and in all, checked against summary.json."""
    shards = [done[j.shard] for j in jobs]
    total = {k: sum(getattr(s, k) for s in shards) for k in ("records", "not_written", "withheld",
                                                                 "replaced_reasons", "bytes_read", "bytes_written")}
    expected = summary.get(options.verdict)
    accounted = total["records"] + total["not_written"] + total["withheld"]
    if expected is not None and accounted != expected:
        raise InputError(f"export: {accounted:,} {options.verdict} records found in the shards and lineage/ of "
                         f"{run}, but summary.json counts {expected:,}: the run folder was changed since it "
                         "finished; run `audit run` again")
    out = {
        "version": __version__,
        "exported": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "run": run.uri,
        "run_finished": summary.get("finished"),
        "verdict": options.verdict,
        "format": options.format or "as input",
        "compression": options.compression or "default",
        "records": total["records"],
        "counts": {"summary": {v: summary.get(v) for v in VERDICTS}, "written": total["records"],
                   "not_written": total["not_written"], "withheld": total["withheld"]},
        "accounting": (f"written + not_written + withheld == summary.json's {options.verdict} "
                       f"({accounted} == {expected}); not_written: unreadable records (not a JSON object: bad JSON "
                       "or UTF-8, an oversize line), named in the run's unreadable.jsonl; withheld: kept records "
                       "a takedown blocked after the run (content hash, URL, source id or passage)"),
        "replaced_reasons": total["replaced_reasons"],
        "bytes_read": total["bytes_read"],
        "bytes_written": total["bytes_written"],
        "ledger_head": ledger_head(run),
        "config_fingerprint": config_fingerprint(manifest),
        "measure_fingerprint": next((s.get("fingerprint") for s in manifest["shards"]), None),
        "shards": [asdict(s) for s in shards],
    }
    dest.child(MANIFEST).write_json(out)
    return out


# ---- one shard (a task) -----------------------------------------------------------------------

def export_task(job: ShardJob, lineage: Location, measurements: Location, dest: Location, verdict: str,
                fields: RecordFields, max_record_bytes: int, blocklist: Shared[Blocklist]) -> ShardExport:
    """Export one shard (a Ray task or a call here); writes its file, then its done record."""
    t0 = time.perf_counter()
    _check_unchanged(job)
    part = lineage.child(f"part-{job.index:06d}.parquet")  # the decide pass's part of this shard
    wanted, reasons, lineage_rows, withheld = _verdicts(part if part.is_file() else None, job.shard, verdict,
                                                        blocklist.get(), measurements.child(job.part))
    target = dest.child(*job.output.split("/"))
    sink = _JsonlSink(target, job.compression) if job.format == "jsonl" else _ParquetSink(target, job.compression)
    stats = {"records": 0, "not_written": 0, "replaced": 0, "read": 0, "seen": 0}
    try:
        if lineage_rows:
            name = urlsplit(job.location).path if is_uri(job.location) else job.location
            reader = _parquet_records if name.lower().endswith(PARQUET_SUFFIXES) else _jsonl_records
            reader(job, wanted, reasons, fields, max_record_bytes, sink, stats)
        if stats["seen"] != lineage_rows:
            raise InputError(f"shard {job.shard}: {stats['seen']:,} records read, lineage/ holds {lineage_rows:,}: "
                             "the shard changed since the run; run `audit run` again before exporting")
        written = sink.close()
    except BaseException:
        sink.abort()
        raise
    res = ShardExport(job.shard, job.output, stats["records"], stats["not_written"], withheld, stats["replaced"],
                      stats["read"], written, round(time.perf_counter() - t0, 3))
    dest.child(DONE).mkdir()
    dest.child(DONE, f"{job.index:06d}.json").write_json(asdict(res))
    return res


def _check_unchanged(job: ShardJob) -> None:
    """Refuse a shard whose size or modification time differ from what the run recorded."""
    loc = location(job.location)
    try:
        size, mtime = loc.size(), loc.mtime_ns()
    except OSError as e:
        raise InputError(f"shard {job.shard}: cannot read {job.location} ({e}): export needs the run's input "
                         "shards where the run read them") from None
    if (job.size is not None and size != job.size) or (job.mtime_ns is not None and mtime != job.mtime_ns):
        raise InputError(f"shard {job.shard}: changed since the run (size or modification time differ from "
                         "run.json): run `audit run` again before exporting")


def _verdicts(part: Location | None, shard: str, verdict: str, blocklist: Blocklist,
              measurement: Location) -> tuple[np.ndarray, dict[int, list[str]] | None, int, int]:
    """From the shard's lineage part: a mask over record numbers of the records to write, the
    reasons of each (quarantined; None when exporting kept records), the shard's lineage rows and
    the kept records withheld (blocked since the run by any key: content hash, URL, source id, or
    a passage, matched against the fingerprints in the shard's `measurement` part)."""
    if part is None:
        return np.zeros(0, dtype=bool), None if verdict == "kept" else {}, 0, 0
    with part.open_input() as f:
        names = pq.ParquetFile(f).schema_arrow.names
        f.seek(0)
        t = pq.read_table(f, columns=[c for c in ("shard", "record", "verdict", "reasons", "sha256", "url",
                                                  "source_id") if c in names], filters=[("shard", "=", shard)])
    rows = t.num_rows
    t = t.filter(pc.equal(t.column("verdict"), verdict)).sort_by("record")
    records = t.column("record").to_numpy(zero_copy_only=False)
    withheld = 0
    if verdict == "kept" and len(blocklist) and len(records):
        prints = _passage_prints(measurement, t.column("record")) if blocklist.passages else None
        keys = {c: t.column(c).to_pylist() if c in t.column_names else None for c in ("url", "source_id")}
        blocked = np.array([b is not None for b in blocklist.match(t.column("sha256").to_pylist(), keys["url"],
                                                                   keys["source_id"], prints)], dtype=bool)
        withheld = int(blocked.sum())
        records = records[~blocked]
    mask = np.zeros(rows, dtype=bool)
    mask[records] = True
    reasons = (dict(zip(t.column("record").to_pylist(), t.column("reasons").to_pylist()))
               if verdict == "quarantined" else None)
    return mask, reasons, rows, withheld


def _passage_prints(measurement: Location, records: pa.ChunkedArray) -> pa.Array | None:
    """The passage fingerprints of the given records (sorted), from the shard's measurement part
    (None when the run kept none: lookup.passages off)."""
    if not measurement.is_file():
        return None
    with measurement.open_input() as f:
        pf = pq.ParquetFile(f)
        if "passage_hashes" not in pf.schema_arrow.names:
            return None
        m = pf.read(columns=["record", "passage_hashes"])
    m = m.filter(pc.is_in(m.column("record"), value_set=records.combine_chunks())).sort_by("record")
    return m.column("passage_hashes").combine_chunks()


def _jsonl_records(job: ShardJob, wanted: np.ndarray, reasons: dict[int, list[str]] | None, fields: RecordFields,
                   max_record_bytes: int, sink: "_JsonlSink | _ParquetSink", stats: dict[str, int]) -> None:
    """The wanted records of a JSON-lines shard, numbered as the run numbered them."""
    decoder = LineDecoder(fields, max_record_bytes)
    n = len(wanted)
    try:
        for offset, line, length in split_lines(open_stream(job.location), max_record_bytes):
            stats["read"] += length + 1
            decoded = decoder.feed(offset, line, length)
            if decoded is None:
                continue
            rec = decoder.records - 1
            if rec >= n or not wanted[rec]:
                continue
            obj = decoded.obj
            if line is None or not isinstance(obj, dict):
                stats["not_written"] += 1
                continue
            rs = reasons.get(rec) if reasons is not None else None
            if rs is not None and REASONS_FIELD in obj:
                stats["replaced"] += 1
            if isinstance(sink, _JsonlSink):
                if offset == 0 and line.startswith(BOM):  # the stream's byte-order mark, not the record's
                    line = line[3:]
                sink.line(line if rs is None else _with_reasons(line, obj, rs))
            else:
                sink.row(obj if rs is None else {**obj, REASONS_FIELD: rs})
            stats["records"] += 1
    except DamagedStream:
        pass  # the run lost the rest of the shard too: lineage/ ends where the stream broke
    stats["seen"] = decoder.records


def _with_reasons(line: bytes, obj: dict[str, Any], reasons: list[str]) -> bytes:
    """The line with `"audit_reasons": [...]` as its last field; every byte before it kept (an
    input that has the field already is written again with ours in its place)."""
    if REASONS_FIELD in obj:
        return orjson.dumps({**obj, REASONS_FIELD: reasons})
    body = line.rstrip()[:-1].rstrip()  # a JSON object's line ends with its closing brace
    return body + (b"," if obj else b"") + b'"' + REASONS_FIELD.encode() + b'":' + orjson.dumps(reasons) + b"}"


def _parquet_records(job: ShardJob, wanted: np.ndarray, reasons: dict[int, list[str]] | None, fields: RecordFields,
                     max_record_bytes: int, sink: "_JsonlSink | _ParquetSink", stats: dict[str, int]) -> None:
    """The wanted rows of a Parquet shard (a row's number is its record number), column for column."""
    loc = location(job.location)
    stats["read"] = loc.size()
    with loc.open_input() as f:
        pf = pq.ParquetFile(f)
        first = 0
        for batch in pf.iter_batches(batch_size=65_536):
            n = batch.num_rows
            take = np.flatnonzero(wanted[first:first + n])
            if len(take):
                rows = pa.Table.from_batches([batch]).take(pa.array(take))
                if reasons is not None:
                    rs = [reasons[first + int(i)] for i in take]
                    if REASONS_FIELD in rows.column_names:
                        stats["replaced"] += len(rs)
                        rows = rows.drop_columns([REASONS_FIELD])
                    rows = rows.append_column(REASONS_FIELD, pa.array(rs, pa.list_(pa.string())))
                stats["records"] += sink.table(rows, stats)
            first += n
        if isinstance(sink, _ParquetSink):
            schema = pf.schema_arrow
            if reasons is not None:
                if REASONS_FIELD in schema.names:
                    schema = schema.remove(schema.get_field_index(REASONS_FIELD))
                schema = schema.append(pa.field(REASONS_FIELD, pa.list_(pa.string())))
            sink.empty_schema = schema
    stats["seen"] = first


class _JsonlSink:
    """JSON lines into one file (zstd, gzip or plain), written whole or not at all."""

    def __init__(self, target: Location, compression: str) -> None:
        self.target = target
        self.file = AtomicFile(target, keep_suffix=True)
        self.raw = self.file.open()
        # gzip at zlib's level 6 (gzip(1)'s default): Arrow's gzip stream compresses at level 9, twice as slow
        self.gzip = zlib.compressobj(6, zlib.DEFLATED, 31) if compression == "gzip" else None
        self.stream = pa.CompressedOutputStream(self.raw, "zstd") if compression == "zstd" else self.raw
        self.parts: list[bytes] = []
        self.size = 0

    def line(self, data: bytes) -> None:
        self.parts.append(data)
        self.parts.append(b"\n")
        self.size += len(data) + 1
        if self.size >= _BLOCK:
            self._flush()

    def row(self, obj: dict[str, Any]) -> None:
        self.line(orjson.dumps(obj))

    def table(self, rows: pa.Table, stats: dict[str, int]) -> int:
        """Parquet rows as JSON objects; a row whose values have no JSON form is not written."""
        written = 0
        for obj in rows.to_pylist():
            try:
                self.line(orjson.dumps(obj, default=_json_default))
                written += 1
            except TypeError:
                stats["not_written"] += 1
        return written

    def _flush(self) -> None:
        if self.parts:
            data = b"".join(self.parts)
            self.stream.write(self.gzip.compress(data) if self.gzip is not None else data)
            self.parts, self.size = [], 0

    def close(self) -> int:
        self._flush()
        if self.gzip is not None:
            self.stream.write(self.gzip.flush())
        self.stream.close()
        self.file.commit()
        return self.target.size()

    def abort(self) -> None:
        self.file.abort()


def _json_default(value: Any) -> Any:
    """Parquet values orjson has no form for: bytes that are UTF-8 text, decimals as text."""
    if isinstance(value, bytes):
        return value.decode("utf-8")  # not UTF-8: orjson raises its JSONEncodeError (a TypeError)
    from decimal import Decimal

    if isinstance(value, Decimal):
        return str(value)
    raise TypeError(f"no JSON form for {type(value).__name__}")


class _ParquetSink:
    """Rows into one Parquet file, written whole or not at all (audit.job.parts.PartWriter)."""

    def __init__(self, target: Location, compression: str) -> None:
        self.part = PartWriter(target, "NONE" if compression == "none" else compression)
        self.rows: list[dict[str, Any]] = []
        self.target = target
        self.empty_schema = pa.schema([])  # the columns of a file with no row (a Parquet shard's own)

    def row(self, obj: dict[str, Any]) -> None:
        self.rows.append(obj)
        if len(self.rows) >= _ROWS:
            self._flush_rows()

    def _flush_rows(self) -> None:
        if not self.rows:
            return
        rows, self.rows = self.rows, []
        schema = self.part.schema
        if schema is None:
            self.part.write(pa.Table.from_pylist(rows))
            return
        extra = {k for r in rows for k in r} - set(schema.names)
        if extra:
            raise InputError(f"{self.target}: records have field(s) {', '.join(sorted(extra)[:3])} that the shard's "
                             "first records had not: export this shard with --format jsonl")
        try:
            self.part.write(pa.Table.from_pylist(rows, schema=schema))
        except (pa.ArrowInvalid, pa.ArrowTypeError) as e:
            raise InputError(f"{self.target}: a field's type differs from the shard's first records ({e}): export "
                             "this shard with --format jsonl") from None

    def table(self, rows: pa.Table, stats: dict[str, int]) -> int:
        self.part.write(rows)
        return rows.num_rows

    def close(self) -> int:
        self._flush_rows()
        self.part.close(empty=self.empty_schema)  # no record of the verdict: an empty file with the columns
        return self.target.size()

    def abort(self) -> None:
        self.part.abort()
