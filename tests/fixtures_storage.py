"""Runs in object storage for tests: a corpus uploaded to the S3 server of conftest's `s3_bucket`
fixture and audited there with fixtures_runs.CORPUS_JOB's settings."""
from __future__ import annotations

from pathlib import Path

from audit.config import parse_config
from audit.io.storage import location
from audit.job.plan import run_audit
from tests.fixtures_corpus import Corpus
from tests.fixtures_runs import CORPUS_JOB


def run_corpus_on_s3(bucket: str, corpus: Corpus, prefix: str) -> str:
    """Upload `corpus`'s shards under `bucket/prefix/shards/`, run the job into `bucket/prefix/run`;
    returns the run's URI. A test calling it asks for `ray_session` and `s3_bucket`."""
    remote = f"{bucket}/{prefix}"
    location(f"{remote}/shards").upload(corpus.root / "shards")
    out = f"{remote}/run"
    config = parse_config({"input": {"paths": [f"{remote}/shards/"]}, "output": out, **CORPUS_JOB},
                          base_dir=Path(corpus.root))
    assert run_audit(config, out=out, progress=False).summary["documents"] > 0
    return out
