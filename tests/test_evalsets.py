"""Eval set loading: formats, joined text fields, default ids, and one-line errors."""
from __future__ import annotations

import gzip
import json
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from audit.config import ConfigError, parse_config
from audit.evalsets import load_eval_sets

ITEMS = [{"qid": "q1", "question": "What is two plus two?", "answer": "Four."},
         {"qid": "q2", "question": "Name a colour.", "answer": "Blue."}]


def _config(tmp_path: Path, path: str, **kw):
    entry = {"name": "toy", "path": path, "text_fields": ["question", "answer"], **kw}
    return parse_config({"input": {"paths": ["shards/"]}, "eval_sets": [entry]}, base_dir=tmp_path)


def _write_jsonl(path: Path, rows: list[dict]) -> None:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")


@pytest.mark.parametrize("fmt", ["jsonl", "jsonl.gz", "parquet", "csv"])
def test_every_format_loads_with_joined_fields(tmp_path, fmt):
    path = tmp_path / f"toy.{fmt}"
    if fmt == "jsonl":
        _write_jsonl(path, ITEMS)
    elif fmt == "jsonl.gz":
        with gzip.open(path, "wt", encoding="utf-8") as f:
            f.writelines(json.dumps(r) + "\n" for r in ITEMS)
    elif fmt == "parquet":
        pq.write_table(pa.Table.from_pylist(ITEMS), path)
    else:
        path.write_text("qid,question,answer\n" + "".join(f'{r["qid"]},{r["question"]},{r["answer"]}\n'
                                                         for r in ITEMS), encoding="utf-8")
    [s] = load_eval_sets(_config(tmp_path, path.name, id_field="qid"))  # relative to the config folder
    assert s.name == "toy" and len(s) == 2
    assert s.ids == ["q1", "q2"]
    assert s.texts[0] == "What is two plus two?\nFour."


def test_ids_default_to_the_item_index(tmp_path):
    _write_jsonl(tmp_path / "toy.jsonl", ITEMS)
    [s] = load_eval_sets(_config(tmp_path, "toy.jsonl"))
    assert s.ids == ["0", "1"]


def test_real_gsm8k_loads(shared_data):
    config = parse_config({"input": {"paths": ["x"]}, "eval_sets": [
        {"name": "gsm8k", "path": str(shared_data / "evals" / "gsm8k_test.jsonl"),
         "text_fields": ["question", "answer"]},
        {"name": "humaneval", "path": str(shared_data / "evals" / "HumanEval.jsonl.gz"),
         "text_fields": ["prompt", "canonical_solution"], "id_field": "task_id"}]})
    gsm, he = load_eval_sets(config)
    assert len(gsm) == 1319 and len(he) == 164
    assert he.ids[0] == "HumanEval/0" and "def " in he.texts[0]


def _error(config) -> str:
    with pytest.raises(ConfigError) as e:
        load_eval_sets(config)
    msg = str(e.value)
    assert "\n" not in msg
    return msg


def test_an_empty_eval_set_file_is_a_clear_error(tmp_path):
    (tmp_path / "toy.jsonl").write_text("", encoding="utf-8")
    msg = _error(_config(tmp_path, "toy.jsonl"))
    assert "eval set 'toy'" in msg and str(tmp_path / "toy.jsonl") in msg and "no items" in msg


def test_a_missing_text_field_is_a_clear_error(tmp_path):
    _write_jsonl(tmp_path / "toy.jsonl", [{"id": 1, "text": "only text"}])
    msg = _error(_config(tmp_path, "toy.jsonl"))
    assert "eval set 'toy'" in msg and "'question'" in msg and "text_fields" in msg


def test_a_missing_id_field_is_a_clear_error(tmp_path):
    _write_jsonl(tmp_path / "toy.jsonl", ITEMS)
    msg = _error(_config(tmp_path, "toy.jsonl", id_field="task_id"))
    assert "'task_id'" in msg


def test_a_missing_file_is_a_clear_error(tmp_path):
    msg = _error(_config(tmp_path, "nowhere.jsonl"))
    assert "no such file" in msg and "nowhere.jsonl" in msg


def test_bad_json_names_the_line(tmp_path):
    (tmp_path / "toy.jsonl").write_text(json.dumps(ITEMS[0]) + "\n{not json\n", encoding="utf-8")
    msg = _error(_config(tmp_path, "toy.jsonl"))
    assert "line 2" in msg


def test_unknown_format_and_duplicate_names(tmp_path):
    (tmp_path / "toy.txt").write_text("x", encoding="utf-8")
    assert "unknown format" in _error(_config(tmp_path, "toy.txt"))
    _write_jsonl(tmp_path / "toy.jsonl", ITEMS)
    entry = {"name": "toy", "path": "toy.jsonl", "text_fields": ["question"]}
    config = parse_config({"input": {"paths": ["x"]}, "eval_sets": [entry, entry]}, base_dir=tmp_path)
    assert "named twice" in _error(config)


def _gz_items(n: int = 2000) -> bytes:
    rows = [{"question": f"Question number {i} about apples?", "answer": f"Answer {i}."} for i in range(n)]
    return gzip.compress("".join(json.dumps(r) + "\n" for r in rows).encode())


def test_a_truncated_gzip_file_is_a_clear_error(tmp_path):
    data = _gz_items()
    (tmp_path / "toy.jsonl.gz").write_bytes(data[:len(data) // 2])
    msg = _error(_config(tmp_path, "toy.jsonl.gz"))
    assert "eval set 'toy'" in msg and "cannot read it" in msg and "\n" not in msg


def test_a_corrupt_gzip_file_is_a_clear_error(tmp_path):
    data = bytearray(_gz_items())
    data[40:80] = bytes(40)  # zeros inside the deflate stream
    (tmp_path / "toy.jsonl.gz").write_bytes(bytes(data))
    msg = _error(_config(tmp_path, "toy.jsonl.gz"))
    assert "eval set 'toy'" in msg and "cannot read it" in msg and "\n" not in msg


def test_zstd_json_lines_load(tmp_path):
    import zstandard

    (tmp_path / "toy.jsonl.zst").write_bytes(
        zstandard.ZstdCompressor().compress("".join(json.dumps(r) + "\n" for r in ITEMS).encode()))
    [s] = load_eval_sets(_config(tmp_path, "toy.jsonl.zst", id_field="qid"))
    assert s.ids == ["q1", "q2"] and s.texts[1] == "Name a colour.\nBlue."


def test_csv_with_a_byte_order_mark_and_a_huge_field(tmp_path):
    long_answer = "word " * 40_000  # 200,000 characters: over csv's default field limit
    (tmp_path / "toy.csv").write_text(f"qid,question,answer\nq1,What is it?,{long_answer}\n", encoding="utf-8-sig")
    [s] = load_eval_sets(_config(tmp_path, "toy.csv", id_field="qid"))
    assert s.ids == ["q1"] and s.texts[0] == "What is it?\n" + long_answer


def test_a_csv_that_does_not_decode_is_a_clear_error(tmp_path):
    (tmp_path / "bin.csv").write_bytes(b"question,answer\n\xff\xfe,\x00x\n")
    msg = _error(_config(tmp_path, "bin.csv"))
    assert "eval set 'toy'" in msg and "cannot read it" in msg and "\n" not in msg
