"""The whole job on Ray: every record accounted for, outputs as CONTRACT.md names them."""
from __future__ import annotations

import gzip
import json
from pathlib import Path

import pyarrow as pa
import pyarrow.dataset as pads
import pyarrow.parquet as pq
import pytest
import zstandard

from audit.config import parse_config
from audit.job.plan import run_audit
from audit.records import LINEAGE_COLUMNS

pytestmark = pytest.mark.ray

PROSE = [
    "The committee met on Tuesday to review the budget for the coming year, and after a long debate it "
    "agreed to fund the new library wing while postponing the repairs to the old swimming pool.",
    "Rain fell across the valley for three days. The river rose, the farmers moved their sheep to higher "
    "ground, and the village school closed early so that children could help carry sandbags.",
    "She opened the old wooden box and found a bundle of letters tied with a faded ribbon, each one written "
    "in her grandmother's careful hand and dated from the summer of the war.",
    "Engineers tested the bridge with loaded trucks before it opened to traffic, measuring how far the deck "
    "bent under each axle and comparing the figures with the design calculations.",
]


def _jsonl(records: list[dict]) -> bytes:
    return b"".join(json.dumps(r).encode() + b"\n" for r in records)


def make_corpus(root: Path) -> Path:
    """Shards of every format plus every kind of bad input; returns the config path."""
    s = root / "shards"
    s.mkdir(parents=True)
    good = [{"id": f"g{i}", "text": PROSE[i % 4] + f" Paragraph {i} of the record.", "url": f"https://e.x/{i}"}
            for i in range(40)]
    (s / "a.jsonl").write_bytes(_jsonl(good[:10] + [{"id": "dup", "text": good[0]["text"].upper() + "!!"}]))
    (s / "b.jsonl.gz").write_bytes(gzip.compress(_jsonl(good[10:20])))
    (s / "c.jsonl.zst").write_bytes(zstandard.ZstdCompressor().compress(_jsonl(good[20:30])))
    pq.write_table(pa.Table.from_pylist(good[30:40]), s / "d.parquet")
    bad = [json.dumps(good[0] | {"id": "copy"}).encode(), b"{broken json", b'"just a string"',
           json.dumps({"id": "no-text"}).encode(), b'{"id": "latin1", "text": "caf\xe9"}',
           json.dumps({"id": "short", "text": "hi"}).encode()]
    (s / "e_bad.jsonl").write_bytes(b"\n".join(bad) + b"\n")
    cut = gzip.compress(_jsonl([{"text": PROSE[1] + f" {i}"} for i in range(3000)]))
    (s / "f_cut.jsonl.gz").write_bytes(cut[: len(cut) // 2])
    (s / "g_empty.jsonl").write_bytes(b"")
    pq.write_table(pa.table({"body": ["x"]}), s / "h_notext.parquet")
    (root / "nothing_here").mkdir()
    cfg = root / "job.yaml"
    cfg.write_text("input:\n  paths: [shards/, nothing_here/]\noutput: out\n")
    return cfg


def load(path: Path) -> list[dict]:
    return pads.dataset(path, format="parquet").to_table().to_pylist()


def config_for(cfg_path: Path):
    import yaml

    return parse_config(yaml.safe_load(cfg_path.read_text()), base_dir=cfg_path.parent)


def test_every_record_accounted_for(tmp_path: Path, ray_session) -> None:
    cfg = config_for(make_corpus(tmp_path))
    res = run_audit(cfg, progress=False)
    out = res.out
    s = json.loads((out / "summary.json").read_text())
    lineage = load(out / "lineage")
    assert s["documents"] == len(lineage) == s["kept"] + s["quarantined"]
    assert set(LINEAGE_COLUMNS) <= set(lineage[0])
    # 11 + 10 + 10 + 10 + 6 good/bad lines, plus what decoded of the cut gzip (last line may be partial)
    cut_records = [r for r in lineage if r["shard"] == "shards/f_cut.jsonl.gz"]
    assert len(lineage) == 47 + len(cut_records) and len(cut_records) > 100

    unreadable = [json.loads(x) for x in (out / "unreadable.jsonl").read_text().splitlines()]
    assert s["unreadable"] == len(unreadable)
    named = {(u["shard"], u.get("record")): u["error"] for u in unreadable}
    bad = "shards/e_bad.jsonl"
    assert "invalid JSON" in named[(bad, 1)] and "not an object" in named[(bad, 2)]
    assert "missing" in named[(bad, 3)] and "invalid UTF-8" in named[(bad, 4)]
    assert "truncated" in named[("shards/f_cut.jsonl.gz", None)]
    assert "empty" in named[("shards/g_empty.jsonl", None)]
    assert "no text column" in named[("shards/h_notext.parquet", None)]
    assert "no shards" in named[("nothing_here/", None)]
    for u in unreadable:
        if u.get("record") is not None and u["shard"] == bad:
            assert u["line"] == u["record"] and u["byte_offset"] is not None

    by = {(r["shard"], r["record"]): r for r in lineage}
    assert by[(bad, 1)]["verdict"] == "quarantined" and by[(bad, 1)]["reasons"] == ["unreadable"]
    assert by[("shards/d.parquet", 0)]["byte_offset"] is None
    assert by[("shards/a.jsonl", 0)]["verdict"] == "kept"
    # the upper-cased copy and the verbatim copy in another shard are exact duplicates of a.jsonl:0
    dups = {d["doc_id"]: d for d in load(out / "duplicates")}
    for key in [("shards/a.jsonl", 10), (bad, 0)]:
        r = by[key]
        assert "exact_duplicate" in r["reasons"]
        assert dups[r["doc_id"]]["kept_doc_id"] == by[("shards/a.jsonl", 0)]["doc_id"]
        assert dups[r["doc_id"]]["kind"] == "exact"
    assert any(x.startswith("length") for x in by[(bad, 5)]["reasons"])

    quarantine = load(out / "quarantine")
    assert len(quarantine) == s["quarantined"]
    q = {r["doc_id"]: r for r in quarantine}[by[(bad, 5)]["doc_id"]]
    details = json.loads(q["details"])
    assert set(details) == set(q["reasons"])
    assert sum(s["reason_kinds"].values()) >= s["quarantined"]
    assert s["bytes"] > 0 and s["seconds"] > 0
    assert not list(out.glob(".tmp-*")) and not list(out.glob(".old-*"))


def test_rerun_replaces_outputs_but_keeps_takedown_state(tmp_path: Path, ray_session) -> None:
    cfg = config_for(make_corpus(tmp_path))
    out = tmp_path / "out"
    (out / "blocklist").mkdir(parents=True)
    (out / "ledger.jsonl").write_text('{"seq": 0}\n')
    (out / "pii").mkdir()
    (out / "pii" / "stale.parquet").write_text("from an older run")
    (out / ".tmp-deadbeef").mkdir()  # a killed run's leftovers
    run_audit(cfg, out=out, progress=False)
    assert (out / "ledger.jsonl").read_text() == '{"seq": 0}\n'
    assert (out / "blocklist").is_dir()
    assert not (out / "pii" / "stale.parquet").exists() and not (out / ".tmp-deadbeef").exists()
    assert (out / "summary.json").exists() and (out / "run.json").exists()


def test_a_folder_that_is_not_a_run_is_never_replaced(tmp_path: Path) -> None:
    """`output: .` next to the config and the shards must not wipe them: the run is refused."""
    from audit.io.shards import InputError

    cfg_path = make_corpus(tmp_path)
    cfg = config_for(cfg_path)
    (tmp_path / "notes.txt").write_text("mine")
    with pytest.raises(InputError, match="holds input shards"):
        run_audit(cfg, out=tmp_path, progress=False)
    mine = tmp_path / "elsewhere"
    mine.mkdir()
    (mine / "notes.txt").write_text("mine")
    with pytest.raises(InputError, match="notes.txt, which no audit run wrote"):
        run_audit(cfg, out=mine, progress=False)
    assert (mine / "notes.txt").read_text() == "mine" and (tmp_path / "job.yaml").exists()


def test_a_run_with_no_document_still_writes_every_dataset(tmp_path: Path, ray_session) -> None:
    (tmp_path / "shards").mkdir()
    (tmp_path / "shards" / "empty.jsonl").write_bytes(b"")
    cfg = config_for_text(tmp_path, "input:\n  paths: [shards/]\noutput: out\n")
    res = run_audit(cfg, progress=False)
    assert res.summary["documents"] == 0 and res.summary["unreadable"] == 1
    for name in ("lineage", "quarantine", "duplicates", "contamination", "pii"):
        t = pads.dataset(res.out / name, format="parquet").to_table()
        assert t.num_rows == 0, name
    assert set(LINEAGE_COLUMNS) <= set(pads.dataset(res.out / "lineage", format="parquet").schema.names)
    assert "details" in pads.dataset(res.out / "quarantine", format="parquet").schema.names


def config_for_text(root: Path, text: str):
    p = root / "job.yaml"
    p.write_text(text)
    return config_for(p)
