"""Near duplicates: band keys per record (<= 64 bytes), clusters across the run, earliest kept."""
from __future__ import annotations

import json
import random

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
import pytest

from audit.config import parse_config
from audit.normalize import ngram_hashes, tokenize_hashed
from audit.stages.near_dup import (NearDupStage, bucket_edges, connected_components, minhash_permutations,
                                   minhash_signatures, near_duplicate_clusters)


@pytest.fixture(scope="module")
def config():
    return parse_config({"input": {"paths": ["x"]}})


@pytest.fixture(scope="module")
def stage(config):
    return NearDupStage(config)


def _doc(seed: int, words: int = 300) -> str:
    rng = random.Random(seed)
    return " ".join(f"w{rng.randint(0, 20000)}" for _ in range(words))


def _edit(text: str, every: int, seed: int = 0) -> str:
    """Reverse one word in `every` (each edit breaks the 5 shingles over it)."""
    rng = random.Random(seed)
    words = text.split(" ")
    for i in range(rng.randrange(every), len(words), every):
        words[i] = words[i][::-1] + "x"
    return " ".join(words)


def _keys(stage, texts: list[str | None], order: list[int] | None = None) -> pa.Table:
    bands = stage(pa.table({"text": pa.array(texts, pa.string())})).column("minhash_bands")
    return pa.table({"doc_id": [f"d{i}" for i in range(len(texts))],
                     "order": pa.array(order if order is not None else range(len(texts)), pa.int64()),
                     "minhash_bands": bands})


def test_band_keys_are_64_bytes_and_null_without_words(stage):
    out = stage(pa.table({"text": pa.array([_doc(1), "", None, "!!! ---", "two words"], pa.string())}))
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


def test_near_copies_cluster_and_the_earliest_is_kept(stage, config):
    a, b = _doc(1), _doc(2)
    texts = [_edit(a, 50, 1), b, a, _doc(3), _edit(a, 30, 2), b.upper()]
    # Row order is not input order: `order` says record 2 (the original of a) came first.
    keys = _keys(stage, texts, order=[5, 1, 0, 3, 4, 2])
    out = near_duplicate_clusters(keys, config).sort_by("doc_id").to_pylist()
    assert [(r["doc_id"], r["kept_doc_id"], r["cluster_id"]) for r in out] == [
        ("d0", "d2", "near-d2"), ("d4", "d2", "near-d2"), ("d5", "d1", "near-d1")]
    assert all(0.5 <= r["similarity"] <= 1.0 for r in out)
    assert out[2]["similarity"] == 1.0  # case only: the same words


def test_unrelated_texts_are_not_clustered(stage, config):
    texts = [_doc(100 + i) for i in range(200)]
    assert near_duplicate_clusters(_keys(stage, texts), config).num_rows == 0


def test_recall_at_one_edit_in_25_words(stage, config):
    """Jaccard ~0.67 over 5-word shingles: >= 90% of pairs found (0.97 expected), none wrongly."""
    originals = [_doc(1000 + i, 400) for i in range(100)]
    copies = [_edit(t, 25, i) for i, t in enumerate(originals)]
    out = near_duplicate_clusters(_keys(stage, originals + copies), config).to_pylist()
    pairs = {(r["doc_id"], r["kept_doc_id"]) for r in out}
    assert all(int(d[1:]) - 100 == int(k[1:]) for d, k in pairs)
    assert len(pairs) >= 90


def test_real_prose_near_duplicates(shared_data, stage, config):
    rows = [json.loads(line)["text"] for line in
            (shared_data / "prose" / "nltk_abc_news_paragraphs.jsonl").open(encoding="utf-8")]
    rows = [t for t in rows if len(t.split()) >= 60][:300]
    copies = [_edit(t, 50, i) for i, t in enumerate(rows[:100])]  # Jaccard ~0.8
    out = near_duplicate_clusters(_keys(stage, rows + copies), config).to_pylist()
    found = {(r["doc_id"], r["kept_doc_id"]) for r in out}
    assert len({(f"d{300 + i}", f"d{i}") for i in range(100)} & found) >= 97
    assert len(found - {(f"d{300 + i}", f"d{i}") for i in range(100)}) <= 3  # clean prose stays clean


def test_a_chain_does_not_reach_records_unlike_the_kept_one(stage, config):
    words = _doc(7, 600).split(" ")
    # Overlapping windows: neighbours share 2/3 of their words, the ends share none.
    texts = [" ".join(words[0:300]), " ".join(words[100:400]), " ".join(words[200:500]), " ".join(words[300:600])]
    out = near_duplicate_clusters(_keys(stage, texts), config).to_pylist()
    pairs = {(r["doc_id"], r["kept_doc_id"]) for r in out}
    assert ("d3", "d0") not in pairs and ("d2", "d0") not in pairs  # the far ends are not duplicates
    assert ("d1", "d0") in pairs


def _band_table(rows: list[list[int]]) -> pa.Table:
    data = np.array(rows, dtype="<u4")
    return pa.table({"doc_id": [f"d{i}" for i in range(len(rows))],
                     "order": pa.array(range(len(rows)), pa.int64()),
                     "minhash_bands": pa.array([r.tobytes() for r in data], pa.binary(data.shape[1] * 4))})


