"""Shard discovery and readers: JSON lines (plain, gzip, zstd) and Parquet, as Arrow record blocks.

Files are found, opened, decompressed and split into lines here; every line and Parquet row is
decoded by audit.io.records, the reading the sidecar shares.

Every record a reader meets becomes a row of audit.records.RECORD_SCHEMA, readable or not: a bad
line keeps its place (shard, record, byte offset) with `error` set and null text, so nothing is
lost and the counts add up. Faults of a whole file (truncated stream, empty file, Parquet without
the text column) become one row with a null `record`: the decide step counts and names it in
unreadable.jsonl, and it is not a document.

Reading a file that fails (an object store's hiccup, a reset connection, EIO) is retried where it
stopped, with bounded exponential backoff (`ReadStats` counts the retries); a file that still
cannot be read, or is gone, becomes that one file-level row, and `ReadStats.failed` says so (the
job then does not keep the shard as measured: the next run reads it again).
"""
from __future__ import annotations

import errno
import fnmatch
import glob
import io
import os
import re
import time
import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO
from urllib.parse import urlsplit

import pyarrow as pa
import zstandard

from audit.config import InputConfig
from audit.io.records import FileFault, LineDecoder, RecordBlock, RecordFields, parquet_batches
from audit.io.storage import StorageError, is_uri
from audit.io.storage import location as storage_location

JSONL_SUFFIXES = (".jsonl", ".jsonl.gz", ".jsonl.zst", ".jsonl.zstd", ".ndjson", ".ndjson.gz", ".ndjson.zst")
PARQUET_SUFFIXES = (".parquet",)
SHARD_SUFFIXES = JSONL_SUFFIXES + PARQUET_SUFFIXES
_CHUNK = 1 << 20  # bytes read from a stream at a time
READ_ATTEMPTS = 4  # tries of one read before the shard counts as unreadable
READ_BACKOFF = 0.25  # seconds before the first retry, doubled for each next one (0.25 + 0.5 + 1)
# What asking again will not change: the file is gone, or not ours to read.
_PERMANENT_ERRNOS = {errno.ENOENT, errno.ENOTDIR, errno.EISDIR, errno.EACCES, errno.EPERM, errno.ELOOP,
                     errno.ENAMETOOLONG, errno.EINVAL}
_PERMANENT_WORDS = ("NO_SUCH_KEY", "NoSuchKey", "NO_SUCH_BUCKET", "Path does not exist", "ACCESS_DENIED")


class InputError(ValueError):
    """An input path named in the config that cannot be used: one line saying what and where."""


@dataclass(frozen=True)
class Shard:
    """One input file: `path` as given (after folder/glob expansion), `location` where it is read."""

    path: str
    location: str
    index: int


@dataclass
class ReadStats:
    """What reading one shard met: reads retried, and why it could not be read (None: it was)."""

    retries: int = 0
    failed: str | None = None


def transient(e: OSError) -> bool:
    """Whether a read error may pass when tried again (a network or device hiccup), not a file
    that is gone or forbidden."""
    if isinstance(e, (FileNotFoundError, PermissionError, IsADirectoryError, NotADirectoryError, StorageError)):
        return False  # a StorageError: the store's own client retried it already (audit.io.storage)
    return e.errno not in _PERMANENT_ERRNOS and not any(w in str(e) for w in _PERMANENT_WORDS)


class RetryingReader(io.RawIOBase):
    """A binary file read through `opener`, where a failed open or read is tried again (the file
    reopened at the position reached) up to READ_ATTEMPTS times with exponential backoff.
    Retries are counted in `stats`; the error that ends it is kept there as `failed` and raised."""

    def __init__(self, opener: Callable[[], BinaryIO], stats: ReadStats) -> None:
        super().__init__()
        self._opener, self.stats = opener, stats
        self._f: BinaryIO | None = None
        self._pos = 0
        self._call(lambda f: None)  # open now: a missing file fails here, as open() would

    def _call(self, op: Callable[[BinaryIO], Any]) -> Any:
        for attempt in range(READ_ATTEMPTS):
            try:
                if self._f is None:
                    self._f = self._opener()
                    if self._pos:
                        self._f.seek(self._pos)
                return op(self._f)
            except OSError as e:
                if self._f is not None:
                    try:
                        self._f.close()
                    except OSError:
                        pass  # the stream that failed is dropped either way
                    self._f = None
                if not transient(e) or attempt == READ_ATTEMPTS - 1:
                    self.stats.failed = f"{e.strerror or e}" + (f" (after {attempt + 1} tries)" if attempt else "")
                    raise
                self.stats.retries += 1
                time.sleep(READ_BACKOFF * 2 ** attempt)
        raise AssertionError("unreachable")  # the loop returns or raises

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return True

    def read(self, size: int = -1) -> bytes:
        data = self._call(lambda f: f.read(size))
        self._pos += len(data)
        return data

    def readinto(self, b: Any) -> int:
        data = self.read(len(b))
        b[:len(data)] = data
        return len(data)

    def seek(self, offset: int, whence: int = os.SEEK_SET) -> int:
        self._pos = self._call(lambda f: f.seek(offset, whence))
        return self._pos

    def tell(self) -> int:
        return self._pos

    def close(self) -> None:
        if self._f is not None:
            self._f.close()
            self._f = None
        super().close()


