"""audit.dedup on small Arrow tables, without Ray: the rule, Jaccard, components, the partition
hash, and the sidecar's duplicate memory keeping to the job's rule."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pyarrow as pa
import pytest

from audit.config import parse_config
from audit.dedup import steps
from audit.dedup.components import connected_components, star_edges
from audit.dedup.exact import exact_pairs
from audit.dedup.minhash import bands_of
from audit.dedup.partition import partition_of, range_partition_of
from audit.dedup.rule import confirmed, estimated_jaccard, shared_bands, step_aside
from audit.normalize import ngram_hashes, tokenize_hashed
from audit.sidecar.windows import DuplicateMemory
from tests.fixtures_dedup import band_table, chained_bands, doc, edit, measured, sidecar_keys

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def config():
    return parse_config({"input": {"paths": ["x"]}})


def test_a_pair_is_confirmed_by_its_shared_bands():
    a = np.array([[1, 2, 3, 4], [1, 2, 3, 4], [1, 2, 3, 4]], np.uint32)
    b = np.array([[1, 9, 9, 9], [1, 2, 9, 9], [9, 9, 9, 9]], np.uint32)
    assert shared_bands(a, b).tolist() == [1, 2, 0]
    assert confirmed(a, b, 2).tolist() == [False, True, False]


def test_the_jaccard_estimate_inverts_the_band_match_probability(config):
    """(shared / bands) ^ (1 / rows): all bands -> 1; J^rows of the bands -> J."""
    d = config.dedup
    assert estimated_jaccard(np.array([d.bands]), d.bands, d.rows).tolist() == [1.0]
    j = 0.8
    assert estimated_jaccard(np.array([d.bands * j ** d.rows]), d.bands, d.rows)[0] == pytest.approx(j)


def test_reported_similarity_follows_the_true_jaccard(config):
    """Edited copies: the similarity reported is near the Jaccard of the two shingle sets."""
    originals = [doc(300 + i, 500) for i in range(30)]
    copies = [edit(t, 15, i) for i, t in enumerate(originals)]
    _, near = steps.one_partition(measured(config, originals + copies), config)
    assert near.num_rows >= 20
    tokens = tokenize_hashed(originals + copies)
    grams, first = ngram_hashes(tokens, config.dedup.shingle_words, short=True)
    text = tokens.text_of[first]
    sets = [set(grams[text == i].tolist()) for i in range(60)]
    errors = []
    for r in near.to_pylist():
        x, y = sets[int(r["doc_id"][1:])], sets[int(r["kept_doc_id"][1:])]
        errors.append(r["similarity"] - len(x & y) / len(x | y))
    assert abs(float(np.mean(errors))) < 0.1 and float(np.max(np.abs(errors))) < 0.3


def test_an_exact_duplicate_steps_aside_in_its_bucket():
    keys = np.array([5, 5, 5, 7, 7], np.uint64)
    order = np.array([0, 1, 2, 3, 4])
    exact = np.array([9, 9, 0, 0, 0], np.uint64)  # row 1 repeats row 0; 0 = no exact key
    assert step_aside(keys, order, exact).tolist() == [0, 2, 3, 4]


def test_exact_pairs_keep_the_earliest():
    keys = np.array([[1] * 16, [2] * 16, [1] * 16, [1] * 16], np.uint8)
    dup, kept = exact_pairs(keys, np.array([3, 0, 1, 2]))
    assert sorted(zip(dup.tolist(), kept.tolist())) == [(0, 2), (3, 2)]


@pytest.mark.parametrize("seed", range(5))
def test_star_edges_are_the_components_of_union_find(seed):
    rng = np.random.default_rng(seed)
    a, b = rng.integers(0, 400, 300), rng.integers(0, 400, 300)
    stars = star_edges(pa.table({"a": a * 3 + 1, "b": b * 3 + 1}))  # sparse names
    nodes, inv = np.unique(np.concatenate([a, b]), return_inverse=True)
    label = connected_components(inv[:len(a)], inv[len(a):], len(nodes))
    want = {int(n) * 3 + 1: int(nodes[label[i]]) * 3 + 1 for i, n in enumerate(nodes) if label[i] != i}
    assert dict(zip(stars.column("b").to_pylist(), stars.column("a").to_pylist())) == want
    assert all(v < k for k, v in want.items())  # the centre is the smallest (earliest) node


def test_the_partition_hash_is_fixed():
    """The same keys go to the same partitions in every process and on every machine."""
    keys = np.array([0, 1, 2, 3, 12345678901234, (1 << 63) + 5], dtype=np.uint64)
    assert partition_of(keys, 7).tolist() == [0, 6, 1, 4, 6, 2]
    signed = np.array([0, 1, 2, 3, 12345678901234, -5], dtype=np.int64)
    assert partition_of(signed, 1000).tolist() == [0, 789, 730, 856, 611, 62]
    spread = np.bincount(partition_of(np.arange(100_000, dtype=np.int64) << 40, 16), minlength=16)
    assert spread.min() > 0.9 * 100_000 / 16  # orders differing only in high bits still spread
    with pytest.raises(ValueError):
        partition_of(keys, 0)


def test_range_partitions_follow_the_key_order():
    keys = np.sort(np.random.default_rng(1).integers(0, 2**63, 1000, dtype=np.uint64) * np.uint64(2))
    part = range_partition_of(keys, 4)
    assert (np.diff(part.astype(np.int64)) >= 0).all() and part.max() < 16 and len(set(part.tolist())) == 16
    assert range_partition_of(np.array([1 << 63], np.uint64), 1).tolist() == [1]
    assert range_partition_of(keys, 0).tolist() == [0] * 1000


def test_the_pass_without_ray_never_imports_ray(tmp_path):
    script = (
        "import sys, pyarrow.parquet as pq\n"
        "from audit.config import parse_config\n"
        "from audit.io.storage import location\n"
        "from audit.job.executor import LocalExecutor\n"
        "from audit.job.global_dedup import global_duplicates\n"
        "from tests.fixtures_dedup import doc, edit, measured\n"
        "cfg = parse_config({'input': {'paths': ['x']}})\n"
        "t = measured(cfg, [doc(1), edit(doc(1), 30), doc(2), doc(2)])\n"
        f"pq.write_table(t, {str(tmp_path / 'p.parquet')!r})\n"
        f"s = global_duplicates(cfg, [location({str(tmp_path / 'p.parquet')!r})], 4, "
        f"location({str(tmp_path / 'dup')!r}), LocalExecutor())\n"
        "assert s['exact'] == 1 and s['near'] == 1, s\n"
        "print('ray' in sys.modules)\n")
    out = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True,
                         env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"})
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "False"


def _sidecar(table: pa.Table, config) -> dict[str, str]:
    """Feed records in input order to the sidecar's duplicate memory: {doc_id: doc_id it duplicates}."""
    table = table.sort_by([("shard_index", "ascending"), ("record", "ascending")])
    ids = table.column("doc_id").to_pylist()
    exact = [None if k is None else k.hex() for k in table.column("exact_key").to_pylist()]
    keys = sidecar_keys(table.column("minhash_bands"), config.dedup.bands)
    memory = DuplicateMemory(windows=10, min_shared=config.dedup.min_shared_bands)
    found = {}
    for seq in range(table.num_rows):
        dup_of = memory.check_and_add(keys[seq], exact[seq], seq, window=0)
        if dup_of is not None:
            found[ids[seq]] = ids[dup_of]
    return found


