"""Takedowns under faults: unfinished runs refused, keys blocked for runs to come, the ledger's
evidence checked file by file, bounded request files, and messages in a user's words."""
from __future__ import annotations

import json
import time
from pathlib import Path

import orjson
import pytest
import yaml

from audit.blocklist import Blocklist
from audit.config import ConfigError, parse_config
from audit.records import text_sha256
from audit.takedown.actions import run_takedown
from audit.takedown.ledger import LEDGER, canonical, sha256_bytes, verify_ledger
from audit.takedown.request import MAX_REQUEST_BYTES, RequestError, load_request
from tests.fixtures_corpus import Corpus
from tests.fixtures_runs import CORPUS_JOB, audit, clone_run, dataset
from tests.fixtures_storage import run_corpus_on_s3
from tests.fixtures_takedown import request_file

FUTURE_URL = "https://future.example.org/arrives-next-month"
FUTURE_TEXT = ("Zebra quartz violin harbour meadow lantern copper thistle orbit falcon ember willow "
               "granite saffron pebble canyon velvet marble tundra cobalt juniper prism walnut glacier "
               "hazel ripple summit osprey clover")
PASSAGE = ("Seventeen amber kites drifted past the lighthouse while the ferryman counted gulls, "
           "mended nets, hummed old sea shanties and waited for the northern tide to turn before "
           "supper on the quay")


@pytest.fixture
def corpus_and_run(corpus_run: tuple[Corpus, Path], tmp_path: Path) -> tuple[Corpus, Path]:
    return clone_run(*corpus_run, tmp_path / "corpus")


def one_line(err: str) -> str:
    lines = err.strip().splitlines()
    assert len(lines) == 1, lines
    return lines[0]


# ---- 1. finished means finished ------------------------------------------------------------------


def test_an_unfinished_run_folder_is_refused_and_nothing_is_written(corpus_and_run, tmp_path: Path, capsys) -> None:
    corpus, run = corpus_and_run
    (run / "summary.json").unlink()  # a run killed during the final swap
    req = request_file(tmp_path, match={"urls": [corpus.shared_url]})
    capsys.readouterr()
    assert audit("takedown", "--run", str(run), "--request", str(req), "--execute") == 2
    line = one_line(capsys.readouterr().err)
    assert str(run) in line and "unfinished" in line and "audit run" in line and "audit takedown" in line
    assert not (run / LEDGER).exists() and not (run / "blocklist").exists() and not (run / "takedowns").exists()
    assert audit("takedown", "--run", str(run), "--request", str(req)) == 2
    assert "unfinished" in one_line(capsys.readouterr().err)
    assert audit("lookup", "--run", str(run), "--url", corpus.shared_url) == 2
    line = one_line(capsys.readouterr().err)
    assert "unfinished" in line and "0 records" not in line
    for verb in ("verify", "export"):
        assert audit("ledger", verb, "--run", str(run)) == 2
        assert "unfinished" in one_line(capsys.readouterr().err)
    with pytest.raises(Exception, match="unfinished"):  # the API refuses it too
        run_takedown(run, req, execute=True)
    assert not (run / LEDGER).exists()


# ---- 2. keys blocked for runs to come --------------------------------------------------------------


