"""The language-neutral code key of the contamination stage (method "code_key"): a Python eval item
found in its C++, Go, Java, Rust or JavaScript port.

A port keeps what the program is about and changes the syntax: its identifiers (`has_close_elements`
becomes `hasCloseElements`), its literals, the example values of its docstring and tests, and the
functions it calls. The key of a code text is the bag of those, each made language-neutral:

- identifier pieces: identifiers split at snake_case and camelCase boundaries, lower-cased,
  without the keywords, type names and library boilerplate of the common languages and without
  one-letter pieces (`numbers`, `close`, `elements`, `threshold`); a library call known under
  several names across languages under one (`tolower`, `to_lowercase`, `toLowerCase` -> lower);
- number literals (`2.8`; a trailing `f`/`L`/type suffix dropped) and string literal contents;
- from comments and docstrings only their example lines (a call, `==`, `>>>` and the line after): example
  calls and values travel with a port, the prose is the word tiers' evidence.

An item's key is weighted by rarity among the indexed items (inverse document frequency), so
`result` or `0` count little and `close` or `2.8` much; an item is keyed three times, with and
without its docstring examples (a port may drop them), and by what a port written from scratch
keeps (`port_tokens`: the pieces of its functions' names and parameters, its literals and its
library calls; its locals are renamed and its body restructured), the best of them counts. The
port key is matched only where the record defines a function the item defines at its top level
(its interface: a helper nested in a solution, `is_prime`, is any program's) and, under a name of
one piece (`encode`, `median`), only with a literal of the item (a string, a number of two digits
or more) in the record. Only items that
define a named function are keyed, and a record is looked at only where it holds that name as
one identifier in any naming convention (`hasCloseElements` for `has_close_elements`), the
anchor that keeps clean code from matching by a few common words and small numbers. Records
that look like code (a wider test than the `code` tier's: `func`/`fn` definitions and blocks
opened at a line end count) are keyed the same way; coverage is the key weight of the item
present in the best window of the record's key tokens (_WINDOW times the item's key length)
over the item's key weight, with at least _MIN_KEYS distinct keys (one fewer where the record
defines the item's name of two or more key pieces: `int largest_divisor(int n)` keeps little
else of a three-line function). Order does not matter (a
port moves declarations and rewrites loops), names and values do (renamed code is the `code`
tier's).
"""
from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

