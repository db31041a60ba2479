"""`audit export`: the records of one verdict, field for field as the input held them, a file per
shard, counts equal to summary.json's, resumable, refusing what it must not touch."""
from __future__ import annotations

import json
import os

import orjson
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import audit.exporter as exporter
from audit.blocklist import BLOCKLIST_SCHEMA, identifier_hash, passage_key
from audit.exporter import ExportOptions, export_run
from audit.io.shards import InputError
from audit.job.executor import LocalExecutor
from audit.records import text_sha256
from tests.fixtures_export import (SHARDS, expected_records, exported, judged_run, manifest, raw_lines,
                                   tree_hashes)
from tests.fixtures_corpus import middle_passage
from tests.fixtures_runs import audit

OUTPUTS = {"shards/a.jsonl": "a.jsonl", "shards/b.jsonl.gz": "b.jsonl.gz", "shards/c.parquet": "c.parquet",
           "shards/d.jsonl.zst": "d.jsonl.zst"}


@pytest.fixture(scope="module")
def judged(tmp_path_factory):
    return judged_run(tmp_path_factory.mktemp("export"))


@pytest.mark.parametrize("verdict", ["kept", "quarantined"])
def test_records_equal_the_inputs_field_for_field_and_counts_equal_the_summary(judged, tmp_path, verdict):
    corpus, run = judged
    dest = tmp_path / "out"
    assert audit("export", "--run", str(run), "--out", str(dest), "--verdict", verdict) == 0
    summary = json.loads((run / "summary.json").read_text())
    m = manifest(dest)
    assert sorted(p.name for p in dest.iterdir()) == sorted([*OUTPUTS.values(), "_done", "_export.json",
                                                             "manifest.json"])
    total = 0
    for shard, name in OUTPUTS.items():
        want = expected_records(corpus, run, shard, verdict)
        assert want, f"the fixture should have {verdict} records in {shard}"
        assert exported(dest / name) == want, shard
        if verdict == "kept" and name != "c.parquet":  # a kept line is its bytes as read
            assert raw_lines(dest / name) == [orjson.dumps(r) for r in want]
        total += len(want)
    assert m["records"] == total
    # the unreadable line of a.jsonl is quarantined but is no JSON object: counted, not written
    not_written = 1 if verdict == "quarantined" else 0
    assert m["counts"]["not_written"] == not_written
    assert total + not_written == summary[verdict] == m["counts"]["summary"][verdict]
    assert m["config_fingerprint"] and m["ledger_head"] is None and m["verdict"] == verdict
    assert pq.read_table(dest / "c.parquet").schema.names == (["id", "url", "text"] if verdict == "kept" else
                                                              ["id", "url", "text", "audit_reasons"])


def test_formats_and_compressions_convert_the_same_records(judged, tmp_path):
    corpus, run = judged
    as_parquet, as_gzip = tmp_path / "pq", tmp_path / "gz"
    export_run(run, as_parquet, ExportOptions("quarantined", "parquet"))
    export_run(run, as_gzip, ExportOptions("kept", "jsonl", "gzip"))
    assert sorted(p.name for p in as_parquet.glob("*.parquet")) == ["a.parquet", "b.parquet", "c.parquet",
                                                                     "d.parquet"]
    assert sorted(p.name for p in as_gzip.glob("*.gz")) == ["a.jsonl.gz", "b.jsonl.gz", "c.jsonl.gz", "d.jsonl.gz"]
    for shard in SHARDS:
        stem = shard.split("/")[1].split(".")[0]
        assert exported(as_parquet / f"{stem}.parquet") == expected_records(corpus, run, shard, "quarantined")
        assert exported(as_gzip / f"{stem}.jsonl.gz") == expected_records(corpus, run, shard, "kept")


def test_a_killed_export_resumes_and_skips_the_finished_shards(judged, tmp_path, monkeypatch):
    corpus, run = judged
    dest, fresh = tmp_path / "out", tmp_path / "fresh"
    real = exporter._check_unchanged
    started = []

    def dies_on_the_third_shard(job):
        started.append(job.shard)
        if len(started) == 3:
            raise KeyboardInterrupt  # the process killed while exporting the third shard
        real(job)

    monkeypatch.setattr(exporter, "_check_unchanged", dies_on_the_third_shard)
    with pytest.raises(KeyboardInterrupt):  # in this process, where the kill is planted (a Ray session may be up)
        export_run(run, dest, ExportOptions("kept"), executor=LocalExecutor())
    assert not (dest / "manifest.json").exists() and len(list((dest / "_done").iterdir())) == 2
    first_two = {p.name: p.stat().st_ino for p in dest.iterdir() if p.name in ("a.jsonl", "b.jsonl.gz")}
    assert len(first_two) == 2
    (dest / ".tmp.x1y2.c.parquet").write_bytes(b"PAR1 half a file")  # what a kill during a write leaves
    started.clear()
    monkeypatch.setattr(exporter, "_check_unchanged", real)
    resumed = export_run(run, dest, ExportOptions("kept")).manifest
    assert {p.name: p.stat().st_ino for p in dest.iterdir() if p.name in first_two} == first_two  # not redone
    export_run(run, fresh, ExportOptions("kept"))
    for name in OUTPUTS.values():
        assert exported(dest / name) == exported(fresh / name), name
    assert resumed["records"] == manifest(fresh)["records"]
    assert not [p for p in dest.iterdir() if p.name.startswith(".")]  # no temporary file left


