"""Measurements -> reasons -> verdict: the one place a record is kept or quarantined.

Stages measured everything on the workers; here each stage's `judge` reads its columns against
the config's thresholds, the global passes (duplicates) and the blocklist add theirs, and every
record leaves with `verdict`, `reasons` and the measured values behind them in `details`.
Unreadable records are quarantined with reason `unreadable`, so documents == kept + quarantined.
"""
from __future__ import annotations

import json
from collections.abc import Sequence

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from audit.config import AuditConfig
from audit.stages import Stage
from audit.blocklist import Blocklist
from audit.records import MEASURED_TYPE
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
        # row -> {reason: measured details}, only for the few rows with a reason (no per-record
        # Python: a batch of kept records costs a few Arrow kernels); reasons keep their first order
        found: dict[int, dict[str, dict]] = {}

        def add(i: int, reason: str, measured: dict) -> None:
            found.setdefault(i, {})[reason] = measured

        errors = table.column("error")
        for i in pc.indices_nonzero(pc.is_valid(errors)).to_pylist():
            add(i, "unreadable", {"error": errors[i].as_py()})
        for i, reasons in judged(self.stages, table).items():
            for reason, values in reasons.items():
                add(i, reason, values)
        if self.duplicates:
            for i, (kind, kept) in _duplicate_rows(table.column("doc_id"), self.duplicates):
                add(i, "exact_duplicate" if kind == "exact" else "near_duplicate", {"kept_doc_id": kept})
        if len(self.blocklist):
            cols = {c: table.column(c).to_pylist() if c in table.column_names else None for c in ("url", "source_id")}
            for i, req in enumerate(self.blocklist.match(table.column("sha256").to_pylist(), cols["url"],
                                                         cols["source_id"], prints)):
                if req:
                    add(i, "takedown", {"request_id": req})

        table = counted_findings(table, self.config)
        return _with_verdicts(table, found)


def _duplicate_rows(doc_ids: pa.ChunkedArray | pa.Array,
                    duplicates: dict[str, tuple[str, str]]) -> list[tuple[int, tuple[str, str]]]:
    """(row, (kind, kept_doc_id)) of the rows whose doc_id is a duplicate's, in row order."""
    keys = [k for k in duplicates if k is not None]
    at = pc.index_in(doc_ids, value_set=pa.array(keys, pa.string()))
    rows = pc.indices_nonzero(pc.is_valid(at)).to_pylist()
    out = [(i, duplicates[keys[k]]) for i, k in zip(rows, at.take(pa.array(rows, pa.int64())).to_pylist())]
    if None in duplicates:  # a duplicate without a doc_id: matched by the rows without one, as a dict would
        out += [(i, duplicates[None]) for i in pc.indices_nonzero(pc.is_null(doc_ids)).to_pylist()]
        out.sort(key=lambda r: r[0])
    return out


def _with_verdicts(table: pa.Table, found: dict[int, dict[str, dict]]) -> pa.Table:
    """`table` with verdict, reasons, details (JSON text) and measured (typed) appended: the rows
    in `found` quarantined with their reasons, every other row kept with none."""
    n = table.num_rows
    rows = sorted(found)
    counts = np.zeros(n, dtype=np.int32)
    counts[rows] = [len(found[i]) for i in rows]
    offsets = np.zeros(n + 1, dtype=np.int32)
    np.cumsum(counts, out=offsets[1:])
    reasons = pa.ListArray.from_arrays(pa.array(offsets),
                                       pa.array([r for i in rows for r in found[i]], pa.string()))
    flagged = np.zeros(n, dtype=bool)
    flagged[rows] = True
    verdict = pc.if_else(pa.array(flagged), "quarantined", "kept")
    details: list[str | None] = [None] * n
    measured_counts = np.zeros(n, dtype=np.int32)
    measured: list[dict[str, object]] = []
    for i in rows:
        details[i] = json.dumps(found[i], default=jsonable)
        items = measured_rows(found[i])
        measured_counts[i] = len(items)
        measured.extend(items)
    measured_offsets = np.zeros(n + 1, dtype=np.int32)
    np.cumsum(measured_counts, out=measured_offsets[1:])
    measured_values = pa.array(measured, MEASURED_TYPE.value_type)
    return (table.append_column("verdict", verdict)
            .append_column("reasons", reasons.cast(pa.list_(pa.string())))
            .append_column("details", pa.array(details, pa.string()))
            .append_column("measured", pa.ListArray.from_arrays(pa.array(measured_offsets), measured_values)
                           .cast(MEASURED_TYPE)))


def measured_rows(details: dict[str, object]) -> list[dict[str, object]]:
    """{reason: measured values} as MEASURED_TYPE rows: (reason, name, value or text)."""
    out: list[dict[str, object]] = []

    def walk(reason: str, name: str, v: object) -> None:
        if isinstance(v, dict):
            for k, x in v.items():
                walk(reason, f"{name}.{k}" if name else str(k), x)
        elif isinstance(v, (list, tuple)):
            for i, x in enumerate(v):
                walk(reason, f"{name}[{i}]", x)
        else:
            v = jsonable(v) if hasattr(v, "item") else v
            number = isinstance(v, (int, float)) and not isinstance(v, bool)
            out.append({"reason": reason, "name": name, "value": float(v) if number else None,
                        "text": None if number or v is None else (str(v).lower() if isinstance(v, bool) else str(v))})

    for reason, values in details.items():
        walk(reason, "", values)
    return out


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
    for i, reasons in judged(stages, table).items():
        found[i] = reasons
    return found


def judged(stages: Sequence[Stage], table: pa.Table) -> dict[int, dict[str, dict]]:
    """judge_all's reasons of the rows that have any, by row (a row without one is absent)."""
    found: dict[int, dict[str, dict]] = {}
    readable = pc.is_null(table.column("error"))
    measured = table.filter(readable)
    if measured.num_rows:
        rows = pc.indices_nonzero(readable).to_numpy()
        for stage in stages:
            for j, reason, values in judge_stage(stage, measured):
                found.setdefault(int(rows[j]), {})[reason] = values
    return found


def jsonable(v: object) -> object:
    """numpy scalars and the like in measured values."""
    if hasattr(v, "item"):
        return v.item()  # type: ignore[no-any-return]
    return str(v)


def reason_kind(reason: str) -> str:
    """`length:too_short` -> `length`."""
    return reason.split(":", 1)[0]
