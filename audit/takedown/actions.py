"""Answer a takedown request: locate, then (with execute) block and optionally rewrite shards, verify, record.

Everything from reading the blocklist to appending the ledger runs under the run's ledger lock,
so two takedowns against one run never interleave their blocks, rewrites or ledger entries.
"""
from __future__ import annotations

import json
from collections import defaultdict
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

from audit import __version__
from audit.io.atomic import write_text_atomic
from audit.io.shards import DamagedStream, Shard, read_shard
from audit.io.storage import location
from audit.job.run_folder import require_finished
from audit.records import text_sha256
from audit.blocklist import Blocklist, identifier_hash, passage_key
from audit.takedown.blocklist import BLOCKLIST_SCHEMA, append_blocklist
from audit.takedown.evidence import evidence_html, evidence_json, mask_excerpt
from audit.takedown.ledger import (append_entry, blocklist_fields, blocklist_state, canonical, entry_from_evidence,
                                   expected_blocklist, head, ledger_lock, read_entries, recover_lost_entries,
                                   sha256_bytes)
from audit.takedown.lookup import Match, RunLookup
from audit.takedown.privacy import private_evidence, scrub_run
from audit.takedown.request import TakedownRequest, load_request
from audit.takedown.shard_rewrite import RewriteError, ShardRewrite, rewrite_shard


class TakedownUsageError(ValueError):
    """A takedown asked for in a way that cannot be done (e.g. --physical without --execute): exit 2."""


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds")


@dataclass
class Located:
    """A record to take down and every way it was found."""

    match: Match
    matched_by: list[dict[str, Any]] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        m = self.match
        return {"doc_id": m.doc_id, "source_id": m.source_id, "shard": m.shard, "record": m.record,
                "byte_offset": m.byte_offset, "sha256": m.sha256, "url": m.url, "chars": m.chars,
                "verdict": m.verdict, "reasons": m.reasons, "blocked_before": m.blocked_by,
                "method": self.matched_by[0]["method"], "score": max(x["score"] for x in self.matched_by),
                "matched_by": self.matched_by,
                "excerpt": mask_excerpt(m.matched_text) if m.matched_text else None}


@dataclass
class TakedownOutcome:
    """What `run_takedown` did, for the command line."""

    request_id: str
    mode: str
    located: int
    distinct_sha256: int
    shards: int
    verification_ok: bool | None
    evidence: Path
    evidence_page: Path
    seq: int
    problems: list[str]
    ledger_head: str = ""  # SHA-256 of the ledger's last line once this takedown's entry is in
    keys_not_found: int = 0  # request keys the run does not hold: blocked for runs to come (with execute)

    @property
    def exit_code(self) -> int:
        return 1 if self.verification_ok is False else 0


def _display_key(kind: str, key: str) -> str:
    return f"sha256:{text_sha256(key)}" if kind == "text" else key


def _lookup(lookup: RunLookup, kind: str, key: str, skip_shards: set[str] | None = None) -> list[Match]:
    if kind == "url":
        return lookup.by_url(key)
    if kind == "sha256":
        return lookup.by_sha256(key)
    if kind == "source_id":
        return lookup.by_source_id(key)
    return lookup.by_text(key, skip_shards=skip_shards or set())


def locate(lookup: RunLookup, request: TakedownRequest) -> tuple[list[Located], list[dict[str, str]]]:
    """Every record a request's keys find, plus every copy (same content SHA-256) of those.

    Returns (located records in shard/record order, keys that found nothing).
    """
    found: dict[tuple[str, int], Located] = {}
    not_found: list[dict[str, str]] = []

    def add(m: Match, method: str, key: str, **extra: Any) -> None:
        loc = found.setdefault((m.shard, m.record), Located(m))
        if m.matched_text and not loc.match.matched_text:
            loc.match.matched_text, loc.match.span = m.matched_text, m.span
        loc.matched_by.append({"method": method, "key": key, "score": m.score,
                               "span": list(m.span) if m.span else None, **extra})

    for kind, key in request.keys():
        hits = _lookup(lookup, kind, key)
        if not hits:
            not_found.append({"kind": kind, "key": _display_key(kind, key)})
        for m in hits:
            add(m, kind, _display_key(kind, key))
    first_of: dict[str, str] = {}
    for loc in list(found.values()):
        if loc.match.sha256:
            first_of.setdefault(loc.match.sha256, loc.match.doc_id or "")
    for sha, doc_id in first_of.items():
        for m in lookup.by_sha256(sha):
            if (m.shard, m.record) not in found:
                add(m, "copy", sha, copy_of=doc_id)
    return sorted(found.values(), key=lambda x: (x.match.shard, x.match.record)), not_found


