"""Derived tables are cached on disk by what they depend on, written atomically, and a cached file
is trusted only as far as it can be checked."""
from __future__ import annotations

import os
import stat
import tempfile
from pathlib import Path

import numpy as np
import pytest

import audit.cache
from audit.cache import cache_roots, cached_arrays, inflated_copy

EXPECT = {"a": ((3,), np.float64)}


@pytest.fixture
def home_cache(tmp_path: Path, monkeypatch) -> Path:
    """An empty cache home, and a private temp folder, so no real cache folder is read or written."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "home"))
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "tmp"))
    (tmp_path / "tmp").mkdir()
    return tmp_path / "home" / "audit"


def test_derived_once_then_loaded(home_cache: Path) -> None:
    calls = []

    def derive() -> dict[str, np.ndarray]:
        calls.append(1)
        return {"a": np.arange(5, dtype=np.uint8)}

    first = cached_arrays("t", "v1", derive)
    again = cached_arrays("t", "v1", derive)
    other = cached_arrays("t", "v2", derive)
    assert len(calls) == 2  # v1 derived once, v2 once
    assert np.array_equal(first["a"], again["a"]) and np.array_equal(other["a"], first["a"])
    files = sorted(p.name for p in home_cache.iterdir())
    assert len(files) == 2 and all(f.startswith("t-") and f.endswith(".npz") for f in files)


def test_a_damaged_cache_file_is_derived_again(home_cache: Path) -> None:
    cached_arrays("t", "v1", lambda: {"a": np.ones(3)})
    (f,) = home_cache.iterdir()
    f.write_bytes(b"not a zip")
    assert cached_arrays("t", "v1", lambda: {"a": np.zeros(3)})["a"].tolist() == [0, 0, 0]


def test_a_truncated_cache_file_is_derived_again_and_replaced(home_cache: Path) -> None:
    cached_arrays("t", "v1", lambda: {"a": np.arange(100_000, dtype=np.float64)})
    (f,) = home_cache.iterdir()
    whole = f.read_bytes()
    f.write_bytes(whole[: len(whole) // 2])  # a real .npz cut short (a killed copy, a full disk)
    again = cached_arrays("t", "v1", lambda: {"a": np.arange(100_000, dtype=np.float64)})
    assert again["a"][-1] == 99_999
    assert f.read_bytes() == whole  # written again whole, so later processes load it
    assert [p.name for p in home_cache.iterdir()] == [f.name]


def test_a_failed_write_leaves_no_temporary_file(home_cache: Path) -> None:
    class Unwritable:
        def __array__(self, *args, **kwargs):
            raise OSError("no space left on device")

    arrays = cached_arrays("t", "v1", lambda: {"a": Unwritable()})
    assert isinstance(arrays["a"], Unwritable)
    leftovers = [p for root in cache_roots() if root.exists() for p in root.iterdir()]
    assert leftovers == []


def test_arrays_of_the_wrong_shape_or_type_are_derived_again(home_cache: Path) -> None:
    good = cached_arrays("t", "v1", lambda: {"a": np.ones(3)}, expect=EXPECT)
    (f,) = home_cache.iterdir()
    for planted in ({"a": np.ones(4)}, {"a": np.ones(3, dtype=np.float32)}, {"a": np.ones(3), "b": np.ones(1)}):
        with open(f, "wb") as out:
            np.savez(out, **planted)
        again = cached_arrays("t", "v1", lambda: {"a": np.full(3, 2.0)}, expect=EXPECT)
        assert again["a"].tolist() == [2.0, 2.0, 2.0]
    assert good["a"].tolist() == [1.0, 1.0, 1.0]


def test_a_shared_temp_folder_is_not_trusted(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "home"))
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "tmp"))
    (tmp_path / "tmp").mkdir()
    private = cache_roots()[1]
    assert private.parent == tmp_path / "tmp" and stat.S_IMODE(private.stat().st_mode) & 0o077 == 0
    # Someone else's (here: anyone's) writable folder is never read: a planted table is not loaded.
    os.chmod(private, 0o777)
    assert cache_roots() == [tmp_path / "home" / "audit"]
    os.chmod(private, 0o700)
    os.rmdir(private)
    os.symlink(tmp_path / "home", private)  # a link planted under the expected name
    assert cache_roots() == [tmp_path / "home" / "audit"]
    # With the home cache unwritable, a planted file in the shared folder is not loaded.
    os.unlink(private)
    private.mkdir(mode=0o777)
    os.chmod(private, 0o777)
    (tmp_path / "home").write_bytes(b"")  # XDG_CACHE_HOME is a file: the home cache cannot exist
    cached_arrays("t", "v1", lambda: {"a": np.ones(3)}, expect=EXPECT)
    assert list(private.iterdir()) == []  # nothing written to the shared folder either
    os.chmod(private, 0o700)
    cached_arrays("t", "v1", lambda: {"a": np.ones(3)}, expect=EXPECT)
    (key_file,) = private.iterdir()
    os.chmod(private, 0o777)
    with open(key_file, "wb") as out:
        np.savez(out, a=np.full(3, 9.0))  # same name, same shape: only ownership stops it
    assert cached_arrays("t", "v1", lambda: {"a": np.ones(3)}, expect=EXPECT)["a"].tolist() == [1.0, 1.0, 1.0]


def test_a_compressed_npz_is_inflated_once_into_the_cache(home_cache: Path, tmp_path: Path, monkeypatch) -> None:
    """A deflated .npz is copied uncompressed once; later calls return that copy untouched; a
    damaged copy is made again; with no cache folder to write, the source itself is read."""
    source = tmp_path / "w.npz"
    np.savez_compressed(source, q1=np.arange(1000, dtype=np.uint8), scale=np.ones(3, dtype=np.float32))
    copy = inflated_copy("w", "v1", source)
    assert copy.parent == home_cache and copy != source
    with np.load(copy) as got, np.load(source) as want:
        assert sorted(got.files) == sorted(want.files) and all(np.array_equal(got[k], want[k]) for k in want.files)
    made = copy.stat().st_mtime_ns
    assert inflated_copy("w", "v1", source) == copy and copy.stat().st_mtime_ns == made
    copy.write_bytes(copy.read_bytes()[:100])  # cut short
    assert inflated_copy("w", "v1", source) == copy
    with np.load(copy) as got:
        assert np.array_equal(got["q1"], np.arange(1000, dtype=np.uint8))
    nowhere = tmp_path / "a-file"
    nowhere.write_text("")
    monkeypatch.setattr(audit.cache, "cache_roots", lambda: [nowhere / "audit"])
    assert inflated_copy("w", "v2", source) == source
