"""The one lookup-index builder (audit.lookup_index.build_in_one), without Ray: each lineage part is
read once, and the index it writes answers lookups by every key."""
from __future__ import annotations

from collections import Counter
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.fs as pafs
import pyarrow.parquet as pq

from audit import lookup_index
from audit.io.storage import location
from audit.job import parts
from audit.lookup_index import IndexLayout, LookupIndex, build_in_one
from audit.normalize import mix64


def _lineage(folder: Path, shard: str, n: int) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{shard}.parquet"
    pq.write_table(pa.table({
        "doc_id": [f"{shard}-{i}" for i in range(n)], "source_id": [f"src-{i}" for i in range(n)],
        "shard": [shard] * n, "record": list(range(n)), "byte_offset": [i * 100 for i in range(n)],
        "sha256": [f"{shard}{i:060d}" for i in range(n)], "url": [f"https://x.org/{shard}/{i}" for i in range(n)],
        "chars": [100] * n, "verdict": ["kept"] * n, "reasons": [[] for _ in range(n)]}), path, row_group_size=16)
    return path


def test_each_lineage_part_is_read_once_and_every_key_finds_its_record(tmp_path, monkeypatch):
    files = [_lineage(tmp_path / "lineage", s, n) for s, n in (("a.jsonl", 40), ("b.jsonl", 70))]
    reads: Counter[str] = Counter()
    real = parts.read_part

    def counted(path, fs, columns):
        reads[path] += 1
        return real(path, fs, columns)

    monkeypatch.setattr(parts, "read_part", counted)
    monkeypatch.setattr(lookup_index, "_BUCKET_ROWS", 30)  # several records buckets and key buckets
    layout = IndexLayout.plan({"a.jsonl": 40, "b.jsonl": 70}, 0)
    counts = build_in_one(location(tmp_path / "run" / "index"), layout, [str(f) for f in files], [],
                          pafs.LocalFileSystem())
    assert reads == {str(f): 1 for f in files}
    assert counts == {"records": 110, "sha256": 110, "url": 110, "source_id": 110, "doc_id": 110}
    index = LookupIndex.open(tmp_path / "run")
    assert index is not None and len(list((tmp_path / "run" / "index" / "records").glob("b*.parquet"))) >= 3
    got = index.records_by("url", "https://x.org/b.jsonl/65")
    assert got.column("doc_id").to_pylist() == ["b.jsonl-65"] and got.column("byte_offset").to_pylist() == [6500]
    assert index.records_by("doc_id", "a.jsonl-7").column("record").to_pylist() == [7]
    assert index.records_by("sha256", "nothing").num_rows == 0
    assert index.records_in_shard("b.jsonl", 10, 13).column("record").to_pylist() == [10, 11, 12]


def _reference_hash(value: bytes) -> int:
    """The index's string key as its format defines it, one string at a time: the byte polynomial
    sum((byte + 1) * B**(n - 1 - k)) modulo 2**64, xor the length times a salt, splitmix64'd."""
    h = 0
    for b in value:
        h = (h * int(lookup_index._BYTE_BASE) + b + 1) % (1 << 64)
    h ^= (len(value) * int(lookup_index._LEN_SALT)) % (1 << 64)
    return int(mix64(np.array([h], np.uint64))[0])


def test_string_keys_hash_as_the_index_format_defines_them():
    # a changed hash would leave every existing index unreadable by key: the vectorised sum,
    # cut into slices of rows, must give the one-string-at-a-time polynomial exactly
    long = "é" * (lookup_index._HASH_SLICE_BYTES // 2 + 3)  # one string past a whole slice
    values = ["", "a", "https://example.org/1", "ü€😀", long, None, "r12345", "0" * 64] * 3
    got = lookup_index.hash_strings(pa.array(values, pa.string()).slice(1))
    want = [_reference_hash((v or "").encode()) for v in values[1:]]
    assert got.tolist() == want
    chunked = pa.chunked_array([pa.array(values[:4]), pa.array(values[4:])])
    assert lookup_index.hash_strings(chunked).tolist() == [_reference_hash((v or "").encode()) for v in values]


def test_a_big_shard_has_records_buckets_of_its_own_that_its_decide_task_writes(monkeypatch):
    monkeypatch.setattr(lookup_index, "_BUCKET_ROWS", 1280)  # shards of 10 rows or more keep to themselves
    rows = {"a": 3, "b": 4, "c": 500, "d": 2, "e": 9, "f": 3000, "g": 1}
    layout = IndexLayout.plan(rows, 0)
    starts = [(int(p) >> lookup_index.RECORD_BITS, int(p) & ((1 << lookup_index.RECORD_BITS) - 1))
              for p in layout.record_starts]
    # a+b packed; c alone; d+e packed; f split by record ranges; g alone after f
    assert starts == [(0, 0), (2, 0), (3, 0), (5, 0), (5, 1280), (5, 2560), (6, 0)]
    assert [layout.own_bucket(no) for no in range(len(layout.shards))] == [None, None, 1, None, None, None, 6]
    # every position still falls in the bucket its shard's rows were planned into
    assert layout.bucket_of("records", lookup_index.positions(np.array([2, 5, 5, 6]), np.array([499, 1279, 1280, 0]))
                            ).tolist() == [1, 3, 4, 6]
