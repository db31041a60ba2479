"""Files and folders on any filesystem pyarrow.fs or fsspec knows: local paths, s3://, gs://, hf://, ...

A `Location` is a filesystem and a path in it; it pickles, so Ray ships it to the workers that
write a run's parts. Credentials come from the environment (AWS_ACCESS_KEY_ID, AWS_ENDPOINT_URL,
GOOGLE_APPLICATION_CREDENTIALS, ...), never from the URI: a URI is written into lineage and
run.json, and a secret in it would be too. Writes are atomic: local files are written aside and
renamed; an object store shows an object only once it is whole.

An object store that cannot be reached (down, hanging, an unknown host) or refuses us is a
`StorageError`: one line naming the URI and the cause, raised by every Location operation once
the store's client has retried it (S3: bounded connect and request timeouts, 3 attempts).
"""
from __future__ import annotations

import functools
import json
import os
import re
import shutil
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO, TypeVar
from urllib.parse import parse_qsl, urlsplit

import pyarrow as pa
import pyarrow.fs as pafs

from audit.config import ConfigError
from audit.io.atomic import atomic_output, write_parquet_atomic

F = TypeVar("F", bound=Callable[..., Any])
# S3 client bounds, in seconds (URI options connect_timeout / request_timeout override them): a
# hanging endpoint fails after about S3_ATTEMPTS x request timeout, never waits for ever.
S3_CONNECT_TIMEOUT = 5.0
S3_REQUEST_TIMEOUT = 10.0
S3_ATTEMPTS = 3
# Files a folder move on an object store copies at once (a run's swap moves a few hundred).
MOVE_THREADS = 16
_CURL_CAUSES = {"6": "cannot resolve the host name", "7": "connection refused", "28": "timed out (no answer)",
                "35": "TLS handshake failed", "52": "empty reply from the server", "56": "connection reset"}


class StorageError(OSError):
    """An object store that cannot be reached or refuses a request, after its client's retries."""


def storage_error(e: OSError, uri: str | None = None) -> StorageError | None:
    """The one-line StorageError for an object store's error (pyarrow's "AWS Error ..."), naming
    `uri` (None: the bucket and key the error names), its endpoint and the cause; None for other
    errors (a missing key stays itself)."""
    if isinstance(e, StorageError):
        return e
    text = str(e)
    m = re.search(r"AWS Error ([A-Z_]+)", text)
    if m is None or m.group(1) in ("NO_SUCH_KEY", "RESOURCE_NOT_FOUND"):
        return None
    if uri is None:
        where = re.search(r"key '([^']*)' in bucket '([^']*)'", text) or re.search(r"bucket '([^']*)'", text)
        uri = ("s3://" + "/".join(reversed(where.groups()))) if where else "s3://"
    endpoint = s3_endpoint(uri)
    uri = urlsplit(uri)._replace(query="").geturl()  # the endpoint is named on its own
    if m.group(1) == "NETWORK_CONNECTION":
        curl = re.search(r"curlCode: (\d+), ([^;]*)", text)
        cause = (_CURL_CAUSES.get(curl.group(1)) or curl.group(2).strip().lower()) if curl else "network error"
        return StorageError(f"{uri}: cannot reach {'endpoint ' + endpoint if endpoint else 'the AWS endpoint'}: "
                            f"{cause} (after {S3_ATTEMPTS} "
                            "tries): check the endpoint (AWS_ENDPOINT_URL or the URI's endpoint_override) and that "
                            "the store is up, then run again")
    detail = text.split(m.group(0), 1)[1].split(";", 1)[0].strip(" :")
    return StorageError(f"{uri}: the object store refused the request ({m.group(1)}{': ' + detail if detail else ''}): "
                        "check the bucket and the credentials in the environment")


def causes(e: BaseException) -> Iterator[BaseException]:
    """An exception and its causes, outermost first (a Ray task's error keeps its cause in `cause`)."""
    seen: set[int] = set()
    cur: BaseException | None = e
    while cur is not None and id(cur) not in seen:
        seen.add(id(cur))
        yield cur
        cur = getattr(cur, "cause", None) or cur.__cause__ or cur.__context__