def test_keys_not_in_the_run_are_blocked_and_quarantine_content_that_arrives_later(corpus_and_run, tmp_path: Path,
                                                                                    capsys) -> None:
    corpus, run = corpus_and_run
    req = request_file(tmp_path, match={"urls": [FUTURE_URL], "sha256": [text_sha256(FUTURE_TEXT)],
                                        "text": PASSAGE})
    out = run_takedown(run, req, execute=True)
    assert out.located == 0 and out.verification_ok is True
    ev = json.loads(out.evidence.read_text(encoding="utf-8"))
    assert {nf["kind"] for nf in ev["not_found"]} == {"url", "sha256", "text"}
    assert all(nf["status"] == "not in this run; blocked for future runs" for nf in ev["not_found"])
    assert ev["action"]["blocked_keys"] == {"sha256": 1, "url": 1, "source_id": 0, "text": 1}
    assert "blocked for future runs" in out.evidence_page.read_text(encoding="utf-8")
    blocked = Blocklist.load(run)
    assert text_sha256(FUTURE_TEXT) in blocked.by_sha256 and len(blocked.by_url) == 1 and len(blocked.passages) == 1
    assert FUTURE_URL.encode() not in b"".join(p.read_bytes() for p in (run / "blocklist").glob("*"))
    assert audit("ledger", "verify", "--run", str(run)) == 0

    # next month: a shard with that content arrives, and the run is repeated into the same folder
    control = "Plain words about gardens and rivers that no request names at all, written for the control."
    arrivals = [{"id": "n-0", "url": "https://elsewhere.example/copy", "text": FUTURE_TEXT},
                {"id": "n-1", "url": FUTURE_URL, "text": "A new page at the blocked address, with other words."},
                {"id": "n-2", "url": "https://quoting.example/", "text": "It begins here. " + PASSAGE.upper()
                 + " And then it goes on about something else entirely for a while."},
                {"id": "n-3", "url": "https://control.example/", "text": control}]
    (corpus.root / "shards" / "new.jsonl").write_bytes(b"".join(orjson.dumps(r) + b"\n" for r in arrivals))
    cfg = tmp_path / "audit.yaml"
    cfg.write_text(yaml.safe_dump({"input": {"paths": ["shards/"]}, **CORPUS_JOB}), encoding="utf-8")
    (corpus.root / "audit.yaml").write_text(cfg.read_text(), encoding="utf-8")
    capsys.readouterr()
    assert audit("run", str(corpus.root / "audit.yaml"), "--out", str(run), "--quiet") == 0
    lineage = dataset(run, "lineage").to_pylist()
    new = {r["source_id"]: r for r in lineage if r["shard"] == "shards/new.jsonl"}
    for sid in ("n-0", "n-1", "n-2"):
        assert new[sid]["verdict"] == "quarantined" and "takedown" in new[sid]["reasons"], new[sid]
    assert "takedown" not in new["n-3"]["reasons"]
    details = {r["source_id"]: json.loads(r["details"]) for r in dataset(run, "quarantine").to_pylist()
               if r["shard"] == "shards/new.jsonl"}
    assert {details[s]["takedown"]["request_id"] for s in ("n-0", "n-1", "n-2")} == {"TR-2026-0001"}
    # no record of the first run was caught by the new keys
    assert sum("takedown" in r["reasons"] for r in lineage) == 3
    assert audit("ledger", "verify", "--run", str(run)) == 0


def test_a_blocked_passage_that_cannot_be_matched_is_said_not_skipped(corpus_and_run, tmp_path: Path) -> None:
    corpus, run = corpus_and_run
    run_takedown(run, request_file(tmp_path, match={"text": PASSAGE}), execute=True)
    cfg = corpus.root / "audit.yaml"
    cfg.write_text(yaml.safe_dump({"input": {"paths": ["shards/"]}, **{**CORPUS_JOB, "lookup": {"passages": False}}}))
    assert audit("run", str(cfg), "--out", str(run), "--quiet") == 0
    warnings = json.loads((run / "summary.json").read_text())["warnings"]
    assert any("1 blocked passage(s) were not matched: lookup.passages is off" in w for w in warnings), warnings


def test_the_command_says_which_keys_are_blocked_for_future_runs(corpus_and_run, tmp_path: Path, capsys) -> None:
    _, run = corpus_and_run
    req = request_file(tmp_path, match={"urls": [FUTURE_URL], "source_ids": ["never-seen"]})
    capsys.readouterr()
    assert audit("takedown", "--run", str(run), "--request", str(req)) == 0
    assert "2 key(s) of the request not in this run: --execute blocks them" in capsys.readouterr().out
    assert audit("takedown", "--run", str(run), "--request", str(req), "--execute") == 0
    assert "2 key(s) of the request not in this run: blocked for future runs" in capsys.readouterr().out