def remove_physically(lookup: RunLookup, located: list[Located]) -> tuple[list[ShardRewrite], list[str]]:
    """Rewrite every shard holding located records without them; returns (rewrites, problems)."""
    by_shard: dict[str, list[Match]] = defaultdict(list)
    for loc in located:
        by_shard[loc.match.shard].append(loc.match)
    rewrites: list[ShardRewrite] = []
    problems: list[str] = []
    for shard, ms in sorted(by_shard.items()):
        location = lookup.locations.get(shard)
        if location is None or not Path(location).is_file():
            problems.append(f"shard {shard}: file not found ({location or 'not in run.json'}); not rewritten")
            continue
        try:
            rewrites.append(rewrite_shard(shard, location, {m.record for m in ms},
                                          {m.record: m.sha256 for m in ms if m.sha256},
                                          lookup.input_cfg.text_field, lookup.input_cfg.max_record_bytes))
        except (RewriteError, OSError, DamagedStream, pa.ArrowException) as e:
            problems.append(f"shard {shard}: {e}")
    return rewrites, problems


def _scan_shard(lookup: RunLookup, shard: str, request: TakedownRequest, blocked: set[str]) -> dict[str, Any]:
    """Read a rewritten shard whole: nothing blocked and none of the request's keys may be left."""
    location = lookup.locations[shard]
    urls, sids, shas = set(request.match.urls), set(request.match.source_ids), set(request.match.sha256)
    records = blocked_left = keys_left = 0
    for block in read_shard(Shard(shard, location, 0), lookup.input_cfg):
        block = block.filter(pc.is_valid(block.column("record")))
        records += block.num_rows
        for sha, url, sid in zip(block.column("sha256").to_pylist(), block.column("url").to_pylist(),
                                 block.column("source_id").to_pylist()):
            blocked_left += bool(sha and sha in blocked)
            keys_left += bool((url and url in urls) or (sid and sid in sids) or (sha and sha in shas))
    passage_left = 0
    if request.match.text and request.match.text.strip():
        passage_left = sum(1 for m in lookup.scan_text(request.match.text, [shard]) if m.sha256 not in blocked)
    return {"shard": shard, "records": records, "blocked_left": blocked_left, "request_keys_left": keys_left,
            "passage_left": passage_left}


def verify(run_dir: Path, request: TakedownRequest, located: list[Located], rewrites: list[ShardRewrite],
           problems: list[str]) -> dict[str, Any]:
    """A fresh lookup of every match key must find nothing that is not blocked (unreadable records,
    which no run can use, are counted apart); rewritten shards are read whole and checked too."""
    warnings: list[str] = []
    lookup = RunLookup(run_dir, warn=warnings.append)
    blocked_all = set(lookup.blocklist.by_sha256)
    ours = {loc.match.sha256 for loc in located if loc.match.sha256}
    rewritten = {r.shard for r in rewrites}
    checks = []
    for kind, key in request.keys():
        # Positions in rewritten shards are stale until the next run: those shards are read below.
        hits = _lookup(lookup, kind, key, skip_shards=rewritten)
        unreadable = [m for m in hits if not m.sha256]
        open_ = [m for m in hits if m.sha256 and m.sha256 not in blocked_all]
        checks.append({"kind": kind, "key": _display_key(kind, key), "found": len(hits),
                       "blocked": len(hits) - len(open_) - len(unreadable), "unreadable": len(unreadable),
                       "not_blocked": [f"{m.shard}#{m.record}" for m in open_]})
    copies = [m for sha in sorted(ours) for m in lookup.by_sha256(sha)]
    checks.append({"kind": "copies", "key": f"{len(ours)} content hashes", "found": len(copies),
                   "blocked": sum(1 for m in copies if m.sha256 in blocked_all), "unreadable": 0,
                   "not_blocked": [f"{m.shard}#{m.record}" for m in copies if m.sha256 not in blocked_all]})
    future = _keys_blocked(lookup.blocklist, request)
    checks.append({"kind": "future", "key": f"{len(request.keys())} request keys held in blocklist/ for later "
                   "runs", "found": len(request.keys()) - len(future), "blocked": len(request.keys()) - len(future),
                   "unreadable": 0, "not_blocked": future})
    physical = [_scan_shard(lookup, s, request, ours) for s in sorted(rewritten)]
    ok = (not problems and all(not c["not_blocked"] for c in checks)
          and all(p["blocked_left"] == 0 and p["request_keys_left"] == 0 and p["passage_left"] == 0
                  for p in physical))
    out: dict[str, Any] = {"ok": ok, "blocklist_sha256": len(blocked_all), "checks": checks}
    if physical:
        out["physical"] = physical
    if problems:
        out["problems"] = problems
    if warnings:
        out["warnings"] = warnings
    return out


