"""Atomic writes: a file appears whole under its name or not at all. The one implementation.

`AtomicFile` is the writer every other one is made of. On the local disk it writes a hidden
temporary file beside the target (mode of a plainly created file, or of the file it replaces),
flushes it to disk and renames it over the target; a killed process leaves only a hidden
temporary, never a half file that looks whole. On an object store it writes the object itself,
which exists only once the upload completes (a failed write deletes what was begun).
`atomic_path` and `atomic_open` are its context-manager forms; `write_*_atomic` write a whole
text, JSON or Parquet file.
"""
from __future__ import annotations

import json
import os
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any, BinaryIO

import pyarrow as pa
import pyarrow.fs as pafs
import pyarrow.parquet as pq

if TYPE_CHECKING:
    from audit.io.storage import Location


def _file_mode() -> int:
    """What a plainly created file gets under the process umask (mkstemp would give 0600)."""
    mask = os.umask(0)
    os.umask(mask)
    return 0o666 & ~mask


_MODE = _file_mode()


class AtomicFile:
    """One file written aside and put in place whole by `commit()`, or dropped by `abort()`.

    `target`: a local path or a Location (local or object store). `keep_suffix`: the temporary
    name ends like the target's (so it reads as the same format: .jsonl.gz, .parquet).
    `mode_of`: a file whose permission bits the new file takes (a file being replaced)."""

    def __init__(self, target: "Path | str | Location", keep_suffix: bool = False,
                 mode_of: Path | None = None) -> None:
        self.location = None if isinstance(target, (str, os.PathLike)) else target
        self.local = self.location is None or self.location.is_local
        self.target = Path(target if self.location is None else self.location.path)
        self.mode_of = mode_of
        self._stream: BinaryIO | None = None
        self._done = False
        if self.local:
            self.target.parent.mkdir(parents=True, exist_ok=True)
            prefix, suffix = (".tmp.", f".{self.target.name}") if keep_suffix else (f".{self.target.name}.", ".tmp")
            fd, tmp = tempfile.mkstemp(prefix=prefix, suffix=suffix, dir=self.target.parent)
            os.fchmod(fd, _MODE)
            os.close(fd)
            self.path: Path | None = Path(tmp)
        else:
            self.path = None  # an object store writes the object itself: it appears when closed

    def open(self) -> BinaryIO:
        """A binary stream to write the file's bytes to (closed by commit/abort)."""
        if self._stream is None:
            if self.path is not None:  # Arrow's own stream: Parquet writers skip Python's file layer
                self._stream = pafs.LocalFileSystem().open_output_stream(str(self.path), compression=None)
            else:
                assert self.location is not None
                self._stream = self.location.fs.open_output_stream(self.location.path, compression=None)
        return self._stream

    def commit(self) -> None:
        """Put the file in place whole (local: fsync and rename over the target)."""
        if self._stream is not None:
            self._stream.close()
        if self.path is not None:
            with open(self.path, "rb") as f:
                os.fsync(f.fileno())
            if self.mode_of is not None:
                shutil.copymode(self.mode_of, self.path)
            os.replace(self.path, self.target)
        self._done = True

    def abort(self) -> None:
        """Drop what was written; the target is left as it was (an object begun is deleted)."""
        if self._done:
            return
        self._done = True
        if self._stream is not None:
            # closing an object store's stream completes its upload: the object is deleted after
            with suppress(OSError, ValueError):
                self._stream.close()
        if self.path is not None:
            self.path.unlink(missing_ok=True)
        elif self._stream is not None:
            assert self.location is not None
            with suppress(OSError):
                self.location.fs.delete_file(self.location.path)


@contextmanager
def atomic_path(target: Path, keep_suffix: bool = False, mode_of: Path | None = None) -> Iterator[Path]:
    """A temporary local path beside `target`; on success it is fsynced and renamed to `target`."""
    f = AtomicFile(target, keep_suffix, mode_of)
    assert f.path is not None
    try:
        yield f.path
        f.commit()
    except BaseException:
        f.abort()
        raise


@contextmanager
def atomic_output(target: "Path | Location") -> Iterator[BinaryIO]:
    """A binary stream whose bytes replace `target` (a path or a Location) only when the block succeeds."""
    f = AtomicFile(target)
    try:
        yield f.open()
        f.commit()
    except BaseException:
        f.abort()
        raise


@contextmanager
def atomic_open(target: Path, mode: str = "w", encoding: str | None = "utf-8") -> Iterator[IO[Any]]:
    """Open a temporary file for writing; it replaces `target` only when the block succeeds."""
    with atomic_path(target) as tmp:
        with open(tmp, mode, encoding=None if "b" in mode else encoding) as f:
            yield f


def write_text_atomic(target: Path, text: str) -> Path:
    """Write a text file atomically."""
    with atomic_open(target) as f:
        f.write(text)
    return Path(target)


def write_json_atomic(target: Path, obj: Any) -> Path:
    """Write a JSON file atomically (indented, UTF-8)."""
    return write_text_atomic(target, json.dumps(obj, indent=2, ensure_ascii=False, default=str) + "\n")


def write_parquet_atomic(table: pa.Table, target: "Path | Location") -> "Path | Location":
    """Write one Parquet file atomically (a path or a Location); returns `target`."""
    with atomic_output(target) as out:
        pq.write_table(table, out, compression="zstd")
    return target
