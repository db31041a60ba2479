"""The `audit` command: parses arguments and calls one function per verb.

Exit status: 0 done; 1 the audit ran and a fail-fast rule fired; 2 bad usage, bad config or
unreadable input, with one line on standard error saying what and where.
"""
from __future__ import annotations

import argparse
import errno
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

from audit import __version__


def _demo_docs(value: str) -> int:
    from audit.demo_corpus import MIN_DOCS

    n = int(value)
    if n < MIN_DOCS:
        raise argparse.ArgumentTypeError(f"the demo corpus needs at least {MIN_DOCS} records")
    return n


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="audit", description="Audit LLM pre-training data: quality, duplicates, "
                                "contamination, language, PII; lineage, takedown and a live sidecar.")
    p.add_argument("--version", action="version", version=f"audit {__version__}")
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND")

    d = sub.add_parser("demo", help="build a small corpus with planted problems and audit it")
    d.add_argument("--out", type=Path, default=Path("audit-demo"), help="folder for the corpus and the run")
    d.add_argument("--docs", type=_demo_docs, default=2000, help="records in the demo corpus (at least 100)")
    d.add_argument("--quiet", action="store_true", help="no progress lines on standard error")
    d.set_defaults(func=_cmd_demo)

    r = sub.add_parser("run", help="the pre-training audit job over the shards CONFIG names")
    r.add_argument("config", type=Path)
    r.add_argument("--out", help="output folder or object-store URI (default: the config's `output`)")
    r.add_argument("--address", help="join this Ray cluster instead of starting a local one")
    r.add_argument("--quiet", action="store_true", help="errors only: no progress, warnings or summary")
    r.add_argument("--accept-blocklist-changes", action="store_true",
                   help="run even though blocklist/ differs from the takedown ledger, recording the change there")
    r.add_argument("--fresh", action="store_true",
                   help="measure every shard again instead of reusing an earlier run's measurements in the folder")
    r.set_defaults(func=_cmd_run)

    j = sub.add_parser("decide", help="re-judge a finished run from its kept measurements (new thresholds, "
                       "no measuring)")
    j.add_argument("run", help="the run folder")
    j.add_argument("--config", type=Path, help="a config with new thresholds (default: the run's own)")
    j.add_argument("--out", help="write the re-judged run to this new folder (or object-store URI) and leave "
                   "the run unchanged; without it the run's judgement is replaced and the previous one kept "
                   "under judgements/")
    j.add_argument("--address", help="join this Ray cluster instead of starting a local one")
    j.add_argument("--quiet", action="store_true", help="errors only: no progress or warnings")
    j.set_defaults(func=_cmd_decide)

    x = sub.add_parser("export", help="the records of one verdict of a finished run, every input field as read, "
                       "a file per input shard")
    x.add_argument("--run", required=True, help="the run folder (or object-store URI)")
    x.add_argument("--out", required=True, help="an empty or new folder (or object-store URI) for the files")
    x.add_argument("--verdict", choices=("kept", "quarantined"), default="kept")
    x.add_argument("--format", choices=("jsonl", "parquet"), help="default: each shard's own")
    x.add_argument("--compression", choices=("zstd", "gzip", "none"),
                   help="default: a JSON-lines shard's own, else zstd")
    x.add_argument("--address", help="join this Ray cluster instead of starting a local one")
    x.set_defaults(func=_cmd_export)

    from audit.sidecar.service import add_subparser as add_sidecar
    from audit.takedown.cli_commands import add_subparsers as add_takedown

    add_takedown(sub)  # lookup, takedown, ledger verify
    add_sidecar(sub)
    return p


def _cmd_demo(a: argparse.Namespace) -> int:
    from audit.demo import run_demo

    return run_demo(a.out, docs=a.docs, progress=not a.quiet)


def _cmd_run(a: argparse.Namespace) -> int:
    from audit.config import load_config
    from audit.job.plan import CanaryTripped, run_audit

    from audit.takedown.ledger import check_blocklist

    cfg = load_config(a.config)
    out = a.out if a.out is not None else str(cfg.resolve(cfg.output)) if "://" not in cfg.output else cfg.output
    for change in check_blocklist(out, accept=a.accept_blocklist_changes):
        print(f"audit: blocklist change accepted and recorded in the ledger: {change}", file=sys.stderr)
    try:
        res = run_audit(cfg, out=a.out, address=a.address, progress=not a.quiet, fresh=a.fresh)
    except CanaryTripped as e:
        print(f"audit: {e}", file=sys.stderr)
        return 1
    if not a.quiet:  # --quiet: errors only
        print(f"audit: outputs in {res.out} (summary.json, report.html, lineage/, quarantine/, ...)")
    return 0


