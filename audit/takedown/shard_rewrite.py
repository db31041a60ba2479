"""Physical removal: rewrite a shard without some of its records, atomically, every other record intact.

JSON lines (plain, gzip, zstd) lose exactly the lines of the removed records; every other line,
blank lines included, keeps its bytes and order, and compressed shards are recompressed. Parquet
shards are rewritten without the rows, same schema (and metadata), same compression. The new
file is written beside the old one and compared with it record by record (what is kept must be
identical, what is removed must be gone) BEFORE it atomically replaces the old file; a mismatch
leaves the original untouched. Before/after SHA-256 of the file bytes are recorded.
"""
from __future__ import annotations

import gzip
import hashlib
import os
import shutil
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import IO, Any

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import zstandard

from audit.io.shards import PARQUET_SUFFIXES, open_stream
from audit.takedown.ledger import sha256_file


class RewriteError(RuntimeError):
    """The rewritten shard did not check out; the original is left in place."""


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
    kept_identical: bool            # every other record compared equal before the replace
    content_sha256_kept: str | None  # JSON lines: SHA-256 over the kept lines (each + newline), in order

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@contextmanager
def _replacement(location: str) -> Iterator[Path]:
    """A temporary file beside `location`, same suffix (so it reads as the same format); on success
    it takes the original's mode, is fsynced and atomically renamed over it."""
    loc = Path(location)
    tmp = loc.with_name(f".{uuid.uuid4().hex[:12]}.rewrite.{loc.name}")
    try:
        yield tmp
        shutil.copymode(loc, tmp)
        with open(tmp, "rb+") as f:
            os.fsync(f.fileno())
        os.replace(tmp, loc)
    finally:
        tmp.unlink(missing_ok=True)


def _jsonl_lines(location: str) -> Iterator[tuple[bytes, bool]]:
    """(line without its newline, whether a newline followed) for every line, decompressed.

    Splits exactly like the job's reader (audit.io.shards), so record numbers agree.
    """
    tail = b""
    for chunk in open_stream(location):
        pieces = (tail + chunk).split(b"\n")
        tail = pieces.pop()
        for p in pieces:
            yield p, True
    if tail:
        yield tail, False


def jsonl_records(location: str) -> Iterator[tuple[int | None, bytes, bool]]:
    """(record number or None for a blank line, raw line, whether a newline followed), numbered as
    the job's reader numbers records (every non-blank line is a record, unparsable ones too)."""
    record = 0
    for line, nl in _jsonl_lines(location):
        if not line.strip():
            yield None, line, nl
        else:
            yield record, line, nl
            record += 1


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


def _rewrite_jsonl(shard: str, location: str, remove: set[int]) -> ShardRewrite:
    before = sha256_file(Path(location))
    size_before = Path(location).stat().st_size
    kept_hash = hashlib.sha256()
    counts = {"before": 0, "after": 0}
    removed: list[int] = []
    with _replacement(location) as tmp:
        out, closers = _jsonl_writer(tmp, location)
        try:
            for record, line, nl in jsonl_records(location):
                if record is not None:
                    counts["before"] += 1
                    if record in remove:
                        removed.append(record)
                        continue
                    counts["after"] += 1
                    kept_hash.update(line + b"\n")
                out.write(line + (b"\n" if nl else b""))
        finally:
            for c in closers:
                c.close()
        # Compare before the swap: kept lines identical and in order, removed ones gone.
        check = hashlib.sha256()
        n = 0
        for record, line, _ in jsonl_records(str(tmp)):
            if record is not None:
                check.update(line + b"\n")
                n += 1
        if check.hexdigest() != kept_hash.hexdigest() or n != counts["after"]:
            raise RewriteError(f"{shard}: the rewritten file does not hold exactly the kept records; "
                               "the original is left in place")
    return ShardRewrite(shard, location, "jsonl", removed, counts["before"], counts["after"], size_before,
                        Path(location).stat().st_size, before, sha256_file(Path(location)), True,
                        kept_hash.hexdigest())


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


def _kept_batches(pf: pq.ParquetFile, remove: set[int]) -> Iterator[pa.Table]:
    drop = np.fromiter(remove, dtype=np.int64, count=len(remove))
    start = 0
    for batch in pf.iter_batches(batch_size=65_536):
        n = batch.num_rows
        t = pa.Table.from_batches([batch])
        yield t.filter(pa.array(~np.isin(np.arange(start, start + n), drop))) if len(drop) else t
        start += n


def _rewrite_parquet(shard: str, location: str, remove: set[int]) -> ShardRewrite:
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
            for t in _kept_batches(pf, remove):
                if t.num_rows:
                    w.write_table(t, row_group_size=group_rows)
        new = pq.ParquetFile(tmp)
        if new.metadata.num_rows != rows_before - len(removed) or not _same_rows(
                _kept_batches(pq.ParquetFile(location), remove),
                (pa.Table.from_batches([b]) for b in new.iter_batches(batch_size=65_536))):
            raise RewriteError(f"{shard}: the rewritten file does not hold exactly the kept rows; "
                               "the original is left in place")
        rows_after = new.metadata.num_rows
    return ShardRewrite(shard, location, "parquet", removed, rows_before, rows_after, size_before,
                        Path(location).stat().st_size, before, sha256_file(Path(location)), True,
                        None)


def rewrite_shard(shard: str, location: str, remove: set[int]) -> ShardRewrite:
    """Rewrite the shard file at `location` without the records `remove` (0-based, as in lineage)."""
    if location.lower().endswith(PARQUET_SUFFIXES):
        return _rewrite_parquet(shard, location, remove)
    return _rewrite_jsonl(shard, location, remove)
