"""Progress of `audit run` (CONTRACT.md, "Progress of `audit run`"): plain lines where standard error
is not a terminal, at least every 10 s and at each phase's end; bars on a terminal; --quiet: none."""
from __future__ import annotations

import io
import json
import re
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from audit.cli import main
from audit.progress import Progress, clock_text
from tests.fixtures_corpus import write_corpus

# The contract's line, exactly: [audit] <phase> <done>/<total> <unit>, <N> records, <MB/s>, ETA <h:mm:ss>
LINE = re.compile(r"^\[audit\] (plan|scan|dedup|decide|index|report) (\d+)/(\d+) (shards|partitions|parts), "
                  r"(\d+) records, (\d+\.\d) MB/s, ETA (\d+:\d\d:\d\d|-:--:--)$")


class Clock:
    """A clock the test moves by hand."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def _lines(stream: io.StringIO) -> list[str]:
    return stream.getvalue().splitlines()


def test_a_line_at_each_phase_end_and_every_interval_in_between() -> None:
    clock, out = Clock(), io.StringIO()
    p = Progress(stream=out, every=10.0, clock=clock, bars=False, heartbeat=False)
    p.start("scan", 4, "shards", size_total=4_000_000)
    clock.now += 4
    p.advance(records=100, nbytes=2_000_000, size=1_000_000)
    assert _lines(out) == []  # 4 s since the last line: not due
    clock.now += 6
    p.advance(records=100, nbytes=2_000_000, size=1_000_000)
    # 10 s in, half the input read: 10 s left; 4 MB of text in 10 s
    assert _lines(out) == ["[audit] scan 2/4 shards, 200 records, 0.4 MB/s, ETA 0:00:10"]
    clock.now += 1
    p.advance(records=100, nbytes=1_000_000, size=1_000_000)
    assert len(_lines(out)) == 1
    p.end()  # a phase's end always prints, however soon after the last line
    p.start("dedup", 3, "parts")
    p.end(records=300, nbytes=0)
    p.stop()
    assert _lines(out)[1:] == ["[audit] scan 4/4 shards, 300 records, 0.5 MB/s, ETA 0:00:00",
                               "[audit] dedup 3/3 parts, 300 records, 0.0 MB/s, ETA 0:00:00"]
    assert all(LINE.match(x) for x in _lines(out))


def test_eta_from_items_when_the_phase_knows_no_sizes_and_unknown_before_the_first() -> None:
    clock, out = Clock(), io.StringIO()
    p = Progress(stream=out, every=0.0, clock=clock, bars=False, heartbeat=False)
    p.start("decide", 5, "parts")
    p.tick()
    clock.now += 30
    p.advance(records=10)
    p.stop()
    assert _lines(out) == ["[audit] decide 0/5 parts, 0 records, 0.0 MB/s, ETA -:--:--",
                           "[audit] decide 1/5 parts, 10 records, 0.0 MB/s, ETA 0:02:00"]
    assert clock_text(3 * 3600 + 61.4) == "3:01:01"


def test_the_heartbeat_prints_a_phase_that_finishes_nothing() -> None:
    """A long shard or a shuffle still shows the run is alive: the line comes without any advance."""

    class Waiting(io.StringIO):
        def __init__(self) -> None:
            super().__init__()
            self.written = threading.Event()

        def write(self, s: str) -> int:
            n = super().write(s)
            self.written.set()
            return n

    out = Waiting()
    with Progress(stream=out, every=0.05, bars=False) as p:
        p.start("dedup", 8, "partitions")
        assert out.written.wait(timeout=30)
    assert LINE.match(_lines(out)[0]) and _lines(out)[0].startswith("[audit] dedup 0/8 partitions")


def test_bars_on_a_terminal_and_nothing_when_quiet() -> None:
    out = io.StringIO()
    with Progress(stream=out, bars=True, heartbeat=False) as p:
        p.start("scan", 3, "shards")
        p.advance(records=7)
        p.say("[audit] Ray job 01000000: dashboard http://127.0.0.1:8265")
        p.end()
    shown = out.getvalue()
    assert "[audit] scan" in shown and "3/3" in shown and "7 records" in shown and "\x1b[" in shown
    assert "dashboard http://127.0.0.1:8265" in shown
    quiet = io.StringIO()
    with Progress(enabled=False, stream=quiet, every=0.0) as p:
        p.start("scan", 3, "shards")
        p.advance()
        p.say("anything")
        p.end()
        p.close({"documents": 1, "bytes": 1, "seconds": 1.0, "kept": 1, "quarantined": 0, "unreadable": 0})
    assert quiet.getvalue() == ""


def test_the_ray_line_names_the_job_and_the_dashboard_or_how_to_get_one() -> None:
    from audit.job.ray_session import describe_session

    assert describe_session("02000000", "127.0.0.1:8265", True) == \
        "[audit] Ray job 02000000: dashboard http://127.0.0.1:8265"
    assert 'pip install "ray[default]"' in describe_session("02000000", None, False)
    assert "runs no dashboard" in describe_session("02000000", "", True)


def _in_process(capfd, *argv: str) -> subprocess.CompletedProcess:
    """`audit *argv` by its main() in this process, its output as a process's would be (file descriptors)."""
    capfd.readouterr()
    code = main(list(argv))
    out, err = capfd.readouterr()
    return subprocess.CompletedProcess(["audit", *argv], code, out, err)


