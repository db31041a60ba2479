"""README "Running on a cluster" works as written: scripts/cluster_walkthrough.sh follows its commands
on this machine (start a head, run, watch, stop only that head, resume); a failed connect leaves
the output folder as it was."""
from __future__ import annotations

import json
import os
import re
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.fixtures_corpus import write_corpus
from tests.fixtures_procs import kill_session, session_processes

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "scripts" / "cluster_walkthrough.sh"
CLUSTER_FILE = Path("/tmp/ray/ray_current_cluster")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _job(root: Path) -> Path:
    corpus = write_corpus(root / "corpus")
    cfg = root / "job.yaml"
    # no model-loading stage: each head's fresh workers load only what the walkthrough is about
    cfg.write_text(json.dumps({"input": {"paths": [str(corpus.root / "shards")]}, "pii": {"enabled": False},
                               "languages": {"identify": False}}))
    return cfg


def _readme_cluster_commands() -> list[str]:
    """The command lines of the README's cluster walkthrough (its ```sh block holding `ray start --head`)."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = text.split("## Running on a cluster", 1)[1].split("\n## ", 1)[0]
    blocks = [b for b in re.findall(r"```sh\n(.*?)```", section, re.S) if "ray start --head" in b]
    assert len(blocks) == 1, "README: one ```sh block of the cluster walkthrough"
    lines = [ln.split("  #", 1)[0].strip() for ln in blocks[0].splitlines()]
    return [ln for ln in lines if ln and not ln.startswith("#")]


def _normalised(text: str) -> str:
    """Continuation lines joined, quotes and runs of spaces dropped."""
    return " ".join(text.replace("\\\n", " ").replace('"', "").split())


def test_the_walkthrough_script_runs_the_readme_commands() -> None:
    script = _normalised(SCRIPT.read_text())
    names = {"job.yaml": "$JOB", "runs/latest": "$OUT", "6379": "$PORT", "head.log": "$LOG"}
    for command in _readme_cluster_commands():
        wanted = _normalised(command)
        for name, variable in names.items():
            wanted = wanted.replace(name, variable)
        assert wanted in script, f"README command not in scripts/cluster_walkthrough.sh: {command}"


@pytest.mark.slow  # seconds, not milliseconds: kept out of the fast tier
def test_a_failed_connect_leaves_the_output_folder_as_it_was(tmp_path: Path) -> None:
    """A dead --address: exit 2 within seconds, one line naming it, and neither a new folder nor
    .lock or measurements/ in an existing one (the cluster is joined before the folder is touched)."""
    cfg = _job(tmp_path)
    address = f"127.0.0.1:{_free_port()}"
    (tmp_path / "existing").mkdir()
    # both at once: each process mostly starts up, and the two folders are apart
    t0 = time.monotonic()
    procs = {out: subprocess.Popen([sys.executable, "-m", "audit", "run", str(cfg), "--out", str(out), "--address",
                                    address], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for out in (tmp_path / "new", tmp_path / "existing")}
    for out, proc in procs.items():
        _, stderr = proc.communicate(timeout=120)
        assert proc.returncode == 2, stderr
        lines = stderr.strip().splitlines()
        assert len(lines) == 1 and address in lines[0] and "nothing answers" in lines[0], stderr
        assert not out.exists() if out.name == "new" else list(out.iterdir()) == []
    assert time.monotonic() - t0 < 30  # Ray alone retries a dead address for over a minute


@pytest.mark.cluster
def test_the_cluster_walkthrough_as_written(tmp_path: Path) -> None:
    cfg = _job(tmp_path)
    out = tmp_path / "run"
    saved = CLUSTER_FILE.read_text() if CLUSTER_FILE.exists() else None
    # a session of its own: every process the walkthrough starts (the heads, their raylets) is in it
    proc = subprocess.Popen(["bash", str(SCRIPT), str(cfg), str(out), str(_free_port())], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=True,
                            env={**os.environ, "PYTHONPATH": str(ROOT)})
    try:
        stdout, stderr = proc.communicate(timeout=540)
    finally:
        left = session_processes(proc.pid)
        kill_session(proc.pid)
        # `ray start` names its head in Ray's address file: put back what was there
        if saved is None:
            CLUSTER_FILE.unlink(missing_ok=True)
        else:
            CLUSTER_FILE.write_text(saved)
    assert proc.returncode == 0, stdout + stderr
    # the job ran on the head it started, twice; the second run reused every shard of the first
    assert stdout.count("walkthrough: head started") == 2 and stdout.count("walkthrough: head stopped") == 2
    assert stderr.count("[audit] Ray job ") == 2 and "Active:" in stdout  # `ray status` saw the node
    assert re.search(r"^\[audit\] report 1/1 parts, \d+ records", stderr, re.M)
    summary = json.loads((out / "summary.json").read_text())
    assert summary["resume"] == {"shards_reused": 4, "shards_measured": 0} and summary["documents"] > 0
    # `kill $HEAD_PID` stopped each head and everything it started (not a machine-wide `ray stop`)
    assert left == [], [Path(f"/proc/{p}/comm").read_text() for p in left if Path(f"/proc/{p}").exists()]
