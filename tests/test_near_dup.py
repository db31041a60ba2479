"""Near duplicates: band keys per record (<= 64 bytes), clusters across the run, earliest kept.

The rule is run as the job runs it: audit.dedup.steps.one_partition (the one-partition steps,
exact duplicates stepping aside), and the Ray tests check that the shuffled pass equals it."""
from __future__ import annotations

import json
import random

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
import pytest

from audit.config import parse_config
from audit.dedup import steps
from audit.dedup.components import connected_components
from audit.dedup.minhash import minhash_permutations, minhash_signatures
from audit.dedup.rule import bucket_edges, repeated
from audit.normalize import ngram_hashes, tokenize_hashed
from audit.stages.near_dup import NearDupStage
from tests.fixtures_dedup import band_table, chained_bands, doc, edit, measured


@pytest.fixture(scope="module")
def config():
    return parse_config({"input": {"paths": ["x"]}})


@pytest.fixture(scope="module")
def stage(config):
    return NearDupStage(config)


def near(config, table: pa.Table) -> list[dict]:
    """The near duplicates the job's rule reports over `table` (one partition, in this process)."""
    _, rows = steps.one_partition(table, config)
    return rows.sort_by("doc_id").to_pylist()


def test_band_keys_are_64_bytes_and_null_without_words(stage):
    out = stage(pa.table({"text": pa.array([doc(1), "", None, "!!! ---", "two words"], pa.string())}))
    col = out.column("minhash_bands")
    assert col.type == pa.binary(64)
    assert col.is_null().to_pylist() == [False, True, True, True, False]


def test_signatures_estimate_jaccard(config):
    rng = np.random.default_rng(0)
    base = rng.integers(0, 2**63, 3000, dtype=np.uint64)
    perms = minhash_permutations(256, 5)
    for keep in (0.2, 0.5, 0.8):
        shared = int(3000 * keep)
        other = np.concatenate([base[:shared], rng.integers(0, 2**63, 3000 - shared, dtype=np.uint64)])
        true = shared / (6000 - shared)
        sig = minhash_signatures(np.concatenate([base, other]), np.array([0, 3000, 6000]), perms)
        assert abs(np.mean(sig[0] == sig[1]) - true) < 0.08


def test_near_copies_cluster_and_the_earliest_is_kept(config):
    a, b = doc(1), doc(2)
    texts = [edit(a, 50, 1), b, a, doc(3), edit(a, 30, 2), b.upper() + " " + b.split()[0]]
    # Row order is not input order: `order` says record 2 (the original of a) came first.
    out = near(config, measured(config, texts, order=[5, 1, 0, 3, 4, 2]))
    assert [(r["doc_id"], r["kept_doc_id"], r["cluster_id"], r["kind"]) for r in out] == [
        ("d0", "d2", "near-d2", "near"), ("d4", "d2", "near-d2", "near"), ("d5", "d1", "near-d1", "near")]
    assert all(0.5 <= r["similarity"] <= 1.0 for r in out)
    assert out[2]["similarity"] >= 0.9  # case and one word appended: nearly the same words


def test_an_exact_copy_steps_aside(config):
    """A copy with the same normalised words is an exact duplicate, not a near one."""
    a = doc(11)
    exact, near_rows = steps.one_partition(measured(config, [a, a.upper(), edit(a, 40)]), config)
    assert exact.select(["doc_id", "kept_doc_id", "kind"]).to_pylist() == [
        {"doc_id": "d1", "kept_doc_id": "d0", "kind": "exact"}]
    assert near_rows.select(["doc_id", "kept_doc_id"]).to_pylist() == [{"doc_id": "d2", "kept_doc_id": "d0"}]


def test_unrelated_texts_are_not_clustered(config):
    texts = [doc(100 + i) for i in range(200)]
    assert near(config, measured(config, texts)) == []


def test_recall_at_one_edit_in_25_words(config):
    """Jaccard ~0.67 over 5-word shingles: >= 90% of pairs found (0.97 expected), none wrongly."""
    originals = [doc(1000 + i, 400) for i in range(100)]
    copies = [edit(t, 25, i) for i, t in enumerate(originals)]
    pairs = {(r["doc_id"], r["kept_doc_id"]) for r in near(config, measured(config, originals + copies))}
    assert all(int(d[1:]) - 100 == int(k[1:]) for d, k in pairs)
    assert len(pairs) >= 90


def test_real_prose_near_duplicates(shared_data, config):
    rows = [json.loads(line)["text"] for line in
            (shared_data / "prose" / "nltk_abc_news_paragraphs.jsonl").open(encoding="utf-8")]
    rows = [t for t in rows if len(t.split()) >= 60][:300]
    copies = [edit(t, 50, i) for i, t in enumerate(rows[:100])]  # Jaccard ~0.8
    found = {(r["doc_id"], r["kept_doc_id"]) for r in near(config, measured(config, rows + copies))}
    assert len({(f"d{300 + i}", f"d{i}") for i in range(100)} & found) >= 97
    assert len(found - {(f"d{300 + i}", f"d{i}") for i in range(100)}) <= 3  # clean prose stays clean


