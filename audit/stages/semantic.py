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

import hashlib
import importlib.util
import itertools
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa

from audit.cache import cached_arrays
from audit.config import ConfigError
from audit.normalize import Tokens, hash_words, normalize_array, tables_fingerprint

_WEIGHTS = "weights/l2_supercat_256.safetensors"
_VOCAB_VERSION = 1  # bump when the way WordVectors picks its vocabulary changes
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
        weights, self._tokenizer_file = _package_files()
        with safe_open(str(weights), framework="np") as f:
            table = f.get_tensor("embedding.weight")
        self.table = np.ascontiguousarray(table[:, :dim], dtype=np.float32)  # Matryoshka: a prefix is a model
        self._tokenizer: Any = None
        self.dim = dim
        keys, rows = self._vocabulary()
        self.keys = keys
        self.vecs = self.table[rows]
        self.extra_keys = np.zeros(0, dtype=np.uint64)
        self.extra_vecs = np.zeros((0, dim), dtype=np.float32)

    @property
    def tokenizer(self) -> Any:
        """The model's tokenizer, loaded on first use (only the eval items' words are tokenised:
        a worker that receives the index never loads it)."""
        if self._tokenizer is None:
            from tokenizers import Tokenizer

            tokenizer = Tokenizer.from_file(str(self._tokenizer_file))
            tokenizer.no_padding()
            tokenizer.no_truncation()
            self._tokenizer = tokenizer
        return self._tokenizer

    def _vocabulary(self) -> tuple[np.ndarray, np.ndarray]:
        """(sorted hashes of the vocabulary's normalised words, each one's token row): derived from
        the tokenizer once, then kept in the user's cache folder (audit.cache), as the normaliser's
        tables are, so a process (each Ray worker) reads it in milliseconds."""
        source = hashlib.blake2b(self._tokenizer_file.read_bytes(), digest_size=8).hexdigest()
        # what the keys depend on: the tokenizer's words, the normaliser (Arrow's Unicode tables,
        # the patterns) and the word hash (two sample hashes: a changed hash changes them)
        depends_on = (f"v{_VOCAB_VERSION} tokenizer {source} pyarrow {pa.__version__} {tables_fingerprint()} "
                      f"hash {hash_words(['wordllama', 'ǆx']).tolist()}")
        got = cached_arrays("wordllama-vocabulary", depends_on, self._derive_vocabulary)
        keys, rows = got.get("keys"), got.get("rows")
        if not (isinstance(keys, np.ndarray) and isinstance(rows, np.ndarray) and keys.dtype == np.uint64
                and rows.dtype == np.int64 and keys.ndim == rows.ndim == 1 and len(keys) == len(rows)
                and (len(rows) == 0 or 0 <= rows.min() and rows.max() < len(self.table))
                and bool(np.all(keys[1:] > keys[:-1]))):
            got = self._derive_vocabulary()  # a cached file of another shape: derived again
            keys, rows = got["keys"], got["rows"]
        return keys, rows

    def _derive_vocabulary(self) -> dict[str, np.ndarray]:
        vocab = sorted(((tok[1:], i) for tok, i in self.tokenizer.get_vocab().items()
                        if tok.startswith("\u2581") and tok[1:].isalnum()), key=lambda x: (x[0].lower() != x[0], x))
        words = normalize_array(pa.array([w for w, _ in vocab], pa.string())).to_pylist()
        hashes = hash_words([w or "" for w in words])
        _, first = np.unique(hashes, return_index=True)  # one id per normalised word, the lower-case one first
        return {"keys": hashes[first], "rows": np.array([i for _, i in vocab], dtype=np.int64)[first]}

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
