"""The per-user cache folder for tables audit derives once and reuses (never downloads).

Unicode tables that take a second to derive are kept here as .npz files, under names that carry
everything they depend on, so every later process (each Ray worker, the sidecar, a lookup) loads
them in milliseconds. A cached file is only a shortcut: one that cannot be read, or whose arrays
are not the shape and type the caller expects, is derived again.
"""
from __future__ import annotations

import getpass
import hashlib
import os
import stat
import tempfile
import unicodedata
import zipfile
from collections.abc import Callable
from pathlib import Path

import numpy as np

from audit.io.atomic import atomic_open

# What np.load raises on a missing, truncated or foreign file.
_UNREADABLE = (OSError, KeyError, ValueError, EOFError, zipfile.BadZipFile)

Expectation = dict[str, tuple[tuple[int, ...], "np.dtype | type"]]


def _private_folder(path: Path) -> bool:
    """Create `path` (mode 0o700) if needed; True when it is a real folder of the current user
    that nobody else can write to (a shared temp directory is open to planted files)."""
    try:
        path.mkdir(mode=0o700, exist_ok=True)
        st = path.lstat()
    except OSError:
        return False
    owner_ok = not hasattr(os, "getuid") or st.st_uid == os.getuid()
    return stat.S_ISDIR(st.st_mode) and owner_ok and not st.st_mode & (stat.S_IWGRP | stat.S_IWOTH)


def cache_roots() -> list[Path]:
    """Where to keep derived files, in order of preference: $XDG_CACHE_HOME/audit (or
    ~/.cache/audit), then, for read-only homes, a per-user folder in the system temp directory,
    used only while it belongs to this user and is writable by nobody else."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    roots = [Path(base) / "audit"]
    user = os.getuid() if hasattr(os, "getuid") else getpass.getuser()
    temp = Path(tempfile.gettempdir()) / f"audit-cache-{user}"
    if _private_folder(temp):
        roots.append(temp)
    return roots


def _matches(arrays: dict[str, np.ndarray], expect: Expectation | None) -> bool:
    """True when `arrays` holds exactly the expected names, shapes and dtypes (always without `expect`)."""
    if expect is None:
        return True
    if set(arrays) != set(expect):
        return False
    return all(arrays[k].shape == tuple(shape) and arrays[k].dtype == np.dtype(dtype)
               for k, (shape, dtype) in expect.items())


def _file_name(name: str, depends_on: str) -> str:
    """The cache file of `name` made from `depends_on` (and the Unicode version)."""
    key = hashlib.blake2b(f"{depends_on}|unicode {unicodedata.unidata_version}".encode(), digest_size=8).hexdigest()
    return f"{name}-{key}.npz"


def cached_arrays(name: str, depends_on: str, derive: Callable[[], dict[str, np.ndarray]],
                  expect: Expectation | None = None) -> dict[str, np.ndarray]:
    """Arrays derived by `derive`, loaded from the cache when a copy made from the same inputs
    (`depends_on`, plus the Unicode version) is there, else derived and saved atomically.

    `expect` maps each array name to its (shape, dtype): a cached copy that differs in any of them
    (damaged, or planted) is ignored and the arrays derived again. Pickled objects are never loaded.
    """
    file = _file_name(name, depends_on)
    roots = cache_roots()
    for root in roots:
        try:
            with np.load(root / file, allow_pickle=False) as z:
                arrays = {k: z[k] for k in z.files}
        except _UNREADABLE:
            continue
        if _matches(arrays, expect):
            return arrays
    arrays = derive()
    for root in roots:
        try:
            with atomic_open(root / file, "wb") as f:
                np.savez(f, **arrays)
            break
        except OSError:
            continue
    return arrays


def inflated_copy(name: str, depends_on: str, source: Path) -> Path:
    """An uncompressed copy, in the cache folder, of the compressed .npz file `source` (made once,
    atomically), for a reader that takes a path: loading a compressed one inflates it every time
    (the sentence encoder's 75 MB of weights: 0.35 s a process, against 0.05 s). A copy that is not
    a readable .npz of the source's members, stored, is made again; `source` itself is returned
    when no cache folder can hold one."""
    file = _file_name(name, depends_on)
    try:
        with zipfile.ZipFile(source) as z:
            members = sorted(z.namelist())
    except _UNREADABLE:
        return source  # its reader names the problem
    roots = cache_roots()
    for root in roots:
        try:
            with zipfile.ZipFile(root / file) as z:
                if sorted(z.namelist()) == members and all(i.compress_type == zipfile.ZIP_STORED for i in z.infolist()):
                    return root / file
        except _UNREADABLE:
            continue
    with np.load(source, allow_pickle=False) as z:
        arrays = {k: z[k] for k in z.files}
    for root in roots:
        try:
            with atomic_open(root / file, "wb") as f:
                np.savez(f, **arrays)
            return root / file
        except OSError:
            continue
    return source
