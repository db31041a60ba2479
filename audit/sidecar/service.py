"""`audit sidecar CONFIG [--metrics-port N]`: watch a record stream until it ends or SIGTERM.

Input: JSON lines on standard input, or, when `sidecar.source` names a folder, the micro-batch
dumps written there (tailed until SIGTERM). Each line is parsed; a malformed one is counted
(`records_malformed`) and skipped. The stream is sampled at `sidecar.sample_rate` and measured
in a worker thread; when the worker is behind, samples are dropped and counted rather than
slowing the reader (a trainer piping into the sidecar never blocks on it for long).

Standard input ends -> every queued sample is measured, files written, exit 0.
SIGTERM or SIGINT -> queued samples are measured for at most `sidecar.stop_seconds`, the rest
counted as dropped; alerts.jsonl, samples.jsonl and a final status.json ("state": "stopped")
are written whole; exit 0.
Bad config, a missing source folder, or a metrics port that cannot be bound -> one line on
standard error, exit 2.
"""
from __future__ import annotations

import argparse
import json
import logging
import signal
import sys
import threading
from pathlib import Path
from typing import Any, BinaryIO

from audit.config import AuditConfig, ConfigError, load_config
from audit.sidecar.alerts import setup_logging
from audit.sidecar.api import Sidecar, SidecarError
from audit.sidecar.sampler import record_fields
from audit.sidecar.sources import FolderTailer, JsonLineBatches, LineReader, Parsed

log = logging.getLogger("audit.sidecar")
# Malformed lines named in the log (the rest are only counted).
MALFORMED_LOGGED = 5


def add_subparser(sub: Any) -> None:
    """Add `sidecar CONFIG [--metrics-port N]` to the `audit` command's subparsers."""
    p = sub.add_parser("sidecar", help="sample a live record stream (stdin or sidecar.source), keep windowed "
                                       "statistics, raise alerts")
    p.add_argument("config", type=Path)
    p.add_argument("--metrics-port", type=int, default=None, metavar="N",
                   help="serve /metrics (Prometheus) and /status (JSON) on 127.0.0.1:N (0: any free port; "
                        "default: sidecar.metrics_port, else none)")
    p.set_defaults(func=cmd_sidecar)


def cmd_sidecar(args: argparse.Namespace) -> int:
    """The `audit sidecar` command (args: config, metrics_port)."""
    config = load_config(args.config)
    return run_sidecar(config, metrics_port=args.metrics_port)


class _Feed:
    """Parsed lines into the sidecar; malformed ones counted and the first few logged."""

    def __init__(self, sidecar: Sidecar) -> None:
        self.sidecar = sidecar
        self.malformed = 0

    def __call__(self, parsed: Parsed, where: str) -> None:
        if parsed.malformed:
            self.sidecar.count_malformed(parsed.malformed)
            if self.malformed < MALFORMED_LOGGED:
                log.warning("sidecar: %d malformed line(s) in %s skipped (%s)", parsed.malformed, where,
                            parsed.first_error)
            self.malformed += parsed.malformed
        if parsed.records:
            self.sidecar.observe(parsed.records)


def _read_stream(stream: BinaryIO, feed: _Feed, text_field: str, max_line_bytes: int) -> None:
    reader = LineReader(text_field, max_line_bytes)
    for batch in JsonLineBatches(stream, max_line_bytes):
        feed(reader.parse(batch.rows), "standard input")