def is_shard(name: str) -> bool:
    """Whether a file name has one of the supported shard suffixes."""
    return name.lower().endswith(SHARD_SUFFIXES)


def discover_shards(paths: list[str], base_dir: Path) -> tuple[list[Shard], list[dict]]:
    """Expand files, folders and globs into a sorted list of shards.

    Returns (shards, problems): a folder with no shards is a problem to count, not a reason to stop;
    a path that does not exist or a file of an unsupported kind raises InputError.
    """
    found: dict[str, str] = {}
    problems: list[dict] = []
    for given in paths:
        if is_uri(given):
            _discover_uri(given, found, problems)
            continue
        loc = Path(given).expanduser()
        loc = loc if loc.is_absolute() else base_dir / loc
        if glob.has_magic(given):
            named = [Path(p) for p in sorted(glob.glob(str(loc), recursive=True)) if is_shard(p)]
            hits = [p for p in named if p.is_file()]
            problems += [_dangling(_as_given(given, loc, p), p) for p in named if _is_dangling(p)]
            if not named:
                problems.append({"shard": given, "error": "no shard matches this pattern"})
            for h in hits:
                found.setdefault(_as_given(given, loc, h), str(h))
        elif loc.is_dir():
            named = sorted(p for p in loc.rglob("*") if is_shard(p.name))
            hits = [p for p in named if p.is_file()]
            problems += [_dangling(_as_given(given, loc, p), p) for p in named if _is_dangling(p)]
            if not named:
                problems.append({"shard": given, "error": "folder holds no shards "
                                 f"({', '.join(SHARD_SUFFIXES)})"})
            for h in hits:
                found.setdefault(_as_given(given, loc, h), str(h))
        elif _is_dangling(loc):
            problems.append(_dangling(os.path.normpath(given), loc))
        elif loc.is_file():
            if not is_shard(loc.name):
                raise InputError(f"input.paths: {given}: not a shard (expected one of {', '.join(SHARD_SUFFIXES)})")
            found.setdefault(os.path.normpath(given), str(loc))
        else:
            raise InputError(f"input.paths: {given}: no such file or folder (relative paths are read from {base_dir})")
    seen: set[str] = set()  # one file named two ways (a folder and a glob) is read once
    unique = {}
    for p in sorted(found):
        real = found[p] if is_uri(found[p]) else os.path.realpath(found[p])
        if real not in seen:
            seen.add(real)
            unique[p] = found[p]
    if not unique:
        raise InputError(f"input.paths: {', '.join(paths)}: no shard found ({'; '.join(p['error'] for p in problems)}): "
                         f"check the paths and patterns (shards end in {', '.join(SHARD_SUFFIXES)})")
    return [Shard(p, unique[p], i) for i, p in enumerate(unique)], problems


def _is_dangling(p: Path) -> bool:
    """A symbolic link whose target does not exist (a shard that was moved or deleted)."""
    return p.is_symlink() and not p.exists()


def _dangling(shown: str, p: Path) -> dict:
    """The unreadable-input entry of a dangling symbolic link: named, never skipped silently."""
    return {"shard": shown, "error": f"dangling symbolic link to {os.readlink(p)}: the file it names does not exist "
            "(restore it or remove the link)"}


