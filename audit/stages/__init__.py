"""Measurement stages: each adds columns to an Arrow batch of records and drops none.

A stage is a plain class, so a unit test calls it on a small `pyarrow.Table` without Ray and the
pipeline hands the same class to Ray Data. Heavy state (models, indexes) is built in `__init__`,
once per worker. A stage declares the columns it reads and writes, and owns the rule that turns
its measurements into reasons (`judge`), which the decide step applies after the expensive
measuring is done, so thresholds change without measuring again.
"""
from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterable
from typing import TYPE_CHECKING, ClassVar

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

if TYPE_CHECKING:
    from audit.config import AuditConfig

# (row index in the table, reason as "kind" or "kind:detail", the measured values behind it)
Finding = tuple[int, str, dict]


class Stage(ABC):
    """Base class of a measurement stage."""

    name: ClassVar[str]
    reads: ClassVar[tuple[str, ...]] = ("text",)
    writes: ClassVar[tuple[str, ...]] = ()

    def __init__(self, config: "AuditConfig") -> None:
        self.config = config

    @classmethod
    def preload(cls) -> None:
        """Import the libraries `__init__` needs, building nothing: lets a worker be ready before
        the job starts (Presidio with spaCy takes over a second to import)."""

    @abstractmethod
    def __call__(self, batch: pa.Table) -> pa.Table:
        """Return `batch` with this stage's columns added (same rows, same order)."""

    @staticmethod
    def judge(table: pa.Table, config: "AuditConfig") -> Iterable[Finding]:
        """Reasons for the rows whose measurements pass this stage's thresholds.

        `table` holds the stage's written columns but no text. Rows whose measurements are null
        (unreadable records) are skipped: the decide step gives them their own reason.
        """
        return ()


def filter_list(column: pa.ListArray, keep: pa.BooleanArray | pa.ChunkedArray) -> pa.ListArray:
    """A list column with only the elements `keep` marks (over the flattened elements); a null
    list stays null. How a stage's judge-side helper keeps the findings that count."""
    keep_np = (keep.combine_chunks() if isinstance(keep, pa.ChunkedArray) else keep).to_numpy(zero_copy_only=False)
    parents = pc.list_parent_indices(column).to_numpy(zero_copy_only=False)
    counts = np.bincount(parents[keep_np], minlength=len(column))
    offsets = pa.array(np.concatenate([[0], np.cumsum(counts)]).astype(np.int32))
    values = pc.list_flatten(column).filter(pa.array(keep_np))
    return pa.ListArray.from_arrays(offsets, values, type=column.type, mask=pc.is_null(column))
