"""The sidecar's two costs: what observe() takes from the trainer, and how fast the worker measures.

    python bench/bench_sidecar.py [--calls 2000] [--batch 512] [--record-kb 2] [--rate 0.01]
                                  [--worker process] [--records 3000]

1. Trainer side: `Sidecar.observe()` on batches of --batch records of about --record-kb KB
   (dicts with text, sample_id, micro_batch) at --rate sampling, the worker running as it would
   in training. Prints microseconds per call (mean, p50, p99, max) against the budget: 1% of a
   100 ms step, i.e. 1 ms per call.
2. Worker side: `StreamMonitor.process()` (every stage, windows, alerts) over --records records
   in batches of sidecar.batch_records: sustained records/s and MB/s of text, and the share of the time of
   tokenising and of each stage.
3. Command side: parsing JSON lines and sampling them as `audit sidecar` does (lines/s).

Records are real text from ../shared/data (ABC news paragraphs joined to the record size, with
5% synthetic PII texts and 5% sentences in other languages mixed in).
"""
from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "1")
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import orjson  # noqa: E402
import pyarrow as pa  # noqa: E402
import pyarrow.compute as pc  # noqa: E402

from audit.config import AuditConfig, parse_config  # noqa: E402
from audit.sidecar import Sidecar  # noqa: E402
from audit.sidecar.monitor import StreamMonitor  # noqa: E402
from audit.sidecar.sources import parse_lines  # noqa: E402

DATA = Path(__file__).resolve().parents[2] / "shared" / "data"
STEP_SECONDS = 0.1
BUDGET = 0.01 * STEP_SECONDS  # 1% of a 100 ms step


