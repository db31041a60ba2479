"""notebooks/audit_run.ipynb runs top to bottom on a run folder and draws its figures."""
from __future__ import annotations

import json
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

from tests.fixtures_report import EVIL_SHARD, build_run

pytestmark = pytest.mark.slow  # a Jupyter kernel per test

NOTEBOOK = Path(__file__).resolve().parents[1] / "notebooks" / "audit_run.ipynb"
REPO = NOTEBOOK.parents[1]


def execute(run: Path, monkeypatch: pytest.MonkeyPatch, cwd: Path) -> list[dict]:
    """Run the notebook with AUDIT_RUN=run; returns every output of every code cell."""
    monkeypatch.setenv("AUDIT_RUN", str(run))
    monkeypatch.setenv("PYTHONPATH", str(REPO))  # the kernel imports `audit` even without an install
    nb = nbformat.read(NOTEBOOK, as_version=4)
    NotebookClient(nb, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(cwd)}}).execute()
    return [o for cell in nb.cells if cell.cell_type == "code" for o in cell.get("outputs", [])]


def _texts(outputs: list[dict]) -> str:
    parts = []
    for o in outputs:
        if o.get("output_type") == "stream":
            parts.append(o.get("text", ""))
        for mime in ("text/plain", "text/html", "text/markdown"):
            parts.append(str(o.get("data", {}).get(mime, "")))
    return "\n".join(parts)


def _svgs(outputs: list[dict]) -> list[str]:
    return [o["data"]["image/svg+xml"] for o in outputs if "image/svg+xml" in o.get("data", {})]


def test_notebook_runs_on_a_hand_built_run(tmp_path, monkeypatch):
    run, summary = build_run(tmp_path, expected={"en": 0.7, "de": 0.2, "zh": 0.1})
    outputs = execute(run, monkeypatch, tmp_path)
    assert not [o for o in outputs if o.get("output_type") == "error"]
    svgs = _svgs(outputs)
    titles = " ".join(svgs)
    for title in ("Quarantine reasons by kind", "Documents by length in characters", "Language mix",
                  "PII findings by type", "Contaminated records by eval set", "Duplicate clusters by size",
                  "Seconds per stage"):
        assert title in titles, title
    text = _texts(outputs)
    assert f"**{summary['documents']:,}** documents" in text
    assert f"drift verdict: {summary['drift']['verdict']}" in text
    assert "4 unreadable lines or files" in text
    assert "0 earlier judgement(s)" in text  # the Python API's run.judgements (audit.open_run)
    # Figures computed from the datasets agree with summary.json.
    assert f"duplicate rate: {summary['duplicates']['rate']:.2%}" in text
    # Hostile strings from the data are displayed escaped in HTML tables and SVG labels.
    html = "\n".join(str(o.get("data", {}).get("text/html", "")) for o in outputs)
    assert EVIL_SHARD not in html and "&lt;script&gt;window.__pwned" in html
    assert all("<script" not in s for s in svgs)


def test_notebook_runs_on_a_run_without_recipe_or_optional_datasets(tmp_path, monkeypatch):
    run, summary = build_run(tmp_path, expected=None)
    for name in ("pii", "contamination"):
        for f in (run / name).iterdir():
            f.unlink()
        (run / name).rmdir()
    outputs = execute(run, monkeypatch, tmp_path)
    text = _texts(outputs)
    assert "drift verdict: no_recipe (no recipe configured" in text
    assert "no pii/ dataset in this run" in text and "no contamination/ dataset in this run" in text
    assert "Language mix" in " ".join(_svgs(outputs))


def test_notebook_runs_on_the_demo_run(demo_run, tmp_path, monkeypatch):
    """The lead's demo run (conftest `demo_run`): the notebook's counts are the run's counts."""
    summary = json.loads((demo_run / "summary.json").read_text(encoding="utf-8"))
    outputs = execute(demo_run, monkeypatch, tmp_path)
    assert not [o for o in outputs if o.get("output_type") == "error"]
    text = _texts(outputs)
    assert f"**{summary['documents']:,}** documents" in text
    assert len(_svgs(outputs)) >= 5
