#!/usr/bin/env python3
"""Language ID accuracy per language, before (lid.176 alone) and after (with the second identifier).

    python bench/eval_language.py [--corpus /tmp/h4corpus] [--docs 12000] [--shards 8] [--seed 0]

In-process, no Ray, over a make_corpus.py corpus (built when missing; its multilingual text
covers 75 languages). Accuracy is counted the way ../shared/tools/score_audit.py counts it (clean
records with a two-letter truth code; nb/nn as no, bs/sr/sh as hr): per language, over all, and
over the languages lid.176 has a label for. Prints, for each setting, the stage's MB of UTF-8
text per CPU second of this process (the per-core figure) and the share of documents the second
identifier decided.
"""
from __future__ import annotations

import argparse
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(SHARED / "tools"))

from eval_language_pii import BATCH, load_corpus, read_truth  # noqa: E402
from score_audit import ISO3, LID176, SAME  # noqa: E402

from audit.config import parse_config  # noqa: E402
from audit.stages.language import LID176_NAME, LanguageStage  # noqa: E402


def ensure_corpus(corpus: Path, docs: int, shards: int, seed: int) -> Path:
    """The corpus folder, built with make_corpus.py when it is missing."""
    if not (corpus / "truth.jsonl").is_file():
        subprocess.run([sys.executable, str(SHARED / "tools" / "make_corpus.py"), "--data", str(SHARED / "data"),
                        "--out", str(corpus), "--docs", str(docs), "--shards", str(shards), "--seed", str(seed)],
                       check=True, stdout=subprocess.DEVNULL)
    return corpus


def run(stage: LanguageStage, table: pa.Table, repeats: int) -> tuple[pa.Table, float]:
    """The stage over the table in batches; (result, the least CPU seconds of `repeats` passes)."""
    best = float("inf")
    for _ in range(repeats):
        out = []
        t0 = time.process_time()
        for batch in table.to_batches(max_chunksize=BATCH):
            out.append(stage(pa.Table.from_batches([batch])))
        best = min(best, time.process_time() - t0)
    return pa.concat_tables(out), best


def accuracy(truth: dict[str, dict], ids: list[str], got: list[str | None]) -> dict[str, tuple[int, int]]:
    """{truth language: (right, documents)} over clean records with a two-letter truth code."""
    right: Counter[str] = Counter()
    total: Counter[str] = Counter()
    for i, g in zip(ids, got):
        t = truth[i]
        langs = [x.split(":", 1)[1] for x in t["labels"] if x.startswith("language:")]
        if t["labels"][0] != "clean" or not langs:
            continue
        want = ISO3.get(langs[0], langs[0])
        if len(want) != 2:
            continue
        g = g or ""
        total[want] += 1
        right[want] += SAME.get(g, g) == SAME.get(want, want)
    return {k: (right[k], total[k]) for k in sorted(total)}


def overall(per: dict[str, tuple[int, int]], supported_only: bool) -> float:
    keep = [v for k, v in per.items() if not supported_only or k in LID176 or k in SAME]
    return sum(r for r, _ in keep) / max(1, sum(n for _, n in keep))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--corpus", type=Path, default=Path("/tmp/h4corpus"))
    ap.add_argument("--docs", type=int, default=12000)
    ap.add_argument("--shards", type=int, default=8)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--repeats", type=int, default=2, help="timed passes per setting (the fastest counts)")
    a = ap.parse_args()
    corpus = ensure_corpus(a.corpus, a.docs, a.shards, a.seed)
    table = load_corpus(corpus)
    truth = read_truth(corpus)
    ids = table.column("id").to_pylist()
    texts = table.select(["text"])
    mb = pc.sum(pc.binary_length(table.column("text"))).as_py() / 1e6
    print(f"corpus: {table.num_rows} records, {mb:.1f} MB")
    results = {}
    for name, languages in (("before", {"second_identifier": "off"}), ("after", {})):
        config = parse_config({"input": {"paths": [str(corpus / "shards")]}, "languages": languages})
        out, secs = run(LanguageStage(config), texts, a.repeats)
        per = accuracy(truth, ids, out.column("language").to_pylist())
        models = Counter(out.column("language_model").to_pylist())
        second = sum(v for k, v in models.items() if k not in (None, LID176_NAME)) / max(1, table.num_rows)
        results[name] = per
        print(f"{name}: {secs:.2f} CPU s, {mb / secs:.1f} MB/s per core; accuracy {overall(per, False):.4f} over all, "
              f"{overall(per, True):.4f} over lid.176's languages; second identifier decided {second:.2%} "
              f"({dict(models)})")
    print(f"\n{'lang':<6}{'docs':>6}{'before':>9}{'after':>9}  lid.176 knows it")
    for lang, (right_after, n) in results["after"].items():
        right_before = results["before"][lang][0]
        print(f"{lang:<6}{n:>6}{right_before / n:>9.3f}{right_after / n:>9.3f}  "
              f"{'yes' if lang in LID176 or lang in SAME else 'no'}")


if __name__ == "__main__":
    main()
