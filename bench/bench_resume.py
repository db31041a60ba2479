"""What a resume saves: a full `audit run` against one killed half way and run again.

On bench_scale.py's corpus (small records, default stages, 16 shards), each a fresh
`python -m audit run` process on a local Ray of `--cpus` CPUs:

1. a full run (wall time of the process);
2. a run SIGKILLed, with every process of its session (Ray's too), once half of the shards have
   their completion record in `measurements/_done/`;
3. `audit run` again into the killed run's folder: it measures only what is left.

Each run starts once every process of the one before has ended (a killed worker freeing its
memory takes a second or more here, CPU the next run would otherwise share).

Prints both wall times, the ratio (resumed / full; the issue's goal is <= 0.6), where each run's
time went (Ray's start, scan, the later passes, the driver between them, the process outside the
summary's clock) and whether the resumed run's lineage and quarantine equal the full run's row for
row and its summary counts the full run's.

    python bench/bench_resume.py --records 1000000 --cpus 2
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import statistics
import subprocess
import sys
import time
from pathlib import Path

import pyarrow as pa
import pyarrow.dataset as ds

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # this tree's audit and tests
from audit.job.ray_session import descendants  # noqa: E402
from bench_scale import build_corpus  # noqa: E402  (the same corpus as the scale bench)
from tests.fixtures_procs import wait_for_exit  # noqa: E402  (waits on pidfds, not sleeps)


def _config(root: Path, cpus: int) -> Path:
    """The corpus's config with Ray sized to `cpus`."""
    cfg = json.loads((root / "audit.yaml").read_text())
    cfg["ray"] = {"num_cpus": cpus}
    path = root / f"resume-{cpus}.yaml"
    path.write_text(json.dumps(cfg))
    return path


def _run(cfg: Path, out: Path, fresh: bool) -> tuple[float, float]:
    """Wall seconds of one `audit run` process, and the CPU seconds it and every process it
    started (Ray's) used, sampled from /proc as they run: on a shared machine the wall time moves
    with others' load, the CPU seconds much less."""
    t0 = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-m", "audit", "run", str(cfg), "--out", str(out), "--quiet"]
                            + (["--fresh"] if fresh else []))
    used: dict[int, float] = {}
    while proc.poll() is None:
        for pid in [proc.pid, *descendants(proc.pid)]:
            used[pid] = max(used.get(pid, 0.0), _cpu_seconds(pid))
        time.sleep(0.25)  # sampling processes that end on their own: no event to wait on
    wall = time.perf_counter() - t0
    if proc.returncode:
        raise subprocess.CalledProcessError(proc.returncode, proc.args)
    # a process of the run still ending (the kernel freeing its memory) must not slow the next run
    wait_for_exit(list(used), time.monotonic() + 120)
    return wall, sum(used.values())


_TICK = os.sysconf("SC_CLK_TCK")


def _cpu_seconds(pid: int) -> float:
    """User + system seconds a process has used so far (0 once it has ended)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / _TICK


def _kill_at_half(cfg: Path, out: Path, shards: int) -> float:
    """Start a fresh run, SIGKILL its whole session once half the shards are done; seconds it ran."""
    done = out / "measurements" / "_done"
    shutil.rmtree(out, ignore_errors=True)  # an earlier bench's completion records must not count
    t0 = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-m", "audit", "run", str(cfg), "--out", str(out), "--quiet", "--fresh"],
                            start_new_session=True)
    family: list[int] = []
    while proc.poll() is None:
        if done.is_dir() and sum(1 for _ in done.glob("*.json")) >= shards // 2:
            family = descendants(proc.pid)  # Ray's processes, some in sessions of their own
            os.killpg(proc.pid, signal.SIGKILL)
            for pid in family:
                try:
                    os.kill(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
            break
        time.sleep(0.1)  # polling a folder another process fills: no event to wait on
    proc.wait()
    killed = time.perf_counter() - t0
    wait_for_exit(family, time.monotonic() + 120)  # the killed workers' teardown must not slow the resumed run
    return killed


def _rows(out: Path, name: str = "lineage") -> pa.Table:
    """A dataset's rows (lineage/, quarantine/), sorted by shard and record (Arrow: a million rows in
    about a second)."""
    table = ds.dataset(out / name, format="parquet").to_table()
    table = table.drop_columns([c for c in ("run_id",) if c in table.column_names]).replace_schema_metadata(None)
    return table.sort_by([("shard", "ascending"), ("record", "ascending")]).combine_chunks()


# What a resumed run must report as the full run did: its verdicts, reasons, duplicates and findings.
_COUNTED = ("documents", "kept", "quarantined", "unreadable", "bytes", "shards", "reasons", "reason_kinds",
            "duplicates", "languages", "contamination", "pii")


def _counts(out: Path) -> dict:
    """The run's summary.json figures that do not depend on timing or on what was reused."""
    s = json.loads((out / "summary.json").read_text())
    return {k: s.get(k) for k in _COUNTED}


