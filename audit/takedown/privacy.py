"""A privacy takedown leaves no personal identifier of the removed records in the run folder.

With basis `privacy` and `--physical`, every dataset row of a removed record keeps doc_id, shard,
record and sha256 (what the evidence and a re-run need) but its url and source_id become their
SHA-256 (`sha256:<hex>`), in lineage/, quarantine/, duplicates/, contamination/, pii/,
measurements/ and the blocklist; the lookup index and the report are rebuilt from them. A
lookup by the original URL or id still finds the record, through the same hash.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from audit.blocklist import HASHED, identifier_hash
from audit.io.atomic import write_parquet_atomic

IDENTIFIERS = ("url", "source_id")
# datasets whose rows carry a removed record's identifiers
DATASETS = ("lineage", "quarantine", "duplicates", "contamination", "pii", "measurements", "blocklist")


def hashed(value: str) -> str:
    """The stand-in kept for a removed record's URL or id (the blocklist's form of it)."""
    return identifier_hash(value)


def scrub_run(run_dir: Path, doc_ids: set[str]) -> dict[str, int]:
    """Replace the url and source_id of `doc_ids`' rows by their hashes in every dataset file,
    rebuild the lookup index and the report; returns rows changed per dataset."""
    run_dir = Path(run_dir)
    ids = pa.array(sorted(doc_ids), pa.string())
    changed: dict[str, int] = {}
    for name in DATASETS:
        for f in sorted((run_dir / name).glob("*.parquet")) if (run_dir / name).is_dir() else []:
            t = pq.read_table(f)
            if "doc_id" not in t.column_names or not any(c in t.column_names for c in IDENTIFIERS):
                continue
            hit = pc.fill_null(pc.is_in(t.column("doc_id"), value_set=ids), False)
            n = int(pc.sum(hit).as_py() or 0)
            if not n:
                continue
            for col in IDENTIFIERS:
                if col in t.column_names:
                    values = t.column(col).to_pylist()
                    mask = hit.to_pylist()
                    new = [hashed(v) if m and v is not None and not v.startswith(HASHED) else v
                           for v, m in zip(values, mask)]
                    t = t.set_column(t.schema.get_field_index(col), t.schema.field(col), pa.array(new, pa.string()))
            write_parquet_atomic(t, f)
            changed[name] = changed.get(name, 0) + n
    _rebuild_views(run_dir)
    return changed


def _rebuild_views(run_dir: Path) -> None:
    """The lookup index and report.html, from the scrubbed datasets (they held the identifiers too)."""
    from audit.lookup_index import build_lookup_indexes
    from audit.report import write_report

    manifest = json.loads((run_dir / "run.json").read_text()) if (run_dir / "run.json").is_file() else {}
    parts = [run_dir / "measurements" / s["part"] for s in manifest.get("shards", []) if s.get("part")]
    if (run_dir / "lineage").is_dir():
        build_lookup_indexes(run_dir, [p for p in parts if p.is_file() and pq.ParquetFile(p).metadata.num_rows])
    if (run_dir / "summary.json").is_file():
        write_report(run_dir, json.loads((run_dir / "summary.json").read_text()))


def private_evidence(evidence: dict[str, Any]) -> dict[str, Any]:
    """The evidence with every URL and id of the request and of the located records hashed,
    wherever it stands (located rows, the keys they matched by, keys without a match)."""
    secret: set[str] = set()
    req_match = (evidence.get("request") or {}).get("match") or {}
    secret.update(v for v in (req_match.get("urls") or []) + (req_match.get("source_ids") or []) if isinstance(v, str))
    for x in evidence.get("located", []):
        secret.update(x.get(k) for k in IDENTIFIERS if isinstance(x, dict) and isinstance(x.get(k), str))

    def scrub(v: Any) -> Any:
        if isinstance(v, str):
            return hashed(v) if v in secret else v
        if isinstance(v, list):
            return [scrub(x) for x in v]
        if isinstance(v, dict):
            return {k: scrub(x) for k, x in v.items()}
        return v

    out = scrub(evidence)
    out["privacy"] = ("url and source_id of the request and of the removed records are kept as their SHA-256 "
                      "(sha256:<hex>) in this evidence and in every dataset of the run; a lookup by the original "
                      "value finds them through that hash")
    return out
