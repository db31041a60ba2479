"""The Arrow shape of a record as it travels through the job, and its lineage columns.

A reader emits RECORD_SCHEMA (text plus lineage). Stages add measurement columns and never drop
rows. Before the decide step the text column is dropped: everything after it works on lineage and
measurements only, so the global passes never hold the corpus text.
"""
from __future__ import annotations

import hashlib

import pyarrow as pa

# Columns the reader fills for every record (CONTRACT.md lineage columns, minus the decision).
RECORD_SCHEMA = pa.schema([
    ("doc_id", pa.string()),        # stable: derived from shard path and record index
    ("source_id", pa.string()),     # the record's own id (config input.id_field), may be null
    ("shard", pa.string()),         # shard path as given (after folder/glob expansion)
    ("shard_index", pa.int32()),    # position of the shard in the run's sorted shard list
    ("record", pa.int64()),         # 0-based index in its shard (every non-blank line, bad ones too)
    ("byte_offset", pa.int64()),    # offset of the line in the uncompressed stream; null for Parquet
    ("line", pa.int64()),           # 0-based index of the line in the uncompressed stream (blank lines count)
    ("url", pa.string()),
    ("source", pa.string()),        # config input.source_field, may be null
    ("text", pa.string()),          # null when the record was unreadable
    ("sha256", pa.string()),        # of the UTF-8 text; null when unreadable
    ("chars", pa.int64()),
    ("bytes", pa.int64()),          # UTF-8 bytes of the text
    ("error", pa.string()),         # why the record could not be read; null when it could
])

# Lineage columns of CONTRACT.md in their documented order (decide adds verdict and reasons).
LINEAGE_COLUMNS = ["doc_id", "source_id", "shard", "record", "byte_offset", "sha256", "url", "chars",
                   "language", "language_score", "verdict", "reasons"]

# Their Arrow types: the one lineage schema (the job's decide pass, the lookup index and the tests).
LINEAGE_SCHEMA = pa.schema([
    ("doc_id", pa.string()), ("source_id", pa.string()), ("shard", pa.string()), ("record", pa.int64()),
    ("byte_offset", pa.int64()), ("sha256", pa.string()), ("url", pa.string()), ("chars", pa.int64()),
    ("language", pa.string()), ("language_score", pa.float32()), ("verdict", pa.string()),
    ("reasons", pa.list_(pa.string()))])
assert LINEAGE_SCHEMA.names == LINEAGE_COLUMNS

# quarantine/ `measured`: the values behind each reason as typed rows, one per measured value
# (nested names joined with ".", list items as "name[i]"): a number in `value`, anything else in
# `text`. `details` holds the same values as one JSON object per record (CONTRACT.md).
MEASURED_TYPE = pa.list_(pa.struct([("reason", pa.string()), ("name", pa.string()), ("value", pa.float64()),
                                    ("text", pa.string())]))

# Internal columns that never reach lineage (error goes to details and unreadable.jsonl).
INTERNAL_COLUMNS = ["text", "error", "shard_index"]


# Where a finding sits: the columns every per-finding dataset starts with.
WHERE_COLUMNS = [("doc_id", pa.string()), ("source_id", pa.string()), ("shard", pa.string()), ("record", pa.int64())]
CONTAMINATION_SCHEMA = pa.schema(WHERE_COLUMNS + [
    ("eval_set", pa.string()), ("eval_id", pa.string()), ("overlap", pa.float64()), ("coverage", pa.float64()),
    ("spans", pa.list_(pa.list_(pa.int64()))), ("method", pa.string()),
    ("score", pa.float64()), ("longest_span", pa.list_(pa.int64())), ("evidence", pa.list_(pa.string())),
    ("unit", pa.string()), ("item_spans", pa.list_(pa.list_(pa.int64())))])
PII_SCHEMA = pa.schema(WHERE_COLUMNS + [
    ("entity_type", pa.string()), ("start", pa.int64()), ("end", pa.int64()), ("score", pa.float32())])
# duplicates/: one row per duplicate record (sorted by shard in each file: the decide pass reads
# only its shard's row groups).
DUPLICATES_SCHEMA = pa.schema([("doc_id", pa.string()), ("source_id", pa.string()), ("kind", pa.string()),
                               ("cluster_id", pa.string()), ("kept_doc_id", pa.string()), ("similarity", pa.float64()),
                               ("shard", pa.string()), ("record", pa.int64())])


def make_doc_id(shard: str, record: int) -> str:
    """A stable id for (shard, record): the same path and index always give the same id.

    128 bits: among 10^10 records the chance of any two ids colliding is about 10^-19 (64 bits
    would give 3 in 1,000 at that size)."""
    h = hashlib.blake2b(f"{shard}\x00{record}".encode("utf-8", "surrogatepass"), digest_size=16).hexdigest()
    return f"d{h}"


def text_sha256(text: str, raw: bytes | None = None) -> str:
    """SHA-256 of the UTF-8 text (lone surrogates kept, so the hash is defined for any str);
    `raw`: those bytes, when the caller has them already."""
    return hashlib.sha256(text.encode("utf-8", "surrogatepass") if raw is None else raw).hexdigest()
