"""The blocklist a takedown leaves in a run folder, honoured by every later `audit run` into it.

The core reads it here; `audit.takedown` writes it (the core never imports takedown).

A Parquet dataset `blocklist/` of blocked records. A record is blocked by the SHA-256 of its text,
so every copy of the content is caught, wherever it sits and whatever the shard is renamed to.
"""
from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pyarrow.dataset as ds


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
])


class Blocklist:
    """The blocked content hashes of a run folder, each with the request that blocked it."""

    def __init__(self, by_sha256: dict[str, str]) -> None:
        self.by_sha256 = by_sha256

    @classmethod
    def load(cls, run_dir: Path) -> "Blocklist":
        """Read `run_dir/blocklist/` (an absent folder is an empty blocklist)."""
        folder = Path(run_dir) / BLOCKLIST_DIR
        if not folder.is_dir() or not any(folder.glob("*.parquet")):
            return cls({})
        t = ds.dataset(folder, format="parquet").to_table(columns=["sha256", "request_id"])
        return cls({s: r for s, r in zip(t.column("sha256").to_pylist(), t.column("request_id").to_pylist()) if s})

    def __len__(self) -> int:
        return len(self.by_sha256)

    def match(self, sha256s: list[str | None]) -> list[str | None]:
        """The blocking request id per hash (None where the content is not blocked)."""
        get = self.by_sha256.get
        return [get(h) if h else None for h in sha256s]
