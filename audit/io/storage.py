"""Files and folders on any filesystem pyarrow.fs or fsspec knows: local paths, s3://, gs://, hf://, ...

A `Location` is a filesystem and a path in it; it pickles, so Ray ships it to the workers that
write a run's parts. Credentials come from the environment (AWS_ACCESS_KEY_ID, AWS_ENDPOINT_URL,
GOOGLE_APPLICATION_CREDENTIALS, ...), never from the URI: a URI is written into lineage and
run.json, and a secret in it would be too. Writes are atomic: local files are written aside and
renamed; an object store shows an object only once it is whole.
"""
from __future__ import annotations

import json
import os
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO
from urllib.parse import parse_qsl, urlsplit

import pyarrow as pa
import pyarrow.fs as pafs

from audit.config import ConfigError
from audit.io.atomic import atomic_output, write_parquet_atomic


@dataclass(frozen=True)
class Location:
    """A file or folder: `fs`, the `path` inside it, and `uri` (a local path, or the URI to show)."""

    fs: pafs.FileSystem
    path: str
    uri: str

    @property
    def name(self) -> str:
        return self.path.rstrip("/").rsplit("/", 1)[-1]

    @property
    def parent(self) -> "Location":
        path = self.path.rstrip("/").rsplit("/", 1)[0]
        return Location(self.fs, path, _with_path(self.uri, self.path, path))

    def child(self, *parts: str) -> "Location":
        path = "/".join([self.path.rstrip("/"), *parts])
        return Location(self.fs, path, _with_path(self.uri, self.path, path))

    @property
    def is_local(self) -> bool:
        return isinstance(self.fs, pafs.LocalFileSystem)

    def local_path(self) -> Path:
        """The path on this machine (local locations only)."""
        if not self.is_local:
            raise ValueError(f"{self}: not on the local filesystem")
        return Path(self.path)

    def _info(self) -> pafs.FileInfo:
        return self.fs.get_file_info(self.path)

    def exists(self) -> bool:
        return self._info().type != pafs.FileType.NotFound

    def is_dir(self) -> bool:
        return self._info().type == pafs.FileType.Directory

    def is_file(self) -> bool:
        return self._info().type == pafs.FileType.File

    def size(self) -> int:
        return int(self._info().size)

    def mtime_ns(self) -> int | None:
        """Modification time (object stores: the last write), None where the store keeps none."""
        return self._info().mtime_ns

    def ls(self) -> list["Location"]:
        """Direct children, sorted by name; [] for a missing folder."""
        if not self.is_dir():
            return []
        infos = self.fs.get_file_info(pafs.FileSelector(self.path, allow_not_found=True))
        return sorted((Location(self.fs, i.path, _with_path(self.uri, self.path, i.path)) for i in infos),
                      key=lambda x: x.name)

    def walk(self) -> list["Location"]:
        """Every file below this folder, sorted by path."""
        if not self.is_dir():
            return []
        infos = self.fs.get_file_info(pafs.FileSelector(self.path, recursive=True, allow_not_found=True))
        return sorted((Location(self.fs, i.path, _with_path(self.uri, self.path, i.path))
                       for i in infos if i.type == pafs.FileType.File), key=lambda x: x.path)

    def mkdir(self) -> None:
        """Create the folder and its parents (object stores have no folders: nothing to do)."""
        if self.is_local:
            self.fs.create_dir(self.path, recursive=True)

    def read_bytes(self) -> bytes:
        with self.fs.open_input_stream(self.path, compression=None) as f:
            return f.read()

    def read_text(self) -> str:
        return self.read_bytes().decode("utf-8")

    def read_json(self) -> Any:
        return json.loads(self.read_bytes())

    def write_bytes(self, data: bytes) -> None:
        """Write the whole file atomically."""
        with atomic_output(self) as f:
            f.write(data)

    def write_text(self, s: str) -> None:
        self.write_bytes(s.encode("utf-8"))

    def write_json(self, obj: Any) -> None:
        self.write_text(json.dumps(obj, indent=2, ensure_ascii=False))

    def open_input(self) -> BinaryIO:
        """A binary reader (seekable where the filesystem allows)."""
        return self.fs.open_input_file(self.path)  # type: ignore[return-value]

    def delete(self) -> None:
        """Remove a file, or a folder with everything in it; a missing one is fine."""
        t = self._info().type
        if t == pafs.FileType.Directory:
            self.fs.delete_dir(self.path)
        elif t == pafs.FileType.File:
            self.fs.delete_file(self.path)

    def move_to(self, dest: "Location") -> None:
        """Rename (local); on an object store, copy then delete, file by file."""
        if self.is_local and dest.is_local:
            os.replace(self.path, dest.path)
            return
        if self.is_dir():
            for f in self.walk():
                f.move_to(dest.child(*f.path[len(self.path.rstrip("/")) + 1:].split("/")))
            self.delete()
        else:
            if self.fs.equals(dest.fs):
                self.fs.copy_file(self.path, dest.path)
            else:  # another filesystem (local <-> s3, s3 <-> gs): through this machine
                _copy_file(self, dest)
            self.fs.delete_file(self.path)

    def download(self, local: Path) -> None:
        """Copy this file or folder to `local` on this machine."""
        if self.is_dir():
            for f in self.walk():
                f.download(local / f.path[len(self.path.rstrip("/")) + 1:])
            local.mkdir(parents=True, exist_ok=True)
        elif self.is_file():
            _copy_file(self, location(local))

    def upload(self, local: Path) -> None:
        """Copy a local file or folder here (each file written whole)."""
        if local.is_dir():
            for p in sorted(local.rglob("*")):
                if p.is_file():
                    self.child(*p.relative_to(local).parts).upload(p)
        else:
            _copy_file(location(local), self)

    def __str__(self) -> str:
        return self.uri


