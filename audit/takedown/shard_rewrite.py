"""Physical removal: rewrite a shard without some of its records, atomically, every other record intact.

JSON lines (plain, gzip, zstd) lose exactly the lines of the removed records; every other line,
blank lines included, keeps its bytes and order, and compressed shards are recompressed. Parquet
shards are rewritten without the rows, same schema (and metadata), same compression. The new
file is written beside the old one and compared with it record by record (what is kept must be
identical, what is removed must be gone) BEFORE it atomically replaces the old file; a mismatch
leaves the original untouched. Before/after SHA-256 of the file bytes are recorded. Each removed
record's text is checked against the SHA-256 lineage recorded for it in the same pass that
writes the new file: a shard that changed since the run is refused, never half-edited.
"""
from __future__ import annotations

import gzip
import hashlib
import sys
from collections.abc import Iterator
from contextlib import AbstractContextManager
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import IO, Any, cast

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import zstandard

from audit.io.atomic import atomic_path
from audit.io.records import RecordFields, decode_line
from audit.io.shards import PARQUET_SUFFIXES, open_stream, split_lines
from audit.records import text_sha256
from audit.takedown.ledger import sha256_file


class RewriteError(RuntimeError):
    """The rewritten shard did not check out; the original is left in place."""


_JSONL_COMPARED = ("new file re-read: its records are the kept lines, byte for byte and in order "
                   "(SHA-256 over them equal), the removed ones absent")
_PARQUET_COMPARED = ("new file re-read: row count = before - removed, every kept row equal to the "
                     "original's, in order")


@dataclass
class ShardRewrite:
    """What a physical removal did to one shard file."""

    shard: str
    location: str
    format: str
    removed_records: list[int]
    records_before: int
    records_after: int
    bytes_before: int
    bytes_after: int
    sha256_before: str
    sha256_after: str
    removed_text_checked: int       # removed records whose text matched lineage's SHA-256 before the rewrite
    compared: str                   # how the new file was checked against the old before the replace
    content_sha256_kept: str | None  # JSON lines: SHA-256 over the kept lines (each + newline), in order

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def _replacement(location: str) -> AbstractContextManager[Path]:
    """A temporary file beside `location`, same suffix (so it reads as the same format); on success
    it takes the original's mode and atomically replaces it (audit.io.atomic)."""
    return atomic_path(Path(location), keep_suffix=True, mode_of=Path(location))


def jsonl_records(location: str, max_record_bytes: int | None = None) -> Iterator[tuple[int | None, bytes, bool]]:
    """(record number or None for a blank line, raw line, whether a newline followed) for every
    line, decompressed, split and numbered by the job's reader (audit.io.shards.split_lines): every
    non-blank line is a record, unparsable ones and ones over `max_record_bytes` too."""
    total = 0

    def counted() -> Iterator[bytes]:
        nonlocal total
        for chunk in open_stream(location):
            total += len(chunk)
            yield chunk

    record = 0
    held: tuple[int | None, bytes, int, int] | None = None  # one line behind: is it the file's last?
    for offset, line, length in split_lines(counted(), sys.maxsize):
        if held is not None:
            yield held[0], held[1], True
        line = cast(bytes, line)  # no size limit: split_lines keeps every line's bytes
        blank = not line.strip() and (max_record_bytes is None or length <= max_record_bytes)
        held = (None if blank else record, line, offset, length)
        record += not blank
    if held is not None:
        yield held[0], held[1], held[2] + held[3] < total


def _text_sha256(obj: object, field: str) -> str | None:
    v = obj.get(field) if isinstance(obj, dict) else None
    v = v.decode("utf-8", "surrogatepass") if isinstance(v, bytes) else v
    return text_sha256(v) if isinstance(v, str) else None


def _stale(location: str, record: int) -> RewriteError:
    return RewriteError(f"record {record} of {location} no longer holds the text the lineage recorded (the shard "
                        "changed since the run): re-run the audit before a physical removal")


def _jsonl_writer(path: Path, location: str) -> tuple[IO[bytes], list[Any]]:
    """A binary stream compressing like `location`'s suffix; returns it and what to close after it."""
    raw = open(path, "wb")
    low = location.lower()
    if low.endswith(".gz"):
        gz = gzip.GzipFile(fileobj=raw, mode="wb", compresslevel=6, mtime=0)
        return gz, [gz, raw]
    if low.endswith((".zst", ".zstd")):
        zw = zstandard.ZstdCompressor(level=3).stream_writer(raw, closefd=False)
        return zw, [zw, raw]
    return raw, [raw]


def _rewrite_jsonl(shard: str, location: str, remove: set[int], expect: dict[int, str], text_field: str,
                   max_record_bytes: int | None) -> ShardRewrite:
    before = sha256_file(Path(location))
    size_before = Path(location).stat().st_size
    kept_hash = hashlib.sha256()
    counts = {"before": 0, "after": 0}
    removed: list[int] = []
    with _replacement(location) as tmp:
        out, closers = _jsonl_writer(tmp, location)
        fields = RecordFields(text_field)
        try:
            for i, (record, line, nl) in enumerate(jsonl_records(location, max_record_bytes)):
                if record is not None:
                    counts["before"] += 1
                    if record in remove:
                        if record in expect:
                            text = decode_line(line, fields, at_start=i == 0).text  # as the job read it
                            sha = None if text is None else text_sha256(text)
                            if sha != expect[record]:
                                raise _stale(location, record)
                        removed.append(record)
                        continue
                    counts["after"] += 1
                    kept_hash.update(line + b"\n")
                out.write(line + (b"\n" if nl else b""))
        finally:
            for c in closers:
                c.close()
        if missing := sorted(set(expect) - set(removed)):
            raise _stale(location, missing[0])  # the shard holds fewer records than lineage says
        # Compare before the swap: kept lines identical and in order, removed ones gone.
        check = hashlib.sha256()
        n = 0
        for record, line, _ in jsonl_records(str(tmp), max_record_bytes):
            if record is not None:
                check.update(line + b"\n")
                n += 1
        if check.hexdigest() != kept_hash.hexdigest() or n != counts["after"]:
            raise RewriteError(f"{shard}: the rewritten file does not hold exactly the kept records; "
                               "the original is left in place")
    return ShardRewrite(shard, location, "jsonl", removed, counts["before"], counts["after"], size_before,
                        Path(location).stat().st_size, before, sha256_file(Path(location)), len(expect),
                        _JSONL_COMPARED, kept_hash.hexdigest())


