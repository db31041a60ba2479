"""Atomic writes: whole files under their names, readable as a plainly written file would be."""
from __future__ import annotations

import os
import stat
from pathlib import Path

import pyarrow as pa
import pyarrow.dataset as pads
import pytest

from audit.io.atomic import DatasetWriter, atomic_open, write_json_atomic


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


def test_dataset_writer_files_appear_whole_and_empty_datasets_keep_their_schema(tmp_path: Path) -> None:
    schema = pa.schema([("doc_id", pa.string()), ("n", pa.int64())])
    w = DatasetWriter(tmp_path / "d", schema, rows_per_file=2)
    w.write(pa.table({"doc_id": ["a", "b"], "n": [1, 2]}))  # reaches rows_per_file: the file is finished
    w.write(pa.table({"doc_id": ["c"], "n": [3]}))
    assert w.close() == 3
    assert sorted(p.name for p in (tmp_path / "d").iterdir()) == ["part-00000.parquet", "part-00001.parquet"]
    assert pads.dataset(tmp_path / "d").to_table().num_rows == 3
    e = DatasetWriter(tmp_path / "e", schema)
    e.close()
    assert pads.dataset(tmp_path / "e").to_table().schema == schema
