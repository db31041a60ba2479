"""audit takedown: request validation, dry run evidence, blocking, physical removal, concurrency."""
from __future__ import annotations

import gzip
import json
import multiprocessing
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
import pytest
import zstandard

from audit.io.shards import Shard, read_shard
from audit.config import InputConfig
from audit.records import text_sha256
from audit.takedown.actions import run_takedown
from audit.takedown.blocklist import Blocklist
from audit.takedown.ledger import sha256_file, verify_ledger
from audit.takedown.lookup import RunLookup
from tests.fixtures_corpus import Corpus, files_holding, middle_passage
from tests.fixtures_runs import audit, clone_run
from tests.fixtures_takedown import request_file


@pytest.fixture
def corpus_and_run(corpus_run: tuple[Corpus, Path], tmp_path: Path) -> tuple[Corpus, Path]:
    """The session's finished run with its corpus, copied for this test (takedowns rewrite both)."""
    return clone_run(*corpus_run, tmp_path / "corpus")


@pytest.fixture
def corpus(corpus_and_run: tuple[Corpus, Path]) -> Corpus:
    return corpus_and_run[0]


@pytest.fixture
def run(corpus_and_run: tuple[Corpus, Path]) -> Path:
    return corpus_and_run[1]


def evidence(run: Path, request_id: str = "TR-2026-0001") -> dict:
    return json.loads((run / "takedowns" / request_id / "evidence.json").read_text(encoding="utf-8"))


@pytest.mark.parametrize("body, key", [
    ('match: {url: ["https://x.example/"]}', "match.url"),
    ('requestor: someone\nmatch: {urls: ["https://x.example/"]}', "requestor"),
])
def test_a_request_with_a_bad_key_gets_one_clear_line_and_exit_2(run: Path, tmp_path: Path, capsys, body: str,
                                                                  key: str) -> None:
    p = tmp_path / "bad.yaml"
    p.write_text("request_id: TR-1\nreceived: 2026-11-20T10:00:00Z\nrequester: x\nbasis: copyright\n" + body,
                 encoding="utf-8")
    assert audit("takedown", "--run", str(run), "--request", str(p)) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and f"unknown key '{key}'" in err and str(p) in err
    assert not (run / "takedowns").exists() and not (run / "ledger.jsonl").exists()


def test_other_bad_requests_exit_2(run: Path, tmp_path: Path, capsys) -> None:
    cases = {
        "nomatch.yaml": "request_id: TR-1\nreceived: 2026-11-20T10:00:00Z\nrequester: x\nbasis: copyright\n",
        "empty.yaml": "request_id: TR-1\nreceived: 2026-11-20T10:00:00Z\nrequester: x\nbasis: b\nmatch: {}\n",
        "sha.yaml": "request_id: TR-1\nreceived: 2026-11-20T10:00:00Z\nrequester: x\nbasis: b\n"
                    "match: {sha256: [abc]}\n",
        "id.yaml": "request_id: ../../etc\nreceived: 2026-11-20T10:00:00Z\nrequester: x\nbasis: b\n"
                   "match: {urls: [u]}\n",
        "yaml.yaml": "request_id: [unclosed\n",
    }
    expected = ["missing key 'match'", "give at least one of", "not a SHA-256", "request_id", "not valid YAML"]
    for (name, body), want in zip(cases.items(), expected):
        (tmp_path / name).write_text(body, encoding="utf-8")
        assert audit("takedown", "--run", str(run), "--request", str(tmp_path / name)) == 2, name
        err = capsys.readouterr().err.strip()
        assert want in err and len(err.splitlines()) == 1, (name, err)
    assert audit("takedown", "--run", str(run), "--request", str(tmp_path / "missing.yaml")) == 2
    assert audit("takedown", "--run", str(tmp_path), "--request", str(tmp_path / "id.yaml")) == 2
    ok = request_file(tmp_path, match={"urls": ["https://x.example/"]})
    assert audit("takedown", "--run", str(run), "--request", str(ok), "--physical") == 2
    assert "--physical" in capsys.readouterr().err


