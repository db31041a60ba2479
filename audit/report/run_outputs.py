"""Reading the parts of a finished run folder that the report shows beyond summary.json.

Only lineage and measured values are read (never text): example quarantined records by reason
kind from `quarantine/`, and the first entries of `unreadable.jsonl`.
"""
from __future__ import annotations

import json
from collections.abc import Iterable
from itertools import islice
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.dataset as pads

from audit.decide import reason_kind

EXAMPLE_COLUMNS = ("doc_id", "shard", "record", "byte_offset", "reasons", "details")


def _dataset(folder: Path) -> pads.Dataset | None:
    """The Parquet dataset in `folder`, or None when the folder is absent or holds no files."""
    if not folder.is_dir() or not any(folder.glob("*.parquet")):
        return None
    return pads.dataset(folder, format="parquet")


def quarantine_examples(run_dir: Path, kinds: Iterable[str], per_kind: int = 3,
                        doc_ids: Iterable[str] = (), batch_size: int = 8192) -> dict[str, list[dict[str, Any]]]:
    """Up to `per_kind` quarantined records for each reason kind in `kinds`: {kind: [row]}.

    A row holds EXAMPLE_COLUMNS (details parsed from JSON when it parses). When `doc_ids` (e.g.
    summary.json's examples) are given, those records are looked up first; the dataset is then
    scanned batch by batch only until every kind has its examples, so a large quarantine is not
    read whole. A record is listed under each of its kinds that still needs examples.
    """
    wanted = [k for k in dict.fromkeys(kinds)]
    found: dict[str, list[dict[str, Any]]] = {k: [] for k in wanted}
    ds = _dataset(Path(run_dir) / "quarantine")
    if ds is None or not wanted:
        return found
    columns = [c for c in EXAMPLE_COLUMNS if c in ds.schema.names]
    if "doc_id" not in columns or "reasons" not in columns:
        return found
    seen: set[str] = set()

    def take(table: pa.Table) -> bool:
        """Add rows to the kinds that need them; True when every kind is full."""
        for row in table.to_pylist():
            if row["doc_id"] in seen:
                continue
            used = False
            for kind in dict.fromkeys(reason_kind(r) for r in row.get("reasons") or []):
                if kind in found and len(found[kind]) < per_kind:
                    found[kind].append(_example_row(row))
                    used = True
            if used:
                seen.add(row["doc_id"])
        return all(len(v) >= per_kind for v in found.values())

    ids = [d for d in dict.fromkeys(doc_ids) if isinstance(d, str)]
    if ids and take(ds.to_table(columns=columns, filter=pc.field("doc_id").isin(ids))):
        return found
    for batch in ds.to_batches(columns=columns, batch_size=batch_size):
        if take(pa.Table.from_batches([batch])):
            break
    return found


def _example_row(row: dict[str, Any]) -> dict[str, Any]:
    details = row.get("details")
    if isinstance(details, str):
        try:
            details = json.loads(details)
        except ValueError:
            pass  # shown as the raw text it is
    return {c: row.get(c) for c in EXAMPLE_COLUMNS} | {"details": details}


def unreadable_entries(run_dir: Path, limit: int = 50) -> list[dict[str, Any]]:
    """The first `limit` entries of unreadable.jsonl (a line that does not parse is kept as its text)."""
    path = Path(run_dir) / "unreadable.jsonl"
    if not path.is_file():
        return []
    out: list[dict[str, Any]] = []
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in islice((ln for ln in f if ln.strip()), limit):
            try:
                entry = json.loads(line)
            except ValueError:
                entry = {"error": line.rstrip("\n")}
            out.append(entry if isinstance(entry, dict) else {"error": str(entry)})
    return out
