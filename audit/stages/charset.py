"""Charset: what the characters of a document are made of, and signs of broken decoding.

Measures:
- charset_letter_share, charset_digit_share, charset_punct_share: shares of the visible
  (non-white-space) characters; letters include combining marks, so Devanagari and Thai vowel
  signs count. Null for text with no visible character (the length stage names it).
- charset_control_share: control characters other than tab, newline and carriage return (and an
  ESC opening an ANSI colour sequence), over all characters; C1 controls (U+0080..U+009F) and the
  controls that also separate words (vertical tab, form feed, \\x1c-\\x1f, U+0085) count.
- charset_replacement_share: U+FFFD replacement characters over all characters.
- charset_mojibake: pairs of a UTF-8 lead byte read as Latin-1/CP1252 (Â..ô) followed by a
  continuation byte read the same way (U+0080..U+00BF, or CP1252 glyphs such as € ™ š): "Ã©" for
  é, "â€™" for ’, "Ð¿" for п. charset_mojibake_share: the share of the non-ASCII characters that
  such garbled sequences make up (a text decoded wrongly is garbled throughout). Correctly
  decoded text in any script has no such pairs, so Chinese, Russian, Arabic or Hindi are never
  mistaken for mojibake.
- charset_surrogates: lone surrogates, which reach an Arrow string only as WTF-8 bytes.

Reasons: `charset:low_alnum`, `charset:control`, `charset:replacement`, `charset:mojibake`,
`charset:surrogates`.
"""
from __future__ import annotations

from collections.abc import Iterable

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from audit.stages import ConfigStage, Finding
from audit.stages.utf8view import (CLASS_MASK, CONTROL, CTRL, DIGIT, LETTER, PUNCT, REPLACEMENT, SPACE, SURROGATE,
                                   VIEW, Utf8View, ansi_starts, byte_classes, codepoint_classes, column_values,
                                   null_where, segment_sums)

# Second characters of a mojibake pair: continuation bytes 0x80..0xBF as Latin-1 decodes them
# (after any lead Â..ô), and the CP1252 glyphs of 0x80..0x9F (€ ‚ ƒ „ … † ‡ ˆ ‰ Š ‹ Œ Ž ‘ ’ “ ” •
# – — ˜ ™ š › œ ž Ÿ). Those glyphs are also real letters and punctuation ("snížená", "café’s"),
# so they count only after a lead that is a capital (Â..ß: a 2-byte sequence) or "â" (the lead
# of U+2000..U+2FFF punctuation, "â€™").
_CP1252_HIGH = [0x20AC, 0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021, 0x02C6, 0x2030, 0x0160, 0x2039,
                0x0152, 0x017D, 0x2018, 0x2019, 0x201C, 0x201D, 0x2022, 0x2013, 0x2014, 0x02DC, 0x2122,
                0x0161, 0x203A, 0x0153, 0x017E, 0x0178]


