"""Throughput of the filter stages (length, charset, junk) on one core, without Ray.

    python bench/bench_filters.py /tmp/h1corpus [--repeat 3] [--batch-mb 8]

Reads a make_corpus.py corpus's shards (.jsonl, .jsonl.gz, .parquet) into an Arrow table with a
`text` column (plus the other record columns, so the stages see what the pipeline hands them),
runs each stage over batches of about --batch-mb of text, and prints MB/s per stage, for the
three alone summed, and for each block through the three in turn as the tagger runs them (they
share the block's byte view) (MB of UTF-8 input text / CPU seconds of the work on one thread).
"""
from __future__ import annotations

import argparse
import gzip
import os
import sys
import time
from pathlib import Path

# One core: Arrow's compute kernels would otherwise spread over every CPU of the machine.
os.environ.setdefault("OMP_NUM_THREADS", "1")

import orjson
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from audit.config import AuditConfig, InputConfig  # noqa: E402
from audit.records import RECORD_SCHEMA, make_doc_id, text_sha256  # noqa: E402
from audit.stages.charset import CharsetStage  # noqa: E402
from audit.stages.junk import JunkStage  # noqa: E402
from audit.stages.length import LengthStage  # noqa: E402
from audit.stages.utf8view import Utf8View  # noqa: E402

STAGES = (LengthStage, CharsetStage, JunkStage)


def _shard_rows(path: Path) -> list[dict]:
    """The records of one shard as dicts with at least id and text."""
    if path.name.endswith(".parquet"):
        return pq.read_table(path).to_pylist()
    opener = gzip.open if path.name.endswith(".gz") else open
    with opener(path, "rb") as f:
        return [orjson.loads(line) for line in f if line.strip()]


def read_corpus(corpus: Path) -> pa.Table:
    """All shards of a make_corpus.py corpus as one table of RECORD_SCHEMA (source_id = the record id)."""
    shards = sorted(p for p in (corpus / "shards").iterdir()
                    if p.name.endswith((".jsonl", ".jsonl.gz", ".parquet")))
    cols: dict[str, list] = {name: [] for name in RECORD_SCHEMA.names}
    for si, path in enumerate(shards):
        for ri, row in enumerate(_shard_rows(path)):
            text = row.get("text")
            known = {
                "doc_id": make_doc_id(str(path), ri), "source_id": row.get("id"), "shard": str(path),
                "shard_index": si, "record": ri, "url": row.get("url"), "text": text,
                "sha256": text_sha256(text) if text is not None else None,
                "chars": len(text) if text is not None else None,
                "bytes": len(text.encode("utf-8", "surrogatepass")) if text is not None else None,
            }
            for name, values in cols.items():  # columns the bench does not know stay null
                values.append(known.get(name))
    return pa.table(cols, schema=RECORD_SCHEMA)


def batches(table: pa.Table, batch_bytes: int) -> list[pa.Table]:
    """Slices of the table holding about batch_bytes of text each (as the reader's blocks do)."""
    sizes = pc.fill_null(pc.binary_length(table["text"]), 0).to_numpy()
    out, start, acc = [], 0, 0
    for i, n in enumerate(sizes):
        acc += int(n)
        if acc >= batch_bytes:
            out.append(table.slice(start, i + 1 - start))
            start, acc = i + 1, 0
    if start < table.num_rows:
        out.append(table.slice(start))
    return [b.combine_chunks() for b in out]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("corpus", type=Path, help="folder written by make_corpus.py (holds shards/)")
    ap.add_argument("--repeat", type=int, default=3, help="runs per stage; the best is reported")
    ap.add_argument("--batch-mb", type=float, default=8.0, help="text per batch, MB")
    a = ap.parse_args()
    pa.set_cpu_count(1)
    pa.set_io_thread_count(1)

    t0 = time.perf_counter()
    table = read_corpus(a.corpus)
    mb = pc.sum(pc.binary_length(table["text"])).as_py() / 1e6
    print(f"read {table.num_rows} records, {mb:.1f} MB of text in {time.perf_counter() - t0:.1f} s")
    parts = batches(table, int(a.batch_mb * 1e6))
    config = AuditConfig(input=InputConfig(paths=[str(a.corpus)]))

    # CPU seconds of this process (one thread: Arrow is held to one CPU above), so other work on
    # a shared machine does not count against a stage; wall seconds are printed beside them.
    def best_of(run) -> tuple[float, float]:
        """Best (CPU, wall) seconds of `run` over --repeat runs."""
        best_cpu = best_wall = float("inf")
        for _ in range(a.repeat):
            cpu, wall = time.process_time(), time.perf_counter()
            run()
            best_cpu = min(best_cpu, time.process_time() - cpu)
            best_wall = min(best_wall, time.perf_counter() - wall)
        return best_cpu, best_wall

    def alone(stage) -> None:
        for b in parts:
            stage(b)  # called alone, a stage builds its own view

    def in_turn(stages) -> None:
        for b in parts:
            view = Utf8View.of(b.column("text"))  # as the Tagger runs them: one view per block, shared
            for stage in stages:
                b = stage(b, view=view)

    stages = [cls(config) for cls in STAGES]
    for stage in stages:
        stage(parts[0])  # warm: first-call costs (tables, imports) are not throughput
    total_cpu = total_wall = 0.0
    for stage in stages:
        best_cpu, best_wall = best_of(lambda: alone(stage))
        total_cpu += best_cpu
        total_wall += best_wall
        print(f"{stage.name:8s} {mb / best_cpu:7.1f} MB/s  ({best_cpu:.2f} CPU s; wall {best_wall:.2f} s)")
    print(f"{'all':8s} {mb / total_cpu:7.1f} MB/s  ({total_cpu:.2f} CPU s; wall {total_wall:.2f} s; "
          f"the three stages alone, summed)")
    best_cpu, best_wall = best_of(lambda: in_turn(stages))
    print(f"{'block':8s} {mb / best_cpu:7.1f} MB/s  ({best_cpu:.2f} CPU s; wall {best_wall:.2f} s; "
          f"each block through the three stages in turn, sharing its view)")


if __name__ == "__main__":
    main()
