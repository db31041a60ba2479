"""Shared fixtures: one Ray session for the whole test run, finished runs, the shared data, and the
fast tier (`pytest -m fast`: every test that runs no job, no Ray and no cluster)."""
from __future__ import annotations

import os
from pathlib import Path

import pytest

from audit.demo_corpus import DemoCorpus
from tests.fixtures_corpus import Corpus, write_corpus
from tests.fixtures_runs import run_corpus

SHARED_DATA = Path(__file__).resolve().parents[2] / "shared" / "data"


# A test using one of these fixtures (directly or through another fixture) runs the job or Ray, or
# drives a headless Chromium (test_report's `browser`).
_SLOW_FIXTURES = {"ray_session", "browser"}
# A test with one of these markers is left out of the fast tier.
_SLOW_MARKERS = ("ray", "cluster", "slow")


@pytest.hookimpl(tryfirst=True)  # before `-m` deselects: otherwise `-m fast` finds nothing (exit 5)
def pytest_collection_modifyitems(config, items):
    """Order the cluster test last and mark the fast tier."""
    # The two-node cluster test shuts the shared session down: run it last.
    items.sort(key=lambda it: it.get_closest_marker("cluster") is not None)
    for item in items:
        uses = set(getattr(item, "fixturenames", ()))
        if not uses & _SLOW_FIXTURES and not any(item.get_closest_marker(m) for m in _SLOW_MARKERS):
            item.add_marker(pytest.mark.fast)


@pytest.fixture(autouse=True)
def _fast_tests_start_no_ray(request):
    """A test in the fast tier that starts Ray fails, naming the fix: the tier stays what it says."""
    import sys

    was_up = "ray" in sys.modules and sys.modules["ray"].is_initialized()
    yield
    if request.node.get_closest_marker("fast") and not was_up and "ray" in sys.modules:
        assert not sys.modules["ray"].is_initialized(), (
            "this test started Ray: ask for the ray_session fixture or mark it ray (it is not fast)")


def _free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


S3_PORT = _free_port()


def pytest_configure(config):
    # The S3 test server's address and credentials, set before any Ray starts so its workers
    # inherit them (as a cluster's nodes would have theirs); nothing may reach a real endpoint.
    os.environ.update(AWS_ACCESS_KEY_ID="testing", AWS_SECRET_ACCESS_KEY="testing", AWS_DEFAULT_REGION="us-east-1",
                      AWS_ENDPOINT_URL=f"http://127.0.0.1:{S3_PORT}", AWS_EC2_METADATA_DISABLED="true")
    for var in ("AWS_SESSION_TOKEN", "AWS_PROFILE", "AWS_ENDPOINT_URL_S3"):
        os.environ.pop(var, None)


@pytest.fixture(scope="session")
def s3_bucket():
    """A real S3-protocol server (moto's server mode) on 127.0.0.1 with one bucket; its URI."""
    import boto3
    from moto.server import ThreadedMotoServer

    server = ThreadedMotoServer(ip_address="127.0.0.1", port=S3_PORT, verbose=False)
    server.start()
    try:
        boto3.client("s3").create_bucket(Bucket="audit-test")
        yield "s3://audit-test"
    finally:
        server.stop()


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
        # "local": never join a `ray start` running on the machine (its cluster file would win)
        ray.init(address="local", num_cpus=2, object_store_memory=300 * 2**20, include_dashboard=False,
                 configure_logging=True, logging_level="warning")
        ray.data.DataContext.get_current().enable_progress_bars = False
    yield ray


@pytest.fixture(scope="session")
def two_node_cluster(ray_session):
    """A two-node Ray cluster (ray.cluster_utils.Cluster, one CPU each) in place of the shared local
    session, which it shuts down; its address, joined by the first run given it. Started once for
    every test marked `cluster` (they run last)."""
    import ray
    from ray.cluster_utils import Cluster

    ray.shutdown()
    cluster = Cluster(initialize_head=True, head_node_args={"num_cpus": 1, "object_store_memory": 150 * 2**20})
    try:
        cluster.add_node(num_cpus=1, object_store_memory=150 * 2**20)
        cluster.wait_for_nodes()
        yield cluster.address
    finally:
        ray.shutdown()
        cluster.shutdown()


@pytest.fixture(scope="session")
def corpus_run(tmp_path_factory, ray_session) -> tuple[Corpus, Path]:
    """fixtures_corpus's corpus and a finished run over it (tests/fixtures_runs.CORPUS_JOB), made
    once per test session: read it, or clone_run it before changing anything."""
    corpus = write_corpus(tmp_path_factory.mktemp("corpus_run"))
    return corpus, run_corpus(corpus)


@pytest.fixture(scope="session")
def demo(tmp_path_factory, ray_session) -> tuple[DemoCorpus, Path]:
    """`audit demo`'s corpus (600 records) and its finished run with the corpus's own config, made
    once per test session: read them, or copy the run before writing into it."""
    from audit import demo as demo_module

    built: list[DemoCorpus] = []
    build = demo_module.build_demo_corpus
    out = tmp_path_factory.mktemp("demo")
    with pytest.MonkeyPatch.context() as mp:  # keep the corpus run_demo builds (its shards and config)
        mp.setattr(demo_module, "build_demo_corpus", lambda *a, **k: built.append(build(*a, **k)) or built[-1])
        assert demo_module.run_demo(out, docs=600, seed=3) == 0
    return built[0], out / "run"


@pytest.fixture(scope="session")
def demo_run(demo: tuple[DemoCorpus, Path]) -> Path:
    """The finished `audit demo` run folder."""
    return demo[1]
