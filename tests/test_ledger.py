"""audit ledger verify: an intact chain passes; any edited, removed or reordered entry is named."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from audit.takedown.actions import run_takedown
from audit.takedown.ledger import LEDGER, canonical, sha256_bytes, verify_ledger
from tests.fixtures_corpus import Corpus
from tests.fixtures_runs import audit, clone_run

ENTRIES = 4


@pytest.fixture(scope="module")
def ledgered_run(tmp_path_factory, corpus_run: tuple[Corpus, Path]) -> Path:
    """A run folder whose ledger holds ENTRIES entries (dry runs and executions)."""
    root = tmp_path_factory.mktemp("ledger")
    _, run = clone_run(*corpus_run, root / "corpus")
    for i in range(ENTRIES):
        req = root / f"r{i}.yaml"
        req.write_text(f"request_id: TR-{i % 2}\nreceived: 2026-11-20T10:00:00Z\nrequester: x\nbasis: privacy\n"
                       f"match: {{source_ids: [a-{i}]}}\n", encoding="utf-8")
        run_takedown(run, req, execute=i % 2 == 1)
    return run


@pytest.fixture
def run(ledgered_run: Path, tmp_path: Path) -> Path:
    copy = tmp_path / "run"
    shutil.copytree(ledgered_run, copy)
    return copy


def lines(run: Path) -> list[str]:
    return (run / LEDGER).read_text(encoding="utf-8").splitlines()


def write(run: Path, new: list[str]) -> None:
    (run / LEDGER).write_text("".join(x + "\n" for x in new), encoding="utf-8")


def fails_naming(run: Path, entry: int, capsys) -> str:
    report = verify_ledger(run)
    assert not report.ok and report.bad_entry == entry, report
    assert audit("ledger", "verify", "--run", str(run)) == 1
    err = capsys.readouterr().err
    assert f"entry {entry} " in err and len(err.strip().splitlines()) == 1
    return err


def test_an_intact_ledger_verifies(run: Path, capsys) -> None:
    assert audit("ledger", "verify", "--run", str(run)) == 0
    assert f"ledger intact: {ENTRIES} entries" in capsys.readouterr().out
    entries = [json.loads(x) for x in lines(run)]
    assert [e["seq"] for e in entries] == list(range(1, ENTRIES + 1))
    assert entries[0]["prev_sha256"] == "0" * 64
    assert all(json.loads(b)["prev_sha256"] == sha256_bytes(a.encode()) for a, b in zip(lines(run), lines(run)[1:]))
    assert [e["mode"] for e in entries] == ["dry_run", "execute", "dry_run", "execute"]


@pytest.mark.parametrize("entry", range(1, ENTRIES + 1))
def test_editing_any_line_fails_naming_that_entry(run: Path, entry: int, capsys) -> None:
    new = lines(run)
    e = json.loads(new[entry - 1])
    e["located"] += 1
    new[entry - 1] = canonical(e)
    write(run, new)
    assert "edited" in fails_naming(run, entry, capsys)


@pytest.mark.parametrize("entry", range(1, ENTRIES + 1))
def test_a_one_character_edit_is_caught_too(run: Path, entry: int, capsys) -> None:
    new = lines(run)
    new[entry - 1] = new[entry - 1].replace("TR-", "TX-", 1)
    write(run, new)
    fails_naming(run, entry, capsys)


@pytest.mark.parametrize("entry", range(1, ENTRIES + 1))
def test_an_edit_with_its_hashes_recomputed_is_caught(run: Path, entry: int, capsys) -> None:
    new = lines(run)
    e = json.loads(new[entry - 1])
    e["time"] = "2020-01-01T00:00:00.000+00:00"
    e.pop("entry_sha256")
    e["entry_sha256"] = sha256_bytes(canonical(e).encode())
    new[entry - 1] = canonical(e)
    write(run, new)
    fails_naming(run, entry, capsys)


@pytest.mark.parametrize("entry", range(1, ENTRIES + 1))
def test_removing_an_entry_is_named(run: Path, entry: int, capsys) -> None:
    new = lines(run)
    del new[entry - 1]
    write(run, new)
    assert "removed" in fails_naming(run, entry, capsys)


def test_reordering_is_named(run: Path, capsys) -> None:
    new = lines(run)
    new[1], new[2] = new[2], new[1]
    write(run, new)
    fails_naming(run, 2, capsys)


def test_changed_evidence_is_named(run: Path, capsys) -> None:
    e = json.loads(lines(run)[2])
    p = run / e["evidence"]
    p.write_text(p.read_text(encoding="utf-8").replace('"privacy"', '"copyright"'), encoding="utf-8")
    assert "evidence" in fails_naming(run, 3, capsys)


def test_a_ledger_that_is_not_json_is_named(run: Path, capsys) -> None:
    new = lines(run)
    new[0] = new[0][:-5]
    write(run, new)
    fails_naming(run, 1, capsys)


def test_no_ledger_and_no_takedowns_is_intact(tmp_path: Path, capsys) -> None:
    (tmp_path / "summary.json").write_text("{}")  # a finished run that no takedown touched
    assert audit("ledger", "verify", "--run", str(tmp_path)) == 0
    assert audit("ledger", "verify", "--run", str(tmp_path / "absent")) == 2


def _request(run: Path, i: int) -> Path:
    req = run.parent / f"late{i}.yaml"
    req.write_text(f"request_id: TR-late-{i}\nreceived: 2026-11-21T10:00:00Z\nrequester: x\nbasis: privacy\n"
                   f"match: {{source_ids: [a-{i}]}}\n", encoding="utf-8")
    return req


@pytest.mark.parametrize("page_written", [True, False])
def test_a_takedown_killed_before_its_append_is_recorded_by_the_next(run: Path, capsys, page_written: bool) -> None:
    # Killed between archiving its evidence and appending: the archive exists, the entry does not.
    lost = lines(run)[-1]
    write(run, lines(run)[:-1])
    archive = json.loads(lost)
    if not page_written:
        (run / archive["evidence_html"]).unlink()
    report = verify_ledger(run)
    assert not report.ok and report.bad_entry == ENTRIES and "killed before" in report.problem
    out = run_takedown(run, _request(run, 9))
    assert out.seq == ENTRIES + 1
    now = lines(run)
    assert len(now) == ENTRIES + 1
    if page_written:
        assert now[ENTRIES - 1] == lost  # the very entry the killed takedown owed
    else:
        got = json.loads(now[ENTRIES - 1])
        assert {k: v for k, v in got.items() if k not in ("evidence_html_sha256", "entry_sha256")} == \
            {k: v for k, v in archive.items() if k not in ("evidence_html_sha256", "entry_sha256")}
        assert (run / archive["evidence_html"]).is_file()
    assert verify_ledger(run).ok, verify_ledger(run)
    assert audit("ledger", "verify", "--run", str(run)) == 0
    assert f"ledger intact: {ENTRIES + 1} entries" in capsys.readouterr().out
    ev = json.loads((run / "takedowns" / "TR-late-9" / "evidence.json").read_text(encoding="utf-8"))
    assert any(f"ledger entry {ENTRIES} " in w for w in ev["warnings"])


def test_an_append_that_fails_is_recovered_by_the_next_takedown(run: Path, monkeypatch) -> None:
    import audit.takedown.actions as actions

    def broken_disk(*_a, **_k):
        raise OSError("no space left on device")

    with monkeypatch.context() as m:
        m.setattr(actions, "append_entry", broken_disk)
        with pytest.raises(OSError):
            run_takedown(run, _request(run, 7), execute=True)
    assert len(lines(run)) == ENTRIES and not verify_ledger(run).ok
    run_takedown(run, _request(run, 8))
    entries = [json.loads(x) for x in lines(run)]
    assert [e["request_id"] for e in entries[-2:]] == ["TR-late-7", "TR-late-8"]
    assert entries[-2]["mode"] == "execute" and verify_ledger(run).ok


def test_an_archive_that_lost_its_place_is_not_called_a_removal(run: Path) -> None:
    # An old interrupted takedown whose seq a later takedown took: nothing was cut off the ledger.
    e = json.loads(lines(run)[1])
    src = run / e["evidence"]
    ev = json.loads(src.read_text(encoding="utf-8"))
    ev["request_id"] = "TR-interrupted"
    other = run / "takedowns" / "TR-interrupted" / "history" / src.name
    other.parent.mkdir(parents=True)
    other.write_text(json.dumps(ev), encoding="utf-8")
    assert verify_ledger(run).ok


def _blocklist_files(run: Path) -> list[Path]:
    return sorted((run / "blocklist").glob("*.parquet"))


@pytest.mark.parametrize("damage", ["delete", "edit"])
def test_a_deleted_or_edited_blocklist_fails_verify_and_blocks_the_next_run(run: Path, damage: str, capsys) -> None:
    from audit.io.shards import InputError
    from audit.takedown.ledger import check_blocklist

    victim = _blocklist_files(run)[0]
    assert json.loads(lines(run)[1])["blocklist_file"] == victim.relative_to(run).as_posix()
    if damage == "delete":
        victim.unlink()
    else:
        victim.write_bytes(victim.read_bytes() + b"\0")
    report = verify_ledger(run)
    assert not report.ok and victim.name in report.problem and "blocklist" in report.problem
    assert audit("ledger", "verify", "--run", str(run)) == 1
    with pytest.raises(InputError, match="--accept-blocklist-changes"):
        check_blocklist(run)
    # accepting the change records it, and the ledger holds again
    assert check_blocklist(run, accept=True)
    assert verify_ledger(run).ok
    assert json.loads(lines(run)[-1])["kind"] == "blocklist_accept"
    capsys.readouterr()


def test_the_next_audit_run_stops_on_a_changed_blocklist(run: Path, tmp_path: Path, capsys) -> None:
    _blocklist_files(run)[0].unlink()
    cfg = tmp_path / "job.yaml"
    cfg.write_text(json.dumps({"input": {"paths": [str(run.parent / "shards")]}, "output": str(run)}))
    assert audit("run", str(cfg), "--quiet") == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "does not match the takedown ledger" in err[0] and "was deleted" in err[0]


def test_an_edited_latest_evidence_fails_verify(run: Path) -> None:
    latest = run / "takedowns" / "TR-1" / "evidence.json"
    latest.write_text(latest.read_text().replace('"mode"', '"mode" ', 1))
    report = verify_ledger(run)
    assert not report.ok and "takedowns/TR-1/evidence.json" in report.problem


def test_a_consistent_rewrite_fails_against_the_exported_head(run: Path, tmp_path: Path, capsys) -> None:
    anchor = tmp_path / "anchor.json"
    assert audit("ledger", "export", "--run", str(run), "--out", str(anchor)) == 0
    head = json.loads(anchor.read_text())["head_sha256"]
    assert json.loads(anchor.read_text())["entries"] == ENTRIES
    assert audit("ledger", "verify", "--run", str(run), "--expect-head", head) == 0
    assert head in capsys.readouterr().out
    # a takedown later: the chain grows and still contains the anchored head
    req = tmp_path / "later.yaml"
    req.write_text("request_id: TR-9\nreceived: 2026-11-21T10:00:00Z\nrequester: x\nbasis: privacy\n"
                   "match: {source_ids: [a-9]}\n", encoding="utf-8")
    run_takedown(run, req)
    assert audit("ledger", "verify", "--run", str(run), "--expect-head", head) == 0
    # everything deleted together and the chain written anew, consistently: intact on its own ...
    for p in ("ledger.jsonl", "takedowns", "blocklist"):
        shutil.rmtree(run / p) if (run / p).is_dir() else (run / p).unlink()
    run_takedown(run, req)
    assert verify_ledger(run).ok
    # ... but not the chain that was anchored
    capsys.readouterr()
    assert audit("ledger", "verify", "--run", str(run), "--expect-head", head) == 1
    assert "does not contain the expected head" in capsys.readouterr().err


def test_a_full_disk_is_one_line_and_exit_2_not_an_internal_error(run: Path, capsys) -> None:
    """/dev/full answers every write with ENOSPC, as a full disk does."""
    capsys.readouterr()
    assert audit("ledger", "export", "--run", str(run), "--out", "/dev/full") == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "no space left on the device" in err[0] and "internal error" not in err[0]


@pytest.mark.parametrize("next_step", ["takedown", "audit_run"])
def test_a_takedown_killed_after_its_blocklist_file_leaves_it_vouched_for(run: Path, monkeypatch, next_step: str) -> None:
    """Killed after writing its blocklist file, before its evidence: the file only blocks more, so
    the next takedown or `audit run` records it in the ledger (no --accept needed) and verify holds."""
    import audit.takedown.actions as actions
    from audit.takedown.ledger import check_blocklist

    before = set(_blocklist_files(run))

    def killed(*_a, **_k):
        raise KeyboardInterrupt  # the process dies here: nothing after the blocklist write happens

    with monkeypatch.context() as m:
        m.setattr(actions, "evidence_json", killed)
        with pytest.raises(KeyboardInterrupt):
            run_takedown(run, _request(run, 6), execute=True)
    (orphan,) = set(_blocklist_files(run)) - before
    report = verify_ledger(run)
    assert not report.ok and orphan.name in report.problem and "in no ledger entry" in report.problem
    if next_step == "takedown":
        run_takedown(run, _request(run, 5))
    else:
        assert check_blocklist(run) == []  # recorded, not refused and not an accepted change
    entries = [json.loads(x) for x in lines(run)]
    recovered = entries[ENTRIES]
    assert recovered["kind"] == "blocklist_accept" and "killed" in recovered["reason"]
    if next_step == "takedown":
        warned = json.loads((run / "takedowns" / "TR-late-5" / "evidence.json").read_text())["warnings"]
        assert any(orphan.name in w and "killed" in w for w in warned)
    assert recovered["blocklist"][orphan.relative_to(run).as_posix()] == sha256_bytes(orphan.read_bytes())
    assert verify_ledger(run).ok, verify_ledger(run)
    # the recovery vouches only for that file: a blocklist file deleted meanwhile still shows
    _blocklist_files(run)[0].unlink()
    assert not verify_ledger(run).ok


def test_a_deleted_blocklist_is_not_hidden_by_a_later_kill_recovery(run: Path, monkeypatch) -> None:
    import audit.takedown.actions as actions

    victim = sorted(before := set(_blocklist_files(run)))[0]
    victim.unlink()
    with monkeypatch.context() as m:
        m.setattr(actions, "evidence_json", lambda *_a, **_k: (_ for _ in ()).throw(KeyboardInterrupt()))
        with pytest.raises(KeyboardInterrupt):
            run_takedown(run, _request(run, 6), execute=True)
    assert set(_blocklist_files(run)) - before
    run_takedown(run, _request(run, 5))
    report = verify_ledger(run)
    assert not report.ok and victim.name in report.problem and "was deleted" in report.problem
