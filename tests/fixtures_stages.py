"""Stage-test helpers: a reader-shaped batch, and a stage's measurements with its reasons."""
from __future__ import annotations

import json
from collections import defaultdict

import pyarrow as pa
import pyarrow.compute as pc

from audit.config import AuditConfig
from audit.records import RECORD_SCHEMA
from audit.stages import Stage


def records(text: pa.Array | list[str | None]) -> pa.Table:
    """A batch shaped like the reader's: every record column, text as given with its chars and
    bytes, the rest null."""
    text = text if isinstance(text, pa.Array) else pa.array(text, pa.string())
    known = {"text": text, "chars": pc.cast(pc.utf8_length(text), pa.int64()),
             "bytes": pc.cast(pc.binary_length(text), pa.int64())}
    return pa.table({f.name: known.get(f.name, pa.nulls(len(text), f.type)) for f in RECORD_SCHEMA})


def measure_and_judge(stage: type[Stage], texts: pa.Array | list[str | None],
                      cfg: AuditConfig) -> tuple[pa.Table, dict[int, dict[str, dict]]]:
    """The stage's columns (text dropped, as decide sees them) and {row: {reason: details}}."""
    measured = stage(cfg)(records(texts)).drop_columns(["text"])
    reasons: dict[int, dict[str, dict]] = defaultdict(dict)
    for row, reason, details in stage(cfg).judge(measured):
        json.dumps(details)  # details must be JSON-serialisable
        reasons[row][reason] = details
    return measured, reasons
