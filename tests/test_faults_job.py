"""Trust under faults, on the job's side: reads that fail, measurements that were damaged, an
object store that cannot be reached and a full disk. Nothing is reported done that is not, and
nothing degrades without being named and counted."""
from __future__ import annotations

import dataclasses
import json
import os
import re
import shutil
import socket
import time
from pathlib import Path

import pytest

from audit.cli import main
from audit.config import parse_config
from audit.io.shards import discover_shards
from audit.io.storage import location
from audit.job.resume import check_done, load_done, measure_fingerprint, shard_state
from audit.job.scan import scan_shard
from audit.tagger import Tagger
from tests.fixtures_corpus import write_corpus
from tests.fixtures_faults import (FLAKY, FlakyFileSystem, audit_in_subprocess, can_mount_tmpfs, fill_device,
                                   local_run, unreadable, write_local_config)
from tests.fixtures_runs import CORPUS_JOB, assert_same_outputs


@pytest.fixture
def corpus(tmp_path):
    return write_corpus(tmp_path / "corpus")


@pytest.fixture(scope="module")
def clean(tmp_path_factory) -> Path:
    """An undamaged local run over the same corpus as `corpus` (its outputs name no absolute path), made
    once for the tests that compare a repaired run with it: read only."""
    return Path(local_run(write_corpus(tmp_path_factory.mktemp("clean") / "corpus").root, "clean").out)


# ---- read failures ------------------------------------------------------------------------------

@pytest.mark.slow  # seconds, not milliseconds: kept out of the fast tier
def test_a_transient_read_error_is_retried_counted_and_changes_nothing(corpus):
    FlakyFileSystem.failures.clear()
    paths = [f"{FLAKY}{corpus.root}/shards/"]
    clean = local_run(corpus.root, "clean", paths)
    FlakyFileSystem.failures.update({"c.parquet": 2, "b.jsonl.gz": 1})  # two hiccups, then it reads
    flaky = local_run(corpus.root, "flaky", paths)
    assert flaky.summary["read_retries"] == 3 and clean.summary["read_retries"] == 0
    assert flaky.summary["shards_unreadable"] == 0
    assert any("tried again" in w for w in flaky.summary["warnings"])
    assert_same_outputs(corpus.root / "clean", corpus.root / "flaky")


@pytest.mark.slow  # seconds, not milliseconds: kept out of the fast tier
def test_a_shard_that_stays_unreadable_is_named_and_measured_again_by_the_next_run(corpus):
    FlakyFileSystem.failures.clear()
    paths = [f"{FLAKY}{corpus.root}/shards/"]
    clean = local_run(corpus.root, "clean", paths)
    FlakyFileSystem.failures["a.jsonl"] = -1  # the store keeps failing this object
    t0 = time.monotonic()
    failed = local_run(corpus.root, "run", paths)
    assert time.monotonic() - t0 < 30  # bounded backoff: 0.25 + 0.5 + 1 s
    named = [u for u in unreadable(corpus.root / "run") if u["shard"].endswith("a.jsonl")]
    assert len(named) == 1 and "Connection reset by peer (after 4 tries)" in named[0]["error"]
    assert set(named[0]) >= {"shard", "error"}
    assert failed.summary["shards_unreadable"] == 1 and failed.summary["read_retries"] == 3
    assert failed.summary["documents"] < clean.summary["documents"]
    FlakyFileSystem.failures.clear()  # the store is back: the next run measures that shard again
    again = local_run(corpus.root, "run", paths)
    assert again.summary["resume"] == {"shards_reused": 3, "shards_measured": 1}
    assert again.summary["shards_unread_before"] == 1 and again.summary["parts_damaged"] == 0
    assert again.summary["documents"] == clean.summary["documents"]
    assert again.summary["unreadable"] == clean.summary["unreadable"]
    assert_same_outputs(corpus.root / "clean", corpus.root / "run")


