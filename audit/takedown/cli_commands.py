"""The `audit lookup`, `audit takedown` and `audit ledger verify` verbs: argparse in, exit status out.

`add_subparsers(sub)` adds the three verbs to the `audit` parser, each with `func` set to its
command. Every command prints one line on standard error and returns 2 for bad usage (bad run
folder, bad request file, passage too short); `takedown` returns 1 when verification fails and
`ledger verify` returns 1 naming the first bad entry.
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from audit.config import ConfigError
from audit.io.run_copy import local_run
from audit.io.shards import InputError
from audit.io.storage import is_uri, location
from audit.takedown.lookup import DEFAULT_MIN_SCORE, LookupUsageError, Match, RunError, RunLookup

_USAGE_ERRORS: tuple[type[Exception], ...] = (RunError, LookupUsageError, ConfigError, InputError)


def _fail(msg: str) -> int:
    print(f"audit: {msg}", file=sys.stderr)
    return 2


def _require_finished(run: str, command: str) -> None:
    """Answer from a finished run only (InputError, one line: the folder, unfinished, what finishes it)."""
    from audit.job.run_folder import require_finished

    require_finished(location(run, Path.cwd()), command)


def _parse_records(spec: str | None) -> tuple[int, int | None]:
    """'I:J' (I..J-1), 'I:' (I to the end), 'I' (just I); None: the whole shard."""
    if spec is None or spec == "":
        return 0, None
    try:
        if ":" in spec:
            a, b = spec.split(":", 1)
            return int(a or 0), (int(b) if b else None)
        i = int(spec)
        return i, i + 1
    except ValueError:
        raise LookupUsageError(f"--records {spec!r}: expected I:J (records I to J-1), I: or I") from None


def _short(s: str | None, n: int) -> str:
    if s is None:
        return "-"
    s = " ".join(s.split())
    return s if len(s) <= n else s[:n - 1] + "…"


def _print_matches(query: str, matches: list[Match], texts: dict | None) -> None:
    print(f"{len(matches)} record{'s' if len(matches) != 1 else ''} for {query}")
    for m in matches:
        status = m.verdict or "-"
        if m.reasons:
            status += f" ({', '.join(m.reasons)})"
        if m.blocked_by:
            status += f" [blocked by {m.blocked_by}]"
        print(f"  {m.shard}  record {m.record}  byte_offset {m.byte_offset if m.byte_offset is not None else '-'}"
              f"  doc_id {m.doc_id}  sha256 {m.sha256 or '-'}  url {m.url or '-'}  source_id {m.source_id or '-'}"
              f"  {status}")
        if m.span is not None:
            print(f"    score {m.score:.2f}  span chars {m.span[0]}..{m.span[1]}: \"{_short(m.matched_text, 160)}\"")
        if texts is not None:
            print(f"    text: \"{_short(texts.get((m.shard, m.record)), 300)}\"")


def cmd_lookup(args: argparse.Namespace) -> int:
    """`audit lookup --run DIR (--url U | --sha256 H | --id SOURCE_ID | --doc-id D | --text-file F |
    --shard S [--records I:J]) [--json]`."""
    try:
        return _lookup(args)
    except _USAGE_ERRORS as e:
        return _fail(str(e))


def _lookup(args: argparse.Namespace) -> int:
    _require_finished(args.run, "audit lookup")
    with local_run(args.run, write_back=()) as run:  # an object-store run: a local copy of what lookups read
        return _lookup_in(args, run)


def _lookup_in(args: argparse.Namespace, run: Path) -> int:
    modes = {k: getattr(args, k, None) for k in ("url", "sha256", "id", "doc_id", "text_file")}
    given = {k: v for k, v in modes.items() if v is not None}
    shard = getattr(args, "shard", None)
    records = getattr(args, "records", None)
    if len(given) > 1:
        return _fail("lookup: give one of --url, --sha256, --id, --doc-id, --text-file")
    if not given and shard is None:
        return _fail("lookup: give one of --url, --sha256, --id, --doc-id, --text-file, or --shard S [--records I:J]")
    if records is not None and shard is None:
        return _fail("lookup: --records needs --shard")
    lookup = RunLookup(run)
    start, stop = _parse_records(records)
    min_score = DEFAULT_MIN_SCORE if getattr(args, "min_score", None) is None else args.min_score
    if not 0 <= min_score <= 1:
        return _fail("--min-score: expected a share of the passage's words, 0..1")
    kind, value = next(iter(given.items())) if given else ("shard", shard)
    if kind == "url":
        matches = lookup.by_url(value)
    elif kind == "sha256":
        matches = lookup.by_sha256(value.strip())
    elif kind == "id":
        matches = lookup.by_source_id(value)
    elif kind == "doc_id":
        matches = lookup.by_doc_id(value)
    elif kind == "text_file":
        path = Path(value)
        if str(value) == "-" and sys.stdin is None:
            return _fail("--text-file -: standard input is closed: pipe the passage in, or give a file")
        try:
            text = sys.stdin.read() if str(value) == "-" else path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as e:
            return _fail(f"--text-file {value}: cannot read it as UTF-8 text ({getattr(e, 'strerror', None) or e})")
        matches = lookup.by_text(text, min_score=min_score)
    else:
        matches = lookup.by_position(shard, start, stop)
    if shard is not None and kind != "shard":  # --shard narrows any other lookup
        name = lookup.shard_name(shard)
        matches = [m for m in matches if m.shard == name and start <= m.record and (stop is None or m.record < stop)]
    texts = lookup.fetch_texts(matches) if getattr(args, "with_text", False) else None
    query: dict[str, Any] = {"by": kind, "value": str(value)}
    if kind == "shard":
        query["records"] = [start, stop]
    if getattr(args, "json", False):
        out: dict[str, Any] = {"run": str(args.run), "query": query, "lookup_index": lookup.index is not None,
                               "count": len(matches), "matches": []}
        for m in matches:
            d = m.to_dict()
            if texts is not None:
                d["text"] = texts.get((m.shard, m.record))
            out["matches"].append(d)
        print(json.dumps(out, ensure_ascii=False, indent=2))
    else:
        label = {"text_file": "the passage in", "id": "source id", "doc_id": "doc_id"}.get(kind, kind)
        extra = f" records {start}:{'' if stop is None else stop}" if kind == "shard" else ""
        _print_matches(f"{label} {value}{extra}", matches, texts)
    return 0


def cmd_takedown(args: argparse.Namespace) -> int:
    """`audit takedown --run DIR --request REQUEST.yaml [--execute] [--physical]`."""
    from audit.takedown.actions import TakedownUsageError, run_takedown
    from audit.takedown.request import RequestError

    physical = bool(getattr(args, "physical", False))
    if physical and is_uri(args.run):
        return _fail(f"--run {args.run}: --physical rewrites shards in place, which is not built for object "
                     "storage; block the records with --execute and rewrite the shards where they are written")
    try:
        _require_finished(args.run, "audit takedown")
        # an object-store run is worked on in a local copy; what the takedown writes goes back
        with local_run(args.run, write_back=("blocklist", "takedowns", "ledger.jsonl")) as run:
            out = run_takedown(run, Path(args.request), execute=bool(getattr(args, "execute", False)),
                               physical=physical)
    except (*_USAGE_ERRORS, RequestError, TakedownUsageError) as e:
        return _fail(str(e))
    what = {"dry_run": "would block", "execute": "blocked", "physical": "blocked and removed"}[out.mode]
    print(f"takedown {out.request_id}: located {out.located} record(s) in {out.shards} shard(s), "
          f"{out.distinct_sha256} distinct content hash(es); {what}")
    if out.keys_not_found:
        later = "blocked for future runs" if out.mode != "dry_run" else "--execute blocks them for future runs"
        print(f"{out.keys_not_found} key(s) of the request not in this run: {later}")
    for p in out.problems:
        print(f"audit: {p}", file=sys.stderr)
    if out.verification_ok is True:
        print("verification: ok (a fresh lookup of every key finds nothing that is not blocked)")
    elif out.verification_ok is False:
        print(f"audit: takedown {out.request_id}: verification FAILED, see {out.evidence}", file=sys.stderr)
    print(f"evidence: {out.evidence} and {out.evidence_page} (ledger entry {out.seq})")
    print(f"ledger head: {out.ledger_head} (keep it outside the run folder: `audit ledger export`)")
    return out.exit_code


def cmd_ledger_verify(args: argparse.Namespace) -> int:
    """`audit ledger verify --run DIR`: 0 when the chain holds, 1 naming the first bad entry."""
    from audit.takedown.ledger import LEDGER, verify_ledger

    expect = getattr(args, "expect_head", None)
    if expect is not None and not expect.strip():
        return _fail("ledger verify: --expect-head is empty: give the head_sha256 that `audit ledger export` "
                     "wrote, or leave the option out")
    try:
        _require_finished(args.run, "audit ledger verify")
    except InputError as e:
        return _fail(str(e))
    with local_run(args.run) as run:
        report = verify_ledger(run)
    for note in report.notes:
        print(f"audit: note: {note}", file=sys.stderr)
    if report.ok and expect and expect not in report.line_hashes and not (expect == report.head):
        print(f"audit: ledger {args.run}/{LEDGER} does not contain the expected head {expect}: the chain was "
              f"rewritten or cut (its head is now {report.head})", file=sys.stderr)
        return 1
    if report.ok:
        print(f"ledger intact: {report.entries} entr{'y' if report.entries == 1 else 'ies'} in {args.run}/{LEDGER}; "
              f"head {report.head}")
        return 0
    print(f"audit: ledger {args.run}/{LEDGER} is broken: {report.problem} (head {report.head})", file=sys.stderr)
    return 1


def cmd_ledger_export(args: argparse.Namespace) -> int:
    """`audit ledger export --run DIR [--out FILE]`: the chain's head, to keep outside the run folder."""
    from datetime import datetime, timezone

    from audit.takedown.ledger import verify_ledger

    try:
        _require_finished(args.run, "audit ledger export")
    except InputError as e:
        return _fail(str(e))
    with local_run(args.run) as run:
        report = verify_ledger(run)
    if not report.ok:
        print(f"audit: ledger of {args.run} is broken, nothing exported: {report.problem}", file=sys.stderr)
        return 1
    record = {"format": "audit.ledger.anchor/1", "run": str(args.run), "head_sha256": report.head,
              "entries": report.entries, "exported": datetime.now(timezone.utc).isoformat(timespec="seconds")}
    text = json.dumps(record, indent=2) + "\n"
    if getattr(args, "out", None):
        Path(args.out).write_text(text, encoding="utf-8")
    else:
        sys.stdout.write(text)
    return 0