def make_texts(n: int, record_chars: int, seed: int = 0) -> list[str]:
    """`n` texts of about `record_chars` characters from the shared data."""
    if not DATA.is_dir():
        sys.exit(f"bench_sidecar: {DATA} is missing (the shared data)")
    rng = random.Random(seed)
    news = [json.loads(line)["text"] for line in open(DATA / "prose" / "nltk_abc_news_paragraphs.jsonl")]
    pii = [r["full_text"] for r in json.loads((DATA / "pii" / "presidio_synth_dataset_v2.json").read_text())]
    other = [json.loads(line)["text"] for line in open(DATA / "multilingual" / "lingua_testdata_sentences.jsonl")]
    out = []
    i = 0
    while len(out) < n:
        parts, size = [], 0
        while size < record_chars:
            parts.append(news[i % len(news)])
            size += len(parts[-1]) + 2
            i += 1
        text = "\n\n".join(parts)[:record_chars]
        roll = rng.random()
        if roll < 0.05:
            text = text[: record_chars // 2] + "\n" + rng.choice(pii)
        elif roll < 0.10:
            text = " ".join(rng.choice(other) for _ in range(12))
        out.append(text)
    return out


def config(out: Path, rate: float, worker: str) -> AuditConfig:
    return parse_config({"input": {"paths": ["unused/"]},
                         "sidecar": {"sample_rate": rate, "output": str(out), "worker": worker, "seed": 1}},
                        base_dir=out)


def bench_observe(texts: list[str], calls: int, batch: int, rate: float, worker: str) -> None:
    batches = [[{"text": texts[(c * batch + j) % len(texts)], "sample_id": f"{c}-{j}", "micro_batch": j // 64}
                for j in range(batch)] for c in range(16)]
    with tempfile.TemporaryDirectory() as tmp:
        sidecar = Sidecar(config(Path(tmp), rate, worker))
        t0 = time.perf_counter()
        sidecar.wait_ready()
        ready = time.perf_counter() - t0
        for c in range(50):  # warm-up
            sidecar.observe(batches[c % 16], step=c, rank=0)
        times = []
        for c in range(calls):
            b = batches[c % 16]
            t = time.perf_counter_ns()
            sidecar.observe(b, step=c, rank=0)
            times.append((time.perf_counter_ns() - t) / 1e3)
        sidecar.close()
    times.sort()
    mean = statistics.fmean(times)
    print(f"observe(): {calls} calls of {batch} records (~{len(texts[0]) / 1024:.1f} KB each) at rate {rate}, "
          f"worker={worker} (ready in {ready:.1f} s)")
    print(f"  per call: mean {mean:.1f} us, p50 {times[len(times) // 2]:.1f} us, "
          f"p99 {times[int(len(times) * 0.99)]:.1f} us, max {times[-1]:.1f} us")
    print(f"  = {mean / 1e6 / STEP_SECONDS:.4%} of a 100 ms step (budget 1%: {BUDGET * 1e6:.0f} us) -> "
          f"{'OK' if mean / 1e6 < BUDGET else 'OVER BUDGET'}; sampled {sidecar.sampled}, dropped {sidecar.dropped}")


def timed_tagger(tagger, tally: dict[str, float]):
    """The monitor's Tagger, adding the seconds it reports per step (tokenising, each stage) to a tally."""

    def tag(block: pa.Table) -> pa.Table:
        out = tagger(block)
        for name in out.column_names:
            if name.startswith("_t_"):
                tally[name[3:]] = tally.get(name[3:], 0.0) + pc.sum(out.column(name)).as_py()
        return out

    return tag


def bench_worker(texts: list[str], records: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        monitor = StreamMonitor(config(Path(tmp), 1.0, "thread"))
        stage_time: dict[str, float] = {}
        monitor.tagger = timed_tagger(monitor.tagger, stage_time)
        n = monitor.sc.batch_records
        data = [{"text": texts[i % len(texts)], "global_step": i // 512, "rank": 0, "micro_batch": None,
                 "sample_id": str(i), "source_id": None, "url": None} for i in range(records)]
        mb = sum(len(d["text"].encode()) for d in data) / 1e6
        monitor.process(data[:n])  # warm-up (first-batch table builds)
        stage_time.clear()
        t0 = time.perf_counter()
        for a in range(n, records, n):
            monitor.process(data[a:a + n])
        dt = time.perf_counter() - t0
        done = records - n
        monitor.close()
    total = sum(stage_time.values())
    print(f"worker: {done} records ({mb * done / records:.1f} MB) in {dt:.2f} s = {done / dt:,.0f} records/s, "
          f"{mb * done / records / dt:.2f} MB/s (one core)")
    print("  stages: " + ", ".join(f"{k} {v / total:.0%}" for k, v in sorted(stage_time.items(), key=lambda kv: -kv[1]))
          + f"; stages {total / dt:.0%} of the time")
    print(f"  at 1% sampling the worker keeps up with {100 * done / dt:,.0f} training records/s")


def bench_command_reader(texts: list[str], lines: int, rate: float) -> None:
    raw = [orjson.dumps({"text": texts[i % len(texts)], "global_step": i // 512}) for i in range(lines)]
    with tempfile.TemporaryDirectory() as tmp:
        sidecar = Sidecar(config(Path(tmp), rate, "thread"), worker="thread")
        sidecar.wait_ready()
        t0 = time.perf_counter()
        for a in range(0, lines, 1024):
            parsed = parse_lines(raw[a:a + 1024], "text")
            sidecar.observe(parsed.records)
        dt = time.perf_counter() - t0
        sidecar.close()
    mb = sum(len(r) for r in raw) / 1e6
    print(f"command reader: {lines} JSON lines parsed and sampled at {rate} in {dt:.2f} s = "
          f"{lines / dt:,.0f} lines/s, {mb / dt:.0f} MB/s")


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--calls", type=int, default=2000)
    p.add_argument("--batch", type=int, default=512)
    p.add_argument("--record-kb", type=float, default=2.0)
    p.add_argument("--rate", type=float, default=0.01)
    p.add_argument("--worker", choices=["process", "thread"], default="process")
    p.add_argument("--records", type=int, default=3000)
    p.add_argument("--lines", type=int, default=100_000)
    a = p.parse_args()
    texts = make_texts(4096, int(a.record_kb * 1024))
    bench_observe(texts, a.calls, a.batch, a.rate, a.worker)
    bench_worker(texts, a.records)
    bench_command_reader(texts, a.lines, a.rate)


if __name__ == "__main__":
    main()