def _blocklist_file(folder: Path, rows: list[dict], schema=None) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    from audit.blocklist import BLOCKLIST_SCHEMA

    (folder / "blocklist").mkdir(parents=True, exist_ok=True)
    pq.write_table(pa.Table.from_pylist(rows, schema=schema or BLOCKLIST_SCHEMA),
                   folder / "blocklist" / f"f{len(list((folder / 'blocklist').iterdir()))}.parquet")


def test_blocklist_matches_by_every_key_kind(tmp_path: Path) -> None:
    import pyarrow as pa

    from audit.blocklist import identifier_hash, passage_key
    from audit.stages.passages import PASSAGE_HASHES_TYPE, passage_fingerprints

    prints, need = passage_key(PASSAGE)
    assert need >= 1 and len(prints) >= need
    _blocklist_file(tmp_path, [
        {"request_id": "R-sha", "kind": "sha256", "sha256": "ab" * 32},
        {"request_id": "R-url", "kind": "url", "url": identifier_hash(FUTURE_URL)},
        {"request_id": "R-id", "kind": "source_id", "source_id": identifier_hash("sid-9")},
        {"request_id": "R-passage", "kind": "passage", "passage_hashes": prints.tolist(), "passage_min_shared": need},
    ])
    # a file written before `kind` existed: its rows block their content hashes only
    old = pa.schema([("request_id", pa.string()), ("sha256", pa.string()), ("url", pa.string())])
    _blocklist_file(tmp_path, [{"request_id": "R-old", "sha256": "cd" * 32, "url": "https://old.example/"}], old)
    b = Blocklist.load(tmp_path)
    texts = ["Nothing to see here at all, just some words.", "Prefix words. " + PASSAGE.lower() + " And more.",
             FUTURE_TEXT, FUTURE_TEXT, FUTURE_TEXT, FUTURE_TEXT, FUTURE_TEXT]
    fingerprints = passage_fingerprints(pa.array(texts, pa.string()))
    assert fingerprints.type == PASSAGE_HASHES_TYPE
    got = b.match([None, None, "ab" * 32, "cd" * 32, None, None, None],
                  [None, None, None, None, FUTURE_URL, identifier_hash(FUTURE_URL), "https://old.example/"],
                  [None, None, None, None, None, None, "sid-9"], fingerprints)
    # the last row: a privacy takedown left its URL hashed; its source id is blocked
    assert got == [None, "R-passage", "R-sha", "R-old", "R-url", "R-url", "R-id"]
    assert b.match(["cd" * 32], ["https://old.example/"]) == ["R-old"]
    assert b.match([None], ["https://old.example/"]) == [None]  # a located record's URL blocks nothing by itself


# ---- 7. the ledger checks every evidence file ------------------------------------------------------


@pytest.fixture
def ledgered(corpus_and_run, tmp_path: Path) -> Path:
    corpus, run = corpus_and_run
    for i in range(2):
        run_takedown(run, request_file(tmp_path, name=f"r{i}.yaml", request_id=f"TR-{i}",
                                       match={"source_ids": [f"a-{i}"]}), execute=True)
    assert verify_ledger(run).ok
    return run


@pytest.mark.parametrize("name", ["evidence.json", "evidence.html"])
def test_a_deleted_latest_evidence_file_fails_verify_naming_its_entry(ledgered: Path, name: str, capsys) -> None:
    (ledgered / "takedowns" / "TR-0" / name).unlink()
    report = verify_ledger(ledgered)
    assert not report.ok and report.bad_entry == 1 and f"takedowns/TR-0/{name}" in report.problem
    capsys.readouterr()
    assert audit("ledger", "verify", "--run", str(ledgered)) == 1
    line = one_line(capsys.readouterr().err)
    assert "entry 1" in line and "missing" in line and "history/" in line  # where to restore it from


