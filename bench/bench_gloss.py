"""Cost of the Chinese gloss tier (audit/stages/contamination_gloss.py) on Chinese text.

    python bench/bench_gloss.py --data ../shared/data [--mb 20] [--profile] [--dump FILE] [--job]

The corpus: Leipzig zh sentences (15 a document) and Chinese Debian fortunes (8 a document), the
bench's Chinese clean text (bench/eval_contamination_wild.py), repeated up to --mb MB; the eval
sets are that bench's (GSM8K test, HumanEval, its multiple-choice set). Prints, one process, in
batches of 256 records as the pipeline's blocks: the gloss tier's MB/s (GlossIndex.matches with
its Han count), the contamination stage's MB/s with the tier and without it, and the tier's share
of the stage. `--profile`: cProfile of the tier, top functions. `--dump FILE`: the tier's matches
(text, unit, coverage, span, stems, evidence) as JSON lines, to compare two trees. `--job`: the
whole job (`python -m audit run`, every default stage, a fresh process each) on that corpus
written as JSON lines, with the tier and without it: its seconds, the contamination stage's and
the tier's share of the job's stage seconds.
"""
from __future__ import annotations

import argparse
import cProfile
import json
import pstats
import subprocess
import sys
import time
from pathlib import Path

import pyarrow as pa

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from audit.stages.contamination import ContaminationIndex, ContaminationStage  # noqa: E402
from audit.stages.contamination_gloss import han_counts  # noqa: E402
from eval_contamination_wild import _sentences_by_lang, eval_config  # noqa: E402

BATCH = 256


def chinese_docs(data: Path, mb: float) -> list[str]:
    """The bench's Chinese clean documents, repeated up to `mb` MB."""
    zh = _sentences_by_lang(data)["zh"]
    docs = [" ".join(zh[k:k + 15]) for k in range(0, len(zh) - 15, 15)]
    with open(data / "multilingual/debian_fortunes_en_zh_ru_de_es.jsonl", encoding="utf-8") as f:
        fortunes = [r["text"] for r in map(json.loads, filter(str.strip, f)) if r["lang"] == "zh"]
    docs += ["\n\n".join(fortunes[k:k + 8]) for k in range(0, len(fortunes) - 8, 8)]
    out: list[str] = []
    size = 0
    while size < mb * 1e6:
        for t in docs:
            out.append(t)
            size += len(t.encode())
            if size >= mb * 1e6:
                break
    return out


def whole_job(data: Path, texts: list[str]) -> dict:
    """`audit run` on `texts` with the gloss tier and without it (the bench's eval sets): job and
    contamination seconds, the tier's share of the job's stage seconds (its stage's difference)."""
    config, _, _ = eval_config(data, [])
    tmp = config.base_dir  # the eval sets' folder
    (tmp / "shards").mkdir()
    with open(tmp / "shards/zh.jsonl", "w", encoding="utf-8") as f:
        f.writelines(json.dumps({"id": f"zh{k}", "text": t}) + "\n" for k, t in enumerate(texts))
    out: dict = {}
    for tier in (True, False):
        name = "with" if tier else "without"
        lines = ["input: {paths: [shards/], text_field: text, id_field: id}", f"output: run-{name}",
                 f"contamination: {{rewrite_gloss: {json.dumps(tier)}}}", "eval_sets:"]
        lines += [f"  - {{name: {e.name}, path: {json.dumps(str(e.path))}, text_fields: {json.dumps(list(e.text_fields))},"
                  f" id_field: {e.id_field}}}" for e in config.eval_sets]
        (tmp / f"{name}.yaml").write_text("\n".join(lines) + "\n")
        # from the corpus folder: `python -m` puts the working folder first on sys.path
        subprocess.run([sys.executable, "-m", "audit", "run", f"{name}.yaml", "--out", f"run-{name}", "--quiet", "--fresh"],
                       check=True, stdout=subprocess.DEVNULL, cwd=tmp)
        s = json.loads((tmp / f"run-{name}/summary.json").read_text())
        out[f"job_s_{name}"] = round(s["seconds"], 2)
        out[f"stage_seconds_{name}"] = round(sum(s["stages"].values()), 2)
        out[f"contamination_s_{name}"] = round(s["stages"]["contamination"], 2)
        if tier:
            out["stages_with"] = {k: round(v, 2) for k, v in s["stages"].items()}
    # the tier's cost: the job's difference (its index built from the corpus sample too), and its
    # stage's difference over the stages' seconds (the read, eval index, model loads not in them)
    out["tier_share_of_job"] = round(1 - out["job_s_without"] / out["job_s_with"], 3)
    out["tier_share_of_stage_seconds"] = round((out["contamination_s_with"] - out["contamination_s_without"])
                                               / out["stage_seconds_with"], 3)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, default=Path(__file__).resolve().parents[2] / "shared/data")
    ap.add_argument("--mb", type=float, default=5.0, help="MB of Chinese text")
    ap.add_argument("--profile", action="store_true")
    ap.add_argument("--dump", type=Path)
    ap.add_argument("--job", action="store_true", help="the whole job too, with the tier and without it")
    args = ap.parse_args()
    texts = chinese_docs(args.data, args.mb)
    mb = sum(len(t.encode()) for t in texts) / 1e6
    result = {"mb": round(mb, 2), "docs": len(texts)}
    for tier in (True, False):
        config, _, _ = eval_config(args.data, [f"rewrite_gloss={json.dumps(tier)}"])
        c = config.contamination
        t0 = time.perf_counter()
        index = ContaminationIndex.build(config, texts[:c.corpus_df_sample] if c.corpus_df else None)
        result[f"index_build_s_{'with' if tier else 'without'}"] = round(time.perf_counter() - t0, 1)
        stage = ContaminationStage(config, index)
        t0 = time.perf_counter()
        for a in range(0, len(texts), BATCH):
            stage(pa.table({"text": pa.array(texts[a:a + BATCH], pa.string())}))
        result[f"stage_s_{'with' if tier else 'without'}"] = round(time.perf_counter() - t0, 2)
        if not tier:
            continue
        gloss, floor = index.gloss, c.rewrite_floor
        assert gloss is not None
        batches = [texts[a:a + BATCH] for a in range(0, len(texts), BATCH)]
        profile = cProfile.Profile() if args.profile else None
        found = []
        t0 = time.perf_counter()
        if profile:
            profile.enable()
        for k, batch in enumerate(batches):
            found += [(k * BATCH + m[0], *m[1:]) for m in gloss.matches(batch, han_counts(batch), floor)]
        if profile:
            profile.disable()
        result["gloss_s"] = round(time.perf_counter() - t0, 2)
        result["gloss_matches"] = len(found)
        if profile:
            pstats.Stats(profile).sort_stats("cumulative").print_stats(25)
        if args.dump:
            with open(args.dump, "w", encoding="utf-8") as f:
                f.writelines(json.dumps(m) + "\n" for m in found)
    result["gloss_mb_s"] = round(mb / result["gloss_s"], 2)
    result["stage_mb_s_with"] = round(mb / result["stage_s_with"], 2)
    result["stage_mb_s_without"] = round(mb / result["stage_s_without"], 2)
    result["tier_share_of_stage"] = round(1 - result["stage_s_without"] / result["stage_s_with"], 3)
    if args.job:
        result |= whole_job(args.data, texts)
        result["gloss_s_share_of_job"] = round(result["gloss_s"] / result["job_s_with"], 3)
    print(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
