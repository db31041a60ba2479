"""The run's output folder: what a run writes there, what it keeps, and the swap that finishes it.

A run writes its final datasets into `OUT/.tmp-<id>/` and swaps them in at the end, summary.json
last, so a run killed at any point leaves either the previous run whole or no summary.json. The
measurements (`measurements/`) and the takedown state (`blocklist/`, `takedowns/`, `ledger.jsonl`)
live in OUT itself and outlive the swap: the first so that a re-run resumes, the second because
a takedown must hold across runs. `judgements/` keeps the summary and config of the judgements an
in-place `audit decide` replaced (the last JUDGEMENTS_KEPT of them).
"""
from __future__ import annotations

import fcntl
import hashlib
import json
import os
import shutil
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from audit.config import AuditConfig, parse_config
from audit.io.shards import InputError, Shard
from audit.io.storage import Location, copy_file_to

JUDGEMENTS = "judgements"
JUDGEMENTS_KEPT = 10  # a short history: the judgements before the current one, newest last
# What a re-run into the same output folder keeps; everything else is replaced whole.
PRESERVED = ("blocklist", "takedowns", "ledger.jsonl", "ledger.jsonl.lock", JUDGEMENTS)
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


def run_manifest(out: Location) -> dict[str, Any]:
    """run.json of a run folder: what was read and how (InputError when it is missing or damaged)."""
    try:
        manifest = out.child("run.json").read_json()
    except (OSError, ValueError) as e:
        raise InputError(f"{out.child('run.json')}: cannot read the run's manifest ({e}): run `audit run` "
                         "into the folder again") from None
    if not isinstance(manifest, dict) or "config" not in manifest or "shards" not in manifest:
        raise InputError(f"{out.child('run.json')}: not an audit run manifest (no config or shards): run "
                         "`audit run` into the folder again")
    return manifest


def run_config(out: Location, manifest: dict[str, Any]) -> AuditConfig:
    """The config the run was made with (relative paths read from its base_dir, as the run read them)."""
    return parse_config(manifest["config"], base_dir=Path(manifest.get("base_dir", ".")),
                        source=str(out.child("run.json")))


def config_fingerprint(manifest: dict[str, Any]) -> str:
    """A digest of the run's whole config as run.json holds it (keys sorted): two runs judged by
    the same settings have the same one."""
    blob = json.dumps(manifest.get("config"), sort_keys=True, ensure_ascii=False, default=str)
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()


def ledger_head(out: Location) -> str | None:
    """The SHA-256 of the takedown ledger's last entry (what the next entry chains to), None when
    the folder has no ledger entry. The ledger's own rule: the hash of the entry's line bytes."""
    ledger = out.child("ledger.jsonl")
    if not ledger.is_file():
        return None
    lines = [line for line in ledger.read_bytes().split(b"\n") if line]
    return hashlib.sha256(lines[-1]).hexdigest() if lines else None


def archive_judgement(source: Location, history: Location) -> Location:
    """Keep `source`'s current judgement (summary.json and run.json, and `judgement.json`: what the
    history lists of it) as the next entry of the `history` folder (a run folder's judgements/),
    `<seq>-<finished>`; returns the entry's folder (`prune_judgements` then drops the oldest)."""
    summary = source.child("summary.json").read_json()
    entries = [p for p in history.ls() if p.name[:4].isdigit()]
    seq = max((int(p.name[:4]) for p in entries), default=0) + 1
    stamp = "".join(ch for ch in str(summary.get("finished") or summary.get("started") or "")[:19] if ch.isdigit())
    entry = history.child(f"{seq:04d}-{stamp or 'unknown'}")
    entry.mkdir()
    for name in ("run.json", "summary.json"):
        copy_tree(source.child(name), entry.child(name), link=False)
    entry.child("judgement.json").write_json({
        "seq": seq, "folder": f"{JUDGEMENTS}/{entry.name}", "finished": summary.get("finished"),
        "config_fingerprint": config_fingerprint(run_manifest(source)), "documents": summary.get("documents"),
        "kept": summary.get("kept"), "quarantined": summary.get("quarantined")})
    return entry


