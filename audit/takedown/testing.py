"""A run folder made by hand from shards, without Ray: for tests and the lookup benchmark.

`make_run_folder` reads the shards with the job's own reader, writes lineage/ (every readable
record `kept`, unreadable ones `quarantined` with reason `unreadable`), passages/ (the passage
fingerprints of audit.takedown.passages), run.json as the pipeline writes it, and builds index/.
It is the lineage half of an audit run: no measuring, no decisions.
"""
from __future__ import annotations

import json
from datetime import datetime, timezone
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc

from audit import __version__
from audit.config import InputConfig
from audit.io.atomic import DatasetWriter, write_json_atomic
from audit.io.shards import discover_shards, read_shard
from audit.lookup_index import build_lookup_indexes
from audit.takedown.passages import PassageIndexStage

LINEAGE_SCHEMA = pa.schema([
    ("doc_id", pa.string()), ("source_id", pa.string()), ("shard", pa.string()), ("record", pa.int64()),
    ("byte_offset", pa.int64()), ("sha256", pa.string()), ("url", pa.string()), ("chars", pa.int64()),
    ("language", pa.string()), ("language_score", pa.float32()), ("verdict", pa.string()),
    ("reasons", pa.list_(pa.string()))])
PASSAGES_SCHEMA = pa.schema([("hash", pa.uint64()), ("doc_id", pa.string()), ("shard", pa.string()),
                             ("record", pa.int64())])


def make_run_folder(out: Path, paths: list[str], base_dir: Path, input_cfg: dict | None = None,
                    index: bool = True) -> Path:
    """Write lineage/, passages/ (indexed into index/ when `index`) and run.json for the shards `paths`."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    cfg = InputConfig(paths=paths, **(input_cfg or {}))
    shards, _ = discover_shards(cfg.paths, base_dir)
    stage = PassageIndexStage.__new__(PassageIndexStage)
    lineage = DatasetWriter(out / "lineage", LINEAGE_SCHEMA)
    passages = DatasetWriter(out / "passages", PASSAGES_SCHEMA)
    for shard in shards:
        for block in read_shard(shard, cfg):
            block = block.filter(pc.is_valid(block.column("record")))
            if block.num_rows == 0:
                continue
            n = block.num_rows
            readable = pc.is_null(block.column("error"))
            lineage.write(pa.table({
                **{c: block.column(c) for c in ("doc_id", "source_id", "shard", "record", "byte_offset", "sha256",
                                                "url", "chars")},
                "language": pa.nulls(n, pa.string()), "language_score": pa.nulls(n, pa.float32()),
                "verdict": pc.if_else(readable, "kept", "quarantined"),
                "reasons": pa.array([[] if ok else ["unreadable"] for ok in readable.to_pylist()],
                                    pa.list_(pa.string())),
            }))
            fps = stage(block).column("passage_hashes").combine_chunks()
            owner = pc.list_parent_indices(fps)
            passages.write(pa.table({"hash": pc.list_flatten(fps), "doc_id": block.column("doc_id").take(owner),
                                     "shard": block.column("shard").take(owner),
                                     "record": block.column("record").take(owner)}))
    lineage.close()
    passages.close()
    config = {"input": json.loads(cfg.model_dump_json())}
    write_json_atomic(out / "run.json", {
        "version": __version__, "started": datetime.now(timezone.utc).isoformat(),
        "base_dir": str(Path(base_dir).resolve()), "config": config,
        "shards": [{"shard": s.path, "location": str(Path(s.location).resolve()), "index": s.index,
                    "size": Path(s.location).stat().st_size} for s in shards]})
    if index:
        build_lookup_indexes(out)
    return out
