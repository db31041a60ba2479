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
from audit.langcodes import LID176_NAME, UNDETERMINED, language_tag
from audit.lengths import LengthStats, length_report

_EXAMPLES = 5  # example doc_ids kept per reason


def _counts(values: pa.Array | pa.ChunkedArray) -> dict[Any, int]:
    """{value: count} of the non-null values (Arrow's value_counts)."""
    return {vc["values"]: vc["counts"] for vc in pc.value_counts(values).to_pylist() if vc["values"] is not None}


def _pair_counts(a: pa.Array | pa.ChunkedArray, b: pa.Array | pa.ChunkedArray) -> dict[tuple[Any, Any], int]:
    """{(a, b): count} of the rows' value pairs."""
    agg = pa.table({"a": a, "b": b}).group_by(["a", "b"]).aggregate([("a", "count")])
    return dict(zip(zip(agg.column("a").to_pylist(), agg.column("b").to_pylist()), agg.column("a_count").to_pylist()))


def _source_name(value: str | None) -> str:
    return "(no source)" if value is None else value


class SummaryBuilder:
    """Accumulates the figures of summary.json over decided batches.

    Every accumulator is a count, a Counter, a bounded list or a mergeable sketch: the decide
    tasks on the workers each fill one, `to_dict` ships it to the driver in a few KB, and the
    driver `merge`s them; nothing grows with the number of documents.
    """

    def __init__(self, config: AuditConfig) -> None:
        self.config = config
        self.documents = self.kept = self.quarantined = 0
        self.bytes = 0
        self.reasons: Counter[str] = Counter()
        self.kinds: Counter[str] = Counter()  # records per reason kind (a record counts once a kind)
        self.languages: Counter[str] = Counter()
        self.languages_by_shard: dict[str, Counter[str]] = defaultdict(Counter)
        self.languages_by_source: dict[str, Counter[str]] = defaultdict(Counter)
        # per language code: [documents, sum of language_score, documents the second identifier
        # decided, sum of language_share]
        self.language_stats: dict[str, list[float]] = defaultdict(lambda: [0, 0.0, 0, 0.0])
        # Lengths are grouped by the records' source when input.source_field names one, else by shard.
        self.by_source = bool(config.input.source_field)
        # per reason kind: the earliest records in input order, as (shard_index, record, doc_id)
        self.examples: dict[str, list[tuple[int, int, str]]] = defaultdict(list)
        self.unreadable: list[dict] = []
        self.contamination: dict[str, dict[str, Any]] = defaultdict(lambda: {"records": 0, "items": set()})
        self.contamination_methods: Counter[str] = Counter()
        self.pii_types: Counter[str] = Counter()
        self.pii_records = 0
        self.lengths = LengthStats(config.stats.context_lengths)
        self.lengths_by_group: dict[str, LengthStats] = {}

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
        self._reasons(table)
        readable = table.filter(pc.is_null(table.column("error")))
        groups = pa.array([_source_name(x) for x in readable.column("source").to_pylist()], pa.string()) \
            if self.by_source else readable.column("shard")
        if "language" in readable.column_names:
            named = readable.filter(pc.is_valid(readable.column("language")))
            self.languages.update(_counts(named.column("language")))
            for (shard, lang), c in _pair_counts(named.column("shard"), named.column("language")).items():
                self.languages_by_shard[shard][lang] += c
            if self.by_source:
                for (group, lang), c in _pair_counts(groups.filter(pc.is_valid(readable.column("language"))),
                                                     named.column("language")).items():
                    self.languages_by_source[group][lang] += c
            self._language_stats(named)
        cols = {"chars": _lengths(readable, "chars")}
        cols["words"] = _lengths(readable, "length_words") if "length_words" in readable.column_names \
            else np.zeros(readable.num_rows)
        if "length_tokens" in readable.column_names:
            cols["tokens"] = _lengths(readable, "length_tokens")
        self.lengths.add(cols)
        if readable.num_rows:
            codes = pc.dictionary_encode(pc.fill_null(groups, "")).combine_chunks() \
                if isinstance(groups, pa.ChunkedArray) else pc.dictionary_encode(pc.fill_null(groups, ""))
            inv = codes.indices.to_numpy(zero_copy_only=False)
            for i, name in sorted(enumerate(codes.dictionary.to_pylist()), key=lambda x: x[1]):
                rows = inv == i
                g = self.lengths_by_group.get(name)
                if g is None:
                    g = self.lengths_by_group[name] = LengthStats(self.config.stats.context_lengths)
                g.add({k: v[rows] for k, v in cols.items()})
        if "contamination" in table.column_names:
            for matches in table.column("contamination").to_pylist():
                seen = set()
                for m in matches or []:
                    c = self.contamination[m["eval_set"]]
                    c["items"].add(m["eval_id"])
                    self.contamination_methods[m.get("method") or "unknown"] += 1
                    if m["eval_set"] not in seen:
                        c["records"] += 1
                        seen.add(m["eval_set"])
        if "pii" in table.column_names:
            findings = table.column("pii").combine_chunks()
            self.pii_records += int(pc.sum(pc.greater(pc.fill_null(pc.list_value_length(findings), 0), 0)).as_py() or 0)
            self.pii_types.update(_counts(pc.struct_field(pc.list_flatten(findings), "entity_type")))

    def _reasons(self, table: pa.Table) -> None:
        """Reasons, records per reason kind (once a kind a record) and the first examples of each kind."""
        reasons = table.column("reasons").combine_chunks()
        flat = pc.list_flatten(reasons)
        if not len(flat):
            return
        self.reasons.update(_counts(flat))
        names = pc.unique(flat)
        kind_of = pa.array([reason_kind(r) for r in names.to_pylist()], pa.string())
        kinds = pc.take(kind_of, pc.index_in(flat, value_set=names))
        owner = pc.list_parent_indices(reasons)
        pairs = pa.table({"row": owner, "kind": kinds}).group_by(["row", "kind"]).aggregate([]) \
            .sort_by([("row", "ascending")])  # a record counts once a kind
        self.kinds.update(_counts(pairs.column("kind")))
        shard_index = table.column("shard_index") if "shard_index" in table.column_names else None
        for kind in pc.unique(pairs.column("kind")).to_pylist():
            ex = self.examples[kind]
            if len(ex) >= _EXAMPLES:
                continue
            rows = pairs.filter(pc.equal(pairs.column("kind"), kind)).column("row").slice(0, _EXAMPLES - len(ex))
            for row in rows.to_pylist():
                si = shard_index[row].as_py() if shard_index is not None else 0
                ex.append((si or 0, table.column("record")[row].as_py() or 0, table.column("doc_id")[row].as_py()))

    def _language_stats(self, named: pa.Table) -> None:
        """Documents, score, share and second-identifier counts per language of a batch (rows with a language)."""
        names = named.column_names
        n = named.num_rows
        score = named.column("language_score") if "language_score" in names else pa.nulls(n, pa.float64())
        share = pc.fill_null(named.column("language_share"), 1.0) if "language_share" in names \
            else pa.array(np.ones(n))
        model = named.column("language_model") if "language_model" in names else pa.nulls(n, pa.string())
        second = pc.and_(pc.is_valid(model), pc.not_equal(pc.fill_null(model, LID176_NAME), LID176_NAME))
        t = pa.table({"lang": named.column("language"), "score": pc.cast(pc.fill_null(score, 0.0), pa.float64()),
                      "second": pc.cast(second, pa.int64()), "share": pc.cast(share, pa.float64())})
        agg = t.group_by("lang").aggregate([("lang", "count"), ("score", "sum"), ("second", "sum"), ("share", "sum")])
        for lang, docs, sc, sec, sh in zip(*(agg.column(c).to_pylist() for c in
                                             ("lang", "lang_count", "score_sum", "second_sum", "share_sum"))):
            st = self.language_stats[lang]
            st[0] += docs
            st[1] += sc or 0.0
            st[2] += sec or 0
            st[3] += sh or 0.0

    def language_table(self) -> list[dict[str, Any]]:
        """Per language, most documents first: its code and ISO 639-3 + script tag, documents,
        mean score, mean share of the document in it, and the share the second identifier decided."""
        rows = []
        by_size = sorted(self.language_stats.items(), key=lambda kv: (-kv[1][0], kv[0]))
        for code, (docs, score, second, share) in by_size:
            rows.append({"language": code, "tag": language_tag(code), "documents": int(docs),
                         "mean_score": round(score / docs, 4) if docs else None,
                         "mean_share": round(share / docs, 4) if docs else None,
                         "second_identifier_share": round(second / docs, 4) if docs else None})
        return rows

    def to_dict(self) -> dict[str, Any]:
        """The partial as JSON-able data (what a decide task returns to the driver)."""
        return {
            "documents": self.documents, "kept": self.kept, "quarantined": self.quarantined, "bytes": self.bytes,
            "reasons": dict(self.reasons), "kinds": dict(self.kinds), "languages": dict(self.languages),
            "languages_by_shard": {k: dict(v) for k, v in self.languages_by_shard.items()},
            "languages_by_source": {k: dict(v) for k, v in self.languages_by_source.items()},
            "language_stats": {k: list(v) for k, v in self.language_stats.items()},
            "examples": {k: [list(e) for e in v] for k, v in self.examples.items()},
            "unreadable": self.unreadable,
            "contamination": {k: {"records": v["records"], "items": sorted(v["items"])}
                              for k, v in self.contamination.items()},
            "contamination_methods": dict(self.contamination_methods),
            "pii_types": dict(self.pii_types), "pii_records": self.pii_records,
            "lengths": self.lengths.to_dict(),
            "lengths_by_group": {k: v.to_dict() for k, v in self.lengths_by_group.items()},
        }

    def merge(self, d: dict[str, Any]) -> None:
        """Add a partial made by `to_dict` (of a builder with the same config)."""
        self.documents += d["documents"]
        self.kept += d["kept"]
        self.quarantined += d["quarantined"]
        self.bytes += d["bytes"]
        self.reasons.update(d["reasons"])
        self.kinds.update(d["kinds"])
        self.languages.update(d["languages"])
        for k, v in d["languages_by_shard"].items():
            self.languages_by_shard[k].update(v)
        for k, v in d["languages_by_source"].items():
            self.languages_by_source[k].update(v)
        for k, v in d.get("language_stats", {}).items():
            st = self.language_stats[k]
            for i, x in enumerate(v):
                st[i] += x
        for k, v in d["examples"].items():
            self.examples[k] = sorted(self.examples[k] + [tuple(e) for e in v])[:_EXAMPLES]  # type: ignore[misc]
        self.unreadable.extend(d["unreadable"])
        for k, v in d["contamination"].items():
            self.contamination[k]["records"] += v["records"]
            self.contamination[k]["items"].update(v["items"])
        self.contamination_methods.update(d.get("contamination_methods", {}))
        self.pii_types.update(d["pii_types"])
        self.pii_records += d["pii_records"]
        self.lengths.merge(LengthStats.from_dict(d["lengths"]))
        for k, v in d["lengths_by_group"].items():
            other = LengthStats.from_dict(v)
            if k in self.lengths_by_group:
                self.lengths_by_group[k].merge(other)
            else:
                self.lengths_by_group[k] = other

    def finish(self, *, seconds: float, scan_seconds: float, ray_start_seconds: float, stages: dict[str, float],
               shards: int, duplicates: dict[str, Any], started: datetime, version: str,
               extra: dict[str, Any] | None = None, run_id: str | None = None) -> dict[str, Any]:
        """The summary.json object (`run_id`: the id in every dataset part's schema metadata). `duplicates`: {"exact": n, "near": n, "cluster_sizes": {size: clusters}}
        as the global pass counts them; `extra`: further top-level figures (resume, passes)."""
        from audit.drift import compare_mix, compare_shards

        kinds = self.kinds
        expected = self.config.languages.expected
        drift = compare_mix(dict(self.languages), expected, self.config.languages)
        drift["shards"] = compare_shards({s: dict(c) for s, c in self.languages_by_shard.items()},
                                         self.config.languages)
        if self.by_source:  # each source's mix against the recipe (or just its mix, without one)
            drift["sources"] = {src: compare_mix(dict(c), expected, self.config.languages)
                                for src, c in sorted(self.languages_by_source.items())}
        mb = self.bytes / 1e6
        n_dups = int(duplicates.get("exact", 0)) + int(duplicates.get("near", 0))
        self.unreadable.sort(key=lambda u: (str(u.get("shard")), u.get("line") or 0, u.get("record") or 0))
        result = {
            "run_id": run_id,
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
            "language_table": self.language_table(),
            "length": length_report(self.lengths, self.lengths_by_group),
            "drift": drift,
            "duplicates": {
                "exact": int(duplicates.get("exact", 0)),
                "near": int(duplicates.get("near", 0)),
                "rate": round(n_dups / self.documents, 6) if self.documents else 0.0,
                # cluster size (duplicates + the kept record) -> number of clusters
                "cluster_sizes": {str(k): v for k, v in sorted(
                    ((int(k), int(v)) for k, v in duplicates.get("cluster_sizes", {}).items()))},
            },
            "contamination": {
                "eval_sets": {k: {"records": v["records"], "items_matched": len(v["items"])}
                              for k, v in sorted(self.contamination.items())},
                "records": int(kinds.get("contamination", 0)),
                # counted (record, item) matches by the method that found them
                "by_method": dict(sorted(self.contamination_methods.items())),
            },
            "pii": {"records": self.pii_records, "by_type": dict(self.pii_types.most_common())},
            "stages": {k: round(v, 3) for k, v in sorted(stages.items(), key=lambda kv: -kv[1])},
            "examples": {k: [e[2] for e in v] for k, v in sorted(self.examples.items())},
            "warnings": [],
        }
        readable = sum(self.languages.values())
        und = self.languages.get(UNDETERMINED, 0)
        if readable and und / readable > self.config.languages.max_und_share:
            result["warnings"].append(
                f"{und / readable:.1%} of readable documents have no identified language ('und'), above "
                f"languages.max_und_share ({self.config.languages.max_und_share:.0%}): check the text field, "
                "the encoding, or languages.min_score")
        result.update(extra or {})
        return result


def summary_lines(s: dict[str, Any]) -> list[str]:
    """The run's closing summary for the terminal, printed once: counts, rate, and every reason
    kind with its records (none left out)."""
    docs = s.get("documents") or 0
    share = f" ({s.get('kept', 0) / docs:.1%})" if docs else ""
    kinds = s.get("reason_kinds") or {}
    lines = [f"done: {docs:,} documents ({(s.get('bytes') or 0) / 1e6:,.1f} MB) in {s.get('seconds') or 0:.1f} s "
             f"({s.get('mb_per_s') or 0:.1f} MB/s): kept {s.get('kept', 0):,}{share}, quarantined "
             f"{s.get('quarantined', 0):,}, unreadable {s.get('unreadable', 0):,}",
             "reasons (records per kind): " + (", ".join(f"{k} {v:,}" for k, v in kinds.items()) or "none")]
    return lines


def _lengths(table: pa.Table, column: str) -> np.ndarray:
    """A length column as float (NaN for null)."""
    return pc.cast(table.column(column), pa.float64()).to_numpy(zero_copy_only=False)