def _blocklist_rows(request: TakedownRequest, located: list[Located], added: str) -> pa.Table:
    """A row per located record (by its content hash) and one per request key, located or not,
    so that content arriving later is blocked too (audit.blocklist)."""
    rows: list[dict[str, Any]] = [
        {"sha256": m.sha256, "doc_id": m.doc_id, "shard": m.shard, "record": m.record, "source_id": m.source_id,
         "url": m.url, "kind": "record"} for m in (loc.match for loc in located) if m.sha256]
    for kind, key in request.keys():
        if kind == "sha256":
            rows.append({"sha256": key, "kind": "sha256"})
        elif kind in ("url", "source_id"):  # identifiers are kept only as their hash
            rows.append({kind: identifier_hash(key), "kind": kind})
        else:
            prints, need = passage_key(key)
            rows.append({"kind": "passage", "passage_hashes": prints.tolist(), "passage_min_shared": need})
    return pa.Table.from_pylist([{**r, "request_id": request.request_id, "added": added} for r in rows],
                                schema=BLOCKLIST_SCHEMA)


def _keys_blocked(blocklist: Blocklist, request: TakedownRequest) -> list[str]:
    """The request's keys the blocklist does not hold for the future (empty when all are held)."""
    held = {("sha256", h) for h in blocklist.by_sha256} | {("url", u) for u in blocklist.by_url}
    held |= {("source_id", x) for x in blocklist.by_source_id}
    held |= {("text", rid) for rid, _, _ in blocklist.passages if rid == request.request_id}
    missing = []
    for kind, key in request.keys():
        want = (kind, identifier_hash(key) if kind in ("url", "source_id") else
                request.request_id if kind == "text" else key)
        if want not in held:
            missing.append(_display_key(kind, key))
    return missing


def _request_as_received(request: TakedownRequest, path: Path, raw: bytes) -> dict[str, Any]:
    m = request.match
    text = None
    if m.text and m.text.strip():
        text = {"sha256": text_sha256(m.text), "chars": len(m.text), "words": len(m.text.split()),
                "excerpt": mask_excerpt(m.text)}
    return {"file": str(path), "file_sha256": sha256_bytes(raw), "request_id": request.request_id,
            "received": request.received.isoformat(), "requester": request.requester, "basis": request.basis,
            "match": {"urls": m.urls, "sha256": m.sha256, "source_ids": m.source_ids, "text": text}}


