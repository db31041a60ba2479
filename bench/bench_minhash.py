"""MinHash signatures: ours (audit.dedup.minhash) against datasketch and rensa, on one corpus.

    python ../shared/tools/make_corpus.py --data ../shared/data --out /tmp/mhcorpus --docs 6000 --shards 4
    python bench/bench_minhash.py --corpus /tmp/mhcorpus

Every library signs the same shingle hashes (our normaliser's word 5-grams as 64-bit hashes,
made once and timed apart) with `dedup.num_perm` permutations; prints signatures per second of
this process's CPU time. Agreement: each library's signatures go through our band keys and the
job's near-duplicate rule (audit.dedup.steps.one_partition, exact keys left out so every copy is
judged by its signature), and the pairs it puts in one cluster are scored against the exact
Jaccard of the two shingle sets (band keys are not expected to match across libraries):
recall of pairs at J >= 0.8 and at 0.6-0.8, and reported pairs below J 0.4 (false). Also the
mean absolute error of the signature's Jaccard estimate (share of equal values) on pairs at
J >= 0.3. Optional libraries that are not installed are skipped (pip install rensa datasketch).
No Ray.
"""
from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pyarrow as pa

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from audit.config import parse_config  # noqa: E402
from audit.dedup import steps  # noqa: E402
from audit.dedup.minhash import band_keys, bands_column, minhash_permutations, minhash_signatures  # noqa: E402
from audit.normalize import ngram_hashes, tokenize_hashed  # noqa: E402
from bench.eval_dedup_contamination import read_records  # noqa: E402


def shingles_of(texts: list[str], words: int) -> tuple[np.ndarray, np.ndarray]:
    """Flat 64-bit shingle hashes of the texts and each text's bounds in them."""
    tokens = tokenize_hashed(texts)
    grams, first = ngram_hashes(tokens, words, short=True)
    return grams, np.searchsorted(tokens.text_of[first], np.arange(len(texts) + 1), side="left")


def true_jaccard(grams: np.ndarray, bounds: np.ndarray, floor: float) -> dict[tuple[int, int], float]:
    """Exact Jaccard of every pair of texts at or above `floor` (a sparse product of shingle sets)."""
    from scipy import sparse

    text = np.repeat(np.arange(len(bounds) - 1), np.diff(bounds))
    ids, col = np.unique(grams, return_inverse=True)
    x = sparse.csr_matrix((np.ones(len(col), np.float32), (text, col)), shape=(len(bounds) - 1, len(ids)))
    x.data[:] = 1  # a shingle repeated within a text counts once
    x.sum_duplicates()
    x.data[:] = 1
    size = np.asarray(x.sum(axis=1)).ravel()
    inter = sparse.triu(x @ x.T, k=1).tocoo()
    j = inter.data / (size[inter.row] + size[inter.col] - inter.data)
    keep = j >= floor
    return {(int(a), int(b)): float(v) for a, b, v in zip(inter.row[keep], inter.col[keep], j[keep])}


def ours(grams: np.ndarray, bounds: np.ndarray, num_perm: int, seed: int) -> np.ndarray:
    return minhash_signatures(grams, bounds, minhash_permutations(num_perm, seed))


def rensa_r(grams: np.ndarray, bounds: np.ndarray, num_perm: int, seed: int) -> np.ndarray:
    import rensa

    m = rensa.RMinHash.digest_matrix_from_flat_token_hashes(grams, bounds.astype(np.uint64), num_perm, seed)
    return np.array(m.to_rows(), dtype=np.uint64)


def rensa_c(grams: np.ndarray, bounds: np.ndarray, num_perm: int, seed: int) -> np.ndarray:
    import rensa

    sets = [grams[bounds[i]:bounds[i + 1]].tolist() for i in range(len(bounds) - 1)]
    return np.array(rensa.CMinHash.digests64_from_token_hash_sets(sets, num_perm, seed), dtype=np.uint64)


def datasketch_bulk(grams: np.ndarray, bounds: np.ndarray, num_perm: int, seed: int) -> np.ndarray:
    import datasketch

    raw = grams.astype("<u8").view("S8")
    sets = [raw[bounds[i]:bounds[i + 1]].tolist() for i in range(len(bounds) - 1)]
    return np.stack([m.hashvalues for m in datasketch.MinHash.bulk(sets, num_perm=num_perm, seed=seed)])


