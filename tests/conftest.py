"""Shared fixtures: one Ray session for the whole test run, a finished demo run, the shared data."""
from __future__ import annotations

import os
from pathlib import Path

import pytest

SHARED_DATA = Path(__file__).resolve().parents[2] / "shared" / "data"


def pytest_collection_modifyitems(config, items):
    # The two-node cluster test shuts the shared session down: run it last.
    items.sort(key=lambda it: it.get_closest_marker("cluster") is not None)


def pytest_configure(config):
    config.addinivalue_line("markers", "cluster: starts its own multi-node Ray cluster (runs last)")


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """../shared/data; skipped when absent, except on CI where it must be there."""
    if not SHARED_DATA.is_dir():
        if os.environ.get("CI") == "true":
            pytest.fail(f"shared data missing at {SHARED_DATA}")
        pytest.skip("../shared/data is not here")
    return SHARED_DATA


@pytest.fixture(scope="session")
def ray_session():
    """One local Ray session for every test that runs the job on Ray."""
    import ray

    if not ray.is_initialized():
        ray.init(num_cpus=2, object_store_memory=300 * 2**20, include_dashboard=False,
                 configure_logging=True, logging_level="warning")
        ray.data.DataContext.get_current().enable_progress_bars = False
    yield ray


@pytest.fixture(scope="session")
def demo_run(tmp_path_factory, ray_session) -> Path:
    """A finished `audit demo` run folder (corpus and run), made once per test session."""
    from audit.demo import run_demo

    out = tmp_path_factory.mktemp("demo")
    assert run_demo(out, docs=600) == 0
    return out / "run"
