"""The run's output folder: what a run writes there, what it keeps, and the swap that finishes it.

A run writes its final datasets into `OUT/.tmp-<id>/` and swaps them in at the end, summary.json
last, so a run killed at any point leaves either the previous run whole or no summary.json. The
measurements (`measurements/`) and the takedown state (`blocklist/`, `takedowns/`, `ledger.jsonl`)
live in OUT itself and outlive the swap: the first so that a re-run resumes, the second because
a takedown must hold across runs.
"""
from __future__ import annotations

import uuid
from pathlib import Path

from audit.io.shards import InputError, Shard
from audit.io.storage import Location

# What a re-run into the same output folder keeps; everything else is replaced whole.
PRESERVED = ("blocklist", "takedowns", "ledger.jsonl", "ledger.jsonl.lock")
MEASUREMENTS = "measurements"
DATASETS = ("lineage", "quarantine", "duplicates", "contamination", "pii")
# What a run writes: a folder holding anything else is not a run folder, and is not touched.
RUN_OUTPUTS = (*DATASETS, "index", "unreadable.jsonl", "run.json", "summary.json", "report.html")
KNOWN = (*RUN_OUTPUTS, MEASUREMENTS, *PRESERVED, ".lock")


def require_finished(out: Location, command: str) -> None:
    """Refuse a run folder that is not finished (no summary.json, which the swap writes last).

    `lookup`, `takedown`, `decide`, `export` and `ledger` answer from a finished run only: an
    unfinished folder would answer "0 records" as if that were the truth. One line, exit 2.
    """
    if out.child("summary.json").is_file():
        return
    if not out.exists():
        raise InputError(f"{command}: run folder {out} does not exist: give the folder `audit run` wrote")
    raise InputError(f"{command}: run folder {out} is unfinished (no summary.json: the run was stopped or is "
                     "still running): finish it with `audit run CONFIG --out " f"{out}` (finished shards are reused)")


def check_output_folder(out: Location, shards: list[Shard]) -> None:
    """Refuse an output folder that is not (yet) a run folder: a re-run replaces what a run
    wrote, and nothing of a user's own may stand in the way (or be read as a shard)."""
    if out.is_local:
        resolved = out.local_path().resolve()
        inside = [s.path for s in shards
                  if "://" not in str(s.location) and Path(s.location).resolve().is_relative_to(resolved)]
    else:
        inside = [s.path for s in shards if str(s.location).rstrip("/").startswith(out.uri.rstrip("/") + "/")]
    if inside:
        raise InputError(f"output {out}: holds input shards ({inside[0]}, ...): write the run to another folder")
    if out.is_file():
        raise InputError(f"output {out}: is a file, not a folder")
    foreign = [p.name for p in out.ls() if p.name not in KNOWN and not p.name.startswith((".tmp-", ".old-"))]
    if foreign:
        raise InputError(f"output {out}: holds {', '.join(foreign[:3])}{', ...' if len(foreign) > 3 else ''}, "
                         "which no audit run wrote: use an empty folder or an earlier run's folder")


def clean_leftovers(out: Location) -> None:
    """Remove the temporary folders of runs that were killed before they finished."""
    for p in out.ls():
        if p.name.startswith((".tmp-", ".old-")):
            p.delete()


def new_work_folder(out: Location) -> Location:
    """A fresh `.tmp-<id>` folder inside `out` for this run's final datasets."""
    work = out.child(f".tmp-{uuid.uuid4().hex[:12]}")
    work.mkdir()
    return work


def replace_run(out: Location, work: Location) -> None:
    """Swap the finished run into `out`: old outputs out of the way first, summary.json last.

    A run killed during the swap leaves no summary.json, so a half-replaced folder never looks
    like a finished run; the next run clears the leftovers.
    """
    old = out.child(f".old-{work.name[5:]}")
    old.mkdir()
    for p in sorted(out.ls(), key=lambda p: p.name != "summary.json"):  # the old summary goes first
        if p.name in RUN_OUTPUTS:
            p.move_to(old.child(p.name))
    for p in sorted(work.ls(), key=lambda p: p.name == "summary.json"):
        if not p.name.startswith("."):
            p.move_to(out.child(p.name))
    old.delete()
    work.delete()
