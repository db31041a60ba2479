"""PiiStage: Presidio pattern recognisers behind the prefilter; offsets, never values; offline."""
from __future__ import annotations

import json
import socket
import typing
from collections import defaultdict
from pathlib import Path

import pyarrow as pa
import pytest

from audit.config import PiiEntity, parse_config
from audit.stages.pii import CHUNK_CHARS, PII_TYPE, SUPPORTED_ENTITIES, PiiStage, candidate_windows

DATA = Path(__file__).parents[2] / "shared" / "data"

# One sentence per entity type, with the value planted in it.
SENTENCES = {
    "EMAIL_ADDRESS": ("Please write to {} before Friday.", "maria.lopez@example.org"),
    "PHONE_NUMBER": ("You can call me on {} after six.", "+44 20 7946 0958"),
    "CREDIT_CARD": ("The card number was {} and it expired.", "4111 1111 1111 1111"),
    "IP_ADDRESS": ("The request came from {} last night.", "203.0.113.195"),
    "IBAN_CODE": ("Pay the invoice into IBAN {} by Monday.", "DE89370400440532013000"),
    "US_SSN": ("His social security number is {} on the form.", "536-22-8726"),
}


def config(**pii):
    return parse_config({"input": {"paths": ["x"]}, "pii": pii})


@pytest.fixture(scope="module")
def stage() -> PiiStage:
    return PiiStage(config())


def findings_of(stage: PiiStage, texts: list[str | None]) -> list:
    return stage(pa.table({"text": pa.array(texts, pa.string())})).column("pii").to_pylist()


def test_supported_entities_match_the_config():
    assert set(typing.get_args(PiiEntity)) == set(SUPPORTED_ENTITIES)


@pytest.mark.parametrize("entity", list(SENTENCES))
def test_each_entity_type_is_found_at_its_offsets(stage, entity):
    template, value = SENTENCES[entity]
    text = "Some words to start with. " * 3 + template.format(value) + " And more words after it." * 3
    found = [f for f in findings_of(stage, [text])[0] if f["entity_type"] == entity]
    assert found, findings_of(stage, [text])
    start = text.index(value)
    assert any(f["start"] == start and f["end"] == start + len(value) for f in found), found
    assert all(0.5 <= f["score"] <= 1.0 for f in found)


def test_output_holds_offsets_and_never_the_value(stage):
    texts = [template.format(value) for template, value in SENTENCES.values()]
    table = stage(pa.table({"text": texts}))
    assert table.schema.field("pii").type == PII_TYPE
    assert [f.name for f in PII_TYPE.value_type] == ["entity_type", "start", "end", "score"]
    dumped = json.dumps(table.drop_columns(["text"]).to_pylist())
    for _, value in SENTENCES.values():
        assert value not in dumped and value.replace(" ", "") not in dumped
    found = {f["entity_type"] for row in table.column("pii").to_pylist() for f in row}
    assert found >= set(SENTENCES)


def test_clean_text_empty_list_and_unreadable_null(stage):
    out = findings_of(stage, ["The weather in 1998 was mild, and the harvest of 2003 was good.", None, ""])
    assert out == [[], None, []]


def test_candidate_kinds_are_each_kinds_own_matches(stage):
    """One pass for any kind, then a pass per kind over the texts that hold one: each kind's
    rows are those its own pattern matches."""
    import numpy as np
    import pyarrow.compute as pc

    texts = pa.array([None, "", "plain words only", "mail a@b.co now", "call 555 123 4567", "host 10.0.0.1",
                      "DE89370400440532013000", "mac 00:1b:44:11:3a:b7", "a@b 10.0.0.2 and 555-123-4567"],
                     pa.string())
    got = stage.candidate_kinds(texts)
    assert set(got) == set(stage.kinds_re2)
    for kind, r2 in stage.kinds_re2.items():
        want = pc.fill_null(pc.match_substring_regex(texts, r2), False).to_numpy(zero_copy_only=False)
        assert np.array_equal(got[kind], want), kind
    assert got["email"][[3, 8]].all() and got["ip"][[5, 8]].all() and not any(m[2] for m in got.values())


