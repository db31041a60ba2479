"""Junk: text that is not prose although its characters are fine.

Measures (all shares are of characters unless named otherwise):
- junk_base64_share: text in base64 runs (>= base64_min_run characters of the base64 alphabet,
  continued across the line breaks of wrapped encodings), data: URIs and PEM blocks.
- junk_long_token_share: text in whitespace-free tokens of >= long_token_chars characters.
- junk_mean_line_chars, junk_symbol_share (code symbols {}[]();=<>:|&!+*$ per character), and
  junk_code_line_share: the share of the text in lines of >= code_line_chars characters whose
  own symbol share is >= code_line_symbol_share (minified JavaScript and CSS).
- junk_markup_share: text inside <...> tags and <!-- --> comments.
- junk_mean_word_chars: mean length of whitespace-delimited words; null when words in spaced
  scripts cover under half the visible text (Chinese, Japanese, Thai have no such words).
- Gopher-style repetition over the first sample_chars characters: junk_dup_line_share (UTF-8
  bytes of non-blank lines that repeat an earlier line / bytes of non-blank lines) and
  junk_top_{2,3,4}gram_share (bytes of the word n-gram with the most repeated text / word bytes;
  0 when no n-gram repeats).

Everything is computed over the batch's bytes at once (numpy, RE2 on the rows a cheap test
selects); no Python loop runs per document.

Reasons: `junk:base64`, `junk:long_tokens`, `junk:minified`, `junk:markup`, `junk:word_length`,
`junk:repetition` (details name the measure that fired).
"""
from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from audit.stages import Finding, Stage
from audit.stages.utf8view import (CLASS_MASK, CONT, SPACE, UNSPACED, Utf8View, codepoint_classes, column_values,
                                   null_where, segment_sums, word_bytes)

if TYPE_CHECKING:
    from audit.config import AuditConfig, JunkConfig

_SYMBOLS = b"{}[]();=<>:|&!+*$"
_MARKUP = r"<!--[\s\S]{0,1000}?-->|<[!?/]?[A-Za-z][A-Za-z0-9:-]{0,40}(?:\s[^<>]{0,1000})?/?>"
_NGRAMS = (2, 3, 4)


def _base64_alphabet() -> tuple[np.ndarray, np.ndarray]:
    """Byte tables: in the base64 alphabet (with '=' padding), and which kind (1 upper, 2 lower, 3 other)."""
    alphabet = np.zeros(256, dtype=bool)
    kind = np.zeros(256, dtype=np.uint8)
    for c in b"ABCDEFGHIJKLMNOPQRSTUVWXYZ":
        kind[c] = 1
    for c in b"abcdefghijklmnopqrstuvwxyz":
        kind[c] = 2
    for c in b"0123456789+/":
        kind[c] = 3
    alphabet[kind > 0] = True
    alphabet[ord("=")] = True
    return alphabet, kind


_B64_ALPHABET, _B64_KIND = _base64_alphabet()