def _phases(out: Path, wall: float) -> dict[str, float]:
    """Where a run's wall time went, from its summary.json: Ray's start, the scan (the workers'
    model warm-up included), the later passes, the driver's steps between them (`between`), and
    what the process did outside the summary's clock (`outside`: interpreter start and imports,
    then the report, summary.json, the swap and ending Ray)."""
    s = json.loads((out / "summary.json").read_text())
    got = {"ray": s["ray_start_seconds"], "scan": s["scan_seconds"],
           **{name: s["stages"].get(k, 0.0) for name, k in (("global", "dedup_global"), ("decide", "decide_write"),
                                                            ("index", "lookup_index"))}}
    got["between"] = s["seconds"] - sum(got.values())
    got["outside"] = wall - s["seconds"]
    return {k: round(v, 1) for k, v in got.items()}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--records", type=int, default=1_000_000)
    ap.add_argument("--shards", type=int, default=16)
    ap.add_argument("--cpus", type=int, default=2)
    ap.add_argument("--repeat", type=int, default=1,
                    help="full, killed and resumed runs this many times; the median ratio is the figure "
                         "(one full run's time moved 32-42 s with the machine's load, and the ratio 0.54-0.66)")
    a = ap.parse_args()
    root = build_corpus(a.records, a.shards)
    cfg = _config(root, a.cpus)
    ratios: list[float] = []
    for i in range(a.repeat):
        load = os.getloadavg()[0]
        full, full_cpu = _run(cfg, root / "run-full", fresh=True)
        killed = _kill_at_half(cfg, root / "run-resume", a.shards)
        resumed, resumed_cpu = _run(cfg, root / "run-resume", fresh=False)
        same = {name: _rows(root / "run-full", name).equals(_rows(root / "run-resume", name))
                for name in ("lineage", "quarantine")}
        same["summary counts"] = _counts(root / "run-full") == _counts(root / "run-resume")
        full_phases, resumed_phases = _phases(root / "run-full", full), _phases(root / "run-resume", resumed)
        phases = {k: [full_phases[k], resumed_phases[k]] for k in full_phases}
        ratios.append(resumed / full)
        print(f"[{i + 1}/{a.repeat}] {a.records:,} records, {a.shards} shards, {a.cpus} CPUs: full run {full:.1f} s "
              f"({full_cpu:.0f} CPU-s); killed after {killed:.1f} s at {a.shards // 2} shards done; resumed "
              f"{resumed:.1f} s ({resumed_cpu:.0f} CPU-s); ratio {resumed / full:.2f} (CPU "
              f"{resumed_cpu / max(full_cpu, 1e-9):.2f}); phases s (full, resumed) {phases}; identical: {same}; "
              f"load {load:.1f} -> {os.getloadavg()[0]:.1f}", flush=True)
    if a.repeat > 1:
        print(f"ratio median {statistics.median(ratios):.2f} of {a.repeat} ({', '.join(f'{r:.2f}' for r in ratios)})")

if __name__ == "__main__":
    main()
