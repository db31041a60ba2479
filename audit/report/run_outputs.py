"""Reading the parts of a finished run folder that the report shows beyond summary.json.

Example quarantined records by reason kind (`quarantine/`), the first entries of
`unreadable.jsonl`, example contamination matches, duplicate clusters and PII findings, their
records' source id and URL (`lineage/`), and, bounded, a few of those records' texts read back
from the shards (`run.json` names them and the input settings) and the matched eval items.
Every read is bounded: a few rows per kind, a few dozen texts.
"""
from __future__ import annotations

import json
from collections.abc import Iterable
from itertools import islice
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.dataset as pads

from audit.decide import reason_kind
from audit.io.storage import location

EXAMPLE_COLUMNS = ("doc_id", "source_id", "url", "shard", "record", "byte_offset", "sha256", "reasons", "details",
                   "measured")
# What an example record carries besides its finding: where it is and how to name it to a person.
RECORD_COLUMNS = ("doc_id", "source_id", "url", "shard", "record", "byte_offset", "sha256")


def _dataset(folder: Path) -> pads.Dataset | None:
    """The Parquet dataset in `folder`, or None when the folder is absent or holds no files."""
    if not folder.is_dir() or not any(folder.glob("*.parquet")):
        return None
    return pads.dataset(folder, format="parquet")


def quarantine_examples(run_dir: Path, kinds: Iterable[str], per_kind: int = 3,
                        doc_ids: Iterable[str] = (), batch_size: int = 8192) -> dict[str, list[dict[str, Any]]]:
    """Up to `per_kind` quarantined records for each reason kind in `kinds`: {kind: [row]}.

    A row holds EXAMPLE_COLUMNS (details: the typed `measured` rows, else parsed from JSON). When `doc_ids` (e.g.
    summary.json's examples) are given, those records are looked up first; the dataset is then
    scanned batch by batch only until every kind has its examples, so a large quarantine is not
    read whole. A record is listed under each of its kinds that still needs examples.
    """
    wanted = [k for k in dict.fromkeys(kinds)]
    found: dict[str, list[dict[str, Any]]] = {k: [] for k in wanted}
    ds = _dataset(Path(run_dir) / "quarantine")
    if ds is None or not wanted:
        return found
    columns = [c for c in EXAMPLE_COLUMNS if c in ds.schema.names]
    if "doc_id" not in columns or "reasons" not in columns:
        return found
    seen: set[str] = set()

    def take(table: pa.Table) -> bool:
        """Add rows to the kinds that need them; True when every kind is full."""
        for row in table.to_pylist():
            if row["doc_id"] in seen:
                continue
            used = False
            for kind in dict.fromkeys(reason_kind(r) for r in row.get("reasons") or []):
                if kind in found and len(found[kind]) < per_kind:
                    found[kind].append(_example_row(row))
                    used = True
            if used:
                seen.add(row["doc_id"])
        return all(len(v) >= per_kind for v in found.values())

    ids = [d for d in dict.fromkeys(doc_ids) if isinstance(d, str)]
    if ids and take(ds.to_table(columns=columns, filter=pc.field("doc_id").isin(ids))):
        return found
    for batch in ds.to_batches(columns=columns, batch_size=batch_size):
        if take(pa.Table.from_batches([batch])):
            break
    return found


def _example_row(row: dict[str, Any]) -> dict[str, Any]:
    """An example's columns, `details` as the typed `measured` rows (or the JSON parsed, for a run without them)."""
    if row.get("measured") is not None:
        return {c: row.get(c) for c in EXAMPLE_COLUMNS if c != "measured"} | {"details": row["measured"]}
    details = row.get("details")
    if isinstance(details, str):
        try:
            details = json.loads(details)
        except ValueError:
            pass  # shown as the raw text it is
    return {c: row.get(c) for c in EXAMPLE_COLUMNS if c != "measured"} | {"details": details}


def unreadable_entries(run_dir: Path, limit: int = 50) -> list[dict[str, Any]]:
    """The first `limit` entries of unreadable.jsonl (a line that does not parse is kept as its text)."""
    path = Path(run_dir) / "unreadable.jsonl"
    if not path.is_file():
        return []
    out: list[dict[str, Any]] = []
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in islice((ln for ln in f if ln.strip()), limit):
            try:
                entry = json.loads(line)
            except ValueError:
                entry = {"error": line.rstrip("\n")}
            out.append(entry if isinstance(entry, dict) else {"error": str(entry)})
    return out