def test_a_shard_moved_away_between_plan_and_scan_is_not_kept_as_measured(corpus):
    reference = local_run(corpus.root, "reference")
    config = parse_config({"input": {"paths": ["shards/"]}, "output": "run", **CORPUS_JOB,
                           "ray": {"executor": "local"}}, base_dir=corpus.root)
    shards, _ = discover_shards(config.input.paths, config.base_dir)
    shard = shards[0]
    state = dataclasses.replace(shard_state(shard, ""), fingerprint=measure_fingerprint(config))  # planned
    measurements = location(corpus.root / "run" / "measurements")
    measurements.mkdir()
    aside = Path(shard.location + ".moved")
    os.rename(shard.location, aside)  # moved after the plan, before its scan
    result = scan_shard(shard, state, measurements, Tagger(config, {}), config, canary=False)
    os.rename(aside, shard.location)  # and back, unchanged (same size and time: the same key)
    assert "No such file or directory" in result.read_error
    checked = check_done(measurements, load_done(measurements), [state.key])
    assert checked.unread == [shard.path] and not checked.done
    run = local_run(corpus.root, "run")  # resumes in that folder: the shard is measured, not reused
    assert run.summary["shards_unread_before"] == 1
    assert run.summary["documents"] == reference.summary["documents"]
    assert_same_outputs(corpus.root / "reference", corpus.root / "run")


def test_a_dangling_symlink_is_an_unreadable_input_named(corpus):
    shards = corpus.root / "shards"
    (shards / "gone.jsonl").symlink_to(corpus.root / "elsewhere" / "gone.jsonl")
    (corpus.root / "lone.jsonl").symlink_to(corpus.root / "nowhere.jsonl")
    found, problems = discover_shards(["shards/", "shards/*.jsonl", "lone.jsonl"], corpus.root)
    assert len(found) == 4
    assert [p["shard"] for p in problems] == ["shards/gone.jsonl", "shards/gone.jsonl", "lone.jsonl"]
    assert all("dangling symbolic link" in p["error"] for p in problems)
    run = local_run(corpus.root, "run")
    rows = unreadable(corpus.root / "run")
    assert [r for r in rows if r["shard"] == "shards/gone.jsonl" and "dangling" in r["error"]]
    assert run.summary["unreadable"] == len(rows)


# ---- integrity of measurements ----------------------------------------------------------------

