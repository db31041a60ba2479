"""report.html: built from a hand-made run folder full of hostile strings, checked as text and
rendered in headless Chromium (no console errors, no script from the data runs, no fetches)."""
from __future__ import annotations

import fcntl
import json
import os
import select
import shutil
import subprocess
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from html import escape
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from audit.config import LanguagesConfig
from audit.drift import compare_mix
from audit.report import render_report, write_report
from audit.report.html import doc_anchor
from tests.fixtures_datasets import length_summary
from tests.fixtures_report import (EVIL_DOC, EVIL_ERROR, EVIL_EVAL, EVIL_ITEM, EVIL_SHARD, EVIL_STYLE, EVIL_TEXT,
                                   EVIL_URL_PART, SHARDS, build_run)

# Every element the page is built from; anything else came from the data.
PAGE_TAGS = {"html", "head", "meta", "title", "style", "body", "header", "h1", "h2", "h3", "p", "nav", "a", "main",
             "section", "div", "figure", "figcaption", "svg", "g", "rect", "text", "line", "table", "thead",
             "tbody", "tr", "th", "td", "code", "span", "br", "b", "footer", "ol", "ul", "li", "details", "summary",
             "blockquote", "mark", "h4"}
SECTIONS = ["headline", "look-at", "contamination", "duplicates", "pii", "languages", "unreadable", "reasons",
            "lengths", "examples", "stages"]


class _Elements(HTMLParser):
    """The tags, attribute names and link targets of a page, as a browser's tokenizer sees them."""

    def __init__(self) -> None:
        super().__init__()
        self.tags: set[str] = set()
        self.attributes: set[str] = set()
        self.hrefs: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.add(tag)
        self.attributes.update(name for name, _ in attrs)
        self.hrefs.extend(v or "" for name, v in attrs if name == "href")



@pytest.fixture()
def hostile_run(tmp_path: Path) -> tuple[Path, dict]:
    return build_run(tmp_path, expected={"en": 0.7, "de": 0.2, "zh": 0.1})


# ---------------------------------------------------------------- the page as text


def test_report_escapes_every_hostile_string(hostile_run):
    run, summary = hostile_run
    path = write_report(run, summary)
    assert path == run / "report.html"
    page = path.read_text(encoding="utf-8")
    # Exactly one <style> and no <script> at all: nothing from the data opened an element.
    assert page.count("<style>") == 1 and page.count("</style>") == 1
    assert "<script" not in page.lower()
    parsed = _Elements()
    parsed.feed(page)
    assert parsed.tags <= PAGE_TAGS, parsed.tags - PAGE_TAGS
    assert not [a for a in parsed.attributes if a.startswith("on")]
    assert parsed.hrefs and all(h.startswith("#") for h in parsed.hrefs)
    # The hostile values are shown, escaped.
    assert "&lt;script&gt;window.__pwned=&#x27;shard&#x27;" in page
    assert "&lt;/style&gt;&lt;script&gt;" in page
    assert "&quot;&gt;&lt;svg onload=" in page
    assert "&lt;/code&gt;&lt;/td&gt;&lt;script&gt;" in page
    assert f'id="{doc_anchor(EVIL_DOC)}"' in page and doc_anchor(EVIL_DOC).startswith("doc-h")