def test_records_chained_only_through_the_kept_one_still_meet(config):
    a = [100 + j for j in range(16)]
    x = a[:2] + [200 + j for j in range(2, 16)]  # shares 2 bands with A
    b = [900, 901] + x[2:4] + [300 + j for j in range(4, 16)]  # shares 2 with X, none with A
    c = b[:15] + [999]  # shares 15 of 16 with B
    out = near_duplicate_clusters(_band_table([a, x, b, c]), config).to_pylist()
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


@pytest.mark.ray
@pytest.mark.parametrize("rows_per_partition", [40, 2_000_000], ids=["shuffled", "one-partition"])
def test_the_jobs_distributed_pass_agrees_with_the_one_process_rule(stage, config, tmp_path, ray_session,
                                                                     rows_per_partition):
    """audit.job.global_dedup (band keys hash-partitioned on Ray Data, or a small run's single
    partition in one task) finds exactly what near_duplicate_clusters finds in one process, across
    shard parts, exact duplicates stepping aside as the one-process rule has them removed first."""
    from audit.io.storage import location
    from audit.job.global_dedup import global_duplicates
    from audit.stages.exact_dup import ExactDupStage, exact_duplicates, global_order
    from audit.normalize import with_tokens

    originals = [_doc(2000 + i, 200) for i in range(40)]
    texts = originals + [_edit(t, 25, i) for i, t in enumerate(originals[:20])] + [originals[3]] * 3
    random.Random(5).shuffle(texts)
    table = pa.table({"text": pa.array(texts, pa.string())})
    table = ExactDupStage(config)(with_tokens(table))
    bands = stage(table).column("minhash_bands")
    n = len(texts)
    shard_index = np.arange(n) % 3
    record = np.arange(n) // 3
    measured = pa.table({"doc_id": [f"d{i}" for i in range(n)], "source_id": pa.nulls(n, pa.string()),
                         "shard": [f"s{k}.jsonl" for k in shard_index], "shard_index": pa.array(shard_index, pa.int32()),
                         "record": pa.array(record, pa.int64()), "exact_key": table.column("exact_key"),
                         "minhash_bands": bands})
    parts = []
    for k in range(3):  # one measurement part per shard, as the scan pass writes them
        path = tmp_path / f"part-{k}.parquet"
        pq.write_table(measured.filter(pa.array(shard_index == k)), path)
        parts.append(location(path))
    out = location(tmp_path / "duplicates")
    cfg = config.model_copy(deep=True)
    cfg.ray.partition_rows = rows_per_partition
    stats = global_duplicates(cfg, parts, n, out, slots=2)
    got = pq.read_table(tmp_path / "duplicates")

    exact = exact_duplicates(measured.select(["doc_id", "shard_index", "record", "exact_key"]))
    rest = measured.filter(pc.invert(pc.is_in(measured.column("doc_id"), value_set=exact.column("doc_id"))))
    local = near_duplicate_clusters(pa.table({"doc_id": rest.column("doc_id"), "order": pa.array(global_order(rest)),
                                              "minhash_bands": rest.column("minhash_bands")}), config)
    assert local.num_rows >= 15 and exact.num_rows == 3
    near = got.filter(pc.equal(got.column("kind"), "near")).select(local.column_names).sort_by("doc_id")
    assert near.equals(local.sort_by("doc_id"))
    ex = got.filter(pc.equal(got.column("kind"), "exact")).select(["doc_id", "kept_doc_id"]).sort_by("doc_id")
    assert ex.equals(exact.select(["doc_id", "kept_doc_id"]).sort_by("doc_id"))
    assert stats["exact"] == 3 and stats["near"] == local.num_rows


@pytest.mark.ray
def test_components_on_the_cluster_are_those_of_union_find(ray_session):
    """Large-star/small-star rounds over Ray Data partitions end in stars around each component's
    smallest node: the components union-find finds, a long chain included (many rounds)."""
    import ray

    from audit.job.near_clusters import _components
    from audit.stages.near_dup import connected_components

    rng = np.random.default_rng(4)
    a = rng.integers(0, 300, 250)
    b = rng.integers(0, 300, 250)
    chain = np.arange(400, 440)
    a, b = np.concatenate([a, chain[:-1]]), np.concatenate([b, chain[1:]])
    keep = a != b
    a, b = np.minimum(a, b)[keep] * 1000 + 7, np.maximum(a, b)[keep] * 1000 + 7  # sparse node names
    pairs = ray.data.from_arrow(pa.table({"a": a, "b": b}))
    stars = pa.concat_tables(ray.get(_components(pairs, partitions=3).to_arrow_refs()))
    centre = dict(zip(stars.column("b").to_pylist(), stars.column("a").to_pylist()))
    nodes, inv = np.unique(np.concatenate([a, b]), return_inverse=True)
    label = connected_components(inv[:len(a)], inv[len(a):], len(nodes))
    expect = {int(n): int(nodes[label[i]]) for i, n in enumerate(nodes) if nodes[label[i]] != n}
    assert centre == expect and stars.num_rows == len(centre)  # one edge per leaf: stars
    assert centre[439 * 1000 + 7] == 400 * 1000 + 7
