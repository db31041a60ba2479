"""The takedown ledger: `ledger.jsonl`, append-only, a hash chain over its entries and their evidence.

Each line is one entry in canonical JSON (sorted keys, no spaces) holding `seq` (1-based line
number), `prev_sha256` (SHA-256 of the previous line's bytes; 64 zeros for the first),
`evidence` / `evidence_sha256` (the entry's archived evidence file and its hash) and
`entry_sha256` (SHA-256 of the entry without that field). Editing a line breaks its own hash,
removing or reordering lines breaks `seq` and the chain, and an archived evidence file that no
entry names shows that the last entries were cut off. Writers hold `ledger.jsonl.lock` (filelock)
from reading the chain's head to appending, so concurrent takedowns cannot interleave.

A takedown archives its evidence before it appends its entry; one killed in between leaves an
archive written for the current head. The next writer finds it (`recover_lost_entries`) and
appends the entry it was owed, built from the evidence alone, before anything else. One killed
after writing its blocklist file but before its evidence leaves only that file (named for the
current head): the next writer records it in a `blocklist_accept` entry that vouches for it alone.
"""
from __future__ import annotations

import hashlib
from datetime import datetime, timezone
import json
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from filelock import FileLock

from audit.io.atomic import write_text_atomic
from audit.takedown.evidence import evidence_html

LEDGER = "ledger.jsonl"
LOCK = "ledger.jsonl.lock"
GENESIS = "0" * 64
EVIDENCE_ARCHIVE = re.compile(r"^(\d{6})-[a-z_]+\.evidence\.json$")


