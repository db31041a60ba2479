"""How the driver scales with the record count: 1M and 4M small records (~200 bytes, default stages).

Prints, per size: the driver's peak RSS, its CPU seconds per record, the job's wall time, and the
share of the wall time when only the driver works (wall time minus the passes that run on Ray
workers: scan, global dedup, decide, lookup index). Each size runs in a fresh process with Ray
started first (start-up not counted). Records are ~200 bytes of words drawn by their frequency in
the shared prose data, with one in 50 an exact and one in 50 a near copy of an earlier one.

    python bench/bench_scale.py --records 1000000 4000000 --cpus 2
"""
from __future__ import annotations

import argparse
import json
import os
import random
import resource
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"


def build_corpus(records: int, shards: int) -> Path:
    """`shards` JSON-lines shards of `records` small documents under .bench/scale-<records>/."""
    root = ROOT / ".bench" / f"scale-{records}"
    marker = root / "done"
    if marker.exists():
        return root
    (root / "shards").mkdir(parents=True, exist_ok=True)
    words: list[str] = []
    for name in ("nltk_abc_news_paragraphs.jsonl", "gutenberg_books.jsonl"):
        for line in (SHARED / "data" / "prose" / name).read_text(encoding="utf-8").split("\n"):
            if line.strip():
                words.extend(json.loads(line)["text"].split())
    rng = random.Random(0)
    per = -(-records // shards)
    recent: list[str] = []
    i = 0
    for s in range(shards):
        with open(root / "shards" / f"part-{s:04d}.jsonl", "w", encoding="utf-8") as f:
            for _ in range(min(per, records - i)):
                roll = rng.random()
                if recent and roll < 0.02:
                    text = rng.choice(recent)
                elif recent and roll < 0.04:
                    copy = rng.choice(recent).split()
                    copy[rng.randrange(len(copy))] = "changed"
                    text = " ".join(copy)
                else:  # words drawn by their frequency in real text: distinct documents, real word statistics
                    text = " ".join(rng.choices(words, k=rng.randint(28, 40)))
                    recent = (recent + [text])[-1000:]
                f.write(json.dumps({"id": f"r{i}", "text": text, "url": f"https://example.org/{i}"}) + "\n")
                i += 1
    (root / "audit.yaml").write_text(json.dumps({"input": {"paths": ["shards/"]}, "output": "run"}))
    marker.write_text("ok")
    return root


def one(records: int, shards: int, cpus: int) -> dict:
    """Run the job once in this process; the driver's own figures."""
    from audit.config import load_config
    from audit.job.plan import run_audit
    from audit.job.ray_session import start_ray

    root = build_corpus(records, shards)
    load_before = os.getloadavg()[0]
    cfg = load_config(root / "audit.yaml")
    cfg.ray.num_cpus = cpus
    start_ray(cfg, None)
    before = resource.getrusage(resource.RUSAGE_SELF)
    t0 = time.perf_counter()
    res = run_audit(cfg, progress=False, fresh=True)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_SELF)
    s = res.summary
    cpu = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
    on_workers = s["scan_seconds"] + sum(s["stages"].get(k, 0.0) for k in ("dedup_global", "decide_write", "lookup_index"))
    return {"records": s["documents"], "mb": round(s["bytes"] / 1e6, 1), "wall_s": round(wall, 1),
            "driver_peak_rss_mb": round(after.ru_maxrss / 1024),
            "driver_cpu_us_per_record": round(cpu / max(s["documents"], 1) * 1e6, 2),
            "driver_only_share": round(max(0.0, wall - on_workers) / wall, 3),
            "passes_s": {"scan": s["scan_seconds"], **{k: s["stages"].get(k) for k in
                                                       ("dedup_global", "decide_write", "lookup_index")}},
            "job_mb_per_s": round(s["bytes"] / 1e6 / wall, 2),
            # a shared machine's load skews every figure: the 1-minute load average before and after
            "load": [round(load_before, 1), round(os.getloadavg()[0], 1)]}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--records", type=int, nargs="+", default=[1_000_000, 4_000_000])
    ap.add_argument("--shards", type=int, default=16)
    ap.add_argument("--cpus", type=int, default=2)
    ap.add_argument("--one", action="store_true", help=argparse.SUPPRESS)  # a single run, JSON on stdout
    a = ap.parse_args()
    if a.one:
        print(json.dumps(one(a.records[0], a.shards, a.cpus)))
        return
    rows = []
    for n in a.records:
        build_corpus(n, a.shards)
        out = subprocess.run([sys.executable, __file__, "--one", "--records", str(n), "--shards", str(a.shards),
                              "--cpus", str(a.cpus)], capture_output=True, text=True)
        if out.returncode:
            sys.exit(f"bench run of {n} records failed:\n{out.stderr[-3000:]}")
        r = json.loads(out.stdout.strip().splitlines()[-1])
        rows.append(r)
        print(f"{r['records']:>10,} records {r['mb']:>7} MB  wall {r['wall_s']:>7} s  {r['job_mb_per_s']} MB/s  "
              f"driver peak RSS {r['driver_peak_rss_mb']} MB  driver CPU {r['driver_cpu_us_per_record']} us/record  "
              f"driver-only share {r['driver_only_share']:.1%}  passes {r['passes_s']}  load {r['load']}")
    if len(rows) > 1:
        print(f"ratios {rows[-1]['records']:,} / {rows[0]['records']:,} records: driver peak RSS "
              f"{rows[-1]['driver_peak_rss_mb'] / rows[0]['driver_peak_rss_mb']:.2f}, wall "
              f"{rows[-1]['wall_s'] / rows[0]['wall_s']:.2f}x")


if __name__ == "__main__":
    main()
