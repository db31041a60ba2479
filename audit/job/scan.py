"""Pass 1, scan: one task per shard reads it, measures every record and writes the
measurements (no text) as the shard's part of `measurements/`, then its completion record.

What returns to the driver is one ShardResult per shard: counts, stage seconds and the first
contamination match when the canary is on. No record travels to the driver.
"""
from __future__ import annotations

import gc
import time
import uuid
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field, fields
from typing import Any

import pyarrow.compute as pc

from audit.config import AuditConfig
from audit.io.shards import ReadStats, Shard, read_shard, text_bytes_estimate
from audit.io.storage import Location
from audit.job.executor import Executor, Shared
from audit.job.parts import PartWriter
from audit.job.resume import ShardState, start_attempt, write_done
from audit.records import RECORD_SCHEMA
from audit.tagger import StageError, Tagger

# Per worker process: the Tagger of the run in progress, built on the worker's first shard of
# that run. Ray reuses worker processes across tasks, so models and indexes load once per
# worker, not once per shard; tasks (unlike an actor pool) reuse Ray's warm workers.
_TAGGERS: dict[str, Tagger] = {}


def _tagger(run_id: str, config: AuditConfig, shared: Shared[dict[str, Any]]) -> Tagger:
    tagger = _TAGGERS.get(run_id)
    if tagger is None:
        if _TAGGERS:  # an earlier run's models and index: collectable again, cycles too
            _TAGGERS.clear()
            gc.unfreeze()
        tagger = _TAGGERS[run_id] = Tagger(config, shared.get())
        # The models and the eval index (millions of objects) live as long as the run: out of the
        # cyclic collector's sight, whose full passes over them took 0.7 of 19 CPU s (bench corpus);
        # collected first, so that no garbage is frozen with them.
        gc.collect()
        gc.freeze()
    return tagger


@dataclass
class ShardResult:
    """What a shard's scan returns to the driver, and its completion record keeps."""

    rows: int = 0
    records: int = 0
    bytes: int = 0
    seconds: dict[str, float] = field(default_factory=dict)
    retried_blocks: dict[str, int] = field(default_factory=dict)
    canary: dict[str, Any] | None = None  # the shard's first contamination match (canary mode)
    node: str | None = None
    attempt: int = 1
    read_retries: int = 0  # reads of the shard tried again after a transient error
    read_error: str | None = None  # why the shard could not be read: it is measured again next run

    @classmethod
    def from_record(cls, result: dict[str, Any]) -> "ShardResult":
        """From a completion record's `result` (keys unknown to this version are left out)."""
        return cls(**{f.name: result[f.name] for f in fields(cls) if f.name in result})


def scan_shard(shard: Shard, state: ShardState, measurements: Location, tagger: Tagger, config: AuditConfig,
               canary: bool, attempt: int = 1) -> ShardResult:
    """Read, measure and write one shard's part, then commit it; returns the shard's small result."""
    first_match = None
    if canary:
        from audit.stages.contamination import first_match
    seconds: dict[str, float] = {"read": 0.0}
    rows = records = nbytes = 0
    match = None
    writer = PartWriter(measurements.child(state.part), digest=True)
    read = ReadStats()
    try:
        tagger.take_stats()  # what an earlier shard's failed task left is not this shard's
        t0 = time.perf_counter()
        for block in read_shard(shard, config.input, read):
            seconds["read"] += time.perf_counter() - t0
            try:
                block = tagger(block)
            except StageError as e:  # a user stage breaking the protocol: named with its shard
                raise StageError(f"{e} (measuring shard {shard.path})") from None
            if first_match is not None and match is None:
                match = first_match(block, config)
            rows += block.num_rows
            records += int(pc.sum(pc.is_valid(block.column("record"))).as_py() or 0)
            nbytes += int(pc.sum(block.column("bytes")).as_py() or 0)
            writer.write(block)
            t0 = time.perf_counter()
        # an empty shard still has a part, with the reader's columns
        writer.close(empty=RECORD_SCHEMA.empty_table().drop_columns(["text"]).schema)
    except BaseException:
        writer.abort()
        raise
    stats = tagger.take_stats()
    for k, v in stats["seconds"].items():
        seconds[k] = seconds.get(k, 0.0) + v
    result = ShardResult(rows=rows, records=records, bytes=nbytes, seconds=seconds,
                         retried_blocks=stats["retried_blocks"], canary=match, node=_node_id(), attempt=attempt,
                         read_retries=read.retries, read_error=read.failed)
    write_done(measurements, state, asdict(result), writer)
    return result


def _node_id() -> str | None:
    """The Ray node that measured the shard (kept in its completion record, for tracing)."""
    import sys

    if "ray" not in sys.modules:  # measured in this process, with no Ray
        return None
    import ray

    return ray.get_runtime_context().get_node_id() if ray.is_initialized() else None


def scan_task(todo: tuple[Shard, ShardState], run_id: str, config: AuditConfig, shared: Shared[dict[str, Any]],
              measurements: Location, canary: bool) -> ShardResult:
    """One shard of pass 1 (a Ray task or a call here): count the attempt, measure, commit."""
    shard, state = todo
    attempt = start_attempt(measurements, state)  # first: a worker lost while loading models counts too
    return scan_shard(shard, state, measurements, _tagger(run_id, config, shared), config, canary, attempt)


def scan(executor: Executor, config: AuditConfig, todo: list[tuple[Shard, ShardState]], measurements: Location,
         shared: Shared[dict[str, Any]], canary: bool) -> Iterator[tuple[str, ShardResult]]:
    """Measure the shards in `todo`, a task per shard; yields (key, result) as each finishes.

    With more than one slot the largest shards go first (by their text, estimated from file
    size and kind), so that no slot is left with a large shard while the others idle at the end."""
    if executor.slots > 1:
        todo = sorted(todo, key=lambda t: text_bytes_estimate(t[0], t[1].size), reverse=True)
    try:
        for (_, state), result in executor.map(scan_task, todo, uuid.uuid4().hex, config, shared, measurements,
                                               canary, name="scan_shard", num_cpus=config.ray.task_cpus):
            yield state.key, result
    finally:
        if not executor.uses_ray:  # measured in this process: what _tagger froze is collectable again after
            gc.unfreeze()
