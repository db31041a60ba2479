"""The one text normaliser, shared by exact dedup, near dedup, contamination and passage lookup.

normalize(text): Unicode NFKC, lowercase, punctuation and symbols deleted (so "3+4=7" and
"347" agree, as lm-eval-harness style decontamination expects), whitespace collapsed to single
spaces. It runs vectorised over an Arrow string array (RE2 via pyarrow.compute); the str form
calls the same code, so every caller gets the same answer.

Words for n-grams: a word is a maximal run of non-space characters of the ORIGINAL text,
normalised by the same rules and dropped when nothing is left (a lone "-"), except that a
character whose normal form is a Han ideograph or a kana (`_ALONE`: Chinese and Japanese write
words without spaces, and each such character carries meaning of its own) is a word by itself: a
Chinese sentence is as many words as characters, not one, so its n-grams are character n-grams,
as decontamination of Chinese text takes them (other scripts written without spaces, Thai, Lao,
Khmer, Myanmar, are alphabets: a letter alone is no word, and a run is read whole as before).
So the words of a text in spaced scripts are those of `normalize(text).split(" ")` (except where
NFKC turns one character into a space, e.g. U+00A8), and each word keeps its character offsets in
the original text, which is what contamination spans point at. `tokenize_hashed` hashes the words
of many texts at once with numpy: each code point is classified and lowercased through tables
derived from `normalize_array` itself (built once per process), so the fast path cannot drift
from the normaliser; words holding a character whose normal form depends on its neighbours
(combining marks, Hangul jamo, NFKC expansions) are normalised by `normalize_array` proper.
"""
from __future__ import annotations

import hashlib
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from audit.cache import cached_arrays

# Everything that is not a letter, number, combining mark, underscore or white space.
_PUNCT = r"[^\p{L}\p{N}\p{M}_\s\p{Z}]+"
_SPACE = r"[\s\p{Z}]+"

# Code point classes of the fast tokeniser.
_KEEP, _SPACE_CLASS, _DELETE, _COMPLEX, _ALONE = 0, 1, 2, 3, 4
# Normal forms that are a word by themselves (_ALONE): CJK radicals, kana, CJK extension A, unified
# ideographs, compatibility ideographs and extensions B..H (utf8view's unspaced ranges less the
# alphabets, the punctuation and the full-width forms, whose normal forms are other characters).
_ALONE_RANGES = ((0x2E80, 0x2FDF), (0x3041, 0x30FF), (0x31F0, 0x31FF), (0x3400, 0x4DBF), (0x4E00, 0x9FFF),
                 (0xF900, 0xFAFF), (0x20000, 0x3FFFF))
# Multipliers of the polynomial n-gram hash and the splitmix64 finaliser.
_GRAM_MUL = np.uint64(0x9E3779B97F4A7C15)
_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX2 = np.uint64(0x94D049BB133111EB)


def normalize_array(texts: pa.Array | pa.ChunkedArray) -> pa.Array | pa.ChunkedArray:
    """Normalise every string of an Arrow array (nulls stay null)."""
    if pa.types.is_large_string(texts.type):
        texts = texts.cast(pa.string())
    out = pc.utf8_normalize(texts, form="NFKC")
    out = pc.utf8_lower(out)
    out = pc.replace_substring_regex(out, pattern=_PUNCT, replacement="")
    out = pc.replace_substring_regex(out, pattern=_SPACE, replacement=" ")
    return pc.utf8_trim_whitespace(out)


def normalize(text: str) -> str:
    """Normalise one string (same rules as normalize_array)."""
    return normalize_array(pa.array([text], pa.string()))[0].as_py()


def words(text: str) -> list[str]:
    """The normalised words of `text`, in order (the reference for `tokenize_hashed`): its white
    space runs, each cut around the characters whose normal form is one _ALONE character (by the
    code point table, itself derived from normalize_array)."""
    runs = pc.split_pattern_regex(pa.array([text], pa.string()), pattern=_SPACE)[0].values.to_pylist()
    cls_table = _char_tables()[0]
    alone = {c for run in runs for c in run if ord(c) >= _ALONE_RANGES[0][0] and cls_table[ord(c)] == _ALONE}
    pieces: list[str] = []
    for run in runs:
        if alone.isdisjoint(run):
            pieces.append(run)
            continue
        piece = ""
        for c in run:
            if c in alone:
                pieces += [piece, c]
                piece = ""
            else:
                piece += c
        pieces.append(piece)
    return [w for w in normalize_array(pa.array(pieces, pa.string())).to_pylist() if w]