def test_report_shows_the_figures_and_links_examples(hostile_run):
    run, summary = hostile_run
    page = render_report(run, summary)
    for section in SECTIONS:
        assert f'<section id="{section}">' in page
    assert page.count("<svg") >= 8  # kinds, 3 length histograms, languages, pii, contamination, clusters, stages
    assert "Content-Security-Policy" in page and "default-src &#x27;none&#x27;" in page
    assert "http://" not in page.replace('xmlns="http://www.w3.org/2000/svg"', "")
    # Every example link points at a row of the examples table, and each kind has an example.
    links = {part.split('"', 1)[0] for part in page.split('href="#doc-')[1:]}
    anchors = {part.split('"', 1)[0] for part in page.split('id="doc-')[1:]}
    assert links and links <= anchors
    for kind in summary["reason_kinds"]:
        assert f"<h3>{kind}</h3>" in page
    assert len(anchors) == page.count('id="doc-')  # a record listed twice is anchored once
    # Verdict, the drift figures and the token histogram are on the page.
    assert summary["drift"]["verdict"] in ("ok", "drift")
    assert ("within recipe" in page) == (summary["drift"]["verdict"] == "ok")
    assert "Jensen-Shannon distance" in page and "Documents by length in tokens" in page
    assert "Showing the first" not in page and "All 4 entries of unreadable.jsonl" in page
    # Records are named by source id and URL (as text, never a link), with an excerpt of their text.
    assert "<b>src-2</b>" in page and "https://example.org/2?q=&lt;script&gt;" in page
    assert "Record 2 begins here" in page and "&lt;script&gt;window.__pwned=&#x27;text&#x27;" in page
    # Contamination: the eval item beside the record's matched passage, marked.
    assert EVIL_ITEM.split("<")[0] in page and "<mark>Record " in page and "method <b>exact_ngram</b>" in page
    # ... and the unit that matched, with the item's own matched passage marked (escaped).
    assert "unit <b>question</b>" in page and f"<mark>{escape(EVIL_ITEM)}</mark> 0" in page
    # Dates as people read them.
    assert "started 1 Jan 2026, 00:00 UTC" in page and "2026-01-01T00:00:00" not in page


def test_report_degrades_without_data(tmp_path):
    run = tmp_path / "run"
    run.mkdir()
    summary = {"documents": 0, "kept": 0, "quarantined": 0, "unreadable": 0, "bytes": 0, "seconds": 0.1,
               "mb_per_s": 0.0, "reasons": {}, "languages": {},
               "length": length_summary([], [], sources=[]),
               "drift": compare_mix({}, None, LanguagesConfig()),
               "duplicates": {"exact": 0, "near": 0, "rate": 0.0, "cluster_sizes": {}},
               "contamination": {"eval_sets": {}, "records": 0}, "pii": {"records": 0, "by_type": {}},
               "stages": {}}
    page = write_report(run, summary).read_text(encoding="utf-8")
    assert "No documents were read in this run." in page
    assert "No lengths were measured" in page
    assert "No eval set matched (or none was configured)." in page
    assert "No language was identified" in page
    assert "<svg" not in page
    # A summary with nothing but counts renders too.
    assert "Reasons" in render_report(run, {"documents": 3, "kept": 3, "quarantined": 0})


def test_report_names_the_stages_that_failed_on_whole_blocks(tmp_path):
    run = tmp_path / "run"
    run.mkdir()
    summary = {"documents": 3, "kept": 3, "quarantined": 0, "seconds": 2.0,
               "stages": {"language": 1.5, "length": 0.1}, "retried_blocks": {"stage language": 7}}
    page = render_report(run, summary)
    assert "re-measured a record at a time" in page
    assert "stage language" in page and ">7<" in page
    del summary["retried_blocks"]
    assert "re-measured a record at a time" not in render_report(run, summary)


def test_report_without_a_recipe_still_shows_the_mix(tmp_path):
    run, summary = build_run(tmp_path, expected=None)
    page = render_report(run, summary)
    assert "no recipe configured" in page
    assert "Against the recipe" not in page
    assert "Per shard, against the run's overall mix" in page
    assert ">de<" in page and "observed" in page


def test_examples_are_read_without_hints(hostile_run):
    run, summary = hostile_run
    summary = {k: v for k, v in summary.items() if k != "examples"}
    page = render_report(run, summary, examples_per_kind=2)
    for kind in summary["reason_kinds"]:
        assert f"<h3>{kind}</h3>" in page
    assert page.count('<tr id="doc-') <= 2 * len(summary["reason_kinds"])


# ---------------------------------------------------------------- the page in a browser

CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update", "--disable-sync",
                  "--disable-dev-shm-usage", "--remote-debugging-pipe"]


def chromium_binary() -> str:
    """Debian's chromium; skipped when absent, except on CI (CI=true) where it must be installed."""
    for name in ("chromium", "chromium-browser"):
        found = shutil.which(name)
        if found:
            return found
    if os.environ.get("CI") == "true":
        pytest.fail("chromium is not installed (.ci/run installs Debian's chromium)")
    pytest.skip("chromium is not installed: apt-get install -y chromium")


@dataclass
class PageLoad:
    """What a page did while loading: its console, exceptions, dialogs, requests and a probe's result."""

    errors: list[str] = field(default_factory=list)
    dialogs: list[str] = field(default_factory=list)
    requests: list[str] = field(default_factory=list)
    probe: dict[str, Any] = field(default_factory=dict)


class Browser:
    """Headless Chromium driven over the DevTools protocol on a pipe (fds 3/4; offline, no port)."""

    PROBE = """JSON.stringify({
        pwned: window.__pwned === undefined ? null : String(window.__pwned),
        title: document.title,
        scripts: document.getElementsByTagName('script').length,
        imgs: document.getElementsByTagName('img').length,
        handlers: Array.from(document.querySelectorAll('*')).filter(
            e => Array.from(e.attributes).some(a => a.name.startsWith('on'))).length,
        svgs: document.getElementsByTagName('svg').length,
        sections: Array.from(document.querySelectorAll('section')).map(s => s.id),
        item_marks: Array.from(document.querySelectorAll('#contamination .item mark')).map(m => m.textContent),
        headline: document.getElementById('headline') ? document.getElementById('headline').innerText : '',
        height: document.body ? document.body.scrollHeight : 0,
        text: document.body ? document.body.innerText : ''})"""

    def __init__(self, binary: str) -> None:
        self.profile = tempfile.mkdtemp(prefix="audit-chromium-")
        to_child_r, self._to_child = os.pipe()
        self._from_child, from_child_w = os.pipe()

        def wire() -> None:
            # Move both ends above any fd the dup2 targets could clobber, then onto 3 and 4.
            a = fcntl.fcntl(to_child_r, fcntl.F_DUPFD_CLOEXEC, 10)
            b = fcntl.fcntl(from_child_w, fcntl.F_DUPFD_CLOEXEC, 10)
            os.dup2(a, 3)
            os.dup2(b, 4)

        self._stderr = open(Path(self.profile) / "stderr.log", "w+b")
        # close_fds=False keeps the dup2'ed 3 and 4; every other fd Python opened is close-on-exec.
        self.proc = subprocess.Popen([binary, *CHROMIUM_FLAGS, f"--user-data-dir={self.profile}"],
                                     stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=self._stderr,
                                     preexec_fn=wire, close_fds=False)
        os.close(to_child_r)
        os.close(from_child_w)
        self._buf = b""
        self._id = 0
        self._events: list[dict] = []
        target = self.call("Target.createTarget", {"url": "about:blank"})["targetId"]
        self.session = self.call("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        for domain in ("Runtime", "Log", "Page", "Network"):
            self.call(f"{domain}.enable", session=True)

    def _read_message(self, deadline: float) -> dict:
        while b"\0" not in self._buf:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self._from_child], [], [], left)[0]:
                raise TimeoutError("chromium did not answer in time")
            chunk = os.read(self._from_child, 1 << 16)
            if not chunk:
                self._stderr.seek(0)
                raise RuntimeError(f"chromium exited: {self._stderr.read().decode(errors='replace')[-2000:]}")
            self._buf += chunk
        msg, self._buf = self._buf.split(b"\0", 1)
        return json.loads(msg)

    def call(self, method: str, params: dict | None = None, session: bool = False, timeout: float = 30.0) -> dict:
        self._id += 1
        msg: dict[str, Any] = {"id": self._id, "method": method, "params": params or {}}
        if session:
            msg["sessionId"] = self.session
        os.write(self._to_child, json.dumps(msg).encode() + b"\0")
        deadline = time.monotonic() + timeout
        while True:
            reply = self._read_message(deadline)
            if reply.get("id") == self._id:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                return reply.get("result", {})
            self._event(reply)

    def _event(self, event: dict) -> None:
        self._events.append(event)
        if event.get("method") == "Page.javascriptDialogOpening":
            # A dialog blocks the page (and its load event) until it is answered.
            self.call("Page.handleJavaScriptDialog", {"accept": True}, session=True)

    def _drain(self, seconds: float) -> None:
        deadline = time.monotonic() + seconds
        try:
            while True:
                self._event(self._read_message(deadline))
        except TimeoutError:
            pass

    def load(self, path: Path, timeout: float = 30.0) -> PageLoad:
        """Open a file, wait for its load event (plus a moment for late events) and probe it."""
        self._events.clear()
        self.call("Page.navigate", {"url": path.resolve().as_uri()}, session=True)
        deadline = time.monotonic() + timeout
        while not any(e.get("method") == "Page.loadEventFired" for e in self._events):
            self._event(self._read_message(deadline))
        self._drain(0.5)
        probe = self.call("Runtime.evaluate", {"expression": self.PROBE, "returnByValue": True}, session=True)
        out = PageLoad(probe=json.loads(probe["result"]["value"]))
        for e in self._events:
            method, p = e.get("method"), e.get("params", {})
            if method == "Runtime.exceptionThrown":
                out.errors.append(json.dumps(p.get("exceptionDetails", {}))[:500])
            elif method == "Runtime.consoleAPICalled" and p.get("type") in ("error", "assert", "warning"):
                out.errors.append(json.dumps(p.get("args", []))[:500])
            elif method == "Log.entryAdded" and p.get("entry", {}).get("level") in ("error", "warning"):
                out.errors.append(p["entry"].get("text", "")[:500])
            elif method == "Page.javascriptDialogOpening":
                out.dialogs.append(p.get("message", ""))
            elif method == "Network.requestWillBeSent":
                out.requests.append(p.get("request", {}).get("url", ""))
        return out

    def close(self) -> None:
        try:
            self.call("Browser.close", timeout=5)
        except (RuntimeError, TimeoutError, OSError):
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        for fd in (self._to_child, self._from_child):
            try:
                os.close(fd)
            except OSError:
                pass
        self._stderr.close()
        shutil.rmtree(self.profile, ignore_errors=True)


