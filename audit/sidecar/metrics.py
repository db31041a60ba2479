"""Prometheus metrics and the HTTP endpoint that serves them with a JSON status.

One server on 127.0.0.1 (never all interfaces: the status names steps and sample ids) serves
  /metrics  Prometheus text exposition of a registry of this sidecar's own (not the global one,
            so two sidecars or a trainer's own metrics do not clash)
  /status   the JSON of status.json, live
  /healthz  "ok"
Port 0 takes any free port; `StatusServer.port` tells which.
"""
from __future__ import annotations

import json
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, Counter, Gauge, generate_latest

from audit.sidecar.alerts import ALERT_KINDS

PREFIX = "audit_sidecar"


class SidecarMetrics:
    """The sidecar's counters and gauges."""

    def __init__(self) -> None:
        r = self.registry = CollectorRegistry(auto_describe=True)

        def counter(name: str, doc: str, labels: tuple[str, ...] = ()) -> Counter:
            return Counter(f"{PREFIX}_{name}", doc, labels, registry=r)

        def gauge(name: str, doc: str, labels: tuple[str, ...] = ()) -> Gauge:
            return Gauge(f"{PREFIX}_{name}", doc, labels, registry=r)

        self.observed = counter("records_observed", "Records handed to the sidecar (sampled or not)")
        self.sampled = counter("records_sampled", "Records sampled for measuring")
        self.processed = counter("records_processed", "Sampled records measured")
        self.dropped = counter("records_dropped", "Sampled records dropped because the worker was behind")
        self.malformed = counter("records_malformed", "Records that could not be read (counted and skipped)")
        self.batch_errors = counter("batch_errors", "Batches a stage failed on (skipped, sidecar kept running)")
        self.windows = counter("windows", "Windows closed")
        self.alerts = counter("alerts", "Alerts raised (one per episode)", ("kind",))
        self.webhook_failures = counter("webhook_failures", "Webhook POSTs that failed")
        self.window_index = gauge("window_index", "Index of the window being filled")
        self.window_records = gauge("window_records", "Sampled records in the window being filled")
        self.alert_active = gauge("alert_active", "1 while an episode of this kind is active", ("kind",))
        self.rate = gauge("rate", "Share of the last closed window's records with a problem", ("problem",))
        self.language_share = gauge("language_share", "Share of a language in the last closed window",
                                    ("language",))
        self.language_js = gauge("language_js", "JS distance of the last window's language mix from the reference")
        self.length_js = gauge("length_js", "JS distance of the last window's length histogram from the reference")
        self.contamination_hits = gauge("contamination_hits", "Records matching an eval item in the last window")
        for kind in ALERT_KINDS:
            self.alerts.labels(kind=kind)
            self.alert_active.labels(kind=kind).set(0)
        self._languages: set[str] = set()
        self._totals = {"observed": 0, "sampled": 0, "dropped": 0, "malformed": 0}

    def set_totals(self, **totals: int) -> None:
        """Bring the stream counters up to cumulative totals reported by the trainer side."""
        for name, total in totals.items():
            delta = total - self._totals[name]
            if delta > 0:
                getattr(self, name).inc(delta)
                self._totals[name] = total

    def window_closed(self, summary: dict[str, Any], language_js: float | None, length_js: float | None) -> None:
        """Publish the figures of a closed window."""
        self.windows.inc()
        for problem in ("duplicate", "pii", "pii_any", "junk"):
            self.rate.labels(problem=problem).set(summary[f"{problem}_rate"])
        self.contamination_hits.set(summary["contamination_hits"])
        n = max(summary["records"], 1)
        shares = {k: v / n for k, v in summary["languages"].items()}
        for lang in self._languages - set(shares):
            self.language_share.labels(language=lang).set(0)
        for lang, share in shares.items():
            self.language_share.labels(language=lang).set(share)
        self._languages |= set(shares)
        if language_js is not None:
            self.language_js.set(language_js)
        if length_js is not None:
            self.length_js.set(length_js)

    def exposition(self) -> bytes:
        """The Prometheus text format of every metric."""
        return generate_latest(self.registry)


class StatusServer:
    """/metrics, /status and /healthz on 127.0.0.1:port, served from a daemon thread."""

    def __init__(self, metrics: SidecarMetrics, status: Callable[[], dict[str, Any]], port: int = 0,
                 host: str = "127.0.0.1") -> None:
        handler = _handler(metrics, status)
        self._server = ThreadingHTTPServer((host, port), handler)
        self._server.daemon_threads = True
        self.host = host
        self.port: int = self._server.server_address[1]
        self._thread = threading.Thread(target=self._server.serve_forever, name="audit-sidecar-http", daemon=True)
        self._thread.start()

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}"

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()


def _handler(metrics: SidecarMetrics, status: Callable[[], dict[str, Any]]) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 (http.server's name)
            path = self.path.split("?", 1)[0].rstrip("/") or "/"
            if path == "/metrics":
                self._send(200, metrics.exposition(), CONTENT_TYPE_LATEST)
            elif path == "/status":
                body = json.dumps(status(), indent=2, default=str).encode("utf-8")
                self._send(200, body, "application/json")
            elif path in ("/healthz", "/"):
                self._send(200, b"ok\n" if path == "/healthz" else b"audit sidecar: /metrics /status /healthz\n",
                           "text/plain; charset=utf-8")
            else:
                self._send(404, b"not found: try /metrics or /status\n", "text/plain; charset=utf-8")

        def _send(self, code: int, body: bytes, ctype: str) -> None:
            self.send_response(code)
            self.send_header("Content-Type", ctype)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 (stdlib signature)
            pass  # scrapes every few seconds would flood the log

    return Handler
