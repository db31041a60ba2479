"""Shard readers: every record keeps its place; every bad line or file is named, nothing is lost."""
from __future__ import annotations

import gzip
import json
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
import zstandard

from audit.config import InputConfig
from audit.io.shards import InputError, Shard, discover_shards, read_record_texts, read_shard
from audit.records import RECORD_SCHEMA, make_doc_id

CFG = InputConfig(paths=["unused"])


def rows(path: Path, cfg: InputConfig = CFG) -> list[dict]:
    return [r for t in read_shard(Shard(path.name, str(path), 0), cfg) for r in t.to_pylist()]


def jsonl(records: list[dict]) -> bytes:
    return b"".join(json.dumps(r).encode() + b"\n" for r in records)


GOOD = [{"id": f"r{i}", "text": f"record number {i} " * 5, "url": f"https://x.example/{i}"} for i in range(50)]


def test_jsonl_lineage_offsets_point_at_the_line(tmp_path: Path) -> None:
    data = jsonl(GOOD)
    p = tmp_path / "a.jsonl"
    p.write_bytes(data)
    out = rows(p)
    assert [r["record"] for r in out] == list(range(50))
    for r in out:
        line = data[r["byte_offset"]:].split(b"\n", 1)[0]
        assert json.loads(line)["id"] == r["source_id"]
        assert r["doc_id"] == make_doc_id("a.jsonl", r["record"])
        assert r["url"].startswith("https://x.example/") and r["error"] is None
    assert out[0]["sha256"] == __import__("hashlib").sha256(GOOD[0]["text"].encode()).hexdigest()


@pytest.mark.parametrize("suffix", [".jsonl.gz", ".jsonl.zst"])
def test_compressed_offsets_are_in_the_uncompressed_stream(tmp_path: Path, suffix: str) -> None:
    data = jsonl(GOOD)
    p = tmp_path / f"a{suffix}"
    p.write_bytes(gzip.compress(data) if suffix.endswith("gz") else zstandard.ZstdCompressor().compress(data))
    out = rows(p)
    assert len(out) == 50 and all(r["error"] is None for r in out)
    assert [data[r["byte_offset"]:].split(b"\n", 1)[0] for r in out] == data.rstrip(b"\n").split(b"\n")


def test_bad_lines_keep_their_place_and_are_named(tmp_path: Path) -> None:
    lines = [
        json.dumps({"id": "ok0", "text": "fine text"}).encode(),
        b"{not json",
        b"[1, 2, 3]",
        json.dumps({"id": "no-text", "body": "x"}).encode(),
        json.dumps({"id": "int-text", "text": 42}).encode(),
        b'{"id": "bad-utf8", "text": "caf\xe9"}',
        b"",  # a blank line is not a record
        json.dumps({"id": "ok1", "text": "more fine text"}).encode(),
    ]
    p = tmp_path / "bad.jsonl"
    p.write_bytes(b"\n".join(lines) + b"\n")
    out = rows(p)
    assert [r["record"] for r in out] == [0, 1, 2, 3, 4, 5, 6]
    errs = [r["error"] for r in out]
    assert errs[0] is None and errs[6] is None
    assert "invalid JSON" in errs[1]
    assert "not an object" in errs[2]
    assert "missing" in errs[3] and out[3]["source_id"] == "no-text"
    assert "not a string" in errs[4]
    assert "invalid UTF-8" in errs[5]
    assert all(out[i]["text"] is None and out[i]["byte_offset"] is not None for i in range(1, 6))
    assert out[6]["source_id"] == "ok1"
    # line numbers count the blank line, record indexes do not
    assert [r["line"] for r in out] == [0, 1, 2, 3, 4, 5, 7]  # 0-based, blank lines counted