def test_refusals_are_one_line_and_exit_2(judged, tmp_path, capsys):
    corpus, run = judged
    foreign = tmp_path / "foreign"
    foreign.mkdir()
    (foreign / "notes.txt").write_text("mine")
    assert audit("export", "--run", str(run), "--out", str(foreign)) == 2
    assert (foreign / "notes.txt").read_text() == "mine" and len(list(foreign.iterdir())) == 1
    unfinished = tmp_path / "unfinished"
    unfinished.mkdir()
    assert audit("export", "--run", str(unfinished), "--out", str(tmp_path / "x")) == 2
    other = tmp_path / "other"
    assert audit("export", "--run", str(run), "--out", str(other), "--verdict", "quarantined") == 0
    assert audit("export", "--run", str(run), "--out", str(other), "--verdict", "kept") == 2  # another export
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 3 and "notes.txt" in err[0] and "unfinished" in err[1] and "another export" in err[2]


def test_a_shard_changed_since_the_run_is_refused(tmp_path):
    corpus, run = judged_run(tmp_path)
    shard = tmp_path / "shards" / "d.jsonl.zst"
    st = shard.stat()
    os.utime(shard, ns=(st.st_atime_ns, st.st_mtime_ns + 10**9))
    with pytest.raises(InputError, match="d.jsonl.zst: changed since the run"):
        export_run(run, tmp_path / "out")


def test_records_a_takedown_blocked_after_the_run_are_withheld(tmp_path):
    corpus, run = judged_run(tmp_path)
    kept = expected_records(corpus, run, "shards/a.jsonl", "kept")
    long = corpus.text(*corpus.long_key)
    assert long in [r["text"] for r in kept]
    blocked = [kept[0], kept[1], kept[2], next(r for r in kept if r["text"] == long)]
    prints, shared = passage_key(middle_passage(long, 40))
    rows = [{"request_id": "TR-1", "kind": "sha256", "sha256": text_sha256(blocked[0]["text"])},
            {"request_id": "TR-2", "kind": "url", "url": identifier_hash(blocked[1]["url"])},
            {"request_id": "TR-3", "kind": "source_id", "source_id": identifier_hash(blocked[2]["id"])},
            {"request_id": "TR-4", "kind": "passage", "passage_hashes": prints.tolist(), "passage_min_shared": shared}]
    (run / "blocklist").mkdir()
    pq.write_table(pa.Table.from_pylist([{f.name: None for f in BLOCKLIST_SCHEMA} | r for r in rows],
                                        schema=BLOCKLIST_SCHEMA), run / "blocklist" / "part-0.parquet")
    m = export_run(run, tmp_path / "out").manifest
    assert exported(tmp_path / "out" / "a.jsonl") == [r for r in kept if r not in blocked]
    assert m["counts"]["withheld"] == 4 and m["records"] + 4 == m["counts"]["summary"]["kept"]


def test_export_to_object_storage_writes_the_same_files(judged, tmp_path, s3_bucket):
    from audit.io.storage import location

    corpus, run = judged
    remote = f"{s3_bucket}/export-{tmp_path.name}"
    export_run(run, remote, ExportOptions("quarantined"))
    export_run(run, tmp_path / "here", ExportOptions("quarantined"))
    location(remote).download(tmp_path / "there")
    for name in OUTPUTS.values():
        assert exported(tmp_path / "there" / name) == exported(tmp_path / "here" / name), name
    assert json.loads((tmp_path / "there" / "manifest.json").read_text())["records"] == manifest(
        tmp_path / "here")["records"]


def test_export_on_ray_workers_equals_the_export_here(corpus_run, tmp_path, ray_session):
    corpus, run = corpus_run  # a run made on Ray; the export runs there too (a session is up)
    here = tmp_path / "here"
    m = export_run(run, tmp_path / "ray", ExportOptions("kept", "parquet")).manifest
    export_run(run, here, ExportOptions("kept", "parquet"), executor=LocalExecutor())
    assert tree_hashes(tmp_path / "ray").keys() == tree_hashes(here).keys()
    for p in here.glob("*.parquet"):
        assert pq.read_table(p).equals(pq.read_table(tmp_path / "ray" / p.name)), p.name
    assert m["records"] == json.loads((run / "summary.json").read_text())["kept"]


def test_an_export_inside_the_run_or_beside_the_shards_is_refused(judged):
    corpus, run = judged
    for inside in (run / "clean", corpus.root / "shards" / "clean"):
        with pytest.raises(InputError, match="is inside"):
            export_run(run, inside)
        assert not inside.exists()
