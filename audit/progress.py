"""Progress of a run, phase by phase (plan, scan, dedup, decide, index, report).

Where standard error is a terminal: rich progress bars. Elsewhere (a log file, a CI job, a pipe):
plain lines, at least every `every` seconds and at each phase's end, as the contract gives them:

    [audit] scan 12/40 shards, 120000 records, 9.8 MB/s, ETA 0:01:05

The ETA comes from the input bytes still to read where the phase knows them (scan: the shards'
file sizes), else from the items still to do; `-:--:--` until the first item of a phase is done.
`enabled=False` (`--quiet`) prints nothing: errors are not this module's.
"""
from __future__ import annotations

import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TextIO

from audit.summary import summary_lines

PHASES = ("plan", "scan", "dedup", "decide", "index", "report")
UNITS = ("shards", "partitions", "parts")
UNKNOWN_ETA = "-:--:--"


@dataclass
class PhaseState:
    """What a phase has done so far: items, records, bytes of text (the rate) and, where the
    phase knows how much it reads, input bytes (the ETA: `size_total`)."""

    name: str
    total: int
    unit: str
    started: float
    done: int = 0
    records: int = 0
    nbytes: int = 0
    size_done: int = 0
    size_total: int = 0

    def eta(self, now: float) -> float | None:
        """Seconds left, None while there is nothing to estimate from."""
        if self.done >= self.total:
            return 0.0
        elapsed = now - self.started
        if self.size_total and self.size_done > 0:
            return max(0.0, (self.size_total - self.size_done) * elapsed / self.size_done)
        if self.done > 0:
            return (self.total - self.done) * elapsed / self.done
        return None

    def rate(self, now: float) -> float:
        """MB/s over the phase so far."""
        return self.nbytes / 1e6 / max(now - self.started, 1e-9)


def clock_text(seconds: float | None) -> str:
    """h:mm:ss, or -:--:-- for an unknown time."""
    if seconds is None:
        return UNKNOWN_ETA
    s = int(round(seconds))
    return f"{s // 3600}:{s % 3600 // 60:02d}:{s % 60:02d}"


def progress_line(p: PhaseState, now: float) -> str:
    """The plain line of a phase (CONTRACT.md, "Progress of `audit run`")."""
    return (f"[audit] {p.name} {p.done}/{p.total} {p.unit}, {p.records} records, {p.rate(now):.1f} MB/s, "
            f"ETA {clock_text(p.eta(now))}")


