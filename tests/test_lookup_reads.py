"""`audit lookup` reads a record's text back as the job's reader read it (audit.io.records)."""
from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from audit.takedown.lookup import RunLookup
from tests.fixtures_runs import run_shards


def test_texts_read_back_by_seek_and_by_row_group_match_the_lineage(tmp_path: Path) -> None:
    shards = tmp_path / "shards"
    shards.mkdir()
    # a byte-order mark before the first record: the job skips it, so must the seek that reads it back
    (shards / "a.jsonl").write_bytes(b"\xef\xbb\xbf" + b'{"text": "the first record of the shard"}\n'
                                     b'{"text": "the second record"}\n')
    texts = pa.array([b"a good parquet text", b"caf\xe9 is not UTF-8", b"another good one"],
                     pa.binary()).cast(pa.string(), safe=False)
    pq.write_table(pa.table({"text": texts}), shards / "b.parquet")
    run = run_shards(tmp_path)
    warnings: list[str] = []
    lookup = RunLookup(run, warn=warnings.append)
    found = lookup.by_position("shards/a.jsonl") + lookup.by_position("shards/b.parquet")
    got = lookup.fetch_texts(found)
    assert got[("shards/a.jsonl", 0)] == "the first record of the shard"
    assert got[("shards/a.jsonl", 1)] == "the second record"
    assert got[("shards/b.parquet", 0)] == "a good parquet text"
    assert got[("shards/b.parquet", 2)] == "another good one"
    assert ("shards/b.parquet", 1) not in got or got[("shards/b.parquet", 1)] is None  # unreadable, as in the job
    assert warnings == []


def test_a_physical_removal_checks_the_first_record_of_a_shard_with_a_bom(tmp_path: Path) -> None:
    from audit.records import text_sha256
    from audit.takedown.shard_rewrite import rewrite_shard

    p = tmp_path / "s.jsonl"
    p.write_bytes(b"\xef\xbb\xbf" + b'{"text": "remove me"}\n{"text": "keep me"}\n')
    out = rewrite_shard("s.jsonl", str(p), {0}, {0: text_sha256("remove me")})
    assert p.read_bytes() == b'{"text": "keep me"}\n' and out.removed_text_checked == 1
