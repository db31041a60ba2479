"""The sidecar's measuring side: sampled records in, windows, alerts, samples and status out.

`StreamMonitor.process(samples)` builds an Arrow table of RECORD_SCHEMA from a list of sampled
records, runs the audit job's own stages over it (length, charset, junk, language, PII,
MinHash bands, contamination when eval sets are configured), turns their measurements into
reasons with each stage's `judge`, and adds every record to the current window. When a window
fills, its statistics are compared with the thresholds and references and `AlertBook` raises or
clears episodes. It is synchronous and single-threaded: `audit.sidecar.worker` runs it off the
trainer's thread.

Files under `sidecar.output` (relative to the config file's folder):
  alerts.jsonl   one line per raised alert (CONTRACT.md), appended
  cleared.jsonl  one line per episode that ended, appended
  samples.jsonl  the most recent `reservoir` sampled records: ids, step, rank, micro-batch,
                 measurements and reasons; with reservoir_text "masked" also the text with every
                 found PII span replaced by <TYPE>. Rewritten atomically at each window's end.
  status.json    counters, the last window's figures, active alerts, the metrics URL; rewritten
                 atomically at each window's end and at shutdown ("state": "stopped").
"""
from __future__ import annotations

import logging
import threading
from collections import deque
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from audit.config import AuditConfig
from audit.decide import counted_findings, judge_all, reason_kind
from audit.io.atomic import atomic_open, write_json_atomic
from audit.tagger import Tagger
from audit.io.records import Decoded, RecordBlock
from audit.records import RECORD_SCHEMA
from audit.sidecar.alerts import AlertBook, Webhook, utc_now
from audit.sidecar.metrics import SidecarMetrics, StatusServer
from audit.sidecar.sampler import REPLAY_FIELDS, Sample
from audit.sidecar.windows import DuplicateMemory, LanguageReference, LengthReference, WindowStats
from audit.stages import Stage

log = logging.getLogger("audit.sidecar")

STREAM_TOTALS = ("observed", "sampled", "dropped", "malformed")


class Reservoir:
    """The most recent sampled records (what was measured about them), kept for inspection: at
    most `size` records and `max_text_bytes` of their (masked) text, the oldest going first."""

    def __init__(self, size: int, max_text_bytes: int = 1 << 62) -> None:
        self.rows: deque[dict[str, Any]] = deque()
        self.size = size
        self.max_text_bytes = max_text_bytes
        self.text_bytes = 0

    @staticmethod
    def _bytes(row: dict[str, Any]) -> int:
        return len(row["text"].encode("utf-8", "surrogatepass")) if isinstance(row.get("text"), str) else 0

    def add(self, row: dict[str, Any]) -> None:
        if not self.size:
            return
        self.rows.append(row)
        self.text_bytes += self._bytes(row)
        while len(self.rows) > self.size or (self.text_bytes > self.max_text_bytes and len(self.rows) > 1):
            self.text_bytes -= self._bytes(self.rows.popleft())

    def write(self, path: Path) -> None:
        """Rewrite `path` atomically with the kept records, one JSON object a line."""
        import json

        with atomic_open(path) as f:
            for row in list(self.rows):
                f.write(json.dumps(row, ensure_ascii=False, default=str) + "\n")


def mask_pii(text: str, findings: Sequence[dict[str, Any]] | None) -> str:
    """`text` with every finding's span replaced by <ENTITY_TYPE> (overlapping spans merged)."""
    if not findings:
        return text
    spans = sorted((int(f["start"]), int(f["end"]), f["entity_type"]) for f in findings)
    out: list[str] = []
    pos = 0
    for start, end, kind in spans:
        if end <= pos:
            continue
        start = max(start, pos)
        out.append(text[pos:start])
        out.append(f"<{kind}>")
        pos = end
    out.append(text[pos:])
    return "".join(out)