def test_dry_run_writes_evidence_and_blocks_nothing(run: Path, corpus: Corpus, tmp_path: Path, capsys) -> None:
    shard, record = corpus.long_key
    passage = middle_passage(corpus.text(shard, record), 40)
    req = request_file(tmp_path, requester="<script>alert('x')</script> & Co",
                       match={"urls": [corpus.shared_url, "https://absent.example/"], "text": passage})
    assert audit("takedown", "--run", str(run), "--request", str(req)) == 0
    assert "would block" in capsys.readouterr().out
    ev = evidence(run)
    got = {(r["shard"], r["record"]): r for r in ev["located"]}
    assert set(got) == {("shards/a.jsonl", 41), ("shards/b.jsonl.gz", 12), ("shards/c.parquet", 9), (shard, record)}
    assert got[("shards/c.parquet", 9)]["method"] == "copy"  # same content under another URL
    assert got[(shard, record)]["method"] == "text" and got[(shard, record)]["score"] == 1.0
    assert got[("shards/a.jsonl", 41)]["byte_offset"] is not None
    assert ev["not_found"] == [{"kind": "url", "key": "https://absent.example/",
                               "status": "not in this run; --execute blocks it for future runs"}]
    assert ev["mode"] == "dry_run" and ev["verification"]["ok"] is None
    assert ev["tool"]["version"] and set(ev["timestamps"]) >= {"started", "located", "finished"}
    assert ev["request"]["requester"] == "<script>alert('x')</script> & Co"
    assert ev["request"]["match"]["text"]["sha256"] == text_sha256(passage)
    assert not (run / "blocklist").exists()
    # The matched text is not copied: only a masked excerpt of a few words.
    body = (run / "takedowns" / "TR-2026-0001" / "evidence.json").read_text(encoding="utf-8")
    page = (run / "takedowns" / "TR-2026-0001" / "evidence.html").read_text(encoding="utf-8")
    words = corpus.text(shard, record).split()
    for i in range(0, len(words) - 3, 5):
        snippet = " ".join(words[i:i + 3])
        assert snippet not in body and snippet not in page
    excerpt = got[(shard, record)]["excerpt"]
    assert excerpt and "*" in excerpt and len(excerpt) <= 52
    assert "<script>" not in page and "&lt;script&gt;" in page
    assert "src=" not in page and "<link" not in page and "http-equiv" not in page
    assert verify_ledger(run).ok and verify_ledger(run).entries == 1


def test_execute_blocks_the_located_records_and_their_copies(run: Path, corpus: Corpus, tmp_path: Path,
                                                             capsys) -> None:
    req = request_file(tmp_path, match={"urls": [corpus.shared_url], "source_ids": ["d-2"]})
    assert audit("takedown", "--run", str(run), "--request", str(req), "--execute") == 0
    assert "verification: ok" in capsys.readouterr().out
    blocked = Blocklist.load(run)
    d2 = corpus.text("shards/d.jsonl.zst", 2)
    assert set(blocked.by_sha256) == {text_sha256(corpus.shared_text), text_sha256(d2)}
    assert blocked.match([text_sha256(corpus.shared_text), "0" * 64]) == ["TR-2026-0001", None]
    ev = evidence(run)
    assert ev["action"]["blocked_sha256"] == 2 and ev["verification"]["ok"] is True
    checks = {c["kind"]: c for c in ev["verification"]["checks"]}
    assert checks["url"]["found"] == 2 and checks["url"]["not_blocked"] == []
    assert checks["copies"]["found"] == 4 and checks["copies"]["blocked"] == 4  # 3 shared + d-2
    # A later lookup says who blocked it; the shards are untouched.
    hits = RunLookup(run).by_sha256(text_sha256(corpus.shared_text))
    assert [m.blocked_by for m in hits] == ["TR-2026-0001"] * 3
    assert len(list((corpus.root / "shards").iterdir())) == 4
    assert ev["action"].get("physical") is None


def _jsonl_lines(path: Path) -> list[bytes]:
    raw = path.read_bytes()
    if path.name.endswith(".gz"):
        raw = gzip.decompress(raw)
    elif path.name.endswith(".zst"):
        raw = zstandard.ZstdDecompressor().decompressobj().decompress(raw)
    return raw.split(b"\n")