def mix64(x: np.ndarray) -> np.ndarray:
    """splitmix64 finaliser over a uint64 array: a cheap, well-mixed 64-bit hash."""
    x = x ^ (x >> np.uint64(30))
    x = x * _MIX1
    x = x ^ (x >> np.uint64(27))
    x = x * _MIX2
    return x ^ (x >> np.uint64(31))


_TABLES_VERSION = 2  # bump when _derive_char_tables changes


@lru_cache(maxsize=1)
def _char_tables() -> tuple[np.ndarray, np.ndarray]:
    """Per code point: its class and its normalised (lowercased) code point when simple.

    Derived from `normalize_array` over every code point (~1 s), then kept in the user's cache
    folder (audit.cache), so later processes load them in milliseconds.
    """
    depends_on = f"v{_TABLES_VERSION} pyarrow {pa.__version__} {tables_fingerprint()}"
    t = cached_arrays("char-tables", depends_on, lambda: dict(zip(("cls", "lower"), _derive_char_tables())),
                      expect={"cls": ((0x110000,), np.uint8), "lower": ((0x110000,), np.uint32)})
    return t["cls"], t["lower"]


def tables_fingerprint() -> str:
    """What the tables are derived from: the normaliser's patterns and classes."""
    key = f"{_PUNCT}|{_SPACE}|{_DELETE}|{_KEEP}|{_COMPLEX}|{_SPACE_CLASS}|{_ALONE}|{_ALONE_RANGES}"
    return hashlib.blake2b(key.encode(), digest_size=6).hexdigest()


def _derive_char_tables() -> tuple[np.ndarray, np.ndarray]:
    """Run `normalize_array`'s steps over every code point, so the vectorised tokeniser agrees
    with the normaliser by construction."""
    cps = np.arange(0x110000, dtype=np.uint32)
    cps = cps[(cps < 0xD800) | (cps > 0xDFFF)]
    arr = pa.array([chr(c) for c in cps.tolist()], pa.string())
    # normalize_array's steps up to the punctuation deletion: trimming one character alone would
    # hide a space that NFKC puts inside a word (U+00A8 -> " \u0308").
    norm = pc.replace_substring_regex(pc.utf8_lower(pc.utf8_normalize(arr, form="NFKC")), pattern=_PUNCT,
                                      replacement="")
    is_space = pc.match_substring_regex(arr, r"^[\s\p{Z}]$").to_numpy(zero_copy_only=False)
    is_mark = pc.match_substring_regex(arr, r"^\p{M}$").to_numpy(zero_copy_only=False)
    norm_len = pc.utf8_length(norm).to_numpy(zero_copy_only=False)
    # Single-code-point results: their code point; others are not looked up.
    single = (norm_len == 1) & ~pc.match_substring_regex(norm, r"^[\s\p{Z}]$").to_numpy(zero_copy_only=False)
    single_cp = np.zeros(len(cps), dtype=np.uint32)
    normed = norm.to_pylist()
    single_cp[single] = np.frombuffer("".join(normed[i] for i in np.flatnonzero(single).tolist())
                                      .encode("utf-32-le"), dtype=np.uint32)
    # Hangul conjoining jamo compose with their neighbours under NFKC, like combining marks.
    jamo = ((cps >= 0x1100) & (cps <= 0x11FF)) | ((cps >= 0xA960) & (cps <= 0xA97F)) | \
           ((cps >= 0xD7B0) & (cps <= 0xD7FF))
    cls = np.full(0x110000, _DELETE, dtype=np.uint8)  # surrogates: deleted
    lower = np.zeros(0x110000, dtype=np.uint32)
    c = np.full(len(cps), _COMPLEX, dtype=np.uint8)
    c[single] = _KEEP
    c[(norm_len == 0)] = _DELETE
    c[is_mark | jamo] = _COMPLEX
    c[is_space] = _SPACE_CLASS
    c[(c == _KEEP) & _is_alone(single_cp)] = _ALONE
    cls[cps] = c
    lower[cps] = single_cp
    return cls, lower


def _is_alone(cps: np.ndarray) -> np.ndarray:
    """Whether each code point (a normal form) is in _ALONE_RANGES."""
    out = np.zeros(len(cps), dtype=bool)
    for lo, hi in _ALONE_RANGES:
        out |= (cps >= lo) & (cps <= hi)
    return out


