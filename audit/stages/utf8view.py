"""A numpy view of an Arrow string array's UTF-8 bytes, for per-character measurements in bulk.

The filter stages count character classes, words and lines over every byte of a batch. Doing that
a document at a time in Python is far too slow, and RE2 counting of dense classes (every letter)
runs at ~20 MB/s, so the stages look at the batch's value buffer as one `uint8` array instead:
bytes are classified through a 256-entry table, the (few) multi-byte characters are decoded to
code points and classified through a table over all of Unicode, and per-document figures are
segment sums over the Arrow offsets (numpy reduceat), so no Python code runs per document.

Lone surrogates, which valid UTF-8 cannot hold, appear in Arrow data only as their 3-byte WTF-8
form (ED A0..BF xx); they decode to U+D800..DFFF here and are classed as SURROGATE.
"""
from __future__ import annotations

import unicodedata
from dataclasses import dataclass, field
from functools import cache

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from audit.cache import cached_arrays

# In a stage's `reads`: it takes the block's shared view as `__call__(batch, view=...)`.
VIEW = "utf8_view"

# Character classes (low 4 bits of a class code).
OTHER, LETTER, DIGIT, PUNCT, SYMBOL, SPACE, CONTROL, FORMAT, SURROGATE, PRIVATE, REPLACEMENT = range(11)
CONT = 15            # a UTF-8 continuation byte (not a character of its own)
UNSPACED = 16        # flag bit: a script written without spaces between words (Han, Kana, Thai...)
CODE = 32            # flag bit: an ASCII code symbol {}[]();=<>:|&!+*$ (minified code is dense in them)
CTRL = 64            # flag bit: a control character (category Cc) other than tab, newline, carriage return
CLASS_MASK = 15
CODE_SYMBOLS = b"{}[]();=<>:|&!+*$"
# Controls that str.isspace calls white space: they separate words like a space (class SPACE) but
# are still controls (flag CTRL) for the control share.
_SPACE_CONTROLS = "\x0b\x0c\x1c\x1d\x1e\x1f\x85"
_CLASSES_VERSION = 6  # bump when _derive_codepoint_classes changes in a way depends_on does not show

_CATEGORY_CLASS = {"L": LETTER, "M": LETTER, "N": DIGIT, "P": PUNCT, "S": SYMBOL, "Z": SPACE,
                   "Cc": CONTROL, "Cf": FORMAT, "Cs": SURROGATE, "Co": PRIVATE, "Cn": PRIVATE}

# Scripts written without spaces between words, plus their punctuation and full-width forms:
# their characters count as one word each and never join a whitespace-delimited token.
_UNSPACED_RANGES = [
    (0x0E00, 0x0EFF),    # Thai, Lao
    (0x0F00, 0x0FFF),    # Tibetan
    (0x1000, 0x109F),    # Myanmar
    (0x1780, 0x17FF),    # Khmer
    (0x19E0, 0x19FF),    # Khmer symbols
    (0x2E80, 0x2FDF),    # CJK radicals, Kangxi
    (0x3000, 0x303F),    # CJK symbols and punctuation (includes the ideographic space)
    (0x3040, 0x31FF),    # Hiragana, Katakana, Bopomofo, Kanbun, CJK strokes, Katakana ext.
    (0x3200, 0x33FF),    # enclosed CJK, CJK compatibility
    (0x3400, 0x4DBF),    # CJK extension A
    (0x4E00, 0x9FFF),    # CJK unified ideographs
    (0xA000, 0xA4CF),    # Yi
    (0xF900, 0xFAFF),    # CJK compatibility ideographs
    (0xFE30, 0xFE4F),    # CJK compatibility forms
    (0xFF00, 0xFFEF),    # half-width and full-width forms
    (0x20000, 0x3FFFF),  # CJK extensions B..H
]


@cache
def codepoint_classes() -> np.ndarray:
    """Class code (with the UNSPACED and CTRL flags) of every code point U+0000..U+10FFFF; derived once
    per machine (audit.cache), loaded once per process."""
    depends_on = (f"v{_CLASSES_VERSION} {sorted(_CATEGORY_CLASS.items())} {_UNSPACED_RANGES} {_SPACE_CONTROLS!r} "
                  f"{REPLACEMENT} {SPACE} {UNSPACED} {CTRL}")
    return cached_arrays("codepoint-classes", depends_on, lambda: {"table": _derive_codepoint_classes()},
                         expect={"table": ((0x110000,), np.uint8)})["table"]