def run_takedown(run_dir: Path, request_path: Path, execute: bool = False, physical: bool = False) -> TakedownOutcome:
    """Answer one request against one run folder; writes evidence and a ledger entry.

    Raises RequestError (bad request file), RunError (not a run folder) or TakedownUsageError.
    """
    if physical and not execute:
        raise TakedownUsageError("--physical rewrites shards and needs --execute as well")
    run_dir = Path(run_dir)
    require_finished(location(run_dir), "audit takedown")  # an unfinished run would answer "0 located"
    request, raw = load_request(request_path)
    RunLookup(run_dir, warn=lambda _m: None)  # a bad --run fails here, before taking the lock
    mode = "physical" if physical else "execute" if execute else "dry_run"
    with ledger_lock(run_dir):
        times = {"started": _now()}
        warnings: list[str] = []
        lookup = RunLookup(run_dir, warn=warnings.append)
        located, not_found = locate(lookup, request)
        times["located"] = _now()
        for lost in recover_lost_entries(run_dir):
            warnings.append(f"ledger entry {lost['seq']} ({lost['evidence']}) of a takedown killed before its "
                            "append was appended from its archived evidence" if "evidence" in lost else
                            f"ledger entry {lost['seq']} records {', '.join(lost['changes'])}: a takedown was "
                            "killed after writing it, before its evidence")
        seq, prev = head(run_dir)
        shas = sorted({loc.match.sha256 for loc in located if loc.match.sha256})
        action: dict[str, Any] = {"mode": mode, "content_sha256": len(shas),
                                  "unblockable_unreadable": sum(1 for loc in located if not loc.match.sha256)}
        problems: list[str] = []
        verification: dict[str, Any] = {"ok": None, "note": "dry run: nothing was blocked; --execute blocks the "
                                        "located records, their copies and every key of the request for "
                                        "runs to come"}
        keys = {k: sum(1 for kind, _ in request.keys() if kind == k) for k in ("sha256", "url", "source_id", "text")}
        for nf in not_found:
            nf["status"] = ("not in this run; blocked for future runs" if execute else
                            "not in this run; --execute blocks it for future runs")
        if execute:
            # every key, located or not: content that arrives later is quarantined with `takedown`
            path = append_blocklist(run_dir, _blocklist_rows(request, located, times["located"]),
                                    f"{request.request_id}-{seq:06d}")
            action["blocklist_file"] = path.relative_to(run_dir).as_posix()
            action["blocked_sha256"] = len(shas)
            action["blocked_keys"] = keys
            rewrites: list[ShardRewrite] = []
            if physical:
                rewrites, problems = remove_physically(lookup, located)
                action["physical"] = [r.to_dict() for r in rewrites]
                action["note"] = ("rewritten shards lost records, so lineage/ and index/ positions after them are "
                                  "stale until the next audit run; the blocklist keeps the content out meanwhile")
                if problems:
                    action["problems"] = problems
                if request.basis == "privacy":  # no personal identifier of theirs stays in the run
                    vouched, before = expected_blocklist(read_entries(run_dir)), blocklist_state(run_dir)
                    action["identifiers_hashed"] = scrub_run(run_dir, {loc.match.doc_id for loc in located})
                    after = blocklist_state(run_dir)
                    # earlier takedowns' files the scrub rewrote: the entry vouches for their new bytes
                    # (only files that matched the ledger before, so a tampered file stays named)
                    action["blocklist_rewritten"] = {f: h for f, h in sorted(after.items()) if f in vouched
                                                     and before.get(f) == vouched[f] and h != before[f]}
            times["acted"] = _now()
            try:
                verification = verify(run_dir, request, located, rewrites, problems)
            except Exception as e:  # noqa: BLE001 - the blocklist is written: evidence and ledger must be too
                verification = {"ok": False, "error": f"verification could not run: {type(e).__name__}: {e}"}
            times["verified"] = _now()
        else:
            action["would_block_sha256"] = len(shas)
            action["would_block_keys"] = keys
        by_method: dict[str, int] = defaultdict(int)
        for loc in located:
            by_method[loc.matched_by[0]["method"]] += 1
        times["finished"] = _now()
        rid = request.request_id
        evidence = {
            "format": "audit.takedown.evidence/1", "request_id": rid, "mode": mode,
            "tool": {"name": "audit", "version": __version__},
            "run": {"folder": str(run_dir.resolve()), "run_started": lookup.manifest.get("started"),
                    "lookup_index": lookup.index is not None},
            "request": _request_as_received(request, Path(request_path), raw),
            "summary": {"records": len(located), "distinct_sha256": len(shas),
                        "shards": sorted({loc.match.shard for loc in located}), "by_method": dict(by_method),
                        "keys_without_match": len(not_found)},
            "located": [loc.to_dict() for loc in located], "not_found": not_found,
            "action": action, "verification": verification, "timestamps": times,
            "ledger": {"seq": seq, "prev_sha256": prev}, "warnings": warnings,
        }
        if physical and request.basis == "privacy":
            evidence = private_evidence(evidence)
        folder = run_dir / "takedowns" / rid
        stem = f"{seq:06d}-{mode}.evidence"  # archived per ledger entry: never overwritten
        ev_json, ev_html = folder / "history" / f"{stem}.json", folder / "history" / f"{stem}.html"
        body, page = evidence_json(evidence).decode("utf-8"), evidence_html(evidence)
        for target, content in ((ev_json, body), (ev_html, page)):
            write_text_atomic(target, content)
        entry = append_entry(run_dir, {
            **entry_from_evidence(json.loads(body)),  # what the ledger verification will read back
            "evidence": ev_json.relative_to(run_dir).as_posix(), "evidence_sha256": sha256_bytes(body.encode("utf-8")),
            "evidence_html": ev_html.relative_to(run_dir).as_posix(),
            "evidence_html_sha256": sha256_bytes(page.encode("utf-8")),
            # the blocklist file this takedown added, so deleting or editing it shows in verify
            **blocklist_fields(run_dir, evidence),
        })
        # The latest copies only once the ledger holds the entry they belong to.
        for target, content in ((folder / "evidence.json", body), (folder / "evidence.html", page)):
            write_text_atomic(target, content)
    return TakedownOutcome(rid, mode, len(located), len(shas), len({loc.match.shard for loc in located}),
                           verification.get("ok"), folder / "evidence.json", folder / "evidence.html", seq,
                           problems, sha256_bytes(canonical(entry).encode("utf-8")), len(not_found))
