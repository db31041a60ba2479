"""Object storage: shards read from and runs written to s3:// on a real S3-protocol server
(moto's server mode on 127.0.0.1), with `audit decide` and lookups on such a run."""
from __future__ import annotations

import json
import pickle
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc
import pytest

from audit.cli import main
from audit.config import ConfigError, load_config, parse_config
from audit.demo_corpus import build_demo_corpus
from audit.io.shards import discover_shards, read_shard
from audit.io.storage import location, write_parquet
from audit.job.plan import run_audit
from tests.fixtures_datasets import read_dataset


def test_locations_on_s3_read_write_list_move_and_pickle(s3_bucket):
    root = location(f"{s3_bucket}/unit")
    f = root.child("a", "b.json")
    f.write_json({"x": 1})
    assert f.is_file() and f.read_json() == {"x": 1} and root.child("a").is_dir()
    write_parquet(pa.table({"n": [1, 2]}), root.child("t", "p.parquet"))
    assert read_dataset(root.child("t")).column("n").to_pylist() == [1, 2]
    root.child("a").move_to(root.child("c"))
    assert not root.child("a").exists() and root.child("c", "b.json").read_json() == {"x": 1}
    assert [p.name for p in root.ls()] == ["c", "t"]
    again = pickle.loads(pickle.dumps(root.child("c", "b.json")))  # as Ray ships it to a worker
    assert again.read_json() == {"x": 1} and str(again) == f"{s3_bucket}/unit/c/b.json"
    root.delete()
    assert not root.exists()


def test_credentials_in_a_uri_are_refused():
    with pytest.raises(ConfigError, match="environment"):
        location("s3://key:secret@bucket/shards")


def _upload_corpus(s3_bucket: str, tmp_path: Path) -> tuple[Path, str]:
    corpus = build_demo_corpus(tmp_path / "corpus", docs=300, seed=11)
    remote = f"{s3_bucket}/corpus-{tmp_path.name}"
    location(f"{remote}/shards").upload(corpus.root / "shards")
    return corpus.config_path, remote


def test_shards_are_found_and_read_under_a_uri(s3_bucket, tmp_path):
    cfg_path, remote = _upload_corpus(s3_bucket, tmp_path)
    shards, _ = discover_shards([f"{remote}/shards/"], tmp_path)
    local, _ = discover_shards(["shards/"], cfg_path.parent)
    assert [Path(s.path).name for s in shards] == [Path(s.path).name for s in local]
    assert all(s.path.startswith(f"{remote}/shards/") for s in shards)
    cfg = load_config(cfg_path)
    for a, b in zip(shards, local):
        ra = pa.concat_tables(read_shard(a, cfg.input)).drop_columns(["doc_id", "shard"])
        rb = pa.concat_tables(read_shard(b, cfg.input)).drop_columns(["doc_id", "shard"])
        assert ra.equals(rb)
    globbed, _ = discover_shards([f"{remote}/shards/*.jsonl"], tmp_path)
    assert globbed and all(s.path.endswith(".jsonl") for s in globbed)