def test_an_entry_without_evidence_hashes_is_said_to_be_unchecked(ledgered: Path, capsys) -> None:
    """An entry written before evidence pages were hashed (the last entry, rebuilt here as one)."""
    lines = (ledgered / LEDGER).read_text(encoding="utf-8").splitlines()
    e = {k: v for k, v in json.loads(lines[-1]).items() if k not in ("entry_sha256", "evidence_html_sha256")}
    e["entry_sha256"] = sha256_bytes(canonical(e).encode("utf-8"))
    (ledgered / LEDGER).write_text("".join(x + "\n" for x in [*lines[:-1], canonical(e)]), encoding="utf-8")
    report = verify_ledger(ledgered)
    assert report.ok and len(report.notes) == 1 and "entry 2: records no SHA-256" in report.notes[0]
    assert audit("ledger", "verify", "--run", str(ledgered)) == 0
    assert "records no SHA-256" in capsys.readouterr().err
    # still caught when such a page is edited: the latest copy no longer matches its archive
    page = ledgered / "takedowns" / "TR-1" / "evidence.html"
    page.write_text(page.read_text(encoding="utf-8") + " ", encoding="utf-8")
    assert not verify_ledger(ledgered).ok


def test_an_empty_expected_head_is_a_usage_error(ledgered: Path, capsys) -> None:
    capsys.readouterr()
    assert audit("ledger", "verify", "--run", str(ledgered), "--expect-head", "") == 2
    assert "--expect-head is empty" in one_line(capsys.readouterr().err)
    assert audit("ledger", "verify", "--run", str(ledgered), "--expect-head", "  ") == 2


# ---- 6. request files are bounded ------------------------------------------------------------------


def _request_text(requester: str) -> str:
    return ("request_id: TR-1\nreceived: 2026-11-20T10:00:00Z\nbasis: copyright\n"
            f"match: {{urls: [https://x.example/]}}\nrequester: {requester}\n")


def test_a_billion_laughs_request_is_refused_fast(tmp_path: Path) -> None:
    laughs = ['    a: &a ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]']
    for i in range(1, 10):
        prev, cur = chr(96 + i), chr(97 + i)
        laughs.append(f"    {cur}: &{cur} [" + ", ".join([f"*{prev}"] * 9) + "]")
    p = tmp_path / "laughs.yaml"
    p.write_text(_request_text("\n" + "\n".join(laughs)), encoding="utf-8")
    t0 = time.perf_counter()
    with pytest.raises(RequestError) as e:
        load_request(p)
    assert time.perf_counter() - t0 < 2
    assert str(p) in str(e.value) and "anchors" in str(e.value) and "\n" not in str(e.value)


def test_a_plain_alias_is_refused_too(tmp_path: Path) -> None:
    p = tmp_path / "alias.yaml"
    p.write_text("request_id: TR-1\nreceived: 2026-11-20T10:00:00Z\nbasis: &b copyright\nrequester: *b\n"
                 "match: {urls: [https://x.example/]}\n", encoding="utf-8")
    with pytest.raises(RequestError, match="anchors"):
        load_request(p)


def test_an_oversized_request_file_is_refused_naming_the_limit(tmp_path: Path) -> None:
    p = tmp_path / "huge.yaml"
    p.write_text(_request_text("x" * (MAX_REQUEST_BYTES + 10)), encoding="utf-8")
    with pytest.raises(RequestError) as e:
        load_request(p)
    assert str(p) in str(e.value) and "1 MiB" in str(e.value)


def test_an_oversized_request_is_exit_2_on_the_command_line(corpus_and_run, tmp_path: Path, capsys) -> None:
    _, run = corpus_and_run
    p = tmp_path / "huge.yaml"
    p.write_text(_request_text("x" * (MAX_REQUEST_BYTES + 10)), encoding="utf-8")
    capsys.readouterr()
    assert audit("takedown", "--run", str(run), "--request", str(p), "--execute") == 2
    assert "1 MiB" in one_line(capsys.readouterr().err)
    assert not (run / LEDGER).exists()