def _rows_by_doc(run_dir: Path, doc_ids: Iterable[str]) -> dict[str, dict[str, Any]]:
    """RECORD_COLUMNS of the given records from lineage/ (one filtered scan)."""
    ids = [d for d in dict.fromkeys(doc_ids) if isinstance(d, str)]
    ds = _dataset(Path(run_dir) / "lineage")
    if ds is None or not ids:
        return {}
    cols = [c for c in RECORD_COLUMNS if c in ds.schema.names]
    return {r["doc_id"]: r for r in ds.to_table(columns=cols, filter=pc.field("doc_id").isin(ids)).to_pylist()}


def contamination_examples(run_dir: Path, per_set: int = 3, batch_size: int = 8192) -> list[dict[str, Any]]:
    """Up to `per_set` matches per eval set from contamination/, best overlap first within what is read
    (the first batches until every set seen has its examples), with the record's lineage columns."""
    ds = _dataset(Path(run_dir) / "contamination")
    if ds is None:
        return []
    cols = [c for c in ("doc_id", "eval_set", "eval_id", "overlap", "coverage", "spans", "method", "score",
                        "longest_span", "evidence", "unit", "item_spans") if c in ds.schema.names]
    by_set: dict[str, list[dict[str, Any]]] = {}
    read = 0
    for batch in ds.to_batches(columns=cols, batch_size=batch_size):
        for row in batch.to_pylist():
            by_set.setdefault(str(row.get("eval_set")), []).append(row)
        read += batch.num_rows
        if read >= 4 * batch_size and all(len(v) >= per_set for v in by_set.values()):
            break
    chosen = [m for rows in by_set.values()
              for m in sorted(rows, key=lambda m: -(m.get("overlap") or 0.0))[:per_set]]
    lineage = _rows_by_doc(run_dir, (m["doc_id"] for m in chosen))
    return [lineage.get(m["doc_id"], {"doc_id": m["doc_id"]}) | m for m in chosen]


def duplicate_clusters(run_dir: Path, top: int = 5, members: int = 3) -> list[dict[str, Any]]:
    """The `top` largest duplicate clusters: {cluster_id, kind, size (kept record included), kept, members}
    with the lineage columns of the kept record and of up to `members` duplicates."""
    ds = _dataset(Path(run_dir) / "duplicates")
    if ds is None or "cluster_id" not in ds.schema.names:
        return []
    t = ds.to_table(columns=["doc_id", "kind", "cluster_id", "kept_doc_id"])
    if t.num_rows == 0:
        return []
    sizes = t.group_by("cluster_id").aggregate([("doc_id", "count")]).sort_by([("doc_id_count", "descending"),
                                                                               ("cluster_id", "ascending")])
    largest = sizes.slice(0, top).to_pylist()
    rows = t.filter(pc.field("cluster_id").isin([c["cluster_id"] for c in largest])).to_pylist()
    clusters = []
    for c in largest:
        dup = [r for r in rows if r["cluster_id"] == c["cluster_id"]]
        clusters.append({"cluster_id": c["cluster_id"], "size": c["doc_id_count"] + 1,
                         "kind": ", ".join(sorted({str(r["kind"]) for r in dup})),
                         "kept": dup[0]["kept_doc_id"], "members": [r["doc_id"] for r in dup[:members]]})
    lineage = _rows_by_doc(run_dir, [d for c in clusters for d in [c["kept"], *c["members"]]])
    for c in clusters:
        c["kept"] = lineage.get(c["kept"], {"doc_id": c["kept"]})
        c["members"] = [lineage.get(d, {"doc_id": d}) for d in c["members"]]
    return clusters


def pii_findings(run_dir: Path, doc_ids: Iterable[str] = (), per_type: int = 2,
                 batch_size: int = 8192) -> tuple[dict[str, list[dict[str, Any]]], dict[str, list[tuple[int, int, str]]]]:
    """Example findings per entity type ({type: [lineage row + start, end, score]}, up to `per_type`
    records each, from the first batches of pii/), and every finding of those records and of
    `doc_ids` ({doc_id: [(start, end, type)]}): what an excerpt of them masks."""
    ds = _dataset(Path(run_dir) / "pii")
    if ds is None:
        return {}, {}
    cols = ["doc_id", "entity_type", "start", "end", "score"]
    examples: dict[str, list[dict[str, Any]]] = {}
    for batch in ds.to_batches(columns=cols, batch_size=batch_size):
        for row in batch.to_pylist():
            ex = examples.setdefault(str(row["entity_type"]), [])
            if len(ex) < per_type and all(e["doc_id"] != row["doc_id"] for e in ex):
                ex.append(row)
        if all(len(v) >= per_type for v in examples.values()):
            break
    wanted = {e["doc_id"] for v in examples.values() for e in v} | {d for d in doc_ids if isinstance(d, str)}
    spans: dict[str, list[tuple[int, int, str]]] = {}
    if wanted:
        for r in ds.to_table(columns=cols, filter=pc.field("doc_id").isin(sorted(wanted))).to_pylist():
            spans.setdefault(r["doc_id"], []).append((r["start"], r["end"], str(r["entity_type"])))
    lineage = _rows_by_doc(run_dir, (e["doc_id"] for v in examples.values() for e in v))
    return ({k: [lineage.get(e["doc_id"], {}) | e for e in v] for k, v in examples.items()},
            {k: sorted(v) for k, v in spans.items()})


