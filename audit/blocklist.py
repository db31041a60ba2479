"""The blocklist a takedown leaves in a run folder, honoured by every later `audit run` into it.

The core reads it here; `audit.takedown` writes it (the core never imports takedown).

A Parquet dataset `blocklist/`, one row per blocked key, `kind` saying which:

  record     a located record: blocked by the SHA-256 of its text, so every copy of the content
             is caught, wherever it sits and whatever the shard is renamed to
  sha256     a content hash the request named (located now or not)
  url        a URL the request named, kept as its SHA-256 (`sha256:<hex>`, no identifier in clear)
  source_id  a source id the request named, kept the same way
  passage    the request's passage: its winnowed word n-gram fingerprints (audit.stages.passages),
             matched against the fingerprints every record's measurement carries

Request keys are blocked whether or not the run holds them now, so content that arrives later is
quarantined with reason `takedown`. Files written before `kind` existed hold record rows only.
"""
from __future__ import annotations

import hashlib
import math
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

BLOCKLIST_DIR = "blocklist"
BLOCKLIST_SCHEMA = pa.schema([
    ("request_id", pa.string()),
    ("sha256", pa.string()),
    ("doc_id", pa.string()),
    ("shard", pa.string()),
    ("record", pa.int64()),
    ("source_id", pa.string()),
    ("url", pa.string()),
    ("added", pa.string()),  # ISO 8601 UTC
    ("kind", pa.string()),   # record | sha256 | url | source_id | passage
    ("passage_hashes", pa.list_(pa.uint64())),
    ("passage_min_shared", pa.int32()),  # fingerprints a record must share with the passage
])
KEY_KINDS = ("sha256", "url", "source_id", "passage")
HASHED = "sha256:"
# Share of a passage's own fingerprints a record must hold to be blocked by it: a verbatim copy
# holds all of them (every window inside the copy keeps its minimum), an edited copy loses those
# near its edits, and unrelated text rarely shares even one winnowed word 7-gram.
PASSAGE_BLOCK_SHARE = 0.5


def identifier_hash(value: str) -> str:
    """The stand-in kept for a URL or source id (`sha256:<hex>`): the blocklist and a privacy
    takedown keep identifiers only in this form."""
    return HASHED + hashlib.sha256(value.encode("utf-8", "surrogatepass")).hexdigest()


def passage_key(text: str) -> tuple[np.ndarray, int]:
    """(fingerprints, how many a record must share) that block a passage in records to come.

    The fingerprints are the passage's own winnowed n-gram hashes, made as every record's are
    (audit.stages.passages), so a record holding the passage holds them.
    """
    from audit.stages.passages import passage_fingerprints

    prints = passage_fingerprints(pa.array([text], pa.string()))
    values = np.asarray(prints.values.to_numpy(zero_copy_only=False), dtype=np.uint64)
    return values, max(1, math.ceil(len(values) * PASSAGE_BLOCK_SHARE)) if len(values) else 0


class Blocklist:
    """The blocked keys of a run folder, each with the request that blocked it."""

    def __init__(self, by_sha256: dict[str, str], by_url: dict[str, str] | None = None,
                 by_source_id: dict[str, str] | None = None,
                 passages: list[tuple[str, np.ndarray, int]] | None = None) -> None:
        """`by_url`/`by_source_id` are keyed by identifier_hash; `passages`: (request, fingerprints, min shared)."""
        self.by_sha256 = by_sha256
        self.by_url = by_url or {}
        self.by_source_id = by_source_id or {}
        self.passages = passages or []

    @classmethod
    def load(cls, run_dir: Path) -> "Blocklist":
        """Read `run_dir/blocklist/` (an absent folder is an empty blocklist)."""
        folder = Path(run_dir) / BLOCKLIST_DIR
        files = sorted(folder.glob("*.parquet")) if folder.is_dir() else []
        out = cls({})
        for f in files:
            t = pq.read_table(f)
            n = t.num_rows
            col = {c: (t.column(c).to_pylist() if c in t.column_names else [None] * n)
                   for c in ("request_id", "sha256", "url", "source_id", "kind", "passage_min_shared")}
            prints = t.column("passage_hashes").to_pylist() if "passage_hashes" in t.column_names else [None] * n
            for i in range(n):
                rid, kind = col["request_id"][i], col["kind"][i] or "record"
                if kind in ("record", "sha256") and col["sha256"][i]:
                    out.by_sha256.setdefault(col["sha256"][i], rid)
                elif kind == "url" and col["url"][i]:  # written as identifier_hash
                    out.by_url.setdefault(col["url"][i], rid)
                elif kind == "source_id" and col["source_id"][i]:
                    out.by_source_id.setdefault(col["source_id"][i], rid)
                elif kind == "passage" and prints[i]:
                    out.passages.append((rid, np.asarray(prints[i], dtype=np.uint64),
                                         int(col["passage_min_shared"][i] or 1)))
        return out

    def __len__(self) -> int:
        return len(self.by_sha256) + len(self.by_url) + len(self.by_source_id) + len(self.passages)

    def match(self, sha256s: list[str | None], urls: list[str | None] | None = None,
              source_ids: list[str | None] | None = None,
              passage_hashes: pa.Array | pa.ChunkedArray | None = None) -> list[str | None]:
        """The blocking request id per record (None where it is not blocked), by content hash,
        URL, source id and (given the records' passage fingerprints) passage."""
        out: list[str | None] = [self.by_sha256.get(h) if h else None for h in sha256s]
        for values, keys in ((urls, self.by_url), (source_ids, self.by_source_id)):
            if values is None or not keys:
                continue
            for i, v in enumerate(values):
                if out[i] is None and v:  # a privacy takedown left some already hashed
                    out[i] = keys.get(v if v.startswith(HASHED) else identifier_hash(v))
        if passage_hashes is not None and self.passages:
            for i, rid in enumerate(self.match_passages(passage_hashes)):
                if out[i] is None and rid is not None:
                    out[i] = rid
        return out

    def match_passages(self, passage_hashes: pa.Array | pa.ChunkedArray) -> list[str | None]:
        """The blocking request per record whose fingerprints (list<uint64>) hold enough of a
        blocked passage's fingerprints."""
        if isinstance(passage_hashes, pa.ChunkedArray):
            passage_hashes = passage_hashes.combine_chunks() if passage_hashes.num_chunks else pa.array(
                [], passage_hashes.type)
        n = len(passage_hashes)
        out: list[str | None] = [None] * n
        if n == 0:
            return out
        lengths = pc.fill_null(pc.list_value_length(passage_hashes), 0).to_numpy(zero_copy_only=False)
        values = np.asarray(pc.list_flatten(passage_hashes).to_numpy(zero_copy_only=False), dtype=np.uint64)
        owner = np.repeat(np.arange(n), lengths)
        for rid, prints, need in self.passages:
            shared = np.bincount(owner[np.isin(values, prints)], minlength=n)
            for i in np.flatnonzero(shared >= need):
                if out[i] is None:
                    out[i] = rid
        return out
