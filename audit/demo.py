"""`audit demo`: build a small labelled corpus with planted problems, audit it, say what was found."""
from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pyarrow.dataset as pads

from audit.config import load_config
from audit.decide import reason_kind
from audit.demo_corpus import build_demo_corpus
from audit.job.plan import run_audit


def run_demo(out: Path, docs: int = 2000, seed: int = 0, progress: bool = True) -> int:
    """Build the demo corpus under `out/corpus`, audit it into `out/run`, print the findings
    (`progress`: the run's progress on standard error)."""
    out = Path(out)
    corpus = build_demo_corpus(out / "corpus", docs=docs, seed=seed)
    print(f"audit demo: corpus of {docs:,} records in {len(corpus.shards)} shards at {corpus.root}")
    print("  planted: " + ", ".join(f"{k} {v}" for k, v in sorted(corpus.counts.items())))
    config = load_config(corpus.config_path)
    result = run_audit(config, out=out / "run", progress=progress)
    # the run's summary (every reason kind) was printed once by run_audit's closing lines
    print("\naudit demo: found vs planted: " + _found_vs_planted(result.out, corpus.truth_path))
    print(f"\n  report:      {result.out / 'report.html'}")
    print(f"  summary:     {result.out / 'summary.json'}")
    print(f"  lineage:     {result.out / 'lineage'}/  (every record: shard, record, byte offset, sha256, verdict)")
    print(f"  quarantine:  {result.out / 'quarantine'}/  (reasons and the measured values behind them)")
    print(f"  unreadable:  {result.out / 'unreadable.jsonl'}")
    print(f"  try:         audit lookup --run {result.out} --sha256 <hash from lineage>")
    return 0


def _found_vs_planted(run: Path, truth_path: Path) -> str:
    """Share of each planted problem the run caught: quarantined with a matching reason, or for
    PII, a finding in pii/. Truth names each record by shard and record index, as lineage does."""
    want = {"exact_duplicate": ("exact_duplicate", "near_duplicate"), "near_duplicate": ("near_duplicate",
            "exact_duplicate"), "contamination": ("contamination",), "junk": ("junk", "charset"),
            "degenerate": ("length", "charset", "junk"), "unreadable": ("unreadable",)}
    lineage = pads.dataset(run / "lineage", format="parquet").to_table(
        columns=["doc_id", "shard", "record", "reasons"]).to_pylist()
    reasons = {(r["shard"], r["record"]): {reason_kind(x) for x in r["reasons"] or []} for r in lineage}
    doc_ids = {(r["shard"], r["record"]): r["doc_id"] for r in lineage}
    pii = set()
    if (run / "pii").is_dir():
        pii = set(pads.dataset(run / "pii", format="parquet").to_table(columns=["doc_id"]).column("doc_id").to_pylist())
    hit: Counter[str] = Counter()
    total: Counter[str] = Counter()
    for line in truth_path.read_text(encoding="utf-8").splitlines():
        t = json.loads(line)
        key = (t.get("shard"), t.get("record"))
        for label in t["labels"]:
            if label == "pii":
                total[label] += 1
                hit[label] += doc_ids.get(key) in pii
            elif label in want:
                total[label] += 1
                hit[label] += bool(reasons.get(key, set()) & set(want[label]))
    return ", ".join(f"{k} {hit[k]}/{total[k]}" for k in sorted(total))
