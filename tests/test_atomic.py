"""Atomic writes: whole files under their names, readable as a plainly written file would be."""
from __future__ import annotations

import os
import stat
from pathlib import Path

import pyarrow as pa
import pyarrow.fs as pafs
import pyarrow.parquet as pq
import pytest

from audit.io.atomic import atomic_open, atomic_output, atomic_path, write_json_atomic, write_parquet_atomic
from audit.io.storage import Location, location
from audit.job.parts import PartWriter


def test_files_get_the_umask_mode_not_owner_only(tmp_path: Path) -> None:
    plain = tmp_path / "plain.txt"
    plain.write_text("x")
    target = write_json_atomic(tmp_path / "summary.json", {"a": 1})
    assert stat.S_IMODE(target.stat().st_mode) == stat.S_IMODE(plain.stat().st_mode)


def test_a_failed_write_leaves_the_old_file_and_no_temporary(tmp_path: Path) -> None:
    target = tmp_path / "evidence.json"
    target.write_text("old")
    with pytest.raises(RuntimeError):
        with atomic_open(target) as f:
            f.write("half")
            raise RuntimeError("killed")
    assert target.read_text() == "old"
    assert os.listdir(tmp_path) == ["evidence.json"]


def test_a_replacement_keeps_the_suffix_and_takes_the_old_files_mode(tmp_path: Path) -> None:
    target = tmp_path / "shard.jsonl.gz"
    target.write_bytes(b"old")
    target.chmod(0o640)
    with atomic_path(target, keep_suffix=True, mode_of=target) as tmp:
        assert tmp.name.startswith(".") and tmp.name.endswith(".shard.jsonl.gz") and tmp.parent == tmp_path
        tmp.write_bytes(b"new")
        assert target.read_bytes() == b"old"  # nothing replaced before the block ends
    assert target.read_bytes() == b"new" and stat.S_IMODE(target.stat().st_mode) == 0o640
    assert os.listdir(tmp_path) == ["shard.jsonl.gz"]


def _remote(tmp_path: Path) -> Location:
    """A folder on a filesystem that is not the local one, as an object store is."""
    (tmp_path / "bucket" / "run").mkdir(parents=True)  # a local tree needs the folder an object store does not
    return Location(pafs.SubTreeFileSystem(str(tmp_path / "bucket"), pafs.LocalFileSystem()), "run", "mem://run")


def test_an_object_store_write_that_fails_leaves_no_object(tmp_path: Path) -> None:
    obj = _remote(tmp_path).child("summary.json")
    assert not obj.is_local
    with pytest.raises(RuntimeError):
        with atomic_output(obj) as out:
            out.write(b"half")
            raise RuntimeError("killed")
    assert not obj.exists()
    obj.write_bytes(b"{}")
    assert obj.read_bytes() == b"{}"


def test_a_part_appears_whole_or_not_at_all_on_either_filesystem(tmp_path: Path) -> None:
    table = pa.table({"n": [1, 2, 3]})
    for folder in (location(tmp_path / "local"), _remote(tmp_path)):
        kept, dropped = PartWriter(folder.child("a.parquet")), PartWriter(folder.child("b.parquet"))
        kept.write(table)
        dropped.write(table)
        if folder.is_local:  # (an object store shows an object once closed; this stand-in shows it at once)
            assert not folder.child("a.parquet").exists()  # not before it is closed
        kept.close()
        dropped.abort()
        assert pq.read_table(folder.child("a.parquet").open_input()).equals(table)
        assert [p.name for p in folder.ls()] == ["a.parquet"]  # no temporary, no half part
        PartWriter(folder.child("c.parquet")).close()  # no row and no schema: no file
        assert not folder.child("c.parquet").exists()


def test_parquet_written_through_a_location_reads_back(tmp_path: Path) -> None:
    dest = location(tmp_path / "t" / "p.parquet")
    write_parquet_atomic(pa.table({"n": [1, 2]}), dest)
    assert pq.read_table(dest.path).column("n").to_pylist() == [1, 2]
    assert os.listdir(tmp_path / "t") == ["p.parquet"]


def test_a_part_dictionary_encodes_only_its_columns_of_few_values(tmp_path: Path) -> None:
    # ids and hashes are all distinct: a dictionary for them is built only to be dropped (2x slower writes)
    n = 3000
    table = pa.table({"doc_id": [f"d{i}" for i in range(n)], "verdict": ["kept", "quarantined"] * (n // 2),
                      "reasons": [["length:too_short"] if i % 7 else [] for i in range(n)],
                      "chars": list(range(n))})
    writer = PartWriter(location(tmp_path / "p.parquet"))
    writer.write(table)
    writer.close()
    meta = pq.ParquetFile(tmp_path / "p.parquet").metadata.row_group(0)
    encoded = {meta.column(i).path_in_schema.split(".")[0]: meta.column(i).encodings for i in range(meta.num_columns)}
    assert {name for name, enc in encoded.items() if any("DICTIONARY" in e for e in enc)} == {"verdict", "reasons"}
    assert pq.read_table(tmp_path / "p.parquet").equals(table)