def prune_judgements(history: Location) -> None:
    """Drop the oldest entries of a judgements/ folder past JUDGEMENTS_KEPT (once the judgement that
    replaced the newest is in place: a failed decide loses no entry)."""
    entries = [p for p in history.ls() if p.name[:4].isdigit()]
    for old in entries[:max(0, len(entries) - JUDGEMENTS_KEPT)]:
        old.delete()


def judgement_history(out: Location) -> list[dict[str, Any]]:
    """The judgements kept in `out/judgements/`, oldest first: seq, folder, when it finished, its
    config fingerprint and counts (an entry that cannot be read is listed with its error)."""
    rows = []
    for entry in out.child(JUDGEMENTS).ls():
        if not entry.name[:4].isdigit():
            continue
        try:
            rows.append(entry.child("judgement.json").read_json())
        except (OSError, ValueError) as e:
            rows.append({"seq": int(entry.name[:4]), "folder": f"{JUDGEMENTS}/{entry.name}",
                         "error": f"unreadable entry: {e}"})
    return rows


# In a folder `audit decide --out` is filling: the run it copies. Gone once the new run is finished,
# so a folder holding it is an unfinished decide's, which the next decide into it may clear.
DECIDING = ".decide-from.json"


@contextmanager
def reading_run_folder(out: Location) -> Iterator[None]:
    """Keep `audit run` and `audit decide` out of `out` while it is read (a shared flock on its
    `.lock`, the lock they hold), writing nothing into it: the folder stays byte for byte."""
    path = Path(out.path) / ".lock" if out.is_local else None
    if path is None or not path.is_file():
        yield  # no run ever held it here (or an object store: no lock there)
        return
    fd = os.open(path, os.O_RDONLY)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except BlockingIOError:
            raise InputError(f"run folder {out}: in use by another run or decide: wait for it to finish") from None
        yield
    finally:
        os.close(fd)  # closing releases the lock


def start_new_run(src: Location, dest: Location) -> None:
    """Fill `dest` (new, empty, or an unfinished `decide --out` of ours) with what re-judging `src`
    needs besides its measurements: the takedown state (a takedown in force in `src` holds in
    `dest`: its blocklist, evidence and ledger are copied) and the judgement history, with `src`'s
    current judgement as its newest entry. Nothing of `src` is written."""
    if dest.is_file():
        raise InputError(f"decide --out {dest}: is a file, not a folder")
    entries = dest.ls()
    if entries and not dest.child(DECIDING).is_file():
        names = ", ".join(p.name for p in entries[:3]) + (", ..." if len(entries) > 3 else "")
        raise InputError(f"decide --out {dest}: holds {names}: give a new or empty folder (the run is re-judged "
                         "in place without --out)")
    for p in entries:  # a killed decide --out's copy: start it again
        p.delete()
    dest.mkdir()
    dest.child(DECIDING).write_json({"run": src.uri})
    for name in PRESERVED:
        if name.endswith(".lock") or not src.child(name).exists():
            continue
        copy_tree(src.child(name), dest.child(name), link=False)  # the ledger is appended in place: a copy
    archive_judgement(src, dest.child(JUDGEMENTS))
    prune_judgements(dest.child(JUDGEMENTS))


def copy_tree(src: Location, dest: Location, link: bool) -> None:
    """Copy a file or folder (temporary files left out). `link`: hard-link local files instead where
    the filesystem allows; only for files that are replaced whole, never changed in place."""
    files = [src] if src.is_file() else [f for f in src.walk() if not f.name.startswith(".")]
    for f in files:
        target = dest if f is src else dest.child(*f.path[len(src.path.rstrip("/")) + 1:].split("/"))
        if f.is_local and target.is_local:
            Path(target.path).parent.mkdir(parents=True, exist_ok=True)
            if link:
                try:
                    os.link(f.path, target.path)
                    continue
                except OSError:
                    pass  # another filesystem, or links refused: copy
            shutil.copy2(f.path, target.path)
        elif f.fs.equals(target.fs):
            target.fs.copy_file(f.path, target.path)
        else:
            copy_file_to(f, target)  # streamed through this machine
