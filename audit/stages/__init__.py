"""Measurement stages: each adds columns to an Arrow batch of records and drops none.

One kind of stage (`audit.Stage`, CONTRACT.md), for the built-in stages and a user's own: a plain
class, so a unit test calls it on a small `pyarrow.Table` without Ray, and the job's workers call
the same class. Its `__init__` is cheap (its params, or for a built-in the run's config); heavy
state (models, indexes) is built in `setup()`, once per worker. A stage declares the columns it
writes and owns the rule that turns its measurements into reasons (`judge`), which the decide step
applies after the expensive measuring is done, so thresholds change without measuring again
(`audit decide` builds a stage and calls `judge` only: never `setup` or `__call__`).
"""
from __future__ import annotations

import functools
import time
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

if TYPE_CHECKING:
    from audit.config import AuditConfig

# (row index in the table, reason as "kind" or "kind:detail", the measured values behind it)
Finding = tuple[int, str, dict]

# The reason kinds of the built-in stages and the decide step (CONTRACT.md): a user stage's kind
# is its `name`, which must be none of these.
BUILTIN_KINDS = ("length", "charset", "junk", "exact_duplicate", "near_duplicate", "contamination", "pii",
                 "language", "takedown", "unreadable")


class Stage(ABC):
    """Base class of a measurement stage (CONTRACT.md "A stage of your own").

    `name` is the kind of its reasons ("name" or "name:detail"); `writes` the columns `__call__`
    adds, kept in `measurements/` for `judge`; `judges` the `__init__` params that only judge, so
    that `audit decide` may change them (every other param is a measuring setting)."""

    name: ClassVar[str]
    reads: ClassVar[tuple[str, ...]] = ("text",)
    writes: ClassVar[tuple[str, ...]] = ()
    judges: ClassVar[tuple[str, ...]] = ()

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        call = cls.__dict__.get("__call__")
        if call is not None and not getattr(call, "_runs_setup", False):
            cls.__call__ = _setting_up(call)  # type: ignore[method-assign]

    def setup(self) -> None:
        """Build heavy state (a model, an index): once per worker, before the first batch."""

    def ready(self) -> "Stage":
        """This stage with `setup()` run (once: later calls do nothing); returns it."""
        if not getattr(self, "_audit_set_up", False):
            self.setup()
            self._audit_set_up = True
        return self

    @abstractmethod
    def __call__(self, batch: pa.Table) -> pa.Table:
        """Return `batch` with this stage's `writes` columns added (same rows, same order)."""

    def judge(self, table: pa.Table) -> Iterable[Finding]:
        """Reasons for the rows whose measurements pass this stage's thresholds.

        `table` holds the stage's written columns (and the record's columns) but no text. Rows
        whose measurements are null (unreadable records) are skipped: the decide step gives them
        their own reason.
        """
        return ()


def _setting_up(call: Callable[..., pa.Table]) -> Callable[..., pa.Table]:
    """A stage's `__call__` that runs `setup()` first when nobody has (a stage called alone, as in
    a unit test); the job's Tagger sets its stages up before their first batch."""

    @functools.wraps(call)
    def measure(self: Stage, batch: pa.Table, *args: Any, **kwargs: Any) -> pa.Table:
        if not getattr(self, "_audit_set_up", False):
            self.ready()
        return call(self, batch, *args, **kwargs)

    measure._runs_setup = True  # type: ignore[attr-defined]
    return measure


class ConfigStage(Stage):
    """A built-in stage: its one param is the run's config (cheap to keep; heavy state in setup)."""

    def __init__(self, config: "AuditConfig") -> None:
        self.config = config


def add_seconds(seconds: dict[str, float], name: str, t0: float) -> float:
    """Add the seconds since `t0` (time.perf_counter) to `seconds[name]`; now (the next step's t0)."""
    now = time.perf_counter()
    seconds[name] = seconds.get(name, 0.0) + now - t0
    return now


def filter_list(column: pa.ListArray, keep: pa.BooleanArray | pa.ChunkedArray) -> pa.ListArray:
    """A list column with only the elements `keep` marks (over the flattened elements); a null
    list stays null. How a stage's judge-side helper keeps the findings that count."""
    keep_np = (keep.combine_chunks() if isinstance(keep, pa.ChunkedArray) else keep).to_numpy(zero_copy_only=False)
    parents = pc.list_parent_indices(column).to_numpy(zero_copy_only=False)
    counts = np.bincount(parents[keep_np], minlength=len(column))
    offsets = pa.array(np.concatenate([[0], np.cumsum(counts)]).astype(np.int32))
    values = pc.list_flatten(column).filter(pa.array(keep_np))
    return pa.ListArray.from_arrays(offsets, values, type=column.type, mask=pc.is_null(column))
