"""Pass 1, scan: one Ray Data task per shard reads it, measures every record and writes the
measurements (no text) as the shard's part of `measurements/`, then its completion record.

What returns to the driver is one small row per shard: counts, stage seconds and the first
contamination match when the canary is on. No record travels to the driver.
"""
from __future__ import annotations

import json
import time
import uuid
from collections.abc import Iterator
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

from audit.config import AuditConfig
from audit.io.shards import Shard, read_shard
from audit.io.storage import Location
from audit.job.parts import PartWriter
from audit.job.resume import ShardState, start_attempt, write_done
from audit.records import RECORD_SCHEMA
from audit.tagger import Tagger

# Per worker process: the Tagger of the run in progress, built on the worker's first shard of
# that run. Ray reuses worker processes across tasks, so models and indexes load once per
# worker, not once per shard; tasks (unlike an actor pool) reuse Ray's warm workers.
_TAGGERS: dict[str, Tagger] = {}


def _tagger(run_id: str, config: AuditConfig, shared_ref: list[Any]) -> Tagger:
    tagger = _TAGGERS.get(run_id)
    if tagger is None:
        import ray

        _TAGGERS.clear()
        tagger = _TAGGERS[run_id] = Tagger(config, ray.get(shared_ref[0]))
    return tagger


def scan_shard(shard: Shard, state: ShardState, measurements: Location, tagger: Tagger, config: AuditConfig,
               canary: bool, attempt: int = 1) -> dict[str, Any]:
    """Read, measure and write one shard's part, then commit it; returns the shard's small result."""
    first_match = None
    if canary:
        from audit.stages.contamination import first_match
    seconds: dict[str, float] = {"read": 0.0}
    rows = records = nbytes = 0
    match = None
    writer = PartWriter(measurements.child(state.part))
    try:
        tagger.take_stats()  # what an earlier shard's failed task left is not this shard's
        t0 = time.perf_counter()
        for block in read_shard(shard, config.input):
            seconds["read"] += time.perf_counter() - t0
            block = tagger(block)
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
    result = {"rows": rows, "records": records, "bytes": nbytes, "seconds": seconds,
              "retried_blocks": stats["retried_blocks"], "canary": match, "node": _node_id(),
              "attempt": attempt}
    write_done(measurements, state, result)
    return result


def _node_id() -> str | None:
    """The Ray node that measured the shard (kept in its completion record, for tracing)."""
    import ray

    return ray.get_runtime_context().get_node_id() if ray.is_initialized() else None


def _scan_udf(items: pa.Table, run_id: str, config: AuditConfig, shared_ref: list[Any],
              measurements: Location, canary: bool) -> Iterator[pa.Table]:
    """Ray Data UDF: shard descriptions in, one result row per shard out (its part is written)."""
    for row in items.to_pylist():
        shard = Shard(row["path"], row["location"], row["index"])
        state = ShardState(row["path"], row["location"], row["index"], row["size"], row["mtime_ns"],
                           row["fingerprint"])
        attempt = start_attempt(measurements, state)  # first: a worker lost while loading models counts too
        result = scan_shard(shard, state, measurements, _tagger(run_id, config, shared_ref), config, canary, attempt)
        yield pa.table({"key": [state.key], "result": [json.dumps(result, default=str)]})


def scan(config: AuditConfig, todo: list[tuple[Shard, ShardState]], measurements: Location,
         shared: dict[str, Any], slots: int, canary: bool) -> Iterator[tuple[str, dict[str, Any]]]:
    """Measure the shards in `todo` on Ray Data, a task per shard; yields (key, result) as each finishes."""
    import ray

    items = [{"path": s.path, "location": str(s.location), "index": s.index, "size": st.size,
              "mtime_ns": st.mtime_ns, "fingerprint": st.fingerprint} for s, st in todo]
    ds = ray.data.from_items(items, override_num_blocks=len(items))
    # The shared state goes to the object store once; a list keeps Ray from resolving the ref
    # for every task, so only a worker's first task of the run fetches it. A task lost with its
    # worker or node is retried a bounded number of times; its part is rewritten whole.
    ds = ds.map_batches(_scan_udf, batch_size=1, batch_format="pyarrow", num_cpus=config.ray.task_cpus,
                        concurrency=min(slots, len(items)), max_retries=3,
                        fn_kwargs={"run_id": uuid.uuid4().hex, "config": config, "shared_ref": [ray.put(shared)],
                                   "measurements": measurements, "canary": canary})
    for batch in ds.iter_batches(batch_size=None, batch_format="pyarrow", prefetch_batches=1):
        for key, result in zip(batch.column("key").to_pylist(), batch.column("result").to_pylist()):
            yield key, json.loads(result)