def _discover_uri(given: str, found: dict[str, str], problems: list[dict]) -> None:
    """Shards under a URI: a file, a folder (searched recursively) or a glob in the last part."""
    parts = urlsplit(given)
    if glob.has_magic(parts.path):
        folder, _, pattern = parts.path.rpartition("/")
        root = storage_location(parts._replace(path=folder).geturl())
        hits = [f for f in root.ls() if f.is_file() and fnmatch.fnmatchcase(f.name, pattern) and is_shard(f.name)]
        if not hits:
            problems.append({"shard": given, "error": "no shard matches this pattern"})
        for h in hits:
            found.setdefault(_uri_shown(h.uri), h.uri)
        return
    loc = storage_location(given)
    if loc.is_dir():
        hits = [f for f in loc.walk() if is_shard(f.name)]
        if not hits:
            problems.append({"shard": given, "error": f"folder holds no shards ({', '.join(SHARD_SUFFIXES)})"})
        for h in hits:
            found.setdefault(_uri_shown(h.uri), h.uri)
    elif loc.is_file():
        if not is_shard(loc.name):
            raise InputError(f"input.paths: {given}: not a shard (expected one of {', '.join(SHARD_SUFFIXES)})")
        found.setdefault(_uri_shown(given), given)
    else:
        raise InputError(f"input.paths: {given}: no such file or folder")


def _uri_shown(uri: str) -> str:
    """A shard URI as lineage names it: without query options (endpoints are not part of its name)."""
    return urlsplit(uri)._replace(query="").geturl()


def _as_given(given: str, loc: Path, hit: Path) -> str:
    """The shard's path in the terms the user gave: the given folder plus the part found under it
    (so doc_ids, derived from it, do not change when the corpus moves)."""
    if glob.has_magic(given):
        root = Path(os.path.dirname(re.split(r"[*?\[]", given, maxsplit=1)[0]))
        base = Path(os.path.dirname(re.split(r"[*?\[]", str(loc), maxsplit=1)[0]))
    else:
        root, base = Path(given), loc
    try:
        return os.path.normpath(root / hit.relative_to(base))
    except ValueError:
        return str(hit)


def read_shard(shard: Shard, cfg: InputConfig, stats: ReadStats | None = None) -> Iterator[pa.Table]:
    """Yield the records of one shard as RECORD_SCHEMA tables of about cfg.block_bytes of text.
    `stats` (given): filled with the reads retried and, when the file could not be read, why."""
    stats = stats if stats is not None else ReadStats()
    block = RecordBlock(shard.path, shard.index, cfg.block_bytes)
    name = urlsplit(shard.location).path if is_uri(shard.location) else shard.location
    reader = _read_parquet if name.lower().endswith(PARQUET_SUFFIXES) else _read_jsonl
    try:
        for _ in reader(shard, cfg, block, stats):
            t = block.take()
            if t is not None:
                yield t
    except OSError as e:  # the file vanished or cannot be opened: one file-level fault
        stats.failed = stats.failed or f"{e.strerror or e}"
        block.fault(f"cannot read shard: {stats.failed}")
    t = block.take()
    if t is not None:
        yield t


# Text bytes per byte of file, by how the file is stored (measured on the bench corpus of
# make_corpus.py: JSON lines 0.93, gzip 2.1-2.5, Parquet 1.6); zstd is taken to pack as gzip.
_TEXT_PER_FILE_BYTE = ((".gz", 2.3), (".zst", 2.3), (".zstd", 2.3), (PARQUET_SUFFIXES, 1.6))


def text_bytes_estimate(shard: Shard, size: int | None) -> float:
    """About how many bytes of text a shard of `size` file bytes holds (0 when its size is unknown)."""
    name = (urlsplit(shard.location).path if is_uri(shard.location) else shard.location).lower()
    factor = next((f for suffix, f in _TEXT_PER_FILE_BYTE if name.endswith(suffix)), 1.0)
    return (size or 0) * factor


