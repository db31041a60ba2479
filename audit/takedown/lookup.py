"""Lineage lookup over a run folder: where a document or a passage sits (shard, record, byte offset).

URL, SHA-256, source id, doc_id and shard-range lookups read the run's index/ (see
audit.lookup_index) and fall back to a filtered scan of lineage/ when a run has no index. A
passage is looked up by its winnowed fingerprints, and every candidate is confirmed against the
record's text read back from its shard (a seek for plain JSON lines, one row group for Parquet),
after checking the text still has the SHA-256 the lineage recorded.
"""
from __future__ import annotations

import io
import json
import sys
from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.dataset as pads
import pyarrow.parquet as pq

from audit.config import InputConfig
from audit.io.records import RecordFields, column_values, decode_line, decode_parquet_text
from audit.io.run_copy import data_location
from audit.io.shards import PARQUET_SUFFIXES, Shard, read_record_texts, read_shard
from audit.io.storage import location
from audit.lookup_index import RECORD_COLUMNS, RECORDS_SCHEMA, LookupIndex
from audit.records import text_sha256
from audit.takedown.blocklist import Blocklist
from audit.takedown.privacy import hashed
from audit.takedown.passage_match import PassagePattern
from audit.stages.passages import (MIN_GUARANTEED_WORDS, PASSAGE_NGRAM, PassageQuery, passage_fingerprints,
                                     passage_query, passage_scheme)

DEFAULT_MIN_SCORE = 0.8
DEFAULT_MAX_CANDIDATES = 1000
_PLAIN_JSONL = (".jsonl", ".ndjson")


class RunError(ValueError):
    """A --run folder that is not a usable audit run: one line, exit 2."""


class LookupUsageError(ValueError):
    """A lookup that cannot be asked as given (passage too short, bad range): one line, exit 2."""


@dataclass
class Match:
    """One located record: its lineage, how it was found and, for passages, where in its text."""

    doc_id: str | None
    source_id: str | None
    shard: str
    record: int
    byte_offset: int | None
    sha256: str | None
    url: str | None
    chars: int | None
    verdict: str | None
    reasons: list[str] | None
    method: str                       # url | sha256 | source_id | doc_id | position | text | copy
    key: str                          # the value looked up (a passage is named by its SHA-256)
    score: float = 1.0
    span: tuple[int, int] | None = None          # characters of the record's text
    matched_text: str | None = field(default=None, repr=False)
    blocked_by: str | None = None

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["span"] = list(self.span) if self.span else None
        return d


def _stderr(msg: str) -> None:
    print(f"audit: {msg}", file=sys.stderr)