def _cmd_decide(a: argparse.Namespace) -> int:
    from audit.config import load_config
    from audit.job.plan import decide_run

    res = decide_run(a.run, load_config(a.config) if a.config else None, address=a.address, out=a.out,
                     progress=not a.quiet)
    s = res.summary
    if a.quiet:  # errors only
        return 0
    print(f"audit: re-judged {s['documents']:,} documents: {s['kept']:,} kept, {s['quarantined']:,} quarantined "
          f"({res.out}/summary.json)")
    return 0


def _cmd_export(a: argparse.Namespace) -> int:
    from audit.exporter import ExportOptions, export_run

    res = export_run(a.run, a.out, ExportOptions(a.verdict, a.format, a.compression), address=a.address)
    m = res.manifest
    extra = "".join(f", {m['counts'][k]:,} {k}" for k in ("not_written", "withheld") if m["counts"][k])
    print(f"audit: exported {m['records']:,} {m['verdict']} records into {len(m['shards'])} file(s){extra} "
          f"({res.out}/manifest.json)")
    return 0


# What the machine, not the audit, got wrong: a full disk, a quota, a read-only or forbidden place,
# a file-size limit. Exit 2 with the path, wherever in the job (a worker, a Ray task) it happened.
_ENVIRONMENT_ERRNOS = {errno.ENOSPC: "no space left on the device", errno.EDQUOT: "disk quota exceeded",
                       errno.EROFS: "read-only filesystem", errno.EACCES: "permission denied",
                       errno.EPERM: "operation not permitted", errno.EFBIG: "file too large for a limit in force"}


def _environment_error(e: BaseException) -> str | None:
    """One line for an OS error of the environment anywhere in the exception's causes (a Ray
    task's error keeps its cause in `cause`), else None: a full disk or an object store that
    cannot be reached is not our bug."""
    from audit.io.storage import causes, storage_error

    for cur in causes(e):
        if isinstance(cur, OSError) and (store := storage_error(cur)) is not None:
            return str(store)
        if isinstance(cur, OSError) and cur.errno in _ENVIRONMENT_ERRNOS:
            where = cur.filename or "an output file"
            return f"{where}: {_ENVIRONMENT_ERRNOS[cur.errno]} ({cur.strerror or cur}): free space or fix the " \
                   "permissions, then run again (finished shards are reused)"
    return None


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the `audit` console script."""
    from audit.config import ConfigError
    from audit.io.shards import InputError

    args = _parser().parse_args(argv)
    try:
        func: Callable[[argparse.Namespace], int] = args.func
        return func(args)
    except (ConfigError, InputError) as e:
        # raised in a Ray task: its `cause` is our one-line error, without the worker's traceback
        print(f"audit: {getattr(e, 'cause', None) or e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("audit: interrupted", file=sys.stderr)
        return 130
    except Exception as e:  # noqa: BLE001 - a bug, not bad input: never exit 1, which means "a rule fired"
        env = _environment_error(e)
        if env is not None:
            print(f"audit: {env}", file=sys.stderr)
            return 2
        import traceback

        print(f"audit: internal error: {type(e).__name__}: {e} (traceback below; please report it)",
              file=sys.stderr)
        traceback.print_exc()
        return 3


def console() -> None:
    """The `audit` command as a process (the console script, `python -m audit`): `main()`, then the
    exit. A local Ray this process started is ended at once (SIGKILL, every process of it) and the
    process leaves without the interpreter's teardown: Ray's graceful stop and that teardown made
    a finished run wait 2.5 s more (measured, 2 cores); everything the command writes is closed by
    the time `main()` returns. `main()` itself never exits, for callers in this process."""
    import os

    from audit.job.ray_session import end_local_ray

    code = main()
    sys.stdout.flush()
    sys.stderr.flush()
    if end_local_ray():
        os._exit(code)  # Ray's exit handler would stop the processes just ended, one by one
    sys.exit(code)


if __name__ == "__main__":
    console()