def test_prefilter_finds_what_whole_text_analysis_finds(stage):
    whole = PiiStage(config(), prefilter=False)
    filler = "Nothing to see in this line of ordinary prose about gardens. " * 40
    text = (filler + "Contact: jan.kowalski@poczta.pl\n" + filler + "mobile: 0688 872 49 99\n" + filler
            + "Card 4929 1234 5678 9014 and server 10.0.0.7\n" + filler)
    assert findings_of(stage, [text]) == findings_of(whole, [text])
    assert {f["entity_type"] for f in findings_of(stage, [text])[0]} >= {"EMAIL_ADDRESS", "PHONE_NUMBER", "IP_ADDRESS"}


def test_windows_cover_candidates_and_merge(stage):
    text = "x " * 500 + "a@b.io " + "y " * 10 + "c@d.io" + " z" * 500
    windows = candidate_windows(text, list(stage.kinds_re.values()))
    assert len(windows) == 1
    s, e = windows[0]
    assert s <= text.index("a@b.io") and e >= text.index("c@d.io") + 6 and e - s < 400


def test_dates_and_year_ranges_are_not_phone_numbers(stage):
    texts = ["Steve Jobs (1955-2011) said it at work.", "Call the office about the 2003-03-08 release.",
             "The nightly build 20040215 works."]
    assert findings_of(stage, texts) == [[], [], []]


def test_judge_reasons_and_details(stage):
    many = " ".join(f"user{i}@example.com" for i in range(12))
    texts = [SENTENCES["CREDIT_CARD"][0].format(SENTENCES["CREDIT_CARD"][1]), many,
             SENTENCES["EMAIL_ADDRESS"][0].format(SENTENCES["EMAIL_ADDRESS"][1]), None]
    measured = stage(pa.table({"text": pa.array(texts, pa.string())})).drop_columns(["text"])
    found = list(PiiStage(config()).judge(measured))
    by_row = defaultdict(list)
    for i, reason, details in found:
        by_row[i].append(reason)
        json.dumps(details)
        assert "example.com" not in json.dumps(details)
    assert dict(by_row) == {0: ["pii:CREDIT_CARD"], 1: ["pii:many"]}
    details = dict((i, d) for i, _, d in found)
    assert details[1] == {"findings": 12, "counted": 12, "counts": {"EMAIL_ADDRESS": 12}}
    assert list(PiiStage(config(enabled=False)).judge(measured)) == []


def test_ip_addresses_are_reported_but_not_counted_by_default(stage):
    """A networking text with many IP addresses is not quarantined as pii:many (its findings stay
    in the pii column); listing IP_ADDRESS in max_findings_types counts them again."""
    text = "Routes: " + ", ".join(f"10.0.{i}.1 via 192.168.{i}.254" for i in range(8)) + "."
    measured = stage(pa.table({"text": pa.array([text], pa.string())})).drop_columns(["text"])
    found = measured.column("pii").to_pylist()[0]
    counting = [f["entity_type"] for f in found if f["score"] >= 0.5]  # pii.min_score
    assert counting == ["IP_ADDRESS"] * 16
    assert list(PiiStage(config()).judge(measured)) == []
    counted = list(PiiStage(config(max_findings_types=["IP_ADDRESS"])).judge(measured))
    assert [(i, r) for i, r, _ in counted] == [(0, "pii:many")] and counted[0][2]["counted"] == 16


def test_disabled_stage_writes_empty_lists():
    off = PiiStage(config(enabled=False))
    assert off.analyzer is None
    assert findings_of(off, [SENTENCES["US_SSN"][0].format(SENTENCES["US_SSN"][1]), None]) == [[], None]


def test_no_network_at_start_up(monkeypatch, tmp_path):
    attempts: list = []

    def refuse(*args, **kwargs):
        attempts.append(args)
        raise OSError("network is blocked in this test")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket.socket, "connect_ex", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)
    monkeypatch.setattr(socket, "getaddrinfo", refuse)
    # a fresh cache folder: the blank spaCy pipeline is written here, nothing is fetched
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    fresh = PiiStage(config())
    out = findings_of(fresh, ["Mail anna.berg@firma.se or bob@mail.co.uk today."])
    assert attempts == []
    assert [f["entity_type"] for f in out[0]] == ["EMAIL_ADDRESS", "EMAIL_ADDRESS"]
    assert any(p.name.startswith("spacy-blank-en") for p in (tmp_path / "audit").iterdir())


