"""The per-user cache folder for tables audit derives once and reuses (never downloads).

Unicode tables that take a second to derive are kept here as .npz files, under names that carry
everything they depend on, so every later process (each Ray worker, the sidecar, a lookup) loads
them in milliseconds.
"""
from __future__ import annotations

import hashlib
import os
import tempfile
import unicodedata
from collections.abc import Callable
from pathlib import Path

import numpy as np


def cache_roots() -> list[Path]:
    """Where to keep derived files, in order of preference: $XDG_CACHE_HOME/audit (or
    ~/.cache/audit), then a folder in the system temp directory for read-only homes."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return [Path(base) / "audit", Path(tempfile.gettempdir()) / "audit-cache"]


def cached_arrays(name: str, depends_on: str, derive: Callable[[], dict[str, np.ndarray]]) -> dict[str, np.ndarray]:
    """Arrays derived by `derive`, loaded from the cache when a copy made from the same inputs
    (`depends_on`, plus the Unicode version) is there, else derived and saved atomically."""
    key = hashlib.blake2b(f"{depends_on}|unicode {unicodedata.unidata_version}".encode(), digest_size=8).hexdigest()
    file = f"{name}-{key}.npz"
    for root in cache_roots():
        try:
            with np.load(root / file) as z:
                return {k: z[k] for k in z.files}
        except (OSError, KeyError, ValueError):
            continue
    arrays = derive()
    for root in cache_roots():
        try:
            root.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(prefix=f".{file}.", suffix=".tmp", dir=root)
            with os.fdopen(fd, "wb") as f:
                np.savez(f, **arrays)
            os.replace(tmp, root / file)
            break
        except OSError:
            continue
    return arrays
