"""Running the monitor off the trainer's thread: in a thread, or in a child process.

Both kinds of worker take messages from a bounded queue that `Sidecar.observe` fills without
ever waiting (a full queue drops the sample and counts it):
  ("samples", [Sample, ...], totals)   records to measure, and the trainer side's counters
  ("totals", None, totals)             counters only (nothing was sampled for a while)
  ("malformed", None, n)               records the worker side could not decode
  ("stop", None, totals)               measure what is queued, write every file, exit
`WorkerLoop` drains the queue into a `StreamMonitor`, up to `batch_records` records and
`max_batch_bytes` of text at a time. Every queue is a `ByteQueue`: bounded in messages and in the
text bytes they carry (sidecar.max_buffered_bytes), so memory is bounded however long the records.
After `hurry(seconds)` (SIGTERM, close(hurry=True)) it measures for at most that long and counts
the rest as dropped, so shutdown is bounded.

`ProcessWorker` starts `python -m audit.sidecar.child` (a fresh interpreter: nothing of the
trainer is re-imported, no CUDA state is inherited, no pickle) and writes the messages to its
standard input as JSON lines from a writer thread; the first line is the config. The child
(audit/sidecar/child.py) answers one JSON line on standard output: {"t": "ready", "port": ...}
or {"t": "error", ...}.
"""
from __future__ import annotations

import json
import logging
import os
import queue
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson

from audit.config import AuditConfig

log = logging.getLogger("audit.sidecar")

Message = tuple[str, Any, Any]
STOP = "stop"


def sample_bytes(samples: Any) -> int:
    """Text bytes a message's samples hold (0 for counters-only messages)."""
    return sum(int(s.get("bytes") or len(s.get("text") or "")) for s in samples) if samples else 0


class ByteQueue(queue.Queue):
    """A queue bounded in messages (`maxsize`) and in the text bytes they carry (`max_bytes`).

    A message that would take the queue over `max_bytes` does not fit (put_nowait raises
    queue.Full, put waits), unless the queue is empty: one message, itself bounded by the
    sender, always gets through.
    """

    def __init__(self, maxsize: int, max_bytes: int) -> None:
        super().__init__(maxsize)
        self.max_bytes = max_bytes
        self.bytes = 0

    def _fits(self, n: int) -> bool:
        return self._qsize() < self.maxsize and (self.bytes == 0 or self.bytes + n <= self.max_bytes)

    def put(self, item: Message, block: bool = True, timeout: float | None = None) -> None:
        """Queue.put, waiting (or raising queue.Full) while the message does not fit."""
        n = sample_bytes(item[1])
        with self.not_full:
            end = None if timeout is None else time.monotonic() + timeout
            while not self._fits(n):
                left = None if end is None else end - time.monotonic()
                if not block or (left is not None and left <= 0):
                    raise queue.Full
                self.not_full.wait(left)
            self._put(item)
            self.bytes += n
            self.unfinished_tasks += 1
            self.not_empty.notify()

    def _get(self) -> Message:
        item = self.queue.popleft()
        self.bytes -= sample_bytes(item[1])
        return item


def in_chunks(samples: list[Any], records: int, max_bytes: int) -> list[list[Any]]:
    """`samples` cut into runs of at most `records` records and `max_bytes` text bytes (a longer
    record alone)."""
    out: list[list[Any]] = []
    run: list[Any] = []
    size = 0
    for s in samples:
        n = sample_bytes([s])
        if run and (len(run) >= records or size + n > max_bytes):
            out.append(run)
            run, size = [], 0
        run.append(s)
        size += n
    if run:
        out.append(run)
    return out


