"""The sidecar's memory is bounded in bytes: long records measured on a prefix and counted, every
buffer bounded by the text bytes it holds; a closed standard input is one line."""
from __future__ import annotations

import json
import os
import queue
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
import yaml

from audit.config import parse_config
from audit.sidecar.monitor import Reservoir
from audit.sidecar.sampler import bounded_text, extract
from audit.sidecar.worker import ByteQueue, in_chunks

# Peak resident memory `audit sidecar` may reach on the stream of MEMORY_RUN; the same stream took
# 1.8 GB (one 50 MB record) to 2.7 GB (a hundred 1 MB records) when the sidecar was bounded in records.
PEAK_MB = 900
# Writes one 50 MB record then 200 of 1 MB into `audit sidecar CONFIG`, then prints the peak RSS
# of that child process alone (RUSAGE_CHILDREN of this wrapper), in MiB.
MEMORY_RUN = textwrap.dedent("""
    import json, resource, subprocess, sys
    words = " ".join(["alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta"] * 2500)
    def line(nbytes, i):
        text = (words * (nbytes // len(words) + 1))[:nbytes]
        return json.dumps({"text": text, "sample_id": f"s{i}"}).encode() + b"\\n"
    p = subprocess.Popen([sys.executable, "-m", "audit", "sidecar", sys.argv[1]], stdin=subprocess.PIPE,
                         stderr=subprocess.PIPE)
    p.stdin.write(line(50 * 2**20, 0))
    for i in range(200):
        p.stdin.write(line(2**20, i + 1))
    p.stdin.close()
    err = p.stderr.read().decode()
    p.wait()
    print(json.dumps({"rc": p.returncode, "err": err[-2000:],
                      "peak_mb": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024}))
""")


def sidecar_config(tmp_path: Path, **sidecar) -> Path:
    path = tmp_path / "sidecar.yaml"
    path.write_text(yaml.safe_dump({"languages": {"identify": False}, "pii": {"enabled": False},
                                    "sidecar": {"sample_rate": 1.0, "window": 200, "output": str(tmp_path / "out"),
                                                **sidecar}}))
    return path


def test_bounded_text_keeps_a_prefix_within_the_limit_and_never_splits_a_character() -> None:
    assert bounded_text("short", 100) == ("short", 5, False)
    big = "x" * (50 * 2**20)
    kept, size, cut = bounded_text(big, 2**18)
    assert cut and size == len(kept) == 2**18 and big.startswith(kept)
    kept, size, cut = bounded_text("é" * 10, 5)  # two bytes each: two characters fit, the third is cut
    assert (kept, size, cut) == ("éé", 4, True)
    s = extract({"text": big, "sample_id": "a"}, "text", None, None, max_bytes=1000)
    assert s["truncated"] and s["bytes"] == 1000 and s["chars"] == len(big) and len(s["text"]) == 1000


def test_the_queue_is_bounded_in_bytes_as_well_as_in_messages() -> None:
    q = ByteQueue(maxsize=100, max_bytes=1000)

    def msg(n: int) -> tuple:
        return ("samples", [{"text": "x" * n, "bytes": n}], None)

    q.put_nowait(msg(600))
    with pytest.raises(queue.Full):
        q.put_nowait(msg(600))  # would hold 1200 bytes
    q.put_nowait(("totals", None, {}))  # counters take no text budget
    q.put_nowait(msg(400))
    assert q.bytes == 1000
    q.get_nowait()
    assert q.bytes == 400
    q.get_nowait(), q.get_nowait()
    q.put_nowait(msg(5000))  # an empty queue takes one message, whatever it holds
    assert q.bytes == 5000


def test_the_worker_measures_in_runs_bounded_by_records_and_bytes() -> None:
    samples = [{"text": "x", "bytes": n} for n in (400, 400, 400, 2000, 10, 10)]
    runs = in_chunks(samples, records=2, max_bytes=1000)
    assert [[s["bytes"] for s in r] for r in runs] == [[400, 400], [400], [2000], [10, 10]]


def test_kept_samples_are_bounded_by_their_text_bytes() -> None:
    r = Reservoir(size=100, max_text_bytes=1000)
    for i in range(10):
        r.add({"seq": i, "text": "y" * 300})
    assert [row["seq"] for row in r.rows] == [7, 8, 9] and r.text_bytes == 900
    r.add({"seq": 10})  # a row without text costs nothing
    assert len(r.rows) == 4


def test_the_budgets_are_settings_with_sensible_defaults() -> None:
    sc = parse_config({}).sidecar
    assert sc.max_record_bytes == 256 * 2**10 and sc.max_buffered_bytes == 64 * 2**20
    assert sc.max_batch_bytes == 8 * 2**20
    default_yaml = (Path(__file__).parents[1] / "configs" / "default.yaml").read_text()
    assert "max_record_bytes: 262144" in default_yaml and "max_buffered_bytes: 67108864" in default_yaml


@pytest.mark.slow
def test_long_records_keep_the_sidecar_within_a_memory_bound(tmp_path: Path) -> None:
    cfg = sidecar_config(tmp_path)
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).parents[1])}
    out = subprocess.run([sys.executable, "-c", MEMORY_RUN, str(cfg)], capture_output=True, text=True, env=env,
                         timeout=600, cwd=tmp_path)
    result = json.loads(out.stdout)
    assert result["rc"] == 0, result["err"]
    assert result["peak_mb"] < PEAK_MB, result
    status = json.loads((tmp_path / "out" / "status.json").read_text())
    assert status["counters"]["truncated_records"] == 201 and status["counters"]["processed"] == 201
    assert "201 measured on their first 262144 bytes" in result["err"]


@pytest.mark.slow
def test_a_closed_standard_input_is_one_line_and_exit_2(tmp_path: Path) -> None:
    cfg = sidecar_config(tmp_path)
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).parents[1])}
    p = subprocess.run([sys.executable, "-m", "audit", "sidecar", str(cfg)], capture_output=True, text=True,
                       env=env, timeout=120, preexec_fn=lambda: os.close(0))
    assert p.returncode == 2
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1 and "standard input is closed" in lines[0] and "NoneType" not in lines[0]