def char_tables_ready() -> None:
    """Build the code point tables now (e.g. in a worker's __init__) rather than on first use."""
    _char_tables()


@dataclass
class Tokens:
    """Hashed words of a batch of texts, with their character offsets in the original texts.

    The words of text i are rows `bounds[i]:bounds[i+1]`; `starts`/`ends` are character
    offsets (end exclusive) in text i, so `text[starts[k]:ends[k]]` is the original word.
    """

    hashes: np.ndarray  # uint64, one per word
    starts: np.ndarray  # int64
    ends: np.ndarray    # int64
    bounds: np.ndarray  # int64, len(texts) + 1

    @property
    def counts(self) -> np.ndarray:
        """Number of words per text."""
        return np.diff(self.bounds)

    @property
    def text_of(self) -> np.ndarray:
        """Index of the text each word belongs to."""
        return np.repeat(np.arange(len(self.bounds) - 1, dtype=np.int64), self.counts)

    def slice(self, a: int, b: int) -> "Tokens":
        """The words of texts a..b-1, offsets rebased to them."""
        lo, hi = int(self.bounds[a]), int(self.bounds[b])
        return Tokens(self.hashes[lo:hi], self.starts[lo:hi], self.ends[lo:hi], self.bounds[a:b + 1] - lo)

    def take(self, keep: np.ndarray) -> "Tokens":
        """The words of the texts where `keep` (bool per text) is set: the tokens of those texts alone."""
        counts = self.counts[keep]
        bounds = np.zeros(len(counts) + 1, dtype=np.int64)
        np.cumsum(counts, out=bounds[1:])
        word = np.repeat(keep, self.counts)
        return Tokens(self.hashes[word], self.starts[word], self.ends[word], bounds)


def distinct(values: np.ndarray) -> np.ndarray:
    """np.unique(values) by one sort: numpy 2's hash-based unique is several times slower on
    large integer arrays."""
    out = np.sort(values)
    if len(out) > 1:
        out = out[np.concatenate([[True], out[1:] != out[:-1]])]
    return out