@pytest.mark.ray
def test_a_run_on_s3_matches_a_local_run_and_serves_decide_lookup_and_takedown(s3_bucket, tmp_path, demo, capsys):
    corpus, local_run = demo  # the session's local run of the demo corpus with its own config
    remote = f"{s3_bucket}/corpus-{tmp_path.name}"
    location(f"{remote}/shards").upload(corpus.root / "shards")
    local = location(local_run).child("summary.json").read_json()
    data = json.loads(json.dumps(load_config(corpus.config_path).model_dump(mode="json")))
    data["input"]["paths"] = [f"{remote}/shards/"]
    cfg = parse_config(data, base_dir=corpus.root)
    out = f"{remote}/run"
    res = run_audit(cfg, out=out, progress=False)
    assert res.out == out
    summary = location(out).child("summary.json").read_json()
    assert summary["documents"] == local["documents"] > 0
    for k in ("kept", "quarantined", "unreadable", "reasons"):
        assert summary[k] == local[k], k
    lineage = read_dataset(location(out).child("lineage"))
    assert lineage.num_rows == local["documents"]
    assert all(s.startswith(f"{remote}/shards/") for s in pc.unique(lineage.column("shard")).to_pylist())
    assert location(out).child("report.html").is_file() and location(out).child("index", "meta.json").is_file()
    # resume on object storage: a second run reuses every shard
    again = run_audit(cfg, out=out, progress=False)
    assert again.summary["resume"]["shards_measured"] == 0
    # re-judge on object storage
    # the eval set paths are relative to the config: the corpus's evals/ beside it (the corpus is the session's)
    (tmp_path / "evals").symlink_to(corpus.root / "evals", target_is_directory=True)
    strict = tmp_path / "strict.yaml"
    data["filters"] = {"length": {"min_chars": 800}}
    strict.write_text(json.dumps(data))
    assert main(["decide", out, "--config", str(strict)]) == 0
    decided = location(out).child("summary.json").read_json()
    assert decided["quarantined"] > summary["quarantined"]
    assert decided["resume"]["shards_measured"] == 0

    # lookup and takedown on the object-store run
    row = lineage.filter(pc.is_valid(lineage.column("url"))).slice(0, 1).to_pylist()[0]
    capsys.readouterr()
    assert main(["lookup", "--run", out, "--url", row["url"], "--json"]) == 0
    found = json.loads(capsys.readouterr().out)
    assert row["doc_id"] in [m["doc_id"] for m in found["matches"]]
    request = tmp_path / "request.yaml"
    request.write_text(json.dumps({"request_id": "TR-S3-1", "received": "2026-11-20T10:00:00Z", "requester": "x",
                                   "basis": "copyright", "match": {"sha256": [row["sha256"]]}}))
    assert main(["takedown", "--run", out, "--request", str(request), "--execute"]) == 0
    assert location(out).child("ledger.jsonl").is_file() and location(out).child("blocklist").is_dir()
    assert main(["ledger", "verify", "--run", out]) == 0
    assert main(["takedown", "--run", out, "--request", str(request), "--execute", "--physical"]) == 2
    rerun = run_audit(cfg, out=out, progress=False)
    assert rerun.summary["reasons"].get("takedown", 0) >= 1


def test_move_between_filesystems_copies_then_removes_the_source(s3_bucket, tmp_path):
    src = location(tmp_path / "up")
    src.child("d", "x.txt").write_text("one")
    remote = location(f"{s3_bucket}/moved-{tmp_path.name}")
    src.move_to(remote)  # local -> s3
    assert not src.exists() and remote.child("d", "x.txt").read_text() == "one"
    back = location(tmp_path / "down")
    remote.child("d", "x.txt").move_to(back.child("y.txt"))  # s3 -> local, one file
    assert back.child("y.txt").local_path().read_text() == "one" and not remote.child("d", "x.txt").exists()


def test_the_lookup_index_is_read_in_place_on_s3(s3_bucket, tmp_path, corpus_run):
    from audit.lookup_index import LookupIndex

    _, run = corpus_run
    remote = location(f"{s3_bucket}/index-{tmp_path.name}")
    remote.child("index").upload(run / "index")
    here, there = LookupIndex.open(run), LookupIndex.open(remote)
    assert there is not None and there.meta == here.meta and not there.folder.is_local
    lineage = read_dataset(location(run).child("lineage"))
    row = lineage.slice(lineage.num_rows // 2, 1).to_pylist()[0]
    for key in ("url", "sha256", "doc_id"):
        got = there.records_by(key, row[key])
        assert got.equals(here.records_by(key, row[key])) and row["doc_id"] in got.column("doc_id").to_pylist()
    assert there.records_in_shard(row["shard"], 0, 5).equals(here.records_in_shard(row["shard"], 0, 5))
    keys = here.index("passages").find(here.index("passages").lo[:1]).column("key").to_numpy()
    assert len(keys) and all((a == b).all() for a, b in zip(there.passage_candidates(keys), here.passage_candidates(keys)))
    assert LookupIndex.open(remote.child("missing")) is None
