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
# A text is looked at as code only when it holds one of these (most prose never does).
LOOKS_LIKE_CODE = re.compile(r"\bdef \w+\(|\breturn\b[^\n]*[()\[\]]|\bfor \w+ in \w|[{};]\s*\n|\bfunction\b")
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


def _hash(tok: str) -> int:
    h = _CACHE.get(tok)
    if h is None:
        h = _CACHE[tok] = hash_word(tok) ^ 0xC0DE  # off the word hashes of the other tiers
    return h


def code_tokens(texts: Sequence[str | None]) -> Tokens:
    """The canonical code tokens of every text (none for texts that do not look like code)."""
    hashes: list[int] = []
    starts: list[int] = []
    ends: list[int] = []
    bounds = [0]
    for t in texts:
        if t and LOOKS_LIKE_CODE.search(t):
            for m in _LEXER.finditer(t):
                c = _canon(m.group())
                if c is not None:
                    hashes.append(_hash(c))
                    starts.append(m.start())
                    ends.append(m.end())
        bounds.append(len(hashes))
    return Tokens(np.array(hashes, dtype=np.uint64), np.array(starts, dtype=np.int64),
                  np.array(ends, dtype=np.int64), np.array(bounds, dtype=np.int64))