@dataclass
class HashSet:
    """Sorted uint64 hashes with a bitmap in front: membership costs one load for most misses."""

    sorted: np.ndarray
    bitmap: np.ndarray
    bits: int

    @classmethod
    def build(cls, hashes: np.ndarray) -> "HashSet":
        """Index `hashes` (duplicates kept, so positions line up with a parallel posting array)."""
        unique = len(distinct(hashes))
        bits = int(min(30, max(16, np.ceil(np.log2(max(unique, 1) * 16)))))  # ~6% of the bitmap set
        bitmap = np.zeros(1 << (bits - 6), dtype=np.uint64)
        slot = hashes & np.uint64((1 << bits) - 1)
        np.bitwise_or.at(bitmap, (slot >> np.uint64(6)).astype(np.int64),
                         np.left_shift(np.uint64(1), slot & np.uint64(63)))
        return cls(np.sort(hashes), bitmap, bits)

    def maybe(self, probe: np.ndarray) -> np.ndarray:
        """Bitmap filter: False means surely absent."""
        slot = probe & np.uint64((1 << self.bits) - 1)
        word = self.bitmap[(slot >> np.uint64(6)).astype(np.int64)]
        return ((word >> (slot & np.uint64(63))) & np.uint64(1)).astype(bool)

    def find(self, probe: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(index in `probe`, position of its first equal hash in `sorted`) of the probes present."""
        cand = np.flatnonzero(self.maybe(probe))
        at = np.searchsorted(self.sorted, probe[cand])
        ok = at < len(self.sorted)
        ok[ok] = self.sorted[at[ok]] == probe[cand[ok]]
        return cand[ok], at[ok]

    def contains(self, probe: np.ndarray) -> np.ndarray:
        """Exact membership of every probe hash."""
        out = self.maybe(probe)
        cand = np.flatnonzero(out)
        if len(cand):
            at = np.searchsorted(self.sorted, probe[cand])
            at[at == len(self.sorted)] = 0
            out[cand] = self.sorted[at] == probe[cand]
        return out


def hash_code_points(cps: np.ndarray, ranks: np.ndarray) -> np.ndarray:
    """Hash of one character at a position in its word: words hash to the XOR of these."""
    return mix64(((ranks.astype(np.int64) << 21) | cps.astype(np.int64)).view(np.uint64))


def hash_word(word: str) -> int:
    """Hash of one already-normalised word, as `tokenize_hashed` computes it."""
    cps = np.frombuffer(word.encode("utf-32-le", "surrogatepass"), dtype=np.uint32)
    return int(np.bitwise_xor.reduce(hash_code_points(cps, np.arange(len(cps))))) if len(cps) else 0


def hash_words(normalised: list[str]) -> np.ndarray:
    """Hashes of normalised words (the slow path's words), vectorised across them."""
    if not normalised:
        return np.zeros(0, dtype=np.uint64)
    lengths = np.fromiter(map(len, normalised), dtype=np.int64, count=len(normalised))
    cps = np.frombuffer("".join(normalised).encode("utf-32-le", "surrogatepass"), dtype=np.uint32)
    first = np.zeros(len(lengths), dtype=np.int64)
    np.cumsum(lengths[:-1], out=first[1:])
    ranks = np.arange(len(cps), dtype=np.int64) - np.repeat(first, lengths)
    h = hash_code_points(cps, ranks)
    out = np.zeros(len(lengths), dtype=np.uint64)
    nonempty = lengths > 0
    out[nonempty] = np.bitwise_xor.reduceat(h, first[nonempty])
    return out


def tokenize_hashed(texts: Sequence[str | None], max_chars: int = 2_000_000) -> Tokens:
    """Hash the normalised words of every text (None: no words), vectorised across the batch.

    A few numpy passes over the code points, `max_chars` characters at a time (the temporary
    arrays take ~40 bytes a character; the result 32 bytes a word). A text longer than
    `max_chars` is tokenised in pieces cut at white space (a word never spans a cut), so one
    huge record costs no more memory than a run of ordinary ones.
    """
    if not any(t is not None and len(t) > max_chars for t in texts):
        return _tokenize_runs(texts, max_chars)
    pieces: list[str | None] = []
    owner: list[int] = []
    shift: list[int] = []
    for i, t in enumerate(texts):
        cuts = _space_cuts(t, max_chars) if t is not None and len(t) > max_chars else [(0, None)]
        for a, b in cuts:
            pieces.append(t if b is None else t[a:b])
            owner.append(i)
            shift.append(a)
    tok = _tokenize_runs(pieces, max_chars)
    counts = np.bincount(np.asarray(owner, dtype=np.int64), weights=tok.counts, minlength=len(texts))
    bounds = np.zeros(len(texts) + 1, dtype=np.int64)
    np.cumsum(counts.astype(np.int64), out=bounds[1:])
    offset = np.asarray(shift, dtype=np.int64)[tok.text_of]  # pieces keep their text's order
    return Tokens(tok.hashes, tok.starts + offset, tok.ends + offset, bounds)


def _space_cuts(text: str, max_chars: int) -> list[tuple[int, int]]:
    """[a, b) pieces of `text`, each cut at a white-space character or before an _ALONE one (a
    word of its own: a page of Chinese on one line is cut too), of at most `max_chars` characters
    unless a single word is longer."""
    cls_table, _ = _char_tables()
    n, a, out = len(text), 0, []
    block = 1 << 16

    def spaces(lo: int, hi: int) -> np.ndarray:
        cls = cls_table[np.frombuffer(text[lo:hi].encode("utf-32-le", "surrogatepass"), dtype=np.uint32)]
        return np.flatnonzero((cls == _SPACE_CLASS) | (cls == _ALONE)) + lo

    while n - a > max_chars:
        cut = None
        hi = a + max_chars
        while cut is None and hi > a + 1:  # the last space in (a, a + max_chars]
            lo = max(a + 1, hi - block)
            found = spaces(lo, hi)
            cut, hi = (int(found[-1]) if len(found) else None), lo
        lo = a + max_chars
        while cut is None and lo < n:  # one word longer than max_chars: the next space after it
            found = spaces(lo, lo + block)
            cut, lo = (int(found[0]) if len(found) else None), lo + block
        cut = n if cut is None else cut
        out.append((a, cut))
        a = cut
    if a < n:
        out.append((a, n))
    return out


# Characters tokenised in one run of numpy passes: its temporary arrays (~40 bytes a character)
# then stay in the CPU's cache (0.76 -> 0.52 CPU s over the bench corpus against runs of 2M).
_RUN_CHARS = 250_000


def _tokenize_runs(texts: Sequence[str | None], max_chars: int) -> Tokens:
    runs = list(chunk_texts(texts, min(max_chars, _RUN_CHARS)))
    if len(runs) <= 1:
        return _tokenize_run(texts)
    words = [_run_words(texts[a:b]) for a, b in runs]
    # the hard words of every run normalised by one call: each call compiles its regular
    # expressions again (~4 ms, more than the words of a run cost)
    _normalise_hard(words)
    parts = [w.tokens() for w in words]
    counts = np.concatenate([p.counts for p in parts])
    bounds = np.zeros(len(counts) + 1, dtype=np.int64)
    np.cumsum(counts, out=bounds[1:])
    return Tokens(np.concatenate([p.hashes for p in parts]), np.concatenate([p.starts for p in parts]),
                  np.concatenate([p.ends for p in parts]), bounds)


_ASCII_RANKS = 64
_ASCII_TABLE: np.ndarray | None = None


def _ascii_hash_table() -> np.ndarray:
    """hash_code_points of every ASCII code point at each of a word's first 64 ranks, by
    (rank << 7 | code point)."""
    global _ASCII_TABLE
    if _ASCII_TABLE is None:
        rank, cp = np.divmod(np.arange(_ASCII_RANKS * 128, dtype=np.int64), 128)
        _ASCII_TABLE = hash_code_points(cp.astype(np.uint32), rank)
    return _ASCII_TABLE


def _tokenize_run(texts: Sequence[str | None]) -> Tokens:
    words = _run_words(texts)
    _normalise_hard([words])
    return words.tokens()


@dataclass
class _RunWords:
    """A run's words (white-space runs) hashed on the fast path; those holding a character whose
    normal form depends on its neighbours (`hard`, their text `raw`) are hashed by `_normalise_hard`."""

    hashes: np.ndarray      # uint64 per word
    w_start: np.ndarray     # int64, in the texts joined by single spaces
    w_end: np.ndarray
    keep_word: np.ndarray   # bool: the word has a character left after normalising
    hard: np.ndarray        # int64, the words normalised by normalize_array proper
    raw: list[str]          # their text
    text_start: np.ndarray  # int64, where each text starts in the joined run

    def tokens(self) -> Tokens:
        """The run's Tokens (its hard words' hashes filled in)."""
        keep = self.keep_word
        w_start, w_end, hashes = self.w_start[keep], self.w_end[keep], self.hashes[keep]
        text = np.searchsorted(self.text_start, w_start, side="right") - 1
        bounds = np.searchsorted(text, np.arange(len(self.text_start) + 1), side="left").astype(np.int64)
        offset = self.text_start[text]
        return Tokens(hashes, w_start - offset, w_end - offset, bounds)


def _normalise_hard(runs: list[_RunWords]) -> None:
    """Hash the hard words of `runs` by normalize_array proper, all in one call."""
    raw = [w for run in runs for w in run.raw]
    if not raw:
        return
    normed = normalize_array(pa.array(raw, pa.string())).to_pylist()
    hashes = hash_words(normed)
    kept = np.fromiter((bool(w) for w in normed), dtype=bool, count=len(normed))
    at = 0
    for run in runs:
        n = len(run.raw)
        run.hashes[run.hard] = hashes[at:at + n]
        run.keep_word[run.hard] = kept[at:at + n]
        at += n


def _run_words(texts: Sequence[str | None]) -> _RunWords:
    cls_table, lower_table = _char_tables()
    strs = ["" if t is None else t for t in texts]
    lengths = np.fromiter(map(len, strs), dtype=np.int64, count=len(strs))
    text_start = np.zeros(len(strs), dtype=np.int64)
    if len(strs) > 1:
        np.cumsum(lengths[:-1] + 1, out=text_start[1:])  # +1: the space joining the texts
    joined = " ".join(strs)
    cps = np.frombuffer(joined.encode("utf-32-le", "surrogatepass"), dtype=np.uint32)
    cls = np.take(cls_table, cps)  # (np.take: ~2x faster than indexing by a uint32 array)
    nonspace = cls != _SPACE_CLASS
    alone = cls == _ALONE if len(cps) and cps.max() >= _ALONE_RANGES[0][0] else None
    if alone is not None and alone.any():
        # a word starts at a non-space character after a space or an alone character, or at an alone
        # one, and ends likewise
        cut = ~nonspace | alone
        w_start = np.flatnonzero(nonspace & (alone | np.concatenate([[True], cut[:-1]])))
        w_end = np.flatnonzero(nonspace & (alone | np.concatenate([cut[1:], [True]]))) + 1
    else:
        edge = np.diff(nonspace.view(np.int8), prepend=np.int8(0), append=np.int8(0))
        w_start = np.flatnonzero(edge == 1)
        w_end = np.flatnonzero(edge == -1)
    if len(w_start) == 0:
        empty = np.zeros(0, dtype=np.int64)
        return _RunWords(np.zeros(0, dtype=np.uint64), empty, empty.copy(), np.zeros(0, dtype=bool), empty.copy(),
                         [], text_start)

    kept = (cls == _KEEP) | (cls == _ALONE)
    # A word's characters hash with their rank among the kept characters of the word: kept
    # characters lie inside words, so the k-th kept one of a word with `before` kept ones before
    # it is kept character number before + k. (Counts by one running sum, not a reduceat per word:
    # half the time.)
    seen = np.cumsum(kept, dtype=np.int64)  # kept characters up to and including each one
    after = seen[w_end - 1]
    before = seen[w_start] - kept[w_start]
    per_word = after - before  # kept characters of each word
    idx = np.flatnonzero(kept)
    # (uint32 ranks: a run holds at most a few million characters)
    ranks = np.arange(len(idx), dtype=np.uint32) - np.repeat(before.astype(np.uint32), per_word)
    low = np.take(lower_table, np.take(cps, idx))
    # ASCII among a word's first characters from a table of their hashes (most text); the rest hashed
    key = np.minimum(ranks, np.uint32(_ASCII_RANKS - 1))
    key <<= np.uint32(7)
    key |= low & np.uint32(127)
    h = np.take(_ascii_hash_table(), key)
    long_word = len(per_word) and per_word.max() > _ASCII_RANKS
    other = np.flatnonzero((low >= 128) | (ranks >= _ASCII_RANKS) if long_word else low >= 128)
    if len(other):
        h[other] = hash_code_points(low[other], ranks[other])
    keep_word = per_word > 0
    hashes = np.zeros(len(w_start), dtype=np.uint64)
    if len(idx):  # a word's hash is the XOR of its characters': by one running XOR, not a reduceat per word
        running = np.bitwise_xor.accumulate(h)
        first, last = before[keep_word], after[keep_word] - 1
        hashes[keep_word] = running[last] ^ np.where(first > 0, running[first - 1], np.uint64(0))
    complex_at = np.flatnonzero(cls == _COMPLEX)
    hard = distinct(np.searchsorted(w_start, complex_at, side="right") - 1)
    # Lone surrogates (deleted, like the fast path does) cannot reach Arrow.
    raw = [joined[s:e].encode("utf-8", "ignore").decode("utf-8")
           for s, e in zip(w_start[hard].tolist(), w_end[hard].tolist())]
    return _RunWords(hashes, w_start, w_end, keep_word, hard, raw, text_start)


def ngram_hashes_by_size(tokens: Tokens, sizes: Iterable[int]) -> dict[int, tuple[np.ndarray, np.ndarray]]:
    """ngram_hashes(tokens, n) for every n of `sizes`: the rolling hash of the n-grams of one size
    extends that of the size below, so every size costs as many passes as the largest alone."""
    h = tokens.hashes
    total = len(h)
    out = {n: (np.zeros(0, dtype=np.uint64), np.zeros(0, dtype=np.int64)) for n in sizes}
    fit = {n for n in out if total >= n}
    if not fit:
        return out
    text = tokens.text_of
    acc = h.copy()  # acc[j]: the polynomial hash of the words j .. j + i
    for i in range(max(fit)):
        if i:
            acc = acc[:total - i]  # the (i + 1)-grams start at most at total - i - 1
            acc *= _GRAM_MUL
            acc += h[i:]
        n = i + 1
        if n in fit:
            inside = text[:total - i] == text[i:]
            out[n] = mix64(acc[inside] ^ np.uint64(n)), np.flatnonzero(inside)
    return out


def ngram_hashes(tokens: Tokens, n: int, short: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """Hashes of the word n-grams of every text, and the index of each n-gram's first word.

    N-grams never cross texts. With `short`, a text of 1..n-1 words gives one n-gram of all
    its words (so short texts still have a shingle); otherwise it gives none.
    """
    h = tokens.hashes
    grams, first = ngram_hashes_by_size(tokens, (n,))[n]
    if short:
        counts = tokens.counts
        few = np.flatnonzero((counts > 0) & (counts < n))
        if len(few):
            extra = np.empty(len(few), dtype=np.uint64)
            mul, mask = int(_GRAM_MUL), (1 << 64) - 1
            for k, t in enumerate(few.tolist()):
                words_h = h[tokens.bounds[t]:tokens.bounds[t + 1]].tolist()
                acc1 = words_h[0]
                for w in words_h[1:]:
                    acc1 = (acc1 * mul + w) & mask  # the same polynomial as above, in Python ints
                extra[k] = acc1
            grams = np.concatenate([grams, mix64(extra ^ np.uint64(n))])
            first = np.concatenate([first, tokens.bounds[few]])
            order = np.argsort(first, kind="stable")
            grams, first = grams[order], first[order]
    return grams, first


def chunk_texts(texts: Sequence[str | None], max_chars: int = 2_000_000) -> Iterator[tuple[int, int]]:
    """Split a batch into runs [a, b) of about `max_chars` characters (a longer text alone)."""
    a, size = 0, 0
    for i, t in enumerate(texts):
        size += len(t) if t else 0
        if size >= max_chars:
            yield a, i + 1
            a, size = i + 1, 0
    if a < len(texts):
        yield a, len(texts)


# A block's words as internal list columns: tokenised once by the pipeline for every stage that
# reads words (exact and near dedup, contamination, passages), dropped before anything is written.
WORD_COLUMNS = ("_word_hash", "_word_start", "_word_end")


def with_tokens(batch: pa.Table) -> pa.Table:
    """`batch` with the hashed words of its text column attached (see block_tokens)."""
    tokens = tokenize_hashed(batch.column("text").to_pylist())
    offsets = pa.array(tokens.bounds, pa.int64())
    for name, values in zip(WORD_COLUMNS, (tokens.hashes, tokens.starts, tokens.ends)):
        batch = batch.append_column(name, pa.LargeListArray.from_arrays(offsets, pa.array(values)))
    return batch


def block_tokens(batch: pa.Table) -> Tokens:
    """The hashed words of a batch's texts: from the attached word columns, else tokenised now."""
    if WORD_COLUMNS[0] not in batch.column_names:
        return tokenize_hashed(batch.column("text").to_pylist())
    cols = [batch.column(c).combine_chunks() for c in WORD_COLUMNS]
    first = cols[0]
    bounds = first.offsets.to_numpy().astype(np.int64)
    values = [c.values.to_numpy()[bounds[0]:bounds[-1]] for c in cols]
    return Tokens(values[0], values[1].astype(np.int64), values[2].astype(np.int64), bounds - bounds[0])


def number_skeleton(texts: Sequence[str | None], tokens: Tokens, placeholder: int) -> Tokens:
    """`tokens` with every word holding an ASCII digit hashed to `placeholder`: the number
    skeleton, so a text whose numbers were all changed keeps its n-grams (offsets unchanged)."""
    strs = ["" if t is None else t for t in texts]
    lengths = np.fromiter(map(len, strs), dtype=np.int64, count=len(strs))
    text_start = np.zeros(len(strs), dtype=np.int64)
    if len(strs) > 1:
        np.cumsum(lengths[:-1] + 1, out=text_start[1:])  # the same joining as _tokenize_run
    cps = np.frombuffer(" ".join(strs).encode("utf-32-le", "surrogatepass"), dtype=np.uint32)
    digit = np.flatnonzero((cps - np.uint32(48)) < np.uint32(10))  # '0'..'9' (the subtraction wraps below)
    base = np.repeat(text_start, np.diff(tokens.bounds))
    # each digit marks the word it falls in: the last word starting at or before it, if it ends after it
    start = base + tokens.starts
    word = np.searchsorted(start, digit, side="right") - 1
    inside = (word >= 0) & (digit < (base + tokens.ends)[np.maximum(word, 0)])
    numeric = np.zeros(len(tokens.hashes), dtype=bool)
    numeric[word[inside]] = True
    hashes = np.where(numeric, np.uint64(placeholder), tokens.hashes)
    return Tokens(hashes, tokens.starts, tokens.ends, tokens.bounds)