def _derive_codepoint_classes() -> np.ndarray:
    table = np.fromiter((_CATEGORY_CLASS.get(unicodedata.category(chr(c)),
                                             _CATEGORY_CLASS.get(unicodedata.category(chr(c))[0], OTHER))
                         for c in range(0x110000)), dtype=np.uint8, count=0x110000)
    table[table == CONTROL] |= CTRL
    for c in "\t\n\r":  # white space, not controls
        table[ord(c)] = SPACE
    for c in _SPACE_CONTROLS:  # white space by str.isspace: separate words, still controls
        table[ord(c)] = SPACE | CTRL
    table[0xFFFD] = REPLACEMENT
    for lo, hi in _UNSPACED_RANGES:
        table[lo:hi + 1] |= UNSPACED
    table[0x3000] = SPACE  # the ideographic space separates, like a space
    return table


@cache
def byte_classes() -> np.ndarray:
    """Class code of each byte value: the ASCII character's class (code symbols flagged CODE),
    CONT for every byte >= 0x80."""
    table = np.full(256, CONT, dtype=np.uint8)
    table[:128] = codepoint_classes()[:128]
    table[np.frombuffer(CODE_SYMBOLS, dtype=np.uint8)] |= CODE
    return table


def segment_sums(values: np.ndarray, bounds: np.ndarray) -> np.ndarray:
    """Sums of values[bounds[i]:bounds[i+1]] for each i (int64); bounds ascend, empty segments sum to 0."""
    n = len(bounds) - 1
    out = np.zeros(max(n, 0), dtype=np.int64)
    if n <= 0:
        return out
    end = int(bounds[-1])
    values = values[:end]
    starts = bounds[:-1]
    live = int(np.searchsorted(starts, end))  # segments starting before the end; the rest are empty
    if live:
        if values.dtype == np.bool_ and end < 2**31:
            # Summing a mask as bytes into int32 is ~4x faster than casting it to int64.
            out[:live] = np.add.reduceat(values.view(np.uint8), starts[:live], dtype=np.int32)
        else:
            out[:live] = np.add.reduceat(values, starts[:live], dtype=np.int64)
    out[bounds[1:] <= bounds[:-1]] = 0  # reduceat gives values[start] for an empty segment
    return out


def span_counts(mask: np.ndarray, start: np.ndarray, end: np.ndarray) -> np.ndarray:
    """How many True values of `mask` lie in each span [start[i], end[i]); the spans are sorted
    and do not overlap (words, lines, runs)."""
    bounds = np.empty(2 * len(start) + 1, dtype=np.int64)
    bounds[0:-1:2], bounds[1:-1:2], bounds[-1] = start, end, len(mask)
    return segment_sums(mask, bounds)[0::2]


def positions_per_segment(positions: np.ndarray, bounds: np.ndarray) -> np.ndarray:
    """How many of the sorted positions fall in each segment [bounds[i], bounds[i+1])."""
    return np.diff(np.searchsorted(positions, bounds)).astype(np.int64)