class Progress:
    """A run's progress on standard error: bars on a terminal, plain lines elsewhere.

    `start` opens a phase (ending the one before), `advance` counts finished items, `end` closes it
    with a line. A heartbeat thread prints the open phase's line when nothing else did for `every`
    seconds, so a long shard or a shuffle still shows the run is alive. `clock` is injectable for
    tests; `bars=None` picks bars when the stream is a terminal.
    """

    def __init__(self, enabled: bool = True, stream: TextIO | None = None, every: float = 10.0,
                 clock: Callable[[], float] = time.monotonic, bars: bool | None = None,
                 heartbeat: bool = True) -> None:
        self.enabled, self.every, self.clock = enabled, every, clock
        self.stream = stream or sys.stderr
        self.phase: PhaseState | None = None
        self.last = clock()
        self._lock = threading.RLock()
        self._stop = threading.Event()
        self._bars: Any = None  # rich.progress.Progress while bars are shown
        self._task: Any = None
        self._thread: threading.Thread | None = None
        if not enabled:
            return
        if bars if bars is not None else _is_terminal(self.stream):
            from rich.console import Console
            from rich.progress import BarColumn, MofNCompleteColumn, Progress as Bars, TextColumn

            self._bars = Bars(TextColumn("[audit] {task.description:<6}", markup=False), BarColumn(),
                              MofNCompleteColumn(),
                              TextColumn("{task.fields[unit]}, {task.fields[records]:,} records, "
                                         "{task.fields[rate]}, ETA {task.fields[eta]}"),
                              console=Console(file=self.stream, force_terminal=bars or None), transient=False)
            self._bars.start()
        if heartbeat:
            self._thread = threading.Thread(target=self._beat, name="audit-progress", daemon=True)
            self._thread.start()

    def __enter__(self) -> "Progress":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.stop()

    def start(self, name: str, total: int, unit: str, size_total: int = 0, done: int = 0,
              records: int = 0) -> None:
        """Open phase `name` of `total` items (`done` of them done already, e.g. reused shards) that
        read `size_total` input bytes in all (0: unknown)."""
        assert name in PHASES and unit in UNITS, (name, unit)
        with self._lock:
            if self.phase is not None and self.phase.name != name:
                self.end()
            self.phase = PhaseState(name, total, unit, self.clock(), done=done, records=records,
                                    size_total=size_total)
            if self._bars is not None:
                self._task = self._bars.add_task(name, total=max(total, 1), completed=done if total else 1,
                                                 **self._fields())

    def advance(self, done: int = 1, records: int = 0, nbytes: int = 0, size: int = 0) -> None:
        """`done` more items of the open phase finished, with their records, bytes of text and
        input bytes (`size`)."""
        with self._lock:
            p = self.phase
            if p is None:
                return
            p.done, p.records, p.nbytes = p.done + done, p.records + records, p.nbytes + nbytes
            p.size_done += size
            self._show(due_only=True)

    def end(self, records: int | None = None, nbytes: int | None = None) -> None:
        """Close the open phase: all its items done; its line (plain) or its full bar."""
        with self._lock:
            p = self.phase
            if p is None:
                return
            p.done = p.total
            if records is not None:
                p.records = records
            if nbytes is not None:
                p.nbytes = nbytes
            self._show(due_only=False)
            self.phase = None

    def say(self, text: str) -> None:
        """One line of its own (the dashboard's address, a warning), above the bars if shown."""
        if not self.enabled:
            return
        with self._lock:
            if self._bars is not None:
                self._bars.console.print(text, markup=False, highlight=False)
            else:
                print(text, file=self.stream, flush=True)

    def tick(self) -> None:
        """The open phase's line when none was printed for `every` seconds (bars: redrawn)."""
        with self._lock:
            self._show(due_only=True)

    def stop(self) -> None:
        """End the heartbeat and the bars (the open phase, if any, is left unfinished)."""
        self._stop.set()
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join()
        with self._lock:
            if self._bars is not None:
                self._bars.stop()
                self._bars = None

    def close(self, summary: dict[str, Any]) -> None:
        """The closing summary (audit.summary.summary_lines: counts, rate and every reason kind) and
        the run id, then stop."""
        self.stop()
        if not self.enabled:
            return
        for line in summary_lines(summary):
            print(f"[audit] {line}", file=self.stream, flush=True)
        if summary.get("run_id"):
            print(f"[audit] run {summary['run_id']}", file=self.stream, flush=True)

    def _fields(self) -> dict[str, Any]:
        p, now = self.phase, self.clock()
        assert p is not None
        return {"unit": p.unit, "records": p.records, "rate": f"{p.rate(now):.1f} MB/s",
                "eta": clock_text(p.eta(now))}

    def _show(self, due_only: bool) -> None:
        p, now = self.phase, self.clock()
        if not self.enabled or p is None:
            return
        if self._bars is not None:  # a bar is redrawn on every change; only plain lines are spaced out
            # a phase of no items (nothing to index) is a full bar, not an empty one
            self._bars.update(self._task, completed=p.done if p.total else 1, total=max(p.total, 1), **self._fields())
            return
        if due_only and now - self.last < self.every:
            return
        self.last = now
        print(progress_line(p, now), file=self.stream, flush=True)

    def _beat(self) -> None:
        """Wake when the next plain line is due (bars: every second, for their rate and ETA)."""
        while not self._stop.wait(1.0 if self._bars is not None else
                                  max(0.01, self.last + self.every - self.clock())):
            self.tick()


def _is_terminal(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False
