"""Where the `audit sidecar` command gets records: JSON lines on a stream, or a folder of dumps.

`JsonLineBatches` reads a binary stream (standard input) with `os.read`, so each call returns
whatever has arrived: a fast producer gives large batches, a slow one small batches at once,
and nothing waits for a batch to fill. Every line is parsed; a line that is not a JSON object
with a string text is counted as malformed and skipped.

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
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO

import orjson
import pyarrow.parquet as pq

from audit.io.atomic import write_json_atomic
from audit.io.shards import open_stream, split_lines

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


def parse_lines(lines: list[bytes], text_field: str) -> Parsed:
    """JSON objects with a string `text_field`; anything else is counted as malformed."""
    out = Parsed([])
    for line in lines:
        if not line.strip():
            continue
        try:
            obj = orjson.loads(line)
        except orjson.JSONDecodeError as e:
            out.malformed += 1
            out.first_error = out.first_error or f"invalid JSON: {e}"
            continue
        if not isinstance(obj, dict) or not isinstance(obj.get(text_field), str):
            out.malformed += 1
            out.first_error = out.first_error or (f"not a JSON object with a string '{text_field}'")
            continue
        out.records.append(obj)
    return out


@dataclass
class LineBatch:
    """Complete lines that arrived together, and how many lines among them were too long to keep."""

    lines: list[bytes]
    oversize: int = 0


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
        for offset, line, length in split_lines(self._chunks(), self.max_line_bytes):
            if line is None:
                batch.oversize += 1
            else:
                batch.lines.append(line)
            if offset + length == self._last_newline and (batch.lines or batch.oversize):
                yield batch
                batch = LineBatch([])
        if batch.lines or batch.oversize:  # a last line without its newline
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
        self._seen: dict[str, tuple[int, float, float]] = {}  # name -> (size, mtime, first seen unchanged)
        # Tailed files whose read offset is inside a line too long to keep: skip to its newline.
        self._skipping: set[str] = set()
        self._dirty = False
        if state_file.is_file():
            try:
                self.done = {str(k): int(v) for k, v in json.loads(state_file.read_text()).get("files", {}).items()}
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
            write_json_atomic(self.state_file, {"folder": str(self.folder), "files": self.done})
            self._dirty = False
        return lines

    def run(self, sink: Callable[[Parsed, str], None]) -> None:
        """Poll until `stop` is set."""
        while not self.stop.is_set():
            if not self.poll(sink):
                self.stop.wait(self.poll_seconds)

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
                self.done[name] = offset + len(data)
                self._dirty = True
                self._skipping.add(name)
                sink(Parsed([], 1, f"a line of {name} is longer than {self.max_line_bytes} bytes"), name)
                return 1
            return 0  # no complete line yet
        lines = data[:end].split(b"\n")
        self.done[name] = offset + end + 1
        self._dirty = True
        sink(parse_lines(lines, self.text_field), name)
        return len(lines)

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
                pf = pq.ParquetFile(path)
                present = set(pf.schema_arrow.names)
                columns = None if self.fields is None else [f for f in self.fields if f in present]
                for batch in pf.iter_batches(batch_size=4096, columns=columns):
                    rows = batch.to_pylist()
                    good = [r for r in rows if isinstance(r.get(self.text_field), str)]
                    sink(Parsed(good, len(rows) - len(good),
                                None if len(good) == len(rows) else f"no string '{self.text_field}'"), name)
                    count += len(rows)
            else:
                lines: list[bytes] = []
                oversize = 0
                for _, line, _ in split_lines(open_stream(str(path)), self.max_line_bytes):
                    if line is None:
                        oversize += 1
                    else:
                        lines.append(line)
                    if len(lines) + oversize >= 4096:
                        self._sink_lines(lines, oversize, name, sink)
                        count += len(lines) + oversize
                        lines, oversize = [], 0
                if lines or oversize:
                    self._sink_lines(lines, oversize, name, sink)
                    count += len(lines) + oversize
        except Exception as e:  # a damaged dump is counted and named, never fatal
            log.warning("sidecar: %s is damaged after %d lines: %s", path, count, e)
            sink(Parsed([], 1, f"{name}: {e}"), name)
        self.done[name] = -1
        self._dirty = True
        self._seen.pop(name, None)
        return max(count, 1)

    def _sink_lines(self, lines: list[bytes], oversize: int, name: str, sink: Callable[[Parsed, str], None]) -> None:
        parsed = parse_lines(lines, self.text_field)
        if oversize:
            parsed.malformed += oversize
            parsed.first_error = parsed.first_error or f"a line of {name} is longer than {self.max_line_bytes} bytes"
        sink(parsed, name)