@pytest.fixture(scope="module")
def browser():
    b = Browser(chromium_binary())
    yield b
    b.close()


def test_the_browser_harness_sees_a_script_run(browser, tmp_path):
    """The control: an unescaped page with a script is caught, so a clean result below means something."""
    page = tmp_path / "unsafe.html"
    page.write_text(f"<!DOCTYPE html><html><body><p>x</p>{EVIL_SHARD}"
                    "<script>console.error('from the data')</script></body></html>", encoding="utf-8")
    load = browser.load(page)
    assert load.probe["pwned"] == "shard"
    assert load.dialogs == ["1"]
    assert any("from the data" in e for e in load.errors)


def test_report_renders_in_chromium_and_runs_nothing_from_the_data(browser, hostile_run):
    run, summary = hostile_run
    load = browser.load(write_report(run, summary))
    assert load.errors == []
    assert load.dialogs == []
    assert load.probe["pwned"] is None
    assert load.probe["scripts"] == 0 and load.probe["imgs"] == 0 and load.probe["handlers"] == 0
    # No fetch at all beyond the page itself: no network, no files named by the data.
    assert load.requests == [(run / "report.html").resolve().as_uri()]
    # It rendered: every section, the charts, and the hostile strings as plain text.
    assert load.probe["sections"] == SECTIONS
    assert load.probe["svgs"] >= 8 and load.probe["height"] > 2000
    assert EVIL_SHARD in load.probe["text"] and EVIL_ERROR in load.probe["text"]
    assert EVIL_STYLE in load.probe["text"]
    # Texts, URLs and eval items from the data are shown as text and ran nothing.
    assert EVIL_TEXT in load.probe["text"] and EVIL_URL_PART in load.probe["text"] and EVIL_ITEM in load.probe["text"]
    # The unit that matched is named, and the item's matched passage is marked on the eval side.
    assert "unit question" in load.probe["text"] and "Eval item · question" in load.probe["text"]
    assert load.probe["item_marks"] and set(load.probe["item_marks"]) == {EVIL_ITEM}
    assert load.probe["title"] == "Audit report · 1 Jan 2026, 00:00 UTC"
    # The headline as a reader sees it: the figures of summary.json.
    docs = summary["documents"]
    top = list(summary["reason_kinds"].items())[:3]
    assert load.probe["headline"].startswith(
        f"Headline\n\n{docs:,} documents: {summary['kept'] / docs:.1%} kept ({summary['kept']:,}), "
        f"{summary['quarantined']:,} quarantined; the largest reasons: "
        + ", ".join(f"{k} {v:,} ({v / docs:.1%})" for k, v in top) + ".")


