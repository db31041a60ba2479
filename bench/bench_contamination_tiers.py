"""Each contamination tier's cost: its seconds in the contamination stage (one process, one core;
ContaminationIndex.tier_seconds) and the MB/s it alone would run at, on two corpora:

- `labelled`: bench_job.py's corpus (make_corpus.py: English web-like text with planted problems,
  GSM8K and HumanEval eval sets, the corpus sample as a job takes it);
- `wild` (with --data): the wild bench's clean real text (news, forum lines, books, Python docs,
  75 languages, fortunes, Chinese) against its GSM8K, HumanEval and multiple-choice sets.

As in a job the language stage runs first (not timed: its column says which records the
cross-language tiers read). `other` is the stage's time outside the tiers (tokenising, the
columns it writes). The index's build seconds (the driver's, once per run) are printed apart.

    python bench/bench_contamination_tiers.py [--docs 12000 --shards 8] [--data ../shared/data]
        [--clean 3000 --clean-zh 700] [--json]
"""
from __future__ import annotations

import argparse
import json
import random
import sys
import time
from pathlib import Path

import pyarrow as pa

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_job import build_corpus, write_config  # noqa: E402
from eval_contamination_wild import _clean_docs, eval_config  # noqa: E402

from audit.config import AuditConfig, load_config  # noqa: E402
from audit.io.shards import discover_shards, read_shard  # noqa: E402
from audit.job.plan import _shared_state  # noqa: E402
from audit.stages.contamination import ContaminationIndex, ContaminationStage  # noqa: E402
from audit.stages.language import LanguageStage  # noqa: E402

BATCH = 1000


def measure(config: AuditConfig, index: ContaminationIndex, blocks: list[pa.Table], build_s: float) -> dict:
    """The stage over `blocks` (each a table with a text column): its seconds, each tier's, MB/s."""
    stage = ContaminationStage(config, index)
    language = LanguageStage(config).ready() if config.languages.identify else None
    seconds = 0.0
    for block in blocks:
        block = language(block) if language is not None else block
        t0 = time.perf_counter()
        stage(block)
        seconds += time.perf_counter() - t0
    mb = sum(len(t.encode()) for b in blocks for t in b.column("text").to_pylist() if t) / 1e6
    tiers = dict(sorted(index.tier_seconds.items(), key=lambda kv: -kv[1]))
    tiers["other"] = max(0.0, seconds - sum(tiers.values()))
    return {"mb": round(mb, 2), "records": sum(b.num_rows for b in blocks), "index_build_s": round(build_s, 2),
            "stage_s": round(seconds, 2), "stage_mb_s": round(mb / seconds, 2),
            "tiers": {k: {"s": round(v, 2), "mb_s": round(mb / v, 1) if v > 0 else None,
                          "share": round(v / seconds, 3)} for k, v in tiers.items()}}


def labelled(docs: int, shards: int) -> dict:
    """The tiers on bench_job.py's labelled corpus, its index built as a job builds it."""
    corpus = build_corpus(docs, shards)
    config = load_config(write_config(corpus, "full", "local"))
    found, _ = discover_shards(config.input.paths, config.base_dir)
    t0 = time.perf_counter()
    index = _shared_state(config, found)["contamination"]["index"]
    build_s = time.perf_counter() - t0
    blocks = [b.select(["text"]) for s in found for b in read_shard(s, config.input)]
    return measure(config, index, blocks, build_s)


def wild(data: Path, clean: int, clean_zh: int) -> dict:
    """The tiers on the wild bench's clean real text."""
    config, _, _ = eval_config(data, [])
    texts = [t for _, t in _clean_docs(data, clean, random.Random(20), clean_zh)]
    c = config.contamination
    t0 = time.perf_counter()
    index = ContaminationIndex.build(config, texts[:c.corpus_df_sample] if c.corpus_df else None)
    build_s = time.perf_counter() - t0
    blocks = [pa.table({"text": pa.array(texts[a:a + BATCH], pa.string())}) for a in range(0, len(texts), BATCH)]
    return measure(config, index, blocks, build_s)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--docs", type=int, default=12000)
    ap.add_argument("--shards", type=int, default=8)
    ap.add_argument("--data", type=Path, help="../shared/data: also the wild bench's clean text")
    ap.add_argument("--clean", type=int, default=3000)
    ap.add_argument("--clean-zh", type=int, default=700)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    results = {"labelled": labelled(args.docs, args.shards)}
    if args.data:
        results["wild"] = wild(args.data, args.clean, args.clean_zh)
    if args.json:
        print(json.dumps(results, indent=1))
        return
    for name, r in results.items():
        print(f"== {name}: {r['records']} records, {r['mb']} MB; stage {r['stage_s']} s = {r['stage_mb_s']} MB/s "
              f"(one process); index built in {r['index_build_s']} s")
        for tier, t in r["tiers"].items():
            speed = f"{t['mb_s']:8.1f} MB/s" if t["mb_s"] else ""
            print(f"  {tier:22s} {t['s']:6.2f} s  {t['share']:6.1%}  {speed}")


if __name__ == "__main__":
    main()
