"""summary.json: the run's figures, accumulated batch by batch during the decide pass.

Counts, reasons, languages (overall and per shard), lengths, drift against the recipe,
duplicates, contamination and PII by type, stage timings and example records per reason.
"""
from __future__ import annotations

from collections import Counter, defaultdict
from datetime import datetime, timezone
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from audit.config import AuditConfig
from audit.decide import reason_kind

_EXAMPLES = 5  # example doc_ids kept per reason


def _source_name(value: str | None) -> str:
    return "(no source)" if value is None else value


class SummaryBuilder:
    """Accumulates the figures of summary.json over decided batches."""

    def __init__(self, config: AuditConfig) -> None:
        self.config = config
        self.documents = self.kept = self.quarantined = 0
        self.bytes = 0
        self.reasons: Counter[str] = Counter()
        self.kinds: Counter[str] = Counter()  # records per reason kind (a record counts once a kind)
        self.languages: Counter[str] = Counter()
        self.languages_by_shard: dict[str, Counter[str]] = defaultdict(Counter)
        self.languages_by_source: dict[str, Counter[str]] = defaultdict(Counter)
        # Lengths are grouped by the records' source when input.source_field names one, else by shard.
        self.by_source = bool(config.input.source_field)
        self.examples: dict[str, list[str]] = defaultdict(list)
        self.unreadable: list[dict] = []
        self.contamination: dict[str, dict[str, Any]] = defaultdict(lambda: {"records": 0, "items": set()})
        self.pii_types: Counter[str] = Counter()
        self.pii_records = 0
        self._chars: list[np.ndarray] = []
        self._words: list[np.ndarray] = []
        self._tokens: list[np.ndarray] = []
        self._shards: list[np.ndarray] = []

    def add_unreadable(self, entry: dict) -> None:
        """One unreadable record or file, as named in unreadable.jsonl."""
        self.unreadable.append({k: v for k, v in entry.items() if v is not None or k in ("shard", "error")})

    def add(self, table: pa.Table) -> None:
        """A decided batch of documents (file-level faults already removed)."""
        n = table.num_rows
        self.documents += n
        q = int(pc.sum(pc.equal(table.column("verdict"), "quarantined")).as_py() or 0)
        self.quarantined += q
        self.kept += n - q
        self.bytes += int(pc.sum(table.column("bytes")).as_py() or 0)
        for doc_id, reasons in zip(table.column("doc_id").to_pylist(), table.column("reasons").to_pylist()):
            for r in reasons:
                self.reasons[r] += 1
            for kind in dict.fromkeys(reason_kind(r) for r in reasons):
                self.kinds[kind] += 1
                ex = self.examples[kind]
                if len(ex) < _EXAMPLES:
                    ex.append(doc_id)
        readable = table.filter(pc.is_null(table.column("error")))
        groups = [_source_name(x) for x in readable.column("source").to_pylist()] if self.by_source \
            else readable.column("shard").to_pylist()
        if "language" in readable.column_names:
            for shard, group, lang in zip(readable.column("shard").to_pylist(), groups,
                                          readable.column("language").to_pylist()):
                if lang is not None:
                    self.languages[lang] += 1
                    self.languages_by_shard[shard][lang] += 1
                    if self.by_source:
                        self.languages_by_source[group][lang] += 1
        self._chars.append(readable.column("chars").to_numpy(zero_copy_only=False).astype(np.int64))
        if "length_words" in readable.column_names:
            self._words.append(readable.column("length_words").to_numpy(zero_copy_only=False).astype(np.int64))
        if "length_tokens" in readable.column_names:
            self._tokens.append(readable.column("length_tokens").to_numpy(zero_copy_only=False).astype(np.int64))
        self._shards.append(np.asarray(groups, dtype=object))
        if "contamination" in table.column_names:
            for matches in table.column("contamination").to_pylist():
                seen = set()
                for m in matches or []:
                    c = self.contamination[m["eval_set"]]
                    c["items"].add(m["eval_id"])
                    if m["eval_set"] not in seen:
                        c["records"] += 1
                        seen.add(m["eval_set"])
        if "pii" in table.column_names:
            for findings in table.column("pii").to_pylist():
                if findings:
                    self.pii_records += 1
                    for f in findings:
                        self.pii_types[f["entity_type"]] += 1

    def finish(self, *, seconds: float, scan_seconds: float, ray_start_seconds: float, stages: dict[str, float],
               shards: int, duplicates: pa.Table, started: datetime, version: str) -> dict[str, Any]:
        """The summary.json object."""
        from audit.drift import compare_mix, compare_shards
        from audit.lengths import length_summary

        chars = np.concatenate(self._chars) if self._chars else np.zeros(0, np.int64)
        words = np.concatenate(self._words) if self._words else np.zeros(0, np.int64)
        tokens = np.concatenate(self._tokens) if self._tokens else None
        shard_names = np.concatenate(self._shards) if self._shards else np.zeros(0, object)
        kinds = self.kinds
        dup_kinds = Counter(duplicates.column("kind").to_pylist()) if duplicates.num_rows else Counter()
        cluster_sizes = Counter(Counter(duplicates.column("cluster_id").to_pylist()).values()) \
            if duplicates.num_rows else Counter()
        expected = self.config.languages.expected
        drift = compare_mix(dict(self.languages), expected, self.config.languages)
        drift["shards"] = compare_shards({s: dict(c) for s, c in self.languages_by_shard.items()},
                                         self.config.languages)
        if self.by_source:  # each source's mix against the recipe (or just its mix, without one)
            drift["sources"] = {src: compare_mix(dict(c), expected, self.config.languages)
                                for src, c in sorted(self.languages_by_source.items())}
        mb = self.bytes / 1e6
        return {
            "version": version,
            "started": started.isoformat(),
            "finished": datetime.now(timezone.utc).isoformat(),
            "documents": self.documents,
            "kept": self.kept,
            "quarantined": self.quarantined,
            "unreadable": len(self.unreadable),
            "bytes": self.bytes,
            "shards": shards,
            "seconds": round(seconds, 3),
            "mb_per_s": round(mb / seconds, 3) if seconds > 0 else None,
            "scan_seconds": round(scan_seconds, 3),
            "ray_start_seconds": round(ray_start_seconds, 3),
            "reasons": dict(self.reasons.most_common()),
            "reason_kinds": dict(kinds.most_common()),
            "languages": dict(self.languages.most_common()),
            "length": length_summary(chars, words, tokens, sources=shard_names,
                                     context_lengths=self.config.stats.context_lengths),
            "drift": drift,
            "duplicates": {
                "exact": dup_kinds.get("exact", 0),
                "near": dup_kinds.get("near", 0),
                "rate": round(duplicates.num_rows / self.documents, 6) if self.documents else 0.0,
                # cluster size (duplicates + the kept record) -> number of clusters
                "cluster_sizes": {str(k + 1): v for k, v in sorted(cluster_sizes.items())},
            },
            "contamination": {
                "eval_sets": {k: {"records": v["records"], "items_matched": len(v["items"])}
                              for k, v in sorted(self.contamination.items())},
                "records": int(kinds.get("contamination", 0)),
            },
            "pii": {"records": self.pii_records, "by_type": dict(self.pii_types.most_common())},
            "stages": {k: round(v, 3) for k, v in sorted(stages.items(), key=lambda kv: -kv[1])},
            "examples": {k: v for k, v in sorted(self.examples.items())},
        }
