"""A small corpus of four shards in every format with known copies, and helpers to search it.

Shared by the lookup, ledger, takedown and object-storage tests (the run over it is made by the
real job: see tests/fixtures_runs.py).
"""
from __future__ import annotations

import gzip
import random
from dataclasses import dataclass
from pathlib import Path

import orjson
import pyarrow as pa
import pyarrow.parquet as pq
import zstandard


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


def middle_passage(text: str, words: int, seed: int = 0) -> str:
    """`words` words from the middle of `text`, upper-cased, re-broken over lines with odd spacing."""
    w = text.split()
    start = len(w) // 2 - words // 2
    rng = random.Random(seed)
    out = []
    for i, word in enumerate(w[start:start + words]):
        out.append(word.upper() if i % 2 == 0 else word.swapcase())
        out.append(rng.choice([" ", "\n", "  \n\t", " \r\n "]))
    return "".join(out)
