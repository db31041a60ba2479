"""Near duplicates, per batch: MinHash LSH band keys of each record (audit.dedup.minhash).

`NearDupStage` hashes each record's word shingles (the shared normaliser's words,
`dedup.shingle_words` at a time), takes `bands x rows` MinHash values and folds each band into a
32-bit key: `minhash_bands` holds `bands` x 4 bytes a record, so what the global pass holds grows
with the number of records, never with their length. Which records are near duplicates is a
global question, answered by the rule of audit.dedup.rule in the job's global pass
(audit.job.global_dedup) and in the sidecar's duplicate memory.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import pyarrow as pa

from audit.dedup.minhash import band_keys, bands_column, minhash_permutations, minhash_signatures
from audit.normalize import Tokens, block_tokens, char_tables_ready, chunk_texts, ngram_hashes, tokenize_hashed
from audit.stages import ConfigStage

if TYPE_CHECKING:
    from audit.config import AuditConfig, DedupConfig


class NearDupStage(ConfigStage):
    """Writes `minhash_bands`: fixed_size_binary(bands x 4) of little-endian uint32 band keys.

    Null when the text is null (unreadable) or has no words after normalisation.
    """

    name = "near_dup"
    reads = ("text", "words")
    writes = ("minhash_bands",)

    def __init__(self, config: "AuditConfig") -> None:
        super().__init__(config)
        self.dedup: DedupConfig = config.dedup
        self.perms = minhash_permutations(self.dedup.num_perm, self.dedup.seed)

    def setup(self) -> None:
        char_tables_ready()

    def band_matrix(self, texts: list[str | None], all_tokens: Tokens | None = None) -> tuple[np.ndarray, np.ndarray]:
        """Band keys (records x bands, uint32) and which records have any (words > 0).

        `all_tokens`: the texts' words when already tokenised (the pipeline tokenises once).
        """
        d = self.dedup
        keys = np.zeros((len(texts), d.bands), dtype=np.uint32)
        valid = np.zeros(len(texts), dtype=bool)
        all_tokens = all_tokens if all_tokens is not None else tokenize_hashed(texts)
        for a, b in chunk_texts(texts):  # bounds the signature matrix of a run of texts
            tokens = all_tokens.slice(a, b)
            shingles, first = ngram_hashes(tokens, d.shingle_words, short=True)
            text = tokens.text_of[first]
            bounds = np.searchsorted(text, np.arange(b - a + 1), side="left")
            sig = minhash_signatures(shingles, bounds, self.perms)
            keys[a:b] = band_keys(sig, d.bands, d.rows)
            valid[a:b] = np.diff(bounds) > 0
        return keys, valid

    def __call__(self, batch: pa.Table) -> pa.Table:
        keys, valid = self.band_matrix(batch.column("text").to_pylist(), block_tokens(batch))
        return batch.append_column("minhash_bands", bands_column(keys, valid))
