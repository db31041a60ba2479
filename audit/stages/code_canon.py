"""Code-aware canonical form: a code text as a stream of layout-free tokens with names erased.

Comments and docstrings are dropped, identifiers other than keywords and builtins become one
placeholder, string literals one class, numbers and operators stay. Two copies of a function
with renamed variables, other indentation and no comments give the same stream. A light lexer
(not Python's `tokenize`, which stops at the first line that is not Python) so prose around a
function and other C-like languages go through it too. Its tokens are those of the regular
expression

    '''...''' | \"\"\"...\"\"\" | #... | //... | "..." | '...'   (strings and comments, one line
        for the quoted ones; the triple-quoted ones non-greedy across lines)
    | [A-Za-z_]\\w* | \\d+(\\.\\d+)? | == | != | <= | >= | ** | -> | += | -= | [^\\s\\w]

scanned left to right (tests/test_stage_contamination_tiers.py checks that against Python's
`re`). Only strings and comments are found with `re` (one scan, few matches); names, numbers and
operators are cut out of the code points with numpy, so a record costs a few array passes, not
a Python step per token.

Which texts are canonicalised at all: `looks_like_code`, one RE2 pass over an Arrow array of
the texts (a function definition, an indented return, a C-like block); the rest give no token.
"""
from __future__ import annotations

import builtins
import keyword
import re
from collections.abc import Sequence

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from audit.normalize import Tokens, hash_code_points, hash_word

# A text is code-like when it holds a function definition, an indented `return` or a C-like
# block opening; most prose holds none. RE2 (Arrow), so \w, \b and \s are ASCII here. A
# JavaScript `function` needs its body's brace: "the function f(x) = x^3" is mathematics.
_CODE_SIGNS = (r"(?m)\bdef \w+\([^\n]*\)[^\n]*:[ \t]*$|\n[ \t]+return\b|\)[ \t]*\{[ \t]*$"
               r"|\bfunction\s*\w*\s*\([^()]*\)[^{};\n]*(?:\n[ \t]*)?\{")
# Strings and comments, the first alternatives of the lexer (see the module docstring).
_REGIONS = re.compile(r'"""[\s\S]*?"""|\'\'\'[\s\S]*?\'\'\'|#[^\n]*|//[^\n]*|"(?:\\.|[^"\\\n])*"'
                      r"|'(?:\\.|[^'\\\n])*'")
_TWO_CHAR_OPS = ("==", "!=", "<=", ">=", "**", "->", "+=", "-=")
_KEEP = frozenset(keyword.kwlist) | frozenset(n for n in dir(builtins) if not n.startswith("_"))
_SALT = 0xC0DE  # canonical token hashes sit off the word hashes of the other tiers
_IDENT = np.uint64(hash_word("\x00I") ^ _SALT)
_STRING = np.uint64(hash_word("\x00S") ^ _SALT)
_KEEP_HASHES = np.sort(np.array([hash_word(k) for k in _KEEP], dtype=np.uint64))
# Character classes: white space (\s), [A-Za-z_], decimal digit (\d), other word character (\w),
# anything else (an operator character).
_SP, _LET, _DIG, _WOTH, _OP = 0, 1, 2, 3, 4


def _ascii_classes() -> np.ndarray:
    table = np.empty(128, dtype=np.int8)
    for c in range(128):
        ch = chr(c)
        table[c] = (_SP if ch.isspace() else _LET if (ch.isalpha() or ch == "_") else _DIG if ch.isdecimal()
                    else _WOTH if ch.isalnum() else _OP)
    return table


_ASCII = _ascii_classes()
_PAIR_TABLE = np.zeros((128, 128), dtype=bool)
for _op in _TWO_CHAR_OPS:
    _PAIR_TABLE[ord(_op[0]), ord(_op[1])] = True
_DOT = 46


def looks_like_code(texts: Sequence[str | None] | pa.Array | pa.ChunkedArray) -> np.ndarray:
    """Per text, whether it holds a function definition, an indented return or a C-like block
    (one vectorised regex pass; None: False)."""
    arr = texts if isinstance(texts, (pa.Array, pa.ChunkedArray)) else pa.array(list(texts), pa.string())
    if len(arr) == 0:
        return np.zeros(0, dtype=bool)
    return pc.fill_null(pc.match_substring_regex(arr, _CODE_SIGNS), False).to_numpy(zero_copy_only=False)


