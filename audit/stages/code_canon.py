"""Code-aware canonical form: a code text as a stream of layout-free tokens with names erased.

Comments and docstrings are dropped, identifiers other than keywords and builtins become one
placeholder, string literals one class, numbers and operators stay. Two copies of a function
with renamed variables, other indentation and no comments give the same stream. A light lexer
(not Python's `tokenize`, which stops at the first line that is not Python) so prose around a
function and other C-like languages go through it too.
"""
from __future__ import annotations

import builtins
import keyword
import re
from collections.abc import Sequence

import numpy as np

from audit.normalize import Tokens, hash_word

_LEXER = re.compile(r'"""[\s\S]*?"""|\'\'\'[\s\S]*?\'\'\'|#[^\n]*|//[^\n]*|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\''
                    r"|[A-Za-z_]\w*|\d+(?:\.\d+)?|==|!=|<=|>=|\*\*|->|\+=|-=|[^\s\w]")
# A text is looked at as code only when it holds one of these (most prose never does); each
# pattern sits behind a plain substring test, which costs far less than a regex scan.
_CODE_SIGNS = (("def ", re.compile(r"\bdef \w+\([^\n]*\)[^\n]*:[ \t]*$", re.M)),
               ("return", re.compile(r"\n[ \t]+return\b")),
               ("{", re.compile(r"\)[ \t]*\{[ \t]*$", re.M)),
               ("function", re.compile(r"\bfunction\s*\w*\s*\(")))


def looks_like_code(text: str) -> bool:
    """Whether `text` holds a function definition, an indented return or a C-like block."""
    return any(sign in text and pattern.search(text) for sign, pattern in _CODE_SIGNS)


_KEEP = frozenset(keyword.kwlist) | frozenset(n for n in dir(builtins) if not n.startswith("_"))
_CACHE: dict[str, int] = {}


def _canon(tok: str) -> str | None:
    c = tok[0]
    if tok.startswith(('"""', "'''", "#", "//")):
        return None
    if c in "\"'":
        return "\x00S"
    if c.isalpha() or c == "_":
        return tok if tok in _KEEP else "\x00I"
    return tok


_RAW: dict[str, int] = {}  # raw token -> hash of its canonical form (0: dropped); bounded below
_RAW_MAX = 200_000


def _hash(tok: str) -> int:
    h = _RAW.get(tok)
    if h is None:
        c = _canon(tok)
        if c is None:
            h = 0
        else:
            h = _CACHE.get(c)
            if h is None:
                h = _CACHE[c] = hash_word(c) ^ 0xC0DE  # off the word hashes of the other tiers
        if len(_RAW) < _RAW_MAX:
            _RAW[tok] = h
    return h


def code_tokens(texts: Sequence[str | None]) -> Tokens:
    """The canonical code tokens of every text (none for texts that do not look like code)."""
    hashes: list[int] = []
    starts: list[int] = []
    ends: list[int] = []
    bounds = [0]
    for t in texts:
        if t and looks_like_code(t):
            ms = list(_LEXER.finditer(t))
            hs = [_RAW.get(m.group()) or _hash(m.group()) for m in ms]
            keep = [k for k, h in enumerate(hs) if h]
            hashes += [hs[k] for k in keep]
            starts += [ms[k].start() for k in keep]
            ends += [ms[k].end() for k in keep]
        bounds.append(len(hashes))
    return Tokens(np.array(hashes, dtype=np.uint64), np.array(starts, dtype=np.int64),
                  np.array(ends, dtype=np.int64), np.array(bounds, dtype=np.int64))