def canonical(obj: dict[str, Any]) -> str:
    """The one byte form of an entry: sorted keys, no spaces, UTF-8."""
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def sha256_bytes(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def sha256_file(path: Path) -> str:
    """SHA-256 of a file's bytes, streamed."""
    h = hashlib.sha256()
    with open(path, "rb") as f:
        while chunk := f.read(1 << 20):
            h.update(chunk)
    return h.hexdigest()


def ledger_lock(run_dir: Path, timeout: float = 600.0) -> FileLock:
    """The lock every ledger writer holds (also serialises takedowns against one run)."""
    return FileLock(str(Path(run_dir) / LOCK), timeout=timeout)


def _lines(run_dir: Path) -> list[bytes]:
    path = Path(run_dir) / LEDGER
    if not path.is_file():
        return []
    data = path.read_bytes()
    lines = data.split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()
    return lines


def head(run_dir: Path) -> tuple[int, str]:
    """(seq the next entry gets, prev_sha256 it must carry). Call while holding the lock."""
    lines = _lines(run_dir)
    return len(lines) + 1, (sha256_bytes(lines[-1]) if lines else GENESIS)


def append_entry(run_dir: Path, entry: dict[str, Any]) -> dict[str, Any]:
    """Chain `entry` onto the ledger and append it durably. Call while holding ledger_lock.

    `entry` must not carry seq, prev_sha256 or entry_sha256: they are set here.
    """
    seq, prev = head(run_dir)
    full = {**entry, "seq": seq, "prev_sha256": prev}
    full["entry_sha256"] = sha256_bytes(canonical(full).encode("utf-8"))
    path = Path(run_dir) / LEDGER
    with open(path, "ab") as f:
        if f.tell() and not path.read_bytes().endswith(b"\n"):
            f.write(b"\n")  # a torn last line stays its own (bad) line, never merges with ours
        f.write(canonical(full).encode("utf-8") + b"\n")
        f.flush()
        os.fsync(f.fileno())
    return full


def entry_from_evidence(ev: dict[str, Any]) -> dict[str, Any]:
    """The fields of a ledger entry that restate its evidence (the one map from evidence to entry)."""
    summary = ev.get("summary") or {}
    return {"request_id": ev.get("request_id"), "mode": ev.get("mode"),
            "time": (ev.get("timestamps") or {}).get("finished"),
            "request_sha256": (ev.get("request") or {}).get("file_sha256"),
            "located": summary.get("records"), "content_sha256": summary.get("distinct_sha256"),
            "verification_ok": (ev.get("verification") or {}).get("ok"),
            "tool_version": (ev.get("tool") or {}).get("version")}


def blocklist_fields(run_dir: Path, ev: dict[str, Any]) -> dict[str, Any]:
    """The ledger fields vouching for the blocklist file a takedown's evidence says it added."""
    import pyarrow.parquet as pq

    action = ev.get("action") or {}
    rel = action.get("blocklist_file")
    # a privacy takedown hashes identifiers in earlier takedowns' files too: it vouches for their new bytes
    out: dict[str, Any] = {"blocklist_rewritten": action["blocklist_rewritten"]} \
        if action.get("blocklist_rewritten") else {}
    if not isinstance(rel, str) or not (Path(run_dir) / rel).is_file():
        return out
    path = Path(run_dir) / rel
    return {**out, "blocklist_file": rel, "blocklist_sha256": sha256_file(path),
            "blocklist_rows": pq.ParquetFile(path).metadata.num_rows}


def _read_evidence(path: Path) -> dict[str, Any] | None:
    try:
        ev = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return ev if isinstance(ev, dict) else None


def _archives(run_dir: Path) -> list[tuple[int, Path]]:
    """(seq it was written as, path) of every archived evidence file, by seq."""
    found = []
    for p in (Path(run_dir) / "takedowns").glob("*/history/*.evidence.json"):
        m = EVIDENCE_ARCHIVE.match(p.name)
        if m:
            found.append((int(m.group(1)), p))
    return sorted(found)


def recover_lost_entries(run_dir: Path) -> list[dict[str, Any]]:
    """Append the entry of every takedown that archived its evidence but was killed before its
    append (its evidence names the current head); returns the entries appended. Hold the lock."""
    run_dir = Path(run_dir)
    appended: list[dict[str, Any]] = []
    while True:
        seq, prev = head(run_dir)
        lost = None
        for n, path in _archives(run_dir):
            ev = _read_evidence(path) if n == seq else None
            place = (ev or {}).get("ledger") or {}
            if ev is not None and (place.get("seq"), place.get("prev_sha256")) == (seq, prev):
                lost = path, ev
                break
        if lost is None:
            orphans = _killed_blocklist_files(run_dir, seq)
            if orphans:
                appended.append(append_entry(run_dir, {
                    "kind": ACCEPT, "reason": "blocklist files of a takedown killed before its evidence was written",
                    "changes": [f"{f} is in no ledger entry" for f in sorted(orphans)],
                    "blocklist": {**expected_blocklist(read_entries(run_dir)), **orphans},
                    "time": datetime.now(timezone.utc).isoformat(timespec="seconds")}))
            return appended
        path, ev = lost
        body = path.read_text(encoding="utf-8")
        page_path = path.with_name(path.name[:-len(".json")] + ".html")
        # The page is written after the JSON: a takedown killed between the two lacks it.
        page = page_path.read_text(encoding="utf-8") if page_path.is_file() else evidence_html(ev)
        if not page_path.is_file():
            write_text_atomic(page_path, page)
        appended.append(append_entry(run_dir, {
            **entry_from_evidence(ev),
            "evidence": path.relative_to(run_dir).as_posix(), "evidence_sha256": sha256_bytes(body.encode("utf-8")),
            "evidence_html": page_path.relative_to(run_dir).as_posix(),
            "evidence_html_sha256": sha256_bytes(page.encode("utf-8")),
            **blocklist_fields(run_dir, ev),
        }))
        # It is the newest takedown of its request: the latest copies were never written either.
        for name, content in (("evidence.json", body), ("evidence.html", page)):
            write_text_atomic(path.parent.parent / name, content)


def _killed_blocklist_files(run_dir: Path, seq: int) -> dict[str, str]:
    """{file: SHA-256} of blocklist files no entry vouches for that a takedown wrote as entry `seq`
    (the next one) and was killed before archiving its evidence: they only block more, so they are
    recorded rather than dropped; any other difference is left for verify to name."""
    have = blocklist_state(run_dir)
    want = expected_blocklist(read_entries(run_dir))
    return {f: h for f, h in have.items() if f not in want and f.endswith(f"-{seq:06d}.parquet")}


def _evidence_file_problem(run_dir: Path, rel: str, recorded: Any) -> str | None:
    """Why an evidence file an entry names does not hold (None when it does): missing, or its
    bytes no longer hash to what the entry recorded."""
    path = run_dir / rel
    if not path.is_file():
        return f"its evidence file {rel} is missing (it was deleted or moved)"
    if isinstance(recorded, str) and sha256_file(path) != recorded:
        return f"its evidence file {rel} was changed (SHA-256 differs from the one the entry recorded)"
    return None


def _against_evidence(e: dict[str, Any], path: Path, n: int, prev: str) -> str | None:
    """An entry must say what its evidence says: an edit whose hashes were recomputed still shows."""
    ev = _read_evidence(path)
    if ev is None:
        return f"its evidence file {path.name} is not a readable JSON object"
    place = ev.get("ledger") or {}
    if (place.get("seq"), place.get("prev_sha256")) != (n, prev):
        return (f"its evidence was written as entry {place.get('seq')} on another chain head: the entry was "
                "moved, or appended without holding the ledger lock")
    for k, v in {**entry_from_evidence(ev),
                 "blocklist_rewritten": (ev.get("action") or {}).get("blocklist_rewritten") or None}.items():
        if e.get(k) != v:
            return f"its field '{k}' says {e.get(k)!r} but its evidence says {v!r}: the entry was edited"
    return None


@dataclass
class LedgerReport:
    """The outcome of verifying a ledger: ok, or the first bad entry and why; the chain's head
    (SHA-256 of its last line) and every line's hash, to hold it to an anchor kept elsewhere."""

    ok: bool
    entries: int
    bad_entry: int | None = None
    problem: str | None = None
    head: str = GENESIS
    line_hashes: tuple[str, ...] = ()
    notes: list[str] = field(default_factory=list)  # what could not be checked fully (old entries)


ACCEPT = "blocklist_accept"  # an entry recording blocklist files as they are, on --accept-blocklist-changes


def blocklist_state(run_dir: Path) -> dict[str, str]:
    """{blocklist file (run-relative): SHA-256} of the files in blocklist/ now."""
    from audit.blocklist import BLOCKLIST_DIR

    folder = Path(run_dir) / BLOCKLIST_DIR
    if not folder.is_dir():
        return {}
    return {p.relative_to(run_dir).as_posix(): sha256_file(p) for p in sorted(folder.glob("*.parquet"))}


def expected_blocklist(entries: list[dict[str, Any]]) -> dict[str, str]:
    """The blocklist files the ledger vouches for: each takedown adds its file (a privacy takedown
    also restates the files it rewrote); an accept entry restates the whole set as it was accepted."""
    expected: dict[str, str] = {}
    for e in entries:
        if e.get("kind") == ACCEPT:
            expected = dict(e.get("blocklist") or {})
        elif isinstance(e.get("blocklist_file"), str):
            expected[e["blocklist_file"]] = e.get("blocklist_sha256")
        if isinstance(e.get("blocklist_rewritten"), dict) and e.get("kind") != ACCEPT:
            expected.update({f: h for f, h in e["blocklist_rewritten"].items() if f in expected})
    return expected


def blocklist_differences(run_dir: Path, entries: list[dict[str, Any]]) -> list[str]:
    """How blocklist/ differs from what the ledger vouches for (empty when it matches)."""
    want, have = expected_blocklist(entries), blocklist_state(run_dir)
    out = [f"{f} was deleted" for f in sorted(set(want) - set(have))]
    out += [f"{f} was changed (SHA-256 differs)" for f in sorted(set(want) & set(have)) if want[f] != have[f]]
    out += [f"{f} is in no ledger entry" for f in sorted(set(have) - set(want))]
    return out


def read_entries(run_dir: Path) -> list[dict[str, Any]]:
    """The ledger's entries as far as they parse (verify_ledger says whether they hold)."""
    out = []
    for line in _lines(run_dir):
        try:
            e = json.loads(line.decode("utf-8"))
        except (UnicodeDecodeError, ValueError):
            break
        if isinstance(e, dict):
            out.append(e)
    return out


def accept_blocklist(run_dir: Path, reason: str = "audit run --accept-blocklist-changes") -> dict[str, Any]:
    """Record the blocklist as it is now, and what changed, as a ledger entry (under the lock)."""
    with ledger_lock(run_dir):
        changes = blocklist_differences(run_dir, read_entries(run_dir))
        return append_entry(run_dir, {"kind": ACCEPT, "reason": reason, "changes": changes,
                                      "blocklist": blocklist_state(run_dir),
                                      "time": datetime.now(timezone.utc).isoformat(timespec="seconds")})


def verify_ledger(run_dir: Path) -> LedgerReport:
    """Walk the chain from the first entry; stop at the first entry that does not hold."""
    run_dir = Path(run_dir)
    lines = _lines(run_dir)
    prev = GENESIS
    seen_evidence: set[str] = set()
    entries: list[dict[str, Any]] = []
    latest: dict[str, dict[str, Any]] = {}  # request id -> its last entry
    hashes = tuple(sha256_bytes(line) for line in lines)
    notes: list[str] = []
    for n, line in enumerate(lines, start=1):
        def bad(why: str, entry: int = n) -> LedgerReport:
            return LedgerReport(False, len(lines), entry, f"entry {entry} (line {n} of {LEDGER}): {why}",
                                hashes[-1] if hashes else GENESIS, hashes, notes)

        try:
            e = json.loads(line.decode("utf-8"))
        except (UnicodeDecodeError, ValueError):
            return bad("not valid JSON: the line was edited or damaged")
        if not isinstance(e, dict):
            return bad("not a JSON object: the line was edited")
        seq = e.get("seq")
        if canonical(e).encode("utf-8") != line:
            return bad("not in canonical form: the line was edited")
        claimed = e.get("entry_sha256")
        body = {k: v for k, v in e.items() if k != "entry_sha256"}
        if claimed != sha256_bytes(canonical(body).encode("utf-8")):
            return bad("its content does not match its entry_sha256: the entry was edited")
        if seq != n:
            if isinstance(seq, int) and seq > n:
                return bad(f"line {n} holds entry {seq}: entries {n}..{seq - 1} were removed (or the lines reordered)")
            return bad(f"line {n} holds entry {seq}: the entries were reordered")
        if e.get("prev_sha256") != prev:
            if n > 1:  # entry n-1 hashes right on its own, so it was rewritten whole after n chained onto it
                return LedgerReport(False, len(lines), n - 1, f"entry {n - 1} (line {n - 1} of {LEDGER}): it was "
                                    f"rewritten after entry {n} chained onto it (entry {n}'s prev_sha256 no "
                                    "longer matches it)")
            return bad("prev_sha256 of the first entry must be 64 zeros: the entry was edited")
        entries.append(e)
        if e.get("kind") == ACCEPT:  # a recorded blocklist change carries no evidence of its own
            prev = sha256_bytes(line)
            continue
        ev, ev_html = e.get("evidence"), e.get("evidence_html")
        if not isinstance(ev, str) or not isinstance(ev_html, str):
            return bad("it names no evidence file: the entry was edited")
        path = run_dir / ev
        for rel, key in ((ev, "evidence_sha256"), (ev_html, "evidence_html_sha256")):
            problem = _evidence_file_problem(run_dir, rel, e.get(key))
            if problem:
                return bad(problem)
            if not isinstance(e.get(key), str):  # entries written before hashes were recorded
                notes.append(f"entry {n}: records no SHA-256 of {rel} (written by an older version): its presence "
                             "is checked, its content only against the entry's fields")
        mismatch = _against_evidence(e, path, n, prev)
        if mismatch:
            return bad(mismatch)
        seen_evidence.add(ev)
        if isinstance(e.get("request_id"), str):
            latest[e["request_id"]] = e
        prev = sha256_bytes(line)
    end = (hashes[-1] if hashes else GENESIS, hashes, notes)
    # Evidence archived under takedowns/ as an entry past the ledger's end, named by no entry: the
    # tail was cut off, or the last takedown was killed before its append (the next one appends it).
    # An unnamed archive at or below the end lost its place to a later takedown: not a removal.
    orphans = [(n, p.relative_to(run_dir).as_posix()) for n, p in _archives(run_dir)
               if n > len(lines) and p.relative_to(run_dir).as_posix() not in seen_evidence]
    if orphans:
        seq, rel = orphans[0]
        return LedgerReport(False, len(lines), seq,
                            f"entry {seq} is missing: {rel} was recorded as entry {seq} but the ledger has "
                            f"{len(lines)} entries (entries were removed from its end, or the takedown was "
                            "killed before its entry was appended: the next takedown appends it)", *end)
    # The latest copies (takedowns/<id>/evidence.*, the files CONTRACT.md names) are the last
    # entry's of their request: an edited one no longer matches the hash the ledger holds.
    for rid, e in sorted(latest.items()):
        for name, key, archived in (("evidence.json", "evidence_sha256", e.get("evidence")),
                                    ("evidence.html", "evidence_html_sha256", e.get("evidence_html"))):
            copy = run_dir / "takedowns" / rid / name
            if not copy.is_file():
                return LedgerReport(False, len(lines), e.get("seq"), f"entry {e.get('seq')}: takedowns/{rid}/{name} "
                                    f"is missing: it was deleted (restore it from {archived}, the same evidence)",
                                    *end)
            recorded = e.get(key)
            if not isinstance(recorded, str):  # an entry without the hash: compare with its archived copy
                recorded = sha256_file(run_dir / archived) if isinstance(archived, str) else None
            if sha256_file(copy) != recorded:
                return LedgerReport(False, len(lines), e.get("seq"), f"entry {e.get('seq')}: takedowns/{rid}/{name} "
                                    f"differs from the evidence of its last ledger entry: the file was edited", *end)
    drift = blocklist_differences(run_dir, entries)
    if drift:
        return LedgerReport(False, len(lines), None, f"the blocklist does not match the ledger: {'; '.join(drift)}",
                            *end)
    return LedgerReport(True, len(lines), None, None, *end)


def check_blocklist(run: str | Path, accept: bool = False) -> list[str]:
    """Before `audit run` into `run`: the blocklist must be what the ledger vouches for. A
    difference stops the run (InputError naming it) unless `accept`, which records the blocklist
    as it is in a ledger entry; returns the differences accepted."""
    from audit.io.run_copy import local_run
    from audit.io.shards import InputError
    from audit.io.storage import location

    if not location(run, Path.cwd()).exists():
        return []
    read = ("blocklist", "ledger.jsonl", "takedowns")
    with local_run(run, read=read) as local:
        if not blocklist_differences(local, read_entries(local)):
            return []
    # A takedown killed mid-way left a blocklist file or evidence without its entry: record it first.
    with local_run(run, write_back=("ledger.jsonl", "takedowns"), read=read) as local:
        with ledger_lock(local):
            recover_lost_entries(local)
        diffs = blocklist_differences(local, read_entries(local))
        if diffs and not accept:
            raise InputError(f"output {run}: the blocklist does not match the takedown ledger ({diffs[0]}"
                             f"{f', and {len(diffs) - 1} more' if len(diffs) > 1 else ''}): restore it, or run with "
                             "--accept-blocklist-changes to record the change in the ledger")
        if diffs:
            accept_blocklist(local)
    return diffs