def test_physical_removes_them_and_every_other_record_is_byte_identical(run: Path, corpus: Corpus,
                                                                       tmp_path: Path) -> None:
    shards = corpus.root / "shards"
    names = ["a.jsonl", "b.jsonl.gz", "d.jsonl.zst"]
    before = {n: _jsonl_lines(shards / n) for n in names}
    before_sha = {n: sha256_file(shards / n) for n in names + ["c.parquet"]}
    parquet_before = pq.read_table(shards / "c.parquet")
    req = request_file(tmp_path, match={"urls": [corpus.shared_url], "source_ids": ["d-3"]})
    out = run_takedown(run, req, execute=True, physical=True)
    assert out.verification_ok is True and out.exit_code == 0 and out.problems == []

    def without(lines: list[bytes], drop: bytes) -> list[bytes]:
        return [ln for ln in lines if drop not in ln]

    shared_line = json.dumps(corpus.shared_url).encode()
    assert _jsonl_lines(shards / "a.jsonl") == without(before["a.jsonl"], shared_line)
    assert _jsonl_lines(shards / "b.jsonl.gz") == without(before["b.jsonl.gz"], shared_line)
    assert _jsonl_lines(shards / "d.jsonl.zst") == without(before["d.jsonl.zst"], b'"id":"d-3"')
    assert len(_jsonl_lines(shards / "a.jsonl")) == len(before["a.jsonl"]) - 1  # blank and bad lines kept
    parquet_after = pq.read_table(shards / "c.parquet")
    keep = [i for i in range(parquet_before.num_rows) if i != 9]
    assert parquet_after.equals(parquet_before.take(keep))
    assert pq.ParquetFile(shards / "c.parquet").schema_arrow == pq.ParquetFile(shards / "c.parquet").schema_arrow

    ev = evidence(run)
    rewrites = {r["shard"]: r for r in ev["action"]["physical"]}
    assert set(rewrites) == {"shards/a.jsonl", "shards/b.jsonl.gz", "shards/c.parquet", "shards/d.jsonl.zst"}
    for name in names + ["c.parquet"]:
        r = rewrites[f"shards/{name}"]
        assert r["sha256_before"] == before_sha[name] and r["sha256_after"] == sha256_file(shards / name)
        assert r["sha256_before"] != r["sha256_after"] and r["removed_text_checked"] == 1 and "re-read" in r["compared"]
        assert r["records_after"] == r["records_before"] - 1
    assert rewrites["shards/a.jsonl"]["removed_records"] == [41]
    assert all(p["blocked_left"] == 0 and p["passage_left"] == 0 for p in ev["verification"]["physical"])
    # Read with the job's own reader: the content is gone from every shard.
    gone = {text_sha256(corpus.shared_text), text_sha256(corpus.text("shards/d.jsonl.zst", 3))}
    cfg = InputConfig(paths=["shards/"])
    for i, name in enumerate(names + ["c.parquet"]):
        for block in read_shard(Shard(f"shards/{name}", str(shards / name), i), cfg):
            shas = set(block.column("sha256").filter(pc.is_valid(block.column("sha256"))).to_pylist())
            assert not shas & gone, name
    assert verify_ledger(run).ok


def test_physical_refuses_a_shard_that_changed_since_the_run(run: Path, corpus: Corpus, tmp_path: Path) -> None:
    p = corpus.root / "shards" / "a.jsonl"
    lines = p.read_bytes().split(b"\n")
    p.write_bytes(b"\n".join(lines[:5] + lines[6:]))  # one line gone: record numbers shifted
    changed = p.read_bytes()
    req = request_file(tmp_path, match={"urls": [corpus.shared_url]})
    out = run_takedown(run, req, execute=True, physical=True)
    assert out.verification_ok is False and out.exit_code == 1
    assert any("shards/a.jsonl" in x and "no longer holds" in x for x in out.problems), out.problems
    assert p.read_bytes() == changed  # untouched
    assert verify_ledger(run).ok


def _takedown(args: tuple[str, str, str]) -> int:
    run, req, _ = args
    return run_takedown(Path(run), Path(req), execute=True).seq


