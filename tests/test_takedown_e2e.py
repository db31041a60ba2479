"""After `audit takedown --execute`, a new `audit run` over the same shards quarantines them with `takedown`."""
from __future__ import annotations

import json
from pathlib import Path

import pyarrow.dataset as pads
import pytest

from audit.config import parse_config
from audit.job.plan import run_audit
from audit.records import text_sha256
from audit.takedown.actions import run_takedown
from audit.takedown.ledger import verify_ledger
from tests.fixtures_corpus import files_holding, write_corpus

pytestmark = pytest.mark.ray


def test_a_new_run_quarantines_blocked_records_with_takedown(tmp_path: Path, ray_session) -> None:
    corpus = write_corpus(tmp_path)
    config = parse_config({"input": {"paths": ["shards/"]}, "output": "run", "pii": {"enabled": False}},
                          base_dir=tmp_path)
    out = tmp_path / "run"
    run_audit(config, out=out, progress=False)
    req = tmp_path / "req.yaml"
    req.write_text("request_id: TR-E2E-1\nreceived: 2026-11-20T10:00:00Z\nrequester: Rights Holder Ltd\n"
                   f"basis: copyright\nmatch:\n  urls: [{json.dumps(corpus.shared_url)}]\n", encoding="utf-8")
    result = run_takedown(out, req, execute=True)
    assert result.located == 3 and result.verification_ok is True  # 2 by URL + 1 copy elsewhere

    summary = run_audit(config, out=out, progress=False).summary
    lineage = pads.dataset(out / "lineage").to_table(columns=["shard", "record", "sha256", "verdict", "reasons"])
    rows = lineage.to_pylist()
    taken = sorted((r["shard"], r["record"]) for r in rows if "takedown" in (r["reasons"] or []))
    assert taken == [("shards/a.jsonl", 41), ("shards/b.jsonl.gz", 12), ("shards/c.parquet", 9)]
    assert all(r["verdict"] == "quarantined" for r in rows if "takedown" in (r["reasons"] or []))
    assert all(r["sha256"] == text_sha256(corpus.shared_text) for r in rows if "takedown" in (r["reasons"] or []))
    quarantine = pads.dataset(out / "quarantine").to_table(columns=["shard", "record", "details"]).to_pylist()
    details = [json.loads(q["details"]) for q in quarantine if (q["shard"], q["record"]) in taken]
    assert len(details) == 3 and all(d["takedown"] == {"request_id": "TR-E2E-1"} for d in details)
    assert summary["reasons"].get("takedown") == 3
    # The takedown's own records outlive the re-run, and the chain still holds.
    assert (out / "takedowns" / "TR-E2E-1" / "evidence.json").is_file() and (out / "blocklist").is_dir()
    assert verify_ledger(out).ok


def test_a_privacy_takedown_leaves_no_url_of_the_person_and_lookup_still_answers(tmp_path: Path, ray_session,
                                                                                 capsys) -> None:
    from audit.cli import main

    corpus = write_corpus(tmp_path)
    config = parse_config({"input": {"paths": ["shards/"]}, "output": "run", "pii": {"enabled": False}},
                          base_dir=tmp_path)
    out = tmp_path / "run"
    run_audit(config, out=out, progress=False)
    url = corpus.shared_url
    assert files_holding(out, url)  # lineage, quarantine, index, measurements... hold it before
    req = tmp_path / "privacy.yaml"
    req.write_text("request_id: TR-PRIV-1\nreceived: 2026-11-20T10:00:00Z\nrequester: A Person\n"
                   f"basis: privacy\nmatch:\n  urls: [{json.dumps(url)}]\n", encoding="utf-8")
    result = run_takedown(out, req, execute=True, physical=True)
    assert result.located >= 2 and result.verification_ok is True
    assert files_holding(out, url) == []
    evidence = json.loads((out / "takedowns" / "TR-PRIV-1" / "evidence.json").read_text())
    assert "privacy" in evidence and evidence["located"][0]["url"].startswith("sha256:")
    assert verify_ledger(out).ok
    capsys.readouterr()
    assert main(["lookup", "--run", str(out), "--url", url, "--json"]) == 0
    found = json.loads(capsys.readouterr().out)
    from audit.takedown.privacy import hashed

    by_url = {x["doc_id"] for x in evidence["located"] if x["url"] == hashed(url)}
    assert len(by_url) >= 2 and {m["doc_id"] for m in found["matches"]} == by_url