def test_truncated_gzip_keeps_what_decoded_and_names_the_rest(tmp_path: Path) -> None:
    many = [{"text": f"line {i} " * 10} for i in range(20000)]
    blob = gzip.compress(jsonl(many))
    p = tmp_path / "cut.jsonl.gz"
    p.write_bytes(blob[: len(blob) // 2])
    out = rows(p)
    docs = [r for r in out if r["record"] is not None]
    faults = [r for r in out if r["record"] is None]
    assert 1000 < len(docs) < 20000
    assert len(faults) == 1 and "truncated" in faults[0]["error"]
    # the fault is placed where the data was lost: after the last whole line
    assert faults[0]["byte_offset"] > docs[-1]["byte_offset"] and faults[0]["line"] == docs[-1]["line"] + 1
    # the last decoded line may be cut mid-way: it is an unreadable record, not a lost one
    assert all(r["error"] is None for r in docs[:-1])


def test_truncated_zstd_is_named(tmp_path: Path) -> None:
    blob = zstandard.ZstdCompressor().compress(jsonl(GOOD * 100))
    p = tmp_path / "cut.jsonl.zst"
    p.write_bytes(blob[: len(blob) // 2])
    faults = [r for r in rows(p) if r["record"] is None]
    assert len(faults) == 1 and "zstd" in faults[0]["error"] and "truncated" in faults[0]["error"]


def test_empty_file_is_one_named_fault(tmp_path: Path) -> None:
    p = tmp_path / "empty.jsonl"
    p.write_bytes(b"")
    out = rows(p)
    assert len(out) == 1 and out[0]["record"] is None and "empty" in out[0]["error"]


def test_parquet_reads_with_null_offsets_and_names_bad_rows(tmp_path: Path) -> None:
    p = tmp_path / "a.parquet"
    pq.write_table(pa.table({"id": [1, 2, 3], "text": ["alpha text", None, "gamma text"],
                             "url": ["u1", "u2", None]}), p)
    out = rows(p)
    assert [r["record"] for r in out] == [0, 1, 2]
    assert all(r["byte_offset"] is None for r in out)
    assert out[0]["source_id"] == "1" and out[2]["text"] == "gamma text"
    assert out[1]["text"] is None and "null" in out[1]["error"]


def test_parquet_without_text_column_is_one_fault(tmp_path: Path) -> None:
    p = tmp_path / "notext.parquet"
    pq.write_table(pa.table({"body": ["a", "b"]}), p)
    out = rows(p)
    assert len(out) == 1 and out[0]["record"] is None and "no text column 'text'" in out[0]["error"]


def test_not_a_parquet_file_is_one_fault(tmp_path: Path) -> None:
    p = tmp_path / "junk.parquet"
    p.write_bytes(b"this is not parquet at all")
    out = rows(p)
    assert len(out) == 1 and out[0]["record"] is None and "Parquet" in out[0]["error"]


def test_50mb_single_line_is_a_record(tmp_path: Path) -> None:
    big = "word " * (10 * 2**20)  # 50 MiB of text
    p = tmp_path / "big.jsonl"
    p.write_bytes(jsonl([{"text": "small"}, {"text": big}, {"text": "after"}]))
    out = rows(p)
    assert [r["chars"] for r in out] == [5, len(big), 5]
    assert out[2]["byte_offset"] > 50 * 2**20


def test_line_over_max_record_bytes_is_unreadable_not_fatal(tmp_path: Path) -> None:
    cfg = InputConfig(paths=["x"], max_record_bytes=1000)
    p = tmp_path / "long.jsonl"
    p.write_bytes(jsonl([{"text": "a"}, {"text": "b" * 5000}, {"text": "c"}]))
    out = rows(p, cfg)
    assert [r["record"] for r in out] == [0, 1, 2]
    assert "exceeds input.max_record_bytes" in out[1]["error"] and out[2]["text"] == "c"


def test_blocks_are_bounded(tmp_path: Path) -> None:
    cfg = InputConfig(paths=["x"], block_bytes=10_000)
    p = tmp_path / "a.jsonl"
    p.write_bytes(jsonl(GOOD * 20))
    tables = list(read_shard(Shard("a.jsonl", str(p), 0), cfg))
    assert len(tables) > 5
    assert all(t.schema == RECORD_SCHEMA for t in tables)
    assert sum(t.num_rows for t in tables) == 1000


def test_discovery_of_folders_globs_and_empty_folders(tmp_path: Path) -> None:
    (tmp_path / "shards" / "sub").mkdir(parents=True)
    (tmp_path / "empty").mkdir()
    for name in ["shards/b.jsonl", "shards/a.jsonl.gz", "shards/sub/c.parquet", "shards/notes.txt"]:
        (tmp_path / name).write_bytes(b"x")
    shards, problems = discover_shards(["shards/", "empty", "shards/*.jsonl"], tmp_path)
    assert [s.path for s in shards] == ["shards/a.jsonl.gz", "shards/b.jsonl", "shards/sub/c.parquet"]
    assert [s.index for s in shards] == [0, 1, 2]
    assert len(problems) == 1 and problems[0]["shard"] == "empty" and "no shards" in problems[0]["error"]
    with pytest.raises(InputError, match="nowhere"):
        discover_shards(["nowhere"], tmp_path)
    with pytest.raises(InputError, match="not a shard"):
        discover_shards(["shards/notes.txt"], tmp_path)


def test_read_record_texts_picks_records(tmp_path: Path) -> None:
    p = tmp_path / "a.jsonl"
    p.write_bytes(jsonl(GOOD))
    got = read_record_texts(Shard("a.jsonl", str(p), 0), {3, 40}, CFG)
    assert got == {3: GOOD[3]["text"], 40: GOOD[40]["text"]}


@pytest.mark.parametrize("suffix", [".jsonl.gz", ".jsonl.zst"])
def test_concatenated_members_and_frames_are_all_read(tmp_path: Path, suffix: str) -> None:
    """`cat a.gz b.gz` (and zstd frames written in turn) is one valid stream of both parts."""
    pack = gzip.compress if suffix.endswith("gz") else zstandard.ZstdCompressor().compress
    p = tmp_path / f"two{suffix}"
    p.write_bytes(pack(jsonl(GOOD[:20])) + pack(jsonl(GOOD[20:])))
    out = rows(p)
    assert [r["source_id"] for r in out] == [g["id"] for g in GOOD]
    assert all(r["error"] is None for r in out)


def test_parquet_with_invalid_utf8_names_the_record(tmp_path: Path) -> None:
    """Arrow does not validate UTF-8 on read: a bad text is one unreadable record, not a crash."""
    texts = pa.array([b"good text", b"caf\xe9 bad", b"more good text"], pa.binary()).cast(pa.string(), safe=False)
    p = tmp_path / "bad.parquet"
    pq.write_table(pa.table({"text": texts, "id": ["a", "b", "c"]}), p)
    out = rows(p)
    assert [r["record"] for r in out] == [0, 1, 2]
    assert out[0]["text"] == "good text" and out[2]["text"] == "more good text"
    assert out[1]["text"] is None and "invalid UTF-8" in out[1]["error"] and out[1]["source_id"] == "b"


def test_shard_names_are_stable_and_each_file_is_read_once(tmp_path: Path) -> None:
    (tmp_path / "shards").mkdir()
    for name in ["shard-0.jsonl", "shard-1.jsonl", "x.jsonl"]:
        (tmp_path / "shards" / name).write_bytes(b"{}\n")
    by_glob, _ = discover_shards(["shards/shard-*.jsonl"], tmp_path)
    assert [s.path for s in by_glob] == ["shards/shard-0.jsonl", "shards/shard-1.jsonl"]  # relative: doc_ids stable
    twice, _ = discover_shards(["shards/", "./shards/shard-0.jsonl"], tmp_path)
    assert [s.path for s in twice] == ["shards/shard-0.jsonl", "shards/shard-1.jsonl", "shards/x.jsonl"]


def test_a_byte_order_mark_does_not_lose_the_first_record(tmp_path):
    from audit.config import InputConfig
    from audit.io.shards import Shard, read_shard

    p = tmp_path / "bom.jsonl"
    p.write_bytes(b"\xef\xbb\xbf" + b'{"text": "first record"}\n{"text": "second"}\n')
    t = pa.concat_tables(read_shard(Shard("bom.jsonl", str(p), 0), InputConfig()))
    assert t.column("text").to_pylist() == ["first record", "second"]
    assert t.column("error").null_count == 2


def test_inputs_that_match_no_shard_are_one_line_and_exit_2(tmp_path, capsys):
    from audit.cli import main

    (tmp_path / "empty").mkdir()
    for given in ("empty/", "shards/*.jsnol"):
        cfg = tmp_path / "job.yaml"
        cfg.write_text(f"input:\n  paths: ['{given}']\noutput: out\n")
        assert main(["run", str(cfg), "--quiet"]) == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and "no shard found" in err[0] and given in err[0]


def test_messages_name_json_types(tmp_path):
    from audit.config import InputConfig
    from audit.io.shards import Shard, read_shard

    p = tmp_path / "types.jsonl"
    p.write_bytes(b'{"text": null}\n{"text": 5}\n{"text": [1]}\n[1, 2]\n{"other": 1}\n{"text": {"a": 1}}\n')
    errors = pa.concat_tables(read_shard(Shard("types.jsonl", str(p), 0), InputConfig())).column("error").to_pylist()
    assert errors == ["text field 'text' is null, not a string", "text field 'text' is a number, not a string",
                      "text field 'text' is an array, not a string", "JSON value is an array, not an object",
                      "text field 'text' is missing", "text field 'text' is an object, not a string"]


# ---- one reader for the job and the sidecar (audit.io.records) ----------------------------------

# A stream opening with a byte-order mark, then lines the job names one by one.
MIXED = (b"\xef\xbb\xbf" + b'{"text": "first record, after a BOM"}\n'
         b'{"text": "caf\xe9 is not UTF-8"}\n'
         b"\n"
         b"{not json\n"
         b"[1, 2]\n"
         b'{"body": "no text"}\n'
         b'{"text": "last good record"}\n')


def _sidecar_batches(parsed_list: list) -> tuple[list[str], int, list[str]]:
    texts = [r["text"] for p in parsed_list for r in p.records]
    return texts, sum(p.malformed for p in parsed_list), [p.first_error for p in parsed_list if p.first_error]


def test_the_sidecar_reads_a_stream_as_the_job_reads_a_shard(tmp_path: Path) -> None:
    from audit.sidecar.sources import JsonLineBatches, LineReader

    p = tmp_path / "mixed.jsonl"
    p.write_bytes(MIXED)
    job = rows(p)
    good = [r["text"] for r in job if r["error"] is None]
    bad = [r for r in job if r["error"] is not None]
    assert good == ["first record, after a BOM", "last good record"]
    assert bad[0]["error"] == "invalid UTF-8 at byte 13 of the line" and bad[0]["line"] == 1

    with p.open("rb") as f:
        reader = LineReader("text", CFG.max_record_bytes)
        parsed = [reader.parse(batch.rows) for batch in JsonLineBatches(f, CFG.max_record_bytes)]
    texts, malformed, first = _sidecar_batches(parsed)
    assert texts == good and malformed == len(bad)
    # the first bad line, named by its place and the job's own error
    assert first[0] == f"line {bad[0]['line'] + 1} (byte {bad[0]['byte_offset']}): {bad[0]['error']}"


def test_the_folder_tailer_names_bad_lines_as_the_job_does(tmp_path: Path) -> None:
    import threading

    from audit.sidecar.sources import FolderTailer

    folder = tmp_path / "dumps"
    folder.mkdir()
    (folder / "a.jsonl").write_bytes(MIXED)  # tailed
    (folder / "b.jsonl.gz").write_bytes(gzip.compress(MIXED))  # read whole
    job = rows(folder / "a.jsonl")
    want = [f"line {r['line'] + 1} (byte {r['byte_offset']}): {r['error']}" for r in job if r["error"]]
    got: dict[str, list] = {}
    tailer = FolderTailer(folder, tmp_path / "state.json", "text", 0.0, 0.0, threading.Event(), CFG.max_record_bytes)
    tailer.poll(lambda parsed, where: got.setdefault(where, []).append(parsed))
    for name in ("a.jsonl", "b.jsonl.gz"):
        texts, malformed, first = _sidecar_batches(got[name])
        assert texts == [r["text"] for r in job if r["error"] is None], name
        assert malformed == len(want) and first[0] == want[0], name


def test_a_tailed_file_keeps_its_line_numbers_across_looks_and_restarts(tmp_path: Path) -> None:
    import threading

    from audit.sidecar.sources import FolderTailer

    folder = tmp_path / "dumps"
    folder.mkdir()
    dump = folder / "a.jsonl"
    dump.write_bytes(b'{"text": "one"}\n\n{"text": "two"}\n')
    got: list = []

    def tailer() -> FolderTailer:
        return FolderTailer(folder, tmp_path / "state.json", "text", 0.0, 0.0, threading.Event(), 1 << 20)

    tailer().poll(lambda parsed, where: got.append(parsed))
    with dump.open("ab") as f:
        f.write(b'{"text": "three"}\n\xef\xbb\xbf{"text": "a BOM inside a file is no BOM"}\n')
    tailer().poll(lambda parsed, where: got.append(parsed))  # a restarted sidecar, from its state file
    whole = dump.read_bytes()
    assert [r["text"] for p in got for r in p.records] == ["one", "two", "three"]
    bad = rows(dump)[-1]
    assert bad["line"] == 4 and got[-1].first_error == f"line 5 (byte {bad['byte_offset']}): {bad['error']}"
    assert bad["byte_offset"] == whole.index(b"\xef\xbb\xbf")


def test_a_parquet_dump_is_read_once_with_the_jobs_diagnosis(tmp_path: Path) -> None:
    import threading

    from audit.sidecar.sources import FolderTailer

    folder = tmp_path / "dumps"
    folder.mkdir()
    texts = pa.array([b"good text", b"caf\xe9 bad", None], pa.binary()).cast(pa.string(), safe=False)
    pq.write_table(pa.table({"text": texts, "rank": [0, 1, 2]}), folder / "step.parquet")
    job = rows(folder / "step.parquet")
    got: list = []
    FolderTailer(folder, tmp_path / "state.json", "text", 0.0, 0.0, threading.Event()).poll(
        lambda parsed, where: got.append(parsed))
    assert [r for p in got for r in p.records] == [{"text": "good text", "rank": 0}]
    assert sum(p.malformed for p in got) == 2
    assert got[0].first_error == f"row 1: {job[1]['error']}" and "invalid UTF-8 at byte 3" in job[1]["error"]