def base64_chars(text: pa.ChunkedArray | pa.Array, min_run: int) -> np.ndarray:
    """Characters per row in base64 runs.

    A run of the alphabet counts when it is at least min_run long and mixes capitals, small
    letters and digits or +/ (as encoded bytes always do within 64 characters; a long chemical
    name or a hex digest does not). Runs that continue it across single line breaks (PEM, MIME
    wrapping) count with it. RE2 finds the rows holding a run of min_run; numpy measures them.
    """
    out = np.zeros(len(text), dtype=np.int64)
    candidate = pc.fill_null(pc.match_substring_regex(text, f"[A-Za-z0-9+/]{{{min_run}}}"), False)
    rows = np.flatnonzero(candidate.to_numpy(zero_copy_only=False))
    if len(rows) == 0:
        return out
    view = Utf8View.of(pc.take(text, pa.array(rows)))
    inside = _B64_ALPHABET[view.data]
    start = np.flatnonzero(view.run_starts(inside))
    length = _run_lengths(view, inside, start)
    end = start + length
    kind = _B64_KIND[view.data]
    bounds = np.empty(2 * len(start) + 1, dtype=np.int64)
    bounds[0:-1:2], bounds[1:-1:2], bounds[-1] = start, end, len(view.data)
    upper = segment_sums(kind == 1, bounds)[0::2]
    lower = segment_sums(kind == 2, bounds)[0::2]
    other = segment_sums(kind == 3, bounds)[0::2]
    strong = (length >= min_run) & (upper > 0) & (lower > 0) & (other > 0)
    # Runs joined by one line break ("\n" or "\r\n") in the same row form a chain; a chain with a
    # strong run is base64 throughout.
    gap = start[1:] - end[:-1]
    padded = np.concatenate([view.data, np.zeros(2, dtype=np.uint8)])
    linked = ((gap == 1) & (padded[end[:-1]] == 0x0A)) | (
        (gap == 2) & (padded[end[:-1]] == 0x0D) & (padded[end[:-1] + 1] == 0x0A))
    row = np.searchsorted(view.offsets, start, side="right") - 1
    linked &= row[1:] == row[:-1]
    chain = np.concatenate([[0], np.cumsum(~linked)])
    chain_strong = np.bincount(chain, weights=strong, minlength=chain[-1] + 1 if len(chain) else 0) > 0
    counted = chain_strong[chain] if len(chain) else np.zeros(0, dtype=bool)
    out[rows] = np.bincount(row, weights=length * counted, minlength=len(rows)).astype(np.int64)
    return out


def _chars_in_matches(text: pa.ChunkedArray | pa.Array, chars: np.ndarray, pattern: str, prefilter: str) -> np.ndarray:
    """Characters per row inside matches of `pattern`, running the replace only on rows that
    contain `prefilter` (a cheap literal) and match."""
    out = np.zeros(len(chars), dtype=np.int64)
    candidate = pc.fill_null(pc.match_substring(text, prefilter), False) if prefilter else pc.is_valid(text)
    rows = np.flatnonzero(candidate.to_numpy(zero_copy_only=False))
    if len(rows) == 0:
        return out
    subset = pc.take(text, pa.array(rows))
    hit = pc.fill_null(pc.match_substring_regex(subset, pattern), False).to_numpy(zero_copy_only=False)
    rows, subset = rows[hit], pc.filter(subset, pa.array(hit))
    if len(rows):
        kept = pc.utf8_length(pc.replace_substring_regex(subset, pattern, "")).to_numpy(zero_copy_only=False)
        out[rows] = chars[rows] - kept
    return out


