"""Derived tables are cached on disk by what they depend on, and written atomically."""
from __future__ import annotations

from pathlib import Path

import numpy as np

from audit.cache import cached_arrays


def test_derived_once_then_loaded(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    calls = []

    def derive() -> dict[str, np.ndarray]:
        calls.append(1)
        return {"a": np.arange(5, dtype=np.uint8)}

    first = cached_arrays("t", "v1", derive)
    again = cached_arrays("t", "v1", derive)
    other = cached_arrays("t", "v2", derive)
    assert len(calls) == 2  # v1 derived once, v2 once
    assert np.array_equal(first["a"], again["a"]) and np.array_equal(other["a"], first["a"])
    files = sorted(p.name for p in (tmp_path / "audit").iterdir())
    assert len(files) == 2 and all(f.startswith("t-") and f.endswith(".npz") for f in files)


def test_a_damaged_cache_file_is_derived_again(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    cached_arrays("t", "v1", lambda: {"a": np.ones(3)})
    (f,) = (tmp_path / "audit").iterdir()
    f.write_bytes(b"not a zip")
    assert cached_arrays("t", "v1", lambda: {"a": np.zeros(3)})["a"].tolist() == [0, 0, 0]
