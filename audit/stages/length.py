"""Length: words and lines of each document, and the length reasons.

Characters and UTF-8 bytes are the reader's `chars` and `bytes` columns; this stage adds what
the reader does not count.

Words are whitespace-delimited tokens in scripts written with spaces, plus one word per character
of scripts written without them (Han, Kana, Thai, ...), so a short Chinese paragraph is not "three
words" because it has three lines; ANSI colour codes are not words. Lines count the newlines,
plus one for a last line without its newline.

Reasons: `length:empty` (no characters), `length:whitespace` (characters but no words),
`length:too_short` (fewer than min_chars characters or min_words words), `length:too_long` (more
than max_chars characters; such a text is not also called too short).
"""
from __future__ import annotations

from collections.abc import Iterable

import numpy as np
import pyarrow as pa

from audit.stages import ConfigStage, Finding
from audit.stages.utf8view import VIEW, Utf8View, codepoint_classes, column_values, null_where, words_per_row


class LengthStage(ConfigStage):
    """Measures length_words and length_lines (null where the text is null); judges with the
    reader's `chars` column."""

    name = "length"
    reads = ("text", VIEW)
    writes = ("length_words", "length_lines")

    def setup(self) -> None:
        codepoint_classes()  # build the Unicode table once per worker, not in the first batch

    def __call__(self, batch: pa.Table, view: Utf8View | None = None) -> pa.Table:
        text = batch.column("text")
        if view is None:  # called alone, not by the Tagger with the block's shared view
            view = Utf8View.of(text)
        spaced, unspaced = words_per_row(view)
        newlines = view.row_sums(view.data == 0x0A)
        nonempty = view.offsets[1:] > view.offsets[:-1]
        last_byte = np.zeros(view.rows, dtype=np.uint8)
        last_byte[nonempty] = view.data[view.offsets[1:][nonempty] - 1]
        ends_open = nonempty & (last_byte != 0x0A)
        columns = {
            "length_words": null_where(spaced + unspaced, view.valid, pa.int64()),
            # A last line without its newline still counts.
            "length_lines": null_where(newlines + ends_open, view.valid, pa.int64()),
        }
        for name, values in columns.items():
            batch = batch.append_column(name, values)
        return batch

    def judge(self, table: pa.Table) -> Iterable[Finding]:
        cfg = self.config.filters.length
        # length_words is null exactly where the text was unreadable (or failed to be measured).
        words, measured = column_values(table, "length_words")
        chars, _ = column_values(table, "chars")
        empty = measured & (chars == 0)
        blank = measured & (chars > 0) & (words == 0)
        long = measured & (chars > cfg.max_chars)
        # A 50 MB single token is too long, not "too short in words".
        short = measured & ~empty & ~blank & ~long & ((chars < cfg.min_chars) | (words < cfg.min_words))
        for i in np.flatnonzero(empty):
            yield int(i), "length:empty", {"chars": 0}
        for i in np.flatnonzero(blank):
            yield int(i), "length:whitespace", {"chars": int(chars[i]), "words": 0}
        for i in np.flatnonzero(short):
            yield int(i), "length:too_short", {"chars": int(chars[i]), "words": int(words[i]),
                                               "min_chars": cfg.min_chars, "min_words": cfg.min_words}
        for i in np.flatnonzero(long):
            yield int(i), "length:too_long", {"chars": int(chars[i]), "max_chars": cfg.max_chars}
