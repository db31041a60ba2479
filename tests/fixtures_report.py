"""A run folder in the shape of CONTRACT.md's outputs with hostile strings in every data field: for
the report and notebook tests."""
from __future__ import annotations

import gzip
import json
from collections import Counter
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from audit.config import LanguagesConfig
from audit.drift import compare_mix, compare_shards
from tests.fixtures_datasets import length_summary
from audit.records import LINEAGE_SCHEMA, text_sha256

# Each payload would set window.__pwned (or fetch something) if it ever reached the page unescaped.
EVIL_SHARD = "<script>window.__pwned='shard';alert(1)</script>.jsonl"
EVIL_ATTR_SHARD = "data/\"><img src=x onerror=\"window.__pwned='attr'\">'&amp;.jsonl"
EVIL_STYLE = "</style><script>window.__pwned='style'</script>"
EVIL_LANG = "\"><svg onload=\"window.__pwned='lang'\">"
EVIL_EVAL = "<img src=x onerror=\"window.__pwned='eval'\">"
EVIL_ERROR = "bad JSON near </code></td><script>window.__pwned='error'</script>"
EVIL_DOC = "d<b>x</b>\"'"
EVIL_TEXT = "<script>window.__pwned='text'</script><img src=x onerror=\"window.__pwned='text2'\">"
EVIL_URL_PART = "<script>window.__pwned='url'</script>"
EVIL_ITEM = "Eval item </blockquote><script>window.__pwned='item'</script> text"
SHARDS = [EVIL_SHARD, EVIL_ATTR_SHARD, "plain-00001.jsonl.gz"]
# Where each shard's file is (run.json maps the hostile names to plain file names).
SHARD_FILES = ["s0.jsonl", "s1.jsonl", "s2.jsonl.gz"]


def record_text(n: int) -> str:
    """Record n's text: hostile markup inside ordinary words."""
    return f"Record {n} begins here and talks about gardens. {EVIL_TEXT} The record ends after this sentence."


def _write_dataset(folder: Path, table: pa.Table) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    pq.write_table(table, folder / "part-00000.parquet")


