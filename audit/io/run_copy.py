"""A run folder on object storage, worked on through a local copy (lookup, takedown, ledger).

Lookups and takedowns read a run's takedown state (manifest, blocklist, takedowns, ledger) with
local file code; for a run at an s3:// (or other) URI, `local_run` copies those small files into a
temporary folder and, for a command that changes the run, uploads what it changed back, each file
written whole. The index and lineage, as large as the corpus, are read where they are
(`data_location`): a lookup reads a few row groups of the index by ranged reads.
Concurrent takedowns on one object-store run are not serialised (no lock spans the copy): run
them one at a time there.
"""
from __future__ import annotations

import json
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from audit.io.storage import Location, location

# What lookup, takedown and ledger commands read of a run through the local copy.
READ = ("run.json", "summary.json", "blocklist", "takedowns", "ledger.jsonl")
ORIGIN = ".origin.json"  # in a local copy: the URI of the run it copies


def data_location(run: Path) -> Location:
    """Where the index and lineage of `run` are read: the object-store run a local copy was made
    of, else the folder itself."""
    marker = run / ORIGIN
    if marker.is_file():
        return location(json.loads(marker.read_text(encoding="utf-8"))["uri"])
    return location(run.absolute())


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
        (local / ORIGIN).write_text(json.dumps({"uri": loc.uri}), encoding="utf-8")
        yield local
        for name in write_back:
            if (local / name).exists():
                loc.child(name).upload(local / name)
