"""Lookup latency on a lineage of a million records: by URL, SHA-256, source id, shard range and passage.

Generates JSON-lines shards (random words, so every record is distinct), runs the job over them
(no models, no dedup, passage fingerprints on), builds index/ once more on its own to time it, then
times lookups through one RunLookup (warm: a lookup service, or
a second query in one process) and through a fresh RunLookup per query (cold: what one `audit
lookup` command pays after Python's imports). Passages are 40 words from the middle of a random
record, case changed and re-broken over lines; each is confirmed against the shard text.

    python bench/bench_lookup.py [--rows 1000000] [--shards 20] [--queries 200] [--work DIR]
"""
from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import orjson

# `python bench/bench_lookup.py` puts bench/ (not the repo root) on sys.path: this checkout's `audit` first.
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from audit.records import text_sha256  # noqa: E402
from audit.takedown.lookup import RunLookup  # noqa: E402
from audit.config import parse_config  # noqa: E402
from audit.job.plan import run_audit  # noqa: E402


def make_shards(folder: Path, rows: int, shards: int, sample: int, seed: int = 0) -> list[dict]:
    """Write the shards; returns `sample` records (shard, record, url, id, text) to query."""
    rng = np.random.default_rng(seed)
    letters = np.array(list("abcdefghijklmnopqrstuvwxyz"))
    vocab = np.array(["".join(rng.choice(letters, int(k))) for k in rng.integers(2, 11, 30_000)])
    picks = set(rng.choice(rows, sample, replace=False).tolist())
    chosen: list[dict] = []
    per_shard = -(-rows // shards)
    folder.mkdir(parents=True, exist_ok=True)
    i = 0
    for s in range(shards):
        name = f"part-{s:04d}.jsonl"
        with open(folder / name, "wb") as f:
            for r in range(min(per_shard, rows - i)):
                n = int(rng.integers(40, 120))
                text = " ".join(vocab[rng.integers(0, len(vocab), n)].tolist()).capitalize() + "."
                rec = {"id": f"doc-{i}", "url": f"https://site{i % 5000}.example.com/{i}", "text": text}
                f.write(orjson.dumps(rec) + b"\n")
                if i in picks:
                    chosen.append({"shard": f"shards/{name}", "record": r, **rec})
                i += 1
    return chosen


def passage_of(text: str, rng: np.random.Generator, words: int = 40) -> str:
    w = text.split()
    start = max(0, len(w) // 2 - words // 2)
    out = []
    for k, word in enumerate(w[start:start + words]):
        out.append(word.upper() if k % 3 == 0 else word)
        out.append("\n" if rng.random() < 0.2 else " ")
    return "".join(out)


def percentiles(ms: list[float]) -> str:
    a = np.array(ms)
    return f"p50 {np.percentile(a, 50):7.2f} ms   p99 {np.percentile(a, 99):7.2f} ms   max {a.max():7.2f} ms"


def du(path: Path) -> float:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file()) / 2**20


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rows", type=int, default=1_000_000)
    ap.add_argument("--shards", type=int, default=20)
    ap.add_argument("--queries", type=int, default=200)
    ap.add_argument("--work", type=Path, help="keep the generated corpus and run here")
    a = ap.parse_args()
    work = a.work or Path(tempfile.mkdtemp(prefix="bench-lookup-"))
    try:
        t0 = time.perf_counter()
        chosen = make_shards(work / "shards", a.rows, a.shards, a.queries)
        print(f"corpus: {a.rows:,} records in {a.shards} shards, {du(work / 'shards'):.0f} MiB, "
              f"generated in {time.perf_counter() - t0:.0f} s")
        t0 = time.perf_counter()
        config = parse_config({"input": {"paths": ["shards/"]}, "output": "run", "languages": {"identify": False},
                               "dedup": {"exact": False, "near": False}, "pii": {"enabled": False},
                               "lookup": {"passages": True}}, base_dir=work)
        run = Path(run_audit(config, out=work / "run", progress=False).out)
        t_lineage = time.perf_counter() - t0
        from audit.lookup_index import build_lookup_indexes
        shutil.rmtree(run / "index")  # built again on its own, to time it
        t0 = time.perf_counter()
        build_lookup_indexes(run, sorted((run / "measurements").glob("part-*.parquet")))
        t_index = time.perf_counter() - t0
        print(f"the job (index included): {t_lineage:.0f} s; build_lookup_indexes alone: "
              f"{t_index:.0f} s; lineage {du(run / 'lineage'):.0f} MiB, index {du(run / 'index'):.0f} MiB "
              f"({', '.join(f'{p.name} {du(p):.0f}' for p in sorted((run / 'index').iterdir()) if p.is_dir())})")

        lookup = RunLookup(run)
        assert lookup.index is not None
        rng = np.random.default_rng(1)
        timings: dict[str, list[float]] = {k: [] for k in ("url", "sha256", "source_id", "range", "passage")}
        for rec in chosen:
            sha = text_sha256(rec["text"])
            for kind, fn in (("url", lambda: lookup.by_url(rec["url"])),
                             ("sha256", lambda: lookup.by_sha256(sha)),
                             ("source_id", lambda: lookup.by_source_id(rec["id"])),
                             ("range", lambda: lookup.by_position(rec["shard"], rec["record"], rec["record"] + 100))):
                t = time.perf_counter()
                hits = fn()
                timings[kind].append((time.perf_counter() - t) * 1000)
                assert any(h.record == rec["record"] and h.shard == rec["shard"] for h in hits), (kind, rec["id"])
            passage = passage_of(rec["text"], rng)
            t = time.perf_counter()
            hits = lookup.by_text(passage)
            timings["passage"].append((time.perf_counter() - t) * 1000)
            assert [(h.shard, h.record) for h in hits][:1] == [(rec["shard"], rec["record"])], rec["id"]
        print(f"\nwarm lookups ({len(chosen)} each, one RunLookup; every answer checked):")
        for kind, ms in timings.items():
            print(f"  {kind:10s} {percentiles(ms)}")
        reads = {name: idx.reads / len(chosen) for name, idx in lookup.index._indexes.items()}
        print("  row groups read per query: " + ", ".join(f"{k} {v:.2f}" for k, v in sorted(reads.items())))

        cold: dict[str, list[float]] = {"url": [], "passage": []}
        for rec in chosen[:50]:
            t = time.perf_counter()
            RunLookup(run).by_url(rec["url"])
            cold["url"].append((time.perf_counter() - t) * 1000)
            t = time.perf_counter()
            RunLookup(run).by_text(passage_of(rec["text"], rng))
            cold["passage"].append((time.perf_counter() - t) * 1000)
        print(f"\ncold lookups ({len(cold['url'])} each, a fresh RunLookup per query):")
        for kind, ms in cold.items():
            print(f"  {kind:10s} {percentiles(ms)}")
    finally:
        if a.work is None:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
