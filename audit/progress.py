"""Progress on long runs: a line every few seconds (records, MB, MB/s) and a closing summary."""
from __future__ import annotations

import sys
import time
from typing import Any, TextIO

from audit.summary import summary_lines


class Progress:
    """Prints `[audit] 12,345 records  45.2 MB  9.8 MB/s` to stderr at most every `every` seconds."""

    def __init__(self, enabled: bool = True, total_shards: int = 0, every: float = 5.0,
                 stream: TextIO | None = None) -> None:
        self.enabled, self.total_shards, self.every = enabled, total_shards, every
        self.stream = stream or sys.stderr
        self.records = self.bytes = 0
        self.t0 = self.last = time.perf_counter()

    def update(self, records: int, nbytes: int) -> None:
        self.records += records
        self.bytes += nbytes
        now = time.perf_counter()
        if self.enabled and now - self.last >= self.every:
            self.last = now
            self._line(now)

    def _line(self, now: float) -> None:
        mb = self.bytes / 1e6
        rate = mb / max(now - self.t0, 1e-9)
        print(f"[audit] {self.records:,} records  {mb:,.1f} MB  {rate:,.1f} MB/s", file=self.stream, flush=True)

    def close(self, summary: dict[str, Any]) -> None:
        """The closing summary (audit.summary.summary_lines): counts, rate and every reason kind."""
        if not self.enabled:
            return
        for line in summary_lines(summary):
            print(f"[audit] {line}", file=self.stream, flush=True)