class JunkStage(Stage):
    """Measures base64, long tokens, minified code, markup, word length and repetition."""

    name = "junk"
    reads = ("text",)
    writes = ("junk_base64_share", "junk_long_token_share", "junk_mean_line_chars", "junk_symbol_share",
              "junk_code_line_share", "junk_markup_share", "junk_mean_word_chars", "junk_dup_line_share",
              *(f"junk_top_{n}gram_share" for n in _NGRAMS))

    def __init__(self, config: "AuditConfig") -> None:
        super().__init__(config)
        self.cfg: JunkConfig = config.filters.junk
        self.symbols = np.zeros(256, dtype=bool)
        self.symbols[list(_SYMBOLS)] = True
        codepoint_classes()  # build the Unicode table once per worker

    def __call__(self, batch: pa.Table) -> pa.Table:
        cfg = self.cfg
        text = batch.column("text")
        view = Utf8View.of(text)
        chars = pc.fill_null(pc.utf8_length(text), 0).to_numpy(zero_copy_only=False).astype(np.int64)
        total = np.maximum(chars, 1)
        cls = view.classes(spread=True)
        lead = (view.data & 0xC0) != 0x80  # first byte of each character

        base64 = base64_chars(text, cfg.base64_min_run)
        markup = _chars_in_matches(text, chars, _MARKUP, "<")  # RE2 only on rows with a "<"

        words = _WordRuns(view, cls, lead)
        long_tokens = words.row_sum(words.chars * (words.chars >= cfg.long_token_chars))
        word_chars = words.row_sum(words.chars)
        n_words = words.row_sum(np.ones_like(words.chars))
        visible = chars - view.row_sums(lead & ((cls & CLASS_MASK) == SPACE))
        mean_word = word_chars / np.maximum(n_words, 1)
        pos, cp, _ = view.multibyte()
        unspaced = view.row_counts_at(pos[(codepoint_classes()[cp] & UNSPACED) != 0])
        # Word statistics describe text in spaced scripts: not Chinese, Japanese, Thai... (nor
        # their ANSI-coloured dumps, whose only "words" are escape codes).
        has_words = (n_words > 0) & (2 * word_chars >= visible) & (4 * unspaced < visible)

        lines = _Lines(view, lead, self.symbols)
        symbols = view.row_sums(self.symbols[view.data])
        code_lines = lines.row_sum(lines.chars * ((lines.chars >= cfg.code_line_chars)
                                                  & (lines.symbols >= cfg.code_line_symbol_share * lines.chars)))

        repetition = _repetition(text, view, cls, chars, cfg.sample_chars)

        columns = {
            "junk_base64_share": (base64 / total, None),
            "junk_long_token_share": (long_tokens / total, None),
            "junk_mean_line_chars": (chars / np.maximum(lines.count, 1), None),
            "junk_symbol_share": (symbols / total, None),
            "junk_code_line_share": (code_lines / total, None),
            "junk_markup_share": (markup / total, None),
            "junk_mean_word_chars": (mean_word, has_words),
            "junk_dup_line_share": (repetition.pop("dup_line_share"), None),
            # Word n-grams say nothing about text mostly in unspaced scripts: null there too.
            **{f"junk_{k}": (np.minimum(v, 1.0), has_words) for k, v in repetition.items()},
        }
        for name, (values, ok) in columns.items():
            valid = view.valid if ok is None else view.valid & ok
            batch = batch.append_column(name, null_where(values, valid, pa.float32()))
        return batch

    @staticmethod
    def judge(table: pa.Table, config: "AuditConfig") -> Iterable[Finding]:
        cfg = config.filters.junk
        col = {name: column_values(table, name) for name in JunkStage.writes}

        def over(name: str, limit: float) -> np.ndarray:
            values, valid = col[name]
            return valid & (values > limit)

        def under(name: str, limit: float) -> np.ndarray:
            values, valid = col[name]
            return valid & (values < limit)

        def value(name: str, i: int) -> float:
            return round(float(col[name][0][i]), 4)

        minified = over("junk_code_line_share", cfg.max_code_line_share) | (
            over("junk_mean_line_chars", cfg.max_mean_line_chars) & over("junk_symbol_share", cfg.max_symbol_share))
        rules = [
            ("junk:base64", {"base64_share": cfg.max_base64_share}),
            ("junk:long_tokens", {"long_token_share": cfg.max_long_token_share}),
            ("junk:minified", {"code_line_share": cfg.max_code_line_share, "mean_line_chars": cfg.max_mean_line_chars,
                               "symbol_share": cfg.max_symbol_share}),
            ("junk:markup", {"markup_share": cfg.max_markup_share}),
            ("junk:word_length", {"mean_word_chars": (cfg.min_mean_word_chars, cfg.max_mean_word_chars)}),
            ("junk:repetition", {"dup_line_share": cfg.max_dup_line_share,
                                 **{f"top_{n}gram_share": cfg.max_top_ngram_share[n - 2] for n in _NGRAMS}}),
        ]
        hits = {
            "junk:base64": over("junk_base64_share", cfg.max_base64_share),
            "junk:long_tokens": over("junk_long_token_share", cfg.max_long_token_share),
            "junk:minified": minified,
            "junk:markup": over("junk_markup_share", cfg.max_markup_share),
            "junk:word_length": under("junk_mean_word_chars", cfg.min_mean_word_chars)
            | over("junk_mean_word_chars", cfg.max_mean_word_chars),
            "junk:repetition": over("junk_dup_line_share", cfg.max_dup_line_share)
            | np.logical_or.reduce([over(f"junk_top_{n}gram_share", cfg.max_top_ngram_share[n - 2]) for n in _NGRAMS]),
        }
        for reason, limits in rules:
            for i in np.flatnonzero(hits[reason]):
                details = {name: value(f"junk_{name}", i) for name in limits}
                details["limits"] = limits
                yield int(i), reason, details


