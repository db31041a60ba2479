"""A run folder made without Ray from shards, and a small corpus: for tests and the benchmark.

`make_run_folder` runs the job's own code in one process: its reader, its Tagger (filters and
passage fingerprints; no models), its Decider and the decide pass's lineage table, so lineage/ is
what the pipeline writes; then run.json and index/ as the job builds them.
"""
from __future__ import annotations

import gzip
import json
import random
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

import orjson
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
import zstandard

from audit import __version__
from audit.config import AuditConfig, InputConfig
from audit.decide import Decider
from audit.io.atomic import write_json_atomic
from audit.io.shards import discover_shards, read_shard
from audit.job.decide_pass import lineage_table
from audit.lookup_index import build_lookup_indexes
from audit.records import LINEAGE_SCHEMA
from audit.tagger import Tagger, stage_classes
from tests.fixtures_datasets import DatasetWriter

def make_run_folder(out: Path, paths: list[str], base_dir: Path, input_cfg: dict | None = None,
                    index: bool = True) -> Path:
    """Write lineage/ and measurements/ (their passages indexed into index/ when `index`) and run.json
    for the shards `paths`."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    cfg = InputConfig(paths=paths, **(input_cfg or {}))
    job = AuditConfig(input=cfg, languages={"identify": False}, dedup={"exact": False, "near": False},
                      pii={"enabled": False}, lookup={"passages": True})
    shards, _ = discover_shards(cfg.paths, base_dir)
    tagger, decider = Tagger(job), Decider(job, stage_classes(job))
    lineage = DatasetWriter(out / "lineage", LINEAGE_SCHEMA)
    (out / "measurements").mkdir(exist_ok=True)
    parts = []
    for shard in shards:
        measured = pa.concat_tables([tagger(block) for block in read_shard(shard, cfg)], promote_options="permissive")
        measured = measured.filter(pc.is_valid(measured.column("record")))  # whole-file faults: no record
        if measured.num_rows == 0:
            continue
        parts.append(out / "measurements" / f"part-{shard.index:06d}.parquet")
        pq.write_table(measured, parts[-1])
        lineage.write(lineage_table(decider(measured)).select(LINEAGE_SCHEMA.names))
    lineage.close()
    config = {"input": json.loads(cfg.model_dump_json())}
    write_json_atomic(out / "run.json", {
        "version": __version__, "started": datetime.now(timezone.utc).isoformat(),
        "base_dir": str(Path(base_dir).resolve()), "config": config,
        "shards": [{"shard": s.path, "location": str(Path(s.location).resolve()), "index": s.index,
                    "size": Path(s.location).stat().st_size, "part": f"part-{s.index:06d}.parquet"}
                   for s in shards]})
    if index:
        build_lookup_indexes(out, parts)
    return out


@dataclass
class Corpus:
    """A small corpus of four shards (plain, gzip and zstd JSON lines, Parquet) with known copies.

    `records[(shard, record)]` is the record as written (None for the unreadable line); the
    shared document sits in shards/a.jsonl and shards/b.jsonl.gz under one URL, and its text
    once more in shards/c.parquet under another URL.
    """

    root: Path
    records: dict[tuple[str, int], dict | None]
    shared_url: str
    shared_text: str
    long_key: tuple[str, int]           # a record of 300+ words, for passages

    def text(self, shard: str, record: int) -> str:
        rec = self.records[(shard, record)]
        assert rec is not None
        return rec["text"]


def _sentence(rng: random.Random, vocab: list[str]) -> str:
    words = [rng.choice(vocab) for _ in range(rng.randint(8, 16))]
    return " ".join(words).capitalize() + rng.choice([".", ".", "!", "?"])


def _document(rng: random.Random, vocab: list[str], sentences: int) -> str:
    return " ".join(_sentence(rng, vocab) for _ in range(sentences))


def write_corpus(root: Path, seed: int = 7) -> Corpus:
    """Write the shards of a Corpus under `root/shards/`."""
    rng = random.Random(seed)
    syllables = ["ka", "lo", "mi", "ne", "ru", "sa", "te", "vo", "zi", "pa", "do", "fe", "gu", "hi", "ja", "bo"]
    vocab = sorted({"".join(rng.choice(syllables) for _ in range(rng.randint(1, 4))) for _ in range(4000)})
    shards = root / "shards"
    shards.mkdir(parents=True, exist_ok=True)
    records: dict[tuple[str, int], dict | None] = {}
    shared_url = "https://news.example.org/2026/story-of-the-year"
    shared_text = _document(rng, vocab, 12)

    def doc(prefix: str, i: int, sentences: int | None = None) -> dict:
        return {"id": f"{prefix}-{i}", "url": f"https://{prefix}.example.com/page/{i}",
                "text": _document(rng, vocab, sentences or rng.randint(2, 12))}

    a = [doc("a", i) for i in range(40)]
    a[17] = doc("a", 17, sentences=40)  # the long record
    a.append({"id": "shared-a", "url": shared_url, "text": shared_text})
    lines = [orjson.dumps(r) for r in a[:20]] + [b"", b"{not json"] + [orjson.dumps(r) for r in a[20:]]
    (shards / "a.jsonl").write_bytes(b"\n".join(lines) + b"\n")
    recs_a: list[dict | None] = a[:20] + [None] + a[20:]
    for i, r in enumerate(recs_a):
        records[("shards/a.jsonl", i)] = r

    b = [doc("b", i) for i in range(30)]
    b.insert(12, {"id": "shared-b", "url": shared_url, "text": shared_text})
    with gzip.open(shards / "b.jsonl.gz", "wb") as f:
        f.write(b"".join(orjson.dumps(r) + b"\n" for r in b))
    for i, r in enumerate(b):
        records[("shards/b.jsonl.gz", i)] = r

    c = [doc("c", i) for i in range(25)]
    c[9] = {"id": "copy-c", "url": "https://mirror.example.net/copied", "text": shared_text}
    pq.write_table(pa.table({"id": [r["id"] for r in c], "url": [r["url"] for r in c],
                             "text": [r["text"] for r in c]}), shards / "c.parquet", row_group_size=7)
    for i, r in enumerate(c):
        records[("shards/c.parquet", i)] = r

    d = [doc("d", i) for i in range(20)]
    (shards / "d.jsonl.zst").write_bytes(zstandard.ZstdCompressor().compress(
        b"".join(orjson.dumps(r) + b"\n" for r in d)))
    for i, r in enumerate(d):
        records[("shards/d.jsonl.zst", i)] = r
    return Corpus(root, records, shared_url, shared_text, ("shards/a.jsonl", 17))


def files_holding(root: Path, needle: str) -> list[str]:
    """Files under `root` whose content holds `needle`: Parquet decoded (its pages are compressed)."""
    hits = []
    for f in sorted(p for p in root.rglob("*") if p.is_file()):
        if f.suffix == ".parquet":
            t = pq.read_table(f)
            if any(pa.types.is_string(c.type) and any(v and needle in v for v in c.to_pylist()) for c in t.columns):
                hits.append(str(f.relative_to(root)))
        elif needle.encode() in f.read_bytes():
            hits.append(str(f.relative_to(root)))
    return hits
