"""The `audit demo` corpus: deterministic, readable in every format, and labelled truthfully."""
from __future__ import annotations

import gzip
import io
import json
import re
import time
from collections import Counter
from pathlib import Path

import pyarrow.parquet as pq
import pytest
import zstandard

from audit.config import load_config
from audit.demo_corpus import (BROKEN_PROBLEMS, EVAL_SET, LANGUAGES, PII_TYPES, PLANTED_SHARES, DemoCorpus,
                               build_demo_corpus, normalize_variant)
from audit.normalize import normalize

DOCS = 2000


@pytest.fixture(scope="module")
def corpus(tmp_path_factory) -> tuple[DemoCorpus, float]:
    root = tmp_path_factory.mktemp("demo")
    t0 = time.perf_counter()
    c = build_demo_corpus(root, docs=DOCS, seed=0)
    return c, time.perf_counter() - t0


@pytest.fixture(scope="module")
def truth(corpus) -> dict[str, dict]:
    c, _ = corpus
    rows = [json.loads(line) for line in c.truth_path.read_text(encoding="utf-8").splitlines()]
    by_id = {t["id"]: t for t in rows}
    assert len(by_id) == len(rows), "truth ids must be unique"
    return by_id


def read_shard(path: Path) -> list[dict]:
    """Every record of a shard, each read with the library its format needs."""
    if path.suffix == ".parquet":
        return pq.read_table(path).to_pylist()
    raw = path.read_bytes()
    if path.name.endswith(".gz"):
        raw = gzip.decompress(raw)
    elif path.name.endswith(".zst"):
        raw = zstandard.ZstdDecompressor().stream_reader(io.BytesIO(raw)).read()
    return [json.loads(line) for line in raw.decode("utf-8").splitlines()]


def uncompressed(path: Path) -> bytes:
    raw = path.read_bytes()
    if path.name.endswith(".gz"):
        return gzip.decompress(raw)
    if path.name.endswith(".zst"):
        return zstandard.ZstdDecompressor().stream_reader(io.BytesIO(raw)).read()
    return raw


@pytest.fixture(scope="module")
def records(corpus) -> dict[str, dict]:
    c, _ = corpus
    out: dict[str, dict] = {}
    for path in c.shards:
        if path.name == "broken.jsonl":
            continue
        for i, r in enumerate(read_shard(path)):
            assert r["id"] not in out
            out[r["id"]] = {**r, "_shard": path, "_record": i}
    for line in (c.root / "shards" / "broken.jsonl").read_bytes().splitlines():
        try:
            r = json.loads(line.decode("utf-8"))
        except (UnicodeDecodeError, ValueError):
            continue
        if isinstance(r, dict) and "text" in r:
            out[r["id"]] = r
    return out


def test_build_is_fast(corpus):
    _, seconds = corpus
    assert seconds < 10, f"building {DOCS} records took {seconds:.1f} s"


@pytest.mark.slow  # seconds, not milliseconds: kept out of the fast tier
def test_same_seed_gives_byte_identical_files(corpus, tmp_path):
    c, _ = corpus
    again = build_demo_corpus(tmp_path / "again", docs=DOCS, seed=0)
    files = sorted(p.relative_to(c.root) for p in c.root.rglob("*") if p.is_file())
    assert files == sorted(p.relative_to(again.root) for p in again.root.rglob("*") if p.is_file())
    assert len(files) >= 13
    for rel in files:
        assert (c.root / rel).read_bytes() == (again.root / rel).read_bytes(), f"{rel} differs between builds"
    other = build_demo_corpus(tmp_path / "other", docs=200, seed=1)
    assert other.truth_path.read_bytes() != c.truth_path.read_bytes()


def test_every_shard_format_is_present_and_readable(corpus, records):
    c, _ = corpus
    names = [p.name for p in c.shards]
    for ext in (".jsonl", ".jsonl.gz", ".jsonl.zst", ".parquet"):
        assert any(n.startswith("shard-") and n.endswith(ext) for n in names), ext
    assert all(p.parent == c.root / "shards" for p in c.shards)
    assert len(records) == DOCS
    for r in records.values():
        assert set(r) >= {"id", "text", "url", "source"}
        assert isinstance(r["text"], str) and r["url"].startswith("https://corpus.example/")


def test_truth_places_each_record_at_its_shard_record_and_byte_offset(corpus, truth, records):
    c, _ = corpus
    for path in c.shards:
        rel = f"shards/{path.name}"
        rows = sorted((t for t in truth.values() if t["shard"] == rel), key=lambda t: t["record"])
        assert [t["record"] for t in rows] == list(range(len(rows))), rel
        if path.suffix == ".parquet":
            ids = pq.read_table(path, columns=["id"]).column("id").to_pylist()
            assert ids == [t["id"] for t in rows]
            assert all(t["byte_offset"] is None for t in rows)
            continue
        data = uncompressed(path)
        starts = [0] + [m.end() for m in re.finditer(b"\n", data)][:-1]
        assert [t["byte_offset"] for t in rows] == starts, rel
        for t in rows:
            if "unreadable" not in t["labels"]:
                line = data[t["byte_offset"]:data.index(b"\n", t["byte_offset"])]
                assert json.loads(line)["id"] == t["id"]