def _classes(cps: np.ndarray) -> np.ndarray:
    """The lexer class of every code point (Python's \\s, \\w, \\d semantics beyond ASCII)."""
    cls = np.empty(len(cps), dtype=np.int8)
    low = cps < 128
    cls[low] = _ASCII[cps[low]]
    if not low.all():
        wide, inverse = np.unique(cps[~low], return_inverse=True)
        table = np.array([_SP if ch.isspace() else _DIG if ch.isdecimal() else _WOTH if ch.isalnum() else _OP
                          for ch in map(chr, wide.tolist())], dtype=np.int8)
        cls[~low] = table[inverse]
    return cls


def _alternate(cand: np.ndarray) -> np.ndarray:
    """Of sorted candidate positions where a run of adjacent candidates (k, k+1, ...) competes
    left to right, the ones taken: the 1st, 3rd, ... of each run."""
    if len(cand) == 0:
        return cand
    new = np.ones(len(cand), dtype=bool)
    new[1:] = cand[1:] != cand[:-1] + 1
    run_start = np.maximum.accumulate(np.where(new, np.arange(len(cand)), 0))
    return cand[(np.arange(len(cand)) - run_start) % 2 == 0]


def code_tokens(texts: Sequence[str | None], code: np.ndarray | None = None) -> Tokens:
    """The canonical code tokens of every text (none for texts that do not look like code;
    `code`: that mask when already computed)."""
    mask = looks_like_code(texts) if code is None else code
    which = np.flatnonzero(mask)
    strs = [texts[i] or "" for i in which.tolist()]
    bounds = np.zeros(len(texts) + 1, dtype=np.int64)
    if not strs:
        empty = np.zeros(0, dtype=np.int64)
        return Tokens(np.zeros(0, dtype=np.uint64), empty, empty.copy(), bounds)
    lengths = np.fromiter(map(len, strs), dtype=np.int64, count=len(strs))
    text_start = np.zeros(len(strs), dtype=np.int64)
    np.cumsum(lengths[:-1] + 1, out=text_start[1:])  # joined by "\n": no token crosses it
    cps = np.frombuffer("\n".join(strs).encode("utf-32-le", "surrogatepass"), dtype=np.uint32)
    total = len(cps)
    cls = _classes(cps)

    # Strings and comments, per text (a triple-quoted string must not run into the next text).
    r_start, r_end, r_string = [], [], []
    for base, t in zip(text_start.tolist(), strs):
        for m in _REGIONS.finditer(t):
            a, b = m.span()
            r_start.append(base + a)
            r_end.append(base + b)
            r_string.append(t[a] in "\"'" and not t.startswith(('"""', "'''"), a, b))
    r_start_a = np.asarray(r_start, dtype=np.int64)
    r_end_a = np.asarray(r_end, dtype=np.int64)
    depth = np.zeros(total + 1, dtype=np.int8)
    depth[r_start_a] += 1  # regions do not overlap: starts (and ends) are distinct
    depth[r_end_a] -= 1
    inside = np.cumsum(depth[:-1], dtype=np.int8) > 0  # (0 or 1 throughout: the narrowest sum is the fastest)
    cls = np.where(inside, np.int8(_SP), cls)  # a string or comment ends any token next to it

    # Word-character runs: an identifier from the run's first [A-Za-z_] to its end; before it,
    # each run of digits a number (other word characters are skipped, as the regex does).
    word = (cls == _LET) | (cls == _DIG) | (cls == _WOTH)
    edge = np.diff(word.view(np.int8), prepend=np.int8(0), append=np.int8(0))
    run_a, run_b = np.flatnonzero(edge == 1), np.flatnonzero(edge == -1)
    run_of = np.cumsum(edge[:-1] == 1, dtype=np.int32) - 1  # run index of each word character
    let_at = np.flatnonzero(cls == _LET)
    first_let = np.full(len(run_a), np.iinfo(np.int64).max, dtype=np.int64)
    if len(let_at):
        runs = run_of[let_at]  # (in order: each run's first letter is where its index changes, no sort)
        at = np.flatnonzero(np.diff(runs, prepend=np.int32(-1)) != 0)
        first_let[runs[at]] = let_at[at]
    has_let = first_let < np.iinfo(np.int64).max
    id_a, id_b = first_let[has_let], run_b[has_let]
    dig = cls == _DIG
    dig_pos = np.flatnonzero(dig)
    pre = dig_pos[dig_pos < first_let[run_of[dig_pos]]]  # digits before the run's identifier
    in_pre = np.zeros(total + 1, dtype=bool)
    in_pre[pre] = True
    num_a = pre[~in_pre[np.maximum(pre - 1, 0)] | (pre == 0)]
    num_b = np.flatnonzero(in_pre[:-1] & ~in_pre[1:]) + 1
    # \d+\.\d+: a number ending at "." followed by a digit run takes the dot and that run, unless
    # it was itself taken by the number before it.
    starts_num = np.zeros(total + 1, dtype=bool)
    starts_num[num_a] = True
    ends_dot = num_b[(num_b + 1 < total)]
    ends_dot = ends_dot[(cps[ends_dot] == _DOT) & starts_num[ends_dot + 1]]
    dropped = np.zeros(len(num_a), dtype=bool)
    joined_dots = np.zeros(0, dtype=np.int64)
    if len(ends_dot):
        k = _alternate(np.searchsorted(num_b, ends_dot))  # the numbers that take a fraction
        joined_dots = num_b[k]
        num_b = num_b.copy()
        num_b[k] = num_b[k + 1]
        dropped[k + 1] = True
    num_a, num_b = num_a[~dropped], num_b[~dropped]

    # Operators: the two-character ones (left to right when they chain), then single characters.
    op = cls == _OP
    op[joined_dots] = False
    op_pos = np.flatnonzero(op)
    nxt = op_pos[:-1][(op_pos[1:] == op_pos[:-1] + 1)]
    pair = nxt[(cps[nxt] < 128) & (cps[nxt + 1] < 128)]
    pair = pair[_PAIR_TABLE[cps[pair], cps[pair + 1]]]
    pair = _alternate(pair)
    single = op.copy()
    single[pair] = single[pair + 1] = False
    single_at = np.flatnonzero(single)

    strings = r_start_a[np.asarray(r_string, dtype=bool)] if r_start else r_start_a
    string_ends = r_end_a[np.asarray(r_string, dtype=bool)] if r_start else r_end_a
    tok_a = np.concatenate([id_a, num_a, pair, single_at, strings])
    tok_b = np.concatenate([id_b, num_b, pair + 2, single_at + 1, string_ends])
    lone_quote = (cps[single_at] == 34) | (cps[single_at] == 39)  # an unclosed quote is a string token too
    kind = np.concatenate([np.full(len(id_a), 1, np.int8), np.zeros(len(num_a) + len(pair), np.int8),
                           np.where(lone_quote, np.int8(2), np.int8(0)), np.full(len(strings), 2, np.int8)])
    order = np.argsort(tok_a, kind="stable")
    tok_a, tok_b, kind = tok_a[order], tok_b[order], kind[order]

    # Hash every token as hash_word of its text: XOR of its characters hashed with their rank (the
    # characters of the tokens that are not strings, one after the other: no array of every
    # character of the texts); a string's hash is its class, set below.
    plain = np.flatnonzero(kind != 2)
    lengths = (tok_b - tok_a)[plain]  # (each at least 1)
    first = np.cumsum(lengths) - lengths
    rank = np.arange(int(lengths.sum()), dtype=np.int64) - np.repeat(first, lengths)
    hashes = np.zeros(len(tok_a), dtype=np.uint64)
    if len(plain):
        h = hash_code_points(cps[np.repeat(tok_a[plain], lengths) + rank], rank)
        hashes[plain] = np.bitwise_xor.reduceat(h, first)
    ident = np.flatnonzero(kind == 1)
    if len(_KEEP_HASHES):  # (keywords and builtins keep their name: only identifiers are looked up)
        at = np.minimum(np.searchsorted(_KEEP_HASHES, hashes[ident]), len(_KEEP_HASHES) - 1)
        kept_name = _KEEP_HASHES[at] == hashes[ident]
    else:
        kept_name = np.zeros(len(ident), dtype=bool)
    hashes = hashes ^ np.uint64(_SALT)
    hashes[ident[~kept_name]] = _IDENT
    hashes[kind == 2] = _STRING

    text = np.searchsorted(text_start, tok_a, side="right") - 1
    counts = np.zeros(len(texts), dtype=np.int64)
    counts[which] = np.bincount(text, minlength=len(strs))
    np.cumsum(counts, out=bounds[1:])
    offset = text_start[text]
    return Tokens(hashes, tok_a - offset, tok_b - offset, bounds)

