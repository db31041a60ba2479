#!/usr/bin/env python3
"""Quality of language ID and PII on a labelled make_corpus.py corpus, in-process (no Ray).

    python bench/eval_language_pii.py [--corpus /tmp/h4corpus] [--docs 12000] [--shards 8]

Builds the corpus with ../shared/tools/make_corpus.py when the folder does not exist, runs
LanguageStage and PiiStage over every record, writes the `lineage/` and `pii/` datasets the way
the job does (only the columns the scorer reads) into a temporary run folder, and lets
../shared/tools/score_audit.py score them, so the figures are the scorer's own:
language accuracy (all, and languages lid.176 supports), PII recall per entity type, and the
share of clean records with any PII finding. PII recall is measured twice on the PII records:
with the prefilter (the default) and without it (Presidio on the whole text), and the
difference is what the prefilter costs.
"""
from __future__ import annotations

import argparse
import gzip
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"
sys.path.insert(0, str(REPO))

from audit.config import parse_config  # noqa: E402
from audit.stages.language import LanguageStage  # noqa: E402
from audit.stages.pii import PiiStage  # noqa: E402

BATCH = 500


def ensure_corpus(corpus: Path, docs: int, shards: int) -> Path:
    """The corpus folder, built with make_corpus.py when it is missing."""
    if not (corpus / "truth.jsonl").is_file():
        subprocess.run([sys.executable, str(SHARED / "tools" / "make_corpus.py"), "--data", str(SHARED / "data"),
                        "--out", str(corpus), "--docs", str(docs), "--shards", str(shards)],
                       check=True, stdout=subprocess.DEVNULL)
    return corpus


def load_corpus(corpus: Path) -> pa.Table:
    """Every record of the corpus shards as a table (id, text, source), in shard order."""
    rows: list[dict] = []
    for path in sorted((corpus / "shards").iterdir()):
        if path.name.endswith(".parquet"):
            rows += pq.read_table(path, columns=["id", "text", "source"]).to_pylist()
        elif path.name.endswith((".jsonl", ".jsonl.gz")):
            opener = gzip.open if path.name.endswith(".gz") else open
            with opener(path, "rt", encoding="utf-8") as f:
                rows += [{k: r.get(k) for k in ("id", "text", "source")} for r in map(json.loads, f)]
    return pa.Table.from_pylist(rows, pa.schema([("id", pa.string()), ("text", pa.string()), ("source", pa.string())]))


def read_truth(corpus: Path) -> dict[str, dict]:
    with open(corpus / "truth.jsonl", encoding="utf-8") as f:
        return {t["id"]: t for t in map(json.loads, f)}


def run_stage(stage, table: pa.Table) -> tuple[pa.Table, float]:
    """The stage over the table in batches; (result, CPU seconds of this process)."""
    out = []
    t0 = time.process_time()
    for batch in table.to_batches(max_chunksize=BATCH):
        out.append(stage(pa.Table.from_batches([batch])))
    return pa.concat_tables(out), time.process_time() - t0


def pii_rows(ids: pa.Array, pii: pa.Array) -> pa.Table:
    """One row per finding: source_id, entity_type (the scorer's view of pii/)."""
    source_id, entity_type = [], []
    for sid, findings in zip(ids.to_pylist(), pii.to_pylist()):
        for f in findings or []:
            source_id.append(sid)
            entity_type.append(f["entity_type"])
    return pa.table({"source_id": pa.array(source_id, pa.string()), "entity_type": pa.array(entity_type, pa.string())})


def score(corpus: Path, ids: pa.Array, language: pa.Array, pii: pa.Table) -> dict:
    """Write lineage/ and pii/ to a temporary run and score it with score_audit.py."""
    with tempfile.TemporaryDirectory() as run:
        (Path(run) / "lineage").mkdir()
        (Path(run) / "pii").mkdir()
        n = len(ids)
        lineage = pa.table({"source_id": ids, "verdict": pa.array(["kept"] * n),
                            "reasons": pa.array([[]] * n, pa.list_(pa.string())), "language": language})
        pq.write_table(lineage, Path(run) / "lineage" / "part-0.parquet")
        pq.write_table(pii, Path(run) / "pii" / "part-0.parquet")
        out = subprocess.run([sys.executable, str(SHARED / "tools" / "score_audit.py"), "--truth",
                              str(corpus / "truth.jsonl"), "--run", run, "--json"],
                             check=True, capture_output=True, text=True)
    return json.loads(out.stdout)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--corpus", type=Path, default=Path("/tmp/h4corpus"))
    ap.add_argument("--docs", type=int, default=12000)
    ap.add_argument("--shards", type=int, default=8)
    a = ap.parse_args()
    corpus = ensure_corpus(a.corpus, a.docs, a.shards)
    table = load_corpus(corpus)
    truth = read_truth(corpus)
    config = parse_config({"input": {"paths": [str(corpus / "shards")]}})
    mb = sum(len(t.encode("utf-8", "surrogatepass")) for t in table.column("text").to_pylist() if t) / 1e6
    print(f"corpus: {table.num_rows} records, {mb:.1f} MB")

    lang, secs = run_stage(LanguageStage(config), table.select(["text"]))
    print(f"language: {secs:.1f} CPU s ({mb / secs:.1f} MB/s per core)")
    pii_on, secs = run_stage(PiiStage(config, prefilter=True), table.select(["text"]))
    print(f"pii with prefilter: {secs:.1f} CPU s ({mb / secs:.1f} MB/s per core)")
    m = score(corpus, table.column("id"), lang.column("language"), pii_rows(table.column("id"), pii_on.column("pii")))
    print(f"language.accuracy: {m['language.accuracy']}")
    print(f"language.accuracy_supported: {m['language.accuracy_supported']}")
    print(f"pii.recall (prefilter): {m['pii.recall']}")
    print(f"pii.docs_flagged_in_clean (prefilter): {m['pii.docs_flagged_in_clean']}")

    # The PII records again, Presidio on the whole text: what the prefilter costs in recall.
    is_pii = pa.array(["pii" in truth[i]["labels"] for i in table.column("id").to_pylist()])
    pii_table = table.filter(is_pii)
    pii_off, secs = run_stage(PiiStage(config, prefilter=False), pii_table.select(["text"]))
    pii_mb = sum(len(t.encode("utf-8")) for t in pii_table.column("text").to_pylist()) / 1e6
    print(f"pii without prefilter on {pii_table.num_rows} PII records: {secs:.1f} CPU s "
          f"({pii_mb / secs:.2f} MB/s per core)")
    m_off = score(corpus, table.column("id"), lang.column("language"),
                  pii_rows(pii_table.column("id"), pii_off.column("pii")))
    print(f"pii.recall (no prefilter): {m_off['pii.recall']}")
    cost = {k: round(m_off["pii.recall"][k] - m["pii.recall"].get(k, 0.0), 3) for k in m_off["pii.recall"]}
    print(f"pii.recall lost to the prefilter: {cost}")


if __name__ == "__main__":
    main()
