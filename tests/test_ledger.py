"""audit ledger verify: an intact chain passes; any edited, removed or reordered entry is named."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from audit.takedown.actions import run_takedown
from audit.takedown.ledger import LEDGER, canonical, sha256_bytes, verify_ledger
from audit.takedown.testing import make_run_folder, write_corpus
from tests.test_lookup import audit

ENTRIES = 4


@pytest.fixture(scope="module")
def ledgered_run(tmp_path_factory) -> Path:
    """A run folder whose ledger holds ENTRIES entries (dry runs and executions)."""
    root = tmp_path_factory.mktemp("ledger")
    write_corpus(root)
    run = make_run_folder(root / "run", ["shards/"], root)
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
    assert audit("ledger", "verify", "--run", str(tmp_path)) == 0
    assert audit("ledger", "verify", "--run", str(tmp_path / "absent")) == 2
