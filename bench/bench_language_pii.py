#!/usr/bin/env python3
"""Throughput of language ID, PII (with and without the prefilter) and length statistics.

    python bench/bench_language_pii.py [--corpus /tmp/h4corpus] [--no-prefilter-docs 300]

In-process, no Ray, over a make_corpus.py corpus (built when missing, see eval_language_pii.py).
Prints MB of UTF-8 text per second of wall time and per second of this process's CPU time; the
CPU figure is the per-core speed and does not suffer when other work shares the machine. PII
without the prefilter (Presidio on whole texts) is measured on a small random sample only.
"""
from __future__ import annotations

import argparse
import random
import sys
import tempfile
import time
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc

sys.path.insert(0, str(Path(__file__).resolve().parent))
from eval_language_pii import BATCH, ensure_corpus, load_corpus  # noqa: E402

from audit.config import parse_config  # noqa: E402
from audit.lengths import LengthStats, TokenCounter, length_report  # noqa: E402
from audit.stages.language import LanguageStage  # noqa: E402
from audit.stages.length import LengthStage  # noqa: E402
from audit.stages.pii import PiiStage  # noqa: E402


def megabytes(texts: pa.Array | pa.ChunkedArray) -> float:
    return pc.sum(pc.binary_length(texts)).as_py() / 1e6


def timed(label: str, mb: float, fn) -> None:
    """Run fn() and print its throughput."""
    wall, cpu = time.perf_counter(), time.process_time()
    fn()
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    print(f"{label:<44} {mb:7.1f} MB  {wall:6.2f} s  {mb / wall:7.1f} MB/s wall  {mb / cpu:7.1f} MB/s per core")


def in_batches(stage, table: pa.Table) -> None:
    for batch in table.to_batches(max_chunksize=BATCH):
        stage(pa.Table.from_batches([batch]))


def train_tokenizer(texts: list[str], path: Path) -> Path:
    """A small BPE tokenizer trained on the corpus itself (no download)."""
    from tokenizers import Tokenizer, models, pre_tokenizers, trainers

    tok = Tokenizer(models.BPE(unk_token="[UNK]"))
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.train_from_iterator(texts, trainers.BpeTrainer(vocab_size=8000, special_tokens=["[UNK]"]))
    tok.save(str(path))
    return path


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--corpus", type=Path, default=Path("/tmp/h4corpus"))
    ap.add_argument("--docs", type=int, default=12000)
    ap.add_argument("--shards", type=int, default=8)
    ap.add_argument("--no-prefilter-docs", type=int, default=300)
    a = ap.parse_args()
    table = load_corpus(ensure_corpus(a.corpus, a.docs, a.shards))
    texts = table.select(["text"])
    mb = megabytes(table.column("text"))
    config = parse_config({"input": {"paths": [str(a.corpus / "shards")]}})
    print(f"corpus: {table.num_rows} records, {mb:.1f} MB, batches of {BATCH}")

    language = LanguageStage(config).ready()  # models loaded outside the timing
    timed("language (fastText lid.176)", mb, lambda: in_batches(language, texts))

    pii = PiiStage(config, prefilter=True).ready()
    timed("pii with prefilter", mb, lambda: in_batches(pii, texts))
    pii_off = PiiStage(config, prefilter=False).ready()
    sample = texts.take(sorted(random.Random(0).sample(range(table.num_rows), a.no_prefilter_docs)))
    timed(f"pii without prefilter ({a.no_prefilter_docs} records)", megabytes(sample.column("text")),
          lambda: in_batches(pii_off, sample))
    timed(f"pii with prefilter (same {a.no_prefilter_docs} records)", megabytes(sample.column("text")),
          lambda: in_batches(pii, sample))

    column = table.column("text")
    chars = pc.utf8_length(column)
    words: list = []
    lengths = LengthStage(config).ready()
    timed("lengths: word counts (LengthStage)", mb,
          lambda: words.append(lengths(pa.table({"text": column.combine_chunks()})).column("length_words")))
    timed("lengths: LengthStats + length_report", mb,
          lambda: length_stats(chars, words[0]))
    with tempfile.TemporaryDirectory() as tmp:
        sample_texts = [t for t in column.to_pylist()[:2000] if t]
        counter = TokenCounter(train_tokenizer(sample_texts, Path(tmp) / "tokenizer.json"))
        tokens: list = []
        timed("lengths: TokenCounter (BPE 8k)", mb, lambda: tokens.append(counter.count(column)))
        timed("lengths: LengthStats + length_report with tokens", mb,
              lambda: length_stats(chars, words[0], tokens[0]))


def length_stats(*units: pa.Array) -> dict:
    """The summary's length statistics of whole columns (chars, words[, tokens]), as the job gathers them."""
    stats = LengthStats((2048, 4096, 8192, 32768))
    names = ("chars", "words", "tokens")
    stats.add({n: pc.cast(u, pa.float64()).to_numpy(zero_copy_only=False) for n, u in zip(names, units)})
    return length_report(stats, {})


if __name__ == "__main__":
    main()
