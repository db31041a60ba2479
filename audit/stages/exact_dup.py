"""Exact duplicates: SHA-256 of the normalised text, first occurrence kept.

The normalised text is taken as its words (the shared normaliser's, as 64-bit hashes: the
tokenisation every word-reading stage shares), so equal normalised texts have equal keys. The
stage only hashes, per batch on the workers; which record is first is a global question,
answered by the rule of audit.dedup.exact over the keys of the whole run in the order of the input.
"""
from __future__ import annotations

import hashlib

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from audit.dedup.exact import KEY_TYPE
from audit.normalize import block_tokens
from audit.stages import ConfigStage


class ExactDupStage(ConfigStage):
    """Writes `exact_key`: 16 bytes of SHA-256 of the normalised words (null for unreadable records).

    Text that normalises to nothing (empty, control characters, lone punctuation) is keyed by its
    raw text instead, so copies of it are still duplicates of each other and not of every other
    such text.
    """

    name = "exact_dup"
    reads = ("text", "words")
    writes = ("exact_key",)

    def __call__(self, batch: pa.Table) -> pa.Table:
        text = batch.column("text")
        valid = pc.is_valid(text).to_numpy(zero_copy_only=False)
        tokens = block_tokens(batch)
        words, bounds = tokens.hashes.astype("<u8").tobytes(), (tokens.bounds * 8).tolist()
        keys: list[bytes | None] = [None] * len(valid)
        for i in np.flatnonzero(valid).tolist():
            a, b = bounds[i], bounds[i + 1]
            # no words: only such rows' texts are decoded to Python
            keys[i] = hashlib.sha256(words[a:b]).digest()[:16] if b > a else _key("\x00raw\x00" + text[i].as_py())
        return batch.append_column("exact_key", pa.array(keys, KEY_TYPE))


def _key(text: str) -> bytes:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).digest()[:16]