def corpus_sample(shards: list[Shard], cfg: InputConfig, records: int, spread: int = 16) -> list[str]:
    """About `records` readable texts: the first records of up to `spread` shards evenly spaced
    over the list (deterministic, so a re-run samples the same documents)."""
    if not shards or records <= 0:
        return []
    step = max(1, len(shards) // spread)
    picked = shards[::step][:spread]
    quota = -(-records // len(picked))
    out: list[str] = []
    for shard in picked:
        got = 0
        for block in read_shard(shard, cfg):
            texts = [t for t in block.column("text").to_pylist() if t]
            out.extend(texts[:quota - got])
            got += min(len(texts), quota - got)
            if got >= quota:
                break
    return out


# ---- JSON lines -------------------------------------------------------------------------------

def _open_binary(location: str, stats: ReadStats | None = None) -> BinaryIO:
    """A local path with open(), a URI through its filesystem (audit.io.storage); reads that fail
    are tried again (RetryingReader), counted in `stats`."""
    if is_uri(location):
        loc = storage_location(location)
        return RetryingReader(loc.open_input, stats or ReadStats())  # type: ignore[return-value]
    return RetryingReader(lambda: open(location, "rb"), stats or ReadStats())  # type: ignore[return-value]


def open_stream(location: str, stats: ReadStats | None = None) -> Iterator[bytes]:
    """Decompressed chunks of a JSON-lines file; raises DamagedStream when a compressed stream ends early."""
    low = urlsplit(location).path.lower() if is_uri(location) else location.lower()
    if low.endswith(".gz"):
        with _open_binary(location, stats) as raw:
            yield from _gzip_chunks(raw)
    elif low.endswith((".zst", ".zstd")):
        with _open_binary(location, stats) as raw:
            yield from _zstd_chunks(raw)
    else:
        with _open_binary(location, stats) as f:
            while chunk := f.read(_CHUNK):
                yield chunk


def _gzip_chunks(raw: BinaryIO) -> Iterator[bytes]:
    """Decompress every gzip member of a file, yielding what decoded before any damage."""
    return _frames(raw, "gzip", lambda: zlib.decompressobj(wbits=31), zlib.error,
                   lambda rest: rest[:2] == b"\x1f\x8b")  # gzip(1) allows padding after the last member


def _zstd_chunks(raw: BinaryIO) -> Iterator[bytes]:
    """Decompress every zstd frame of a file; a frame cut short is an error, not a silent end."""
    dctx = zstandard.ZstdDecompressor()
    return _frames(raw, "zstd", dctx.decompressobj, zstandard.ZstdError, lambda rest: True)


def _frames(raw: BinaryIO, kind: str, new: Callable[[], Any], error: type[Exception],
            more: Callable[[bytes], bool]) -> Iterator[bytes]:
    """Decompress consecutive frames (gzip members, zstd frames) with `new()` decompressors.

    A frame ended (`eof`): what is left of the input starts the next one, if `more(rest)`. The
    input ending inside a frame raises DamagedStream after everything decodable was yielded.
    """
    dobj, fed = new(), False
    data = raw.read(_CHUNK)
    while data:
        try:
            out = dobj.decompress(data)
        except error as e:
            raise DamagedStream(f"{kind} stream is damaged: {e}") from None
        fed = True
        if out:
            yield out
        if dobj.eof:
            data = dobj.unused_data or raw.read(_CHUNK)
            if data and not more(data):
                return
            dobj, fed = new(), False
        else:
            data = raw.read(_CHUNK)
    if fed and not dobj.eof:
        name = "member" if kind == "gzip" else "frame"
        raise DamagedStream(f"{kind} stream is truncated: the file ends inside a {name}")


class DamagedStream(Exception):
    """A compressed shard that ends early or does not decode; what came before it was yielded."""


def split_lines(chunks: Iterator[bytes], max_bytes: int) -> Iterator[tuple[int, bytes | None, int]]:
    """(offset, line without newline, length) per line of a byte stream given in chunks, in time
    linear in its size; the line is None when it is longer than max_bytes (its bytes are not kept).
    A last line without a newline is yielded too."""
    offset = 0
    parts: list[bytes] = []
    part_len = 0
    oversize = False
    for chunk in chunks:
        pieces = chunk.split(b"\n")
        for piece in pieces[:-1]:
            if parts or oversize:
                length = part_len + len(piece)
                line = None if oversize or length > max_bytes else b"".join(parts) + piece
                parts, part_len, oversize = [], 0, False
            else:
                length = len(piece)
                line = piece if length <= max_bytes else None
            yield offset, line, length
            offset += length + 1
        tail = pieces[-1]
        if tail:
            part_len += len(tail)
            if oversize or part_len > max_bytes:
                parts, oversize = [], True  # keep counting, stop keeping
            else:
                parts.append(tail)
    if parts or oversize:
        yield offset, (None if oversize else b"".join(parts)), part_len


def _read_jsonl(shard: Shard, cfg: InputConfig, block: RecordBlock, stats: ReadStats) -> Iterator[None]:
    """Fill `block` from a JSON-lines shard; yields whenever the block is full."""
    decoder = LineDecoder(RecordFields.of(cfg), cfg.max_record_bytes)
    end = 0  # where the lines read so far end: what follows a damaged stream's last good line
    try:
        for offset, line, length in split_lines(open_stream(shard.location, stats), cfg.max_record_bytes):
            end = offset + length + 1
            decoded = decoder.feed(offset, line, length)
            if decoded is None:
                continue
            block.add(decoder.records - 1, offset, decoded, decoder.lines - 1)  # 0-based, as records
            if block.full():
                yield None
    except DamagedStream as e:
        block.fault(f"{e} (after {decoder.records} records; the rest of the shard is lost)", end, decoder.lines)
    if decoder.records == 0 and not len(block):
        block.fault("empty shard: no records", 0)
    yield None


# ---- Parquet ----------------------------------------------------------------------------------

def _read_parquet(shard: Shard, cfg: InputConfig, block: RecordBlock, stats: ReadStats) -> Iterator[None]:
    """Fill `block` from a Parquet shard, a record batch at a time (audit.io.records decodes it)."""
    records = 0
    try:
        for batch in parquet_batches(_open_binary(shard.location, stats), RecordFields.of(cfg)):
            for i, decoded in enumerate(batch.decoded):
                block.add(batch.first + i, None, decoded)
                if block.full():
                    yield None
            records = batch.first + len(batch.decoded)
    except FileFault as e:  # a read that failed is the file's fault only when the file, not its reading, broke
        block.fault(f"cannot read shard: {stats.failed}" if stats.failed else str(e))
    else:
        if records == 0:
            block.fault("empty shard: no records")
    yield None


def read_record_texts(shard: Shard, records: set[int], cfg: InputConfig) -> dict[int, str | None]:
    """The texts of the given record indexes of one shard (None for unreadable ones)."""
    out: dict[int, str | None] = {}
    for t in read_shard(shard, cfg):
        recs = t.column("record").to_pylist()
        hits = [i for i, r in enumerate(recs) if r in records]
        if hits:
            texts = t.column("text").to_pylist()
            for i in hits:
                out[recs[i]] = texts[i]
        if len(out) == len(records):
            break
    return out


def read_texts_at(shard: Shard, cfg: InputConfig, wanted: dict[int, int | None],
                  max_stream_bytes: int | None = None) -> dict[int, str | None]:
    """The texts of some records of one shard (a local file or an object), {record: byte_offset or None}
    -> {record: text}.

    Plain JSON lines with offsets are read by seeking, Parquet by the row groups that hold the
    records; other shards (compressed JSON lines) are streamed to the last record, unless the
    file is larger than `max_stream_bytes`, when nothing is read ({}). Read back as the job read
    them (audit.io.records)."""
    import numpy as np
    import pyarrow.parquet as pq

    from audit.io.records import column_values, decode_line, decode_parquet_text

    where = storage_location(shard.location)  # local or in object storage
    low = where.path.lower()
    if low.endswith((".jsonl", ".ndjson")) and all(o is not None for o in wanted.values()):
        fields = RecordFields.of(cfg)
        out: dict[int, str | None] = {}
        with io.BufferedReader(where.fs.open_input_file(where.path)) as f:  # readline, local or remote
            for record, offset in sorted(wanted.items(), key=lambda kv: kv[1] or 0):
                f.seek(int(offset or 0))
                out[record] = decode_line(f.readline().rstrip(b"\n"), fields, at_start=offset == 0).text
        return out
    if low.endswith(PARQUET_SUFFIXES):
        pf = pq.ParquetFile(where.fs.open_input_file(where.path))
        ends = np.cumsum([pf.metadata.row_group(i).num_rows for i in range(pf.num_row_groups)])
        groups: dict[int, list[int]] = {}
        for r in wanted:
            g = int(np.searchsorted(ends, r, side="right"))
            if g < len(ends):
                groups.setdefault(g, []).append(r)
        out = {}
        for g, recs in groups.items():
            col = column_values(pf.read_row_group(g, columns=[cfg.text_field]).column(0), strict=True)
            base = int(ends[g - 1]) if g else 0
            for r in recs:
                out[r] = decode_parquet_text(col[r - base], cfg.text_field).text
        return out
    if max_stream_bytes is not None and where.fs.get_file_info(where.path).size > max_stream_bytes:
        return {}
    return read_record_texts(shard, set(wanted), cfg)


def iter_jsonl_lines(location: str) -> Iterator[tuple[int, bytes]]:
    """(byte offset, raw line) of every line of a JSON-lines shard, compressed or not."""
    for offset, line, _ in split_lines(open_stream(location), 1 << 62):
        assert line is not None
        yield offset, line


__all__ = ["Shard", "InputError", "ReadStats", "discover_shards", "read_shard", "read_record_texts", "read_texts_at",
           "is_shard", "SHARD_SUFFIXES", "iter_jsonl_lines", "open_stream", "split_lines", "DamagedStream"]