def test_concurrent_takedowns_keep_the_ledger_whole(run: Path, corpus: Corpus, tmp_path: Path) -> None:
    reqs = [request_file(tmp_path, name=f"r{i}.yaml", request_id=f"TR-{i}",
                         match={"source_ids": [f"b-{i}", f"c-{i}"]}) for i in range(4)]
    ctx = multiprocessing.get_context("fork")
    with ProcessPoolExecutor(max_workers=4, mp_context=ctx) as pool:
        seqs = list(pool.map(_takedown, [(str(run), str(r), str(i)) for i, r in enumerate(reqs)]))
    assert sorted(seqs) == [1, 2, 3, 4]
    report = verify_ledger(run)
    assert report.ok and report.entries == 4
    entries = [json.loads(x) for x in (run / "ledger.jsonl").read_text(encoding="utf-8").splitlines()]
    assert sorted(e["request_id"] for e in entries) == ["TR-0", "TR-1", "TR-2", "TR-3"]
    blocked = Blocklist.load(run)  # 8 located records, and the 8 source ids for later runs
    assert len(blocked.by_sha256) == 8 and len(blocked.by_source_id) == 8
    # each concurrent takedown vouches for its own blocklist file, and the next run may start
    from audit.takedown.ledger import check_blocklist

    assert len({e["blocklist_file"] for e in entries}) == 4 and all(e["blocklist_rows"] == 4 for e in entries)
    assert check_blocklist(run) == []


def test_a_shard_damaged_since_the_run_still_leaves_evidence_and_a_ledger_entry(run: Path, corpus: Corpus,
                                                                                 tmp_path: Path) -> None:
    p = corpus.root / "shards" / "b.jsonl.gz"
    p.write_bytes(p.read_bytes()[:-40])  # the gzip stream now ends inside its member
    req = request_file(tmp_path, match={"urls": [corpus.shared_url]})
    out = run_takedown(run, req, execute=True, physical=True)
    assert out.verification_ok is False and out.exit_code == 1
    assert any("shards/b.jsonl.gz" in x and "truncated" in x for x in out.problems)
    ev = evidence(run)
    assert ev["action"]["blocked_sha256"] == 1 and ev["verification"]["ok"] is False
    assert verify_ledger(run).ok and verify_ledger(run).entries == 1


@pytest.mark.parametrize("trailing_newline", [True, False])
def test_rewrite_numbers_records_like_the_reader_and_keeps_every_other_byte(tmp_path: Path,
                                                                           trailing_newline: bool) -> None:
    from audit.takedown.shard_rewrite import jsonl_records, rewrite_shard
    long_blank = b" " * 300  # longer than max_record_bytes: the reader counts it as an (unreadable) record
    lines = [b'{"text":"zero"}', b"", b"  ", long_blank, b'{"text":"four ' + b"x" * 5000 + b'"}', b"not json",
             b'{"text":"six"}\r', b'{"text":"seven"}']
    raw = b"\n".join(lines) + (b"\n" if trailing_newline else b"")
    p = tmp_path / "s.jsonl"
    p.write_bytes(raw)
    cfg = InputConfig(paths=["s.jsonl"], max_record_bytes=256)
    read = [r for block in read_shard(Shard("s.jsonl", str(p), 0), cfg)
            for r in zip(block.column("record").to_pylist(), block.column("sha256").to_pylist())]
    numbered = [(r, ln) for r, ln, _ in jsonl_records(str(p), cfg.max_record_bytes) if r is not None]
    assert [r for r, _ in read] == [r for r, _ in numbered] == list(range(6))
    assert [ln for _, ln in numbered] == [lines[0], long_blank, lines[4], lines[5], lines[6], lines[7]]
    six = text_sha256("six")
    assert read[4] == (4, six)
    out = rewrite_shard("s.jsonl", str(p), {4}, {4: six}, "text", cfg.max_record_bytes)
    assert p.read_bytes() == raw.replace(lines[6] + b"\n", b"")
    assert (out.records_before, out.records_after, out.removed_records) == (6, 5, [4])
    last = rewrite_shard("s.jsonl", str(p), {4}, {4: text_sha256("seven")}, "text", cfg.max_record_bytes)
    # The last line goes with its newline if it had one; without one, the line before keeps its own.
    assert p.read_bytes() == raw.replace(lines[6] + b"\n", b"").replace(lines[7] + b"\n" * trailing_newline, b"")
    assert last.records_after == 4 and last.removed_text_checked == 1