def _same_rows(a: Iterator[pa.Table], b: Iterator[pa.Table]) -> bool:
    """Whether two streams of tables hold the same rows in the same order, however they are chunked."""
    ra, rb = _Rows(a), _Rows(b)
    while True:
        ra.fill()
        rb.fill()
        m = min(ra.rows, rb.rows)
        if m == 0:
            return ra.rows == rb.rows == 0 and ra.done and rb.done
        if not ra.take(m).equals(rb.take(m)):
            return False


class _Rows:
    """A stream of tables read ahead to at least `want` rows, consumed from the front."""

    def __init__(self, tables: Iterator[pa.Table], want: int = 65_536) -> None:
        self.tables, self.want = tables, want
        self.buf: list[pa.Table] = []
        self.rows, self.done = 0, False

    def fill(self) -> None:
        while not self.done and self.rows < self.want:
            t = next(self.tables, None)
            if t is None:
                self.done = True
            else:
                self.buf.append(t)
                self.rows += t.num_rows

    def take(self, m: int) -> pa.Table:
        t = pa.concat_tables(self.buf)
        self.buf, self.rows = [t.slice(m)], self.rows - m
        return t.slice(0, m)


def _kept_batches(pf: pq.ParquetFile, location: str, remove: set[int], expect: dict[int, str] | None = None,
                  text_field: str = "text") -> Iterator[pa.Table]:
    """The rows not in `remove`; a removed row listed in `expect` must hold text of that SHA-256."""
    drop = np.fromiter(remove, dtype=np.int64, count=len(remove))
    expect = expect or {}
    start = 0
    for batch in pf.iter_batches(batch_size=65_536):
        n = batch.num_rows
        t = pa.Table.from_batches([batch])
        for r in (r for r in expect if start <= r < start + n):
            value = t.column(text_field)[r - start].as_py() if text_field in t.column_names else None
            if _text_sha256({text_field: value}, text_field) != expect[r]:
                raise _stale(location, r)
        yield t.filter(pa.array(~np.isin(np.arange(start, start + n), drop))) if len(drop) else t
        start += n
    if missing := sorted(r for r in expect if r >= start):
        raise _stale(location, missing[0])  # the shard holds fewer rows than lineage says


def _rewrite_parquet(shard: str, location: str, remove: set[int], expect: dict[int, str],
                     text_field: str) -> ShardRewrite:
    before = sha256_file(Path(location))
    size_before = Path(location).stat().st_size
    pf = pq.ParquetFile(location)
    rows_before = pf.metadata.num_rows
    compression = pf.metadata.row_group(0).column(0).compression.lower() if pf.num_row_groups else "zstd"
    compression = compression if compression in ("snappy", "gzip", "brotli", "zstd", "lz4", "none",
                                                 "uncompressed") else "zstd"
    group_rows = max((pf.metadata.row_group(i).num_rows for i in range(pf.num_row_groups)), default=65_536)
    removed = sorted(r for r in remove if 0 <= r < rows_before)
    with _replacement(location) as tmp:
        with pq.ParquetWriter(tmp, pf.schema_arrow, compression=compression) as w:
            for t in _kept_batches(pf, location, remove, expect, text_field):
                if t.num_rows:
                    w.write_table(t, row_group_size=group_rows)
        new = pq.ParquetFile(tmp)
        if new.metadata.num_rows != rows_before - len(removed) or not _same_rows(
                _kept_batches(pq.ParquetFile(location), location, remove),
                (pa.Table.from_batches([b]) for b in new.iter_batches(batch_size=65_536))):
            raise RewriteError(f"{shard}: the rewritten file does not hold exactly the kept rows; "
                               "the original is left in place")
        rows_after = new.metadata.num_rows
    return ShardRewrite(shard, location, "parquet", removed, rows_before, rows_after, size_before,
                        Path(location).stat().st_size, before, sha256_file(Path(location)), len(expect),
                        _PARQUET_COMPARED, None)


def rewrite_shard(shard: str, location: str, remove: set[int], expect: dict[int, str] | None = None,
                  text_field: str = "text", max_record_bytes: int | None = None) -> ShardRewrite:
    """Rewrite the shard file at `location` without the records `remove` (0-based, as in lineage).

    `expect`: record -> SHA-256 of the text (field `text_field`) lineage recorded for it; a removed
    record holding other text means the shard changed since the run, and RewriteError is raised
    before anything is replaced. `max_record_bytes`: the run's input.max_record_bytes, so a blank
    line too long to read numbers as a record exactly as the reader numbered it.
    """
    expect = {r: sha for r, sha in (expect or {}).items() if r in remove}
    if location.lower().endswith(PARQUET_SUFFIXES):
        return _rewrite_parquet(shard, location, remove, expect, text_field)
    return _rewrite_jsonl(shard, location, remove, expect, text_field, max_record_bytes)
