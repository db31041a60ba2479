"""Where the `audit sidecar` command gets records: JSON lines on a stream, or a folder of dumps.

`JsonLineBatches` reads a binary stream (standard input) with `os.read`, so each call returns
whatever has arrived: a fast producer gives large batches, a slow one small batches at once,
and nothing waits for a batch to fill. Every line and Parquet row is decoded by the job's reader
(audit.io.records): a record the job would call unreadable is counted as malformed and skipped,
and the first of a batch is named as the job names it (line, byte offset, the same error).

`FolderTailer` watches a folder of micro-batch dumps written by the training job. A `.jsonl`
file is tailed: complete lines are read as they are appended (an incomplete last line waits for
its newline), so a dump can be written while it is read. `.jsonl.gz`, `.jsonl.zst` and
`.parquet` files cannot be read in part; they are read once, when their size and mtime have not
changed for `settle_seconds`. Names starting with "." or ending in ".tmp" are ignored (files
being written under a temporary name). How far each file was read is kept in
`source_state.json` under the sidecar's output, so a restarted sidecar does not read a dump twice.
"""
from __future__ import annotations

import json
import logging
import os
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO

from audit.io.atomic import write_json_atomic
from audit.io.records import FileFault, LineDecoder, RecordFields, parquet_batches
from audit.io.shards import DamagedStream, open_stream, split_lines

log = logging.getLogger("audit.sidecar")

TAILED = (".jsonl", ".ndjson")
WHOLE = (".jsonl.gz", ".jsonl.zst", ".jsonl.zstd", ".ndjson.gz", ".ndjson.zst", ".parquet")
_READ = 1 << 20


@dataclass
class Parsed:
    """The records of a batch of lines, and how many lines were malformed (with the first reason)."""

    records: list[dict[str, Any]]
    malformed: int = 0
    first_error: str | None = None


Row = tuple[int, "bytes | None", int]  # (byte offset, line or None when over the limit, length)


class LineReader:
    """The lines of one stream, in order, into Parsed batches through the job's line decoder
    (records and lines numbered as the job numbers them, a leading BOM skipped)."""

    def __init__(self, text_field: str, max_line_bytes: int, start_line: int | None = 0) -> None:
        """`start_line`: lines read before (None: not known, so places give the byte offset only)."""
        self.numbered = start_line is not None
        self.decoder = LineDecoder(RecordFields(text_field), max_line_bytes, start_line or 0)

    def parse(self, rows: Iterable[Row]) -> Parsed:
        """The readable records of `rows`; the others counted, the first named with its place."""
        out = Parsed([])
        for offset, line, length in rows:
            decoded = self.decoder.feed(offset, line, length)
            if decoded is None:
                continue
            if decoded.text is None:
                out.malformed += 1
                if out.first_error is None:
                    out.first_error = f"{self.place(offset)}: {decoded.error}"
            else:
                out.records.append(decoded.obj)  # type: ignore[arg-type]
        return out

    def place(self, offset: int) -> str:
        """Where the last line fed sits."""
        return f"line {self.decoder.lines} (byte {offset})" if self.numbered else f"byte {offset}"


def _rows(lines: list[bytes], offset: int = 0) -> Iterator[Row]:
    for line in lines:
        yield offset, line, len(line)
        offset += len(line) + 1


def parse_lines(lines: list[bytes], text_field: str) -> Parsed:
    """Consecutive complete lines from the start of a stream, decoded as the job decodes them."""
    return LineReader(text_field, 1 << 62).parse(_rows(lines))


@dataclass
class LineBatch:
    """Lines that arrived together: (offset, line or None when too long to keep, length) each."""

    rows: list[Row]

    @property
    def lines(self) -> list[bytes]:
        """The lines kept (those not too long)."""
        return [line for _, line, _ in self.rows if line is not None]

    @property
    def oversize(self) -> int:
        """How many lines were too long to keep."""
        return sum(line is None for _, line, _ in self.rows)