LIBRARIES: dict[str, tuple[str | None, Callable]] = {
    "ours (numpy)": (None, ours), "rensa RMinHash (flat buffer)": ("rensa", rensa_r),
    "rensa CMinHash": ("rensa", rensa_c), "datasketch MinHash.bulk": ("datasketch", datasketch_bulk)}


def clusters(sig: np.ndarray, valid: np.ndarray, config) -> np.ndarray:
    """Each text's cluster (the kept text's index; itself when not reported) by the job's rule."""
    d = config.dedup
    n = len(sig)
    keys = band_keys(sig.astype(np.uint64), d.bands, d.rows)
    table = pa.table({"doc_id": [str(i) for i in range(n)], "source_id": pa.nulls(n, pa.string()),
                      "shard": ["s"] * n, "shard_index": pa.array(np.zeros(n), pa.int32()),
                      "record": pa.array(np.arange(n), pa.int64()), "minhash_bands": bands_column(keys, valid)})
    cfg = config.model_copy(deep=True)
    cfg.dedup.exact = False
    _, near = steps.one_partition(table, cfg)
    label = np.arange(n)
    label[np.array(near.column("doc_id").to_pylist(), int)] = np.array(near.column("kept_doc_id").to_pylist(), int)
    return label


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--corpus", type=Path, default=Path("/tmp/mhcorpus"))
    ap.add_argument("--docs", type=int, default=None, help="first N records only")
    a = ap.parse_args()
    config = parse_config({"input": {"paths": ["x"]}})
    d = config.dedup
    texts = [r["text"] for r in read_records(a.corpus)][:a.docs]
    mb = sum(len(t.encode("utf-8", "surrogatepass")) for t in texts) / 1e6
    c0 = time.process_time()
    grams, bounds = shingles_of(texts, d.shingle_words)
    shingle_s = time.process_time() - c0
    valid = np.diff(bounds) > 0
    print(f"corpus: {len(texts)} records, {mb:.1f} MB, {len(grams)} shingles ({d.shingle_words}-word), "
          f"{d.num_perm} permutations, {d.bands} bands x {d.rows} rows")
    print(f"shingling (ours, shared by every library): {shingle_s:.3f} s cpu, {len(texts) / shingle_s:,.0f} texts/s")
    truth = true_jaccard(grams, bounds, 0.3)
    high = {p for p, j in truth.items() if j >= 0.8}
    mid = {p for p, j in truth.items() if 0.6 <= j < 0.8}
    print(f"ground truth: {len(high)} pairs at J >= 0.8, {len(mid)} at 0.6-0.8, {len(truth)} at >= 0.3")
    print(f"{'library':30} {'sig s':>7} {'sigs/s':>10} {'recall>=.8':>10} {'recall.6-.8':>11} "
          f"{'false<.4':>8} {'est MAE':>7}")
    for name, (module, fn) in LIBRARIES.items():
        if module is not None:
            try:
                __import__(module)
            except ImportError:
                print(f"{name:30} not installed")
                continue
        fn(grams[:bounds[50]], bounds[:51], d.num_perm, d.seed)  # warm-up (imports, tables)
        c0 = time.process_time()
        sig = fn(grams, bounds, d.num_perm, d.seed)
        cpu = time.process_time() - c0
        label = clusters(sig, valid, config)

        def found(pairs: set[tuple[int, int]]) -> int:
            """Pairs the rule put in one reported cluster."""
            return sum(label[i] == label[j] and (label[i] != i or label[j] != j) for i, j in pairs)

        reported = {(min(i, int(k)), max(i, int(k))) for i, k in enumerate(label) if k != i}
        false = sum(truth.get(p, 0.0) < 0.4 for p in reported)
        ij = np.array(list(truth), dtype=np.int64).reshape(-1, 2)
        est = (sig[ij[:, 0]] == sig[ij[:, 1]]).mean(axis=1)
        mae = float(np.abs(est - np.array(list(truth.values()))).mean()) if len(ij) else 0.0
        print(f"{name:30} {cpu:7.3f} {len(texts) / cpu:10,.0f} {found(high) / max(1, len(high)):10.4f} "
              f"{found(mid) / max(1, len(mid)):11.4f} {false:8d} {mae:7.4f}")


if __name__ == "__main__":
    main()