def add_subparsers(sub: Any) -> None:
    """Add `lookup`, `takedown` and `ledger verify` to the `audit` subparsers (func= set on each)."""
    lk = sub.add_parser("lookup", help="where a document or a text passage sits (shard, record, byte offset)",
                        description="Lineage lookup over a run folder. Give one key; --shard narrows it, or "
                                    "alone replays a shard's records (--records I:J).")
    lk.add_argument("--run", required=True, help="the run's output folder (or object-store URI)")
    lk.add_argument("--url", help="records with this URL")
    lk.add_argument("--sha256", help="records whose text has this SHA-256 (every copy)")
    lk.add_argument("--id", metavar="SOURCE_ID", help="records with this source id")
    lk.add_argument("--doc-id", dest="doc_id", help="the record with this doc_id")
    lk.add_argument("--text-file", dest="text_file", metavar="F",
                    help="records containing the passage in F ('-': standard input); case, punctuation and "
                         "white space are ignored; 26+ words are found wherever they sit")
    lk.add_argument("--shard", metavar="S", help="alone: the records of shard S (replay); with a key: only in S")
    lk.add_argument("--records", metavar="I:J", help="with --shard: records I to J-1 ('I:' to the end, 'I' one)")
    lk.add_argument("--min-score", dest="min_score", type=float, default=DEFAULT_MIN_SCORE,
                    help=f"passage: share of its words a record must hold (default {DEFAULT_MIN_SCORE})")
    lk.add_argument("--with-text", dest="with_text", action="store_true",
                    help="also read each record's text back from its shard")
    lk.add_argument("--json", action="store_true", help="one JSON object on standard output")
    lk.set_defaults(func=cmd_lookup)

    td = sub.add_parser("takedown", help="answer a takedown request: locate, block (--execute), verify; evidence")
    td.add_argument("--run", required=True, help="the run's output folder (or object-store URI)")
    td.add_argument("--request", type=Path, required=True, metavar="REQUEST.yaml")
    td.add_argument("--execute", action="store_true", help="add the located records and their copies to the "
                    "run's blocklist (without it: a dry run that only writes evidence)")
    td.add_argument("--physical", action="store_true", help="with --execute: also rewrite the shards without them")
    td.set_defaults(func=cmd_takedown)

    lg = sub.add_parser("ledger", help="the takedown ledger")
    lsub = lg.add_subparsers(dest="ledger_command", required=True, metavar="ACTION")
    v = lsub.add_parser("verify", help="exit 0 when the ledger's hash chain is intact; else name the first bad entry")
    v.add_argument("--run", required=True, help="the run's output folder (or object-store URI)")
    v.add_argument("--expect-head", metavar="H",
                   help="also fail unless the chain contains H, a head exported earlier (`audit ledger export`)")
    v.set_defaults(func=cmd_ledger_verify)
    x = lsub.add_parser("export", help="write the ledger's head hash, entry count and time, to keep elsewhere")
    x.add_argument("--run", required=True, help="the run's output folder (or object-store URI)")
    x.add_argument("--out", help="file to write (default: standard output)")
    x.set_defaults(func=cmd_ledger_export)
