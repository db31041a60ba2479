"""The house's shape: the core never imports takedown; the sidecar imports no report or lookup index."""
from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "audit"


def _imports(path: Path) -> set[str]:
    """Every module a file imports, at any depth (functions' local imports too)."""
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            out.add(node.module)
    return out


def _files(under: Path) -> list[Path]:
    return sorted(under.rglob("*.py"))


def test_the_core_never_imports_takedown() -> None:
    offenders = [str(f.relative_to(PACKAGE)) for f in _files(PACKAGE)
                 if "takedown" not in f.relative_to(PACKAGE).parts and f.name != "cli.py"
                 and any(m == "audit.takedown" or m.startswith("audit.takedown.") for m in _imports(f))]
    assert offenders == []


def test_the_sidecar_imports_no_report_or_lookup_index() -> None:
    banned = ("audit.report", "audit.lookup_index", "audit.takedown", "audit.job")
    offenders = [(str(f.relative_to(PACKAGE)), m) for f in _files(PACKAGE / "sidecar") for m in _imports(f)
                 if any(m == b or m.startswith(b + ".") for b in banned)]
    assert offenders == []


def test_bench_scripts_that_use_test_helpers_run_from_the_repo_root() -> None:
    import os
    import subprocess
    import sys

    root = PACKAGE.parent
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}  # as a user runs it
    for script in sorted((root / "bench").glob("*.py")):
        if "tests." not in script.read_text(encoding="utf-8"):
            continue
        done = subprocess.run([sys.executable, str(script.relative_to(root)), "--help"], cwd=root, env=env,
                              capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, (script.name, done.stderr[-500:])