# ---- 8. messages in a user's words ----------------------------------------------------------------

PYTHON_WORDS = ("NoneType", "instance of", "MatchSpec", "dict", "'list'", "Input should be")


@pytest.mark.parametrize("body, expected", [
    ("null\n", "got null"),
    ("request_id: TR-1\nreceived: 2026-11-20T10:00:00Z\nrequester: x\nbasis: c\nmatch: null\n",
     "key 'match': expected a mapping of keys (urls, sha256, source_ids, text) (got null)"),
    ("request_id: TR-1\nreceived: 2026-11-20T10:00:00Z\nrequester: x\nbasis: c\nmatch: [1]\n",
     "key 'match': expected a mapping of keys (urls, sha256, source_ids, text) (got an array)"),
    ("request_id: TR-1\nreceived: 2026-11-20T10:00:00Z\nrequester: x\nbasis: c\nmatch: {urls: [a, null]}\n",
     "key 'match.urls[1]': expected a string (got null)"),
    ("request_id: TR-1\nreceived: 2026-11-20T10:00:00Z\nrequester: [x]\nbasis: c\nmatch: {urls: [a]}\n",
     "key 'requester': expected a string (got an array)"),
])
def test_request_errors_name_json_types_and_key_paths(tmp_path: Path, body: str, expected: str) -> None:
    p = tmp_path / "req.yaml"
    p.write_text(body, encoding="utf-8")
    with pytest.raises(RequestError) as e:
        load_request(p)
    assert expected in str(e.value)
    assert not any(w in str(e.value) for w in PYTHON_WORDS), str(e.value)


@pytest.mark.parametrize("data, expected", [
    ({"contamination": {"threshold": None}}, "key 'contamination.threshold': expected a number (got null)"),
    ({"contamination": None}, "key 'contamination': expected a mapping of keys (got null)"),
    ({"eval_sets": [{"name": "x", "path": 5}]}, "key 'eval_sets[0].path': expected a string (got a number: '5')"),
    ([1, 2], "got an array"),
])
def test_config_errors_name_json_types_and_config_paths(data, expected: str) -> None:
    with pytest.raises(ConfigError) as e:
        parse_config(data)
    assert expected in str(e.value)
    assert not any(w in str(e.value) for w in PYTHON_WORDS), str(e.value)


@pytest.mark.ray
def test_lookup_with_text_reads_the_shards_of_a_run_in_object_storage(s3_bucket, corpus_run, tmp_path: Path,
                                                                       capsys) -> None:
    corpus, _ = corpus_run
    out = run_corpus_on_s3(s3_bucket, corpus, f"with-text-{tmp_path.name}")
    capsys.readouterr()
    assert audit("lookup", "--run", out, "--sha256", text_sha256(corpus.shared_text), "--with-text", "--json") == 0
    captured = capsys.readouterr()
    found = json.loads(captured.out)
    # the copies in a plain, a gzip JSON-lines and a Parquet shard, each read back from the bucket
    assert found["count"] == 3 and {Path(m["shard"]).name for m in found["matches"]} == {
        "a.jsonl", "b.jsonl.gz", "c.parquet"}
    assert all(m["text"] == corpus.shared_text for m in found["matches"]), captured.err
    assert "not found" not in captured.err


def test_a_passage_from_a_closed_standard_input_is_one_line(corpus_run, monkeypatch, capsys) -> None:
    import sys

    _, run = corpus_run
    monkeypatch.setattr(sys, "stdin", None)  # started with standard input closed
    capsys.readouterr()
    assert audit("lookup", "--run", str(run), "--text-file", "-") == 2
    line = one_line(capsys.readouterr().err)
    assert "standard input is closed" in line and "NoneType" not in line
