"""audit lookup: by URL, SHA-256, source id, doc_id, shard range and passage, over a run of the job."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pyarrow as pa
import pytest

from audit.config import InputConfig, parse_config
from audit.io.shards import discover_shards, read_shard
from audit import lookup_index
from audit.lookup_index import LookupIndex, build_lookup_indexes
from audit.normalize import normalize
from audit.records import make_doc_id, text_sha256
from audit.takedown.lookup import RunLookup
from audit.stages.passages import (MIN_GUARANTEED_WORDS, PASSAGE_NGRAM, PASSAGE_WINDOW, PassageIndexStage,
                                     passage_fingerprints, passage_query, text_ngrams)
from audit.records import LINEAGE_SCHEMA
from tests.fixtures_corpus import Corpus, middle_passage, write_corpus
from tests.fixtures_runs import audit, clone_run, write_dataset


@pytest.fixture(scope="module")
def corpus(corpus_run: tuple[Corpus, Path]) -> Corpus:
    return corpus_run[0]


@pytest.fixture(scope="module")
def run(corpus_run: tuple[Corpus, Path]) -> Path:
    return corpus_run[1]


def test_passage_from_the_middle_with_changed_case_and_line_breaks_is_found(run: Path, corpus: Corpus) -> None:
    shard, record = corpus.long_key
    text = corpus.text(shard, record)
    passage = middle_passage(text, 40)
    assert passage not in text and passage.lower() not in text.lower()
    hits = RunLookup(run).by_text(passage)
    assert [(m.shard, m.record) for m in hits] == [(shard, record)]
    m = hits[0]
    assert m.method == "text" and m.score == 1.0
    assert m.doc_id == make_doc_id(shard, record) and m.sha256 == text_sha256(text)
    assert m.url == corpus.records[(shard, record)]["url"]
    line = (corpus.root / shard).read_bytes()[m.byte_offset:].split(b"\n", 1)[0]
    assert json.loads(line)["text"] == text  # the byte offset points at the record's line
    assert m.span is not None and m.matched_text == text[m.span[0]:m.span[1]]
    assert normalize(m.matched_text) == normalize(passage)  # the span is exactly the passage
    assert 0 < m.span[0] and m.span[1] < len(text)


def test_passage_starting_mid_word_and_edited_is_found_in_every_format(run: Path, corpus: Corpus) -> None:
    lookup = RunLookup(run)
    for shard in ["shards/b.jsonl.gz", "shards/c.parquet", "shards/d.jsonl.zst"]:
        record = next(r for (s, r), rec in corpus.records.items() if s == shard and rec
                      and MIN_GUARANTEED_WORDS + 10 <= len(rec["text"].split()))
        words = corpus.text(shard, record).split()
        words[4] = "EDITED"                 # one word changed; 26+ unchanged words follow it
        passage = " ".join(words)[2:]       # starts inside the first word
        hits = lookup.by_text(passage)
        assert (shard, record) in [(m.shard, m.record) for m in hits], shard
        m = next(m for m in hits if (m.shard, m.record) == (shard, record))
        assert 0.8 <= m.score < 1.0


def test_edited_passage_with_short_unchanged_stretches_is_still_found(run: Path, corpus: Corpus) -> None:
    """Every n-gram of the passage is looked up: stretches of ~20 words between edits suffice here."""
    shard, record = corpus.long_key
    words = corpus.text(shard, record).split()[100:160]
    for i in (20, 40):
        words[i] = "EDITED"
    hits = RunLookup(run).by_text(" ".join(words))
    assert [(m.shard, m.record) for m in hits] == [(shard, record)]
    assert 0.8 <= hits[0].score < 1.0


def test_unrelated_passage_finds_nothing(run: Path) -> None:
    assert RunLookup(run).by_text("completely unrelated words about quantum gardening and the taxes of "
                                  "medieval lighthouses along a coast nobody has ever charted before") == []


def test_url_with_two_copies_in_different_shards_finds_both(run: Path, corpus: Corpus) -> None:
    hits = RunLookup(run).by_url(corpus.shared_url)
    assert [(m.shard, m.record) for m in hits] == [("shards/a.jsonl", 41), ("shards/b.jsonl.gz", 12)]
    assert all(m.sha256 == text_sha256(corpus.shared_text) and m.url == corpus.shared_url for m in hits)
    assert hits[0].byte_offset is not None and hits[1].byte_offset is not None


def test_sha256_finds_every_copy_and_source_id_and_doc_id_find_one(run: Path, corpus: Corpus) -> None:
    lookup = RunLookup(run)
    copies = lookup.by_sha256(text_sha256(corpus.shared_text).upper())
    assert [(m.shard, m.record) for m in copies] == [("shards/a.jsonl", 41), ("shards/b.jsonl.gz", 12),
                                                     ("shards/c.parquet", 9)]
    assert copies[2].byte_offset is None  # Parquet has no byte offsets
    (m,) = lookup.by_source_id("d-7")
    assert (m.shard, m.record, m.url) == ("shards/d.jsonl.zst", 7, "https://d.example.com/page/7")
    assert [x.record for x in lookup.by_doc_id(m.doc_id or "")] == [7]
    assert lookup.by_url("https://nowhere.example/") == [] and lookup.by_source_id("nope") == []


def test_replay_a_shard_range_and_pull_the_texts_back(run: Path, corpus: Corpus, capsys) -> None:
    lookup = RunLookup(run)
    rows = lookup.by_position("shards/a.jsonl", 18, 23)
    assert [m.record for m in rows] == [18, 19, 20, 21, 22]
    assert rows[2].sha256 is None and rows[2].verdict == "quarantined"  # the bad line keeps its place
    texts = lookup.fetch_texts(rows)
    assert texts[("shards/a.jsonl", 19)] == corpus.text("shards/a.jsonl", 19)
    # The shard may be named by its file path too, and a range can run to the end.
    tail = lookup.by_position(str(corpus.root / "shards" / "c.parquet"), 23)
    assert [(m.shard, m.record) for m in tail] == [("shards/c.parquet", 23), ("shards/c.parquet", 24)]
    # A stop past the shard's end stays inside the shard (never the next shard's records).
    whole = lookup.by_position("shards/a.jsonl", 0, 2**41)
    assert {m.shard for m in whole} == {"shards/a.jsonl"} and whole[-1].record == len(whole) - 1
    assert [(m.shard, m.record) for m in lookup.by_position("shards/a.jsonl", 0, 2**70)] == \
        [(m.shard, m.record) for m in whole]
    assert audit("lookup", "--run", str(run), "--shard", "shards/b.jsonl.gz", "--records", "3:5",
                 "--with-text", "--json") == 0
    out = json.loads(capsys.readouterr().out)
    assert [(m["record"], m["text"]) for m in out["matches"]] == [
        (3, corpus.text("shards/b.jsonl.gz", 3)), (4, corpus.text("shards/b.jsonl.gz", 4))]


def test_cli_lookup_json_and_usage_errors(run: Path, corpus: Corpus, tmp_path: Path, capsys) -> None:
    assert audit("lookup", "--run", str(run), "--url", corpus.shared_url, "--json") == 0
    out = json.loads(capsys.readouterr().out)
    assert out["count"] == 2 and out["lookup_index"] is True
    assert {"shard", "record", "byte_offset", "doc_id", "url", "sha256", "verdict", "reasons"} <= set(out["matches"][0])
    shard, record = corpus.long_key
    f = tmp_path / "passage.txt"
    f.write_text(middle_passage(corpus.text(shard, record), 30, seed=3), encoding="utf-8")
    assert audit("lookup", "--run", str(run), "--text-file", str(f), "--json") == 0
    (m,) = json.loads(capsys.readouterr().out)["matches"]
    assert (m["shard"], m["record"]) == (shard, record) and m["span"][1] > m["span"][0]
    assert audit("lookup", "--run", str(run), "--url", corpus.shared_url) == 0
    assert "2 records for url" in capsys.readouterr().out
    f.write_text("too short to look up", encoding="utf-8")
    assert audit("lookup", "--run", str(run), "--text-file", str(f)) == 2
    assert "passage too short" in capsys.readouterr().err
    assert audit("lookup", "--run", str(tmp_path), "--url", "x") == 2
    err = capsys.readouterr().err
    assert "unfinished" in err and len(err.strip().splitlines()) == 1
    assert audit("lookup", "--run", str(run), "--text-file", str(tmp_path / "missing.txt")) == 2
    assert audit("lookup", "--run", str(run), "--shard", "shards/a.jsonl", "--records", "x:y") == 2
    assert audit("lookup", "--run", str(run)) == 2


def test_without_an_index_lookups_scan_and_agree(run: Path, corpus: Corpus, tmp_path: Path) -> None:
    bare = tmp_path / "bare"
    shutil.copytree(run, bare, ignore=shutil.ignore_patterns("index"))
    warnings: list[str] = []
    lookup = RunLookup(bare, warn=warnings.append)
    assert lookup.index is None
    assert [(m.shard, m.record) for m in lookup.by_url(corpus.shared_url)] == [("shards/a.jsonl", 41),
                                                                               ("shards/b.jsonl.gz", 12)]
    shard, record = corpus.long_key
    hits = lookup.by_text(middle_passage(corpus.text(shard, record), 35))
    assert [(m.shard, m.record, m.score) for m in hits] == [(shard, record, 1.0)]
    assert hits[0].verdict == "kept"
    assert [m.record for m in lookup.by_position("shards/a.jsonl", 0, 3)] == [0, 1, 2]
    assert any("scanning" in w for w in warnings)


def test_changed_shard_is_detected_not_misread(corpus: Corpus, run: Path, tmp_path: Path) -> None:
    copy, run = clone_run(corpus, run, tmp_path / "c")
    p = copy.root / "shards" / "a.jsonl"
    lines = p.read_bytes().split(b"\n")
    p.write_bytes(b"\n".join(lines[1:]))  # every record moves up one line
    warnings: list[str] = []
    lookup = RunLookup(run, warn=warnings.append)
    shard, record = corpus.long_key
    assert lookup.by_text(middle_passage(corpus.text(shard, record), 30)) == []
    assert any("changed since the run" in w for w in warnings)


def test_passage_stage_adds_fingerprints_and_winnowing_guarantee(tmp_path: Path) -> None:
    corpus = write_corpus(tmp_path)  # its own: this unit test runs no job
    texts = [corpus.text(*corpus.long_key), None, "short text", corpus.shared_text]
    batch = pa.table({"doc_id": ["a", "b", "c", "d"], "text": pa.array(texts, pa.string())})
    out = PassageIndexStage.__new__(PassageIndexStage)(batch)
    assert out.num_rows == 4 and out.column_names == ["doc_id", "text", "passage_hashes"]
    fps = out.column("passage_hashes").to_pylist()
    assert fps[1] is None and fps[2] == []
    grams, owners, _ = text_ngrams([texts[0]], PASSAGE_NGRAM)
    naive = {int(grams[i:i + PASSAGE_WINDOW].min()) for i in range(len(grams) - PASSAGE_WINDOW + 1)}
    assert set(fps[0]) == naive
    assert len(fps[0]) < 0.2 * len(grams)  # a sample, not every n-gram
    # Every window of MIN_GUARANTEED_WORDS words shares a fingerprint with the whole record.
    words = texts[0].split()
    stored = set(fps[0])
    for start in range(0, len(words) - MIN_GUARANTEED_WORDS, 7):
        piece = " ".join(words[start:start + MIN_GUARANTEED_WORDS])
        g, _, _ = text_ngrams([piece], PASSAGE_NGRAM)
        assert stored & set(g.tolist()), start
    assert passage_fingerprints(pa.array([], pa.string())).to_pylist() == []


def test_a_chinese_passage_is_fingerprinted_by_its_characters(shared_data: Path) -> None:
    """Chinese has no spaces: its words are its characters (the normaliser's), so a passage of 60 of
    them from the middle of a record shares a fingerprint with it (before: one or two "words", a
    passage too short to look up at all)."""
    path = shared_data / "multilingual" / "lingua_testdata_sentences.jsonl"
    zh = [row["text"] for row in map(json.loads, path.open(encoding="utf-8")) if row["lang"] == "zh"]
    text = "".join(zh[:8])
    [fps] = passage_fingerprints(pa.array([text], pa.string())).to_pylist()
    query = passage_query(text[100:160])
    assert query.words >= 50 and set(query.keys.tolist()) & set(fps)
    assert not set(passage_query("".join(zh[20:24])).keys.tolist()) & set(fps)


@pytest.mark.slow  # seconds, not milliseconds: kept out of the fast tier
def test_a_lookup_reads_a_few_row_groups_of_a_large_lineage(tmp_path: Path, monkeypatch) -> None:
    """200k rows over several bucket files and dozens of row groups: a point lookup reads one of each.

    Buckets and spills are made small so the external sort spills parts and merges them here.
    """
    monkeypatch.setattr(lookup_index, "_BUCKET_ROWS", 50_000)
    monkeypatch.setattr(lookup_index, "_SPILL_BYTES", 2**20)
    n = 200_000
    parts = []
    rng = np.random.default_rng(0)
    for start in range(0, n, 50_000):
        idx = np.arange(start, start + 50_000)
        shard = [f"shards/s{i % 16:02d}.jsonl" for i in idx.tolist()]
        record = (idx // 16).tolist()
        parts.append(pa.Table.from_pydict({
            "doc_id": [make_doc_id(s, r) for s, r in zip(shard, record)], "source_id": [f"id{i}" for i in idx.tolist()],
            "shard": shard, "record": record, "byte_offset": (idx * 100).tolist(),
            "sha256": [f"{int(x):064x}" for x in rng.integers(0, 2**62, len(idx))],
            "url": [f"https://site{i % 97}.example/{i}" for i in idx.tolist()], "chars": idx.tolist(),
            "language": [None] * len(idx), "language_score": [None] * len(idx), "verdict": ["kept"] * len(idx),
            "reasons": [[] for _ in idx]}, schema=LINEAGE_SCHEMA))
    write_dataset(tmp_path / "lineage", parts)
    build_lookup_indexes(tmp_path)
    index = LookupIndex.open(tmp_path)
    assert index is not None
    rows = index.records_by("url", f"https://site{123456 % 97}.example/123456")
    assert rows.column("source_id").to_pylist() == ["id123456"]
    url_index, records = index.index("url"), index.index("records")
    assert len(url_index.lo) >= 10 and len(records.lo) >= 40 and len(set(url_index.files)) == 4
    assert not list(tmp_path.glob("index/*/.parts"))
    assert url_index.reads == 1 and records.reads == 1
    rows = index.records_in_shard("shards/s03.jsonl", 100, 110)
    assert rows.column("record").to_pylist() == list(range(100, 110))
    assert records.reads <= 3


def test_the_index_builds_from_staging_rows_with_passage_hash_lists(corpus: Corpus, run: Path,
                                                                      tmp_path: Path) -> None:
    """The pipeline may hand over its staging data (shard, record, passage_hashes) instead of passages/."""
    copy, run = clone_run(corpus, run, tmp_path / "c")
    shutil.rmtree(run / "index")  # the run's own index goes: the one below is built from staging alone
    shutil.rmtree(run / "measurements")  # passages come only from the staging rows below
    shards, _ = discover_shards(["shards/"], copy.root)
    cfg = InputConfig(paths=["shards/"])
    stage = PassageIndexStage(parse_config({"input": {"paths": ["shards/"]}}))
    schema = pa.schema([("doc_id", pa.string()), ("shard", pa.string()), ("record", pa.int64()),
                        ("passage_hashes", pa.list_(pa.uint64()))])
    write_dataset(tmp_path / "staging", [stage(block).select(schema.names).cast(schema)
                                         for shard in shards for block in read_shard(shard, cfg)])
    build_lookup_indexes(run, passages=tmp_path / "staging")
    assert (tmp_path / "staging").is_dir()  # a dataset handed over explicitly is left alone
    lookup = RunLookup(run, warn=pytest.fail)  # no fallback to scanning
    shard, record = corpus.long_key
    hits = lookup.by_text(middle_passage(corpus.text(shard, record), 30))
    assert [(m.shard, m.record) for m in hits] == [(shard, record)]


def test_many_small_shards_pack_into_few_record_files(tmp_path: Path, monkeypatch) -> None:
    """3000 shards of 20 records: the records index packs them into files of about _BUCKET_ROWS rows,
    a shard bigger than that is split, and a lookup keeps only a few files open."""
    monkeypatch.setattr(lookup_index, "_BUCKET_ROWS", 5_000)
    monkeypatch.setattr(lookup_index, "_OPEN_FILES", 3)
    sizes = [20] * 3000 + [12_000]  # 60k rows in small shards, then one shard of 2.4 buckets
    shard = [f"shards/s{i:04d}.jsonl" for i, n in enumerate(sizes) for _ in range(n)]
    record = [r for n in sizes for r in range(n)]
    n = len(shard)
    write_dataset(tmp_path / "lineage", [pa.Table.from_pydict({
        "doc_id": [make_doc_id(s, r) for s, r in zip(shard, record)], "source_id": [f"id{i}" for i in range(n)],
        "shard": shard, "record": record, "byte_offset": [r * 10 for r in record],
        "sha256": [f"{i:064x}" for i in range(n)], "url": [f"https://x.example/{i}" for i in range(n)],
        "chars": [1] * n, "language": [None] * n, "language_score": [None] * n, "verdict": ["kept"] * n,
        "reasons": [[] for _ in range(n)]}, schema=LINEAGE_SCHEMA)])
    build_lookup_indexes(tmp_path)
    files = sorted((tmp_path / "index" / "records").glob("b*.parquet"))
    assert 14 <= len(files) <= 16  # 72k rows / 5k, not one file per shard
    index = LookupIndex.open(tmp_path)
    assert index is not None
    records = index.index("records")
    for i in [0, 1, 999, 1500, 2999]:
        rows = index.records_in_shard(f"shards/s{i:04d}.jsonl", 0, None)
        assert rows.column("record").to_pylist() == list(range(20))
        assert set(rows.column("shard").to_pylist()) == {f"shards/s{i:04d}.jsonl"}
        assert len(records._open) <= 3
    big = index.records_in_shard("shards/s3000.jsonl", 4_990, 10_010)
    assert big.column("record").to_pylist() == list(range(4_990, 10_010))
    for i in [0, 29_999, 59_999, 60_000, 71_999]:
        assert index.records_by("sha256", f"{i:064x}").column("source_id").to_pylist() == [f"id{i}"]
    assert len(records._open) <= 3