def test_an_empty_run_renders_in_chromium(browser, tmp_path):
    run = tmp_path / "run"
    run.mkdir()
    load = browser.load(write_report(run, {"documents": 0, "kept": 0, "quarantined": 0}))
    assert load.errors == [] and load.probe["sections"][0] == "headline"
    assert "No documents were read in this run." in load.probe["text"]


def test_report_of_a_summary_builder_summary(tmp_path):
    """The summary.json the job writes (SummaryBuilder) renders with every section filled."""
    from datetime import datetime, timezone

    from audit.config import AuditConfig
    from audit.summary import SummaryBuilder

    run, _ = build_run(tmp_path)
    lineage = pq.read_table(run / "lineage")
    n = lineage.num_rows
    chars = lineage.column("chars")
    decided = lineage.append_column("bytes", chars).append_column("error", pa.nulls(n, pa.string())) \
        .append_column("length_words", pa.array([c // 6 for c in chars.to_pylist()], pa.int64())) \
        .append_column("contamination", pa.array(
            [[{"eval_set": EVIL_EVAL, "eval_id": "7"}] if any(r.startswith("contamination") for r in rs) else []
             for rs in lineage.column("reasons").to_pylist()],
            pa.list_(pa.struct([("eval_set", pa.string()), ("eval_id", pa.string())])))) \
        .append_column("pii", pa.array(
            [[{"entity_type": "CREDIT_CARD"}] if any(r.startswith("pii") for r in rs) else []
             for rs in lineage.column("reasons").to_pylist()], pa.list_(pa.struct([("entity_type", pa.string())]))))
    config = AuditConfig(input={"paths": ["shards/"]}, languages={"expected": {"en": 0.5, "de": 0.3, "zh": 0.2}})
    builder = SummaryBuilder(config)
    builder.add(decided)
    builder.add_unreadable({"shard": EVIL_SHARD, "line": 3, "byte_offset": 10, "error": EVIL_ERROR})
    dups = pq.read_table(run / "duplicates")
    sizes = Counter(Counter(dups.column("cluster_id").to_pylist()).values())
    dups = {"exact": dups.column("kind").to_pylist().count("exact"), "near": dups.column("kind").to_pylist().count("near"),
            "cluster_sizes": {k + 1: v for k, v in sizes.items()}}
    summary = builder.finish(seconds=2.0, scan_seconds=1.5, ray_start_seconds=0.5, stages={"length": 0.2, "pii": 1.1},
                             shards=len(SHARDS), duplicates=dups, started=datetime.now(timezone.utc), version="test")
    page = render_report(run, json.loads(json.dumps(summary)))
    parsed = _Elements()
    parsed.feed(page)
    assert parsed.tags <= PAGE_TAGS and "<script" not in page
    assert "No lengths were measured" not in page and "Documents by length in words" in page
    assert "Against the recipe" in page and "Per shard, against" in page
    assert "CREDIT_CARD" in page and "&lt;img src=x onerror=" in page
    assert f"{n:,}" in page


# ---------------------------------------------------------------- what a data lead reads first


def test_what_to_look_at_is_ordered_by_the_records_it_affects():
    from audit.report.html import look_at

    summary = {"documents": 1000, "unreadable": 2, "reason_kinds": {"pii": 10, "contamination": 5},
               "contamination": {"eval_sets": {"gsm8k": {"records": 5, "items_matched": 4},
                                               "mmlu": {"records": 0, "items_matched": 0}}},
               "duplicates": {"exact": 30, "near": 20, "cluster_sizes": {"2": 40, "11": 1}},
               "pii": {"records": 12, "by_type": {"EMAIL_ADDRESS": 9, "IP_ADDRESS": 40}},
               "drift": {"verdict": "ok", "shards": {"shards": {"a": {"drift": False, "documents": 900}}}}}
    items = look_at(summary)
    assert [(n, title) for n, title, _, _ in items] == [
        (50, "Duplicate clusters"), (10, "Personal data (PII)"), (5, "Contamination: eval set gsm8k"),
        (2, "Unreadable input")]
    assert items[0][2] == "50 duplicate records (30 exact, 20 near) in 41 clusters, the largest of 11 records"
    summary["drift"] = {"verdict": "drift", "js": 0.31, "documents": 1000, "shards": {}}
    assert look_at(summary)[0][1:] == ("Language drift", "the mix drifts from the recipe (Jensen-Shannon 0.31)",
                                        "languages")


def test_empty_findings_collapse_and_drift_tables_hold_no_walls_of_zeros(tmp_path):
    run = tmp_path / "run"
    run.mkdir()
    cfg = LanguagesConfig()
    same = {"en": 50, "de": 50}
    summary = {"documents": 300, "kept": 300, "quarantined": 0, "started": "2026-03-05T14:07:09.123+01:00",
               "drift": compare_mix(same, None, cfg) | {"shards": {"shards": {
                   "a.jsonl": {"documents": 100, "js": 0.0, "psi": 0.0, "chi2": 0.0, "pvalue": 1.0, "drift": False},
                   "b.jsonl": {"documents": 100, "js": 0.0, "psi": 0.0, "chi2": 0.0, "pvalue": 1.0, "drift": False},
                   "c.jsonl": {"documents": 100, "js": 0.000123456, "psi": 2.5e-07, "chi2": 0.01, "pvalue": 0.99,
                               "drift": False}}, "drifting": []}},
               "languages": same, "contamination": {"eval_sets": {}}, "duplicates": {"exact": 0, "near": 0},
               "pii": {"records": 0, "by_type": {}}}
    page = render_report(run, summary)
    for title in ("Contamination", "Duplicates", "Personal data (PII)", "Unreadable input", "Reasons",
                  "Example quarantined records"):
        assert f"<details><summary>{title}: nothing found</summary>" in page
    assert "Nothing: no contamination, duplicates, PII, language drift or unreadable input." in page
    assert "0.0000" not in page and ">c.jsonl<" in page and ">a.jsonl<" not in page
    assert "2 shards have exactly the overall mix and are not listed." in page
    assert ">0.000123<" in page and ">2.5e-07<" in page
    assert "started 5 Mar 2026, 13:07 UTC" in page


def test_excerpts_mask_personal_data_by_type():
    from audit.report.html import excerpt, masked

    text = "Mail ana@example.org or call +44 20 7946 0958 today."
    spans = [(5, 20, "EMAIL_ADDRESS"), (29, 45, "PHONE_NUMBER")]
    assert masked(text, spans, 0, len(text)) == "Mail ⟨EMAIL_ADDRESS⟩ or call ⟨PHONE_NUMBER⟩ today."
    assert masked(text, spans, 10, 34) == "⟨EMAIL_ADDRESS⟩ or call ⟨PHONE_NUMBER⟩"
    assert excerpt(text, spans, chars=20) == "Mail ⟨EMAIL_ADDRESS⟩ …"
    assert excerpt(text, spans, chars=15) == "Mail …"  # never half a mask
    assert excerpt("a\n\n  b", ()) == "a b" and excerpt(None) is None


def test_terminal_summary_names_every_reason_kind_once():
    from audit.summary import summary_lines

    kinds = {f"kind{i}": 10 - i for i in range(9)}
    lines = summary_lines({"documents": 100, "kept": 55, "quarantined": 45, "unreadable": 1, "bytes": 2_000_000,
                           "seconds": 4.0, "mb_per_s": 0.5, "reason_kinds": kinds})
    assert lines[0] == ("done: 100 documents (2.0 MB) in 4.0 s (0.5 MB/s): kept 55 (55.0%), quarantined 45, "
                        "unreadable 1")
    assert lines[1] == "reasons (records per kind): " + ", ".join(f"{k} {v}" for k, v in kinds.items())


@pytest.mark.ray
def test_the_demo_runs_report_in_chromium(browser, demo_run):
    """A real run's page: the headline is summary.json's, contamination shows the eval item beside
    the record's passage, PII excerpts are masked, and nothing ran or was fetched."""
    summary = json.loads((demo_run / "summary.json").read_text(encoding="utf-8"))
    load = browser.load(demo_run / "report.html")
    assert load.errors == [] and load.dialogs == [] and load.probe["pwned"] is None
    assert load.requests == [(demo_run / "report.html").resolve().as_uri()]
    docs, kept = summary["documents"], summary["kept"]
    top = list(summary["reason_kinds"].items())[:3]
    assert load.probe["headline"].startswith(
        f"Headline\n\n{docs:,} documents: {kept / docs:.1%} kept ({kept:,}), {summary['quarantined']:,} quarantined; "
        "the largest reasons: " + ", ".join(f"{k} {v:,} ({v / docs:.1%})" for k, v in top) + ".")
    text = load.probe["text"]
    assert "Eval item" in text and "text not read" not in text and "item not read" not in text
    assert "⟨" in text.split("Personal data (PII)", 1)[1]
    assert "T" + summary["started"][11:16] not in text  # dates are shown as people read them


def test_the_demo_prints_the_runs_summary_once_and_complete(tmp_path, monkeypatch, capsys):
    """`audit demo` printed its own summary after the run's closing lines, and the first one cut the
    reasons at six kinds: now the run's closing summary is the only one, with every kind."""
    from types import SimpleNamespace

    from audit import demo
    from audit.progress import Progress

    kinds = {f"kind{i}": 10 - i for i in range(9)}
    summary = {"documents": 100, "kept": 55, "quarantined": 45, "unreadable": 1, "bytes": 10, "seconds": 1.0,
               "mb_per_s": 0.0, "reason_kinds": kinds}
    corpus = SimpleNamespace(shards=["s"], root=tmp_path, counts={"clean": 55}, config_path=tmp_path / "c.yaml",
                             truth_path=tmp_path / "truth.jsonl")
    monkeypatch.setattr(demo, "build_demo_corpus", lambda *a, **k: corpus)
    monkeypatch.setattr(demo, "load_config", lambda path: None)
    monkeypatch.setattr(demo, "_found_vs_planted", lambda run, truth: "junk 1/1")

    def run_audit(config, out, progress=True):  # what run_audit does at its end: the closing summary
        Progress(enabled=True).close(summary)
        return SimpleNamespace(out=out, summary=summary)

    monkeypatch.setattr(demo, "run_audit", run_audit)
    assert demo.run_demo(tmp_path) == 0
    captured = capsys.readouterr()
    text = captured.out + captured.err
    assert text.count("100 documents") == 1 and text.count("quarantined 45") == 1
    assert all(text.count(f"{k} {v}") == 1 for k, v in kinds.items())
    assert "found vs planted: junk 1/1" in captured.out
