"""Throughput of the contamination stage and the near-duplicate signature stage, one process.

    python ../shared/tools/make_corpus.py --data ../shared/data --out /tmp/h3corpus --docs 12000 --shards 8
    python bench/bench_dedup_contamination.py --corpus /tmp/h3corpus

Prints MB/s of input text (UTF-8 bytes) per stage, by CPU time of this process (the per-core
figure, fair on a busy machine) and by wall time; the contamination stage again with an index
ten times larger (extra items made by shuffling the words of the real ones) to show that the
probe's cost does not grow with the number of eval items; and the dedup global pass (the job's
one-partition steps).
No Ray.
"""
from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

import pyarrow as pa

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from audit.evalsets import load_eval_sets  # noqa: E402
from audit.normalize import with_tokens  # noqa: E402
from audit.stages.contamination import ContaminationIndex, ContaminationStage  # noqa: E402
from audit.dedup import steps  # noqa: E402
from audit.stages.near_dup import NearDupStage  # noqa: E402
from bench.eval_dedup_contamination import corpus_config, dedup_keys, read_records  # noqa: E402


def timed(stage, batches: list[pa.Table]) -> tuple[list[pa.Table], float, float]:
    """Run a stage over batches (after one untimed warm-up batch); returns outputs, CPU s, wall s."""
    stage(batches[0])
    c0, w0 = time.process_time(), time.perf_counter()
    out = [stage(b) for b in batches]
    return out, time.process_time() - c0, time.perf_counter() - w0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--corpus", type=Path, default=Path("/tmp/h3corpus"))
    ap.add_argument("--batch", type=int, default=512, help="records per batch")
    a = ap.parse_args()

    records = read_records(a.corpus)
    config = corpus_config(a.corpus)
    texts = [r["text"] for r in records]
    mb = sum(len(t.encode("utf-8", "surrogatepass")) for t in texts) / 1e6
    batches = [pa.table({"text": pa.array(texts[i:i + a.batch], pa.string())}) for i in range(0, len(texts), a.batch)]
    print(f"corpus: {len(texts)} records, {mb:.1f} MB, batches of {a.batch}")

    t0 = time.perf_counter()
    index = ContaminationIndex.build(config)
    assert index is not None
    print(f"contamination index: {index.items_per_set} built in {time.perf_counter() - t0:.2f} s")
    stage = ContaminationStage(config, index)
    _, cpu, wall = timed(stage, batches)
    print(f"contamination: {mb / cpu:.1f} MB/s (cpu), {mb / wall:.1f} MB/s (wall); code tier canonicalised "
          f"{index.code_records} records")
    # In the job the block's words are tokenised once for every stage that reads them.
    worded = [with_tokens(b) for b in batches]
    _, cpu, wall = timed(stage, worded)
    print(f"contamination, words given (as in the job): {mb / cpu:.1f} MB/s (cpu), {mb / wall:.1f} MB/s (wall)")

    rng = random.Random(0)
    sets = []
    for s in load_eval_sets(config):
        extra = []
        for _ in range(9):
            for t in s.texts:
                w = t.split()
                rng.shuffle(w)
                extra.append(" ".join(w))
        sets.append((s.name, s.ids + [f"x{i}" for i in range(len(extra))], s.texts + extra))
    big = ContaminationIndex.from_items(sets, config.contamination)
    _, cpu, wall = timed(ContaminationStage(config, big), batches)
    print(f"contamination, index x10 ({sum(big.items_per_set.values())} items): "
          f"{mb / cpu:.1f} MB/s (cpu), {mb / wall:.1f} MB/s (wall)")

    stage = NearDupStage(config)
    out, cpu, wall = timed(stage, batches)
    print(f"near_dup signatures: {mb / cpu:.1f} MB/s (cpu), {mb / wall:.1f} MB/s (wall), "
          f"{config.dedup.bands * 4} bytes a record")
    keys = dedup_keys(records, config)
    t0 = time.perf_counter()
    exact, near = steps.one_partition(keys, config)
    print(f"global pass, one partition in this process (audit.dedup.steps.one_partition): {exact.num_rows} exact, "
          f"{near.num_rows} near reported in {time.perf_counter() - t0:.3f} s")


if __name__ == "__main__":
    main()
