"""Measurements -> reasons -> verdict: the one place a record is kept or quarantined.

Stages measured everything on the workers; here each stage's `judge` reads its columns against
the config's thresholds, the global passes (duplicates) and the blocklist add theirs, and every
record leaves with `verdict`, `reasons` and the measured values behind them in `details`.
Unreadable records are quarantined with reason `unreadable`, so documents == kept + quarantined.
"""
from __future__ import annotations

import json
from collections.abc import Sequence

import pyarrow as pa
import pyarrow.compute as pc

from audit.config import AuditConfig
from audit.stages import Stage
from audit.blocklist import Blocklist
from audit.tagger import judge_stage


class Decider:
    """Turns a measured table (no text) into one with verdict, reasons and details."""

    def __init__(self, config: AuditConfig, stages: Sequence[Stage],
                 duplicates: dict[str, tuple[str, str]] | None = None, blocklist: Blocklist | None = None) -> None:
        """`stages`: the run's stages, built (audit.tagger.build_stages), judging only; `duplicates`
        maps a duplicate doc_id to (kind "exact"|"near", kept_doc_id)."""
        self.config = config
        self.stages = list(stages)
        self.duplicates = duplicates or {}
        self.blocklist = blocklist or Blocklist({})

    def __call__(self, table: pa.Table) -> pa.Table:
        prints = None  # passage fingerprints: read only to match blocked passages, never written out
        if "passage_hashes" in table.column_names:
            prints = table.column("passage_hashes")
            table = table.drop_columns(["passage_hashes"])
        n = table.num_rows
        reasons: list[list[str]] = [[] for _ in range(n)]
        details: list[dict] = [{} for _ in range(n)]

        def add(i: int, reason: str, measured: dict) -> None:
            if reason not in reasons[i]:
                reasons[i].append(reason)
            details[i][reason] = measured

        errors = table.column("error").to_pylist()
        for i, err in enumerate(errors):
            if err is not None:
                add(i, "unreadable", {"error": err})
        for i, found in enumerate(judge_all(self.stages, table)):
            for reason, values in found.items():
                add(i, reason, values)

        doc_ids = table.column("doc_id").to_pylist()
        if self.duplicates:
            for i, d in enumerate(doc_ids):
                hit = self.duplicates.get(d)
                if hit:
                    kind, kept = hit
                    add(i, "exact_duplicate" if kind == "exact" else "near_duplicate", {"kept_doc_id": kept})
        if len(self.blocklist):
            cols = {c: table.column(c).to_pylist() if c in table.column_names else None for c in ("url", "source_id")}
            for i, req in enumerate(self.blocklist.match(table.column("sha256").to_pylist(), cols["url"],
                                                         cols["source_id"], prints)):
                if req:
                    add(i, "takedown", {"request_id": req})

        verdict = ["quarantined" if r else "kept" for r in reasons]
        table = counted_findings(table, self.config)
        return (table.append_column("verdict", pa.array(verdict, pa.string()))
                .append_column("reasons", pa.array(reasons, pa.list_(pa.string())))
                .append_column("details", pa.array([json.dumps(d, default=_jsonable) if d else None
                                                    for d in details], pa.string())))


def counted_findings(table: pa.Table, config: AuditConfig) -> pa.Table:
    """The findings columns with only what counts under the config's thresholds (measurements keep
    matches down to the measure floors): what contamination/, pii/ and the summary report."""
    import importlib

    for name in ("contamination", "pii"):  # each stage's module owns its rule (imported only when on)
        if name in table.column_names:
            counted = importlib.import_module(f"audit.stages.{name}").counted
            table = table.set_column(table.schema.get_field_index(name), name, counted(table.column(name), config))
    return table


def judge_all(stages: Sequence[Stage], table: pa.Table) -> list[dict[str, dict]]:
    """Each row's reasons (reason -> measured details) from every stage's `judge`, in stage order.

    `table` is measured and without text; rows with an `error` (unreadable records) are not
    judged and get no stage reason.
    """
    found: list[dict[str, dict]] = [{} for _ in range(table.num_rows)]
    readable = pc.is_null(table.column("error"))
    measured = table.filter(readable)
    if measured.num_rows:
        rows = pc.indices_nonzero(readable).to_pylist()
        for stage in stages:
            for j, reason, values in judge_stage(stage, measured):
                found[rows[j]][reason] = values
    return found


def _jsonable(v: object) -> object:
    """numpy scalars and the like in measured values."""
    if hasattr(v, "item"):
        return v.item()  # type: ignore[no-any-return]
    return str(v)


def reason_kind(reason: str) -> str:
    """`length:too_short` -> `length`."""
    return reason.split(":", 1)[0]
