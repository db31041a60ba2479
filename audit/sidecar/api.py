"""`Sidecar`: the object a training loop holds. `observe()` samples and hands off; it never waits.

    from audit.sidecar import Sidecar
    sidecar = Sidecar("audit.yaml")                 # or an AuditConfig
    for step, batch in enumerate(loader):
        sidecar.observe(batch["records"], step=step, rank=rank)
        ...
    sidecar.close()                                  # or `with Sidecar(...) as sidecar:`

On the trainer's thread `observe()` only draws which records are sampled (a geometric skip: a
few random draws per batch at 1%), copies the text and the replay fields (global_step, rank,
micro_batch, sample_id) of those records, and puts them on a bounded queue without blocking; a
full queue drops them and counts the drop. Everything else (language ID, PII, MinHash, junk
measures, windows, alerts, files, the HTTP endpoint) runs in the worker: a child process by
default (`sidecar.worker: process`), or a thread.
"""
from __future__ import annotations

import atexit
import os
import threading
import time
from pathlib import Path
from typing import Any, Literal

from audit.config import AuditConfig, load_config
from audit.sidecar.sampler import (BernoulliSampler, MalformedRecord, batch_length, extract, record_at,
                                   record_fields)
from audit.sidecar.worker import ProcessWorker, ThreadWorker

# With nothing sampled for this long, the counters are sent on their own (metrics stay current).
TOTALS_EVERY = 1.0
# close() without hurry waits this long at most for the queued samples to be measured.
DRAIN_TIMEOUT = 300.0


class SidecarError(RuntimeError):
    """The sidecar's worker could not start (its message says why)."""


class Sidecar:
    """Samples a training stream and watches it in the background (see the module docstring)."""

    def __init__(self, config: AuditConfig | str | os.PathLike[str], *, metrics_port: int | None = None,
                 worker: Literal["process", "thread"] | None = None, source: str = "api") -> None:
        """Start the worker. `metrics_port` overrides sidecar.metrics_port; `worker` sidecar.worker."""
        self.config = config if isinstance(config, AuditConfig) else load_config(Path(config))
        sc = self.config.sidecar
        self.output = self.config.resolve(sc.output)
        self._fields = (self.config.input.text_field, self.config.input.id_field, self.config.input.url_field)
        self._wanted = record_fields(*self._fields)
        self._sampler = BernoulliSampler(sc.sample_rate, sc.seed)
        self._lock = threading.Lock()
        self.observed = self.sampled = self.dropped = self.malformed = 0
        self._last_sent = time.monotonic()
        self._closed = False
        kind = worker or sc.worker
        self._worker: ThreadWorker | ProcessWorker = (ThreadWorker if kind == "thread" else ProcessWorker)(
            self.config, metrics_port, source)
        # At interpreter exit (also after Ctrl-C) stop within sidecar.stop_seconds.
        atexit.register(self.close, True)

    # ------------------------------------------------------------ the trainer's side

    def observe(self, records: Any, step: int | None = None, rank: int | None = None) -> int:
        """Offer a batch of records; returns how many were sampled and queued. Never blocks.

        `records`: a sequence of dicts (text under input.text_field; optional global_step, rank,
        micro_batch, sample_id and the input.id_field/url_field) or of strings, a pyarrow Table,
        or a dict of columns. `step`/`rank` fill in records that do not carry their own.
        A record without a string text is counted as malformed and skipped.
        """
        if self._closed:
            return 0
        text_field, id_field, url_field = self._fields
        try:
            n = batch_length(records, text_field)
        except MalformedRecord:
            with self._lock:
                self.malformed += 1
            return 0
        with self._lock:
            picked = self._sampler.pick(n)
            self.observed += n
        samples = []
        bad = over = size = 0
        sc = self.config.sidecar
        for i in picked:
            try:
                record = record_at(records, i, self._wanted)
                s = extract(record, text_field, id_field, url_field, step, rank, sc.max_record_bytes)
            except MalformedRecord:
                bad += 1
                continue
            if samples and size + s["bytes"] > sc.max_buffered_bytes:  # one message within the queue's budget
                over += 1
                continue
            samples.append(s)
            size += s["bytes"]
        with self._lock:
            self.sampled += len(picked)
            self.malformed += bad
            self.dropped += over
            totals = self.counters()
        now = time.monotonic()
        if samples:
            if self._worker.put_nowait(("samples", samples, totals)):
                self._last_sent = now
            else:
                with self._lock:
                    self.dropped += len(samples)
        elif now - self._last_sent > TOTALS_EVERY:
            self._last_sent = now
            self._worker.put_nowait(("totals", None, totals))
        return len(samples)

    def count_malformed(self, n: int = 1) -> None:
        """Count records that could not be read before they reached observe() (e.g. bad JSON lines)."""
        with self._lock:
            self.malformed += n

    def counters(self) -> dict[str, int]:
        """Trainer-side counters: observed, sampled, dropped, malformed."""
        return {"observed": self.observed, "sampled": self.sampled, "dropped": self.dropped + self._worker.lost,
                "malformed": self.malformed}

    # ------------------------------------------------------------ the worker

    def wait_ready(self, timeout: float = 120.0) -> int | None:
        """Wait until the worker has loaded its models; returns the metrics port (None: no endpoint).

        Raises SidecarError when the worker could not start.
        """
        if not self._worker.ready.wait(timeout):
            raise SidecarError(f"the sidecar worker did not start within {timeout:.0f} s")
        if self._worker.error:
            raise SidecarError(self._worker.error)
        if not self._worker.alive:
            raise SidecarError("the sidecar worker exited at start-up (see its log above)")
        return self._worker.port

    @property
    def metrics_port(self) -> int | None:
        """Port of /metrics and /status on 127.0.0.1 once the worker is ready (else None)."""
        return self._worker.port

    def close(self, hurry: bool = False) -> None:
        """Measure what is queued (within sidecar.stop_seconds when `hurry`), write every file, stop.

        Safe to call twice; registered with atexit (with `hurry`).
        """
        if self._closed:
            return
        self._closed = True
        atexit.unregister(self.close)
        sc = self.config.sidecar
        with self._lock:
            totals = self.counters()
        timeout = sc.stop_seconds + 30 if hurry else DRAIN_TIMEOUT
        self._worker.stop(totals, sc.stop_seconds if hurry else None, timeout)

    def __enter__(self) -> "Sidecar":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