def build_run(root: Path, *, documents_per_shard: int = 30, expected: dict[str, float] | None = None) -> tuple[Path, dict]:
    """A run folder in the shape of CONTRACT.md's outputs, with hostile strings in every data field.

    Returns (run folder, summary dict); summary.json is written too. `length` and `drift` come
    from the real audit.lengths and audit.drift functions so their shapes stay true.
    """
    run = root / "run"
    run.mkdir(parents=True)
    rows: list[dict[str, Any]] = []
    details: list[str | None] = []
    reason_cycle = [
        [], [], ["length"], ["junk:base64"], ["pii:CREDIT_CARD", "pii:US_SSN"], [f"contamination:{EVIL_EVAL}"],
        [f"language:{EVIL_STYLE}"], ["exact_duplicate"], [], ["junk:base64", "length"],
    ]
    langs = ["en", "en", "en", "de", "zh", "en", EVIL_LANG, "en", "de", "en"]
    n = 0
    (root / "shards").mkdir(parents=True, exist_ok=True)
    for s, shard in enumerate(SHARDS):
        lines = [json.dumps({"id": f"src-{n + r}", "text": record_text(n + r),
                             "url": f"https://example.org/{n + r}?q={EVIL_URL_PART}"}) + "\n"
                 for r in range(documents_per_shard)]
        data = "".join(lines).encode("utf-8")
        (root / "shards" / SHARD_FILES[s]).write_bytes(gzip.compress(data, mtime=0) if s == 2 else data)
        offsets = [sum(len(x.encode("utf-8")) for x in lines[:r]) for r in range(documents_per_shard)]
        for r in range(documents_per_shard):
            reasons = reason_cycle[(n + s) % len(reason_cycle)]
            doc_id = EVIL_DOC if n == 4 else f"d{n:016x}"
            chars = 40 + (n * 7919) % 9000 if n % 11 else 120_000
            rows.append({"doc_id": doc_id, "source_id": f"src-{n}", "shard": shard, "record": r,
                         "byte_offset": offsets[r] if s != 2 else None, "sha256": text_sha256(record_text(n)),
                         "url": f"https://example.org/{n}?q={EVIL_URL_PART}", "chars": chars,
                         "language": langs[n % len(langs)], "language_score": 0.9,
                         "verdict": "quarantined" if reasons else "kept", "reasons": reasons})
            details.append(json.dumps({reason: {"measured": EVIL_STYLE, "kept_doc_id": "</td></tr></table>"}
                                       for reason in reasons}) if reasons else None)
            n += 1
    lineage = pa.Table.from_pylist(rows, schema=LINEAGE_SCHEMA)
    _write_dataset(run / "lineage", lineage)
    mask = pa.array([bool(r["reasons"]) for r in rows])
    quarantine = lineage.filter(mask).append_column(
        "details", pa.array([d for d, r in zip(details, rows) if r["reasons"]], pa.string()))
    _write_dataset(run / "quarantine", quarantine)
    q_rows = [r for r in rows if r["reasons"]]
    contaminated = [r for r in q_rows if r["reasons"][0].startswith("contamination")]
    _write_dataset(run / "contamination", pa.Table.from_pylist([
        {"doc_id": r["doc_id"], "source_id": r["source_id"], "shard": r["shard"], "record": r["record"],
         "eval_set": EVIL_EVAL, "eval_id": str(i), "overlap": 0.9, "spans": [[0, 40]], "method": "exact_ngram",
         "unit": "question", "item_spans": [[0, len(EVIL_ITEM)]]}
        for i, r in enumerate(contaminated)]))
    dups = [r for r in q_rows if "exact_duplicate" in r["reasons"]]
    _write_dataset(run / "duplicates", pa.Table.from_pylist([
        {"doc_id": r["doc_id"], "source_id": r["source_id"], "kind": "exact", "cluster_id": f"c{i % 3}",
         "kept_doc_id": "d0000000000000000"} for i, r in enumerate(dups)]))
    pii_rows = [r for r in q_rows if r["reasons"][0].startswith("pii")]
    _write_dataset(run / "pii", pa.Table.from_pylist([
        {"doc_id": r["doc_id"], "source_id": r["source_id"], "entity_type": t, "start": 3, "end": 19, "score": 0.95}
        for r in pii_rows for t in ("CREDIT_CARD", "US_SSN", EVIL_LANG)]))
    unreadable = [{"shard": EVIL_SHARD, "line": 7 + i, "record": 6 + i, "byte_offset": 1000 + i, "error": EVIL_ERROR}
                  for i in range(3)] + [{"shard": EVIL_ATTR_SHARD, "line": None, "byte_offset": None,
                                         "error": "zstd: corrupt frame <b>"}]
    (root / "evals").mkdir(exist_ok=True)
    (root / "evals" / "e.jsonl").write_text("".join(json.dumps({"id": str(i), "question": f"{EVIL_ITEM} {i}",
                                                                "answer": f"Answer {i}"}) + "\n"
                                                    for i in range(len(contaminated))), encoding="utf-8")
    (run / "run.json").write_text(json.dumps({
        "base_dir": str(root), "config": {
            "input": {"paths": ["shards/"], "id_field": "id", "url_field": "url"},
            "eval_sets": [{"name": EVIL_EVAL, "path": "evals/e.jsonl", "text_fields": ["question", "answer"],
                           "units": ["question"], "id_field": "id"}]},
        "shards": [{"shard": name, "location": str(root / "shards" / f), "index": i}
                   for i, (name, f) in enumerate(zip(SHARDS, SHARD_FILES))]}), encoding="utf-8")
    (run / "unreadable.jsonl").write_text("".join(json.dumps(u) + "\n" for u in unreadable), encoding="utf-8")

    cfg = LanguagesConfig(expected=expected)
    lang_counts = Counter(r["language"] for r in rows)
    by_shard: dict[str, Counter] = {}
    for r in rows:
        by_shard.setdefault(r["shard"], Counter())[r["language"]] += 1
    drift = compare_mix(dict(lang_counts), expected, cfg)
    drift["shards"] = compare_shards({k: dict(v) for k, v in by_shard.items()}, cfg)
    reasons = Counter(x for r in rows for x in r["reasons"])
    kinds = Counter()
    for x, c in reasons.items():
        kinds[x.split(":", 1)[0]] += c
    docs = len(rows)
    quarantined = len(q_rows)
    summary = {
        "version": "0.1.0", "started": "2026-01-01T00:00:00+00:00", "finished": "2026-01-01T00:01:00+00:00",
        "documents": docs, "kept": docs - quarantined, "quarantined": quarantined, "unreadable": len(unreadable),
        "bytes": sum(r["chars"] for r in rows), "shards": len(SHARDS), "seconds": 12.5, "mb_per_s": 0.4,
        "scan_seconds": 10.0, "ray_start_seconds": 2.0,
        "reasons": dict(reasons.most_common()), "reason_kinds": dict(kinds.most_common()),
        "languages": dict(lang_counts.most_common()),
        "length": length_summary([r["chars"] for r in rows], [r["chars"] // 6 for r in rows],
                                 tokens=[r["chars"] // 4 for r in rows], sources=[r["shard"] for r in rows]),
        "drift": drift,
        "duplicates": {"exact": len(dups), "near": 0, "rate": round(len(dups) / docs, 6),
                       "cluster_sizes": {"2": 1, "3": 1, "11": 1}},
        "contamination": {"eval_sets": {EVIL_EVAL: {"records": len(contaminated), "items_matched": 4},
                                        "gsm8k": {"records": 1, "items_matched": 1}},
                          "records": len(contaminated)},
        "pii": {"records": len(pii_rows), "by_type": {"CREDIT_CARD": len(pii_rows), "US_SSN": len(pii_rows),
                                                      EVIL_LANG: 1}},
        "stages": {"pii": 4.5, "language": 2.25, f"stage{EVIL_STYLE}": 0.5, "read": 1.0},
        "examples": {k: [r["doc_id"] for r in q_rows if any(x.split(":")[0] == k for x in r["reasons"])][:5]
                     for k in kinds},
    }
    (run / "summary.json").write_text(json.dumps(summary, indent=2), encoding="utf-8")
    return run, summary
