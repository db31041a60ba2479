"""The Python API: audit.run / decide / export / open_run, configs as a path, a dict or an
AuditConfig, typed access to a run's outputs, exceptions instead of exits."""
from __future__ import annotations

import importlib
import json

import pyarrow.dataset as pads
import pytest
import yaml

import audit
from audit.config import ConfigError, parse_config
from audit.io.shards import InputError
from tests.fixtures_corpus import write_corpus
from tests.fixtures_runs import CORPUS_JOB


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    return write_corpus(tmp_path_factory.mktemp("api"))


def _config(corpus, name: str) -> dict:
    return {"input": {"paths": [str(corpus.root / "shards")]}, "output": str(corpus.root / name), **CORPUS_JOB}


def test_run_open_and_read_the_outputs(corpus, tmp_path):
    r = audit.run(_config(corpus, "by-dict"))
    assert isinstance(r, audit.Run) and r.path == corpus.root / "by-dict"
    summary = json.loads((corpus.root / "by-dict" / "summary.json").read_text())
    assert r.summary == summary and (r.documents, r.kept, r.quarantined) == (118, 117, 1)
    assert r.reasons == summary["reasons"] and r.config.dedup.exact is False
    for name in ("lineage", "quarantine", "duplicates", "contamination", "pii"):
        assert isinstance(getattr(r, name), pads.Dataset)
    assert r.lineage.count_rows() == r.documents and r.quarantine.count_rows() == 1
    assert len(r.unreadable) == summary["unreadable"] and r.judgements == [] and r.report.is_file()
    # a path and an AuditConfig give the same run
    path = tmp_path / "audit.yaml"
    path.write_text(yaml.safe_dump(_config(corpus, "by-path")))
    by_path = audit.run(path)
    by_model = audit.run(parse_config(_config(corpus, "by-model")), out=tmp_path / "by-model")
    for other in (by_path, by_model, audit.open_run(str(by_path.path))):
        assert other.lineage.to_table().sort_by("doc_id").select(["doc_id", "verdict"]).equals(
            r.lineage.to_table().sort_by("doc_id").select(["doc_id", "verdict"]))


def test_decide_with_a_dict_of_changes_and_export(corpus, tmp_path):
    r = audit.run(_config(corpus, "to-decide"))
    strict = audit.decide(r, {"filters": {"length": {"min_words": 100}}}, out=tmp_path / "strict")
    assert strict.quarantined > r.quarantined and strict.config.filters.length.min_words == 100
    assert r.summary == audit.open_run(r.path).summary  # the run itself unchanged
    assert strict.judgements[0]["kept"] == r.kept
    again = strict.decide()  # in place, with its own config: one more entry in its history
    assert again.summary["kept"] == strict.kept and len(again.judgements) == 2
    m = strict.export(tmp_path / "clean", verdict="quarantined", format="parquet")
    assert m["records"] + m["counts"]["not_written"] == strict.quarantined
    assert audit.export(strict, tmp_path / "kept")["records"] == strict.kept


def test_errors_raise_and_never_exit(corpus, tmp_path):
    with pytest.raises(InputError, match="does not exist"):
        audit.open_run(tmp_path / "nowhere")
    (tmp_path / "half").mkdir()
    with pytest.raises(InputError, match="unfinished"):
        audit.decide(tmp_path / "half")
    with pytest.raises(ConfigError, match="bogus"):
        audit.run({"input": {"paths": ["shards/"]}, "bogus": 1})
    with pytest.raises(ConfigError, match="expected a path, a dict or an AuditConfig"):
        audit.run(42)  # type: ignore[arg-type]


def test_audit_decide_is_the_function_after_the_judging_module_loads():
    judging = importlib.import_module("audit.decide")  # the submodule of that name, loaded
    from audit.decide import Decider

    assert judging.Decider is Decider and Decider.__module__ == "audit.decide"
    assert callable(audit.decide) and audit.decide.__module__ == "audit.api"
    assert {"run", "decide", "export", "open_run", "Run"} <= set(dir(audit))
