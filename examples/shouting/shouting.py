"""An example of a stage of your own: the share of upper-case letters in a record ("shouting").

Run it with `audit run examples/shouting/config.yaml` (README: "Write your own stage").
"""
from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from audit import Stage


class ShoutingStage(Stage):
    """Measures `shouting_share` (upper-case letters / letters, of the first `sample_chars`
    characters) and `shouting_letters`; judges a record with at least `min_letters` letters and a
    share above `threshold` as "shouting"."""

    name = "shouting"                                # its reasons: "shouting"
    writes = ("shouting_share", "shouting_letters")  # kept in measurements/, judged by `judge`
    judges = ("threshold", "min_letters")            # only judge: `audit decide` may change them

    def __init__(self, threshold: float = 0.5, min_letters: int = 20, sample_chars: int = 10_000) -> None:
        if not 0 <= threshold <= 1:
            raise ValueError(f"threshold must be between 0 and 1, got {threshold}")
        self.threshold = threshold
        self.min_letters = min_letters
        self.sample_chars = sample_chars  # a measuring param: changing it means measuring again

    def __call__(self, batch: pa.Table) -> pa.Table:
        text = pc.utf8_slice_codeunits(batch.column("text"), 0, self.sample_chars)
        # RE2 classes: every letter, and the upper-case ones; a null text (unreadable) stays null
        letters = pc.utf8_length(pc.replace_substring_regex(text, r"[^\p{L}]+", ""))
        upper = pc.utf8_length(pc.replace_substring_regex(text, r"[^\p{Lu}]+", ""))
        share = pc.if_else(pc.greater(letters, 0), pc.divide(pc.cast(upper, pa.float64()), letters), None)
        return (batch.append_column("shouting_share", pc.cast(share, pa.float32()))
                .append_column("shouting_letters", pc.cast(letters, pa.int64())))

    def judge(self, table: pa.Table) -> Iterator[tuple[int, str, dict]]:
        share = pc.fill_null(table.column("shouting_share"), 0.0).to_numpy(zero_copy_only=False)
        letters = pc.fill_null(table.column("shouting_letters"), 0).to_numpy(zero_copy_only=False)
        for i in np.flatnonzero((letters >= self.min_letters) & (share > self.threshold)):
            yield int(i), "shouting", {"share": round(float(share[i]), 4), "threshold": self.threshold}
