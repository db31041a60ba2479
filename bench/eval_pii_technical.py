#!/usr/bin/env python3
"""False quarantine by PII on technical text, before and after pii.max_findings_types.

    python bench/eval_pii_technical.py [--limit N] [--json OUT]

Measures PiiStage once (prefilter on, as in a run) over real third-party text from
../shared/data, then judges the same measurements twice:

- before: `pii:many` counts every measured type (IP addresses included), as it did before
  pii.max_findings_types existed;
- after: the defaults (`pii:many` counts e-mail addresses, phone numbers, cards, IBANs, SSNs).

Sets: the Python 3.11 documentation (reST sources, and the HTML pages) and ABC news paragraphs
are technical or ordinary text a data team keeps, so every PII quarantine there is a false one;
Presidio's synthetic PII sentences are the control that personal data is still caught.
Prints one line per set and writes the figures as JSON with --json.
"""
from __future__ import annotations

import argparse
import gzip
import json
import sys
import time
from collections import Counter
from pathlib import Path

import pyarrow as pa

REPO = Path(__file__).resolve().parents[1]
DATA = REPO.parent / "shared" / "data"
sys.path.insert(0, str(REPO))

from audit.config import parse_config  # noqa: E402
from audit.decide import judge_all  # noqa: E402
from audit.stages.pii import SUPPORTED_ENTITIES, PiiStage  # noqa: E402

BATCH = 200


def _jsonl(path: Path, field: str, limit: int) -> list[str]:
    opener = gzip.open if path.suffix == ".gz" else open
    out = []
    with opener(path, "rt", encoding="utf-8") as f:
        for line in f:
            if len(out) >= limit:
                break
            out.append(json.loads(line)[field])
    return out


def sets(limit: int) -> dict[str, tuple[str, list[str]]]:
    """{name: (kind, texts)}; kind is "clean" (any quarantine is false) or "pii" (should be caught)."""
    synth = json.loads((DATA / "pii" / "presidio_synth_dataset_v2.json").read_text(encoding="utf-8"))
    return {
        "python_docs_rst": ("clean", _jsonl(DATA / "prose" / "python311_docs_rst.jsonl", "text", limit)),
        "python_docs_html": ("clean", _jsonl(DATA / "junk" / "html" / "python311_docs_html.jsonl.gz", "html", limit)),
        "abc_news": ("clean", _jsonl(DATA / "prose" / "nltk_abc_news_paragraphs.jsonl", "text", limit)),
        "presidio_synth_pii": ("pii", [r["full_text"] for r in synth[:limit]
                                       if any(s["entity_type"] in SUPPORTED_ENTITIES for s in r["spans"])]),
    }


def pii_reasons(measured: pa.Table, config) -> list[set[str]]:
    """Each row's pii reasons under `config` (judging builds no analyzer: the stage is not set up)."""
    table = measured.append_column("error", pa.nulls(measured.num_rows, pa.string()))
    return [{r for r in found if r.startswith("pii")} for found in judge_all([PiiStage(config)], table)]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--limit", type=int, default=1000, help="records per set at most")
    ap.add_argument("--json", type=Path, help="write the figures here")
    args = ap.parse_args()
    after = parse_config({"input": {"paths": ["x"]}})
    before = parse_config({"input": {"paths": ["x"]}, "pii": {"max_findings_types": list(after.pii.entities)}})
    stage = PiiStage(after)
    results = {}
    for name, (kind, texts) in sets(args.limit).items():
        t0 = time.perf_counter()
        parts = [stage(pa.table({"text": pa.array(texts[i:i + BATCH], pa.string())})).drop_columns(["text"])
                 for i in range(0, len(texts), BATCH)]
        measured = pa.concat_tables(parts)
        seconds = time.perf_counter() - t0
        old, new = pii_reasons(measured, before), pii_reasons(measured, after)
        flagged_old = sum(bool(r) for r in old)
        flagged_new = sum(bool(r) for r in new)
        types = Counter(f["entity_type"] for fs in measured.column("pii").to_pylist() for f in fs or []
                        if f["score"] >= after.pii.min_score)
        results[name] = {
            "kind": kind, "records": len(texts), "mb": round(sum(len(t.encode()) for t in texts) / 1e6, 2),
            "quarantined_before": flagged_old, "quarantined_after": flagged_new,
            "share_before": round(flagged_old / len(texts), 4), "share_after": round(flagged_new / len(texts), 4),
            "reasons_before": dict(Counter(r for rs in old for r in rs).most_common()),
            "reasons_after": dict(Counter(r for rs in new for r in rs).most_common()),
            "findings_by_type": dict(types.most_common()), "seconds": round(seconds, 1)}
        what = "false quarantine" if kind == "clean" else "caught"
        print(f"{name:<20} {len(texts):>5} records  {what}: before {flagged_old:>4} ({flagged_old / len(texts):.1%})"
              f"  after {flagged_new:>4} ({flagged_new / len(texts):.1%})   findings {dict(types.most_common(4))}",
              flush=True)
    if args.json:
        args.json.write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
