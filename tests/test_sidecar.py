"""The sidecar: sampling, windowed verdicts on real text, alert episodes, endpoints, shutdown.

Statistics tests drive `StreamMonitor` (the sidecar's measuring side, with the job's real stages)
at sample rate 1, so window boundaries are exact; the API, the command and the HTTP endpoint are
tested end to end (worker process, subprocess, SIGTERM).
"""
from __future__ import annotations

import argparse
import gzip
import json
import os
import random
import signal
import subprocess
import sys
import threading
import time
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
import pytest
import yaml

from audit.config import AuditConfig, parse_config
from audit.sidecar import Sidecar
from audit.sidecar.alerts import AlertBook
from audit.decide import Decider, judge_all
from audit.tagger import Tagger
from audit.sidecar.monitor import StreamMonitor, mask_pii
from audit.sidecar.sampler import BernoulliSampler, MalformedRecord, extract, record_at, record_fields
from audit.sidecar.sources import FolderTailer, JsonLineBatches, Parsed
from audit.stages import ConfigStage

REPO = Path(__file__).resolve().parents[1]
WINDOW = 100
# For the tests of a sidecar process that assert no PII (counting, HTTP, tailing, SIGTERM): its
# worker starts without the PII model (about a CPU-second a process; PII is tested on its own below).
LIGHT_PII = {"enabled": False}


# ---------------------------------------------------------------- helpers


def config_data(**sidecar: Any) -> dict[str, Any]:
    """A config mapping: sample rate 1 and windows of WINDOW records unless given."""
    data: dict[str, Any] = {"input": {"paths": ["unused/"]}}
    for key in ("languages", "eval_sets", "pii"):
        if key in sidecar:
            data[key] = sidecar.pop(key)
    data["sidecar"] = {"sample_rate": 1.0, "window": WINDOW, "min_window": WINDOW, "output": "sidecar/", **sidecar}
    return data


def make_config(tmp_path: Path, **sidecar: Any) -> AuditConfig:
    return parse_config(config_data(**sidecar), base_dir=tmp_path)


def write_config(tmp_path: Path, **sidecar: Any) -> Path:
    path = tmp_path / "sidecar.yaml"
    path.write_text(yaml.safe_dump(config_data(**sidecar)))
    return path


def samples(texts: list[str], start: int = 0, step_every: int = 10) -> list[dict[str, Any]]:
    """Sampled records with replay fields: step = position // step_every, two ranks."""
    return [{"text": t, "global_step": (start + i) // step_every, "rank": (start + i) % 2, "micro_batch": 0,
             "sample_id": f"id-{start + i}", "source_id": None, "url": None} for i, t in enumerate(texts)]


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def alerts_of(out: Path, kind: str | None = None) -> list[dict[str, Any]]:
    rows = read_jsonl(out / "alerts.jsonl") if (out / "alerts.jsonl").exists() else []
    return [a for a in rows if kind is None or a["kind"] == kind]


@pytest.fixture(scope="module")
def lingua(shared_data: Path) -> dict[str, list[str]]:
    by: dict[str, list[str]] = {}
    with open(shared_data / "multilingual" / "lingua_testdata_sentences.jsonl", encoding="utf-8") as f:
        for line in f:
            row = json.loads(line)
            by.setdefault(row["lang"], []).append(row["text"])
    return by


@pytest.fixture(scope="module")
def news(shared_data: Path) -> list[str]:
    with open(shared_data / "prose" / "nltk_abc_news_paragraphs.jsonl", encoding="utf-8") as f:
        return [json.loads(line)["text"] for line in f]


def mixed_window(lingua: dict[str, list[str]], mix: dict[str, int], k: int, rng: random.Random) -> list[str]:
    """One window of sentences with exactly `mix` records per language (window k: fresh sentences)."""
    out = [text for lang, n in mix.items() for text in lingua[lang][k * n:(k + 1) * n]]
    rng.shuffle(out)
    return out


def sidecar_command() -> list[str]:
    """`python -m audit sidecar` once the CLI has the subcommand, else the sidecar's own entry point."""
    from audit import cli

    subcommands = next(a for a in cli._parser()._actions if isinstance(a, argparse._SubParsersAction))
    if "sidecar" in subcommands.choices:
        return [sys.executable, "-m", "audit", "sidecar"]
    return [sys.executable, "-m", "audit.sidecar"]


