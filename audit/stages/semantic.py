"""Word vectors for the semantic contamination tier, from the WordLlama model inside its wheel.

WordLlama (l2_supercat, 256 dimensions) is a table of token vectors taken from a large language
model's embedding layer and trained so that the mean of a text's token vectors is a sentence
embedding. Its weights and tokenizer ship inside the `wordllama` wheel; they are read from the
installed package's files (safetensors + tokenizers JSON), never through `WordLlama.load`,
which looks for the tokenizer under another folder name and then downloads it.

A text window's vector is the sum of its words' vectors (its direction is that of the mean),
a word's vector the sum of its WordLlama token vectors, so a block is not tokenised again: the
block's normalised words (audit.normalize) are looked up by hash in a fixed vocabulary (see
WordVectors).
"""
from __future__ import annotations

import importlib.util
import itertools
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pyarrow as pa

from audit.config import ConfigError
from audit.normalize import Tokens, _hash_words, normalize_array

_WEIGHTS = "weights/l2_supercat_256.safetensors"
_TOKENIZER = "tokenizers/l2_supercat_tokenizer_config.json"


def _package_files() -> tuple[Path, Path]:
    spec = importlib.util.find_spec("wordllama")  # its files only: importing the package is not needed
    if spec is None or spec.origin is None:  # pragma: no cover - the dependency is declared
        raise ConfigError("contamination.semantic: the wordllama package is not installed "
                          "(pip install wordllama), or set contamination.semantic: false")
    root = Path(spec.origin).parent
    weights, tokenizer = root / _WEIGHTS, root / _TOKENIZER
    for p in (weights, tokenizer):
        if not p.is_file():
            raise ConfigError(f"contamination.semantic: {p} is missing from the wordllama wheel "
                              "(reinstall wordllama), or set contamination.semantic: false")
    return weights, tokenizer


def _pairwise_sum(rows: list[np.ndarray]) -> np.ndarray:
    """The sum of equal-shape float32 arrays in numpy's own order for a reduction (pairwise_sum in
    numpy/_core/src/umath/loops_utils.h.src): under 8 terms one after the other from -0.0, up to
    128 in 8 running sums, more in halves. reduceat's sum of a segment is its first row plus this."""
    m = len(rows)
    if m < 8:
        out = np.full(rows[0].shape, -0.0, dtype=rows[0].dtype)
        for r in rows:
            out = out + r
        return out
    if m <= 128:
        acc = [r.copy() for r in rows[:8]]
        i = 8
        while i < m - m % 8:
            for j in range(8):
                acc[j] += rows[i + j]
            i += 8
        out = ((acc[0] + acc[1]) + (acc[2] + acc[3])) + ((acc[4] + acc[5]) + (acc[6] + acc[7]))
        for r in rows[i:]:
            out = out + r
        return out
    half = m // 2
    half -= half % 8
    return _pairwise_sum(rows[:half]) + _pairwise_sum(rows[half:])


class WordVectors:
    """Per normalised word (by hash), the sum of its WordLlama token vectors (float32, `dim` wide).

    The vocabulary: every whole word the model's tokenizer holds as one token (about 16,000:
    the common words of many languages), plus the words of the eval items (`add_words`). A record
    word outside it (a rare name, a number, an identifier) is left out of its window's vector, so
    a record is never tokenised again; an item's own words are always in.
    """

    def __init__(self, dim: int = 256) -> None:
        from safetensors import safe_open
        from tokenizers import Tokenizer
        weights, tokenizer = _package_files()
        with safe_open(str(weights), framework="np") as f:
            table = f.get_tensor("embedding.weight")
        self.table = np.ascontiguousarray(table[:, :dim], dtype=np.float32)  # Matryoshka: a prefix is a model
        self.tokenizer = Tokenizer.from_file(str(tokenizer))
        self.tokenizer.no_padding()
        self.tokenizer.no_truncation()
        self.dim = dim
        vocab = sorted(((tok[1:], i) for tok, i in self.tokenizer.get_vocab().items()
                        if tok.startswith("\u2581") and tok[1:].isalnum()), key=lambda x: (x[0].lower() != x[0], x))
        words = normalize_array(pa.array([w for w, _ in vocab], pa.string())).to_pylist()
        hashes = _hash_words([w or "" for w in words])
        _, first = np.unique(hashes, return_index=True)  # one id per normalised word, the lower-case one first
        self.keys = hashes[first]
        self.vecs = self.table[np.array([i for _, i in vocab], dtype=np.int64)[first]]
        self.extra_keys = np.zeros(0, dtype=np.uint64)
        self.extra_vecs = np.zeros((0, dim), dtype=np.float32)

    def __getstate__(self) -> dict:
        # Shipped to workers without the model: each loads it from its own installed wheel.
        return {"dim": self.dim, "extra_keys": self.extra_keys, "extra_vecs": self.extra_vecs}

    def __setstate__(self, state: dict) -> None:
        self.__init__(state["dim"])
        self._merge(state["extra_keys"], state["extra_vecs"])

    def _merge(self, keys: np.ndarray, vecs: np.ndarray) -> None:
        self.extra_keys, self.extra_vecs = keys, vecs
        all_keys = np.concatenate([self.keys, keys])
        all_vecs = np.concatenate([self.vecs, vecs])
        all_keys, first = np.unique(all_keys, return_index=True)
        self.keys, self.vecs = all_keys, np.concatenate([all_vecs[first], np.zeros((1, self.dim), np.float32)])

    def embed_words(self, words: list[str]) -> np.ndarray:
        """Sum of the token vectors of each (already normalised) word."""
        out = np.zeros((len(words), self.dim), dtype=np.float32)
        if not words:
            return out
        ids_of = [e.ids for e in self.tokenizer.encode_batch(words, add_special_tokens=False)]
        lengths = np.fromiter(map(len, ids_of), dtype=np.int64, count=len(ids_of))
        ids = np.fromiter(itertools.chain.from_iterable(ids_of), dtype=np.int64, count=int(lengths.sum()))
        np.clip(ids, 0, len(self.table) - 1, out=ids)
        starts = np.concatenate([[0], np.cumsum(lengths)[:-1]])
        # The words of one token count at a time, each token row a pass over them: the same sums, bit
        # for bit, as np.add.reduceat(table[ids], starts, axis=0), which loops per word and column.
        for size in np.unique(lengths[lengths > 0]).tolist():
            mine = np.flatnonzero(lengths == size)
            rows = [self.table[ids[starts[mine] + k]] for k in range(size)]
            out[mine] = rows[0] if size == 1 else rows[0] + _pairwise_sum(rows[1:])
        return out

    def add_words(self, texts: Sequence[str | None], tokens: Tokens) -> None:
        """Put every word of `tokens` (the words of `texts`, the eval items) in the vocabulary."""
        uniq, first = np.unique(tokens.hashes, return_index=True)
        new = np.flatnonzero(~np.isin(uniq, self.keys))
        text_of = tokens.text_of[first[new]]
        raw = [(texts[t] or "")[a:b] for t, a, b in zip(text_of.tolist(), tokens.starts[first[new]].tolist(),
                                                        tokens.ends[first[new]].tolist())]
        words = normalize_array(pa.array(raw, pa.string())).to_pylist()
        self._merge(uniq[new], self.embed_words([w or "" for w in words]))

    def rows(self, hashes: np.ndarray) -> np.ndarray:
        """Row of `vecs` of each word hash; the last row (zeros) for words outside the vocabulary."""
        at = np.minimum(np.searchsorted(self.keys, hashes), len(self.keys) - 1)
        return np.where(self.keys[at] == hashes, at, len(self.vecs) - 1)
