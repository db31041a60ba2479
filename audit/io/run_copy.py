"""A run folder on object storage, worked on through a local copy (lookup, takedown, ledger).

Lookups and takedowns read a run's index, lineage and takedown state with local file code; for a
run at an s3:// (or other) URI, `local_run` copies what they read into a temporary folder and,
for a command that changes the run, uploads what it changed back, each file written whole.
Concurrent takedowns on one object-store run are not serialised (no lock spans the copy): run
them one at a time there.
"""
from __future__ import annotations

import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from audit.io.storage import location

# What lookup, takedown and ledger commands read of a run.
READ = ("run.json", "summary.json", "index", "lineage", "blocklist", "takedowns", "ledger.jsonl")


@contextmanager
def local_run(run: str | Path, write_back: tuple[str, ...] = (), read: tuple[str, ...] = READ) -> Iterator[Path]:
    """The run folder as a local path: itself when local, else a copy of `read`; on a clean exit,
    the entries named in `write_back` are uploaded back (a failed command changes nothing there)."""
    loc = location(run, Path.cwd())
    if loc.is_local:
        yield Path(loc.path)
        return
    with tempfile.TemporaryDirectory(prefix="audit-run-") as tmp:
        local = Path(tmp) / "run"
        local.mkdir()
        for name in read:
            loc.child(name).download(local / name)
        yield local
        for name in write_back:
            if (local / name).exists():
                loc.child(name).upload(local / name)