def _quietly(*argv: str) -> subprocess.Popen:
    """`audit *argv --quiet` started as a process of its own, its output in pipes."""
    return subprocess.Popen([sys.executable, "-m", "audit", *argv, "--quiet"], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)


@pytest.mark.slow
def test_a_real_run_prints_every_phase_in_the_contract_format(tmp_path: Path, capfd) -> None:
    """`audit run` in this process's backend (no Ray), standard error not a terminal: one line per
    phase end, in order, each of the contract's form; --quiet, in a process of its own: nothing at
    all on standard error."""
    corpus = write_corpus(tmp_path / "corpus")
    cfg = tmp_path / "job.yaml"
    cfg.write_text(json.dumps({"input": {"paths": [str(corpus.root / "shards")], "url_field": "url"},
                               "output": str(tmp_path / "run"), "ray": {"executor": "local"},
                               "pii": {"enabled": False}}))
    # each --quiet process runs beside the same command here: two cores, two independent folders
    quiet_run = _quietly("run", str(cfg), "--out", str(tmp_path / "q"))
    res = _in_process(capfd, "run", str(cfg))
    assert res.returncode == 0, res.stderr
    lines = [x for x in res.stderr.splitlines() if LINE.match(x)]
    ends = [LINE.match(x).groups() for x in lines if LINE.match(x)[2] == LINE.match(x)[3]]
    assert [g[0] for g in ends] == ["plan", "scan", "dedup", "decide", "index", "report"], res.stderr
    summary = json.loads((tmp_path / "run" / "summary.json").read_text())
    by_phase = {g[0]: g for g in ends}
    assert by_phase["scan"][1:4] == ("4", "4", "shards") and int(by_phase["scan"][4]) == summary["documents"]
    assert by_phase["report"][4] == str(summary["documents"])
    assert "Ray job" not in res.stderr  # this process's backend: no Ray, no dashboard line
    out, err = quiet_run.communicate(timeout=300)
    assert quiet_run.returncode == 0 and err == "" and out == "", err + out
    # `audit decide` re-runs the passes after the scan, with the same lines; --quiet: nothing
    quiet_decide = _quietly("decide", str(tmp_path / "q"))
    decide = _in_process(capfd, "decide", str(tmp_path / "run"))
    assert decide.returncode == 0, decide.stderr
    ends = [m[1] for m in map(LINE.match, decide.stderr.splitlines()) if m and m[2] == m[3]]
    assert ends == ["dedup", "decide", "index", "report"], decide.stderr
    out, err = quiet_decide.communicate(timeout=300)
    assert quiet_decide.returncode == 0 and err == "" and out == "", err + out


@pytest.mark.slow
def test_the_demo_prints_no_progress_when_quiet(tmp_path: Path) -> None:
    res = subprocess.run([sys.executable, "-m", "audit", "demo", "--docs", "100", "--out", str(tmp_path), "--quiet"],
                         capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stderr
    assert not [x for x in res.stderr.splitlines() if x.startswith("[audit]")], res.stderr
    assert "audit demo:" in res.stdout  # its findings still print
