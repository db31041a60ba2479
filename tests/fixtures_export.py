"""Runs to export and re-judge, and readers of what `audit export` wrote.

`judged_run` audits a fixtures_corpus corpus in this process (small input: no Ray) with a length
rule strict enough that every shard has kept and quarantined records; `expected_records` says,
from the corpus as written and the run's lineage, which records an export of a verdict must hold.
"""
from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import orjson
import pyarrow.dataset as pads
import pyarrow.parquet as pq

from audit.config import parse_config
from audit.io.shards import iter_jsonl_lines
from audit.job.plan import run_audit
from tests.fixtures_corpus import Corpus, write_corpus
from tests.fixtures_runs import CORPUS_JOB

# Records of fewer words than this are quarantined (length:too_short): about half the corpus.
STRICT_WORDS = 100
SHARDS = ("shards/a.jsonl", "shards/b.jsonl.gz", "shards/c.parquet", "shards/d.jsonl.zst")


def judged_run(root: Path, name: str = "run", **settings: Any) -> tuple[Corpus, Path]:
    """A corpus under `root` and a finished run over it at `root/name` (in this process)."""
    corpus = write_corpus(root)
    data = {"input": {"paths": ["shards/"]}, "output": name, **CORPUS_JOB,
            "filters": {"length": {"min_words": STRICT_WORDS}}, **settings}
    run = Path(run_audit(parse_config(data, base_dir=root), out=root / name, progress=False).out)
    return corpus, run


def verdicts(run: Path) -> dict[tuple[str, int], tuple[str, list[str]]]:
    """(shard, record) -> (verdict, reasons) from the run's lineage/."""
    t = pads.dataset(run / "lineage", format="parquet").to_table(columns=["shard", "record", "verdict", "reasons"])
    return {(s, r): (v, rs) for s, r, v, rs in zip(*(t.column(c).to_pylist() for c in t.column_names))}


def expected_records(corpus: Corpus, run: Path, shard: str, verdict: str) -> list[dict[str, Any]]:
    """The readable records of `shard` with `verdict`, in order, as written (quarantined ones
    with their `audit_reasons`)."""
    got = verdicts(run)
    out = []
    for (s, i), rec in sorted(corpus.records.items(), key=lambda kv: kv[0][1]):
        if s != shard or rec is None or got[(s, i)][0] != verdict:
            continue
        out.append(rec if verdict == "kept" else {**rec, "audit_reasons": got[(s, i)][1]})
    return out


def raw_lines(path: Path) -> list[bytes]:
    """The lines of a JSON-lines file, plain, gzip or zstd (read as the job reads a shard)."""
    return [line for _, line in iter_jsonl_lines(str(path)) if line]


def exported(path: Path) -> list[dict[str, Any]]:
    """An exported file's records, JSON lines or Parquet."""
    if path.suffix == ".parquet":
        return pq.read_table(path).to_pylist()
    return [orjson.loads(line) for line in raw_lines(path)]


def tree_hashes(folder: Path) -> dict[str, str]:
    """SHA-256 of every file under `folder`, by relative path."""
    return {p.relative_to(folder).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file()}


def manifest(dest: Path) -> dict[str, Any]:
    return json.loads((dest / "manifest.json").read_text())