def _named(method: F) -> F:
    """A Location operation whose object-store errors become one-line StorageErrors."""
    @functools.wraps(method)
    def wrapper(self: "Location", *args: Any, **kwargs: Any) -> Any:
        try:
            return method(self, *args, **kwargs)
        except OSError as e:
            if self.is_local:
                raise
            err = storage_error(e, self.uri)
            if err is None or err is e:
                raise
            raise err from e
    return wrapper  # type: ignore[return-value]


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

    @_named
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

    @_named
    def ls(self) -> list["Location"]:
        """Direct children, sorted by name; [] for a missing folder."""
        if not self.is_dir():
            return []
        infos = self.fs.get_file_info(pafs.FileSelector(self.path, allow_not_found=True))
        return sorted((Location(self.fs, i.path, _with_path(self.uri, self.path, i.path)) for i in infos),
                      key=lambda x: x.name)

    @_named
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

    @_named
    def read_bytes(self) -> bytes:
        with self.fs.open_input_stream(self.path, compression=None) as f:
            return f.read()

    def read_text(self) -> str:
        return self.read_bytes().decode("utf-8")

    def read_json(self) -> Any:
        return json.loads(self.read_bytes())

    @_named
    def write_bytes(self, data: bytes) -> None:
        """Write the whole file atomically."""
        with atomic_output(self) as f:
            f.write(data)

    def write_text(self, s: str) -> None:
        self.write_bytes(s.encode("utf-8"))

    def write_json(self, obj: Any) -> None:
        self.write_text(json.dumps(obj, indent=2, ensure_ascii=False))

    @_named
    def open_input(self) -> BinaryIO:
        """A binary reader (seekable where the filesystem allows)."""
        return self.fs.open_input_file(self.path)  # type: ignore[return-value]

    @_named
    def delete(self) -> None:
        """Remove a file, or a folder with everything in it; a missing one is fine."""
        t = self._info().type
        if t == pafs.FileType.Directory:
            self.fs.delete_dir(self.path)
        elif t == pafs.FileType.File:
            self.fs.delete_file(self.path)

    @_named
    def move_to(self, dest: "Location") -> None:
        """Rename (local); on an object store, copy every file (MOVE_THREADS at once), then delete."""
        if self.is_local and dest.is_local:
            os.replace(self.path, dest.path)
            return
        if self.is_dir():
            root = self.path.rstrip("/")
            # each copy waits a round trip on the store: overlapped, not one after the other
            with ThreadPoolExecutor(MOVE_THREADS) as pool:
                list(pool.map(lambda f: f._copy_to(dest.child(*f.path[len(root) + 1:].split("/"))), self.walk()))
            self.delete()
        else:
            self._copy_to(dest)
            self.fs.delete_file(self.path)

    def _copy_to(self, dest: "Location") -> None:
        """Copy this file to `dest`: inside the store where both are on it, else through this machine."""
        if self.fs.equals(dest.fs):
            self.fs.copy_file(self.path, dest.path)
        else:  # another filesystem (local <-> s3, s3 <-> gs)
            copy_file_to(self, dest)

    @_named
    def download(self, local: Path) -> None:
        """Copy this file or folder to `local` on this machine."""
        if self.is_dir():
            for f in self.walk():
                f.download(local / f.path[len(self.path.rstrip("/")) + 1:])
            local.mkdir(parents=True, exist_ok=True)
        elif self.is_file():
            copy_file_to(self, location(local))

    @_named
    def upload(self, local: Path) -> None:
        """Copy a local file or folder here (each file written whole)."""
        if local.is_dir():
            for p in sorted(local.rglob("*")):
                if p.is_file():
                    self.child(*p.relative_to(local).parts).upload(p)
        else:
            copy_file_to(location(local), self)

    def __str__(self) -> str:
        return self.uri


def copy_file_to(src: Location, dst: Location) -> None:
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
    known = ("endpoint_override", "scheme", "region", "connect_timeout", "request_timeout")
    unknown = set(opts) - set(known)
    if unknown:
        raise ConfigError(f"s3://{parts.netloc}{parts.path}: unknown URI option(s) {', '.join(sorted(unknown))} "
                          f"(known: {', '.join(known)})")
    timeouts = {}
    for key, default in (("connect_timeout", S3_CONNECT_TIMEOUT), ("request_timeout", S3_REQUEST_TIMEOUT)):
        try:
            timeouts[key] = float(opts.get(key, default))
        except ValueError:
            timeouts[key] = -1.0
        if not timeouts[key] > 0:
            raise ConfigError(f"s3://{parts.netloc}{parts.path}: URI option {key}={opts[key]} is not a number of "
                              "seconds above 0")
    region = opts.get("region") or os.environ.get("AWS_REGION") or os.environ.get("AWS_DEFAULT_REGION")
    endpoint, scheme = _s3_endpoint(opts)
    # allow_delayed_open: a small object is written with one PutObject, not a multipart upload
    return pafs.S3FileSystem(endpoint_override=endpoint, scheme=scheme or "https", region=region,
                             allow_delayed_open=True, retry_strategy=pafs.AwsStandardS3RetryStrategy(S3_ATTEMPTS),
                             **timeouts)


def _s3_endpoint(opts: dict[str, str]) -> tuple[str | None, str | None]:
    """(host:port, scheme) from the URI's options, else from the AWS tools' variable
    (AWS_ENDPOINT_URL_S3 / AWS_ENDPOINT_URL, e.g. http://127.0.0.1:9000); None: AWS's own."""
    endpoint, scheme = opts.get("endpoint_override"), opts.get("scheme")
    env = os.environ.get("AWS_ENDPOINT_URL_S3") or os.environ.get("AWS_ENDPOINT_URL")
    if endpoint is None and env:
        e = urlsplit(env if "://" in env else f"https://{env}")
        endpoint, scheme = e.netloc, scheme or e.scheme
    return endpoint, scheme


def s3_endpoint(uri: str) -> str | None:
    """The endpoint an s3:// URI is read from, as host:port (None: AWS's own)."""
    return _s3_endpoint(dict(parse_qsl(urlsplit(uri).query)))[0]


def write_parquet(table: pa.Table, dest: Location) -> None:
    """Write one Parquet file atomically (audit.io.atomic)."""
    write_parquet_atomic(table, dest)
