"""The sidecar's worker process: `python -m audit.sidecar.child`, started by `ProcessWorker`.

It reads the config from the first line of standard input, builds the monitor (models load
here, not in the trainer), answers {"t": "ready", "port": ...} (or {"t": "error", ...}) on
standard output, then measures the messages that follow as JSON lines (see worker.py). It
ignores SIGINT (the trainer decides when to stop it: a Ctrl-C reaches the whole process group),
and on SIGTERM, end of input or its parent's death writes every file and exits. Not imported by
the package, so `-m` runs it without importing it twice.
"""
from __future__ import annotations

import os
import queue
import signal
import sys
import threading
from pathlib import Path
from typing import Any

import orjson

from audit.sidecar.alerts import setup_logging
from audit.sidecar.worker import STOP, ByteQueue, Message, WorkerLoop, loads


def _decode(line: bytes) -> Message | None:
    msg = loads(line)
    kind = msg.get("t")
    if kind == "malformed":
        return ("malformed", None, int(msg.get("n") or 0))
    if kind in ("samples", "totals", STOP):
        return (kind, msg.get("r"), msg.get("c"))
    return None


def child_main() -> int:
    """`python -m audit.sidecar.child`: the monitor fed by the parent's JSON lines on stdin."""
    from audit.config import parse_config
    from audit.sidecar.monitor import StreamMonitor

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    terminate = threading.Event()  # set by SIGTERM, also while the models are loading
    signal.signal(signal.SIGTERM, lambda signum, frame: terminate.set())
    setup_logging()
    stdin, stdout = sys.stdin.buffer, sys.stdout.buffer

    def answer(obj: dict[str, Any]) -> None:
        stdout.write(orjson.dumps(obj) + b"\n")
        stdout.flush()

    try:
        first = orjson.loads(stdin.readline())
        config = parse_config(first["config"], base_dir=Path(first["base_dir"]), source="sidecar config")
        monitor = StreamMonitor(config, metrics_port=first.get("metrics_port"), source=first.get("source", "api"))
    except Exception as e:
        answer({"t": "error", "message": f"{type(e).__name__}: {e}"})
        return 2
    parent = os.getppid()
    inbox: queue.Queue[Message] = ByteQueue(config.sidecar.queue_batches, config.sidecar.max_buffered_bytes)
    loop = WorkerLoop(monitor, inbox, config.sidecar.batch_records, alive=lambda: os.getppid() == parent,
                      terminate=terminate, batch_bytes=config.sidecar.max_batch_bytes)

    def read() -> None:
        for line in stdin:
            try:
                msg = _decode(line)
            except (AttributeError, TypeError, ValueError):  # JSONDecodeError is a ValueError
                msg = ("malformed", None, 1)
            if msg is not None:
                inbox.put(msg)
                if msg[0] == STOP:
                    return
        inbox.put((STOP, None, None))  # the parent closed the pipe

    threading.Thread(target=read, name="audit-sidecar-stdin", daemon=True).start()
    answer({"t": "ready", "port": monitor.metrics_port, "pid": os.getpid()})
    loop.run()
    return 0


if __name__ == "__main__":
    sys.exit(child_main())