class _WordRuns:
    """Whitespace-delimited words of spaced scripts: byte start, byte end, characters, row."""

    def __init__(self, view: Utf8View, cls: np.ndarray, lead: np.ndarray) -> None:
        inside = word_bytes(cls)
        self.view = view
        self.start = np.flatnonzero(view.run_starts(inside))
        ends = inside.copy()
        if len(inside) > 1:
            ends[:-1] &= ~inside[1:]
        row_last = view.offsets[1:][view.offsets[1:] > view.offsets[:-1]] - 1
        ends[row_last] = inside[row_last]
        self.end = np.flatnonzero(ends) + 1
        bounds = np.empty(2 * len(self.start) + 1, dtype=np.int64)
        bounds[0:-1:2], bounds[1:-1:2] = self.start, self.end
        bounds[-1] = len(view.data)
        self.chars = segment_sums(lead, bounds)[0::2] if len(self.start) else np.zeros(0, dtype=np.int64)
        self.bounds = np.searchsorted(self.start, view.offsets)

    def row_sum(self, values: np.ndarray) -> np.ndarray:
        """Per-row sums of a per-word array."""
        return segment_sums(values, self.bounds)


class _Lines:
    """Lines (split at \\n, the newline belonging to its line) with characters and code symbols."""

    def __init__(self, view: Utf8View, lead: np.ndarray, symbols: np.ndarray) -> None:
        breaks = np.flatnonzero(view.data == 0x0A) + 1
        bounds = np.union1d(view.offsets, breaks)
        self.chars = segment_sums(lead, bounds)
        self.symbols = segment_sums(symbols[view.data], bounds)
        self.bounds = np.searchsorted(bounds, view.offsets)
        nonempty = bounds[1:] > bounds[:-1]
        self.count = segment_sums(nonempty, self.bounds)

    def row_sum(self, values: np.ndarray) -> np.ndarray:
        return segment_sums(values, self.bounds)


def _repetition(text, view: Utf8View, cls: np.ndarray, chars: np.ndarray, sample_chars: int) -> dict[str, np.ndarray]:
    """Duplicate-line share and top word n-gram shares over the first sample_chars of each row."""
    if len(chars) and chars.max() > sample_chars:
        text = pc.utf8_slice_codeunits(text, 0, sample_chars)
        view = Utf8View.of(text)
        cls = view.classes(spread=True)
    out = {"dup_line_share": _dup_line_share(view, cls)}
    out.update(_top_ngram_shares(view, cls))
    return out