class WorkerLoop:
    """Feeds queued messages to a monitor until a stop message, `terminate`, or a dead parent."""

    def __init__(self, monitor: Any, inbox: "queue.Queue[Message]", batch_records: int,
                 alive: Callable[[], bool] | None = None, terminate: threading.Event | None = None,
                 batch_bytes: int = 1 << 62) -> None:
        self.monitor = monitor
        self.inbox = inbox
        self.batch_records = batch_records
        self.batch_bytes = batch_bytes
        self.alive = alive or (lambda: True)
        self.terminate = terminate or threading.Event()
        self._deadline: float | None = None

    def hurry(self, seconds: float) -> None:
        """From now on, measure for at most `seconds`; later samples count as dropped."""
        deadline = time.monotonic() + seconds
        self._deadline = deadline if self._deadline is None else min(self._deadline, deadline)

    def _late(self) -> bool:
        return self._deadline is not None and time.monotonic() > self._deadline

    def run(self) -> None:
        """Process messages until stopped, then close the monitor (every file written whole)."""
        try:
            self._loop()
        finally:
            self._drop_queued()
            self.monitor.close()

    def _loop(self) -> None:
        while not self.terminate.is_set():
            try:
                msg = self.inbox.get(timeout=0.25)
            except queue.Empty:
                if not self.alive():
                    log.warning("sidecar: the process that fed the sidecar has gone; stopping")
                    return
                continue
            batch: list[Any] = []
            stop = self._take(msg, batch)
            while not stop and len(batch) < self.batch_records and sample_bytes(batch) < self.batch_bytes:
                try:
                    stop = self._take(self.inbox.get_nowait(), batch)
                except queue.Empty:
                    break
            for chunk in in_chunks(batch, self.batch_records, self.batch_bytes):
                if self._late() or self.terminate.is_set():
                    self.monitor.count_local(dropped=len(chunk))
                else:
                    self.monitor.process(chunk)
            if stop:
                return

    def _take(self, msg: Message, batch: list[Any]) -> bool:
        """Apply one message; samples go to `batch`. True for a stop message."""
        kind, samples, extra = msg
        if kind == "malformed":
            self.monitor.count_local(malformed=int(extra))
            return False
        if extra:
            self.monitor.set_totals(extra)
        if samples:
            batch.extend(samples)
        return kind == STOP

    def _drop_queued(self) -> None:
        """Samples still queued at shutdown are counted as dropped."""
        while True:
            try:
                kind, samples, extra = self.inbox.get_nowait()
            except queue.Empty:
                return
            if kind == "malformed":
                self.monitor.count_local(malformed=int(extra))
                continue
            if extra:
                self.monitor.set_totals(extra)
            if samples:
                self.monitor.count_local(dropped=len(samples))


# ---------------------------------------------------------------- in a thread


class ThreadWorker:
    """The monitor in a daemon thread of this process (built there: models load off the caller)."""

    def __init__(self, config: AuditConfig, metrics_port: int | None, source: str) -> None:
        sc = config.sidecar
        self.inbox: queue.Queue[Message] = ByteQueue(sc.queue_batches, sc.max_buffered_bytes)
        self.ready = threading.Event()
        self.error: str | None = None
        self.port: int | None = None
        self.lost = 0  # never: the thread shares the queue (kept for the same interface)
        self.loop: WorkerLoop | None = None
        self._thread = threading.Thread(target=self._run, args=(config, metrics_port, source),
                                        name="audit-sidecar", daemon=True)
        self._thread.start()

    def _run(self, config: AuditConfig, metrics_port: int | None, source: str) -> None:
        from audit.sidecar.monitor import StreamMonitor

        try:
            monitor = StreamMonitor(config, metrics_port=metrics_port, source=source)
        except Exception as e:
            self.error = f"{type(e).__name__}: {e}"
            log.error("sidecar: the worker could not start: %s", self.error)
            self.ready.set()
            return
        self.port = monitor.metrics_port
        self.loop = WorkerLoop(monitor, self.inbox, config.sidecar.batch_records,
                               batch_bytes=config.sidecar.max_batch_bytes)
        self.ready.set()
        self.loop.run()

    def put_nowait(self, msg: Message) -> bool:
        try:
            self.inbox.put_nowait(msg)
            return True
        except queue.Full:
            return False

    def stop(self, totals: dict[str, int], hurry_seconds: float | None, timeout: float) -> None:
        """Send the stop message; wait for the files to be written (at most `timeout` seconds)."""
        self.ready.wait(timeout)
        if self.loop is not None and hurry_seconds is not None:
            self.loop.hurry(hurry_seconds)
        end = time.monotonic() + timeout
        while self._thread.is_alive():
            try:
                self.inbox.put((STOP, None, totals), timeout=0.2)
                break
            except queue.Full:
                if time.monotonic() > end:
                    break
        self._thread.join(max(0.0, end - time.monotonic()))
        if self._thread.is_alive() and self.loop is not None:
            self.loop.terminate.set()
            self._thread.join(10)

    @property
    def alive(self) -> bool:
        return self._thread.is_alive()


