"""`audit decide --out`: a new finished run folder, the run unchanged byte for byte; in place, the
judgement replaced is kept under judgements/ (a short history the report lists)."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
import yaml

import audit as audit_api
import audit.job.plan as plan
from audit.io.storage import location
from audit.job.run_folder import JUDGEMENTS_KEPT, config_fingerprint, judgement_history
from audit.report import render_report
from tests.fixtures_export import judged_run, tree_hashes
from tests.fixtures_runs import assert_same_outputs, audit

# summary.json figures about the run, not the records
VOLATILE = ("run_id", "started", "finished", "seconds", "mb_per_s", "scan_seconds", "ray_start_seconds", "stages", "resume")


@pytest.fixture(scope="module")
def judged(tmp_path_factory):
    return judged_run(tmp_path_factory.mktemp("decide-out"))


def _lenient(run: Path, tmp: Path, words: int = 20) -> Path:
    config = json.loads((run / "run.json").read_text())["config"]
    config["filters"]["length"]["min_words"] = words
    path = tmp / f"words-{words}.yaml"
    path.write_text(yaml.safe_dump(config))
    return path


def _summary(run: Path) -> dict:
    return {k: v for k, v in json.loads((run / "summary.json").read_text()).items() if k not in VOLATILE}


def test_decide_out_leaves_the_run_byte_for_byte_and_equals_an_in_place_decide(judged, tmp_path):
    corpus, run = judged
    config = _lenient(run, tmp_path)
    before = tree_hashes(run)
    new = tmp_path / "new"
    assert audit("decide", str(run), "--config", str(config), "--out", str(new)) == 0
    assert tree_hashes(run) == before
    in_place = tmp_path / "in-place"
    shutil.copytree(run, in_place)
    assert audit("decide", str(in_place), "--config", str(config)) == 0
    assert_same_outputs(new, in_place)
    assert _summary(new) == _summary(in_place) != _summary(run)
    assert sorted(p.name for p in (new / "judgements").iterdir()) == sorted(
        p.name for p in (in_place / "judgements").iterdir())
    assert not (new / ".decide-from.json").exists()
    # NEW stands alone: usable by lookup, export and decide again, with RUN gone
    shutil.rmtree(run.parent / "gone", ignore_errors=True)
    moved = shutil.move(str(run), str(run.parent / "gone"))
    try:
        assert audit("lookup", "--run", str(new), "--id", "a-3") == 0
        assert audit("export", "--run", str(new), "--out", str(tmp_path / "exp")) == 0
        assert audit("decide", str(new), "--out", str(tmp_path / "newer")) == 0
    finally:
        shutil.move(moved, str(run))
    assert json.loads((tmp_path / "exp" / "manifest.json").read_text())["records"] == _summary(new)["kept"]
    assert len(list((tmp_path / "newer" / "judgements").iterdir())) == 2


def test_decide_out_refuses_what_it_must_not_touch(judged, tmp_path, capsys):
    corpus, run = judged
    taken = tmp_path / "taken"
    taken.mkdir()
    (taken / "mine.txt").write_text("x")
    assert audit("decide", str(run), "--out", str(taken)) == 2
    assert audit("decide", str(run), "--out", str(run / "inside")) == 2
    unfinished = tmp_path / "unfinished"
    shutil.copytree(run, unfinished)
    (unfinished / "summary.json").unlink()
    assert audit("decide", str(unfinished), "--out", str(tmp_path / "n")) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 3 and "mine.txt" in err[0] and "inside the run folder" in err[1] and "unfinished" in err[2]
    assert not (run / "inside").exists() and not (tmp_path / "n").exists()


def test_a_killed_decide_out_is_done_again_and_a_failed_in_place_decide_keeps_no_entry(judged, tmp_path,
                                                                                        monkeypatch):
    corpus, run = judged
    copy = tmp_path / "copy"
    shutil.copytree(run, copy)
    real = plan._finish

    def killed(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(plan, "_finish", killed)
    with pytest.raises(KeyboardInterrupt):
        plan.decide_run(copy, out=tmp_path / "new")
    assert (tmp_path / "new" / ".decide-from.json").is_file() and not (tmp_path / "new" / "summary.json").exists()
    with pytest.raises(KeyboardInterrupt):
        plan.decide_run(copy)
    assert not (copy / "judgements").exists() or not list((copy / "judgements").iterdir())
    monkeypatch.setattr(plan, "_finish", real)
    plan.decide_run(copy, out=tmp_path / "new")  # the unfinished copy is ours: started again
    assert (tmp_path / "new" / "summary.json").is_file() and not (tmp_path / "new" / ".decide-from.json").exists()


@pytest.mark.slow  # seconds, not milliseconds: kept out of the fast tier
def test_in_place_decides_keep_a_capped_history_that_the_report_lists(tmp_path):
    corpus, run = judged_run(tmp_path)
    kept = []
    for words in range(1, JUDGEMENTS_KEPT + 3):  # two more judgements than are kept
        kept.append(json.loads((run / "summary.json").read_text())["kept"])
        assert audit("decide", str(run), "--config", str(_lenient(run, tmp_path, words))) == 0
    entries = sorted((run / "judgements").iterdir())
    assert len(entries) == JUDGEMENTS_KEPT
    assert [int(p.name[:4]) for p in entries] == list(range(3, JUDGEMENTS_KEPT + 3))  # the oldest two dropped
    assert [json.loads((p / "summary.json").read_text())["kept"] for p in entries] == kept[2:]
    words = [json.loads((p / "run.json").read_text())["config"]["filters"]["length"]["min_words"] for p in entries]
    assert words == list(range(2, JUDGEMENTS_KEPT + 2))  # each entry holds the config that judged it
    history = judgement_history(location(run))
    assert [h["kept"] for h in history] == kept[2:] and [h["folder"] for h in history] == [
        f"judgements/{p.name}" for p in entries]
    assert [h["config_fingerprint"] for h in history] == [
        config_fingerprint(json.loads((p / "run.json").read_text())) for p in entries]
    assert len({h["config_fingerprint"] for h in history}) == JUDGEMENTS_KEPT  # each judged by its own config
    page = (run / "report.html").read_text()
    assert "Earlier judgements" in page and entries[-1].name in page and entries[0].name in page
    assert "judgements/0002-" not in page  # the report lists what the folder keeps


def test_the_history_section_escapes_what_it_shows(tmp_path):
    hostile = "<script>alert(1)</script>"
    page = render_report(tmp_path, {"documents": 1, "kept": 1, "quarantined": 0, "judgements": [
        {"seq": 1, "finished": hostile, "documents": 1, "kept": 1, "quarantined": 0,
         "config_fingerprint": hostile, "folder": "judgements/0001-x"}]})
    assert "Earlier judgements" in page and hostile not in page and "&lt;script&gt;" in page
    assert "Earlier judgements" not in render_report(tmp_path, {"documents": 1, "kept": 1, "quarantined": 0})


@pytest.mark.slow  # seconds, not milliseconds: kept out of the fast tier
def test_decide_out_onto_object_storage_equals_it_here(judged, tmp_path, s3_bucket):
    corpus, run = judged
    config = _lenient(run, tmp_path)
    before = tree_hashes(run)
    remote = f"{s3_bucket}/decided-{tmp_path.name}"
    assert audit("decide", str(run), "--config", str(config), "--out", remote) == 0
    assert audit("decide", str(run), "--config", str(config), "--out", str(tmp_path / "here")) == 0
    assert tree_hashes(run) == before
    there, here = audit_api.open_run(remote), audit_api.open_run(tmp_path / "here")
    assert {k: v for k, v in there.summary.items() if k not in VOLATILE} == _summary(here.path)
    assert there.lineage.to_table().sort_by("doc_id").equals(here.lineage.to_table().sort_by("doc_id"))
    assert [h["kept"] for h in there.judgements] == [h["kept"] for h in here.judgements]
    assert not location(remote).child(".decide-from.json").exists()