def test_chinese_near_duplicates_are_found_by_their_characters(shared_data, config):
    """Chinese has no spaces: its shingles are of characters (the normaliser's words), so a page
    with one character in 30 changed is found, and other pages are not (before: a paragraph was one
    or two "words", one shingle that any edit broke: 0 of 50 found)."""
    rng = random.Random(2)
    path = shared_data / "multilingual" / "lingua_testdata_sentences.jsonl"
    zh = [row["text"] for row in map(json.loads, path.open(encoding="utf-8")) if row["lang"] == "zh"]
    pages = ["".join(rng.sample(zh, 12)) for _ in range(120)]
    copies = []
    for page in pages[:40]:
        chars = list(page)
        for k in rng.sample(range(len(chars)), len(chars) // 30):
            chars[k] = "的"
        copies.append("".join(chars))
    found = {(r["doc_id"], r["kept_doc_id"]) for r in near(config, measured(config, pages + copies))}
    expected = {(f"d{120 + i}", f"d{i}") for i in range(40)}
    assert len(found & expected) >= 38 and found <= expected


def test_a_chain_does_not_reach_records_unlike_the_kept_one(config):
    words = doc(7, 600).split(" ")
    # Overlapping windows: neighbours share 2/3 of their words, the ends share none.
    texts = [" ".join(words[0:300]), " ".join(words[100:400]), " ".join(words[200:500]), " ".join(words[300:600])]
    pairs = {(r["doc_id"], r["kept_doc_id"]) for r in near(config, measured(config, texts))}
    assert ("d3", "d0") not in pairs and ("d2", "d0") not in pairs  # the far ends are not duplicates
    assert ("d1", "d0") in pairs


def test_records_chained_only_through_the_kept_one_still_meet(config):
    out = near(config, band_table(chained_bands()))
    assert {(r["doc_id"], r["kept_doc_id"]) for r in out} == {("d1", "d0"), ("d3", "d2")}
    assert {r["doc_id"]: r["cluster_id"] for r in out}["d3"] == "near-d2"


def test_bucket_edges_are_linear_for_big_buckets():
    keys = np.zeros(1000, dtype=np.uint64)  # one bucket of 1000 records
    a, b = bucket_edges(keys, np.arange(1000), np.arange(1000)[::-1].copy())
    assert len(a) == 999 and set(b.tolist()) == {999}  # all to the earliest (order 0 is row 999)
    keys = np.array([7, 7, 7, 9, 9, 5], dtype=np.uint64)
    a, b = bucket_edges(keys, np.arange(6), np.arange(6))
    assert {tuple(sorted(p)) for p in zip(a.tolist(), b.tolist())} == {(0, 1), (0, 2), (1, 2), (3, 4)}


def test_connected_components():
    a = np.array([0, 2, 5, 6, 8])
    b = np.array([1, 3, 6, 7, 2])
    label = connected_components(a, b, 10)
    groups = {}
    for node, lab in enumerate(label.tolist()):
        groups.setdefault(lab, set()).add(node)
    assert sorted(map(sorted, groups.values())) == [[0, 1], [2, 3, 8], [4], [5, 6, 7], [9]]


def test_short_texts_still_get_a_shingle(stage):
    tokens = tokenize_hashed(["Two words", "two, WORDS!"])
    grams, _ = ngram_hashes(tokens, 5, short=True)
    assert len(grams) == 2 and grams[0] == grams[1]
    out = stage(pa.table({"text": ["Two words", "two, WORDS!"]})).column("minhash_bands")
    assert out[0] == out[1]


def _corpus(config) -> pa.Table:
    originals = [doc(2000 + i, 200) for i in range(40)]
    texts = originals + [edit(t, 25, i) for i, t in enumerate(originals[:20])] + [originals[3]] * 3
    random.Random(5).shuffle(texts)
    return measured(config, texts, shards=3)


def _run(config, table: pa.Table, folder, rows_per_partition: int, use_ray: bool) -> tuple[dict, pa.Table]:
    """global_duplicates over `table` split into one measurement part per shard; its stats and rows."""
    from audit.io.storage import location
    from audit.job.executor import LocalExecutor, RayExecutor
    from audit.job.global_dedup import global_duplicates

    parts = []
    for k in range(3):  # one measurement part per shard, as the scan pass writes them
        path = folder / f"part-{k}.parquet"
        pq.write_table(table.filter(pc.equal(table.column("shard_index"), k)), path)
        parts.append(location(path))
    cfg = config.model_copy(deep=True)
    cfg.ray.partition_rows = rows_per_partition
    ex = RayExecutor(cfg, None) if use_ray else LocalExecutor()
    stats = global_duplicates(cfg, parts, table.num_rows, location(folder / "duplicates"), ex)
    got = pq.read_table(folder / "duplicates")
    return stats, got.sort_by([("kind", "ascending"), ("doc_id", "ascending")])


def test_the_pass_without_ray_is_the_one_partition_rule(config, tmp_path, monkeypatch):
    """On the in-process backend: the one-partition steps, written as duplicates/ parts; each
    task reads the measurement parts' columns it needs only (projected)."""
    import audit.job.global_dedup as g

    reads = []
    real = g._base
    monkeypatch.setattr(g, "_base", lambda path, fs, cols: reads.append((path, tuple(cols))) or real(path, fs, cols))
    table = _corpus(config)
    stats, got = _run(config, table, tmp_path, 2_000_000, use_ray=False)
    paths = sorted(str(tmp_path / f"part-{k}.parquet") for k in range(3))
    for cols in [("shard_index", "record", "exact_key", "minhash_bands"),  # keys
                 ("doc_id", "source_id", "shard", "shard_index", "record", "minhash_bands")]:  # rows of the pairs
        assert sorted(p for p, c in reads if c == cols) == paths
    assert len(reads) == 6
    exact, near_rows = steps.one_partition(table, config)
    assert stats["exact"] == exact.num_rows == 3 and stats["near"] == near_rows.num_rows >= 15
    assert got.num_rows == 3 + near_rows.num_rows
    assert sum((size - 1) * n for size, n in stats["cluster_sizes"].items()) == got.num_rows


@pytest.mark.ray
@pytest.mark.parametrize("rows_per_partition", [40, 2_000_000], ids=["partitioned", "one-partition"])
def test_the_jobs_distributed_pass_agrees_with_the_one_process_run(config, tmp_path, ray_session,
                                                                   rows_per_partition, monkeypatch):
    """audit.job.global_dedup on Ray (keys in two partitions, components and their resolution
    hash-partitioned by Ray Data; or one partition) writes exactly what the same steps write in
    this process without Ray, across shard parts, exact duplicates stepping aside."""
    import audit.job.global_dedup as g

    shuffled = []
    real = g._shuffled
    monkeypatch.setattr(g, "_shuffled", lambda *a: shuffled.append(a[-2]) or real(*a))
    table = _corpus(config)
    (tmp_path / "ray").mkdir()
    (tmp_path / "local").mkdir()
    stats, got = _run(config, table, tmp_path / "ray", rows_per_partition, use_ray=True)
    assert len(shuffled) == (1 if rows_per_partition == 40 else 0)
    want_stats, want = _run(config, table, tmp_path / "local", rows_per_partition, use_ray=False)
    assert want.num_rows >= 18 and got.equals(want)
    assert stats == want_stats and stats["exact"] == 3
    (tmp_path / "one").mkdir()
    _, one = _run(config, table, tmp_path / "one", 2_000_000, use_ray=False)
    assert one.equals(want)  # two key partitions find what one does


@pytest.mark.ray
def test_components_on_the_cluster_are_those_of_union_find(ray_session):
    """Large-star/small-star rounds over Ray Data partitions end in stars around each component's
    smallest node: the star edges union-find gives, a long chain included (many rounds)."""
    import ray

    from audit.dedup.components import star_components, star_edges

    rng = np.random.default_rng(4)
    a = rng.integers(0, 300, 250)
    b = rng.integers(0, 300, 250)
    chain = np.arange(400, 440)
    a, b = np.concatenate([a, chain[:-1]]), np.concatenate([b, chain[1:]])
    keep = a != b
    a, b = np.minimum(a, b)[keep] * 1000 + 7, np.maximum(a, b)[keep] * 1000 + 7  # sparse node names
    pairs = pa.table({"a": a, "b": b})
    stars = pa.concat_tables(ray.get(star_components(ray.data.from_arrow(pairs), partitions=3).to_arrow_refs()))
    centre = dict(zip(stars.column("b").to_pylist(), stars.column("a").to_pylist()))
    local = star_edges(pairs)
    expect = dict(zip(local.column("b").to_pylist(), local.column("a").to_pylist()))
    assert centre == expect and stars.num_rows == len(centre)  # one edge per leaf: stars
    assert centre[439 * 1000 + 7] == 400 * 1000 + 7


@pytest.mark.parametrize("dtype", [np.uint32, np.uint64])
def test_repeated_finds_exactly_the_rows_whose_key_another_row_has(dtype):
    """The rule's sorts only see rows of shared keys: 32-bit keys (sorted with their row packed
    in) and 64-bit keys find the same rows as a count of every key."""
    keys = np.random.default_rng(3).integers(0, 5000, 4000).astype(dtype)
    counts = {k: n for k, n in zip(*np.unique(keys, return_counts=True))}
    want = [i for i, k in enumerate(keys) if counts[k] > 1]
    assert repeated(keys).tolist() == want and 0 < len(want) < len(keys)
    assert repeated(np.array([7], dtype)).tolist() == [] and repeated(np.zeros(0, dtype)).tolist() == []
