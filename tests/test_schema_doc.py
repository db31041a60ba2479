"""docs/SCHEMA.md lists exactly the columns a real run writes, and every dataset carries the run id."""
from __future__ import annotations

import json
from pathlib import Path

import pyarrow.dataset as pads
import pytest

from audit.job.parts import RUN_ID_KEY
from tests.fixtures_schema import documented_columns

DATASETS = ("lineage", "quarantine", "contamination", "duplicates", "pii")


def _check(documented: dict[str, bool], written: list[str], name: str) -> None:
    """Every written column is documented; every documented one not marked optional is written."""
    assert [c for c in written if c not in documented] == [], f"{name}: written but not in docs/SCHEMA.md"
    assert [c for c, optional in documented.items() if not optional and c not in written] == [], \
        f"{name}: in docs/SCHEMA.md but not written"


def test_the_schema_page_documents_every_dataset():
    doc = documented_columns()
    assert set(doc) >= {f"{d}/" for d in DATASETS} | {"unreadable.jsonl", "summary.json"}
    assert all(doc[f"{d}/"] for d in DATASETS)


@pytest.mark.ray
def test_documented_columns_equal_the_written_ones(demo_run: Path):
    doc = documented_columns()
    summary = json.loads((demo_run / "summary.json").read_text(encoding="utf-8"))
    for name in DATASETS:
        schema = pads.dataset(demo_run / name, format="parquet").schema
        _check(doc[f"{name}/"], schema.names, name)
        # the run's id in every part's schema metadata, the same as summary.json's
        for part in sorted((demo_run / name).glob("*.parquet")):
            meta = pads.dataset(part, format="parquet").schema.metadata or {}
            assert meta.get(RUN_ID_KEY.encode()) == summary["run_id"].encode(), part
    _check(doc["summary.json"], list(summary), "summary.json")
    entries = [json.loads(x) for x in (demo_run / "unreadable.jsonl").read_text().splitlines()]
    assert entries
    keys = list(dict.fromkeys(k for e in entries for k in e))
    assert [k for k in keys if k not in doc["unreadable.jsonl"]] == []
    # one numbering: a record's line is its 0-based index (the demo's broken shard has no blank lines)
    assert all(e["line"] == e["record"] for e in entries if e.get("record") is not None)
    # the typed form of details holds the JSON form's values
    q = pads.dataset(demo_run / "quarantine", format="parquet").to_table(columns=["details", "measured"]).to_pylist()
    for row in q[:50]:
        details = json.loads(row["details"])
        assert {m["reason"] for m in row["measured"]} <= set(details)
