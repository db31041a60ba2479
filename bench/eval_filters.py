"""Quality of the filter stages (length, charset, junk) on a make_corpus.py corpus, without Ray.

    python bench/eval_filters.py /tmp/h1corpus [--worst 5]

Builds the record table from the corpus's shards, runs the three stages and their judges, and
prints against truth.jsonl:
- recall of `junk`-labelled records flagged by a junk or charset reason,
- recall of `degenerate`-labelled records flagged by any of the three stages,
- false quarantine of clean records (first label "clean", no "markup" label) by the three stages,
and the worst false positives by reason (and the misses), so a threshold change is a figure.
"""
from __future__ import annotations

import argparse
import json
import sys
from collections import Counter, defaultdict
from pathlib import Path

import pyarrow as pa

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench_filters import STAGES, batches, read_corpus  # noqa: E402

from audit.config import AuditConfig, InputConfig  # noqa: E402


def run_stages(table: pa.Table, config: AuditConfig) -> tuple[pa.Table, dict[int, list[tuple[str, dict]]]]:
    """Measure every batch with the three stages, then judge the measurements (text dropped)."""
    stages = [cls(config) for cls in STAGES]
    measured = []
    for b in batches(table, 8 * 10**6):
        for stage in stages:
            b = stage(b)
        measured.append(b.drop_columns(["text"]))
    out = pa.concat_tables(measured)
    reasons: dict[int, list[tuple[str, dict]]] = defaultdict(list)
    for cls in STAGES:
        for row, reason, details in cls(config).judge(out):
            reasons[row].append((reason, details))
    return out, reasons


def severity(details: dict) -> float:
    """How far past its limit a finding is: the largest value/limit (or limit/value for a lower bound)."""
    limits = details.get("limits", {})
    worst = 0.0
    for key, value in details.items():
        if not isinstance(value, (int, float)) or key.startswith(("min_", "max_")):
            continue
        upper = details.get(f"max_{key}", limits.get(key))
        lower = details.get(f"min_{key}")
        if isinstance(upper, list):  # a [min, max] range
            lower, upper = upper
        if isinstance(upper, (int, float)) and upper > 0:
            worst = max(worst, value / upper)
        if isinstance(lower, (int, float)) and lower > 0:
            worst = max(worst, lower / max(value, 1e-9))
    return worst


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("corpus", type=Path)
    ap.add_argument("--worst", type=int, default=5, help="false positives shown per reason, worst first")
    a = ap.parse_args()

    truth = {}
    with open(a.corpus / "truth.jsonl", encoding="utf-8") as f:
        for line in f:
            t = json.loads(line)
            truth[t["id"]] = t
    table = read_corpus(a.corpus)
    config = AuditConfig(input=InputConfig(paths=[str(a.corpus)]))
    _, reasons = run_stages(table, config)
    ids = table.column("source_id").to_pylist()
    texts = table.column("text")

    def kinds(i: int) -> set[str]:
        return {r.split(":")[0] for r, _ in reasons.get(i, [])}

    junk = [i for i, d in enumerate(ids) if "junk" in truth[d]["labels"]]
    degenerate = [i for i, d in enumerate(ids) if "degenerate" in truth[d]["labels"]]
    clean = [i for i, d in enumerate(ids) if truth[d]["labels"][0] == "clean" and "markup" not in truth[d]["labels"]]
    junk_hit = [i for i in junk if kinds(i) & {"junk", "charset"}]
    degenerate_hit = [i for i in degenerate if kinds(i)]
    false_pos = [i for i in clean if kinds(i)]

    for name, hit, rows in (("junk recall", junk_hit, junk), ("degenerate recall", degenerate_hit, degenerate),
                            ("false quarantine", false_pos, clean)):
        print(f"{name:18s} {len(hit) / max(len(rows), 1):.4f}  ({len(hit)}/{len(rows)})")
    print("reasons on clean:", dict(Counter(r for i in false_pos for r, _ in reasons[i])))
    rest = [i for i, d in enumerate(ids) if truth[d]["labels"][0] == "clean" and "markup" in truth[d]["labels"]]
    print(f"(not scored) clean reST docs flagged: {sum(1 for i in rest if kinds(i))}/{len(rest)}",
          dict(Counter(r for i in rest for r, _ in reasons.get(i, []))))

    def show(i: int) -> str:
        t = truth[ids[i]]
        snippet = (texts[i].as_py() or "")[:160].replace("\n", "\\n")
        return f"    {ids[i]} {t['labels']} {t.get('junk_source', t.get('kind', ''))}: {snippet!r}"

    by_reason: dict[str, list[int]] = defaultdict(list)
    for i in false_pos:
        for r, _ in reasons[i]:
            by_reason[r].append(i)
    for r, rows in sorted(by_reason.items()):
        print(f"false positives {r} ({len(rows)}), worst first:")
        found = [(next(d for rr, d in reasons[i] if rr == r), i) for i in rows]
        for details, i in sorted(found, key=lambda x: -severity(x[0]))[: a.worst]:
            print(show(i), json.dumps(details))
    for name, rows, hit in (("junk", junk, junk_hit), ("degenerate", degenerate, degenerate_hit)):
        missed = sorted(set(rows) - set(hit))
        if missed:
            print(f"missed {name} ({len(missed)}):")
            for i in missed[: a.worst * 4]:
                print(show(i), [r for r, _ in reasons.get(i, [])])


if __name__ == "__main__":
    main()
