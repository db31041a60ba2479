"""Faults for the trust tests: a filesystem whose reads fail, local runs, and a small full disk.

`FlakyFileSystem` is a real fsspec filesystem (the local one, under `flaky://local/...`) whose
reads of a named file fail with ECONNRESET a given number of times, as an object store's
connection does; audit.io.storage reaches it through fsspec like any other scheme.
"""
from __future__ import annotations

import errno
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import fsspec
from fsspec.implementations.local import LocalFileSystem, LocalFileOpener

from audit.config import parse_config
from audit.job.plan import RunResult, run_audit
from tests.fixtures_runs import CORPUS_JOB

FLAKY = "flaky://local"
REPO = Path(__file__).resolve().parents[1]


class _FailingFile(LocalFileOpener):
    """A local file whose reads fail while its name has failures left (FlakyFileSystem.failures)."""

    def read(self, *args: Any, **kwargs: Any) -> bytes:
        name = os.path.basename(self.path)
        left = FlakyFileSystem.failures.get(name, 0)
        if left:
            FlakyFileSystem.failures[name] = left - 1 if left > 0 else left  # < 0: fails for ever
            raise ConnectionResetError(errno.ECONNRESET, "Connection reset by peer")
        return super().read(*args, **kwargs)


class FlakyFileSystem(LocalFileSystem):
    """The local filesystem under flaky://local/<absolute path>, with reads that fail on demand."""

    protocol = ("flaky",)
    failures: dict[str, int] = {}  # file name -> reads left to fail (-1: every read)

    @classmethod
    def _strip_protocol(cls, path: Any) -> str:
        path = fsspec.utils.stringify_path(path)
        return super()._strip_protocol(path[len(FLAKY):] if path.startswith(FLAKY) else path)

    def _open(self, path: str, mode: str = "rb", **kwargs: Any) -> Any:
        if "r" in mode:
            return _FailingFile(self._strip_protocol(path), mode, fs=self, **kwargs)
        return super()._open(path, mode, **kwargs)


fsspec.register_implementation("flaky", FlakyFileSystem, clobber=True)


def local_run(root: Path, name: str, paths: list[str] | None = None) -> RunResult:
    """A run in this process (no Ray) over `paths` (default root/shards/) into root/name."""
    config = parse_config({"input": {"paths": paths or ["shards/"]}, "output": name, **CORPUS_JOB,
                           "ray": {"executor": "local"}}, base_dir=root)
    return run_audit(config, out=root / name, progress=False)


def write_local_config(root: Path, name: str = "run") -> Path:
    """A config file for `audit run` over root/shards/ in this process (no Ray), output root/name."""
    path = root / "audit.yaml"  # JSON is YAML
    path.write_text(json.dumps({"input": {"paths": ["shards/"]}, "output": name, **CORPUS_JOB,
                                "ray": {"executor": "local"}}))
    return path


def unreadable(run: Path) -> list[dict]:
    """A run's unreadable.jsonl rows."""
    return [json.loads(line) for line in (run / "unreadable.jsonl").read_text().splitlines()]


def audit_in_subprocess(argv: list[str], cwd: Path, *, fsize: int | None = None, tmpfs: tuple[Path, int] | None = None,
                        timeout: float = 120) -> subprocess.CompletedProcess:
    """`python -m audit ARGV` in a child process; `fsize`: under RLIMIT_FSIZE (writes past it fail
    with EFBIG); `tmpfs`: with (folder, bytes) mounted as a tmpfs of that size in a private mount
    namespace (`unshare`), so writes there fail with a real ENOSPC."""
    env = {**os.environ, "PYTHONPATH": f"{REPO}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"}
    cmd = [sys.executable, "-m", "audit", *argv]
    if tmpfs is not None:
        folder, size = tmpfs
        folder.mkdir(parents=True, exist_ok=True)
        script = f'mount -t tmpfs -o size={size} tmpfs "{folder}" && exec "$@"'
        cmd = ["unshare", "-rm", "sh", "-c", script, "sh", *cmd]

    def limit() -> None:
        import resource
        import signal

        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the limit fails with EFBIG, not a kill
        resource.setrlimit(resource.RLIMIT_FSIZE, (fsize, fsize))

    return subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout,
                          preexec_fn=limit if fsize is not None else None)


def can_mount_tmpfs(where: Path) -> bool:
    """Whether this machine lets a private mount namespace mount a tmpfs (unshare -rm)."""
    if shutil.which("unshare") is None:
        return False
    where.mkdir(parents=True, exist_ok=True)
    probe = subprocess.run(["unshare", "-rm", "sh", "-c", f'mount -t tmpfs -o size=64k tmpfs "{where}"'],
                           capture_output=True, timeout=30)
    return probe.returncode == 0


def pids_titled(prefix: str) -> list[int]:
    """Processes on this machine whose command line starts with `prefix` (a Ray worker running
    a task is titled "ray::<task name>")."""
    out = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                cmd = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
            except OSError:
                continue  # it ended meanwhile
            if cmd.startswith(prefix):
                out.append(int(entry.name))
    return out


def fill_device(path: str) -> None:
    """Write to `path` until the device refuses (on /dev/full: a real ENOSPC at once)."""
    with open(path, "wb", buffering=0) as f:
        f.write(b"\0" * (1 << 16))