def test_recall_on_presidio_synthetic_records(stage):
    path = DATA / "pii" / "presidio_synth_dataset_v2.json"
    if not path.exists():
        pytest.skip(f"{path} not found")
    records = [r for r in json.load(open(path, encoding="utf-8"))
               if any(s["entity_type"] in SENTENCES for s in r["spans"])]
    out = findings_of(stage, [r["full_text"] for r in records])
    hit, total = defaultdict(int), defaultdict(int)
    for r, found in zip(records, out):
        types = {f["entity_type"] for f in found}
        for e in {s["entity_type"] for s in r["spans"]} & set(SENTENCES):
            total[e] += 1
            hit[e] += e in types
    for e in SENTENCES:
        assert hit[e] / total[e] >= 0.9, (e, hit[e], total[e])


def test_optional_entity_types_with_and_without_prefilter():
    cfg = config(entities=["US_ITIN", "MAC_ADDRESS", "CRYPTO", "IP_ADDRESS"])
    texts = ["Her ITIN is 912-71-1234 on the tax form.", "The device MAC address is 00:1A:2B:3C:4D:5E here.",
             "Send bitcoin to 1BoatSLRHtKNngkdXEeobR76b53LETtpyT please.",
             "Hosts fe80::1ff:fe23:4567:890a, ::1 and 2001:db8:85a3:0:0:8a2e:370:7334 answer."]
    want = [["912-71-1234"], ["00:1A:2B:3C:4D:5E"], ["1BoatSLRHtKNngkdXEeobR76b53LETtpyT"],
            ["fe80::1ff:fe23:4567:890a", "::1", "2001:db8:85a3:0:0:8a2e:370:7334"]]
    for prefilter in (True, False):
        out = findings_of(PiiStage(cfg, prefilter=prefilter), texts)
        assert [[t[f["start"]:f["end"]] for f in row] for t, row in zip(texts, out)] == want


def test_dense_candidates_in_a_long_text(stage):
    lines = [f"person{i}@example.com wrote on day {i % 28 + 1}" for i in range(4000)]
    text = "\n".join(lines)
    # merged windows would span the whole text; they are cut at CHUNK_CHARS
    windows = candidate_windows(text, list(stage.kinds_re.values()))
    assert len(windows) > 1 and max(e - s for s, e in windows) <= CHUNK_CHARS
    found = findings_of(stage, [text])[0]
    starts = [f["start"] for f in found if f["entity_type"] == "EMAIL_ADDRESS"]
    assert len(starts) == 4000 and starts == sorted(set(starts))
    assert text[starts[-1]:].startswith("person3999@")


def test_a_digit_run_longer_than_spacy_allows(stage):
    # one candidate match of 1.1M characters: its window is cut into chunks spaCy accepts
    text = "3." + "7" * 1_100_000 + " Mail me at john.doe@example.com please."
    windows = candidate_windows(text, list(stage.kinds_re.values()))
    assert max(e - s for s, e in windows) <= CHUNK_CHARS
    assert windows[0][0] == 0 and max(e for _, e in windows) == len(text)
    found = findings_of(stage, [text])[0]
    emails = [text[f["start"]:f["end"]] for f in found if f["entity_type"] == "EMAIL_ADDRESS"]
    assert emails == ["john.doe@example.com"]


def test_findings_below_min_score_are_kept_for_rejudging_but_do_not_count(stage):
    """A bare digit group scores 0.4: measured (floor 0.3), but it counts only once min_score <= 0.4."""
    from audit.decide import counted_findings

    out = stage(pa.table({"text": ["the code 212 555 0198 was printed on the card"]}))
    kept = out.column("pii").to_pylist()[0]
    assert [f["entity_type"] for f in kept] == ["PHONE_NUMBER"] and kept[0]["score"] < 0.5
    cfg = config(quarantine_types=["PHONE_NUMBER"])
    assert list(PiiStage(cfg).judge(out)) == []
    assert counted_findings(out, cfg).column("pii").to_pylist() == [[]]
    lower = config(quarantine_types=["PHONE_NUMBER"], min_score=0.35)
    assert [r for _, r, _ in PiiStage(lower).judge(out)] == ["pii:PHONE_NUMBER"]
