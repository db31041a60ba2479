"""Read a make_corpus.py corpus in-process (no Ray, no audit reader): records, truth, eval config.

Shared by bench/bench_dedup_contamination.py and bench/eval_dedup_contamination.py.
"""
from __future__ import annotations

import gzip
import json
from pathlib import Path

import pyarrow.parquet as pq

from audit.config import AuditConfig, parse_config


def read_records(corpus: Path) -> list[dict]:
    """Every record of corpus/shards in shard order: {"id", "text", "shard", "record"}."""
    out: list[dict] = []
    for shard in sorted((corpus / "shards").iterdir()):
        if shard.name.endswith(".parquet"):
            rows = pq.read_table(shard, columns=["id", "text"]).to_pylist()
        elif shard.name.endswith((".jsonl", ".jsonl.gz")):
            opener = gzip.open if shard.name.endswith(".gz") else open
            with opener(shard, "rt", encoding="utf-8") as f:
                rows = [json.loads(line) for line in f if line.strip()]
        else:
            continue
        out += [{"id": r["id"], "text": r["text"], "shard": shard.name, "record": i} for i, r in enumerate(rows)]
    return out


def read_truth(corpus: Path) -> dict[str, dict]:
    """truth.jsonl by document id."""
    with open(corpus / "truth.jsonl", encoding="utf-8") as f:
        return {t["id"]: t for t in map(json.loads, f)}


def corpus_config(corpus: Path) -> AuditConfig:
    """An audit config over the corpus with every eval set it wrote ({"id", "text"} items)."""
    evals = [{"name": p.stem, "path": str(p), "text_fields": ["text"], "id_field": "id"}
             for p in sorted((corpus / "evals").glob("*.jsonl"))]
    return parse_config({"input": {"paths": [str(corpus / "shards")]}, "eval_sets": evals}, base_dir=corpus)
