"""Cluster use as documented: a local run stays local, a wrong token is one line within a bounded
time, and one output folder holds one run at a time (a dead --address: tests/test_cluster_docs.py)."""
from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from audit.cli import main
from audit.io.run_lock import hold_run_folder
from audit.io.storage import location
from tests.fixtures_procs import kill_session, wait_for_line
from tests.fixtures_user_stages import HERE

pytestmark = pytest.mark.ray

CLUSTER_FILE = Path("/tmp/ray/ray_current_cluster")
ROOT = Path(__file__).resolve().parents[1]


def _corpus(root: Path, records: int = 40, shards: int = 2, executor: str = "ray", **settings: object) -> Path:
    (root / "shards").mkdir(parents=True)
    for s in range(shards):
        with open(root / "shards" / f"s{s}.jsonl", "w") as f:
            for i in range(records):
                f.write(json.dumps({"id": f"{s}-{i}", "text": f"Record {i} of shard {s} says something about "
                                    f"the weather, the harvest and the market in town number {i * 7 + s}."}) + "\n")
    cfg = root / "audit.yaml"
    cfg.write_text(json.dumps({"input": {"paths": ["shards/"]}, "output": "run",
                               "ray": {"num_cpus": 1, "executor": executor}, "pii": {"enabled": False}, **settings}))
    return cfg


def _audit(*args: str, timeout: float = 240) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "audit", *args], capture_output=True, text=True, timeout=timeout)


@pytest.fixture
def cluster_file():
    """/tmp/ray/ray_current_cluster as it was before the test, restored after it."""
    saved = CLUSTER_FILE.read_text() if CLUSTER_FILE.exists() else None
    yield CLUSTER_FILE
    if saved is None:
        CLUSTER_FILE.unlink(missing_ok=True)
    else:
        CLUSTER_FILE.write_text(saved)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_a_stale_cluster_file_or_ray_address_does_not_capture_a_local_run(tmp_path, cluster_file):
    """start_ray in a process of its own starts a Ray of its own, whatever a stale cluster file and
    RAY_ADDRESS name (a whole run beside a live `ray start` head, with RAY_ADDRESS set: the next test)."""
    cfg = _corpus(tmp_path)
    stale = f"127.0.0.1:{_free_port()}"
    cluster_file.parent.mkdir(parents=True, exist_ok=True)
    cluster_file.write_text(stale)
    env = dict(os.environ, RAY_ADDRESS=f"127.0.0.1:{_free_port()}")
    code = ("import sys, ray; from audit.config import load_config; from audit.job.ray_session import start_ray; "
            "start_ray(load_config(sys.argv[1]), None); print(ray.get_runtime_context().gcs_address, "
            "ray.cluster_resources().get('CPU'))")
    res = subprocess.run([sys.executable, "-c", code, str(cfg)], capture_output=True, text=True, timeout=240, env=env)
    assert res.returncode == 0, res.stderr
    address, cpus = res.stdout.split()
    assert address not in (stale, env["RAY_ADDRESS"]) and float(cpus) == 1.0  # its own, sized by the config