class RunSources:
    """The shards and eval sets a finished run read, as its run.json names them: record texts and
    eval items for the report, read back with the job's own readers, bounded."""

    def __init__(self, run_dir: Path, max_texts: int = 60, max_stream_bytes: int = 256 << 20) -> None:
        self.run_dir = Path(run_dir)
        self.max_texts = max_texts
        self.max_stream_bytes = max_stream_bytes
        self.config = None
        self.locations: dict[str, str] = {}
        self.problems: list[str] = []
        manifest_path = self.run_dir / "run.json"
        if not manifest_path.is_file():
            return
        try:
            from audit.config import parse_config

            manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
            self.config = parse_config(manifest["config"], base_dir=Path(manifest.get("base_dir", ".")),
                                       source=str(manifest_path))
            self.locations = {s["shard"]: s["location"] for s in manifest.get("shards", [])}
        except (ValueError, KeyError, TypeError) as e:
            self.problems.append(f"run.json could not be used ({e}); no texts are shown")

    def texts(self, rows: Iterable[dict[str, Any]]) -> dict[tuple[str, int], str]:
        """{(shard, record): text} of up to max_texts of `rows` (lineage rows); a text whose SHA-256
        no longer matches the lineage (the shard changed) is left out and named in `problems`."""
        from audit.io.shards import Shard, read_texts_at
        from audit.records import text_sha256

        if self.config is None:
            return {}
        by_shard: dict[str, dict[int, dict[str, Any]]] = {}
        for r in rows:
            if r.get("shard") in self.locations and isinstance(r.get("record"), int):
                if sum(len(v) for v in by_shard.values()) >= self.max_texts:
                    break
                by_shard.setdefault(r["shard"], {})[r["record"]] = r
        out: dict[tuple[str, int], str] = {}
        for shard, recs in by_shard.items():
            loc = self.locations[shard]
            if not location(loc).is_file():  # a shard in object storage is read there
                self.problems.append(f"shard {shard}: not found at {loc} now; its texts are not shown")
                continue
            try:
                got = read_texts_at(Shard(shard, loc, 0), self.config.input,
                                    {r: row.get("byte_offset") for r, row in recs.items()}, self.max_stream_bytes)
            except (OSError, ValueError) as e:
                self.problems.append(f"shard {shard}: {e}; its texts are not shown")
                continue
            if not got:
                self.problems.append(f"shard {shard}: larger than {self.max_stream_bytes >> 20} MB compressed; "
                                     "its texts are not shown")
            for r, text in got.items():
                sha = recs[r].get("sha256")
                if text is not None and (not sha or text_sha256(text) == sha):
                    out[(shard, r)] = text
                elif text is not None:
                    self.problems.append(f"shard {shard} changed since the run; its texts are not shown")
        self.problems = list(dict.fromkeys(self.problems))
        return out

    def eval_items(self, wanted: Iterable[tuple[str, str, str]]) -> dict[tuple[str, str, str], str]:
        """{(eval set, item id, unit): text} of the wanted (eval set, item id, unit) of the run's eval
        sets; unit "item" is the whole item, any other the text field of that name (a match's `unit`)."""
        from audit.evalsets import load_eval_set

        if self.config is None:
            return {}
        need: dict[str, set[tuple[str, str]]] = {}
        for name, item, unit in wanted:
            need.setdefault(name, set()).add((str(item), str(unit)))
        out: dict[tuple[str, str, str], str] = {}
        for cfg in self.config.eval_sets:
            if cfg.name not in need:
                continue
            try:
                items = load_eval_set(cfg, self.config)
            except (ValueError, OSError) as e:
                self.problems.append(f"eval set {cfg.name}: {e}; its items are not shown")
                continue
            index = {str(i): k for k, i in enumerate(items.ids)}
            for item, unit in need[cfg.name]:
                k = index.get(item)
                # a unit the config no longer names (edited since the run) is not shown
                if k is not None and (unit == "item" or unit in items.units):
                    out[(cfg.name, item, unit)] = items.texts[k] if unit == "item" else items.units[unit][k]
        return out
