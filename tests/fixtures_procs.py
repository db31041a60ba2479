"""Waiting on other processes by events: a process's exit (pidfd), a line of its output."""
from __future__ import annotations

import os
import queue
import select
import signal
import subprocess
import threading
import time
from pathlib import Path


def session_processes(sid: int) -> list[int]:
    """The live (or not yet reaped) processes of session `sid`, from /proc."""
    pids = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            stat = Path(f"/proc/{pid}/stat").read_text()
        except OSError:
            continue  # gone meanwhile
        if int(stat[stat.rindex(")") + 2:].split()[3]) == sid:  # fields after the name: state ppid pgrp session
            pids.append(int(pid))
    return pids


def wait_for_exit(pids: list[int], deadline: float) -> None:
    """Block until every process in `pids` has exited (each pidfd turns readable), by `deadline`."""
    fds = []
    for pid in pids:
        try:
            fds.append(os.pidfd_open(pid))
        except ProcessLookupError:
            pass  # exited and reaped already
    try:
        while fds:
            ready, _, _ = select.select(fds, [], [], max(0.0, deadline - time.monotonic()))
            assert ready, f"{len(fds)} processes still running at the deadline"
            for fd in ready:
                os.close(fd)
                fds.remove(fd)
    finally:
        for fd in fds:
            os.close(fd)


def kill_session(sid: int, timeout: float = 60.0) -> None:
    """SIGKILL every process of session `sid` (a process started with start_new_session, and all it
    started, whatever their process groups) and wait until they have exited."""
    pids = session_processes(sid)
    for pid in pids:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    wait_for_exit(pids, time.monotonic() + timeout)


def wait_for_line(proc: subprocess.Popen, needle: str, timeout: float) -> bool:
    """Read `proc`'s output on a thread (draining it to the end) until a line holds `needle`; False
    when the process ends or `timeout` passes first."""
    lines: queue.Queue[str | None] = queue.Queue()

    def pump() -> None:
        for line in proc.stdout:
            lines.put(line)
        lines.put(None)

    threading.Thread(target=pump, daemon=True).start()
    deadline = time.monotonic() + timeout
    while True:
        try:
            line = lines.get(timeout=max(0.0, deadline - time.monotonic()))
        except queue.Empty:
            return False
        if line is None:
            return False
        if needle in line:
            return True


def ended_or_ending(pid: int) -> bool:
    """Whether a process has ended or can only end: gone, a zombie, in the kernel's exit path
    (PF_EXITING) or with a SIGKILL pending (from /proc)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return True  # gone
    fields = stat[stat.rindex(")") + 2:].split()  # state ppid pgrp session tty tpgid flags ...
    pending = {k: int(v, 16) for k, v in (line.split(":\t") for line in status.splitlines())
               if k in ("SigPnd", "ShdPnd")}
    return fields[0] in "ZX" or bool(int(fields[6]) & 0x4) or any(v & (1 << (signal.SIGKILL - 1))
                                                                 for v in pending.values())
