"""One run at a time in an output folder: a filelock on `OUT/.lock`, held for the whole run.

filelock takes the kernel's lock (flock), so it is released however its holder ends, SIGKILL
included, and a stale `.lock` file left behind never blocks the next run. The file names the
holder (pid, host, start time) for the message a second run prints. Object-storage folders have
no such lock: there a second run is not stopped (see README, "Running on a cluster").
"""
from __future__ import annotations

import json
import os
import socket
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime, timezone
from pathlib import Path

from filelock import FileLock, Timeout

from audit.io.shards import InputError
from audit.io.storage import Location

LOCK_NAME = ".lock"


@contextmanager
def hold_run_folder(out: Location, what: str = "audit run") -> Iterator[None]:
    """Hold `out`'s run lock for the block; InputError (exit 2) when another run holds it."""
    if not out.is_local:
        yield
        return
    path = Path(out.path) / LOCK_NAME
    lock = FileLock(str(path), timeout=0)
    try:
        lock.acquire()
    except Timeout:
        raise InputError(f"output {out}: in use by another run ({_holder(path)}): wait for it to finish "
                         "or write to another folder") from None
    try:
        _name_holder(path, what)
        yield
    finally:
        lock.release()


def _name_holder(path: Path, what: str) -> None:
    """Write who holds the lock into the lock file (filelock keeps the file and never truncates it)."""
    fd = os.open(path, os.O_WRONLY)
    try:
        os.ftruncate(fd, 0)
        os.pwrite(fd, json.dumps({"pid": os.getpid(), "host": socket.gethostname(), "command": what,
                                  "started": datetime.now(timezone.utc).isoformat(timespec="seconds")}).encode(), 0)
    finally:
        os.close(fd)


def _holder(path: Path) -> str:
    """Who holds the lock, as its file says."""
    try:
        h = json.loads(path.read_text())
        return f"{h.get('command', 'audit')} pid {h.get('pid')} on {h.get('host')} since {h.get('started')}"
    except (OSError, ValueError):
        return "holder unknown"