def _mojibake_tables() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Tables over code points: lead (0: no, 1: Latin-1 seconds only, 2: also CP1252 glyphs),
    second (1: Latin-1 continuation, 2: CP1252 glyph), and the UTF-8 length a lead stands for."""
    lead = np.zeros(0x110000, dtype=np.uint8)
    lead[0xC2:0xF5] = 1
    lead[0xC2:0xE0] = 2
    lead[0xE2] = 2
    second = np.zeros(0x110000, dtype=np.uint8)
    second[0x80:0xC0] = 1
    second[_CP1252_HIGH] = 2
    span = np.zeros(0x110000, dtype=np.int8)
    span[0xC2:0xE0], span[0xE0:0xF0], span[0xF0:0xF5] = 2, 3, 4
    return lead, second, span


_MOJIBAKE = _mojibake_tables()


def mojibake_pairs(view: Utf8View) -> tuple[np.ndarray, np.ndarray]:
    """(byte position, characters the garbled sequence spans) of each mojibake pair, in order."""
    pos, cp, width = view.multibyte()
    if len(pos) < 2:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int8)
    lead, second, span = _MOJIBAKE
    a, b = cp[:-1], cp[1:]
    kind_a, kind_b = lead[a], second[b]
    hit = (kind_a > 0) & (kind_b > 0) & (kind_b <= kind_a) & (pos[1:] == pos[:-1] + width[:-1])
    found, spans = pos[:-1][hit], span[a[hit]]
    # A pair must not straddle two rows: its second character would start the next row.
    row_end = view.offsets[np.searchsorted(view.offsets, found, side="right")]
    inside = found + 2 < row_end
    return found[inside], spans[inside]


class CharsetStage(ConfigStage):
    """Measures character-class shares and counts of broken-decoding signs."""

    name = "charset"
    reads = ("text", VIEW)
    writes = ("charset_letter_share", "charset_digit_share", "charset_punct_share", "charset_control_share",
              "charset_replacement_share", "charset_mojibake", "charset_mojibake_share", "charset_surrogates")

    def setup(self) -> None:
        codepoint_classes()  # build the Unicode table once per worker, not in the first batch

    def __call__(self, batch: pa.Table, view: Utf8View | None = None) -> pa.Table:
        text = batch.column("text")
        if view is None:  # called alone, not by the Tagger with the block's shared view
            view = Utf8View.of(text)
        counts = _class_counts(view)
        chars = pc.fill_null(pc.utf8_length(text), 0).to_numpy(zero_copy_only=False).astype(np.int64)
        visible = chars - counts[SPACE]
        has_visible = view.valid & (visible > 0)  # shares of nothing are null, not 0
        visible = np.maximum(visible, 1)
        total = np.maximum(chars, 1)
        found, spans = mojibake_pairs(view)
        mojibake = view.row_counts_at(found)
        garbled = segment_sums(spans, np.searchsorted(found, view.offsets))
        non_ascii = view.row_counts_at(view.multibyte()[0])
        valid = view.valid
        columns = {
            "charset_letter_share": (counts[LETTER] / visible, pa.float32(), has_visible),
            "charset_digit_share": (counts[DIGIT] / visible, pa.float32(), has_visible),
            "charset_punct_share": (counts[PUNCT] / visible, pa.float32(), has_visible),
            "charset_control_share": (counts[CONTROL] / total, pa.float32(), valid),
            "charset_replacement_share": (counts[REPLACEMENT] / total, pa.float32(), valid),
            "charset_mojibake": (mojibake, pa.int64(), valid),
            "charset_mojibake_share": (np.minimum(garbled / np.maximum(non_ascii, 1), 1.0), pa.float32(), valid),
            "charset_surrogates": (counts[SURROGATE], pa.int64(), valid),
        }
        for name, (values, type_, ok) in columns.items():
            batch = batch.append_column(name, null_where(values, ok, type_))
        return batch

    def judge(self, table: pa.Table) -> Iterable[Finding]:
        cfg = self.config.filters.charset
        letters, visible = column_values(table, "charset_letter_share")
        digits, _ = column_values(table, "charset_digit_share")
        control, measured = column_values(table, "charset_control_share")
        replacement, _ = column_values(table, "charset_replacement_share")
        mojibake, _ = column_values(table, "charset_mojibake")
        garbled, _ = column_values(table, "charset_mojibake_share")
        surrogates, _ = column_values(table, "charset_surrogates")
        alnum = letters + digits  # null (not visible) for empty or blank text: length's business
        rules = [
            ("charset:low_alnum", visible & (alnum < cfg.min_alnum_share),
             lambda i: {"alnum_share": round(float(alnum[i]), 4), "min_alnum_share": cfg.min_alnum_share}),
            ("charset:control", measured & (control > cfg.max_control_share),
             lambda i: {"control_share": round(float(control[i]), 4), "max_control_share": cfg.max_control_share}),
            ("charset:replacement", measured & (replacement > cfg.max_replacement_share),
             lambda i: {"replacement_share": round(float(replacement[i]), 4),
                        "max_replacement_share": cfg.max_replacement_share}),
            ("charset:mojibake", measured & (mojibake >= cfg.min_mojibake) & (garbled >= cfg.min_mojibake_share),
             lambda i: {"mojibake": int(mojibake[i]), "mojibake_share": round(float(garbled[i]), 4),
                        "min_mojibake": cfg.min_mojibake, "min_mojibake_share": cfg.min_mojibake_share}),
            ("charset:surrogates", measured & (surrogates > cfg.max_surrogates),
             lambda i: {"surrogates": int(surrogates[i]), "max_surrogates": cfg.max_surrogates}),
        ]
        for reason, hit, details in rules:
            for i in np.flatnonzero(hit):
                yield int(i), reason, details(i)


def _class_counts(view: Utf8View) -> dict[int, np.ndarray]:
    """Characters per row of each class that the shares need (ASCII by byte, the rest decoded);
    CONTROL counts every control character but tab, newline and carriage return (flag CTRL), the
    ones that also separate words (vertical tab, form feed, \\x1c-\\x1f, U+0085) included."""
    coded = np.take(byte_classes(), view.data)  # (np.take: faster than indexing by a uint8 array)
    control = (coded & CTRL) != 0
    cls = coded & CLASS_MASK
    # ESC opening an ANSI escape sequence ("\x1b[33m", terminal colours in text dumps) is
    # formatting, not a corrupt byte (the rule of utf8view.ansi_starts: "[" in the same row).
    esc, _ = ansi_starts(view)
    cls[esc] = PUNCT
    control[esc] = False
    counts = {k: view.row_sums(cls == k) for k in (LETTER, DIGIT, PUNCT, SPACE)}
    counts[CONTROL] = view.row_sums(control)
    pos, cp, _ = view.multibyte()
    if len(pos):
        wide_coded = codepoint_classes()[cp]
        wide = wide_coded & CLASS_MASK
        row = np.searchsorted(view.offsets, pos, side="right") - 1
        per = np.bincount(row * 16 + wide, minlength=view.rows * 16).reshape(view.rows, 16)
        for k in (LETTER, DIGIT, PUNCT, SPACE):
            counts[k] += per[:, k]
        counts[CONTROL] += np.bincount(row, weights=(wide_coded & CTRL) != 0, minlength=view.rows).astype(np.int64)
        counts[REPLACEMENT] = per[:, REPLACEMENT].astype(np.int64)
        counts[SURROGATE] = per[:, SURROGATE].astype(np.int64)
    else:
        counts[REPLACEMENT] = np.zeros(view.rows, dtype=np.int64)
        counts[SURROGATE] = np.zeros(view.rows, dtype=np.int64)
    return counts