def _flip_byte(part: Path, done: Path) -> None:
    data = bytearray(part.read_bytes())
    data[len(data) // 3] ^= 0x01
    part.write_bytes(bytes(data))


def _truncate(part: Path, done: Path) -> None:
    part.write_bytes(part.read_bytes()[: part.stat().st_size // 2])


def _zero_bytes(part: Path, done: Path) -> None:
    part.write_bytes(b"")


def _foreign(part: Path, done: Path) -> None:
    other = sorted(p for p in part.parent.glob("part-*.parquet") if p != part)[0]
    shutil.copyfile(other, part)


def _rows_edited(part: Path, done: Path) -> None:
    rec = json.loads(done.read_text())
    rec["result"]["rows"] = rec["result"]["records"] = 0
    done.write_text(json.dumps(rec))


# Two kinds of damage in the fast tier; the other three (a run and a re-run each) in the whole suite.
_SLOW = pytest.mark.slow


@pytest.mark.parametrize("damage", [_flip_byte, _truncate, pytest.param(_zero_bytes, marks=_SLOW),
                                    pytest.param(_foreign, marks=_SLOW), pytest.param(_rows_edited, marks=_SLOW)],
                         ids=["flipped-byte", "truncated", "zero-byte", "foreign", "done-rows-edited"])
def test_a_damaged_measurement_part_is_named_by_decide_and_measured_again_by_run(corpus, clean, damage, capsys):
    local_run(corpus.root, "run")
    rec = next(r for r in load_done(location(corpus.root / "run" / "measurements")).values()
               if r["shard"] == "shards/a.jsonl")
    part = corpus.root / "run" / "measurements" / rec["part"]
    damage(part, corpus.root / "run" / "measurements" / "_done" / f"{rec['key']}.json")
    capsys.readouterr()
    assert main(["decide", str(corpus.root / "run")]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and str(part) in err and "audit run" in err and "--fresh" in err
    again = local_run(corpus.root, "run")  # a plain re-run measures that shard again, and says so
    assert again.summary["parts_damaged"] == 1 and again.summary["resume"]["shards_measured"] == 1
    assert any("integrity check" in w for w in again.summary["warnings"])
    assert again.summary["documents"] == json.loads((clean / "summary.json").read_text())["documents"]
    assert_same_outputs(clean, corpus.root / "run")
    assert main(["decide", str(corpus.root / "run")]) == 0


def test_a_garbled_completion_record_is_counted_and_its_shard_measured_again(corpus, clean):
    local_run(corpus.root, "run")
    record = sorted((corpus.root / "run" / "measurements" / "_done").glob("*.json"))[0]
    record.write_text('{"key": "')
    again = local_run(corpus.root, "run")
    assert again.summary["parts_damaged"] == 1 and again.summary["resume"]["shards_measured"] == 1
    assert_same_outputs(clean, corpus.root / "run")


# ---- storage ------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def hanging_endpoint():
    """A TCP endpoint that accepts connections and never answers."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen(64)
        yield f"127.0.0.1:{s.getsockname()[1]}"


@pytest.mark.parametrize("endpoint,cause", [("127.0.0.1:9", "connection refused"),
                                            ("no-such-host.invalid:9000", "cannot resolve the host name"),
                                            ("hang", "timed out")])
@pytest.mark.slow  # seconds, not milliseconds: kept out of the fast tier
def test_an_object_store_that_cannot_be_reached_is_one_line_naming_the_uri(tmp_path, capsys, endpoint, cause,
                                                                           hanging_endpoint):
    endpoint = hanging_endpoint if endpoint == "hang" else endpoint
    uri = f"s3://bucket/shards/?endpoint_override={endpoint}&scheme=http&request_timeout=1&connect_timeout=1"
    cfg = tmp_path / "audit.yaml"
    cfg.write_text(json.dumps({"input": {"paths": [uri]}, "output": "run", **CORPUS_JOB, "ray": {"executor": "local"}}))
    t0 = time.monotonic()
    assert main(["run", str(cfg), "--quiet"]) == 2
    assert time.monotonic() - t0 < 30
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1, err
    assert err.startswith(f"audit: s3://bucket/shards/: cannot reach endpoint {endpoint}: {cause}")


@pytest.mark.slow  # a subprocess job: seconds, kept out of the fast tier
def test_a_full_disk_during_the_scan_names_the_path_and_the_space_needed(corpus, tmp_path):
    if not can_mount_tmpfs(tmp_path / "probe"):
        pytest.skip("this machine lets no private mount namespace mount a tmpfs (unshare -rm)")
    cfg = write_local_config(corpus.root)
    out = tmp_path / "small"
    done = audit_in_subprocess(["run", str(cfg), "--out", str(out / "run"), "--quiet"], corpus.root,
                               tmpfs=(out, 40_000))  # room for a part or two of four
    assert done.returncode == 2, done.stderr
    err = done.stderr.strip()
    assert len(err.splitlines()) == 1 and "Traceback" not in err, err
    assert f"{out}/run/measurements: no space left on the device" in err
    assert "more is needed for the measurements of the" in err and re.search(r"\d+(\.\d)? [KM]iB", err)


@pytest.mark.slow  # a subprocess job: seconds, kept out of the fast tier
def test_a_file_size_limit_during_the_scan_is_one_line_with_the_space_needed(corpus):
    cfg = write_local_config(corpus.root)
    done = audit_in_subprocess(["run", str(cfg), "--quiet"], corpus.root, fsize=12_000)
    assert done.returncode == 2, done.stderr
    err = done.stderr.strip()
    assert len(err.splitlines()) == 1 and "Traceback" not in err, err
    assert "file too large for a limit in force" in err and "more is needed for the measurements" in err


@pytest.mark.ray
def test_a_full_disk_inside_a_ray_task_is_one_line(ray_session):
    from audit.cli import _environment_error
    from audit.job.executor import RayExecutor

    if not os.path.exists("/dev/full"):
        pytest.skip("no /dev/full on this machine")
    ex = RayExecutor(parse_config({}, base_dir=Path.cwd(), source="test"), None)
    with pytest.raises(OSError) as info:
        list(ex.map(fill_device, ["/dev/full"]))
    assert type(info.value).__name__.startswith("RayTaskError")  # the worker's error, wrapped by Ray
    line = _environment_error(info.value)
    assert line is not None and line.startswith("an output file: no space left on the device")


def test_a_store_error_outside_a_location_call_is_one_line_naming_bucket_and_key():
    from audit.cli import _environment_error

    loc = location("s3://bucket/run/measurements/part-0.parquet?endpoint_override=127.0.0.1:9&scheme=http"
                   "&connect_timeout=1&request_timeout=1")
    with pytest.raises(OSError) as info:  # a writer's stream, as PartWriter opens it: not a Location method
        with loc.fs.open_output_stream(loc.path) as f:
            f.write(b"x")
    line = _environment_error(info.value)
    assert line is not None and line.startswith("s3://bucket/run/measurements/part-0.parquet: cannot reach ")


@pytest.mark.parametrize("option", ["request_timeout=abc", "connect_timeout=0", "retries=3"])
def test_s3_uri_options_are_checked(option):
    from audit.config import ConfigError

    with pytest.raises(ConfigError, match=option.split("=")[0]):
        location(f"s3://bucket/x?{option}")
