"""Quality of contamination and near-duplicate detection on a make_corpus.py corpus, in-process.

    python ../shared/tools/make_corpus.py --data ../shared/data --out /tmp/h3corpus --docs 12000 --shards 8
    python bench/eval_dedup_contamination.py --corpus /tmp/h3corpus [--json]

No Ray: the stages run over the corpus records in batches, the clusters in one process by the job's
one-partition steps (audit.dedup.steps.one_partition: exact duplicates step aside, so a copy is
counted found when it is reported as either kind).
Counts the way ../shared/tools/score_audit.py does:
- contamination item recall per (eval_set, variant): the planted (eval_set, eval_id) is among
  the record's matches at or over the threshold;
- contamination false docs: records not planted with contamination (nor a duplicate of one)
  with any match, as a share of clean records;
- near-duplicate recall: a truth group of k members (an original and its copies) needs k-1 of
  them reported; near-duplicate false positives: clean records outside any group reported.
Also the same measures for edited leaks (words reversed/dropped/repeated, make_corpus's
mutate) planted here into clean records, to show what the fuzzy tier (alignment) adds.
"""
from __future__ import annotations

import argparse
import gzip
import json
import random
import sys
import time
from collections import defaultdict
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from audit.config import AuditConfig, parse_config  # noqa: E402
from audit.demo_corpus import mutate  # noqa: E402
from audit.stages.contamination import ContaminationStage  # noqa: E402
from audit.dedup import steps  # noqa: E402
from audit.normalize import with_tokens  # noqa: E402
from audit.stages.exact_dup import ExactDupStage  # noqa: E402
from audit.stages.near_dup import NearDupStage  # noqa: E402

BATCH = 512


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


def dedup_keys(records: list[dict], config: AuditConfig) -> pa.Table:
    """The dedup measurement columns of the records, as the job's scan writes them (both
    stages over the block's shared words), in batches of BATCH."""
    shards = {name: i for i, name in enumerate(sorted({r["shard"] for r in records}))}
    exact, near = ExactDupStage(config), NearDupStage(config)
    out = []
    for a in range(0, len(records), BATCH):
        rows = records[a:a + BATCH]
        block = near(exact(with_tokens(pa.table({"text": pa.array([r["text"] for r in rows], pa.string())}))))
        out.append(pa.table({"doc_id": pa.array([r["id"] for r in rows], pa.string()),
                             "source_id": pa.nulls(len(rows), pa.string()),
                             "shard": pa.array([r["shard"] for r in rows], pa.string()),
                             "shard_index": pa.array([shards[r["shard"]] for r in rows], pa.int32()),
                             "record": pa.array([r["record"] for r in rows], pa.int64()),
                             "exact_key": block.column("exact_key"), "minhash_bands": block.column("minhash_bands")}))
    return pa.concat_tables(out)


def read_truth(corpus: Path) -> dict[str, dict]:
    """truth.jsonl by document id."""
    with open(corpus / "truth.jsonl", encoding="utf-8") as f:
        return {t["id"]: t for t in map(json.loads, f)}


def corpus_config(corpus: Path) -> AuditConfig:
    """An audit config over the corpus with every eval set it wrote ({"id", "text"} items)."""
    evals = [{"name": p.stem, "path": str(p), "text_fields": ["text"], "id_field": "id"}
             for p in sorted((corpus / "evals").glob("*.jsonl"))]
    return parse_config({"input": {"paths": [str(corpus / "shards")]}, "eval_sets": evals}, base_dir=corpus)


def truth_groups(truth: dict[str, dict]) -> list[list[str]]:
    """Duplicate groups of truth.jsonl: an original with its (exact or near) copies."""
    parent: dict[str, str] = {}

    def root(x: str) -> str:
        while parent.get(x, x) != x:
            x = parent[x]
        return x

    for i, t in truth.items():
        if "of" in t and ("exact_duplicate" in t["labels"] or "near_duplicate" in t["labels"]):
            parent[root(i)] = root(t["of"])
    groups: dict[str, list[str]] = defaultdict(list)
    for i in parent:
        groups[root(i)].append(i)
    for r in list(groups):
        groups[r].append(r)
    return list(groups.values())


def run_contamination(stage: ContaminationStage, texts: list[str]) -> tuple[list, float]:
    """The stage's column over every text, and the CPU seconds it took."""
    t0 = time.process_time()
    out = []
    for a in range(0, len(texts), BATCH):
        out += stage(pa.table({"text": pa.array(texts[a:a + BATCH], pa.string())})).column("contamination").to_pylist()
    return out, time.process_time() - t0