def run_sidecar(config: AuditConfig, metrics_port: int | None = None, stdin: BinaryIO | None = None) -> int:
    """Run the sidecar over standard input (or sidecar.source) until it ends or a signal; exit status."""
    setup_logging()
    sc = config.sidecar
    folder = config.resolve(sc.source) if sc.source else None
    if folder is not None and not folder.is_dir():
        raise ConfigError(f"sidecar.source: {sc.source}: no such folder (relative paths are read from "
                          f"{config.base_dir})")
    if folder is None and stdin is None and sys.stdin is None:  # started with standard input closed
        raise ConfigError("sidecar: standard input is closed: pipe JSON lines into `audit sidecar`, or name a "
                          "folder of dumps in sidecar.source")
    stop = threading.Event()
    done = threading.Event()
    previous = {s: signal.signal(s, lambda signum, frame: stop.set()) for s in (signal.SIGTERM, signal.SIGINT)}
    sidecar = Sidecar(config, metrics_port=metrics_port, worker="thread",
                      source=folder.name if folder else "stdin")
    try:
        try:
            sidecar.wait_ready()
        except SidecarError as e:
            sidecar.close()
            raise ConfigError(f"sidecar: cannot start: {e}") from None
        feed = _Feed(sidecar)
        failure: list[str] = []

        def read() -> None:
            try:
                if folder is not None:
                    tailer = FolderTailer(folder, sidecar.output / "source_state.json", config.input.text_field,
                                          sc.poll_seconds, sc.settle_seconds, stop, config.input.max_record_bytes,
                                          fields=record_fields(config.input.text_field, config.input.id_field,
                                                               config.input.url_field))
                    tailer.run(feed)
                else:
                    _read_stream(stdin or sys.stdin.buffer, feed, config.input.text_field,
                                 config.input.max_record_bytes)
            except Exception as e:  # noqa: BLE001 - reported as the run's outcome, exit 2
                log.debug("sidecar: reading the input failed", exc_info=True)
                failure.append(f"{type(e).__name__}: {e}")
            finally:
                done.set()

        threading.Thread(target=read, name="audit-sidecar-input", daemon=True).start()
        while not stop.is_set() and not done.is_set():
            stop.wait(0.2)
        terminated = stop.is_set()
        if terminated:
            log.info("sidecar: stopping (signal): writing state")
        stop.set()  # the folder tailer stops at its next look
        sidecar.close(hurry=terminated)
    finally:
        for s, h in previous.items():
            signal.signal(s, h)
    c = _final_counters(sidecar)
    if failure:  # the input broke off: not a finished stream, whatever was measured before it
        print(f"audit sidecar: reading the input failed after {c['observed']} records ({failure[0]}); "
              f"outputs so far in {sidecar.output}", file=sys.stderr)
        return 2
    truncated = f", {c['truncated_records']} measured on their first {config.sidecar.max_record_bytes} bytes" \
        if c.get("truncated_records") else ""
    print(f"audit sidecar: {c['observed']} records seen, {c['sampled']} sampled, {c['dropped']} dropped, "
          f"{c['malformed']} malformed{truncated}; outputs in {sidecar.output}", file=sys.stderr)
    return 0


def main(argv: list[str] | None = None) -> int:
    """`python -m audit.sidecar CONFIG [--metrics-port N]` (the same as `audit sidecar`)."""
    parser = argparse.ArgumentParser(prog="audit sidecar")
    sub = parser.add_subparsers(dest="command", required=True)
    add_subparser(sub)
    args = parser.parse_args(["sidecar", *(sys.argv[1:] if argv is None else argv)])
    try:
        return args.func(args)
    except ConfigError as e:
        print(f"audit: {e}", file=sys.stderr)
        return 2


def _final_counters(sidecar: Sidecar) -> dict[str, int]:
    """The counters of the final status.json (the worker adds what it alone saw, e.g. records it
    could not decode), so the last stderr line says what that file says; the trainer side's own
    counters if the worker wrote none."""
    c = sidecar.counters()
    try:
        written = json.loads((sidecar.output / "status.json").read_text(encoding="utf-8"))["counters"]
        c.update({k: int(written[k]) for k in (*c, "truncated_records") if k in written})
    except (OSError, ValueError, KeyError, TypeError) as e:
        log.warning("sidecar: final status.json unreadable (%s); the line below has the trainer side's counters", e)
    return c
