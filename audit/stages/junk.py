"""Junk: text that is not prose although its characters are fine.

Measures (shares are of characters unless named otherwise):
- junk_base64_share: text in base64 runs (>= base64_min_run characters of the alphabet mixing
  capitals, small letters and digits or +/, continued across the line breaks of wrapped
  encodings: PEM blocks, MIME, data: URIs).
- junk_long_token_share: text in whitespace-delimited tokens of >= long_token_chars characters.
- junk_mean_line_chars, junk_symbol_share (code symbols {}[]();=<>:|&!+*$ per character), and
  junk_code_line_share: text in lines of >= code_line_chars characters whose own symbol share is
  >= code_line_symbol_share (minified JavaScript and CSS).
- junk_markup_share: text inside <...> tags and <!-- --> comments.
- junk_mean_word_chars: mean length of whitespace-delimited words.
- Gopher-style repetition over the first sample_chars characters: junk_dup_line_share (UTF-8
  bytes of non-blank lines repeating an earlier line of the document / bytes of non-blank lines)
  and junk_top_{2,3,4}gram_share (word bytes covered by the occurrences of the repeated word
  n-gram covering most, overlaps counted once / word bytes; 0 when no n-gram repeats).
The word measures (mean word length, n-gram shares) are null where scripts written without
spaces (Chinese, Japanese, Thai, ...) hold a quarter or more of the visible bytes: such text has
no whitespace-delimited words to measure.

Everything runs over the batch's bytes at once (numpy; RE2 only on rows a cheap test selects),
so no Python code runs per document.

Reasons (details carry the measured values and the limits):
`junk:base64`, `junk:long_tokens`, `junk:minified`, `junk:markup`, `junk:word_length`,
`junk:repetition`.
"""
from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from audit.normalize import mix64
from audit.stages import ConfigStage, Finding
from audit.stages.utf8view import (CLASS_MASK, CODE, SPACE, UNSPACED, VIEW, Utf8View, codepoint_classes, column_values,
                                   null_where, segment_sums, span_counts)

if TYPE_CHECKING:
    from audit.config import AuditConfig, JunkConfig

# Tags (<a href=...>, </p>, <br/>), comments, doctype and processing instructions. Unbounded
# repeats keep RE2 on its fast DFA (counted repeats blow the automaton up).
_MARKUP = r"<!--(?s:.*?)-->|</?[A-Za-z][A-Za-z0-9:-]*(?:\s[^<>]*)?/?>|<[!?][A-Za-z][^<>]*>"
NGRAMS = (2, 3, 4)

_C1 = np.uint64(0xBF58476D1CE4E5B9)  # an odd 64-bit multiplier (splitmix64's)
_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
# _PREFIX_MASKS[k] keeps the low k bytes of a little-endian uint64 (k = 0..8).
_PREFIX_MASKS = np.array([(1 << (8 * k)) - 1 for k in range(9)], dtype=np.uint64)


# ---- base64 ---------------------------------------------------------------------------------

_B64_KIND = np.zeros(256, dtype=np.uint8)  # 1 capital, 2 small letter, 3 digit or + /, 4 '='
_B64_KIND[np.frombuffer(b"ABCDEFGHIJKLMNOPQRSTUVWXYZ", dtype=np.uint8)] = 1
_B64_KIND[np.frombuffer(b"abcdefghijklmnopqrstuvwxyz", dtype=np.uint8)] = 2
_B64_KIND[np.frombuffer(b"0123456789+/", dtype=np.uint8)] = 3
_B64_KIND[ord("=")] = 4


