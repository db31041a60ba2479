#!/usr/bin/env python3
"""Export throughput: `audit export` MB/s against the scan's, on the bench corpus.

    python bench/bench_export.py [--docs 12000] [--shards 8] [--profile spine|full] [--executor ray|local]

Builds (once, cached under .bench/) the corpus bench/bench_job.py uses, audits it afresh into
.bench/corpus-*/run-export-<profile>, then times `audit export` of the kept and of the quarantined
records, as JSON lines (each shard's own compression) and as Parquet, each into a fresh folder,
`--repeat` times (the fastest is reported).
MB/s are of the corpus's text (summary.json `bytes`), the unit of the scan's figure (bytes /
scan_seconds); Ray start-up is excluded from both (a session is started first, as bench_job.py
does). The input files' MB/s (file bytes read per second) is printed beside it. `--executor
local` exports in this process instead (what a small run's export does).
"""
from __future__ import annotations

import argparse
import json
import shutil
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_job import build_corpus, write_config  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--docs", type=int, default=12000)
    ap.add_argument("--shards", type=int, default=8)
    ap.add_argument("--profile", choices=("spine", "full"), default="spine")
    ap.add_argument("--executor", choices=("ray", "local"), default="ray")
    ap.add_argument("--repeat", type=int, default=2, help="exports of each kind; the fastest is reported")
    a = ap.parse_args()

    from audit.config import load_config
    from audit.exporter import ExportOptions, export_run
    from audit.job.executor import LocalExecutor, RayExecutor
    from audit.job.plan import run_audit

    corpus = build_corpus(a.docs, a.shards)
    cfg = load_config(write_config(corpus, a.profile))
    ex = RayExecutor(cfg, None) if a.executor == "ray" else LocalExecutor()  # Ray starts here, untimed
    res = run_audit(cfg, out=corpus / f"run-export-{a.profile}", progress=False, fresh=True)
    s = res.summary
    mb = s["bytes"] / 1e6
    print(json.dumps({"corpus": str(corpus), "text_mb": round(mb, 1), "documents": s["documents"],
                      "kept": s["kept"], "quarantined": s["quarantined"], "scan_seconds": round(s["scan_seconds"], 2),
                      "scan_mb_per_s": round(mb / s["scan_seconds"], 2), "job_mb_per_s": round(mb / s["seconds"], 2)}))
    for verdict in ("kept", "quarantined"):
        for fmt in (None, "parquet"):
            dest = corpus / f"export-{verdict}-{fmt or 'own'}"
            times = []
            for _ in range(a.repeat):  # the first may pay for the workers' first imports
                shutil.rmtree(dest, ignore_errors=True)
                t0 = time.perf_counter()
                m = export_run(res.out, dest, ExportOptions(verdict, fmt), executor=ex).manifest
                times.append(time.perf_counter() - t0)
            sec = min(times)
            print(json.dumps({"export": verdict, "format": fmt or "as input", "executor": a.executor,
                              "records": m["records"], "seconds": [round(t, 2) for t in times],
                              "text_mb_per_s": round(mb / sec, 2),
                              "file_mb_per_s": round(m["bytes_read"] / 1e6 / sec, 2),
                              "vs_scan": round((mb / sec) / (mb / s["scan_seconds"]), 1)}))


if __name__ == "__main__":
    main()