def test_the_sidecar_finds_the_duplicates_the_job_finds(config):
    originals = [doc(700 + i, 300) for i in range(30)]
    texts = originals + [edit(t, 25, i) for i, t in enumerate(originals[:15])] + [originals[2].upper()]
    words = doc(9, 600).split(" ")  # a chain of partial overlaps
    texts += [" ".join(words[0:300]), " ".join(words[100:400]), " ".join(words[200:500]), " ".join(words[300:600])]
    table = measured(config, texts, shards=2)
    exact, near = steps.one_partition(table, config)
    job = {r["doc_id"]: r["kept_doc_id"] for r in pa.concat_tables([exact, near]).to_pylist()}
    assert len(job) >= 14
    assert _sidecar(table, config) == job


def test_the_sidecar_resolves_a_chain_as_the_job_does(config):
    """X is a duplicate of A, B shares 2 bands only with X: as in the job, B is no duplicate
    (X is not a kept record), and C is a duplicate of B."""
    table = band_table(chained_bands())
    _, near = steps.one_partition(table, config)
    job = {r["doc_id"]: r["kept_doc_id"] for r in near.to_pylist()}
    assert job == {"d1": "d0", "d3": "d2"}
    assert _sidecar(table, config) == job


def test_the_sidecar_forgets_old_windows():
    memory = DuplicateMemory(windows=2, min_shared=2)
    keys = [1, 2, 3, 4]
    assert memory.check_and_add(keys, "k", 0, window=0) is None
    assert memory.check_and_add(keys, "k", 1, window=0) == 0
    memory.forget_before(2)  # window 0 is now out of the last two
    assert len(memory) == 0
    assert memory.check_and_add(keys, "k", 2, window=2) is None


def test_bands_of_reads_fixed_and_variable_binary():
    rows = np.array([[1, 2], [3, 4]], "<u4")
    fixed = pa.array([r.tobytes() for r in rows], pa.binary(8))
    assert bands_of(fixed, 2).tolist() == rows.tolist()
    assert bands_of(fixed.cast(pa.binary()), 2).tolist() == rows.tolist()
    assert bands_of(fixed.slice(1), 2).tolist() == [[3, 4]]