def base64_chars(text: pa.ChunkedArray | pa.Array, min_run: int) -> np.ndarray:
    """Characters per row in base64 runs.

    A run of the alphabet counts when it is at least min_run long and mixes capitals, small
    letters and digits or +/ (encoded bytes always do within 64 characters; a long chemical name
    or a hex digest does not). Runs continuing it across single line breaks (PEM and MIME
    wrapping) count with it. RE2 finds the rows holding a run of min_run; numpy measures them.
    """
    out = np.zeros(len(text), dtype=np.int64)
    candidate = pc.fill_null(pc.match_substring_regex(text, f"[A-Za-z0-9+/]{{{min_run}}}"), False)
    rows = np.flatnonzero(candidate.to_numpy(zero_copy_only=False))
    if len(rows) == 0:
        return out
    view = Utf8View.of(pc.take(text, pa.array(rows)))
    kind = _B64_KIND[view.data]
    start, end = view.runs(kind > 0)
    length = end - start
    strong = length >= min_run
    for k in (1, 2, 3):
        strong &= span_counts(kind == k, start, end) > 0
    # Runs joined by one line break (LF or CR LF) in the same row form a chain; a chain
    # holding a strong run is base64 throughout.
    padded = np.concatenate([view.data, np.zeros(2, dtype=np.uint8)])
    gap = start[1:] - end[:-1]
    linked = ((gap == 1) & (padded[end[:-1]] == 0x0A)) | (
        (gap == 2) & (padded[end[:-1]] == 0x0D) & (padded[end[:-1] + 1] == 0x0A))
    row = view.row_of(start)
    linked &= row[1:] == row[:-1]
    chain = np.concatenate([[0], np.cumsum(~linked)])
    chain_strong = np.bincount(chain, weights=strong, minlength=int(chain[-1]) + 1) > 0
    counted = chain_strong[chain]
    out[rows] = np.bincount(row, weights=length * counted, minlength=len(rows)).astype(np.int64)
    return out


def markup_chars(text: pa.ChunkedArray | pa.Array, chars: np.ndarray) -> np.ndarray:
    """Characters per row inside tags and comments; the replace runs only on rows with a tag opening."""
    out = np.zeros(len(chars), dtype=np.int64)
    candidate = pc.fill_null(pc.match_substring_regex(text, "<[A-Za-z!/?]"), False)
    rows = np.flatnonzero(candidate.to_numpy(zero_copy_only=False))
    if len(rows):
        subset = pc.take(text, pa.array(rows))
        kept = pc.utf8_length(pc.replace_substring_regex(subset, _MARKUP, "")).to_numpy(zero_copy_only=False)
        out[rows] = chars[rows] - kept
    return out


# ---- words and lines ------------------------------------------------------------------------

class _Words:
    """Whitespace-delimited words of spaced scripts: byte spans and rows."""

    def __init__(self, view: Utf8View) -> None:
        self.view = view
        self.inside, self.start, self.end = view.words()
        self.bytes = self.end - self.start
        self.bounds = np.searchsorted(self.start, view.offsets)  # row r holds words bounds[r]:bounds[r+1]
        self.row = np.repeat(np.arange(view.rows, dtype=np.int32), np.diff(self.bounds))

    def row_sum(self, values: np.ndarray) -> np.ndarray:
        """Per-row sums of a per-word array."""
        return segment_sums(values, self.bounds)

    def long_token_chars(self, lead: np.ndarray, min_chars: int) -> np.ndarray:
        """Per row, the characters in words of at least min_chars characters."""
        candidate = np.flatnonzero(self.bytes >= min_chars)  # a word has no more characters than bytes
        chars = span_counts(lead, self.start[candidate], self.end[candidate])
        return np.bincount(self.row[candidate], weights=chars * (chars >= min_chars),
                           minlength=self.view.rows).astype(np.int64)

    def restrict(self, keep: np.ndarray) -> "_Words":
        """The words where `keep` is True (the same view)."""
        out = object.__new__(_Words)
        out.view, out.inside = self.view, self.inside
        out.start, out.end, out.bytes = self.start[keep], self.end[keep], self.bytes[keep]
        out.bounds = np.searchsorted(out.start, self.view.offsets)
        out.row = np.repeat(np.arange(self.view.rows, dtype=np.int32), np.diff(out.bounds))
        return out


