#!/usr/bin/env python3
"""Whole-job benchmark: MB/s per stage and for `audit run`, peak memory, and quality scores.

    python bench/bench_job.py [--docs 12000] [--shards 8 16] [--profile full spine]
    python bench/bench_job.py --whole [--repeat 3] [--executor auto|ray|local] [--docs 12000] [--shards 8]

Builds a corpus with ../shared/tools/make_corpus.py --data ../shared/data (once per doc count,
cached under .bench/), runs the job on a local Ray sized to this machine (Ray start-up is
excluded from the rate), samples the resident memory of the driver and every Ray worker, and
prints per-stage MB/s (input text MB / seconds the stage spent, summed over workers), the job's
MB/s, peak memory, and score_audit.py's output for the run. Each run is a fresh process. `--timeline`
prints each Ray worker's tasks and its idle time before the scan's end (from `ray.timeline()`).

`--whole` times what a user waits for instead: `python -m audit run` as a fresh process (imports,
Ray start, every pass, exit), then `python -m audit decide` on its run; it prints the whole
process's MB/s, the summary's, and seconds and MB/s per pass. `--repeat N` runs it N times and
reports each run and the fastest (on a shared machine, compare two trees back to back:
PYTHONPATH=../other-tree python bench/bench_job.py --whole).

Profiles: `full`, every stage (eval sets from the corpus); `spine`, the read, length, charset,
junk, exact-duplicate and write job alone (no language ID, passage index, near duplicates,
contamination or PII).
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import threading
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"


def build_corpus(docs: int, shards: int) -> Path:
    out = ROOT / ".bench" / f"corpus-{docs}-{shards}"
    if not (out / "truth.jsonl").exists():
        subprocess.run([sys.executable, str(SHARED / "tools" / "make_corpus.py"), "--data", str(SHARED / "data"),
                        "--out", str(out), "--docs", str(docs), "--shards", str(shards)], check=True,
                       stdout=subprocess.DEVNULL)
    return out


def write_config(corpus: Path, profile: str, executor: str = "auto") -> Path:
    lines = ["input:", "  paths: [shards/]", "  text_field: text", "  id_field: id", "  url_field: url"]
    if profile == "full":
        lines += ["eval_sets:"] + [f"  - {{name: {p.stem}, path: evals/{p.name}, text_fields: [text], id_field: id}}"
                                   for p in sorted((corpus / "evals").glob("*.jsonl"))]
    else:
        lines += ["languages: {identify: false}", "lookup: {passages: false}", "dedup: {near: false}",
                  "pii: {enabled: false}"]
    lines += [f"output: run-{profile}"] + ([f"ray: {{executor: {executor}}}"] if executor != "auto" else [])
    cfg = corpus / f"bench-{profile}-{executor}.yaml"
    cfg.write_text("\n".join(lines) + "\n")
    return cfg


class MemorySampler(threading.Thread):
    """Peak summed RSS of this process and every Ray worker process, sampled twice a second."""

    def __init__(self) -> None:
        super().__init__(daemon=True)
        self.peak_total = self.peak_driver = 0
        self.stop = threading.Event()

    def run(self) -> None:
        me = os.getpid()
        while not self.stop.wait(0.5):
            total = driver = 0
            for pid in os.listdir("/proc"):
                if not pid.isdigit():
                    continue
                try:
                    cmd = Path(f"/proc/{pid}/cmdline").read_bytes()
                    if int(pid) != me and b"ray::" not in cmd:
                        continue
                    rss = next(int(l.split()[1]) for l in Path(f"/proc/{pid}/status").read_text().splitlines()
                               if l.startswith("VmRSS"))
                except (OSError, StopIteration, ValueError):
                    continue
                total += rss * 1024
                if int(pid) == me:
                    driver = rss * 1024
            self.peak_total = max(self.peak_total, total)
            self.peak_driver = max(self.peak_driver, driver)


def worker_timeline(events: list[dict]) -> list[str]:
    """Per Ray worker, from `ray.timeline()`'s events: each task's start and length up to the scan's
    end (seconds from the first task's start), the worker's idle time between its first task and
    the scan's end, and the later passes' tasks in one figure."""
    tasks = [e for e in events if e.get("ph") == "X" and e.get("cat", "").startswith("task::")]
    if not tasks:
        return []
    t0 = min(e["ts"] for e in tasks)
    scan_end = max((e["ts"] + e["dur"] for e in tasks if e["cat"] == "task::scan_shard"), default=t0)
    lines = []
    for pid in sorted({e["tid"] for e in tasks}):
        mine = sorted((e for e in tasks if e["tid"] == pid), key=lambda e: e["ts"])
        busy = sum(min(e["ts"] + e["dur"], scan_end) - e["ts"] for e in mine if e["ts"] < scan_end)
        idle = (scan_end - mine[0]["ts"] - busy) / 1e6
        later = [e for e in mine if e["ts"] >= scan_end]  # the later passes' tasks: counted, not listed
        lines.append(f"{pid[:18]}: idle {idle:.2f} s before the scan's end; " + ", ".join(
            f"{e['cat'][6:]} {(e['ts'] - t0) / 1e6:.2f}+{e['dur'] / 1e6:.2f}" for e in mine if e["ts"] < scan_end)
            + f"; then {len(later)} tasks, {sum(e['dur'] for e in later) / 1e6:.2f} s")
    return lines


def bench(docs: int, shards: int, profile: str, timeline: bool = False) -> dict:
    from audit.config import load_config
    from audit.job.plan import run_audit
    from audit.job.ray_session import start_ray

    corpus = build_corpus(docs, shards)
    cfg = load_config(write_config(corpus, profile))
    start_ray(cfg, None)
    sampler = MemorySampler()
    sampler.start()
    res = run_audit(cfg, progress=False, fresh=True)  # measure everything: no reuse of an earlier bench run
    sampler.stop.set()
    if timeline:
        import ray

        tasks = worker_timeline(ray.timeline())
    s = res.summary
    mb = s["bytes"] / 1e6
    score = subprocess.run([sys.executable, str(SHARED / "tools" / "score_audit.py"), "--truth",
                            str(corpus / "truth.jsonl"), "--run", str(res.out)], capture_output=True, text=True)
    return {"profile": profile, "docs": docs, "shards": shards, "mb": round(mb, 1), "seconds": s["seconds"],
            "job_mb_per_s": round(mb / s["seconds"], 2),
            "stage_mb_per_s": {k: round(mb / v, 1) for k, v in s["stages"].items() if v > 0},
            "stage_seconds": s["stages"],
            "peak_rss_total_mb": round(sampler.peak_total / 2**20), "peak_rss_driver_mb": round(sampler.peak_driver / 2**20),
            "score": score.stdout.strip().splitlines(), "timeline": tasks if timeline else []}


PASSES = (("start", "ray_start_seconds"), ("scan", "scan_seconds"), ("global", "dedup_global"),
          ("decide", "decide_write"), ("index", "lookup_index"))


def whole(docs: int, shards: int, profile: str, executor: str) -> dict:
    """One `audit run` and one `audit decide`, each a fresh process, timed from outside."""
    import time

    corpus = build_corpus(docs, shards)
    cfg = write_config(corpus, profile, executor)
    out = corpus / f"run-{profile}-{executor}"
    t0 = time.perf_counter()
    # run from the corpus folder: `python -m` puts the working folder first on sys.path, so the
    # repository's own checkout would shadow the tree PYTHONPATH names
    subprocess.run([sys.executable, "-m", "audit", "run", str(cfg), "--out", str(out), "--quiet", "--fresh"],
                   check=True, stdout=subprocess.DEVNULL, cwd=corpus)
    run_s = time.perf_counter() - t0
    s = json.loads((out / "summary.json").read_text())
    t0 = time.perf_counter()
    subprocess.run([sys.executable, "-m", "audit", "decide", str(out)], check=True, stdout=subprocess.DEVNULL, cwd=corpus)
    decide_s = time.perf_counter() - t0
    mb = s["bytes"] / 1e6
    passes = {name: s.get(key, s["stages"].get(key, 0.0)) for name, key in PASSES}
    passes["other"] = s["seconds"] - sum(passes.values())  # eval index, model loads not overlapped, report
    return {"mb": mb, "documents": s["documents"], "whole_s": run_s, "summary_s": s["seconds"], "passes": passes,
            "decide_s": decide_s}


def print_whole(r: dict) -> None:
    mb = r["mb"]
    print(f"whole process {r['whole_s']:.1f} s = {mb / r['whole_s']:.2f} MB/s; by summary {r['summary_s']:.1f} s = "
          f"{mb / r['summary_s']:.2f} MB/s; audit decide {r['decide_s']:.1f} s ({r['documents']:,} records)")
    print("  per pass: " + ", ".join(f"{k} {v:.1f} s" + (f" ({mb / v:.1f} MB/s)" if v > 0 and k != "other" else "")
                                     for k, v in r["passes"].items()))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--docs", type=int, default=12000)
    ap.add_argument("--shards", type=int, nargs="+", default=[8, 16])
    ap.add_argument("--profile", nargs="+", default=["spine", "full"], choices=["spine", "full"])
    ap.add_argument("--one", action="store_true", help=argparse.SUPPRESS)  # a single run, JSON on stdout
    ap.add_argument("--whole", action="store_true", help="time `audit run` and `audit decide` as fresh processes")
    ap.add_argument("--executor", default="auto", choices=["auto", "ray", "local"], help="ray.executor (--whole)")
    ap.add_argument("--repeat", type=int, default=1, help="runs per setting (--whole); the fastest is reported too")
    ap.add_argument("--timeline", action="store_true",
                    help="print each Ray worker's tasks (start+length, s) and idle time, from ray.timeline()")
    a = ap.parse_args()
    if a.whole:
        for profile in a.profile:
            for n in a.shards:
                runs = []
                for i in range(a.repeat):
                    runs.append(whole(a.docs, n, profile, a.executor))
                    print(f"== {profile}, {a.docs} docs, {n} shards, {runs[-1]['mb']:.1f} MB, executor {a.executor}, "
                          f"run {i + 1}/{a.repeat}")
                    print_whole(runs[-1])
                if a.repeat > 1:
                    print(f"== fastest of {a.repeat}:")
                    print_whole(min(runs, key=lambda r: r["whole_s"]))
        return
    if a.one:
        print(json.dumps(bench(a.docs, a.shards[0], a.profile[0], a.timeline)))
        return
    for profile in a.profile:
        for n in a.shards:
            build_corpus(a.docs, n)
            out = subprocess.run([sys.executable, __file__, "--one", "--docs", str(a.docs), "--shards", str(n),
                                  "--profile", profile] + (["--timeline"] if a.timeline else []),
                                 capture_output=True, text=True, check=True)
            r = json.loads(out.stdout.strip().splitlines()[-1])
            print(f"== {profile}: {r['docs']} docs, {r['shards']} shards, {r['mb']} MB of text")
            print(f"job: {r['seconds']:.1f} s, {r['job_mb_per_s']} MB/s (Ray start-up excluded)")
            print("per stage MB/s (summed worker time): " + ", ".join(f"{k} {v}" for k, v in r["stage_mb_per_s"].items()))
            print(f"peak RSS: driver {r['peak_rss_driver_mb']} MB, driver + Ray workers {r['peak_rss_total_mb']} MB")
            for line in r["timeline"]:
                print("worker " + line)
            print("score_audit.py:")
            for line in r["score"]:
                print("  " + line)


if __name__ == "__main__":
    main()