class RunLookup:
    """Lookups against one run folder (its lineage, index, shards and blocklist)."""

    def __init__(self, run_dir: Path, warn: Callable[[str], None] = _stderr) -> None:
        self.run_dir = Path(run_dir)
        self.data = data_location(self.run_dir)  # index and lineage: read in place on object storage
        self.warn = warn
        if not self.data.child("lineage").is_dir():
            raise RunError(f"--run {self.run_dir}: not an audit run folder (no lineage/ in it)")
        try:
            self.manifest = json.loads((self.run_dir / "run.json").read_text(encoding="utf-8"))
        except OSError:
            self.manifest = {}
        except ValueError as e:
            raise RunError(f"{self.run_dir / 'run.json'}: not valid JSON ({e})") from None
        self.locations = {s["shard"]: s["location"] for s in self.manifest.get("shards", [])}
        input_cfg = (self.manifest.get("config") or {}).get("input") or {"paths": ["."]}
        known = InputConfig.model_fields
        self.input_cfg = InputConfig(**{k: v for k, v in input_cfg.items() if k in known})
        self.index = LookupIndex.open(self.data)
        self.blocklist = Blocklist.load(self.run_dir)
        self._warned: set[str] = set()

    def _warn_once(self, msg: str) -> None:
        if msg not in self._warned:
            self._warned.add(msg)
            self.warn(msg)

    # ---- rows -> matches ------------------------------------------------------------------

    def _matches(self, rows: pa.Table, method: str, key: str) -> list[Match]:
        out = []
        cols = {c: (rows.column(c).to_pylist() if c in rows.column_names else [None] * rows.num_rows)
                for c in RECORD_COLUMNS}
        blocked = self.blocklist.match(cols["sha256"], cols["url"], cols["source_id"])
        for i in range(rows.num_rows):
            out.append(Match(**{c: cols[c][i] for c in RECORD_COLUMNS}, method=method, key=key,
                             blocked_by=blocked[i]))
        out.sort(key=lambda m: (m.shard, m.record))
        return out

    def _lineage_dataset(self) -> pads.Dataset:
        lineage = self.data.child("lineage")
        return pads.dataset(lineage.path, filesystem=lineage.fs, format="parquet")

    def _lineage(self, expr: pc.Expression) -> pa.Table:
        self._warn_once(f"no lookup index in {self.data.child('index')}: scanning lineage/ (slow on large runs)")
        data = self._lineage_dataset()
        return data.to_table(columns=[c for c in RECORD_COLUMNS if c in data.schema.names], filter=expr)

    def _by(self, column: str, value: str, method: str) -> list[Match]:
        if self.index is not None:
            rows = self.index.records_by(column, value)
        else:
            rows = self._lineage(pc.field(column) == value)
        return self._matches(rows, method, value)

    def by_url(self, url: str) -> list[Match]:
        """Every record with this URL (a privacy takedown keeps it only as its hash: found through that too)."""
        return self._by("url", url, "url") + self._by("url", hashed(url), "url")

    def by_sha256(self, sha256: str) -> list[Match]:
        """Every record whose text has this SHA-256 (every copy of the content)."""
        return self._by("sha256", sha256.lower(), "sha256")

    def by_source_id(self, source_id: str) -> list[Match]:
        """Every record carrying this source id (the record's own id field), or its hash after a privacy takedown."""
        return self._by("source_id", source_id, "source_id") + self._by("source_id", hashed(source_id), "source_id")

    def by_doc_id(self, doc_id: str) -> list[Match]:
        """The record with this doc_id."""
        return self._by("doc_id", doc_id, "doc_id")

    def shard_name(self, given: str) -> str:
        """The shard as lineage names it, from that name or from the file's path."""
        known = set(self.locations) | (set(self.index.shard_no) if self.index is not None else set())
        if given in known:
            return given
        try:
            real = str(Path(given).resolve())
        except OSError:
            return given
        for shard, loc in self.locations.items():
            if loc == real:
                return shard
        return given

    def by_position(self, shard: str, start: int = 0, stop: int | None = None) -> list[Match]:
        """Replay: the records of `shard` with start <= record < stop, in record order."""
        if start < 0 or (stop is not None and stop < start):
            raise LookupUsageError(f"--records {start}:{stop}: expected 0 <= start <= stop")
        shard = self.shard_name(shard)
        key = f"{shard}:{start}:{'' if stop is None else stop}"
        if self.index is not None:
            rows = self.index.records_in_shard(shard, start, stop)
        else:
            expr = (pc.field("shard") == shard) & (pc.field("record") >= start)
            if stop is not None:
                expr = expr & (pc.field("record") < stop)
            rows = self._lineage(expr)
        return self._matches(rows, "position", key)

    # ---- texts from shards ---------------------------------------------------------------

    def fetch_texts(self, rows: Iterable[Match]) -> dict[tuple[str, int], str | None]:
        """The current text of each (shard, record), read back from the shard file.

        A text that is gone or whose SHA-256 differs from the lineage's (the shard changed since
        the run) comes back as None, with a warning.
        """
        by_shard: dict[str, list[Match]] = defaultdict(list)
        for m in rows:
            by_shard[m.shard].append(m)
        out: dict[tuple[str, int], str | None] = {}
        for shard, ms in by_shard.items():
            loc = self.locations.get(shard)
            if loc is None or not location(loc).is_file():  # a shard in object storage is read there
                self._warn_once(f"shard {shard}: file not found ({loc or 'not in run.json'}); its texts are not read")
                continue
            texts = self._read_texts(shard, loc, ms)
            for m in ms:
                t = texts.get(m.record)
                if m.sha256 and (t is None or text_sha256(t) != m.sha256):
                    self._warn_once(f"shard {shard} changed since the run (record {m.record} no longer has the "
                                    "text the lineage recorded); re-run the audit to refresh the lineage")
                    t = None
                out[(shard, m.record)] = t
        return out

    def _read_texts(self, shard: str, loc: str, ms: list[Match]) -> dict[int, str | None]:
        where = location(loc)
        low = where.path.lower()
        field_name = self.input_cfg.text_field
        fields = RecordFields.of(self.input_cfg)  # read back as the job read it (audit.io.records)
        if low.endswith(_PLAIN_JSONL) and all(m.byte_offset is not None for m in ms):
            out: dict[int, str | None] = {}
            with io.BufferedReader(where.fs.open_input_file(where.path)) as f:  # readline, local or remote
                for m in sorted(ms, key=lambda m: m.byte_offset or 0):
                    f.seek(int(m.byte_offset or 0))
                    line = f.readline().rstrip(b"\n")
                    out[m.record] = decode_line(line, fields, at_start=m.byte_offset == 0).text
            return out
        if low.endswith(PARQUET_SUFFIXES):
            pf = pq.ParquetFile(where.fs.open_input_file(where.path))
            ends = np.cumsum([pf.metadata.row_group(i).num_rows for i in range(pf.num_row_groups)])
            wanted: dict[int, list[int]] = defaultdict(list)
            for m in ms:
                g = int(np.searchsorted(ends, m.record, side="right"))
                if g < len(ends):
                    wanted[g].append(m.record)
            out = {}
            for g, recs in wanted.items():
                col = column_values(pf.read_row_group(g, columns=[field_name]).column(0), strict=True)
                base = int(ends[g - 1]) if g else 0
                for r in recs:
                    out[r] = decode_parquet_text(col[r - base], field_name).text
            return out
        return read_record_texts(Shard(shard, loc, 0), {m.record for m in ms}, self.input_cfg)

    # ---- passages ------------------------------------------------------------------------

    def prepare_passage(self, text: str) -> tuple[PassageQuery, PassagePattern]:
        """Normalise and fingerprint a passage; too short a passage is a usage error."""
        query = passage_query(text)
        if query.words < PASSAGE_NGRAM:
            raise LookupUsageError(f"passage too short: {query.words} words after normalisation; at least "
                                   f"{PASSAGE_NGRAM} are needed ({MIN_GUARANTEED_WORDS} or more for a find that is guaranteed)")
        return query, PassagePattern(text)

    def by_text(self, text: str, min_score: float = DEFAULT_MIN_SCORE,
                max_candidates: int = DEFAULT_MAX_CANDIDATES, skip_shards: Iterable[str] = ()) -> list[Match]:
        """Records containing the passage (whitespace, case and punctuation aside), best first.

        Candidates come from the passage index (or a scan of the shards when the run has none);
        each is confirmed against its text, and kept when its score is at least `min_score`.
        """
        query, pattern = self.prepare_passage(text)
        key = text_sha256(text)
        if self.index is None or not self.index.has("passages") or self.index.meta.get("passages") != passage_scheme():
            self._warn_once(f"no passage index (of this version) in {self.data.child('index')}: scanning every "
                            "shard (slow)")
            shards = [s for s in self.locations if s not in set(skip_shards)]
            return self.scan_text(text, shards, min_score, prepared=(query, pattern))
        pos, hits = self.index.passage_candidates(query.keys)
        if len(pos) > max_candidates:
            self._warn_once(f"{len(pos)} candidate records share a fingerprint with the passage; confirming the "
                            f"{max_candidates} that share the most")
            top = np.argsort(-hits, kind="stable")[:max_candidates]
            pos = pos[top]
        rows = self.index.records_at(pos) if len(pos) else RECORDS_SCHEMA.empty_table()
        skip = set(skip_shards)
        cands = [m for m in self._matches(rows, "text", key) if m.shard not in skip]
        texts = self.fetch_texts(cands)
        return self._confirm(cands, texts, pattern, min_score)

    def _confirm(self, cands: list[Match], texts: dict[tuple[str, int], str | None], pattern: PassagePattern,
                 min_score: float) -> list[Match]:
        out = []
        for m in cands:
            t = texts.get((m.shard, m.record))
            span = pattern.match(t)
            if span is None or span.score < min_score:
                continue
            assert t is not None
            m.score = round(span.score, 4)
            m.span = (span.start, span.end)
            m.matched_text = t[span.start:span.end]
            out.append(m)
        out.sort(key=lambda m: (-m.score, m.shard, m.record))
        return out

    def scan_text(self, text: str, shards: Iterable[str], min_score: float = DEFAULT_MIN_SCORE,
                  prepared: tuple[PassageQuery, PassagePattern] | None = None) -> list[Match]:
        """Find a passage by reading the given shards whole (no index needed; also checks rewritten shards)."""
        query, pattern = prepared or self.prepare_passage(text)
        key = text_sha256(text)
        want = pa.array(query.keys, pa.uint64())
        found: list[Match] = []
        for i, shard in enumerate(shards):
            loc = self.locations.get(shard)
            if loc is None or not Path(loc).is_file():
                self._warn_once(f"shard {shard}: file not found ({loc or 'not in run.json'}); not scanned")
                continue
            for block in read_shard(Shard(shard, loc, i), self.input_cfg):
                block = block.filter(pc.is_valid(block.column("record")))
                if block.num_rows == 0:
                    continue
                fps = passage_fingerprints(block.column("text"))
                flat = pc.list_flatten(fps)
                parents = pc.list_parent_indices(fps).filter(pc.is_in(flat, value_set=want))
                rows = np.unique(parents.to_numpy(zero_copy_only=False))
                if len(rows) == 0:
                    continue
                sub = block.take(pa.array(rows))
                cands = self._matches(sub, "text", key)
                by_rec = dict(zip(sub.column("record").to_pylist(), sub.column("text").to_pylist()))
                found += self._confirm(cands, {(shard, r): t for r, t in by_rec.items()}, pattern, min_score)
        self._add_verdicts(found)
        found.sort(key=lambda m: (-m.score, m.shard, m.record))
        return found

    def _add_verdicts(self, found: list[Match]) -> None:
        """Verdict and reasons of records found by reading shards, from the lineage."""
        ids = [m.doc_id for m in found if m.doc_id]
        if not ids:
            return
        data = self._lineage_dataset()
        cols = [c for c in ("doc_id", "verdict", "reasons") if c in data.schema.names]
        if "doc_id" not in cols or len(cols) == 1:
            return
        t = data.to_table(columns=cols, filter=pc.field("doc_id").isin(ids))
        got = {d: (v, r) for d, v, r in zip(t.column("doc_id").to_pylist(),
                                            t.column("verdict").to_pylist() if "verdict" in cols else [None] * t.num_rows,
                                            t.column("reasons").to_pylist() if "reasons" in cols else [None] * t.num_rows)}
        for m in found:
            if m.doc_id in got:
                m.verdict, m.reasons = got[m.doc_id]