class _Lines:
    """Lines of a view (each ends after its newline byte), and the characters of the long ones."""

    def __init__(self, view: Utf8View) -> None:
        self.view = view
        self.breaks = np.flatnonzero(view.data == 0x0A)
        # Row starts and the byte after each newline; a newline ending a row repeats the next
        # row's start, leaving an empty line that no measure counts.
        self.bounds = np.sort(np.concatenate([view.offsets, self.breaks + 1]), kind="stable")  # merges 2 runs
        self.bytes = np.diff(self.bounds)
        self.row_bounds = np.searchsorted(self.bounds, view.offsets)
        self.count = self.row_sum(self.bytes > 0)

    def row_sum(self, values: np.ndarray) -> np.ndarray:
        """Per-row sums of a per-line array."""
        return segment_sums(values, self.row_bounds)

    def code_chars(self, lead: np.ndarray, symbol: np.ndarray, space: np.ndarray, min_chars: int,
                   min_symbol_share: float, max_space_share: float) -> np.ndarray:
        """Per row, the characters in lines of >= min_chars characters whose code symbols are at
        least min_symbol_share and whose spaces at most max_space_share of them (prose, even
        dialogue full of "!" and ":", has a space every 5-7 characters; minified code has few)."""
        candidate = np.flatnonzero(self.bytes >= min_chars)  # a line has no more characters than bytes
        start, end = self.bounds[candidate], self.bounds[candidate + 1]
        chars = span_counts(lead, start, end)
        code = ((chars >= min_chars) & (span_counts(symbol, start, end) >= min_symbol_share * chars)
                & (span_counts(space, start, end) <= max_space_share * chars))
        row = self.view.row_of(start)
        return np.bincount(row, weights=chars * code, minlength=self.view.rows).astype(np.int64)


def _order_by_key(key: np.ndarray) -> np.ndarray:
    """Stable permutation sorting a uint32 key: an LSD radix sort on two 16-bit digits (numpy's
    stable argsort of uint16 is a linear-time radix sort, several times faster than quicksort).

    Items come in row order and the sort is stable, so equal keys of one row end up adjacent
    and in their original order: no pass over the row is needed to group by (row, key).
    """
    order = np.argsort((key & np.uint32(0xFFFF)).astype(np.uint16), kind="stable")
    return order[np.argsort((key[order] >> np.uint32(16)).astype(np.uint16), kind="stable")]