def test_counts_match_truth(corpus, truth, records):
    c, _ = corpus
    counted = Counter(label for t in truth.values() for label in t["labels"])
    assert c.counts == dict(counted)
    manifest = json.loads((c.root / "manifest.json").read_text())
    assert manifest["labels"] == c.counts and manifest["docs"] == DOCS
    # Every readable record has a truth entry, and the only extra truth entries are damaged lines.
    assert set(records) <= set(truth)
    assert {i for i, t in truth.items() if "unreadable" in t["labels"]} == set(truth) - set(records)
    for label, share in PLANTED_SHARES.items():
        assert c.counts[label] == round(DOCS * share) + (label == "junk"), label  # + the hostile record
    assert c.counts["unreadable"] == len(BROKEN_PROBLEMS)
    assert c.counts["long"] == 1
    # Language labels are the configured mix within sampling noise.
    clean = [t for t in truth.values() if t["labels"][0] == "clean"]
    mix = Counter(t["labels"][1].split(":")[1] for t in clean)
    for lang, (_, share) in LANGUAGES.items():
        assert abs(mix[lang] / len(clean) - share) < 0.04, (lang, mix)


def test_config_validates_and_names_the_corpus(corpus, truth):
    c, _ = corpus
    cfg = load_config(c.config_path)
    assert cfg.resolve(cfg.input.paths[0]).resolve() == (c.root / "shards").resolve()
    assert cfg.input.text_field == "text" and cfg.input.id_field == "id" and cfg.input.url_field == "url"
    (ev,) = cfg.eval_sets
    assert ev.name == EVAL_SET and cfg.resolve(ev.path).resolve() == c.eval_path.resolve()
    assert ev.text_fields == ["question", "answer"] and ev.id_field == "id"
    assert cfg.resolve(cfg.output).resolve() == (c.root / "run").resolve()
    labelled = {l.split(":")[1] for t in truth.values() for l in t["labels"] if l.startswith("language:")}
    assert set(cfg.languages.expected) == labelled
    assert abs(sum(cfg.languages.expected.values()) - 1) < 1e-9


def test_broken_shard_holds_exactly_the_planted_bad_lines(corpus, truth):
    c, _ = corpus
    lines = (c.root / "shards" / "broken.jsonl").read_bytes().split(b"\n")
    assert lines[-1] == b""
    found: dict[int, str] = {}
    for k, line in enumerate(lines[:-1]):
        try:
            obj = json.loads(line.decode("utf-8"))
        except UnicodeDecodeError:
            found[k] = "invalid_utf8"
            continue
        except ValueError:
            found[k] = "invalid_json"
            continue
        if not isinstance(obj, dict):
            found[k] = "not_an_object"
        elif not isinstance(obj.get("text"), str):
            found[k] = "missing_text"
    planted = {t["record"]: t["problem"] for t in truth.values() if "unreadable" in t["labels"]}
    assert found == planted
    assert sorted(planted.values()) == sorted(BROKEN_PROBLEMS)
    for t in truth.values():
        if "unreadable" in t["labels"]:
            assert t["shard"] == "shards/broken.jsonl" and t["line"] == t["record"]
    good = [t for t in truth.values() if t["shard"] == "shards/broken.jsonl" and "unreadable" not in t["labels"]]
    assert len(good) >= 4 and all(t["labels"][0] == "clean" for t in good)


def test_eval_set_is_distinct_word_problems(corpus):
    c, _ = corpus
    items = [json.loads(line) for line in c.eval_path.read_text(encoding="utf-8").splitlines()]
    assert len(items) == 50 and len({it["id"] for it in items}) == 50
    assert all(set(it) == {"id", "question", "answer"} and re.search(r"#### -?\d+$", it["answer"]) for it in items)

    def grams(it: dict) -> set[tuple[str, ...]]:
        w = normalize(it["question"] + "\n" + it["answer"]).split()
        return {tuple(w[i:i + 13]) for i in range(len(w) - 12)}

    sets = [grams(it) for it in items]
    assert min(len(s) for s in sets) >= 25
    # No item shares so many 13-grams with another that finding one would look like finding both.
    worst = max(len(a & b) / len(b) for i, a in enumerate(sets) for j, b in enumerate(sets) if i != j)
    assert worst < 0.35


def test_contamination_copies_sit_at_their_spans(truth, records, corpus):
    c, _ = corpus
    items = {it["id"]: it for it in map(json.loads, c.eval_path.read_text(encoding="utf-8").splitlines())}
    variants = Counter()
    for i, t in truth.items():
        if "contamination" not in t["labels"]:
            continue
        item = items[t["eval_id"]]
        full = item["question"] + "\n" + item["answer"]
        a, b = t["span"]
        piece = records[i]["text"][a:b]
        variants[t["variant"]] += 1
        if t["variant"] == "verbatim":
            assert piece == full
        elif t["variant"] == "normalized":
            assert piece == normalize_variant(full) and piece != full
        else:
            assert full.startswith(piece) and 0.5 * len(full) < len(piece) <= 0.6 * len(full)
    assert set(variants) == {"verbatim", "normalized", "partial"}


