"""Alerts, once per episode: raised when a condition starts, cleared when it has ended.

An episode is keyed by the alert kind (and, for `new_language`, the language). While it is
active, further windows with the condition update it silently; after `clear_after` windows in a
row without the condition it is cleared. A raise is one line of `alerts.jsonl` (CONTRACT.md:
time, kind, window, value, threshold, plus the context that lets a bad batch be replayed); a clear
is one line of `cleared.jsonl` with the same episode number. Both go to the log; a raise is also
POSTed to the webhook when one is configured. Each line is written with a single write and
flushed, so a killed sidecar leaves whole lines.
"""
from __future__ import annotations

import json
import logging
import os
import sys
import urllib.error
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, TextIO

from audit.decide import jsonable

log = logging.getLogger("audit.sidecar")


def setup_logging() -> None:
    """Sidecar messages (INFO and up) on standard error; other libraries' at WARNING only."""
    root = logging.getLogger()
    if not root.handlers:
        logging.basicConfig(level=logging.WARNING, format="audit %(message)s", stream=sys.stderr)
    log.setLevel(logging.INFO)

ALERT_KINDS = ("language_drift", "new_language", "duplicate_spike", "pii_rate", "junk_rate", "length_shift",
               "contamination")


def utc_now() -> str:
    """The current time as ISO 8601 UTC with a Z."""
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


@dataclass
class Episode:
    """An active alert."""

    number: int
    kind: str
    key: str
    raised_window: int
    value: float
    threshold: float
    windows: int = 1
    clean: int = 0
    peak: float = 0.0
    # The window last counted as firing: a condition seen several times in one window (a
    # contamination hit is checked per record) counts that window once.
    last_window: int = -1


class JsonLines:
    """An append-only JSON-lines file: one write and a flush per line."""

    def __init__(self, path: Path) -> None:
        self.path = path
        path.parent.mkdir(parents=True, exist_ok=True)
        self._f: TextIO = open(path, "a", encoding="utf-8")

    def append(self, obj: dict[str, Any]) -> None:
        self._f.write(json.dumps(obj, ensure_ascii=False, default=jsonable) + "\n")
        self._f.flush()

    def close(self) -> None:
        if not self._f.closed:
            self._f.flush()
            os.fsync(self._f.fileno())
            self._f.close()


class Webhook:
    """POSTs alerts as JSON to a URL with a short timeout; failures are counted, never raised."""

    def __init__(self, url: str, timeout: float) -> None:
        self.url, self.timeout = url, timeout
        self.failures = 0

    def post(self, alert: dict[str, Any]) -> bool:
        body = json.dumps(alert, default=jsonable).encode("utf-8")
        req = urllib.request.Request(self.url, data=body, method="POST",
                                     headers={"Content-Type": "application/json", "User-Agent": "audit-sidecar"})
        try:
            with urllib.request.urlopen(req, timeout=self.timeout) as resp:  # noqa: S310 (scheme checked in config)
                resp.read(1024)
            return True
        except (urllib.error.URLError, OSError, ValueError) as e:
            self.failures += 1
            log.warning("sidecar: webhook %s failed (%s); alert kept in alerts.jsonl", self.url, e)
            return False


class AlertBook:
    """Active episodes and the files and hooks an alert goes to."""

    def __init__(self, folder: Path, clear_after: int, webhook: Webhook | None = None,
                 on_change: Callable[[str, str, bool], None] | None = None) -> None:
        self.clear_after = clear_after
        self.webhook = webhook
        self.on_change = on_change
        self.raised = JsonLines(folder / "alerts.jsonl")
        self.cleared = JsonLines(folder / "cleared.jsonl")
        self.active: dict[str, Episode] = {}
        self.episodes = 0
        self.counts: dict[str, int] = {}

    def update(self, kind: str, firing: bool, window: int, value: float, threshold: float,
               context: dict[str, Any] | None = None, key: str | None = None) -> dict[str, Any] | None:
        """Record a window's verdict for one condition; returns the alert when one is raised.

        A firing verdict may come several times for one window (once per contamination hit, then
        at the window's end): the window is counted once. A clean verdict comes once per window.
        """
        key = key or kind
        ep = self.active.get(key)
        if firing:
            if ep is None:
                return self._raise(kind, key, window, value, threshold, context or {})
            ep.value = value
            ep.peak = max(ep.peak, value)
            if ep.last_window != window:
                ep.windows += 1
                ep.clean = 0
                ep.last_window = window
            return None
        if ep is not None:
            ep.clean += 1
            if ep.clean >= self.clear_after:
                self._clear(ep, window, value)
        return None

    def _raise(self, kind: str, key: str, window: int, value: float, threshold: float,
               context: dict[str, Any]) -> dict[str, Any]:
        self.episodes += 1
        ep = Episode(self.episodes, kind, key, window, value, threshold, peak=value, last_window=window)
        self.active[key] = ep
        self.counts[kind] = self.counts.get(kind, 0) + 1
        alert = {"time": utc_now(), "kind": kind, "window": window, "value": _round(value),
                 "threshold": threshold, "episode": ep.number, **context}
        self.raised.append(alert)
        log.warning("sidecar alert: %s in window %d: value %s over threshold %s%s", kind, window, _round(value),
                    threshold, f" ({context['message']})" if context.get("message") else "")
        if self.webhook is not None:
            self.webhook.post(alert)
        if self.on_change:
            self.on_change(kind, key, True)
        return alert

    def _clear(self, ep: Episode, window: int, value: float) -> None:
        del self.active[ep.key]
        self.cleared.append({"time": utc_now(), "kind": ep.kind, "key": ep.key, "episode": ep.number,
                             "window": window, "value": _round(value), "threshold": ep.threshold,
                             "raised_window": ep.raised_window, "windows": ep.windows, "peak": _round(ep.peak)})
        log.info("sidecar: %s cleared in window %d (episode %d, raised in window %d)", ep.key, window, ep.number,
                 ep.raised_window)
        if self.on_change:
            self.on_change(ep.kind, ep.key, False)

    def describe(self) -> list[dict[str, Any]]:
        """Active episodes, for status.json."""
        return [{"kind": ep.kind, "key": ep.key, "episode": ep.number, "raised_window": ep.raised_window,
                 "windows": ep.windows, "value": _round(ep.value), "peak": _round(ep.peak), "threshold": ep.threshold}
                for ep in self.active.values()]

    def close(self) -> None:
        self.raised.close()
        self.cleared.close()


def _round(v: float) -> float:
    return round(float(v), 6)
