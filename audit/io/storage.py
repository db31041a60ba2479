"""Files and folders on any filesystem: local paths now (object storage lands with issue 9, item 6).

Placeholder API surface agreed with the object-storage work; replaced by its full version on merge.
"""
from __future__ import annotations

import json
import os
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO

import pyarrow as pa
import pyarrow.dataset as pads
import pyarrow.fs as pafs
import pyarrow.parquet as pq


@dataclass(frozen=True)
class Location:
    """A file or folder on a filesystem."""

    fs: pafs.FileSystem
    path: str
    uri: str

    @property
    def name(self) -> str:
        return self.path.rstrip("/").rsplit("/", 1)[-1]

    @property
    def parent(self) -> "Location":
        p = str(Path(self.path).parent)
        return Location(self.fs, p, p)

    def child(self, *parts: str) -> "Location":
        p = "/".join([self.path.rstrip("/"), *parts])
        return Location(self.fs, p, p)

    @property
    def is_local(self) -> bool:
        return isinstance(self.fs, pafs.LocalFileSystem)

    def local_path(self) -> Path:
        return Path(self.path)

    def exists(self) -> bool:
        return self.fs.get_file_info(self.path).type != pafs.FileType.NotFound

    def is_dir(self) -> bool:
        return self.fs.get_file_info(self.path).type == pafs.FileType.Directory

    def is_file(self) -> bool:
        return self.fs.get_file_info(self.path).type == pafs.FileType.File

    def size(self) -> int:
        return int(self.fs.get_file_info(self.path).size)

    def mtime_ns(self) -> int | None:
        return self.fs.get_file_info(self.path).mtime_ns

    def ls(self) -> list["Location"]:
        if not self.is_dir():
            return []
        infos = self.fs.get_file_info(pafs.FileSelector(self.path))
        return sorted((Location(self.fs, i.path, i.path) for i in infos), key=lambda x: x.name)

    def mkdir(self) -> None:
        self.fs.create_dir(self.path, recursive=True)

    def read_bytes(self) -> bytes:
        with self.fs.open_input_stream(self.path) as f:
            return f.read()

    def read_text(self) -> str:
        return self.read_bytes().decode("utf-8")

    def read_json(self) -> Any:
        return json.loads(self.read_bytes())

    def write_bytes(self, data: bytes) -> None:
        tmp = f"{self.path}.tmp-{os.getpid()}"
        with open(tmp, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, self.path)

    def write_text(self, s: str) -> None:
        self.write_bytes(s.encode("utf-8"))

    def write_json(self, obj: Any) -> None:
        self.write_text(json.dumps(obj, indent=2, ensure_ascii=False))

    def open_input(self) -> BinaryIO:
        return open(self.path, "rb")

    def delete(self) -> None:
        p = Path(self.path)
        if p.is_dir():
            shutil.rmtree(p, ignore_errors=True)
        elif p.exists():
            p.unlink()

    def move_to(self, dest: "Location") -> None:
        os.replace(self.path, dest.path)

    def __str__(self) -> str:
        return self.uri


def location(uri_or_path: str | os.PathLike, base_dir: Path | None = None) -> Location:
    """A Location for a local path (relative to base_dir)."""
    p = Path(uri_or_path)
    if not p.is_absolute() and base_dir is not None:
        p = base_dir / p
    return Location(pafs.LocalFileSystem(), str(p.absolute()), str(uri_or_path))


def write_parquet(table: pa.Table, dest: Location) -> None:
    """Write one Parquet file atomically."""
    tmp = f"{dest.path}.tmp-{os.getpid()}"
    pq.write_table(table, tmp, compression="zstd")
    os.replace(tmp, dest.path)


def read_dataset(folder: Location, columns: list[str] | None = None, filter: Any = None) -> pa.Table | None:
    """A Parquet dataset folder as one table; None when the folder is missing or empty."""
    files = [f.path for f in folder.ls() if f.name.endswith(".parquet")]
    if not files:
        return None
    return pads.dataset(files, format="parquet", filesystem=folder.fs).to_table(columns=columns, filter=filter)