def luhn_ok(number: str) -> bool:
    digits = [int(d) for d in number if d.isdigit()][::-1]
    return sum(d if k % 2 == 0 else (d * 2 - 9 if d > 4 else d * 2) for k, d in enumerate(digits)) % 10 == 0


SHAPES = {
    "EMAIL_ADDRESS": r"[\w.+-]+@[\w-]+(\.[\w-]+)+",
    "PHONE_NUMBER": r"(\+1 )?\(?\d{3}\)?[ -]\d{3}-\d{4}",
    "CREDIT_CARD": r"\d{4}( ?\d{4}){3}|\d{15}",
    "IP_ADDRESS": r"(\d{1,3}\.){3}\d{1,3}",
    "IBAN_CODE": r"[A-Z]{2}\d{2}[A-Z0-9]{11,30}",
    "US_SSN": r"\d{3}-\d{2}-\d{4}",
}


def test_pii_values_sit_at_their_spans_and_cover_every_type(truth, records):
    seen = Counter()
    for i, t in truth.items():
        if "pii" not in t["labels"]:
            continue
        assert t["entities"] == sorted({s["entity_type"] for s in t["spans"]})
        assert "values" not in t
        for s in t["spans"]:
            value = records[i]["text"][s["start"]:s["end"]]
            assert re.fullmatch(SHAPES[s["entity_type"]], value), (s, value)
            if s["entity_type"] == "CREDIT_CARD":
                assert luhn_ok(value), value
            seen[s["entity_type"]] += 1
    assert set(seen) == set(PII_TYPES)


def test_duplicates_copy_clean_originals(truth, records):
    for i, t in truth.items():
        if "exact_duplicate" in t["labels"]:
            assert records[i]["text"] == records[t["of"]]["text"]
            assert truth[t["of"]]["labels"][0] == "clean"
        if "near_duplicate" in t["labels"]:
            a, b = records[i]["text"], records[t["of"]]["text"]
            assert a != b and truth[t["of"]]["labels"][0] == "clean"
            wa, wb = set(a.split()), set(b.split())
            assert len(wa & wb) / len(wa | wb) > 0.85
    # Apart from planted duplicates, no two records share a text.
    texts = Counter(r["text"] for i, r in records.items() if "exact_duplicate" not in truth[i]["labels"])
    assert texts.most_common(1)[0][1] == 1


def test_junk_degenerate_and_hostile_records(truth, records):
    sources = Counter(t["junk_source"] for t in truth.values() if "junk" in t["labels"])
    assert set(sources) == {"base64", "minified", "html", "hostile_html"} and sources["hostile_html"] == 1
    (hostile,) = [i for i, t in truth.items() if t.get("junk_source") == "hostile_html"]
    assert "<script>alert(1)</script>" in records[hostile]["text"] and "<script>" in records[hostile]["url"]
    kinds = Counter(t["kind"] for t in truth.values() if "degenerate" in t["labels"])
    assert set(kinds) == {"empty", "whitespace", "control", "mojibake", "replacement", "tiny"}
    assert kinds["empty"] == 1
    for i, t in truth.items():
        text = records[i]["text"] if i in records else None
        if t.get("kind") == "mojibake":
            assert re.search("[ÃÂÐÑ][\u0080-\u00bf]", text)
        elif t.get("kind") == "replacement":
            assert "\ufffd\ufffd\ufffd" in text
        elif t.get("kind") == "whitespace":
            assert text and not text.strip()
        elif t.get("kind") == "control":
            assert all(ord(ch) < 32 or ord(ch) == 127 for ch in text)


SCRIPTS = {"ru": r"[\u0400-\u04ff]", "zh": r"[\u4e00-\u9fff]", "ja": r"[\u3040-\u30ff]"}


def test_clean_text_is_in_its_labelled_language_script(truth, records):
    for i, t in truth.items():
        if t["labels"][0] != "clean":
            continue
        lang = t["labels"][-1].split(":")[1]
        text = records[i]["text"]
        letters = [ch for ch in text if ch.isalpha()]
        if lang in SCRIPTS:
            share = len(re.findall(SCRIPTS[lang], text)) / len(letters)
            assert share > (0.3 if lang == "ja" else 0.9), (i, lang)
        else:
            assert sum(ch.isascii() or "\u00c0" <= ch <= "\u017f" for ch in letters) == len(letters), (i, lang)
        assert "\n\n" in text and 200 <= len(text)
    lengths = sorted(len(r["text"]) for i, r in records.items() if truth[i]["labels"][0] == "clean")
    assert lengths[len(lengths) // 20] < 600 and lengths[-len(lengths) // 20] > 4000


def test_too_few_docs_is_refused(tmp_path):
    with pytest.raises(ValueError, match="at least"):
        build_demo_corpus(tmp_path, docs=50)