def _repeated(row: np.ndarray, key: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Items (given in row order) whose (row, key) occurs more than once.

    Returns (items, starts, sizes): the repeated items' indices grouped by (row, key), each group
    in original order, with each group's start in `items` and its size. A first radix pass on
    the key's low 16 bits drops most unique items cheaply; the full key is sorted only for the
    rest.
    """
    empty = np.zeros(0, dtype=np.int64)
    if len(key) < 2:
        return empty, empty, empty
    low = (key & np.uint32(0xFFFF)).astype(np.uint16)
    order = np.argsort(low, kind="stable")
    r, k = row[order], low[order]
    same = (r[1:] == r[:-1]) & (k[1:] == k[:-1])
    maybe = np.zeros(len(key), dtype=bool)
    maybe[order[1:][same]] = True
    maybe[order[:-1][same]] = True
    candidate = np.flatnonzero(maybe)
    if len(candidate) == 0:
        return empty, empty, empty
    ck, cr = key[candidate], row[candidate]
    order = _order_by_key(ck)
    r, k = cr[order], ck[order]
    new = np.ones(len(order), dtype=bool)
    new[1:] = (k[1:] != k[:-1]) | (r[1:] != r[:-1])
    first = np.flatnonzero(new)
    size = np.diff(np.append(first, len(order)))
    repeated = size >= 2
    items = candidate[order][np.repeat(repeated, size)]
    sizes = size[repeated]
    return items, np.cumsum(sizes) - sizes, sizes


def _content_spans(view: Utf8View, lines: _Lines, in_sample: np.ndarray | None) -> tuple[np.ndarray, np.ndarray]:
    """(start, bytes) of each line's text: without its newline (LF or CR LF), cut at the sample's end."""
    data = view.data
    start = lines.bounds[:-1]
    end = lines.bounds[1:].copy()
    last = np.maximum(end - 1, 0)
    newline = (end > start) & (data[last] == 0x0A) if len(data) else np.zeros(len(end), dtype=bool)
    end -= newline
    if len(data):
        end -= newline & (end > start) & (data[np.maximum(end - 1, 0)] == 0x0D)
    if in_sample is not None:  # the sample is a prefix of its row: cut the line where it ends
        end = start + np.minimum(end - start, segment_sums(in_sample, lines.bounds))
    return start, np.maximum(end - start, 0)


def _exact_ids(data: np.ndarray, start: np.ndarray, size: np.ndarray) -> np.ndarray:
    """Equal-content ids (uint32) of byte spans, by Arrow's hash table."""
    offsets = np.zeros(len(size) + 1, dtype=np.int64)
    np.cumsum(size, out=offsets[1:])
    index = np.arange(offsets[-1], dtype=np.int64) + np.repeat(start - offsets[:-1], size)
    array = pa.Array.from_buffers(pa.large_binary(), len(size),
                                  [None, pa.py_buffer(offsets), pa.py_buffer(data[index])])
    return pc.dictionary_encode(array).indices.to_numpy().astype(np.uint32)


def _span_identities(data: np.ndarray, start: np.ndarray, size: np.ndarray) -> np.ndarray:
    """A 64-bit identity of each byte span from its length and first and last 8 bytes (exact up to
    16 bytes; longer spans differing only in their middle share one)."""
    padded = np.concatenate([data, np.zeros(8, dtype=np.uint8)])
    # Every byte offset read as a little-endian uint64 (an unaligned, overlapping view).
    at = np.ndarray(shape=(len(padded) - 7,), dtype="<u8", buffer=padded, strides=(1,))
    ident = at[start] & _PREFIX_MASKS[np.minimum(size, 8)]
    ident ^= size.astype(np.uint64) * _GOLDEN
    # the last 8 bytes of the spans longer than 8 (a shorter one is whole in its first 8: none mixed in)
    long = np.flatnonzero(size > 8)
    ident[long] ^= at[start[long] + (size[long] - 8)] * _C1
    return mix64(ident)


def word_identities(data: np.ndarray, start: np.ndarray, size: np.ndarray) -> np.ndarray:
    """A well-mixed 64-bit identity of each word: equal for equal bytes, and (up to 64-bit hash
    collisions) different for different bytes.

    Words of up to 16 bytes are identified by their bytes (_span_identities is exact there);
    longer ones (URLs, paths, long compounds, which often differ only in their middle) by an
    equal-content id from a hash table over their bytes.
    """
    ident = _span_identities(data, start, size)
    long = np.flatnonzero(size > 16)
    if len(long):
        # Identities of short words mix length and bytes with _GOLDEN; these mix a small id with
        # _C1, so the two kinds collide no more than any two 64-bit hashes.
        ident[long] = mix64(_exact_ids(data, start[long], size[long]).astype(np.uint64) ^ _C1)
    return ident


def dup_line_share(view: Utf8View, lines: _Lines, cls: np.ndarray, in_sample: np.ndarray | None) -> np.ndarray:
    """Bytes of non-blank lines repeating an earlier line of the same row / bytes of non-blank lines.

    Only the bytes where `in_sample` is True are read (all when it is None). Lines are grouped by
    a cheap identity first; only lines sharing one are compared by content.
    """
    start, size = _content_spans(view, lines, in_sample)
    visible = (cls & CLASS_MASK) != SPACE
    nonblank = np.flatnonzero(span_counts(visible, start, start + size) > 0)
    start, size = start[nonblank], size[nonblank]
    row = view.row_of(start)
    total = np.bincount(row, weights=size, minlength=view.rows)
    ident = (_span_identities(view.data, start, size) >> np.uint64(32)).astype(np.uint32)
    maybe, _, _ = _repeated(row, ident)
    maybe.sort()
    items, starts, _ = _repeated(row[maybe], _exact_ids(view.data, start[maybe], size[maybe]))
    dup = np.ones(len(items), dtype=bool)
    dup[starts] = False  # each group keeps its first occurrence
    lines_dup = maybe[items[dup]]
    dup_bytes = np.bincount(row[lines_dup], weights=size[lines_dup], minlength=view.rows)
    return dup_bytes / np.maximum(total, 1)


def top_ngram_shares(view: Utf8View, words: _Words) -> dict[int, np.ndarray]:
    """For n in NGRAMS, per row: the word bytes covered by the occurrences of the repeated word
    n-gram covering most (overlapping occurrences counted once) / all word bytes.

    Words are told apart exactly (word_identities); counting is exact per row up to 32-bit
    collisions of the n-gram hash within one document (~1e-5 likely):
    (row, n-gram hash) pairs are radix-sorted, and only n-grams that can repeat are sorted at all:
    for n=2 those left by a 16-bit prefilter, for larger n those whose two (n-1)-grams repeat.
    """
    rows = view.rows
    total = np.maximum(words.row_sum(words.bytes), 1)
    cum = np.zeros(len(words.bytes) + 1, dtype=np.int64)
    np.cumsum(words.bytes, out=cum[1:])
    out = {n: np.zeros(rows) for n in NGRAMS}
    ident = word_identities(view.data, words.start, words.bytes)
    # Polynomial hash over the (random 64-bit) word identities: h_n(i) = h_{n-1}(i) * G + id(i+n-1);
    # its top 32 bits are the sort key.
    hashes = ident
    repeated_prev: np.ndarray | None = None
    for n in NGRAMS:
        m = len(ident) - n + 1
        if m <= 0:
            break
        candidate = words.row[:m] == words.row[n - 1:]
        if repeated_prev is None:
            h = hashes[:m] * _GOLDEN + ident[n - 1:]
            idx = np.flatnonzero(candidate)
        else:
            candidate &= repeated_prev[:m] & repeated_prev[1:m + 1]
            idx = np.flatnonzero(candidate)
            h = np.zeros(m, dtype=np.uint64)
            h[idx] = hashes[idx] * _GOLDEN + ident[idx + n - 1]
        items, starts, counts = _repeated(words.row[idx], (h[idx] >> np.uint64(32)).astype(np.uint32))
        at = idx[items]  # word positions of the repeats, grouped by n-gram, in text order
        repeated = np.zeros(m, dtype=bool)
        repeated[at] = True
        # Each occurrence covers its n words up to where the next occurrence begins.
        following = np.empty_like(at)
        following[:-1] = at[1:]
        following[starts + counts - 1] = np.iinfo(np.int64).max
        covered = cum[np.minimum(at + n, following)] - cum[at]
        coverage = np.bincount(np.repeat(np.arange(len(counts)), counts), weights=covered)
        best = np.zeros(rows)
        np.maximum.at(best, words.row[at[starts]], coverage)
        out[n] = best / total
        hashes, repeated_prev = h, repeated
    return out


def _sample_mask(text: pa.ChunkedArray | pa.Array, view: Utf8View, chars: np.ndarray, sample_chars: int):
    """Bytes within the first sample_chars characters of their row; None when every row fits."""
    long = np.flatnonzero(chars > sample_chars)
    if len(long) == 0:
        return None
    kept = pc.binary_length(pc.utf8_slice_codeunits(pc.take(text, pa.array(long)), 0, sample_chars))
    mask = np.ones(len(view.data), dtype=bool)
    for row, size in zip(long.tolist(), kept.to_pylist()):  # only the rows longer than the sample
        mask[view.offsets[row] + size:view.offsets[row + 1]] = False
    return mask


# ---- the stage ------------------------------------------------------------------------------

class JunkStage(ConfigStage):
    """Measures base64, long tokens, minified code, markup, word length and repetition."""

    name = "junk"
    reads = ("text", VIEW)
    writes = ("junk_base64_share", "junk_long_token_share", "junk_mean_line_chars", "junk_symbol_share",
              "junk_code_line_share", "junk_markup_share", "junk_mean_word_chars", "junk_dup_line_share",
              *(f"junk_top_{n}gram_share" for n in NGRAMS))

    def __init__(self, config: "AuditConfig") -> None:
        super().__init__(config)
        self.cfg: JunkConfig = config.filters.junk

    def setup(self) -> None:
        codepoint_classes()  # build the Unicode table once per worker

    def __call__(self, batch: pa.Table, view: Utf8View | None = None) -> pa.Table:
        cfg = self.cfg
        text = batch.column("text")
        if view is None:  # called alone, not by the Tagger with the block's shared view
            view = Utf8View.of(text)
        chars = pc.fill_null(pc.utf8_length(text), 0).to_numpy(zero_copy_only=False).astype(np.int64)
        total = np.maximum(chars, 1)
        cls = view.classes(spread=True)
        lead = (view.data & 0xC0) != 0x80  # the first byte of each character

        words = _Words(view)
        n_words = np.diff(words.bounds)
        word_bytes_ = words.row_sum(words.bytes)
        pos, cp, width = view.multibyte()
        wide_row = view.row_of(pos)
        # Characters = bytes - continuation bytes; multi-byte characters are few, so count those.
        word_chars = word_bytes_ - np.bincount(wide_row, weights=(width - 1) * words.inside[pos],
                                               minlength=view.rows).astype(np.int64)
        unspaced = (codepoint_classes()[cp] & UNSPACED) != 0
        unspaced_bytes = np.bincount(wide_row, weights=width * unspaced, minlength=view.rows)
        long_tokens = words.long_token_chars(lead, cfg.long_token_chars)
        # Word statistics describe text in spaced scripts: not Chinese, Japanese, Thai... (nor
        # their ANSI-coloured dumps, whose only "words" are escape codes): unspaced scripts must
        # hold under a quarter of the visible bytes.
        has_words = (n_words > 0) & (3 * unspaced_bytes < word_bytes_)

        lines = _Lines(view)
        symbol = (cls & CODE) != 0
        code_chars = lines.code_chars(lead, symbol, view.data == 0x20, cfg.code_line_chars,
                                      cfg.code_line_symbol_share, cfg.code_line_space_share)

        base64 = base64_chars(text, cfg.base64_min_run)
        markup = markup_chars(text, chars)

        # Repetition reads the first sample_chars characters of each row.
        in_sample = _sample_mask(text, view, chars, cfg.sample_chars)
        dup = dup_line_share(view, lines, cls, in_sample)
        ngrams = top_ngram_shares(view, words if in_sample is None else words.restrict(in_sample[words.end - 1]))

        columns = {
            "junk_base64_share": (base64 / total, None),
            "junk_long_token_share": (long_tokens / total, None),
            "junk_mean_line_chars": (chars / np.maximum(lines.count, 1), None),
            "junk_symbol_share": (view.row_sums(symbol) / total, None),
            "junk_code_line_share": (code_chars / total, None),
            "junk_markup_share": (markup / total, None),
            "junk_mean_word_chars": (word_chars / np.maximum(n_words, 1), has_words),
            "junk_dup_line_share": (dup, None),
            **{f"junk_top_{n}gram_share": (ngrams[n], has_words) for n in NGRAMS},
        }
        for name, (values, ok) in columns.items():
            valid = view.valid if ok is None else view.valid & ok
            batch = batch.append_column(name, null_where(values, valid, pa.float32()))
        return batch

    def judge(self, table: pa.Table) -> Iterable[Finding]:
        cfg = self.config.filters.junk
        col = {name: column_values(table, name) for name in JunkStage.writes}

        def over(name: str, limit: float) -> np.ndarray:
            values, valid = col[f"junk_{name}"]
            return valid & (values > limit)

        word = col["junk_mean_word_chars"]
        rules = {
            "junk:base64": ({"base64_share": cfg.max_base64_share}, over("base64_share", cfg.max_base64_share)),
            "junk:long_tokens": ({"long_token_share": cfg.max_long_token_share},
                                 over("long_token_share", cfg.max_long_token_share)),
            "junk:minified": ({"code_line_share": cfg.max_code_line_share, "mean_line_chars": cfg.max_mean_line_chars,
                               "symbol_share": cfg.max_symbol_share},
                              over("code_line_share", cfg.max_code_line_share)
                              | (over("mean_line_chars", cfg.max_mean_line_chars)
                                 & over("symbol_share", cfg.max_symbol_share))),
            "junk:markup": ({"markup_share": cfg.max_markup_share}, over("markup_share", cfg.max_markup_share)),
            "junk:word_length": ({"mean_word_chars": [cfg.min_mean_word_chars, cfg.max_mean_word_chars]},
                                 word[1] & ((word[0] < cfg.min_mean_word_chars) | (word[0] > cfg.max_mean_word_chars))),
            "junk:repetition": ({"dup_line_share": cfg.max_dup_line_share,
                                 **{f"top_{n}gram_share": cfg.max_top_ngram_share[n - 2] for n in NGRAMS}},
                                np.logical_or.reduce([over("dup_line_share", cfg.max_dup_line_share)]
                                                     + [over(f"top_{n}gram_share", cfg.max_top_ngram_share[n - 2])
                                                        for n in NGRAMS])),
        }
        for reason, (limits, hit) in rules.items():
            for i in np.flatnonzero(hit):
                values, valid = zip(*(col[f"junk_{name}"] for name in limits))
                details = {name: (round(float(v[i]), 4) if ok[i] else None)
                           for name, v, ok in zip(limits, values, valid)}
                details["limits"] = limits
                yield int(i), reason, details