def _copy_file(src: Location, dst: Location) -> None:
    """Stream one file to another place, on any filesystems; the copy appears only when whole."""
    with src.fs.open_input_stream(src.path, compression=None) as fin, atomic_output(dst) as fout:
        shutil.copyfileobj(fin, fout, 1 << 20)


def _with_path(uri: str, old: str, new: str) -> str:
    """The URI of `new`, given that `uri` names `old` (keeps the scheme, host and query)."""
    if "://" not in uri:
        return new
    parts = urlsplit(uri)
    tail = new[len(old.rstrip("/")):] if new.startswith(old.rstrip("/")) else "/" + new
    path = parts.path.rstrip("/") + tail
    return parts._replace(path=path).geturl()


def is_uri(value: str | os.PathLike) -> bool:
    """Whether a path names a filesystem by scheme (s3://, gs://, file://, ...)."""
    s = str(value)
    return "://" in s and s.split("://", 1)[0].isidentifier()


def location(uri_or_path: str | os.PathLike, base_dir: Path | None = None) -> Location:
    """A Location for a local path (relative ones against base_dir) or a URI."""
    s = str(uri_or_path)
    if not is_uri(s):
        p = Path(s).expanduser()
        if not p.is_absolute():
            p = (base_dir or Path.cwd()) / p
        return Location(pafs.LocalFileSystem(), os.path.normpath(str(p.absolute())), os.path.normpath(str(p)))
    parts = urlsplit(s)
    if parts.username or parts.password:
        raise ConfigError(f"{parts.scheme}://...@{parts.hostname}{parts.path}: credentials in a URI would be "
                          "written into lineage and run.json: give them in the environment (AWS_ACCESS_KEY_ID, "
                          "AWS_SECRET_ACCESS_KEY, ...) instead")
    scheme = parts.scheme.lower()
    if scheme == "file":
        return location(parts.path, base_dir)
    if scheme == "s3":
        return Location(_s3(parts), f"{parts.netloc}{parts.path}".rstrip("/"), s.rstrip("/"))
    try:
        fs, path = pafs.FileSystem.from_uri(s)
        return Location(fs, path.rstrip("/"), s.rstrip("/"))
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError, ValueError):
        pass  # a scheme pyarrow has no filesystem for: fsspec's registry is the next to ask
    try:
        import fsspec

        ffs, path = fsspec.core.url_to_fs(s)
    except (ImportError, ValueError) as e:
        raise ConfigError(f"{s}: no filesystem for '{scheme}://' ({e}): install its fsspec package "
                          f"(e.g. gcsfs, adlfs, huggingface_hub) or use a local path") from None
    return Location(pafs.PyFileSystem(pafs.FSSpecHandler(ffs)), path.rstrip("/"), s.rstrip("/"))


def _s3(parts: Any) -> pafs.S3FileSystem:
    """An S3 filesystem for a URI: options from its query (endpoint_override, scheme, region),
    credentials and endpoint otherwise from the environment, as the AWS tools read them."""
    opts = dict(parse_qsl(parts.query))
    unknown = set(opts) - {"endpoint_override", "scheme", "region"}
    if unknown:
        raise ConfigError(f"s3://{parts.netloc}{parts.path}: unknown URI option(s) {', '.join(sorted(unknown))} "
                          "(known: endpoint_override, scheme, region)")
    region = opts.get("region") or os.environ.get("AWS_REGION") or os.environ.get("AWS_DEFAULT_REGION")
    endpoint, scheme = opts.get("endpoint_override"), opts.get("scheme")
    env = os.environ.get("AWS_ENDPOINT_URL_S3") or os.environ.get("AWS_ENDPOINT_URL")
    if endpoint is None and env:  # the AWS tools' variable, e.g. http://127.0.0.1:9000
        e = urlsplit(env if "://" in env else f"https://{env}")
        endpoint, scheme = e.netloc, scheme or e.scheme
    # allow_delayed_open: a small object is written with one PutObject, not a multipart upload
    return pafs.S3FileSystem(endpoint_override=endpoint, scheme=scheme or "https", region=region,
                             allow_delayed_open=True)


def write_parquet(table: pa.Table, dest: Location) -> None:
    """Write one Parquet file atomically (audit.io.atomic)."""
    write_parquet_atomic(table, dest)