@dataclass
class Utf8View:
    """The UTF-8 bytes of a string array: row i is data[offsets[i]:offsets[i+1]]; null rows are empty.

    The Tagger makes one per block and hands it to every stage that reads VIEW (length, charset,
    junk), so its decoded characters and classes are computed once per block; a stage called
    alone makes its own.
    """

    data: np.ndarray        # uint8, all rows' bytes back to back
    offsets: np.ndarray     # int64, n + 1 entries, offsets[0] == 0
    valid: np.ndarray       # bool, False where the text is null
    _decoded: tuple | None = field(default=None, repr=False)
    _spread: np.ndarray | None = field(default=None, repr=False)
    _words: tuple[np.ndarray, np.ndarray, np.ndarray] | None = field(default=None, repr=False)

    @classmethod
    def of(cls, array: pa.Array | pa.ChunkedArray) -> "Utf8View":
        """View a string / large_string array (chunked arrays are combined)."""
        if isinstance(array, pa.ChunkedArray):
            array = array.combine_chunks() if array.num_chunks != 1 else array.chunk(0)
        if not (pa.types.is_string(array.type) or pa.types.is_large_string(array.type)):
            array = array.cast(pa.large_string())
        valid = np.asarray(pc.is_valid(array).to_numpy(zero_copy_only=False), dtype=bool)
        if array.null_count:  # a null slot may still own bytes in the buffer: make it empty
            array = pc.fill_null(array, "")
        width = np.int64 if pa.types.is_large_string(array.type) else np.int32
        bufs = array.buffers()
        offsets = np.frombuffer(bufs[1], dtype=width)[array.offset:array.offset + len(array) + 1].astype(np.int64)
        first, last = (int(offsets[0]), int(offsets[-1])) if len(offsets) else (0, 0)
        data = (np.frombuffer(bufs[2], dtype=np.uint8)[first:last] if bufs[2] is not None and last > first
                else np.zeros(0, dtype=np.uint8))
        return cls(data=data, offsets=offsets - first, valid=valid)

    @property
    def rows(self) -> int:
        return len(self.offsets) - 1

    def row_sums(self, values: np.ndarray) -> np.ndarray:
        """Per-row sums of a per-byte array (a bool mask counts its True bytes)."""
        return segment_sums(values, self.offsets)

    def row_counts_at(self, positions: np.ndarray) -> np.ndarray:
        """Per-row counts of sorted byte positions."""
        return positions_per_segment(positions, self.offsets)

    def multibyte(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(byte positions, code points, byte lengths) of the multi-byte characters, in order.

        Malformed sequences decode to some code point without failing; a stray continuation byte
        is not a character (Arrow strings are valid UTF-8 except for WTF-8 surrogates).
        """
        if self._decoded is None:
            d = self.data
            pos = np.flatnonzero(d >= 0xC0)
            b0 = d[pos].astype(np.int32)
            padded = np.concatenate([d, np.zeros(3, dtype=np.uint8)])
            b1 = padded[pos + 1].astype(np.int32) & 0x3F
            b2 = padded[pos + 2].astype(np.int32) & 0x3F
            b3 = padded[pos + 3].astype(np.int32) & 0x3F
            two, three = b0 < 0xE0, b0 < 0xF0
            cp = np.where(two, ((b0 & 0x1F) << 6) | b1,
                          np.where(three, ((b0 & 0x0F) << 12) | (b1 << 6) | b2,
                                   ((b0 & 0x07) << 18) | (b1 << 12) | (b2 << 6) | b3))
            np.minimum(cp, 0x10FFFF, out=cp)
            width = np.where(two, 2, np.where(three, 3, 4)).astype(np.int8)
            for a in (pos, cp, width):  # shared by every stage of the block
                a.setflags(write=False)
            self._decoded = (pos, cp, width)
        return self._decoded

    def classes(self, spread: bool = False) -> np.ndarray:
        """Class code of every byte: ASCII bytes by table, multi-byte leads by code point (compare
        classes after `& CLASS_MASK`: the codes carry the UNSPACED, CODE and CTRL flags).

        With spread=False the continuation bytes stay CONT, so counting a class over all bytes
        counts characters; with spread=True they take their lead byte's code, so masks over the
        bytes cover whole characters (for word and token boundaries).
        """
        if spread and self._spread is not None:
            return self._spread
        cls = byte_classes()[self.data]
        pos, cp, width = self.multibyte()
        if len(pos):
            lead = codepoint_classes()[cp]
            cls[pos] = lead
            if spread:
                for k in (1, 2, 3):
                    sel = width > k
                    cls[pos[sel] + k] = lead[sel]
        if spread:  # kept for the next stage of the block: read-only, as it is shared
            cls.setflags(write=False)
            self._spread = cls
        return cls

    def words(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(byte mask, start, end) of the words of spaced scripts: `word_bytes` of the spread
        classes without the ANSI escape sequences, and its runs (never crossing rows). Made
        once per block for every stage that counts words (length, junk); read-only."""
        if self._words is None:
            inside = word_bytes(self.classes(spread=True), ansi_escapes(self))
            start, end = self.runs(inside)
            for a in (inside, start, end):
                a.setflags(write=False)
            self._words = (inside, start, end)
        return self._words

    def runs(self, inside: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(start, end) byte positions of the maximal runs of `inside` bytes; runs never cross rows."""
        if len(inside) == 0:
            return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
        # Run edges alternate start, end, start, end, ... where the mask changes (a bool array:
        # np.flatnonzero of bools is ~5x faster than of int8).
        change = np.empty(len(inside) + 1, dtype=bool)
        change[0], change[-1] = inside[0], inside[-1]
        np.not_equal(inside[1:], inside[:-1], out=change[1:-1])
        edges = np.flatnonzero(change)
        start, end = edges[0::2], edges[1::2]
        cut = self.offsets[1:-1]
        cut = cut[(cut > 0) & (cut < len(inside))]
        cut = cut[np.diff(cut, prepend=-1) != 0]  # empty rows repeat an offset
        cut = cut[inside[cut - 1] & inside[cut]]  # a run running on into the next row
        if len(cut):
            start = np.sort(np.concatenate([start, cut]), kind="stable")
            end = np.sort(np.concatenate([end, cut]), kind="stable")
        return start, end

    def row_of(self, positions: np.ndarray) -> np.ndarray:
        """Row index of each byte position."""
        return np.searchsorted(self.offsets, positions, side="right") - 1


_ANSI_MAX_PARAMS = 16  # parameter bytes read after "ESC [" (colour codes use a handful)


def ansi_starts(view: Utf8View) -> tuple[np.ndarray, np.ndarray]:
    """(position of the ESC, end of its row) of each "ESC [" that opens an escape sequence; the
    "[" must be in the ESC's own row."""
    esc = np.flatnonzero(view.data == 0x1B)
    if len(esc) == 0:
        return esc, esc
    row_end = view.offsets[np.searchsorted(view.offsets, esc, side="right")]
    opens = esc + 1 < row_end
    opens[opens] = view.data[esc[opens] + 1] == 0x5B
    return esc[opens], row_end[opens]


def ansi_escapes(view: Utf8View) -> np.ndarray | None:
    """Bytes of ANSI escape sequences (ESC [ params final, e.g. "ESC[1;36m"), or None when the
    batch has none: terminal colour codes in text dumps are formatting, not words. A sequence
    never runs past the end of its row."""
    esc, row_end = ansi_starts(view)
    if len(esc) == 0:
        return None
    data = view.data
    # Parameter bytes (0x30..0x3F: digits ; < = > ?) follow "ESC ["; the final byte ends it.
    # One pass per parameter byte over the sequences still reading parameters keeps memory at a
    # few integers per sequence.
    length = np.minimum(row_end - esc, 3)  # ESC, [, and the final byte (when the row has one)
    live = np.flatnonzero(row_end - esc > 2)
    for k in range(_ANSI_MAX_PARAMS):
        at = esc[live] + 2 + k
        ok = at < row_end[live]
        ok[ok] = (data[at[ok]] >= 0x30) & (data[at[ok]] <= 0x3F)
        live = live[ok]
        if len(live) == 0:
            break
        length[live] = np.minimum(length[live] + 1, row_end[live] - esc[live])
    mask = np.zeros(len(data), dtype=bool)
    for k in range(int(length.max())):
        mask[esc[length > k] + k] = True
    return mask


def word_bytes(classes_spread: np.ndarray, escapes: np.ndarray | None = None) -> np.ndarray:
    """Bytes of whitespace-delimited words in spaced scripts (not white space, not Han/Kana/Thai...,
    not the `escapes` mask of ANSI sequences)."""
    inside = ((classes_spread & CLASS_MASK) != SPACE) & ((classes_spread & UNSPACED) == 0)
    if escapes is not None:
        inside &= ~escapes
    return inside


def words_per_row(view: Utf8View) -> tuple[np.ndarray, np.ndarray]:
    """(spaced-script words, unspaced-script characters) per row.

    A word is a maximal run of bytes that are neither white space, nor part of an unspaced-script
    character, nor of an ANSI escape sequence (`Utf8View.words`); each Han/Kana/Thai/...
    character counts as one word, so Chinese is not "one word per line".
    """
    return view.row_counts_at(view.words()[1]), unspaced_per_row(view)


def unspaced_per_row(view: Utf8View) -> np.ndarray:
    """Characters of unspaced scripts (Han, Kana, Thai, ...) per row."""
    pos, cp, _ = view.multibyte()
    return view.row_counts_at(pos[(codepoint_classes()[cp] & UNSPACED) != 0])


def null_where(values: np.ndarray, valid: np.ndarray, type_: pa.DataType) -> pa.Array:
    """An Arrow array of `values`, null where `valid` is False (e.g. where the row's text is null)."""
    return pa.array(values, type=type_, mask=~valid)


def column_values(table: pa.Table, name: str, fill: float = 0) -> tuple[np.ndarray, np.ndarray]:
    """(values with nulls replaced by `fill`, validity) of a measurement column, as numpy."""
    col = table.column(name)
    valid = np.asarray(pc.is_valid(col).to_numpy(zero_copy_only=False), dtype=bool)
    values = pc.fill_null(col, pa.scalar(fill, col.type)).to_numpy(zero_copy_only=False)
    return values, valid