class JsonLineBatches:
    """Batches of complete lines from a binary stream, as they arrive.

    A line longer than `max_line_bytes` is not kept (it is counted in its batch's `oversize`),
    so one runaway line cannot take the sidecar's memory. Lines are split by
    `audit.io.shards.split_lines` (linear time however long a line is).
    """

    def __init__(self, stream: BinaryIO, max_line_bytes: int) -> None:
        self.fd = stream.fileno()
        self.max_line_bytes = max_line_bytes
        # Offset of the last newline read so far: once the line ending there is out, every
        # complete line that has arrived is out, and the batch goes before the next (blocking) read.
        self._last_newline = -1

    def _chunks(self) -> Iterator[bytes]:
        read = 0
        while chunk := os.read(self.fd, _READ):
            nl = chunk.rfind(b"\n")
            if nl >= 0:
                self._last_newline = read + nl
            read += len(chunk)
            yield chunk

    def __iter__(self) -> Iterator[LineBatch]:
        batch = LineBatch([])
        for row in split_lines(self._chunks(), self.max_line_bytes):
            batch.rows.append(row)
            if row[0] + row[2] == self._last_newline:
                yield batch
                batch = LineBatch([])
        if batch.rows:  # a last line without its newline
            yield batch


class FolderTailer:
    """New records from a folder of micro-batch dumps, in order of the files' appearance."""

    def __init__(self, folder: Path, state_file: Path, text_field: str, poll_seconds: float,
                 settle_seconds: float, stop: threading.Event, max_line_bytes: int = 64 << 20,
                 fields: Sequence[str] | None = None) -> None:
        """`fields`: the columns read from a Parquet dump (those present; default: all)."""
        self.folder = folder
        self.fields = list(fields) if fields is not None else None
        # Bytes read from a tailed file per look; a line longer than this is skipped and counted.
        self.max_line_bytes = max_line_bytes
        self.state_file = state_file
        self.text_field = text_field
        self.poll_seconds = poll_seconds
        self.settle_seconds = settle_seconds
        self.stop = stop
        # file name -> bytes read (tailed files) or -1 (read whole)
        self.done: dict[str, int] = {}
        # tailed file name -> lines read, so a bad line is named by its number as the job names it
        self.lines: dict[str, int] = {}
        self._seen: dict[str, tuple[int, float, float]] = {}  # name -> (size, mtime, first seen unchanged)
        # Tailed files whose read offset is inside a line too long to keep: skip to its newline.
        self._skipping: set[str] = set()
        self._dirty = False
        if state_file.is_file():
            try:
                state = json.loads(state_file.read_text())
                self.done = {str(k): int(v) for k, v in state.get("files", {}).items()}
                self.lines = {str(k): int(v) for k, v in state.get("lines", {}).items()}
            except (ValueError, OSError, AttributeError):
                log.warning("sidecar: %s is unreadable; reading the source folder from the start", state_file)

    def _candidates(self) -> list[tuple[float, str, Path]]:
        found = []
        try:
            entries = list(os.scandir(self.folder))
        except OSError as e:
            log.warning("sidecar: cannot list %s: %s", self.folder, e)
            return []
        for entry in entries:
            name = entry.name
            if name.startswith(".") or name.endswith(".tmp") or not entry.is_file():
                continue
            low = name.lower()
            if not low.endswith(TAILED + WHOLE):
                continue
            try:
                st = entry.stat()
            except OSError:
                continue
            found.append((st.st_mtime, name, Path(entry.path)))
        found.sort()
        return found

    def poll(self, sink: Callable[[Parsed, str], None]) -> int:
        """Read what is new in the folder once; returns the number of lines handed to `sink`."""
        lines = 0
        for _, name, path in self._candidates():
            if self.stop.is_set():
                break
            low = name.lower()
            if low.endswith(TAILED):
                lines += self._tail(name, path, sink)
            elif self.done.get(name) != -1 and self._settled(name, path):
                lines += self._read_whole(name, path, sink)
        if self._dirty:
            write_json_atomic(self.state_file, {"folder": str(self.folder), "files": self.done, "lines": self.lines})
            self._dirty = False
        return lines

    def run(self, sink: Callable[[Parsed, str], None]) -> None:
        """Poll until `stop` is set."""
        while not self.stop.is_set():
            if not self.poll(sink):
                self.stop.wait(self.poll_seconds)

    def _reader(self, name: str, offset: int) -> LineReader:
        """A reader continuing a tailed file at `offset` (its line number unknown if the state lacks it)."""
        start = 0 if offset == 0 else self.lines.get(name)
        return LineReader(self.text_field, self.max_line_bytes, start)

    def _tail(self, name: str, path: Path, sink: Callable[[Parsed, str], None]) -> int:
        offset = self.done.get(name, 0)
        try:
            size = path.stat().st_size
            if size < offset:  # truncated or replaced: start over
                offset = 0
                self._skipping.discard(name)
            if size == offset:
                return 0
            with open(path, "rb") as f:
                f.seek(offset)
                # A bounded piece per look: a large dump is read over several looks.
                data = f.read(min(size - offset, self.max_line_bytes))
        except OSError as e:
            log.warning("sidecar: cannot read %s: %s", path, e)
            return 0
        reader = self._reader(name, offset)
        if name in self._skipping:  # the rest of a line already counted as too long
            nl = data.find(b"\n")
            if nl < 0:
                self.done[name] = offset + len(data)
                self._dirty = True
                return 0
            self._skipping.discard(name)
            offset += nl + 1
            data = data[nl + 1:]
            self.done[name] = offset
            self._dirty = True
        end = data.rfind(b"\n")
        if end < 0:
            if len(data) >= self.max_line_bytes:  # one line longer than a whole piece: skip it, counted once
                reader.decoder.lines += 1  # the line runs on past this piece: counted now, its rest skipped
                parsed = Parsed([], 1, f"{reader.place(offset)}: line exceeds input.max_record_bytes "
                                       f"({self.max_line_bytes})")
                self._advance(name, offset + len(data), reader)
                self._skipping.add(name)
                sink(parsed, name)
                return 1
            return 0  # no complete line yet
        rows = [(offset + o, line, n) for o, line, n in split_lines(iter([data[:end + 1]]), self.max_line_bytes)]
        parsed = reader.parse(rows)
        self._advance(name, offset + end + 1, reader)
        sink(parsed, name)
        return len(rows)

    def _advance(self, name: str, offset: int, reader: LineReader) -> None:
        self.done[name] = offset
        if reader.numbered:
            self.lines[name] = reader.decoder.lines
        self._dirty = True

    def _settled(self, name: str, path: Path) -> bool:
        try:
            st = path.stat()
        except OSError:
            return False
        now = time.monotonic()
        prev = self._seen.get(name)
        if prev is None or prev[:2] != (st.st_size, st.st_mtime):
            self._seen[name] = (st.st_size, st.st_mtime, now)
            return self.settle_seconds == 0
        return now - prev[2] >= self.settle_seconds

    def _read_whole(self, name: str, path: Path, sink: Callable[[Parsed, str], None]) -> int:
        count = 0
        try:
            if name.lower().endswith(".parquet"):
                count = self._read_parquet(name, path, sink)
            else:
                count = self._read_compressed(name, path, sink)
        except (DamagedStream, FileFault) as e:  # a damaged dump is counted and named, never fatal
            log.warning("sidecar: %s is damaged after %d lines: %s", path, count, e)
            sink(Parsed([], 1, f"{name}: {e}"), name)
        except OSError as e:
            log.warning("sidecar: cannot read %s: %s", path, e)
            sink(Parsed([], 1, f"{name}: cannot read: {e.strerror or e}"), name)
        self.done[name] = -1
        self._dirty = True
        self._seen.pop(name, None)
        return max(count, 1)

    def _read_compressed(self, name: str, path: Path, sink: Callable[[Parsed, str], None]) -> int:
        """The lines of a compressed dump, 4096 at a time; a damaged stream is raised after
        everything decoded before it was handed on (with how many records that was)."""
        reader = LineReader(self.text_field, self.max_line_bytes)
        rows: list[Row] = []
        count = 0
        damage: DamagedStream | None = None
        try:
            for row in split_lines(open_stream(str(path)), self.max_line_bytes):
                rows.append(row)
                if len(rows) >= 4096:
                    sink(reader.parse(rows), name)
                    count, rows = count + len(rows), []
        except DamagedStream as e:
            damage = e
        if rows:
            sink(reader.parse(rows), name)
            count += len(rows)
        if damage is not None:  # named as the job names it
            raise DamagedStream(f"{damage} (after {reader.decoder.records} records; the rest of the file is lost)")
        return count

    def _read_parquet(self, name: str, path: Path, sink: Callable[[Parsed, str], None]) -> int:
        """Rows of a Parquet dump through the job's Parquet decoder (read once, `fields` only)."""
        count = 0
        for batch in parquet_batches(str(path), RecordFields(self.text_field), self.fields, batch_rows=4096):
            names = list(batch.columns)
            out = Parsed([])
            for i, d in enumerate(batch.decoded):
                if d.text is None:
                    out.malformed += 1
                    out.first_error = out.first_error or f"row {batch.first + i}: {d.error}"
                else:
                    out.records.append({n: batch.columns[n][i] for n in names})
            sink(out, name)
            count += len(batch.decoded)
        return count