# ---------------------------------------------------------------- in a child process


def _dumps(obj: dict[str, Any]) -> bytes:
    """One JSON line; text with lone surrogates (which orjson refuses) goes through json's escapes."""
    try:
        return orjson.dumps(obj)
    except orjson.JSONEncodeError:
        return json.dumps(obj).encode("ascii")


def loads(line: bytes) -> Any:
    """Parse a line written by `_dumps` (json's lone-surrogate escapes included)."""
    try:
        return orjson.loads(line)
    except orjson.JSONDecodeError:
        return json.loads(line)


def _child_env() -> dict[str, str]:
    """The environment of the child: this `audit` package importable whatever the cwd."""
    env = dict(os.environ)
    root = str(Path(__file__).resolve().parents[2])
    env["PYTHONPATH"] = root + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    return env


class ProcessWorker:
    """The monitor in `python -m audit.sidecar.child`, fed JSON lines through a pipe."""

    def __init__(self, config: AuditConfig, metrics_port: int | None, source: str) -> None:
        sc = config.sidecar
        self.outbox: queue.Queue[Message] = ByteQueue(sc.queue_batches, sc.max_buffered_bytes)
        self.ready = threading.Event()
        self.error: str | None = None
        self.port: int | None = None
        self.lost = 0  # samples written to a child that had gone
        self.proc = subprocess.Popen([sys.executable, "-m", "audit.sidecar.child"], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, env=_child_env(), close_fds=True)
        assert self.proc.stdin is not None and self.proc.stdout is not None
        first = {"t": "config", "config": config.model_dump(mode="json"), "base_dir": str(config.base_dir),
                 "metrics_port": metrics_port, "source": source}
        try:
            self.proc.stdin.write(orjson.dumps(first) + b"\n")
            self.proc.stdin.flush()
        except OSError:
            pass  # the child died at once: wait_ready() reports it
        self._writer = threading.Thread(target=self._write, name="audit-sidecar-writer", daemon=True)
        self._reader = threading.Thread(target=self._read, name="audit-sidecar-reader", daemon=True)
        self._writer.start()
        self._reader.start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            try:
                msg = orjson.loads(line)
            except orjson.JSONDecodeError:
                continue
            if msg.get("t") == "ready":
                self.port = msg.get("port")
            elif msg.get("t") == "error":
                self.error = msg.get("message")
            self.ready.set()
        self.ready.set()  # the child exited (maybe before it was ready)

    def _write(self) -> None:
        assert self.proc.stdin is not None
        pipe = self.proc.stdin
        while True:
            kind, samples, extra = self.outbox.get()
            line = {"t": kind, "r": samples, "c": extra} if kind != "malformed" else {"t": kind, "n": extra}
            try:
                pipe.write(_dumps(line) + b"\n")
                pipe.flush()
            except (BrokenPipeError, OSError, ValueError):
                self.lost += len(samples or ())
                if kind == STOP:
                    return
                continue
            if kind == STOP:
                try:
                    pipe.close()
                except OSError:
                    pass
                return

    def put_nowait(self, msg: Message) -> bool:
        try:
            self.outbox.put_nowait(msg)
            return True
        except queue.Full:
            return False

    def stop(self, totals: dict[str, int], hurry_seconds: float | None, timeout: float) -> None:
        """Send the stop message and wait for the child; SIGTERM it (it then flushes) if it is late."""
        end = time.monotonic() + timeout
        while self._writer.is_alive():
            try:
                self.outbox.put((STOP, None, totals), timeout=0.2)
                break
            except queue.Full:
                if time.monotonic() > end or self.proc.poll() is not None:
                    break
        remaining = max(0.0, end - time.monotonic())
        try:
            self.proc.wait(remaining if hurry_seconds is None else min(hurry_seconds, remaining))
        except subprocess.TimeoutExpired:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self._writer.join(1)

    @property
    def alive(self) -> bool:
        return self.proc.poll() is None