def test_physical_refuses_a_parquet_shard_whose_row_changed_since_the_run(run: Path, corpus: Corpus,
                                                                          tmp_path: Path) -> None:
    p = corpus.root / "shards" / "c.parquet"
    t = pq.read_table(p)
    texts = t.column("text").to_pylist()
    texts[9] = texts[9] + " (edited)"
    pq.write_table(t.set_column(t.schema.get_field_index("text"), "text", pa.array(texts)), p)
    changed = p.read_bytes()
    req = request_file(tmp_path, match={"urls": [corpus.shared_url]})
    out = run_takedown(run, req, execute=True, physical=True)
    assert out.verification_ok is False
    assert any("shards/c.parquet" in x and "record 9 " in x and "no longer holds" in x for x in out.problems)
    assert p.read_bytes() == changed  # untouched
    assert not list(p.parent.glob(".*rewrite*"))  # no temporary file left


def test_a_privacy_takedown_after_an_earlier_block_keeps_the_ledger_whole(run: Path, corpus: Corpus,
                                                                         tmp_path: Path) -> None:
    first = request_file(tmp_path, "a.yaml", "TR-A", match={"urls": [corpus.shared_url]})
    run_takedown(run, first, execute=True)
    earlier = run / "blocklist" / "TR-A-000001.parquet"
    assert corpus.shared_url in pq.read_table(earlier).column("url").to_pylist()
    priv = request_file(tmp_path, "b.yaml", "TR-B", match={"urls": [corpus.shared_url]}).read_text()
    (tmp_path / "b.yaml").write_text(priv.replace("basis: copyright", "basis: privacy"))
    out = run_takedown(run, tmp_path / "b.yaml", execute=True, physical=True)
    assert out.verification_ok is True
    # the earlier takedown's blocklist file was rewritten with the URL hashed, and the ledger says so
    assert files_holding(run / "blocklist", corpus.shared_url) == []
    last = json.loads((run / "ledger.jsonl").read_text().splitlines()[-1])
    assert last["blocklist_rewritten"] == {"blocklist/TR-A-000001.parquet": sha256_file(earlier)}
    report = verify_ledger(run)
    assert report.ok, report


def test_a_privacy_takedown_does_not_vouch_for_a_blocklist_file_edited_before_it(run: Path, corpus: Corpus,
                                                                                  tmp_path: Path) -> None:
    run_takedown(run, request_file(tmp_path, "a.yaml", "TR-A", match={"urls": [corpus.shared_url]}), execute=True)
    earlier = run / "blocklist" / "TR-A-000001.parquet"
    t = pq.read_table(earlier)
    pq.write_table(t.slice(0, 1), earlier)  # rows dropped: content unblocked behind the ledger's back
    priv = request_file(tmp_path, "b.yaml", "TR-B", match={"urls": [corpus.shared_url]}).read_text()
    (tmp_path / "b.yaml").write_text(priv.replace("basis: copyright", "basis: privacy"))
    run_takedown(run, tmp_path / "b.yaml", execute=True, physical=True)
    report = verify_ledger(run)
    assert not report.ok and "TR-A-000001.parquet was changed" in report.problem


def test_a_privacy_takedown_killed_before_hashing_is_finished_by_running_it_again(run: Path, corpus: Corpus,
                                                                                 tmp_path: Path, monkeypatch,
                                                                                 capsys) -> None:
    import audit.takedown.actions as actions

    priv = request_file(tmp_path, "b.yaml", "TR-B", match={"urls": [corpus.shared_url]}).read_text()
    (tmp_path / "b.yaml").write_text(priv.replace("basis: copyright", "basis: privacy"))

    def killed(*_a, **_k):
        raise KeyboardInterrupt  # shards rewritten, blocklist written, identifiers not yet hashed

    with monkeypatch.context() as m:
        m.setattr(actions, "scrub_run", killed)
        with pytest.raises(KeyboardInterrupt):
            run_takedown(run, tmp_path / "b.yaml", execute=True, physical=True)
    assert files_holding(run, corpus.shared_url)
    run_takedown(run, tmp_path / "b.yaml", execute=True, physical=True)
    # nor the ids of the records by that URL, nor the URL of the copy found by its content hash
    for needle in (corpus.shared_url, "shared-a", "shared-b", "https://mirror.example.net/copied"):
        assert files_holding(run, needle) == [], needle
    report = verify_ledger(run)
    assert report.ok, report
    capsys.readouterr()
    assert audit("lookup", "--run", str(run), "--url", corpus.shared_url, "--json") == 0
    assert json.loads(capsys.readouterr().out)["count"] == 2  # through the hash: both records by that URL