class StreamMonitor:
    """Windowed statistics and alerts over a stream of sampled records (not thread-safe: one caller)."""

    def __init__(self, config: AuditConfig, metrics_port: int | None = None, source: str = "stream") -> None:
        self.config = config
        sc = self.sc = config.sidecar
        self.out = config.resolve(sc.output)
        self.out.mkdir(parents=True, exist_ok=True)
        self.source = source
        self.started = utc_now()
        self.metrics = SidecarMetrics()
        self.state = "running"
        self._status: dict[str, Any] = {}
        self._status_lock = threading.Lock()
        # The port first: one that cannot be bound fails at once, before models load and
        # before any alert file is opened.
        port = sc.metrics_port if metrics_port is None else metrics_port
        self.server = StatusServer(self.metrics, self.status, port) if port is not None else None
        try:
            self._build(config)
        except BaseException:
            if self.server:
                self.server.close()
            if getattr(self, "alerts", None) is not None:
                self.alerts.close()
            raise
        if self.server:
            log.info("sidecar: metrics on %s/metrics, status on %s/status", self.server.url, self.server.url)
        self._refresh_status()
        self.write_status()

    def _build(self, config: AuditConfig) -> None:
        sc = self.sc
        # The job's own stage list and Tagger (audit.tagger): the stages the config turns on, one
        # tokenisation shared by those that read words, a failing batch retried record by record.
        self.tagger = Tagger(config)
        self.stages: list[Stage] = self.tagger.stages
        self.alerts = AlertBook(self.out, sc.clear_after,
                                Webhook(sc.webhook, sc.webhook_timeout) if sc.webhook else None,
                                on_change=self._alert_changed)
        self.duplicates = DuplicateMemory(sc.duplicate_memory_windows, config.dedup.min_shared_bands)
        self.languages = LanguageReference(config.languages.expected, sc.reference_windows)
        self.lengths = LengthReference(sc.reference_windows)
        self.reservoir = Reservoir(sc.reservoir, sc.max_buffered_bytes)
        self.window = WindowStats(0, sc.alert_examples)
        self.last_window: dict[str, Any] | None = None
        self.seq = 0
        self.totals = dict.fromkeys(STREAM_TOTALS, 0)
        # Counted here rather than by the trainer side: records the worker itself could not use.
        self.local = {"dropped": 0, "malformed": 0}
        # sampled records longer than sidecar.max_record_bytes, measured on their first bytes
        self.truncated = 0
        self.processed = 0
        self.batch_errors = 0
        self.retried_blocks: dict[str, int] = {}  # batches a stage failed on, re-measured a record at a time
        self.windows_closed = 0
        self._webhook_failures_seen = 0
        self._unmasked_logged = False

    # ------------------------------------------------------------ counters

    @property
    def metrics_port(self) -> int | None:
        return self.server.port if self.server else None

    def set_totals(self, totals: dict[str, int]) -> None:
        """Cumulative stream counters from the trainer side (observed, sampled, dropped, malformed)."""
        for k in STREAM_TOTALS:
            if k in totals:
                self.totals[k] = max(self.totals[k], int(totals[k]))
        self._publish_totals()

    def count_local(self, dropped: int = 0, malformed: int = 0) -> None:
        """Records the worker dropped (at shutdown) or could not decode."""
        self.local["dropped"] += dropped
        self.local["malformed"] += malformed
        self._publish_totals()

    def counters(self) -> dict[str, int]:
        """Every stream counter, trainer-side and local together."""
        c = {k: self.totals[k] + self.local.get(k, 0) for k in STREAM_TOTALS}
        c.update(processed=self.processed, truncated_records=self.truncated, batch_errors=self.batch_errors,
                 retried_blocks=sum(self.retried_blocks.values()), windows=self.windows_closed,
                 alerts=sum(self.alerts.counts.values()),
                 webhook_failures=self.alerts.webhook.failures if self.alerts.webhook else 0)
        return c

    def _publish_totals(self) -> None:
        c = self.counters()
        self.metrics.set_totals(**{k: c[k] for k in STREAM_TOTALS})

    # ------------------------------------------------------------ measuring

    def table(self, samples: Sequence[Sample]) -> pa.Table:
        """RECORD_SCHEMA rows for sampled records, built as the job's reader builds them
        (audit.io.records.RecordBlock; doc_id from the sidecar's sequence number; columns a stream
        does not have, such as the byte offset, are null)."""
        block = RecordBlock(self.source, 0, block_bytes=1 << 62)
        for q, s in enumerate(samples, self.seq):
            block.add(q, None, Decoded(s["text"], s.get("source_id"), s.get("url"), None, None))
        return block.take() or RECORD_SCHEMA.empty_table()

    def measure(self, table: pa.Table) -> tuple[pa.Table, list[dict[str, dict]]]:
        """Run every stage as the job does (its Tagger, then its judges); returns the measured
        table (no text; a record a stage failed on has `error` set) and each row's reasons."""
        measured = self.tagger(table)
        reasons = judge_all(self.stages, measured)
        return counted_findings(measured, self.config), reasons

    def process(self, samples: Sequence[Sample]) -> None:
        """Measure a list of sampled records and add them to the windows (in order).

        A text that is not valid Unicode (lone surrogates: the job's readers call such a record
        unreadable) is counted as malformed. If a stage fails on a batch, its records are
        measured one by one, so only the record it fails on is lost (counted in batch_errors).
        """
        cut = sum(1 for s in samples if s.get("truncated"))
        if cut and not self.truncated:
            log.warning("sidecar: sampled records longer than sidecar.max_record_bytes (%d bytes) are measured on "
                        "their first bytes; counted in truncated_records", self.sc.max_record_bytes)
        self.truncated += cut
        good = [s for s in samples if _encodable(s["text"])]
        if len(good) < len(samples):
            self.count_local(malformed=len(samples) - len(good))
        if not good:
            return
        try:
            try:
                table, reasons = self.measure(self.table(good))
            finally:
                self._count_retries(self.tagger.take_stats()["retried_blocks"])
        except Exception:  # noqa: BLE001 - the Tagger retries per record; a lone record's failure lands here
            self._batch_error(len(good))
            log.exception("sidecar: a stage failed on sampled record %s (sample_id %s); skipped",
                          self.seq, good[0].get("sample_id"))
            self.seq += len(good)
            self._refresh_status()
            return
        self._add_rows(good, table, reasons)
        self._refresh_status()

    def _count_retries(self, retried: dict[str, int]) -> None:
        """Batches a stage failed on (measured a record at a time, much slower): counted, said once per stage."""
        for step, n in retried.items():
            if step not in self.retried_blocks:
                log.warning("sidecar: %s failed on a batch; it was re-measured a record at a time, which is slow: "
                            "check that step's library build", step)
            self.retried_blocks[step] = self.retried_blocks.get(step, 0) + n

    def _batch_error(self, n: int) -> None:
        self.batch_errors += n
        self.metrics.batch_errors.inc(n)

    def _add_rows(self, samples: Sequence[Sample], table: pa.Table, reasons: list[dict[str, dict]]) -> None:
        n = table.num_rows
        names = set(table.column_names)
        languages = _column(table, "language")
        scores = _column(table, "language_score")
        chars = table.column("chars").to_pylist()
        sha = table.column("sha256").to_pylist()
        # the job's duplicate rule: its normalised exact key, and its band keys (when those stages are on)
        exact = [None if k is None else k.hex() for k in _column(table, "exact_key")]
        band_keys = _band_keys(table, self.config.dedup.bands)
        doc_ids = table.column("doc_id").to_pylist()
        errors = table.column("error").to_pylist()
        pii = table.column("pii").to_pylist() if "pii" in names else [None] * n
        # Text goes to samples.jsonl only masked, and only the PII stage's findings can mask it.
        masked = self.sc.reservoir_text == "masked" and "pii" in names
        if self.sc.reservoir_text == "masked" and not masked and not self._unmasked_logged:
            log.warning("sidecar: reservoir_text is 'masked' but the PII stage is off (pii.enabled: false); "
                        "samples.jsonl gets no text")
            self._unmasked_logged = True
        junk_kinds = set(self.sc.junk_reasons)
        failed = 0
        for i in range(n):
            s = samples[i]
            seq = self.seq + i
            if errors[i] is not None:
                failed += 1
                log.warning("sidecar: sampled record %d (sample_id %s) skipped: %s", seq, s.get("sample_id"),
                            errors[i])
                continue
            if self.window.records >= self.sc.window:
                self.close_window()
            kinds = {reason_kind(r) for r in reasons[i]}
            row: dict[str, Any] = {k: s.get(k) for k in REPLAY_FIELDS}
            row.update(seq=seq, doc_id=doc_ids[i], source_id=s.get("source_id"), language=languages[i],
                       chars=s.get("chars") or chars[i])  # the whole record's length, not the measured prefix
            dup_of = self.duplicates.check_and_add(band_keys[i], exact[i], seq, self.window.index)
            problems = []
            if dup_of is not None:
                problems.append("duplicate")
            if "pii" in kinds:
                problems.append("pii")
            if kinds & junk_kinds:
                problems.append("junk")
            eval_sets: list[str] = []
            if "contamination" in kinds:
                problems.append("contamination")
                hits = {r.split(":", 1)[1]: d for r, d in reasons[i].items()
                        if reason_kind(r) == "contamination" and ":" in r}
                eval_sets = sorted(hits)
                # Which items matched (ids and overlap, never the text): the replay shows the rest.
                row["eval"] = [{"eval_set": k, "eval_id": d.get("eval_id"), "overlap": d.get("overlap")}
                               for k, d in sorted(hits.items())]
            self.window.add(row, problems, bool(pii[i]), eval_sets)
            kept = {**row, "window": self.window.index, "sha256": sha[i],
                    "language_score": None if scores[i] is None else round(float(scores[i]), 4),
                    "reasons": sorted(reasons[i]), "duplicate_of": dup_of,
                    "pii_types": sorted({f["entity_type"] for f in pii[i]}) if pii[i] else []}
            if masked:
                kept["text"] = mask_pii(s["text"], pii[i])
            self.reservoir.add(kept)
            if "contamination" in problems:
                self._check_contamination()
        self.seq += n
        if failed:
            self._batch_error(failed)
        self.processed += n - failed
        self.metrics.processed.inc(n - failed)
        self.metrics.window_index.set(self.window.index)
        self.metrics.window_records.set(self.window.records)
        if self.window.records >= self.sc.window:
            self.close_window()

    # ------------------------------------------------------------ windows and verdicts

    def _check_contamination(self) -> None:
        """Raise `contamination` as soon as a window holds enough hits (not at its end)."""
        w = self.window
        hits = w.problems["contamination"]
        if hits >= self.sc.contamination_hits:
            self.alerts.update("contamination", True, w.index, hits, self.sc.contamination_hits,
                               self._context(w, "contamination", f"{hits} sampled records match eval items",
                                             eval_sets=dict(w.eval_sets)))

    def _context(self, w: WindowStats, problem: str | None, message: str, **extra: Any) -> dict[str, Any]:
        ctx: dict[str, Any] = {"message": message, **w.context(), **extra}
        if problem is not None:
            ctx["samples"] = w.examples.get(problem, [])
        return ctx

    def close_window(self, final: bool = False) -> dict[str, Any] | None:
        """Judge the current window, publish its figures and open the next one.

        A window with fewer than min_window records (only the last, at shutdown) gets no verdict.
        """
        w = self.window
        if w.records == 0:
            return None
        sc, lc = self.sc, self.config.languages
        self.windows_closed += 1
        summary = w.summary()
        summary["final"] = final
        language_cmp: dict[str, Any] | None = None
        length_cmp: dict[str, Any] | None = None
        if w.records >= sc.min_window:
            for kind, problem, threshold, what in (
                    ("duplicate_spike", "duplicate", sc.duplicate_rate, "duplicates of recent records"),
                    ("pii_rate", "pii", sc.pii_rate, "records the audit would quarantine for PII"),
                    ("junk_rate", "junk", sc.junk_rate, "records with a junk reason")):
                value = w.rate(problem)
                self.alerts.update(kind, value > threshold, w.index, value, threshold,
                                   self._context(w, problem, f"{value:.1%} of sampled records are {what}"))
            if self.languages.ready:
                language_cmp = self.languages.compare(w.languages, lc)
                self._language_verdicts(w, language_cmp)
            elif not final:
                self.languages.learn(w.languages)
            if self.lengths.ready:
                length_cmp = self.lengths.compare(w.lengths, sc.length_shift, lc.chi2_pvalue)
                self.alerts.update("length_shift", length_cmp["shift"], w.index, length_cmp["js"], sc.length_shift,
                                   self._context(w, None, "the length distribution moved from the reference",
                                                 length_p50=w.length_quantile(0.5), pvalue=length_cmp["pvalue"]))
            elif not final:
                self.lengths.learn(w.lengths)
        hits = w.problems["contamination"]
        self.alerts.update("contamination", hits >= sc.contamination_hits, w.index, hits, sc.contamination_hits,
                           self._context(w, "contamination", f"{hits} sampled records match eval items",
                                         eval_sets=dict(w.eval_sets)))
        summary["language"] = language_cmp
        summary["length"] = length_cmp
        self.metrics.window_closed(summary, language_cmp.get("js") if language_cmp else None,
                                   length_cmp["js"] if length_cmp else None)
        self.last_window = summary
        if not final:
            self.window = WindowStats(w.index + 1, sc.alert_examples)
            self.duplicates.forget_before(self.window.index)
            self.metrics.window_index.set(self.window.index)
            self.metrics.window_records.set(0)
        self.write_files()
        return summary

    def _language_verdicts(self, w: WindowStats, cmp: dict[str, Any]) -> None:
        lc, sc = self.config.languages, self.sc
        js = cmp["js"] if cmp["js"] is not None else 0.0
        observed = cmp["observed"]
        expected = cmp["expected"] or {}
        top = sorted(observed.items(), key=lambda kv: -kv[1])[:10]
        # The language that gained most over its expected share: its records are the examples.
        gained = max(observed, key=lambda k: observed[k] - expected.get(k, 0.0), default=None)
        self.alerts.update("language_drift", bool(cmp["drift"]), w.index, js, lc.js_threshold,
                           {**self._context(w, None, "language mix moved from the "
                                            + ("recipe" if self.languages.recipe else "first windows"),
                                            observed=dict(top), expected=cmp["expected"], psi=cmp["psi"],
                                            pvalue=cmp["pvalue"], gained=gained),
                            "samples": w.by_language.get(gained, []) if gained else []})
        new = [c for c in cmp["new_languages"] if w.languages[c] >= sc.new_language_min_records]
        n = max(w.records, 1)
        for code in new:
            self.alerts.update("new_language", True, w.index, w.languages[code] / n, lc.new_language_min_share,
                               {**self._context(w, None, f"language '{code}' is not in the reference"),
                                "language": code, "samples": w.by_language.get(code, [])},
                               key=f"new_language:{code}")
        for key, ep in list(self.alerts.active.items()):
            if ep.kind == "new_language" and key.split(":", 1)[1] not in new:
                code = key.split(":", 1)[1]
                self.alerts.update("new_language", False, w.index, w.languages[code] / n, ep.threshold, key=key)

    def _alert_changed(self, kind: str, key: str, active: bool) -> None:
        if active:
            self.metrics.alerts.labels(kind=kind).inc()
        still = any(ep.kind == kind for ep in self.alerts.active.values())
        self.metrics.alert_active.labels(kind=kind).set(1 if still else 0)
        if self.alerts.webhook:
            self.metrics.webhook_failures.inc(max(0, self.alerts.webhook.failures - self._webhook_failures_seen))
            self._webhook_failures_seen = self.alerts.webhook.failures

    # ------------------------------------------------------------ status and files

    def _refresh_status(self) -> None:
        status = {
            "state": self.state, "started": self.started, "updated": utc_now(), "source": self.source,
            "output": str(self.out),
            "metrics_url": f"{self.server.url}/metrics" if self.server else None,
            "status_url": f"{self.server.url}/status" if self.server else None,
            "settings": {"sample_rate": self.sc.sample_rate, "window": self.sc.window,
                         "min_window": self.sc.min_window},
            "counters": self.counters(),
            "window": {"index": self.window.index, "records": self.window.records},
            "last_window": self.last_window,
            "reference": {"languages": self.languages.describe(), "length_windows": self.lengths.seen},
            "active_alerts": self.alerts.describe(),
            "alerts": dict(self.alerts.counts),
        }
        with self._status_lock:
            self._status = status

    def status(self) -> dict[str, Any]:
        """The latest status (served by /status; safe to call from another thread)."""
        with self._status_lock:
            return self._status

    def write_status(self) -> None:
        write_json_atomic(self.out / "status.json", self.status())

    def write_files(self) -> None:
        """Rewrite samples.jsonl and status.json (atomically)."""
        self._refresh_status()
        self.reservoir.write(self.out / "samples.jsonl")
        self.write_status()

    def close(self) -> None:
        """Judge the last (partial) window, write every file whole, stop the endpoint."""
        if self.state == "stopped":
            return
        self.state = "stopped"
        if self.close_window(final=True) is None:  # an empty last window writes nothing itself
            self.write_files()
        self.alerts.close()
        if self.server:
            self.server.close()


def _encodable(text: str) -> bool:
    try:
        text.encode("utf-8")
        return True
    except UnicodeEncodeError:
        return False


def _column(table: pa.Table, name: str) -> list[Any]:
    """A column as a list, or nulls when its stage is off."""
    return table.column(name).to_pylist() if name in table.column_names else [None] * table.num_rows


def _band_keys(table: pa.Table, bands: int) -> list[list[int]]:
    """Each record's band keys made distinct across bands, as the job's near-duplicate pass keys them."""
    from audit.dedup.minhash import bands_of, exploded_band_keys

    if "minhash_bands" not in table.column_names:
        return [[] for _ in range(table.num_rows)]
    col = table.column("minhash_bands")
    valid = pc.is_valid(col).to_numpy(zero_copy_only=False)
    mat = bands_of(pc.fill_null(col, b"\0" * (bands * 4)), bands)
    keys = np.stack([exploded_band_keys(mat, j) for j in range(bands)], axis=1) if len(mat) else mat
    return [keys[i].tolist() if valid[i] else [] for i in range(table.num_rows)]
