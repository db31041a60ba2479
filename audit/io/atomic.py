"""Atomic writes: a file appears whole under its name or not at all.

Everything is written to a temporary name in the same folder, flushed to disk, then renamed over
the target; a killed job leaves only `.tmp` files, never a half file that looks whole.
"""
from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any

import pyarrow as pa
import pyarrow.parquet as pq


def _file_mode() -> int:
    """What a plainly created file gets under the process umask (mkstemp would give 0600)."""
    mask = os.umask(0)
    os.umask(mask)
    return 0o666 & ~mask


_MODE = _file_mode()


def _fsync(path: Path | str) -> None:
    with open(path, "rb") as f:
        os.fsync(f.fileno())


@contextmanager
def atomic_path(target: Path) -> Iterator[Path]:
    """A temporary path beside `target`; on success it is fsynced and renamed to `target`."""
    target = Path(target)
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    os.fchmod(fd, _MODE)
    os.close(fd)
    try:
        yield Path(tmp)
        _fsync(tmp)
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
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


def write_parquet_atomic(table: pa.Table, target: Path) -> Path:
    """Write one Parquet file atomically."""
    with atomic_path(target) as tmp:
        pq.write_table(table, tmp, compression="zstd")
    return Path(target)


class DatasetWriter:
    """Appends Arrow tables to a Parquet dataset folder, a new file every `rows_per_file` rows.

    Files are written under temporary names and renamed when closed, so a reader of the folder
    never sees a half file. The folder always holds at least one file (empty, with the schema),
    so `pyarrow.dataset.dataset(folder)` reads an empty result as a table with the right columns.
    """

    def __init__(self, folder: Path, schema: pa.Schema, rows_per_file: int = 2_000_000) -> None:
        self.folder, self.schema, self.rows_per_file = Path(folder), schema, rows_per_file
        self.folder.mkdir(parents=True, exist_ok=True)
        self._writer: pq.ParquetWriter | None = None
        self._tmp: Path | None = None
        self._rows_in_file = 0
        self._files = 0
        self.rows = 0

    def write(self, table: pa.Table) -> None:
        if table.num_rows == 0:
            return
        table = table.select(self.schema.names).cast(self.schema)
        if self._writer is None:
            self._open()
        assert self._writer is not None
        self._writer.write_table(table)
        self._rows_in_file += table.num_rows
        self.rows += table.num_rows
        if self._rows_in_file >= self.rows_per_file:
            self._finish()

    def _open(self) -> None:
        self._tmp = self.folder / f".part-{self._files:05d}.parquet.tmp"
        self._writer = pq.ParquetWriter(self._tmp, self.schema, compression="zstd")
        self._rows_in_file = 0

    def _finish(self) -> None:
        if self._writer is None:
            return
        self._writer.close()
        assert self._tmp is not None
        _fsync(self._tmp)
        os.replace(self._tmp, self.folder / f"part-{self._files:05d}.parquet")
        self._files += 1
        self._writer = None

    def close(self) -> int:
        """Finish the last file; returns the number of rows written."""
        if self._files == 0 and self._writer is None:
            self._open()  # an empty dataset still carries its schema
        self._finish()
        return self.rows