def evaluate(corpus: Path) -> dict:
    records = read_records(corpus)
    truth = read_truth(corpus)
    config = corpus_config(corpus)
    texts = [r["text"] for r in records]
    ids = [r["id"] for r in records]
    mb = sum(len(t.encode("utf-8", "surrogatepass")) for t in texts) / 1e6
    m: dict = {"records": len(records), "mb": round(mb, 2)}

    t0 = time.perf_counter()
    stage = ContaminationStage(config).ready()  # the index is built by setup
    m["contamination.index_seconds"] = round(time.perf_counter() - t0, 2)
    m["contamination.index"] = dict(stage.index.items_per_set) if stage.index else {}
    matches, dt = run_contamination(stage, texts)
    m["contamination.mb_per_s_cpu"] = round(mb / dt, 1)
    found = {i: {(x["eval_set"], x["eval_id"]) for x in (ms or [])} for i, ms in zip(ids, matches)}
    by: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    method: dict[str, int] = defaultdict(int)
    for i, t in truth.items():
        if "contamination" in t["labels"]:
            k = f"{t['eval_set']}/{t['variant']}"
            by[k][1] += 1
            by[k][0] += (t["eval_set"], t["eval_id"]) in found.get(i, set())
    for ms in matches:
        for x in ms or []:
            method[x["method"]] += 1
    m["contamination.item_recall"] = {k: round(h / n, 4) for k, (h, n) in sorted(by.items())}
    m["contamination.matches_by_method"] = dict(method)
    clean = [i for i, t in truth.items() if t["labels"][0] == "clean"]
    false_docs = [i for i in found if found[i] and "contamination" not in truth[i]["labels"]
                  and "exact_duplicate" not in truth[i]["labels"] and "near_duplicate" not in truth[i]["labels"]]
    m["contamination.false_docs"] = len(false_docs)
    m["contamination.false_share_of_clean"] = round(len(false_docs) / max(1, len(clean)), 5)
    m["contamination.false_examples"] = [(i, matches[ids.index(i)][0]["eval_id"], matches[ids.index(i)][0]["overlap"],
                                          matches[ids.index(i)][0]["method"]) for i in false_docs[:5]]

    # Edited leaks, planted here: found by any method, and with exact n-grams as the best row (one
    # row per record and item: the method covering most of it).
    rng = random.Random(7)
    evals = {name: [json.loads(line) for line in open(corpus / "evals" / f"{name}.jsonl", encoding="utf-8")]
             for name in m["contamination.index"]}
    hosts = [texts[ids.index(i)] for i in clean[:2000] if "language:en" in truth[i]["labels"]][:400]
    for rate in (0.05, 0.1, 0.15, 0.2):
        planted, want = [], []
        for h in hosts:
            name = rng.choice(sorted(evals))
            item = rng.choice(evals[name])
            paras = h.split("\n\n")
            k = rng.randint(0, len(paras))
            planted.append("\n\n".join(paras[:k] + [mutate(item["text"], rate, rng)] + paras[k:]))
            want.append((name, item["id"]))
        got, _ = run_contamination(stage, planted)
        hit_any = sum(w in {(x["eval_set"], x["eval_id"]) for x in g} for w, g in zip(want, got))
        hit_ngram = sum(w in {(x["eval_set"], x["eval_id"]) for x in g if x["method"] == "exact_ngram"}
                        for w, g in zip(want, got))
        m[f"contamination.edited_{int(rate * 100)}pct_recall"] = {"exact_ngram_best": round(hit_ngram / len(want), 3),
                                                                  "any_method": round(hit_any / len(want), 3)}

    # Near duplicates.
    t0 = time.process_time()
    keys = dedup_keys(records, config)
    m["dedup.signature_and_key_mb_per_s_cpu"] = round(mb / (time.process_time() - t0), 1)
    t0 = time.perf_counter()
    exact, near = steps.one_partition(keys, config)
    m["near_dup.cluster_seconds"] = round(time.perf_counter() - t0, 3)
    dups = pa.concat_tables([exact, near.select(exact.column_names)])
    flagged = set(dups.column("doc_id").to_pylist())
    groups = truth_groups(truth)
    need = got = 0
    for members in groups:
        copies = [i for i in members if "near_duplicate" in truth[i]["labels"]]
        if copies:
            need += len(copies)
            got += min(len(copies), sum(1 for i in members if i in flagged))
    m["near_dup.recall"] = round(got / max(1, need), 4)
    in_group = {i for members in groups for i in members}
    prose_clean = [i for i in clean if "markup" not in truth[i]["labels"]]
    fp = [i for i in prose_clean if i in flagged and i not in in_group]
    m["near_dup.false_clean"] = len(fp)
    m["near_dup.false_share_of_clean"] = round(len(fp) / max(1, len(prose_clean)), 5)
    m["near_dup.reported"] = len(flagged)
    m["near_dup.bytes_per_record"] = keys.column("minhash_bands").type.byte_width
    return m


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--corpus", type=Path, default=Path("/tmp/h3corpus"))
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args()
    m = evaluate(a.corpus)
    if a.json:
        print(json.dumps(m))
        return
    for k, v in m.items():
        print(f"{k}: {v}")


if __name__ == "__main__":
    main()