def test_a_running_ray_start_cluster_does_not_capture_a_local_run_and_refuses_a_wrong_token(tmp_path, cluster_file):
    cfg = _corpus(tmp_path)
    port = _free_port()
    head = subprocess.Popen(["ray", "start", "--head", "--block", f"--port={port}", "--num-cpus=1",
                             "--object-store-memory=80000000", "--disable-usage-stats", "--include-dashboard=false"],
                            start_new_session=True, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            env=dict(os.environ, PYTHONUNBUFFERED="1"))  # each line as it is printed
    try:
        said = wait_for_line(head, "Ray runtime started", timeout=90)
        assert said, "ray start did not come up"
        # a local run while the cluster is up, beside the join below
        # a dead RAY_ADDRESS as well: neither it nor the live head's cluster file may capture the run
        local = subprocess.Popen([sys.executable, "-m", "audit", "run", str(cfg), "--quiet"],
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                 env=dict(os.environ, RAY_ADDRESS=f"127.0.0.1:{_free_port()}"))
        # joining it with a wrong token: one line naming the address and the cause, in bounded time.
        # The refusal is Ray's on the first try; Ray then tries again once a second, 20 times
        # (RAY_NUM_REDIS_GET_RETRIES, read by ray._private.node when it connects to the GCS): 2 here
        t0 = time.monotonic()
        env = dict(os.environ, RAY_AUTH_MODE="token", RAY_AUTH_TOKEN="0" * 64, RAY_NUM_REDIS_GET_RETRIES="2")
        refused = subprocess.run([sys.executable, "-m", "audit", "run", str(cfg), "--quiet", "--out",
                                  str(tmp_path / "refused"), "--address", f"127.0.0.1:{port}"],
                                 capture_output=True, text=True, timeout=120, env=env)
        took = time.monotonic() - t0
        out, err = local.communicate(timeout=240)
        res = subprocess.CompletedProcess(local.args, local.returncode, out, err)
    finally:
        if "local" in locals() and local.poll() is None:
            local.kill()
        # SIGKILL, every process of its session: `ray start --block` takes ~30 s to stop on SIGTERM, and
        # its workers have process groups of their own (cluster_file puts the address file back)
        kill_session(head.pid)
        head.wait(timeout=60)
    assert res.returncode == 0, res.stderr
    assert json.loads((tmp_path / "run" / "summary.json").read_text())["documents"] == 80
    lines = refused.stderr.strip().splitlines()  # the C++ core's retry warnings stay out of it
    assert refused.returncode == 2 and len(lines) == 1, refused.stderr
    assert f"127.0.0.1:{port}" in lines[0] and "refused this driver" in lines[0] and "RAY_AUTH_TOKEN" in lines[0]
    assert not (tmp_path / "refused").exists()  # joined before the output folder is made: nothing left behind
    assert took < 60


def test_a_second_run_into_a_folder_in_use_is_refused(tmp_path, capsys):
    cfg = _corpus(tmp_path)
    out = tmp_path / "run"
    out.mkdir()
    (out / "summary.json").write_text("{}")  # what the first run's folder holds stays as it is
    with hold_run_folder(location(out)):
        assert main(["run", str(cfg), "--quiet"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "in use by another run" in err[0] and f"pid {os.getpid()}" in err[0]
    assert (out / "summary.json").read_text() == "{}"


def test_the_first_run_finishes_while_a_second_is_refused(tmp_path):
    """Two processes, one folder: the first, held inside its run (its folder locked) by a stage that
    waits on a FIFO, finishes once released; the second, started meanwhile, exits 2. In this process's
    executor: the lock is the driver's, whatever runs the passes."""
    gate = tmp_path / "gate"
    os.mkfifo(gate)
    cfg = _corpus(tmp_path, records=200, shards=6, executor="local",
                  stages=[{"use": f"{HERE}:HoldsUntilReleased", "params": {"gate": str(gate)}}])
    first = subprocess.Popen([sys.executable, "-m", "audit", "run", str(cfg), "--quiet"], cwd=ROOT,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        held = wait_for_line(first, "holding", timeout=120)
        if not held:
            first.kill()
        assert held, first.stderr.read()
        second = _audit("run", str(cfg), "--quiet")
        with open(gate, "w", encoding="utf-8") as f:  # release the first run
            f.write("go\n")
        assert first.wait(timeout=240) == 0, first.stderr.read()
    finally:
        if first.poll() is None:
            first.kill()
    assert second.returncode == 2 and "in use by another run" in second.stderr
    assert json.loads((tmp_path / "run" / "summary.json").read_text())["documents"] == 1200


def test_a_lock_file_left_by_a_killed_run_does_not_block_the_next(tmp_path):
    """The lock is the kernel's, not the file's: a `.lock` naming a dead holder is taken over."""
    (tmp_path / ".lock").write_text(json.dumps({"pid": 999999, "host": "gone", "started": "2020-01-01"}))
    with hold_run_folder(location(tmp_path)):
        holder = json.loads((tmp_path / ".lock").read_text())
        assert holder["pid"] == os.getpid() and holder["host"] == socket.gethostname()
        other = subprocess.run([sys.executable, "-c", "import fcntl, os, sys; fd = os.open(sys.argv[1], os.O_RDWR)\n"
                                "try: fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)\nexcept BlockingIOError: sys.exit(7)",
                                str(tmp_path / ".lock")], timeout=30)
        assert other.returncode == 7  # held against other processes while the block runs