# Syntax and boilerplate of Python, C, C++, Java, Go, Rust and JavaScript: no evidence of an item.
_STOP = frozenset("""
and as assert async await break case catch char class const continue def default del do double elif else
enum except extends false final finally float fn for from func function global go if impl import in include
instanceof int interface is lambda let long loop match mod mut namespace new nil none nonlocal not null or
package pass pub private protected public raise return self short signed sizeof static struct super switch
this throw throws trait true try type typedef typename union unsigned use using var vec void volatile where
while with yield bool boolean byte string str integer usize isize i8 i16 i32 i64 u8 u16 u32 u64 f32 f64
auto std vector list dict tuple set map array arraylist hashmap hashset optional typing any object main
stdio stdlib math algorithm iostream cstdlib cmath java util lang fmt println printf print sprintf solution
iter to into unwrap clone as_str len size length push append get rune range make of the a an
""".split())
# Comment and string regions: /* */, //, #, triple-quoted, double- and single-quoted (one line).
_REGION = re.compile(r'/\*[\s\S]*?\*/|"""[\s\S]*?"""|\'\'\'[\s\S]*?\'\'\'|//[^\n]*|#[^\n]*'
                     r'|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'')
_TOKEN = re.compile(r"[A-Za-z_][A-Za-z0-9_]*|\d+(?:\.\d+)?")
_PIECE = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+")
_EXAMPLE = re.compile(r">>>|==|\w\(")
# The name an item defines (its anchor: a port keeps it, in its own naming convention), and identifiers.
_DEFINED = re.compile(r"\b(?:def|function|func|fn)\s+([A-Za-z_]\w*)\s*[(<]")
_IDENT = re.compile(r"[A-Za-z_]\w*")
_TOP_DEFINED = re.compile(r"(?m)^(?:def|function|func|fn)\s+([A-Za-z_]\w*)\s*[(<]")
# A function's signature: its name and parameter list.
_SIGNATURE = re.compile(r"\b(?:def|function|func|fn)\s+[A-Za-z_]\w*\s*\([^)]*\)")
# An identifier of two or more pieces: an underscore between word characters, or a camelCase step.
_PIECE_BREAK = re.compile(r"[A-Za-z0-9]_+[A-Za-z0-9]|[a-z0-9][A-Z]")
# A function defined in a record: Python/JS/Go/Rust keywords, or a C-like name(params) {.
_RECORD_DEFINED = re.compile(r"\b(?:def|function|func|fn)\s+([A-Za-z_]\w*)|\b([A-Za-z_]\w*)\s*\([^()\n]*\)"
                             r"[ \t]*(?:const[ \t]*)?(?:->[^{\n]*)?(?:throws[^{\n]*)?\{")
# Records the key reads: the code tier's signs, plus Go/Rust definitions and blocks opened at a line end.
_SIGNS = (r"(?m)\bdef \w+\([^\n]*\)[^\n]*:[ \t]*$|\n[ \t]+return\b|\)[ \t]*\{[ \t]*$|\bfunction\s*\w*\s*\("
          r"|\b(?:func|fn)\s+\w+\s*[(<]|[)\w>\]][ \t]*\{[ \t]*$")
# A pair is checked in windows of this many times the item's key tokens (and at least _MIN_WINDOW) ...
_WINDOW = 2.5
_MIN_WINDOW = 40
# ... and counts with at least this many distinct keys of the item found there, one-digit numbers
# not counted (0, 1, 2 are in any code).
_MIN_KEYS = 3
# A one-word defined name shorter than this (`f`, `add`) anchors nothing: too many programs define it.
_MIN_NAME = 4
# An item with fewer distinct keys than this is not indexed (a one-line body says too little), and
# its port key (port_tokens: matched only where a record defines its name) with fewer than this.
_MIN_ITEM_KEYS = 5
_MIN_PORT_KEYS = 3


def looks_like_any_code(texts: Sequence[str | None] | pa.Array | pa.ChunkedArray) -> np.ndarray:
    """Per text, whether the key reads it (one vectorised regex pass; None: False)."""
    arr = texts if isinstance(texts, (pa.Array, pa.ChunkedArray)) else pa.array(list(texts), pa.string())
    if len(arr) == 0:
        return np.zeros(0, dtype=bool)
    return pc.fill_null(pc.match_substring_regex(arr, _SIGNS), False).to_numpy(zero_copy_only=False)


# The one call of the languages' libraries under its several names: a piece -> its common key.
_CALLS = {"tolower": "lower", "lowercase": "lower", "lowercased": "lower", "toupper": "upper",
          "uppercase": "upper", "uppercased": "upper", "reversed": "reverse", "rev": "reverse",
          "sorted": "sort", "isdigit": "digit", "isnumeric": "digit", "isalpha": "alpha",
          "isalphabetic": "alpha", "isupper": "upper", "islower": "lower", "startswith": "starts",
          "endswith": "ends", "strip": "trim", "abs": "abs", "fabs": "abs", "sqrt": "sqrt", "pow": "pow"}
_CALL_KEYS = frozenset(_CALLS.values())


def _code_keys(code: str, base: int, out: list[tuple[str, int, int]]) -> None:
    """Identifier pieces (library calls under one name, `_CALLS`) and numbers of a stretch of code
    (no comments or strings in it)."""
    for m in _TOKEN.finditer(code):
        tok = m.group()
        a = base + m.start()
        if tok[0].isdigit():
            out.append(("#" + tok, a, base + m.end()))
            continue
        for p in _PIECE.finditer(tok):
            piece = p.group().lower()
            if len(piece) > 1 and piece not in _STOP and not piece.isdigit():
                out.append((_CALLS.get(piece, piece), a + p.start(), a + p.end()))
            elif piece.isdigit():
                out.append(("#" + piece, a + p.start(), a + p.end()))


def key_tokens(text: str, examples: bool = True) -> list[tuple[str, int, int]]:
    """The code key of `text` in order: (key, start, end) with character offsets. Keys: identifier
    pieces, "#<number>", "'<string contents>" (lower-cased); `examples`: with the example lines
    of comments and docstrings."""
    out: list[tuple[str, int, int]] = []
    at = 0
    for m in _REGION.finditer(text):
        _code_keys(_without_number_suffixes(text[at:m.start()]), at, out)
        region = m.group()
        if region[0] in "\"'" and not region.startswith(('"""', "'''")):
            body = region[1:-1].strip().lower()
            if body:
                out.append(("'" + body, m.start(), m.end()))
        elif examples:  # a comment or docstring: its example lines only (a call, and the line after `>>>`)
            pos, after_prompt = 0, False
            for line in region.split("\n"):
                if after_prompt or _EXAMPLE.search(line):
                    _code_keys(line, m.start() + pos, out)
                after_prompt = ">>>" in line
                pos += len(line) + 1
        at = m.end()
    _code_keys(_without_number_suffixes(text[at:]), at, out)
    return out


def port_tokens(text: str) -> list[tuple[str, int, int]]:
    """The part of the code key of `text` that a port written from scratch keeps: the pieces of each
    defined function's name and parameters, and the literals and the library calls of its code
    (a port renames its locals and restructures its body, but keeps its signature, its constants
    and what it calls)."""
    out: list[tuple[str, int, int]] = []
    for m in _SIGNATURE.finditer(text):
        _code_keys(m.group(), m.start(), out)
    calls = _CALL_KEYS
    out += [t for t in key_tokens(text, False) if t[0][0] in "#'" or t[0] in calls]
    return sorted(out, key=lambda t: t[1])


def _without_number_suffixes(code: str) -> str:
    """`code` with the type suffixes of number literals (1.0f, 10L, 3u) blanked, offsets kept."""
    return re.sub(r"(?<=\d)[fFlLuU]+\b", lambda m: " " * len(m.group()), code)


@dataclass
class CodeKeyIndex:
    """The keyed items: per entry (an item's key with or without its docstring examples) its
    distinct keys (ids into `vocab`) with rarity weights, and per item its anchor (the name it defines)."""

    vocab: dict[str, int]
    words: list[str]          # key of each id
    weight: np.ndarray        # float32, per key
    strong: np.ndarray        # bool, per key: evidence of its own (not a one-digit number)
    entry_item: np.ndarray    # int32, the item of each entry
    entry_total: np.ndarray   # float64, per entry: its distinct keys' weight
    entry_size: np.ndarray    # int32, per entry: its key tokens (the window is sized to it)
    entry_keys: list[dict[int, tuple[int, int]]]  # per entry: key id -> its first [start, end) in the item
    anchors: dict[str, list[int]]  # each defined name (underscores dropped, lower-cased) -> its entries
    anchor_regex: str = ""  # RE2: any defined name in any naming convention (the records' prefilter)
    multi_piece: frozenset[str] = frozenset()  # the anchors of two or more key pieces (not is_prime: "is" is none)
    entry_port: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=bool))  # per entry: a port's key (port_tokens)
    top_anchors: dict[str, list[int]] = field(default_factory=dict)  # names defined at the top level -> their port entries

    @classmethod
    def build(cls, texts: Sequence[str], code: np.ndarray) -> "CodeKeyIndex | None":
        """Key the items `code` (bool per item) of `texts` that define a named function (every name
        an item defines is its anchor); None when none has enough keys."""
        vocab: dict[str, int] = {}
        spelled: set[str] = set()
        entries: list[tuple[int, set[str], int, dict[int, tuple[int, int]]]] = []
        for i, t in enumerate(texts):
            defined = set(_DEFINED.findall(t)) if code[i] else set()
            names = {_anchor(n) for n in defined}
            if not names:
                continue
            spelled.update(defined)
            seen: set[frozenset[int]] = set()
            body = key_tokens(t, False)
            # with its docstring's examples, without them, and what a port from scratch keeps (its
            # window as wide as the item's code)
            for toks, size in ((key_tokens(t, True), 0), (body, 0), (port_tokens(t), len(body))):
                keys: dict[int, tuple[int, int]] = {}
                for k, a, b in toks:
                    keys.setdefault(vocab.setdefault(k, len(vocab)), (a, b))
                port = size > 0
                if len(keys) >= (_MIN_PORT_KEYS if port else _MIN_ITEM_KEYS) and frozenset(keys) not in seen:
                    seen.add(frozenset(keys))
                    entries.append((i, names, size or len(toks), keys, port))
        if not entries:
            return None
        items = len({e[0] for e in entries})
        df = np.zeros(len(vocab), dtype=np.int64)
        for k in {(e[0], k) for e in entries for k in e[3]}:
            df[k[1]] += 1
        weight = (np.log((items + 1) / (df + 1)) + 0.1).astype(np.float32)
        anchors: dict[str, list[int]] = {}
        top_anchors: dict[str, list[int]] = {}
        for n, e in enumerate(entries):
            for name in e[1]:
                anchors.setdefault(name, []).append(n)
            if e[4]:
                for name in {_anchor(m) for m in _TOP_DEFINED.findall(texts[e[0]])}:
                    top_anchors.setdefault(name, []).append(n)
        strong = np.array([not (k[0] == "#" and len(k) == 2) for k in vocab], dtype=bool)
        return cls(vocab, list(vocab), weight, strong, np.array([e[0] for e in entries], dtype=np.int32),
                   np.array([float(weight[list(e[3])].sum()) for e in entries]),
                   np.array([e[2] for e in entries], dtype=np.int32), [e[3] for e in entries], anchors,
                   _anchor_regex(spelled), frozenset(_anchor(n) for n in spelled if len(key_tokens(n)) >= 2),
                   np.array([e[4] for e in entries], dtype=bool), top_anchors)

    def maybe(self, texts: pa.Array | pa.ChunkedArray) -> np.ndarray:
        """Per text, whether it may hold a defined name of an item in any naming convention (one
        RE2 pass over the Arrow array; False: surely no match)."""
        if len(texts) == 0:
            return np.zeros(0, dtype=bool)
        return pc.fill_null(pc.match_substring_regex(texts, self.anchor_regex), False).to_numpy(zero_copy_only=False)

    def matches(self, text: str, floor: float) -> Iterable[tuple[int, float, list[list[int]], list[list[int]], list[str]]]:
        """(item, coverage, record spans, item spans (unmerged), evidence) of each entry whose
        item's name the record holds (see `named`) and whose key covers at least `floor` of
        its weight in one window of `text`."""
        # A one-word name (`fib`, `median`) anchors only where the record defines it; a longer one
        # (`has_close_elements`) wherever it stands as one identifier.
        # each distinct identifier once (a page of code repeats its names many times); the costly
        # search for definitions only where a one-word name of an item stands at all
        idents = set(_IDENT.findall(text))
        named = {_anchor(m) for m in idents if _PIECE_BREAK.search(m)}
        if {m.lower() for m in idents} & self.anchors.keys():
            named |= {n for n in (_anchor(a or b) for a, b in set(_RECORD_DEFINED.findall(text))) if len(n) >= _MIN_NAME}
        cand = sorted({e for name in named & self.anchors.keys() for e in self.anchors[name]})
        if not cand:
            return
        # an item's name of two or more pieces defined here (a port's own definition of it) asks
        # one key fewer: a short function keeps little more than its name and parameters
        defined = {_anchor(a or b) for a, b in set(_RECORD_DEFINED.findall(text))}
        own = {e for name in defined & self.multi_piece & self.anchors.keys() for e in self.anchors[name]}
        # a port's key (a signature and a few literals) only where the record defines a function
        # the item defines at its top level (its interface; a helper nested in a solution, such as
        # `is_prime`, is any program's)
        here = {e for name in defined & self.top_anchors.keys() if len(name) >= _MIN_NAME for e in self.top_anchors[name]}
        cand = [e for e in cand if not self.entry_port[e] or e in here]
        toks = [(self.vocab.get(k, -1), a, b) for k, a, b in key_tokens(text)]
        toks = [t for t in toks if t[0] >= 0]
        ids = np.array([k for k, _, _ in toks], dtype=np.int64)
        held = set(ids.tolist())
        for e in cand:
            # a port key under a name of one piece (`encode`, `solve`: many programs define one) asks
            # for a literal of the item too (a string, a number of two digits or more)
            if self.entry_port[e] and e not in own and not any(
                    self.words[k][0] == "'" or self.words[k][0] == "#" and len(self.words[k]) > 2
                    for k in held.intersection(self.entry_keys[e])):
                continue
            best = self._best_window(e, ids, toks, _MIN_KEYS - 1 if e in own or self.entry_port[e] else _MIN_KEYS)
            if best is not None and best[0] >= floor:
                yield (int(self.entry_item[e]), *best)

    def _best_window(self, e: int, ids: np.ndarray, toks: list[tuple[int, int, int]], min_keys: int = _MIN_KEYS
                     ) -> tuple[float, list[list[int]], list[list[int]], list[str]] | None:
        """The window of the record's key tokens holding most of entry `e`'s key weight, with
        `min_keys` distinct strong keys."""
        mine = self.entry_keys[e]
        at = np.flatnonzero(np.isin(ids, np.fromiter(mine, dtype=np.int64, count=len(mine))))
        if len(np.unique(ids[at])) < min_keys:
            return None
        width = max(_MIN_WINDOW, int(_WINDOW * self.entry_size[e]))
        best, best_at = -1.0, (0, 0)
        a = 0
        for b in range(len(at)):  # maximal windows [at[a], at[b]] of fewer than `width` key tokens
            while at[b] - at[a] >= width:
                a += 1
            if b == len(at) - 1 or at[b + 1] - at[a] >= width:
                w = float(self.weight[np.unique(ids[at[a:b + 1]])].sum())
                if w > best:
                    best, best_at = w, (a, b)
        hits = at[best_at[0]:best_at[1] + 1]
        keys = np.unique(ids[hits])
        if int(self.strong[keys].sum()) < min_keys:
            return None
        rare = sorted(keys.tolist(), key=lambda k: -float(self.weight[k]))[:8]
        evidence = ["keys " + " ".join(self.words[k] for k in rare) + f" ({len(keys)} of {len(mine)})"]
        return (best / float(self.entry_total[e]), [[toks[int(hits[0])][1], toks[int(hits[-1])][2]]],
                [list(mine[int(k)]) for k in keys.tolist()], evidence)


def _anchor_regex(names: set[str]) -> str:
    """RE2 for the records that may hold one of `names` as an anchor: a name of two or more pieces
    in any naming convention, a one-word name where a function of that name is defined."""
    loose, defined = set(), set()
    for n in names:
        pieces = [p.group().lower() for p in _PIECE.finditer(n)]
        if len(pieces) > 1:
            loose.add("_*".join(pieces))
        elif len(_anchor(n)) >= _MIN_NAME:
            defined.add(_anchor(n))
    alt = []
    if loose:
        alt.append("|".join(sorted(loose)))
    if defined:
        words = "|".join(sorted(defined))
        alt.append(rf"\b(?:def|function|func|fn)\s+(?:{words})\b|\b(?:{words})\s*\([^()\n]*\)[^{{;\n]*\{{")
    return "(?i)" + "|".join(alt) if alt else r"[^\s\S]"  # no name: matches nothing


def _anchor(name: str) -> str:
    """A defined name in any naming convention: has_close_elements, hasCloseElements -> hascloseelements."""
    return name.replace("_", "").lower()