def wait_for(predicate, timeout: float = 90.0, every: float = 0.2) -> bool:
    """Poll `predicate` until it holds (True) or `timeout` passes (False): for state that a worker or
    `audit sidecar` process owns (its files, its HTTP endpoint), which sends this process no event."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if predicate():
            return True
        time.sleep(every)
    return False


def http_json(url: str) -> dict[str, Any]:
    with urllib.request.urlopen(url, timeout=5) as resp:
        return json.loads(resp.read())


# ---------------------------------------------------------------- sampling


def test_bernoulli_sampler_rate_and_continuation() -> None:
    sampler = BernoulliSampler(0.01, seed=7)
    picked = sum(len(sampler.pick(512)) for _ in range(2000))  # 1,024,000 records
    expected = 0.01 * 1_024_000
    assert abs(picked - expected) < 5 * (expected * 0.99) ** 0.5
    # The gap carries across calls: a batch of 1 is sampled about 1% of the time, not never.
    single = sum(len(sampler.pick(1)) for _ in range(20000))
    assert 130 < single < 270
    assert BernoulliSampler(1.0).pick(5) == [0, 1, 2, 3, 4]


def test_extract_keeps_replay_fields_and_rejects_bad_records() -> None:
    s = extract({"text": "hello", "global_step": 12, "rank": 3, "micro_batch": 1, "sample_id": 99, "id": "a"},
                "text", "id", "url", step=5, rank=0)
    assert (s["global_step"], s["rank"], s["micro_batch"], s["sample_id"], s["source_id"]) == (12, 3, 1, "99", "a")
    s = extract("plain text", "text", "id", "url", step=5, rank=2)
    assert (s["global_step"], s["rank"]) == (5, 2)
    for bad in ({"text": 3}, {"body": "x"}, 42, None):
        with pytest.raises(MalformedRecord):
            extract(bad, "text", "id", "url")


# ---------------------------------------------------------------- episodes


def test_alert_raised_once_per_episode_and_cleared(tmp_path: Path) -> None:
    book = AlertBook(tmp_path, clear_after=2)
    for w in range(3):
        book.update("junk_rate", True, w, 0.3, 0.1, {"records": 100})
    book.update("junk_rate", False, 3, 0.0, 0.1)
    assert "junk_rate" in book.active  # one clean window is not the end of the episode
    book.update("junk_rate", False, 4, 0.0, 0.1)
    assert "junk_rate" not in book.active
    book.update("junk_rate", True, 5, 0.5, 0.1)
    book.close()
    raised = read_jsonl(tmp_path / "alerts.jsonl")
    assert [(a["window"], a["episode"]) for a in raised] == [(0, 1), (5, 2)]
    assert {"time", "kind", "window", "value", "threshold"} <= set(raised[0])
    cleared = read_jsonl(tmp_path / "cleared.jsonl")
    assert [(c["episode"], c["window"], c["raised_window"], c["windows"]) for c in cleared] == [(1, 4, 0, 3)]


def test_alert_fired_several_times_in_one_window_counts_that_window_once(tmp_path: Path) -> None:
    # Contamination fires per hit and again at the window's end: window 0 counts once, and a
    # firing window 2 starts the clean count over, so the episode clears at window 4, not 3.
    book = AlertBook(tmp_path, clear_after=2)
    for window, firing_calls in ((0, 3), (1, 0), (2, 2), (3, 0), (4, 0)):
        for _ in range(firing_calls):
            book.update("contamination", True, window, 1, 1)
        if not firing_calls:
            book.update("contamination", False, window, 0, 1)
        if window == 3:
            assert "contamination" in book.active
    book.close()
    cleared = read_jsonl(tmp_path / "cleared.jsonl")
    assert [(c["window"], c["raised_window"], c["windows"]) for c in cleared] == [(4, 0, 2)]


def test_mask_pii_replaces_spans() -> None:
    text = "mail a@b.com or call 555-123-4567 now"
    found = [{"entity_type": "EMAIL_ADDRESS", "start": 5, "end": 12},
             {"entity_type": "PHONE_NUMBER", "start": 21, "end": 33}]
    assert mask_pii(text, found) == "mail <EMAIL_ADDRESS> or call <PHONE_NUMBER> now"


# ---------------------------------------------------------------- windowed verdicts on real text


@pytest.mark.slow  # seconds, not milliseconds: kept out of the fast tier
def test_language_shift_raises_drift_within_two_windows_and_not_before(tmp_path: Path, lingua) -> None:
    cfg = make_config(tmp_path, languages={"expected": {"en": 0.7, "de": 0.2, "fr": 0.1}})
    rng = random.Random(1)
    before = {"en": 70, "de": 20, "fr": 10}
    after = {"en": 20, "de": 70, "fr": 10}
    stream = [t for k in range(7) for t in mixed_window(lingua, before, k, rng)][:650]
    stream += [t for k in range(7, 12) for t in mixed_window(lingua, after, k, rng)][:550]
    shift_window = 650 // WINDOW  # the shift happens inside window 6
    monitor = StreamMonitor(cfg)
    for start in range(0, len(stream), 64):  # batches that do not line up with windows
        monitor.process(samples(stream[start:start + 64], start))
    monitor.close()
    drift = alerts_of(monitor.out, "language_drift")
    assert len(drift) == 1, drift  # once per episode, not once per drifting window
    assert shift_window <= drift[0]["window"] <= shift_window + 1
    a = drift[0]
    assert a["value"] > a["threshold"] and a["gained"] == "de"
    # Replay context: the steps and ranks of the window, and sample ids of the gaining language.
    assert a["steps"][0] >= 60 and a["ranks"] == [0, 1]
    assert a["samples"] and all(s["sample_id"].startswith("id-") for s in a["samples"])
    status = json.loads((monitor.out / "status.json").read_text())
    assert status["state"] == "stopped" and status["counters"]["processed"] == len(stream)
    assert any(e["kind"] == "language_drift" for e in status["active_alerts"])


def test_new_language_is_reported(tmp_path: Path, lingua) -> None:
    cfg = make_config(tmp_path, languages={"expected": {"en": 0.8, "de": 0.2}})
    rng = random.Random(2)
    stream = [t for k in range(3) for t in mixed_window(lingua, {"en": 80, "de": 20}, k, rng)]
    stream += [t for k in range(3, 5) for t in mixed_window(lingua, {"en": 70, "de": 20, "pl": 10}, k, rng)]
    monitor = StreamMonitor(cfg)
    monitor.process(samples(stream))
    monitor.close()
    new = alerts_of(monitor.out, "new_language")
    assert [(a["language"], a["window"]) for a in new] == [("pl", 3)]
    assert new[0]["value"] >= 0.08 and len(new[0]["samples"]) >= 5


def test_without_recipe_first_window_is_the_reference_for_length_and_language(tmp_path: Path, lingua, news) -> None:
    cfg = make_config(tmp_path)  # no languages.expected
    en, de = lingua["en"], lingua["de"]
    stream = en[:300] + news[:200] + de[:200]  # short English, long English, short German
    monitor = StreamMonitor(cfg)
    monitor.process(samples(stream))
    monitor.close()
    assert [a["window"] for a in alerts_of(monitor.out, "length_shift")] == [3]
    assert [a["window"] for a in alerts_of(monitor.out, "language_drift")] == [5]
    assert [a["language"] for a in alerts_of(monitor.out, "new_language")] == ["de"]
    cleared = [(c["kind"], c["window"]) for c in read_jsonl(monitor.out / "cleared.jsonl")]
    assert ("length_shift", 6) in cleared
    status = json.loads((monitor.out / "status.json").read_text())
    assert status["reference"]["languages"]["source"] == "first_windows"
    assert status["reference"]["languages"]["expected"]["en"] > 0.9


def test_duplicate_burst_raises_duplicate_spike_then_clears(tmp_path: Path, news) -> None:
    cfg = make_config(tmp_path)
    fresh = iter(news)
    stream = [next(fresh) for _ in range(3 * WINDOW)]
    # Window 3: 30 exact repeats of window 1 and 10 near copies (one word appended) of window 2.
    burst = [next(fresh) for _ in range(60)] + stream[100:130] + [t + " indeed" for t in stream[200:210]]
    random.Random(3).shuffle(burst)
    stream += burst + [next(fresh) for _ in range(3 * WINDOW)]
    monitor = StreamMonitor(cfg)
    monitor.process(samples(stream))
    monitor.close()
    spikes = alerts_of(monitor.out, "duplicate_spike")
    assert [a["window"] for a in spikes] == [3]
    assert spikes[0]["value"] == pytest.approx(0.4, abs=0.02)
    assert len(spikes[0]["samples"]) == cfg.sidecar.alert_examples
    cleared = read_jsonl(monitor.out / "cleared.jsonl")
    assert [(c["kind"], c["window"]) for c in cleared] == [("duplicate_spike", 5)]


def _pii_texts(shared_data: Path) -> tuple[list[str], list[str]]:
    """Synthetic texts holding a card number, SSN or IBAN, and every planted value of them."""
    rows = json.loads((shared_data / "pii" / "presidio_synth_dataset_v2.json").read_text())
    texts, values = [], []
    for row in rows:
        kinds = {s["entity_type"] for s in row["spans"]}
        if kinds & {"CREDIT_CARD", "US_SSN", "IBAN_CODE"}:
            texts.append(row["full_text"])
            values += [s["entity_value"] for s in row["spans"]
                       if s["entity_type"] in {"CREDIT_CARD", "US_SSN", "IBAN_CODE", "EMAIL_ADDRESS", "PHONE_NUMBER"}]
    return texts, values


@pytest.mark.parametrize("reservoir_text", ["none", "masked"])
def test_pii_stream_raises_pii_rate_and_writes_no_pii(tmp_path: Path, shared_data: Path, news,
                                                      reservoir_text: str) -> None:
    cfg = make_config(tmp_path, reservoir_text=reservoir_text)
    pii, values = _pii_texts(shared_data)
    stream = news[:2 * WINDOW]
    dirty = news[200:270] + pii[:30]
    random.Random(4).shuffle(dirty)
    stream += dirty + news[270:370]
    monitor = StreamMonitor(cfg)
    monitor.process(samples(stream))
    monitor.close()
    raised = alerts_of(monitor.out, "pii_rate")
    assert [a["window"] for a in raised] == [2]
    assert raised[0]["value"] >= 0.2 and raised[0]["samples"]
    assert not alerts_of(monitor.out, "duplicate_spike")
    written = "".join(p.read_text(encoding="utf-8") for p in monitor.out.iterdir() if p.is_file())
    assert "CREDIT_CARD" in written or "US_SSN" in written or "IBAN_CODE" in written
    planted = [v for v in values if len(v) >= 8 and any(v in t for t in pii[:30])]
    assert planted
    if reservoir_text == "none":
        assert not [v for v in planted if v in written]
        assert '"text"' not in (monitor.out / "samples.jsonl").read_text()
    else:
        # Masked text: the quarantined kinds the PII stage found are gone from the file.
        kept = read_jsonl(monitor.out / "samples.jsonl")
        masked = [r for r in kept if {"CREDIT_CARD", "US_SSN", "IBAN_CODE"} & set(r["pii_types"])]
        assert masked and all("<" in r["text"] for r in masked)
        card_values = [s for s in planted if sum(ch.isdigit() for ch in s) >= 12]
        assert not [v for v in card_values if v in written]


@pytest.mark.slow  # seconds, not milliseconds: kept out of the fast tier
def test_contamination_hit_raises_at_once_with_eval_ids(tmp_path: Path, shared_data: Path, news) -> None:
    evals = shared_data / "evals" / "gsm8k_test.jsonl"
    cfg = make_config(tmp_path, eval_sets=[{"name": "gsm8k", "path": str(evals),
                                            "text_fields": ["question", "answer"]}])
    items = [json.loads(line) for line in evals.read_text().splitlines()[:3]]
    leak = news[150] + "\n\n" + items[1]["question"] + "\n" + items[1]["answer"]
    stream = news[:150] + [leak] + news[151:260]
    monitor = StreamMonitor(cfg)
    monitor.process(samples(stream[:160]))
    hits = alerts_of(monitor.out, "contamination")  # raised within the window, before it closes
    assert [a["window"] for a in hits] == [1]
    assert hits[0]["samples"][0]["sample_id"] == "id-150"
    assert hits[0]["samples"][0]["eval"][0] == {"eval_set": "gsm8k", "eval_id": "1",
                                                "overlap": pytest.approx(1.0, abs=0.05)}
    monitor.process(samples(stream[160:], 160))
    monitor.close()
    assert len(alerts_of(monitor.out, "contamination")) == 1
    assert items[1]["question"][:40] not in (monitor.out / "alerts.jsonl").read_text()


# ---------------------------------------------------------------- webhook


class _Hook(BaseHTTPRequestHandler):
    received: list[dict[str, Any]] = []

    def do_POST(self) -> None:  # noqa: N802
        body = self.rfile.read(int(self.headers["Content-Length"]))
        _Hook.received.append(json.loads(body))
        self.send_response(204)
        self.end_headers()

    def log_message(self, *args: Any) -> None:
        pass


@pytest.mark.slow  # seconds, not milliseconds: kept out of the fast tier
def test_webhook_receives_alerts_and_failures_are_counted(tmp_path: Path, news) -> None:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Hook)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        stream = news[:WINDOW] + news[:WINDOW]  # the second window repeats the first
        cfg = make_config(tmp_path / "ok", webhook=f"http://127.0.0.1:{server.server_address[1]}/hook")
        monitor = StreamMonitor(cfg)
        monitor.process(samples(stream))
        monitor.close()
        assert [a["kind"] for a in _Hook.received] == ["duplicate_spike"]
        assert _Hook.received[0]["window"] == 1
    finally:
        server.shutdown()
        server.server_close()
    # A webhook that does not answer: counted, the alert still written, the sidecar unharmed.
    cfg = make_config(tmp_path / "down", webhook=f"http://127.0.0.1:{server.server_address[1]}/hook",
                      webhook_timeout=0.5)
    monitor = StreamMonitor(cfg)
    monitor.process(samples(stream))
    monitor.close()
    assert [a["kind"] for a in alerts_of(monitor.out)] == ["duplicate_spike"]
    status = json.loads((monitor.out / "status.json").read_text())
    assert status["counters"]["webhook_failures"] == 1
    assert "audit_sidecar_webhook_failures_total 1.0" in monitor.metrics.exposition().decode()


# ---------------------------------------------------------------- the Python API and the endpoint


@pytest.mark.slow  # a worker process or `audit sidecar` started, with its models
def test_api_endpoint_serves_counters_over_http(tmp_path: Path, news, monkeypatch) -> None:
    from audit.sidecar import api

    cfg = make_config(tmp_path, sample_rate=0.5, seed=11, pii=LIGHT_PII)
    sidecar = Sidecar(cfg, metrics_port=0)  # the default worker: a child process
    try:
        port = sidecar.wait_ready()
        assert port
        for step in range(6):
            batch = [{"text": t, "sample_id": f"{step}-{i}"} for i, t in enumerate(news[step * 50:(step + 1) * 50])]
            sidecar.observe(batch, step=step, rank=0)
        sidecar.observe([{"body": "no text here"}])
        sampled = sidecar.sampled
        assert 100 <= sampled <= 200
        base = f"http://127.0.0.1:{port}"
        assert wait_for(lambda: http_json(f"{base}/status")["counters"]["processed"] == sampled - sidecar.malformed)
        with urllib.request.urlopen(f"{base}/metrics", timeout=5) as resp:
            assert resp.headers["Content-Type"].startswith("text/plain")
            metrics = resp.read().decode()
        assert f"audit_sidecar_records_processed_total {float(sampled - sidecar.malformed)}" in metrics
        assert 'audit_sidecar_alert_active{kind="language_drift"} 0.0' in metrics
        # Counters reach the worker with samples, or on their own a second after the last ones: the
        # trainer-side clock is moved on past that second rather than slept through.
        later = time.monotonic() + api.TOTALS_EVERY + 0.1
        monkeypatch.setattr(api, "time", SimpleNamespace(monotonic=lambda: later))
        sidecar.observe([])
        assert wait_for(lambda: "audit_sidecar_records_observed_total 301.0" in urllib.request.urlopen(
            f"{base}/metrics", timeout=5).read().decode(), timeout=10)
    finally:
        sidecar.close()
    status = json.loads((sidecar.output / "status.json").read_text())
    assert status["state"] == "stopped"
    assert status["counters"]["observed"] == 301 and status["counters"]["malformed"] == sidecar.malformed
    samples_kept = read_jsonl(sidecar.output / "samples.jsonl")
    assert len(samples_kept) == status["counters"]["processed"]
    assert {s["global_step"] for s in samples_kept} == set(range(6)) and {s["rank"] for s in samples_kept} == {0}


def test_observe_never_blocks_and_counts_drops_when_behind(tmp_path: Path, news, monkeypatch: pytest.MonkeyPatch) -> None:
    cfg = make_config(tmp_path, queue_batches=2, batch_records=64)
    sidecar = Sidecar(cfg, worker="thread")
    sidecar.wait_ready()
    batch = [{"text": t} for t in news[:256]]
    # The measuring is held on a gate while the trainer offers every batch: were observe() to wait
    # for it, the trainer's thread could not finish (a structural check, not a wall-time one).
    gate = threading.Event()
    loop = sidecar._worker.loop
    process = loop.monitor.process
    monkeypatch.setattr(loop.monitor, "process", lambda chunk: (gate.wait(60), process(chunk)))
    trainer = threading.Thread(target=lambda: [sidecar.observe(batch, step=step) for step in range(40)])
    trainer.start()
    trainer.join(timeout=30)
    finished_while_held = not trainer.is_alive()
    gate.set()
    trainer.join()
    assert finished_while_held  # the trainer never waits for the measuring
    assert sidecar.dropped > 0
    sidecar.close()
    c = json.loads((sidecar.output / "status.json").read_text())["counters"]
    assert c["sampled"] == 40 * 256 and c["dropped"] == sidecar.dropped
    assert c["processed"] + c["dropped"] == c["sampled"]


# ---------------------------------------------------------------- the command


@pytest.mark.slow  # a worker process or `audit sidecar` started, with its models
def test_command_counts_and_skips_malformed_lines(tmp_path: Path, news) -> None:
    config = write_config(tmp_path, pii=LIGHT_PII)
    lines = [json.dumps({"text": t, "global_step": i}) for i, t in enumerate(news[:150])]
    lines[40:40] = ["{not json", json.dumps([1, 2]), json.dumps({"body": "no text"}), '{"text": 5}']
    proc = subprocess.run(sidecar_command() + [str(config)], input="\n".join(lines) + "\n", text=True,
                          capture_output=True, cwd=REPO, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert "malformed" in proc.stderr
    status = json.loads((tmp_path / "sidecar" / "status.json").read_text())
    assert status["counters"]["malformed"] == 4
    assert status["counters"]["processed"] == 150 and status["counters"]["dropped"] == 0
    assert status["state"] == "stopped"


@pytest.mark.slow  # a worker process or `audit sidecar` started, with its models
def test_command_bad_config_exits_2_with_one_line(tmp_path: Path) -> None:
    config = write_config(tmp_path, window=10)  # below min_window
    proc = subprocess.run(sidecar_command() + [str(config)], input="", text=True, capture_output=True, cwd=REPO,
                          timeout=120)
    assert proc.returncode == 2
    assert proc.stderr.strip().count("\n") == 0 and "min_window" in proc.stderr


def _complete_files(out: Path) -> dict[str, Any]:
    """Every output file parses whole; no temporary file is left."""
    assert not [p.name for p in out.iterdir() if p.name.endswith(".tmp")]
    status = json.loads((out / "status.json").read_text())
    for name in ("alerts.jsonl", "cleared.jsonl", "samples.jsonl"):
        text = (out / name).read_text(encoding="utf-8")
        assert text == "" or text.endswith("\n")
        read_jsonl(out / name)
    return status


def _start_sidecar(config: Path, stdin: int) -> tuple[subprocess.Popen, Path, str]:
    """`audit sidecar CONFIG --metrics-port 0` started; returns it, its output folder and its
    /status URL once status.json names it (the process is killed if it never does)."""
    proc = subprocess.Popen(sidecar_command() + [str(config), "--metrics-port", "0"], stdin=stdin,
                            stderr=subprocess.PIPE, text=True, cwd=REPO)
    out = config.parent / "sidecar"
    ready = wait_for(lambda: (out / "status.json").exists() and json.loads(
        (out / "status.json").read_text()).get("status_url"))
    if not ready:
        proc.kill()
    assert ready, "the sidecar never wrote its status URL"
    return proc, out, json.loads((out / "status.json").read_text())["status_url"]


@pytest.mark.slow  # a worker process or `audit sidecar` started, with its models
def test_sigterm_flushes_state_and_exits_cleanly(tmp_path: Path, lingua) -> None:
    config = write_config(tmp_path, languages={"expected": {"en": 1.0}}, pii=LIGHT_PII)
    proc, out, url = _start_sidecar(config, stdin=subprocess.PIPE)
    try:
        lines = [json.dumps({"text": t, "global_step": i, "rank": 1, "sample_id": f"s{i}"})
                 for i, t in enumerate(lingua["en"][:150] + lingua["de"][:100])]
        proc.stdin.write("\n".join(lines) + "\n")
        proc.stdin.flush()
        assert wait_for(lambda: http_json(url)["counters"]["processed"] == 250)
        proc.send_signal(signal.SIGTERM)  # standard input still open: only the signal ends it
        assert proc.wait(timeout=60) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
    stderr = proc.stderr.read()
    status = _complete_files(out)
    assert status["state"] == "stopped", stderr
    assert status["counters"]["processed"] == 250
    kept = read_jsonl(out / "samples.jsonl")
    assert [r["sample_id"] for r in kept] == [f"s{i}" for i in range(250)]
    drift = alerts_of(out, "language_drift")
    assert [a["window"] for a in drift] == [1]
    # The last window (50 records) is under min_window: no verdict on it.
    assert status["last_window"]["records"] == 50 and status["last_window"]["language"] is None


@pytest.mark.slow  # a worker process or `audit sidecar` started, with its models
def test_command_tails_a_folder_of_dumps(tmp_path: Path, news) -> None:
    dumps = tmp_path / "dumps"
    dumps.mkdir()
    config = write_config(tmp_path, source="dumps", poll_seconds=0.1, settle_seconds=0.2, pii=LIGHT_PII)
    proc, out, url = _start_sidecar(config, stdin=subprocess.DEVNULL)
    try:
        rows = [{"text": t, "global_step": i // 10, "rank": 0, "sample_id": f"n{i}"} for i, t in enumerate(news[:120])]
        part = dumps / "step_000.jsonl"
        # A dump still being written: its incomplete last line waits for the newline.
        part.write_text("\n".join(json.dumps(r) for r in rows[:50]) + "\n" + json.dumps(rows[50])[:30])
        assert wait_for(lambda: http_json(url)["counters"]["processed"] == 50)
        with open(part, "a") as f:
            f.write(json.dumps(rows[50])[30:] + "\n" + "\n".join(json.dumps(r) for r in rows[51:80]) + "\n")
        with gzip.open(dumps / ".step_001.jsonl.gz.tmp", "wt") as f:
            f.write("\n".join(json.dumps(r) for r in rows[80:]) + "\nnot json\n")
        os.replace(dumps / ".step_001.jsonl.gz.tmp", dumps / "step_001.jsonl.gz")
        assert wait_for(lambda: http_json(url)["counters"]["processed"] == 120)
        assert http_json(url)["counters"]["malformed"] == 1
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=60) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
    status = _complete_files(out)
    assert status["counters"]["processed"] == 120
    state = json.loads((out / "source_state.json").read_text())
    assert state["files"] == {"step_000.jsonl": part.stat().st_size, "step_001.jsonl.gz": -1}


# ---------------------------------------------------------------- review fixes: episodes, PII, the job's Tagger


@pytest.mark.slow  # seconds, not milliseconds: kept out of the fast tier
def test_contamination_episode_stays_while_hits_continue(tmp_path: Path, shared_data: Path, news) -> None:
    evals = shared_data / "evals" / "gsm8k_test.jsonl"
    cfg = make_config(tmp_path, clear_after=2, eval_sets=[{"name": "gsm8k", "path": str(evals),
                                                           "text_fields": ["question", "answer"]}])
    items = [json.loads(line) for line in evals.read_text().splitlines()[:4]]
    stream = list(news[:5 * WINDOW])
    for pos, item in ((10, items[1]), (230, items[3])):  # hits in windows 0 and 2
        stream[pos] = stream[pos] + "\n\n" + item["question"] + "\n" + item["answer"]
    monitor = StreamMonitor(cfg)
    monitor.process(samples(stream[:4 * WINDOW]))
    assert "contamination" in monitor.alerts.active  # window 3 is the first clean one since window 2
    monitor.process(samples(stream[4 * WINDOW:], 4 * WINDOW))
    monitor.close()
    assert [a["window"] for a in alerts_of(monitor.out, "contamination")] == [0]
    cleared = read_jsonl(monitor.out / "cleared.jsonl")
    assert [(c["kind"], c["window"], c["windows"]) for c in cleared] == [("contamination", 4, 2)]


def test_masked_reservoir_without_pii_stage_writes_no_text(tmp_path: Path, shared_data: Path, news) -> None:
    from audit.config import ConfigError

    with pytest.raises(ConfigError, match="pii.enabled"):
        make_config(tmp_path, reservoir_text="masked", pii={"enabled": False})
    # The monitor does not rely on the config check: without the PII stage it keeps no text.
    cfg = make_config(tmp_path, reservoir_text="masked")
    cfg = cfg.model_copy(update={"pii": cfg.pii.model_copy(update={"enabled": False})})
    pii, values = _pii_texts(shared_data)
    monitor = StreamMonitor(cfg)
    monitor.process(samples(pii[:20] + news[:20]))
    monitor.close()
    kept = read_jsonl(monitor.out / "samples.jsonl")
    assert len(kept) == 40 and not [r for r in kept if "text" in r]
    written = "".join(p.read_text(encoding="utf-8") for p in monitor.out.iterdir() if p.is_file())
    assert not [v for v in values if len(v) >= 8 and v in written]


class _RejectsMarkedText(ConfigStage):
    """A stage with a bug that only one record triggers (as a library bug would)."""

    name = "picky"

    def __call__(self, batch: pa.Table) -> pa.Table:
        if any(t and "\u2063BOOM" in t for t in batch.column("text").to_pylist()):
            raise ValueError("cannot handle this record")
        return batch.append_column("picky_chars", pc.utf8_length(batch.column("text")))


def test_a_record_a_stage_fails_on_is_a_batch_error_and_the_rest_are_measured(tmp_path: Path, news) -> None:
    cfg = make_config(tmp_path)
    monitor = StreamMonitor(cfg)
    monitor.tagger = Tagger(cfg, stages=[*monitor.stages, _RejectsMarkedText(cfg)])
    texts = news[:10]
    texts[4] = texts[4] + " \u2063BOOM"
    monitor.process(samples(texts))
    assert monitor.batch_errors == 1 and monitor.processed == 9
    monitor.close()
    kept = read_jsonl(monitor.out / "samples.jsonl")
    assert [r["sample_id"] for r in kept] == [f"id-{i}" for i in range(10) if i != 4]
    counters = json.loads((monitor.out / "status.json").read_text())["counters"]
    assert counters["batch_errors"] == 1
    assert counters["retried_blocks"] == 1 and monitor.retried_blocks == {"stage picky": 1}  # said, not silent


def test_monitor_judges_as_the_job_does(tmp_path: Path, news, lingua) -> None:
    """The sidecar's reasons for a record are the ones the job's Decider gives it."""
    cfg = make_config(tmp_path)
    monitor = StreamMonitor(cfg)
    assert monitor.tagger.words  # one shared tokenisation for the stages that read words
    texts = news[:20] + lingua["de"][:10] + ["", "x" * 50, "buy now " * 40]
    measured, reasons = monitor.measure(monitor.table(samples(texts)))
    assert "text" not in measured.column_names
    decided = Decider(cfg, monitor.stages)(measured).column("reasons").to_pylist()
    assert [sorted(r) for r in reasons] == [sorted(r) for r in decided]
    assert any(reasons) and judge_all(monitor.stages, measured) == reasons
    monitor.close()


def test_shutdown_writes_each_file_once_with_state_stopped(tmp_path: Path, news) -> None:
    monitor = StreamMonitor(make_config(tmp_path))
    monitor.process(samples(news[:150]))
    writes: list[tuple[str, str]] = []
    write_reservoir, write_status = monitor.reservoir.write, monitor.write_status

    def counted_reservoir(path: Path) -> None:
        write_reservoir(path)
        writes.append(("samples", monitor.state))

    def counted_status() -> None:
        write_status()
        writes.append(("status", json.loads((monitor.out / "status.json").read_text())["state"]))

    monitor.reservoir.write, monitor.write_status = counted_reservoir, counted_status
    monitor.close()
    assert sorted(writes) == [("samples", "stopped"), ("status", "stopped")]
    assert len(read_jsonl(monitor.out / "samples.jsonl")) == 150


def test_metrics_port_in_use_fails_before_alert_files_open(tmp_path: Path) -> None:
    import socket

    taken = socket.socket()
    taken.bind(("127.0.0.1", 0))
    taken.listen()
    try:
        with pytest.raises(OSError):
            StreamMonitor(make_config(tmp_path), metrics_port=taken.getsockname()[1])
    finally:
        taken.close()
    out = tmp_path / "sidecar"
    assert not (out / "alerts.jsonl").exists() and not (out / "cleared.jsonl").exists()


# ---------------------------------------------------------------- review fixes: reading the input


def test_stdin_batches_count_a_long_last_line_in_linear_time(tmp_path: Path) -> None:
    path = tmp_path / "stream.jsonl"
    good = [json.dumps({"text": f"record {i}"}).encode() for i in range(1000)]
    long_line = b'{"text": "' + b"a" * (40 << 20) + b'"}'
    path.write_bytes(b"\n".join(good) + b"\n" + long_line + b"\n" + long_line)  # the last without newline
    t0 = time.perf_counter()
    with open(path, "rb") as f:
        batches = list(JsonLineBatches(f, 1 << 20))
    elapsed = time.perf_counter() - t0
    assert [ln for b in batches for ln in b.lines] == good
    assert sum(b.oversize for b in batches) == 2
    assert elapsed < 5, elapsed  # rescanning the pending line per 1 MiB read took over 15 s


def test_folder_tailer_counts_a_long_line_once(tmp_path: Path) -> None:
    folder = tmp_path / "dumps"
    folder.mkdir()
    limit = 1000
    rows = [json.dumps({"text": f"record {i}"}) for i in range(3)]
    (folder / "a.jsonl").write_text(rows[0] + "\n" + "x" * (3 * limit + 10) + "\n" + rows[1] + "\n" + rows[2] + "\n")
    (folder / "b.jsonl.gz").write_bytes(gzip.compress(
        (rows[0] + "\n" + "y" * (5 * limit) + "\n" + rows[1] + "\n").encode()))
    got: list[Parsed] = []
    tailer = FolderTailer(folder, tmp_path / "state.json", "text", 0.0, 0.0, threading.Event(), limit)
    for _ in range(10):
        tailer.poll(lambda parsed, where: got.append(parsed))
    assert sum(p.malformed for p in got) == 2  # one long line in each file
    assert sorted(r["text"] for p in got for r in p.records) == ["record 0", "record 0", "record 1", "record 1",
                                                                  "record 2"]


def test_only_the_fields_extract_reads_are_taken_from_column_batches(tmp_path: Path) -> None:
    fields = record_fields("text", "id", None)
    table = pa.table({"text": ["a", "b"], "id": ["x", "y"], "rank": [0, 1],
                      "tokens": pa.array([[1, 2, 3], [4, 5]], pa.list_(pa.int32()))})
    assert record_at(table, 1, fields) == {"text": "b", "rank": 1, "id": "y"}
    assert record_at(table.to_pydict(), 0, fields) == {"text": "a", "rank": 0, "id": "x"}
    folder = tmp_path / "dumps"
    folder.mkdir()
    pq.write_table(table, folder / "step_0.parquet")
    got: list[Parsed] = []
    FolderTailer(folder, tmp_path / "state.json", "text", 0.0, 0.0, threading.Event(),
                 fields=fields).poll(lambda parsed, where: got.append(parsed))
    assert [r for p in got for r in p.records] == [{"text": "a", "id": "x", "rank": 0},
                                                   {"text": "b", "id": "y", "rank": 1}]


def test_the_sidecar_measures_with_the_jobs_stage_list(tmp_path: Path) -> None:
    from audit.tagger import stage_classes

    data = config_data()
    data.update(languages={"identify": False}, dedup={"near": False})
    cfg = parse_config(data, base_dir=tmp_path)
    monitor = StreamMonitor(cfg)
    try:
        assert [type(s) for s in monitor.stages] == stage_classes(cfg)
        names = {s.name for s in monitor.stages}
        assert "language" not in names and "near_dup" not in names and "exact_dup" in names
        # the job's duplicate rule: the normalised text, so case and punctuation do not hide a copy
        text = "The committee met on Tuesday to review the budget for the coming year and agreed to fund it."
        monitor.process(samples([text, text.upper().replace(".", "!")]))
    finally:
        monitor.close()
    kept = read_jsonl(monitor.out / "samples.jsonl")
    assert kept[1]["duplicate_of"] == kept[0]["seq"]


def test_a_non_string_id_reads_the_same_in_the_sidecar_and_the_job(tmp_path: Path) -> None:
    import pyarrow as pa

    from audit.config import InputConfig
    from audit.io.shards import Shard, read_shard
    from audit.sidecar.sampler import extract

    p = tmp_path / "ids.jsonl"
    p.write_text('{"text": "some text", "id": true}\n{"text": "more text", "id": 12}\n')
    job = pa.concat_tables(read_shard(Shard("ids.jsonl", str(p), 0), InputConfig())).column("source_id").to_pylist()
    side = [extract(json.loads(line), "text", "id", "url")["source_id"] for line in p.read_text().splitlines()]
    assert job == side == ["true", "12"]


def test_an_input_that_fails_ends_the_sidecar_with_exit_2_and_one_line(tmp_path: Path, capsys) -> None:
    import io

    from audit.sidecar.service import run_sidecar

    broken = io.BytesIO(b'{"text": "a record"}\n')
    broken.close()  # reading it raises, as a pipe that breaks does
    assert run_sidecar(make_config(tmp_path), stdin=broken) == 2
    err = [x for x in capsys.readouterr().err.strip().splitlines() if x.startswith("audit sidecar:")]
    assert len(err) == 1 and "reading the input failed" in err[0]


def test_the_last_stderr_line_and_the_final_status_agree_on_malformed(tmp_path: Path, capsys) -> None:
    from audit.sidecar.service import run_sidecar

    # a lone surrogate: read fine, but the worker calls it malformed (as the job calls it unreadable)
    feed = tmp_path / "in.jsonl"
    feed.write_bytes(b'{"text": "a fine record of words"}\n{"text": "bad \\ud800 text"}\nnot json\n')
    with feed.open("rb") as stdin:
        assert run_sidecar(make_config(tmp_path), stdin=stdin) == 0
    status = json.loads((tmp_path / "sidecar" / "status.json").read_text())
    err = [x for x in capsys.readouterr().err.strip().splitlines() if x.startswith("audit sidecar:")]
    assert status["counters"]["malformed"] == 2
    assert len(err) == 1 and "2 malformed" in err[-1], err


def test_the_final_line_counts_what_only_the_worker_saw(tmp_path: Path) -> None:
    from audit.sidecar.api import Sidecar
    from audit.sidecar.service import _final_counters

    sidecar = Sidecar(make_config(tmp_path), worker="thread")
    sidecar.wait_ready()
    sidecar.observe([{"text": "a fine record of words"}, {"text": "bad \ud800 text"}])
    sidecar.close()
    status = json.loads((tmp_path / "sidecar" / "status.json").read_text())
    assert status["counters"]["malformed"] == 1  # the worker's own count: not valid Unicode
    assert _final_counters(sidecar)["malformed"] == 1