def _hash_segments(data: np.ndarray, keep: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """Equal-text ids (int64) of consecutive segments made of the `keep` bytes of `data`."""
    packed = data[keep]
    offsets = np.zeros(len(lengths) + 1, dtype=np.int64)
    np.cumsum(lengths, out=offsets[1:])
    segments = pa.LargeStringArray.from_buffers(len(lengths), pa.py_buffer(offsets), pa.py_buffer(packed))
    return pc.dictionary_encode(segments.cast(pa.large_binary())).indices.to_numpy().astype(np.int64)


def _dup_line_share(view: Utf8View, cls: np.ndarray) -> np.ndarray:
    """Bytes of non-blank lines repeating an earlier line of the same row / bytes of non-blank lines."""
    data = view.data
    breaks = np.flatnonzero(data == 0x0A)
    bounds = np.union1d(view.offsets, breaks + 1)
    is_break = np.zeros(len(data), dtype=bool)
    is_break[breaks] = True
    line_bytes = segment_sums(~is_break, bounds)  # without the newline
    visible = segment_sums((cls & CLASS_MASK) != SPACE, bounds)
    ids = _hash_segments(data, ~is_break, line_bytes)
    row = np.searchsorted(view.offsets, bounds[:-1], side="right") - 1
    nonblank = np.flatnonzero(visible > 0)
    key = ids[nonblank] * max(view.rows, 1) + row[nonblank]
    order = np.argsort(key, kind="stable")
    repeat = np.zeros(len(key), dtype=bool)
    repeat[order[1:]] = key[order[1:]] == key[order[:-1]]
    rows = row[nonblank]
    dup = np.bincount(rows, weights=line_bytes[nonblank] * repeat, minlength=view.rows)
    all_ = np.bincount(rows, weights=line_bytes[nonblank], minlength=view.rows)
    return dup / np.maximum(all_, 1)


_MIX = np.uint64(0x9E3779B97F4A7C15)


def _top_ngram_shares(view: Utf8View, cls: np.ndarray) -> dict[str, np.ndarray]:
    """For n in 2..4: bytes covered by the word n-gram with most repeated text / word bytes, per row.

    Exact counts need a sort; to keep it small, n-grams that cannot repeat are dropped first: for
    n=2 by a counting sketch (a bucket seen once holds a unique n-gram), for larger n because a
    repeated n-gram is made of two repeated (n-1)-grams.
    """
    inside = word_bytes(cls)
    start = np.flatnonzero(view.run_starts(inside))
    lengths = _run_lengths(view, inside, start)
    rows = view.rows
    word_row = np.searchsorted(view.offsets, start, side="right") - 1
    total = np.bincount(word_row, weights=lengths, minlength=rows)
    out = {f"top_{n}gram_share": np.zeros(rows) for n in _NGRAMS}
    if len(start) < 2:
        return out
    ids = _hash_segments(view.data, inside, lengths).astype(np.uint64)
    ids = ids * _MIX + word_row.astype(np.uint64)  # one row's words never meet another's
    repeated_prev = None
    for n in _NGRAMS:
        m = len(ids) - n + 1
        if m <= 0:
            break
        same_row = word_row[:m] == word_row[n - 1:n - 1 + m]
        if repeated_prev is None:
            cand = same_row
        else:
            cand = same_row & repeated_prev[:m] & repeated_prev[1:m + 1]
        idx = np.flatnonzero(cand)
        key = ids[idx]
        size = lengths[idx].astype(np.int64)
        for k in range(1, n):
            key = (key ^ (key >> np.uint64(29))) * _MIX + ids[idx + k]
            size += lengths[idx + k]
        if repeated_prev is None and len(idx) > 64:
            idx, key, size = _maybe_repeated(idx, key, size)
        order = np.argsort(key)
        skey = key[order]
        new_group = np.ones(len(skey), dtype=bool)
        new_group[1:] = skey[1:] != skey[:-1]
        group = np.cumsum(new_group) - 1
        count = np.bincount(group)
        repeated_at = np.zeros(m, dtype=bool)
        repeated_at[idx[order]] = count[group] >= 2
        firsts = order[new_group]
        weight = count * size[firsts]
        multi = count >= 2
        best = np.zeros(rows)
        np.maximum.at(best, word_row[idx[firsts[multi]]], weight[multi])
        out[f"top_{n}gram_share"] = best / np.maximum(total, 1)
        repeated_prev = repeated_at
    return out


def _run_lengths(view: Utf8View, inside: np.ndarray, start: np.ndarray) -> np.ndarray:
    """Byte lengths of the runs of `inside` bytes beginning at `start`."""
    ends = inside.copy()
    if len(inside) > 1:
        ends[:-1] &= ~inside[1:]
    row_last = view.offsets[1:][view.offsets[1:] > view.offsets[:-1]] - 1
    ends[row_last] = inside[row_last]
    return np.flatnonzero(ends) + 1 - start


def _maybe_repeated(idx: np.ndarray, key: np.ndarray, size: np.ndarray):
    """Keep the n-grams whose bucket in a counting sketch is hit more than once."""
    bits = max(10, int(np.ceil(np.log2(len(key) * 4))))
    bucket = (key >> np.uint64(64 - bits)).astype(np.int64)
    keep = np.bincount(bucket, minlength=1 << bits)[bucket] >= 2
    return idx[keep], key[keep], size[keep]
