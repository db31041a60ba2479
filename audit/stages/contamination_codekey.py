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

Two ways to match, the better counts:

1. The key window. An item's key is weighted by rarity among the indexed items (inverse document
   frequency; a one-digit number at most _SMALL_NUMBER_WEIGHT: rare among the items, common in any
   code), so `result` or `0` count little and `close` or `2.8` much; an item is keyed twice, with
   and without its docstring examples (a port may drop them). Coverage is the key weight of the
   item present in the best window of the record's key tokens (_WINDOW times the item's key
   length) over the item's key weight, with at least _MIN_KEYS distinct strong keys (one fewer
   where the record defines the item's name of two or more key pieces) of which all but one are
   not the pieces of the item's names, and those other keys covering _REST_SHARE of their weight
   (a library defining `generate_integers` next to a 10 is no port). Order does not matter (a port
   moves declarations and rewrites loops), names and values do (renamed code is the `code` tier's).
2. The signature (what a port written from scratch keeps: its locals are renamed, its body
   restructured). Each function an item defines at its top level (its interface: a helper nested
   in a solution, `is_prime`, is any program's) is parsed into its name, its parameters' names and
   written types and its return type, made language-neutral (`List[float]`, `vector<float>`,
   `[]float64`, `Vec<f32>`: list:float); a record's definitions in Python, JavaScript, Go, Rust or
   a C-like language are parsed the same way. A definition of the item's name (any naming
   convention) with its parameter count scores the name's evidence (several pieces more than one
   word, a short word least), each parameter of the same name, each type of the same class (one of
   another kind counts against), the item's literals and library calls in the record, each of
   its docstring examples (`>>> f(3)` then `5`) found called with the same arguments and the
   expected value on the line (an assert, a test, a print), and the rare words of its docstring
   in the comments and docstrings about the definition (a model's port restates the docstring as
   a comment; counted where the name or a parameter already points at the item); the score is
   read as a coverage that is 0.5 at _SIGNATURE_SCORE (`signature_coverage`). A C port's
   parameters are also read as a C programmer writes them (`_c_readings`): without the length
   after an array or a string (`const double *numbers, int size`) and without the pointers it
   writes its results to at the end (`int *out`, `int *returnSize`; not `const`). The evidence
   names each part, the reading and the score.

Only items that define a named function are keyed, and a record is looked at only where it
defines that name in any naming convention (`hasCloseElements` for `has_close_elements`): the
anchor that keeps clean code from matching by a few common words and small numbers (a name only
mentioned, a header's declaration, an argument, is none). Records that look like code (a wider
test than the `code` tier's: `func`/`fn` definitions and blocks opened at a line end count) are
read; an RE2 prefilter over the Arrow array keeps the others out.
"""
from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from audit.stages.contamination_rewrite import STOP_WORDS as _PROSE_STOP
from audit.stages.contamination_rewrite import stem_words

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
# ... of which the keys that are not the pieces of the item's names at least this share of theirs ...
_REST_SHARE = 0.35
# ... and a one-digit number weighs at most this (rare among the items, common in any code).
_SMALL_NUMBER_WEIGHT = 0.3


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


@lru_cache(maxsize=1 << 16)  # a page of code repeats its identifiers: most tokens are repeats
def _token_keys(tok: str) -> tuple[tuple[str, int, int], ...]:
    """The keys of one identifier or number token: (key, start, end) within it (see `_code_keys`)."""
    if tok[0].isdigit():
        return (("#" + tok, 0, len(tok)),)
    out = []
    for p in _PIECE.finditer(tok):
        piece = p.group().lower()
        if len(piece) > 1 and piece not in _STOP and not piece.isdigit():
            out.append((_CALLS.get(piece, piece), p.start(), p.end()))
        elif piece.isdigit():
            out.append(("#" + piece, p.start(), p.end()))
    return tuple(out)


def _code_keys(code: str, base: int, out: list[tuple[str, int, int]]) -> None:
    """Identifier pieces (library calls under one name, `_CALLS`) and numbers of a stretch of code
    (no comments or strings in it)."""
    for m in _TOKEN.finditer(code):
        a = base + m.start()
        for key, ka, kb in _token_keys(m.group()):
            out.append((key, a + ka, a + kb))


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
    """The keys of `text` that a port written from scratch keeps besides its signature: its literals
    (strings, numbers) and its library calls (a port renames its locals and restructures its body,
    but keeps its constants and what it calls)."""
    return [t for t in key_tokens(text, False) if t[0][0] in "#'" or t[0] in _CALL_KEYS]


def _without_number_suffixes(code: str) -> str:
    """`code` with the type suffixes of number literals (1.0f, 10L, 3u) blanked, offsets kept."""
    return re.sub(r"(?<=\d)[fFlLuU]+\b", lambda m: " " * len(m.group()), code)


# --- Signatures: a function's interface in any of the languages (its name, its parameters' names
# and written types, its return type), the part of an item a port written from scratch keeps ---
# Words followed by `(` that define nothing (control flow, operators, output).
_NOT_DEF = frozenset("if for while switch catch return sizeof elif else do with when match foreach using lock "
                     "synchronized new throw assert typeof defined alignof decltype static_assert and or not in "
                     "print println printf".split())
# The head of a definition: a keyword one (Go's receiver skipped), a JavaScript assignment or property
# (`name = (a, b) =>`, `name: function (a)`), or a C-like `name(` (checked further below).
_DEF_HEAD_OF = (r"\b(def|function|func|fun|fn)\s+(?:\([^()]*\)\s*)?({name})\s*(?:<[^<>(){{}};]*>\s*)?\("
                r"|\b({name})\s*[=:]\s*(?:async\s+)?(?:function\s*\w*\s*)?\("
                r"|\b({name})\s*(?:<[^<>(){{}};\n]*>\s*)?\(")
_DEF_HEAD = re.compile(_DEF_HEAD_OF.format(name=r"[A-Za-z_]\w*"))
# What follows a C-like definition's parameters (C, C++, Java, C#, JavaScript methods), and an arrow function's.
_AFTER_C = re.compile(r"\s*(?:const\s*)?(?:noexcept\s*)?(?:override\s*)?(?:throws\s+[\w.,\s]+?)?(?:->\s*[^{;\n]+?)?\s*\{")
_AFTER_ARROW = re.compile(r"\s*(?::\s*[^=;\n{]+)?\s*=>")
_MODIFIERS = frozenset("public private protected static final inline virtual extern const constexpr unsigned signed "
                       "struct override async pub mut export default abstract synchronized native unsafe".split())
_TYPE_WORDS = {"int": "int long short i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 usize isize integer int8 int16 int32 "
                      "int64 uint uint8 uint16 uint32 uint64 size_t number bigint biginteger",
               "float": "float double f32 f64 float32 float64 decimal real",
               "str": "str string stringbuilder char rune", "bool": "bool boolean"}
_SCALAR = {w: cls for cls, ws in _TYPE_WORDS.items() for w in ws.split()}
_LIST = frozenset("list vector vec arraylist array slice sequence iterable deque linkedlist".split())
_MAP = frozenset("dict map hashmap unordered_map treemap mapping dictionary".split())
_TUPLE = frozenset("tuple pair".split())
# Signature evidence (a sum; a port's definition is counted at _SIGNATURE_SCORE): the name by its
# pieces (a name of several pieces is rarer in real code than one word, a short word the commonest),
# the same parameter count, each parameter of the same name (a one- or two-letter one counts less, as
# does one shortened in the port: `string` -> `str`),
# each written type of the same class (int, float, str, bool, list of X, map, tuple) and the return
# type, a type of another kind against it; then the item's literals and library calls the record
# holds, and each of its docstring examples called with the same arguments and the expected value on
# the line (the arguments alone count little).
_NAME_SCORE = {3: 2.5, 2: 2.0}
_ARGC_SCORE = 0.3
_PARAM_SCORE, _SHORT_PARAM_SCORE, _SHORTENED_PARAM_SCORE = 1.0, 0.3, 0.5
_TYPE_SCORE, _TYPE_CLASH = 0.4, -1.0
_LITERAL_SCORE, _LITERALS_MAX = 0.5, 1.5
_CALL_SCORE, _CALLS_MAX = 0.2, 0.6
_EXAMPLE_SCORE, _ARGS_SCORE, _EXAMPLES_MAX = 2.0, 0.4, 4.0
_SIGNATURE_SCORE = 2.7
# ... and the item's docstring in the comments and docstrings about the record's definition (a port's
# comment restates the docstring, a summary of it): the rarity weight (inverse document frequency
# among the items' docstrings) of the item's word stems found there, _PROSE_SCORE at _PROSE_FULL
# (three words of one docstring in a hundred) and over, with at least _PROSE_WORDS of them of weight
# _PROSE_RARE or more (in at most an eighth of the docstrings: not `return`, `list`, `result`); read
# within _PROSE_BEFORE characters before the definition (a JavaScript or C comment) and
# _PROSE_AFTER after its head (a Python docstring).
_PROSE_SCORE, _PROSE_FULL, _PROSE_WORDS, _PROSE_RARE = 2.0, 12.0, 2, 2.0
_PROSE_BEFORE, _PROSE_AFTER = 600, 1200
_PROSE_OPENERS = ("#", "//", "/*", '"""', "'''")
_WORD = re.compile(r"[a-z]{3,}")


def type_class(written: str) -> str | None:
    """The language-neutral class of a written type: int, float, str, bool, list[:element class],
    map, tuple or other; None when no type is written (`List[float]`, `vector<double>`, `[]float64`
    and `Vec<f32>` are all list:float)."""
    written = written.strip()
    if written.startswith("[") and written.endswith("]") and len(written) > 2:  # Swift: [Double], [String: Int]
        written = ("map" if ":" in written else "[]") + " " + written[1:-1]
    words = [w.lower() for w in re.findall(r"[A-Za-z_]\w*|\[\]|\*", written)]
    if "*" in words:  # C: a pointer to a scalar is an array of it (char * a string, char ** an array of strings)
        arrays = words.count("*") - bool({"char", "void"} & set(words))
        words = [w for w in words if w != "*"] + (["[]"] if arrays > 0 else [])
    words = [w for w in words if w not in _MODIFIERS and w not in ("std", "java", "util", "optional", "option")]
    if not words:
        return None
    for k, w in enumerate(words):
        if w in _LIST or w == "[]":
            rest = [x for x in words[:k] + words[k + 1:] if x != "[]"]
            if any(x in _LIST for x in rest):
                return "list:list"
            element = next((_SCALAR[x] for x in rest if x in _SCALAR), None)
            return "list:" + element if element else "list"
        if w in _MAP:
            return "map"
        if w in _TUPLE:
            return "tuple"
    return next((_SCALAR[x] for x in words if x in _SCALAR), "other")


def _type_score(item: str | None, record: str | None) -> float:
    """The evidence of a record's written type against the item's (nothing where either is unwritten;
    int against float is a port's choice, not a clash)."""
    if not item or not record:
        return 0.0
    if item == record or item.startswith("list") and record.startswith("list") and "list" in (item, record):
        return _TYPE_SCORE
    # int for float, a tuple as a list or an array, a container type of the port's own (`list_any`
    # for List[Any]): a port's choices, no clash; a type of its own for a number or a string is one
    kinds = {item.split(":")[0], record.split(":")[0]}
    if {item, record} <= {"int", "float"} or len(kinds) == 1 or kinds == {"tuple", "list"} or \
            "other" in kinds and kinds & {"list", "map", "tuple"}:
        return 0.0
    return _TYPE_CLASH


@dataclass
class Signature:
    """A function defined in a text: its name as written, its parameters (anchor form: no
    underscores, lower case), their type classes and its return type's (None: not written), and
    its [start, end) in the text."""

    name: str
    params: list[str]
    types: list[str | None]
    returns: str | None
    start: int
    end: int
    outs: list[bool] = field(default_factory=list)  # per parameter: a C-like pointer or reference not const


def _close_paren(text: str, at: int, limit: int = 600) -> int:
    """The index of the `)` closing a `(` just before `at`, or -1 (none within `limit`, or a `;`, `{` or `}` first)."""
    depth = 1
    for k in range(at, min(len(text), at + limit)):
        c = text[k]
        if c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
            if depth == 0:
                return k
        elif c == ";" or c in "{}" and text[k:k + 2] != "{}" and text[k - 1:k + 1] != "{}":
            return -1  # a statement or a block before the parenthesis closes (Go's `interface{}` is neither)
    return -1


def _split_params(params: str) -> list[str]:
    """The parameters of a parameter list (commas inside <>, [], (), {} do not split)."""
    out, depth, cur = [], 0, []
    for c in params:
        depth += (c in "<[({") - (c in ">])}")
        if c == "," and depth <= 0:
            out.append("".join(cur))
            cur = []
        else:
            cur.append(c)
    out.append("".join(cur))
    return [p.strip() for p in out if p.strip()]


def _param(param: str, kind: str) -> tuple[str, str]:
    """(name, written type) of one parameter in the language of a `kind` of definition (def: Python,
    fn: Rust, fun: Kotlin, func: Go or Swift, function/arrow: JavaScript, TypeScript or PHP, c: C,
    C++, Java, C#)."""
    p = re.sub(r"^@\w+(?:\([^)]*\))?\s*", "", re.sub(r"=[^=>].*$", "", param)).strip()
    if kind in ("def", "fn", "fun") or ":" in p and kind in ("function", "arrow", "func"):
        # Python, Rust, Kotlin, TypeScript, Swift: `name: type` (Swift's argument label before it)
        name, _, typ = p.partition(":")
        names = re.findall(r"[A-Za-z_]\w*", name.replace("mut ", ""))
        return (names[-1] if names else ""), typ
    if kind == "func":
        words = p.split(None, 1)
        return words[0], words[1] if len(words) > 1 else ""
    # C, C++, Java, C#, JavaScript, PHP: the last name (`int n`, `array $xs`, `n`)
    names = [m for m in re.finditer(r"[A-Za-z_]\w*", p) if m.group() not in _MODIFIERS]
    if not names:
        return "", ""
    last = names[-1]
    return last.group(), p[:last.start()] + p[last.end():]


def defined_signatures(text: str, names: set[str] | frozenset[str] | None = None,
                       spelled: Iterable[str] | None = None) -> list[Signature]:
    """Every function `text` defines, in Python, JavaScript, Go, Rust or a C-like language, with its
    parameters and types; `names`: only those whose anchor (`_anchor`) is one of them; `spelled`:
    only those spelled so (the record's identifiers of those names: one scan for them alone)."""
    out = []
    head = _DEF_HEAD if spelled is None else re.compile(_DEF_HEAD_OF.format(
        name="|".join(sorted(map(re.escape, spelled), key=len, reverse=True))))
    for m in head.finditer(text):
        kind, name = m.group(1), m.group(2)
        if name is None:
            name = m.group(3) or m.group(4)
            kind = "arrow" if m.group(3) else "c"
        if name in _NOT_DEF or names is not None and _anchor(name) not in names:
            continue
        if kind == "c" and m.start() > 0 and text[m.start() - 1] in ".:>":  # a method called, not defined
            continue
        close = _close_paren(text, m.end())
        if close < 0:
            continue
        after = text[close + 1:close + 200]
        returns = ""
        if kind == "arrow":
            if not _AFTER_ARROW.match(after) and "function" not in m.group():
                continue
        elif kind == "c":
            line = text[text.rfind("\n", 0, m.start()) + 1:m.start()]
            if not _AFTER_C.match(after) or re.search(r"[=;(),]|\breturn\b|\bnew\b", re.sub(r"<[^<>]*>", "", line)):
                continue
            arrow = re.match(r"[^{]*?->([^{]*)\{", after)
            returns = arrow.group(1) if arrow else line
        elif kind in ("def", "fn", "fun", "function"):  # Python, Rust: -> T; Kotlin, TypeScript: `): T {`
            r = re.match(r"\s*->\s*([^:{\n]+)" if kind in ("def", "fn") else r"[ \t]*:[ \t]*([^{=\n]+)", after)
            returns = r.group(1) if r else ""
        elif kind == "func":
            r = re.match(r"\s*(?:->)?([^{\n]*)\{", after)
            returns = r.group(1) if r else ""
        params, types, outs = [], [], []
        for p in _split_params(text[m.end():close]):
            n, t = _param(p, kind)
            if n in ("self", "cls", "this") or "self" in p and p.startswith("&"):
                continue
            params.append(_anchor(n.strip("&*[] ")))
            types.append(t)
            # a C port returns what does not fit its return type through pointers it writes to
            outs.append(kind == "c" and bool(re.search(r"[*&]", p)) and not re.search(r"\bconst\b", p))
        if kind == "func":  # Go: `a, b int` gives both the type written last
            for k in range(len(types) - 2, -1, -1):
                types[k] = types[k] if types[k].strip() else types[k + 1]
        out.append(Signature(name, params, [type_class(t) if t.strip() else None for t in types],
                             type_class(returns) if returns.strip() else None, m.start(), close + 1, outs))
    return out


# Literal values of an example (numbers without a fraction of zeros, strings' contents, booleans).
_LITERAL = re.compile(r'-?\d+(?:\.\d+)?|"((?:\\.|[^"\\\n])*)"|\'((?:\\.|[^\'\\\n])*)\'|\b(?:true|false)\b', re.I)
# What puts an example's expected value after its call on the same line.
_EXPECTS = re.compile(r"==>?|➞|=>|->|\bshould return\b|\breturns?\b|(?<![<>!=])=(?!=)")


def _literals(text: str) -> tuple[str, ...]:
    """The literal values of `text` in order, language-neutral (2.0 and 2 alike, strings unquoted)."""
    out = []
    for m in _LITERAL.finditer(text):
        v = m.group()
        if v[0] in "\"'":
            out.append("'" + (m.group(1) if m.group(1) is not None else m.group(2) or ""))
        elif v[-1].isdigit():
            out.append(v.rstrip("0").rstrip(".") if "." in v else v)
        else:
            out.append(v.lower())
    return tuple(out)


def _calls(text: str, name: str) -> Iterable[tuple[int, int, int]]:
    """(start of the name, start, end of the arguments) of each call of `name` (any naming convention) in `text`."""
    for m in re.finditer(r"\b([A-Za-z_]\w*)\s*\(", text):
        if _anchor(m.group(1)) == name:
            close = _close_paren(text, m.end(), 2000)
            if close > 0:
                yield m.start(), m.end(), close


def docstring_examples(text: str, name: str) -> list[tuple[tuple[str, ...], tuple[str, ...]]]:
    """(argument literals, expected literals) of each example call of `name` in the docstrings and
    comments of `text` (`>>> f(3)` and the line after it; `f(3) == 5`, `f(3) ➞ 5`, `f(3) should return 5`)."""
    out = []
    for region in _REGION.finditer(text):
        if region.group()[0] not in "#/\"'" or not region.group().startswith(("#", "//", "/*", '"""', "'''")):
            continue
        lines = region.group().split("\n")
        for k, line in enumerate(lines):
            for _, a, b in _calls(line, name):
                args = _literals(line[a:b])
                if not args:
                    continue
                rest = line[b + 1:]
                said = _EXPECTS.search(rest)
                if said:
                    expected = _literals(rest[said.end():])
                elif ">>>" in line and k + 1 < len(lines):
                    expected = _literals(lines[k + 1])
                else:
                    expected = ()
                out.append((args, expected))
    return out


def prose_stems(text: str) -> set[str]:
    """The word stems (`stem_words`, no function words) of the comments and docstrings of `text`: what a
    port keeps of a docstring when it rewrites it as a comment in other words."""
    words = [w for region in _REGION.finditer(text) if region.group().startswith(_PROSE_OPENERS)
             for w in _WORD.findall(region.group().lower())]
    return {st for st in stem_words([w for w in words if w not in _PROSE_STOP]) if len(st) >= 3}


def _holds(seq: tuple[str, ...], part: tuple[str, ...]) -> bool:
    """Whether `part` is a contiguous run of `seq`."""
    n = len(part)
    return any(seq[k:k + n] == part for k in range(len(seq) - n + 1))


def _outermost(text: str, sigs: list[Signature]) -> list[Signature]:
    """The least indented of `sigs` (the methods of a class), where `text` has a line at its left
    margin (a fragment of a solution, indented throughout, defines only nested helpers)."""
    if not sigs or not re.search(r"(?m)^\S", text):
        return []
    lines = {id(s): text[text.rfind("\n", 0, s.start) + 1:s.start] for s in sigs}
    indent = {k: len(line) - len(line.lstrip()) for k, line in lines.items()}
    least = min(indent.values())
    return [s for s in sigs if indent[id(s)] == least]


@dataclass
class ItemSignature:
    """A function an item defines at its top level (its interface), with what a port of it keeps
    besides: its literals and library calls (keys of `port_tokens`) and its docstring examples."""

    item: int
    signature: Signature
    name_score: float
    literals: frozenset[str]
    calls: frozenset[str]
    examples: list[tuple[tuple[str, ...], tuple[str, ...]]]
    prose: dict[str, float] = field(default_factory=dict)  # its docstring's word stems, by rarity among the items


def signature_coverage(score: float) -> float:
    """A signature score read as a coverage: 0.5 at _SIGNATURE_SCORE, each _SIGNATURE_SCORE more
    halving what is left to 1 (never 1: a signature is never the whole item)."""
    return 1.0 - 0.5 ** (max(score, 0.0) / _SIGNATURE_SCORE)


def _name_score(name: str) -> float:
    """The evidence of a defined name alone: by its pieces, and a one-word name by its length."""
    pieces = len(_PIECE.findall(name))
    if pieces > 1:
        return _NAME_SCORE[min(pieces, 3)]
    n = len(_anchor(name))
    return 1.5 if n >= 7 else 1.2 if n >= 5 else 1.0 if n == 4 else 0.6


def signature_score(item: ItemSignature, record: Signature, text: str, keys: set[str]
                    ) -> tuple[float, list[str]] | None:
    """The evidence that `record` (a definition in `text`, whose code keys are `keys`) is a port of
    `item`'s function, with its parts named (its best reading, `_c_readings`); None where no reading
    of the record's parameters has the item's count."""
    s = item.signature
    readings = _c_readings(record, len(s.params))
    if not readings:
        return None
    lo = text.rfind("\n", 0, max(0, record.start - _PROSE_BEFORE)) + 1
    said = prose_stems(text[lo:record.end + _PROSE_AFTER]) if item.prose else set()
    got = [_aligned_score(item, record, text, keys, params, types, said) for params, types in readings]
    return max(got, key=lambda g: g[0])


def _c_readings(record: Signature, count: int) -> list[tuple[list[str], list[str | None]]]:
    """The record's (parameters, types) read with `count` parameters: as written, or as a C port
    writes them, each array's or string's length after it dropped (`float l[], int n`), the pointers
    it writes its results to dropped from the end (`int *out`), or both."""
    params, types, outs = record.params, record.types, record.outs or [False] * len(record.params)
    if len(params) <= count:
        return [(params, types)] if len(params) == count else []
    length = [k for k in range(1, len(params)) if types[k] == "int" and (types[k - 1] or "").startswith(("list", "str"))]
    out: list[tuple[list[str], list[str | None]]] = []
    for keep in ([k for k in range(len(params)) if k not in length], list(range(len(params)))):
        while len(keep) > count and outs[keep[-1]]:
            keep = keep[:-1]
        reading = ([params[k] for k in keep], [types[k] for k in keep])
        if len(keep) == count and reading not in out:
            out.append(reading)
    return out


def _aligned_score(item: ItemSignature, record: Signature, text: str, keys: set[str], params: list[str],
                   types: list[str | None], said: set[str]) -> tuple[float, list[str]]:
    """signature_score for one reading of the record's parameters (as many as the item's); `said`:
    the word stems of the comments and docstrings about the definition."""
    s = item.signature
    score = item.name_score + _ARGC_SCORE
    same = [a for a, b in zip(s.params, params) if a == b and a]
    score += sum(_PARAM_SCORE if len(a) >= 3 else _SHORT_PARAM_SCORE for a in same)
    # a name shortened in the port (`string` -> `str`, a type's name in C++ and Java; `array` -> `arr`)
    short = [a for a, b in zip(s.params, params) if a != b and min(len(a), len(b)) >= 3 and
             (a.startswith(b) or b.startswith(a))]
    score += _SHORTENED_PARAM_SCORE * len(short)
    types = sum(_type_score(a, b) for a, b in zip(s.types + [s.returns], types + [record.returns]))
    score += types
    lits = sorted(item.literals & keys)
    calls = sorted(item.calls & keys)
    score += min(_LITERALS_MAX, _LITERAL_SCORE * len(lits)) + min(_CALLS_MAX, _CALL_SCORE * len(calls))
    found = 0.0
    if item.examples:
        name = _anchor(s.name)
        seen: dict[tuple[tuple[str, ...], tuple[str, ...]], float] = {}
        for line in text.split("\n"):
            if name not in line.replace("_", "").lower():
                continue
            for _, a, b in _calls(line, name):
                args = _literals(line[a:b])
                rest = _literals(line[:a] + " " + line[b + 1:])
                for example in item.examples:
                    if args == example[0]:
                        # with its expected value on the line (an assert, a test) it is the item's;
                        # the arguments alone (`f(5)`) are any program's
                        got = _EXAMPLE_SCORE if example[1] and _holds(rest, example[1]) else _ARGS_SCORE
                        seen[example] = max(seen.get(example, 0.0), got)
        found = sum(seen.values())
        score += min(_EXAMPLES_MAX, found)
    # ties by name: the evidence is the same whatever the hash seed
    shared = sorted(said & item.prose.keys(), key=lambda st: (-item.prose[st], st))
    weight = sum(item.prose[st] for st in shared)
    rare = sum(1 for st in shared if item.prose[st] >= _PROSE_RARE)
    # words back a definition already pointing at the item: a one-word name none of whose parameters
    # is named alike (`compare(x, y)` in a library's documented code) is any program's
    pointed = bool(same or short) or len(_PIECE.findall(s.name)) > 1
    prose = _PROSE_SCORE * min(1.0, weight / _PROSE_FULL) if rare >= _PROSE_WORDS and pointed else 0.0
    score += prose
    read = f" read as ({', '.join(params)})" if params != record.params else ""
    evidence = (f"signature {record.name}({', '.join(record.params)}){read} score {score:.2f}: name "
                f"{item.name_score:.1f}, parameters named alike {len(same)} of {len(s.params)} (shortened "
                f"{len(short)}), types {types:+.1f}, literals {' '.join(lits) or '-'}, calls {' '.join(calls) or '-'}, "
                f"examples {found:.1f}, docstring words {prose:.1f} ({len(shared)}: {' '.join(shared[:6]) or '-'})")
    return score, [evidence]


@dataclass
class CodeKeyIndex:
    """The keyed items: per entry (an item's key with or without its docstring examples) its
    distinct keys (ids into `vocab`) with rarity weights, per item its anchors (the names it
    defines at its top level), and their signatures (a port written from scratch keeps those)."""

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
    entry_name: list[frozenset[int]] = field(default_factory=list)  # per entry: the key ids of its names' pieces
    signatures: dict[str, list[ItemSignature]] = field(default_factory=dict)  # anchor -> the items' functions of that name

    @classmethod
    def build(cls, texts: Sequence[str], code: np.ndarray) -> "CodeKeyIndex | None":
        """Key the items `code` (bool per item) of `texts` that define a named function (the names
        an item defines at its left margin, or the outermost ones where it has a line there, are
        its anchors); None when none has enough keys."""
        vocab: dict[str, int] = {}
        spelled: set[str] = set()
        entries: list[tuple[int, set[str], int, dict[int, tuple[int, int]]]] = []
        signatures: dict[str, list[ItemSignature]] = {}
        words: list[tuple[ItemSignature, frozenset[str]]] = []
        for i, t in enumerate(texts):
            if not code[i]:
                continue
            sigs = defined_signatures(t)
            # a helper nested in a solution (`is_prime`, `check`) is any program's: the item's
            # interface is what it defines at its top level (at a line's start)
            top = [s for s in sigs if s.start == 0 or t[s.start - 1] == "\n"] or _outermost(t, sigs)
            # a Python item's `def`s where it has them (not a C-like reading of other lines)
            defined = {s.name for s in top} & set(_DEFINED.findall(t)) or {s.name for s in top}
            names = {_anchor(n) for n in defined}
            if not names:
                continue
            spelled.update(defined)
            keep = {k for k, _, _ in port_tokens(t) if k[0] == "'" or k[0] == "#" and len(k) > 2}
            calls = frozenset(k for k, _, _ in port_tokens(t) if k in _CALL_KEYS)
            for s in (s for s in top if s.name in defined):
                sig = ItemSignature(i, s, _name_score(s.name), frozenset(keep), calls,
                                    docstring_examples(t, _anchor(s.name)))
                signatures.setdefault(_anchor(s.name), []).append(sig)
                # what it is about in words, less its own names (the name and parameters score apart)
                own = stem_words([p.lower() for n in [s.name, *s.params] for p in _PIECE.findall(n)])
                words.append((sig, frozenset(prose_stems(t) - set(own))))
            seen: set[frozenset[int]] = set()
            # with its docstring's examples and without them
            for toks in (key_tokens(t, True), key_tokens(t, False)):
                keys: dict[int, tuple[int, int]] = {}
                for k, a, b in toks:
                    keys.setdefault(vocab.setdefault(k, len(vocab)), (a, b))
                if len(keys) >= _MIN_ITEM_KEYS and frozenset(keys) not in seen:
                    seen.add(frozenset(keys))
                    entries.append((i, names, len(toks), keys))
        if not entries and not signatures:
            return None
        # a docstring word's rarity among the distinct docstrings (`list`, `return` in most; `consecutive` in one)
        distinct_prose = {w for _, w in words}
        prose_df: dict[str, int] = {}
        for w in distinct_prose:
            for st in w:
                prose_df[st] = prose_df.get(st, 0) + 1
        for sig, w in words:
            sig.prose = {st: float(np.log((len(distinct_prose) + 1) / (prose_df[st] + 1))) for st in w}
        items = len({e[0] for e in entries}) or 1
        df = np.zeros(len(vocab), dtype=np.int64)
        for k in {(e[0], k) for e in entries for k in e[3]}:
            df[k[1]] += 1
        weight = (np.log((items + 1) / (df + 1)) + 0.1).astype(np.float32)
        # a one-digit number is in any program: rare among the items is not rare in code
        small = np.array([k[0] == "#" and len(k) == 2 for k in vocab], dtype=bool)
        weight[small] = np.minimum(weight[small], _SMALL_NUMBER_WEIGHT)
        anchors: dict[str, list[int]] = {}
        for n, e in enumerate(entries):
            for name in e[1]:
                anchors.setdefault(name, []).append(n)
        pieces = {n: frozenset(vocab[k] for k, _, _ in key_tokens(n) if k in vocab) for n in spelled}
        entry_name = [frozenset().union(*(pieces[n] for n in spelled if _anchor(n) in e[1])) for e in entries]
        return cls(vocab, list(vocab), weight, ~small, np.array([e[0] for e in entries], dtype=np.int32),
                   np.array([float(weight[list(e[3])].sum()) for e in entries]),
                   np.array([e[2] for e in entries], dtype=np.int32), [e[3] for e in entries], anchors,
                   _anchor_regex(spelled), frozenset(_anchor(n) for n in spelled if len(key_tokens(n)) >= 2),
                   entry_name, signatures)

    def maybe(self, texts: pa.Array | pa.ChunkedArray) -> np.ndarray:
        """Per text, whether it may hold a defined name of an item in any naming convention (one
        RE2 pass over the Arrow array; False: surely no match)."""
        if len(texts) == 0:
            return np.zeros(0, dtype=bool)
        return pc.fill_null(pc.match_substring_regex(texts, self.anchor_regex), False).to_numpy(zero_copy_only=False)

    def matches(self, text: str, floor: float) -> Iterable[tuple[int, float, list[list[int]], list[list[int]], list[str]]]:
        """(item, coverage, record spans, item spans (unmerged), evidence) of each item whose key
        covers at least `floor` of its weight in one window of `text` (where the record holds its
        name: see below), or whose function `text` defines with a signature whose score, read as
        a coverage (`signature_coverage`), is at least `floor`."""
        # An item's name anchors only where the record defines it (a header declaring
        # `GreatestCommonDivisor`, a library's `isSorted` argument, is no port); the keys' window
        # only under a name of _MIN_NAME letters or more (`add`, `fib`: by their signature alone).
        # Each distinct identifier once (a page of code repeats its names many times); the costly
        # search for definitions only where a name of an item stands at all.
        idents = set(_IDENT.findall(text))
        known = self.anchors.keys() | self.signatures.keys()
        spelled = {m for m in idents if _anchor(m) in known}
        defs = defined_signatures(text, {_anchor(m) for m in spelled}, spelled) if spelled else []
        defined = {_anchor(d.name) for d in defs}
        named = {n for n in defined if len(n) >= _MIN_NAME}
        signed: dict[int, tuple[float, list[list[int]], list[list[int]], list[str]]] = {}
        best: dict[int, tuple[float, list[list[int]], list[list[int]], list[str]]] = {}
        every = key_tokens(text) if defs else []
        if defs:
            keys = {k for k, _, _ in every}
            for d in defs:
                for item in self.signatures.get(_anchor(d.name), []):
                    got = signature_score(item, d, text, keys)
                    if got is None:
                        continue
                    coverage = signature_coverage(got[0])
                    if coverage >= floor and coverage > signed.get(item.item, (-1.0,))[0]:
                        s = item.signature
                        signed[item.item] = (coverage, [[d.start, d.end]], [[s.start, s.end]], got[1])
        cand = sorted({e for name in named & self.anchors.keys() for e in self.anchors[name]})
        # an item's name of two or more pieces defined here (a port's own definition of it) asks
        # one key fewer: a short function keeps little more than its name and parameters
        own = {e for name in defined & self.multi_piece & self.anchors.keys() for e in self.anchors[name]}
        toks = [(self.vocab.get(k, -1), a, b) for k, a, b in (every or key_tokens(text))] if cand else []
        toks = [t for t in toks if t[0] >= 0]
        ids = np.array([k for k, _, _ in toks], dtype=np.int64)
        for e in cand:
            item = int(self.entry_item[e])
            # where the record defines the item's name, one of its definitions has the item's
            # parameter count (`encode(string, charset, encoding)` is no port of `encode(message)`)
            counts = {len(s.signature.params) for n in defined for s in self.signatures.get(n, []) if s.item == item}
            if counts and not any(len(d.params) in counts for d in defs
                                  if any(s.item == item for s in self.signatures.get(_anchor(d.name), []))):
                continue
            got = self._best_window(e, ids, toks, _MIN_KEYS - 1 if e in own else _MIN_KEYS)
            if got is not None and got[0] >= floor and got[0] > best.get(item, (-1.0,))[0]:
                best[item] = got
        # both ways: the window's spans (the body, many keys) and both evidences, the better coverage
        for item in best.keys() | signed.keys():
            got, sig = best.get(item), signed.get(item)
            if got is None or sig is None:
                yield (item, *(got or sig))
            else:
                yield (item, max(got[0], sig[0]), got[1], got[2], got[3] + sig[3])

    def _best_window(self, e: int, ids: np.ndarray, toks: list[tuple[int, int, int]], min_keys: int = _MIN_KEYS
                     ) -> tuple[float, list[list[int]], list[list[int]], list[str]] | None:
        """The window of the record's key tokens holding most of entry `e`'s key weight, with
        `min_keys` distinct strong keys besides the pieces of the item's names."""
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
        name = self.entry_name[e]
        # the name is the anchor, not evidence of its own: a header declaring `GreatestCommonDivisor`
        # near a few small numbers is no port
        if sum(1 for k in keys.tolist() if self.strong[k] and k not in name) < max(2, min_keys - 1):
            return None
        # ... and what is not the name covers a share of its own (punycode's `generate_integers`
        # holds the name and a 10, not the item)
        named = float(self.weight[[k for k in mine if k in name]].sum()) if name else 0.0
        held = float(self.weight[[k for k in keys.tolist() if k in name]].sum()) if name else 0.0
        if best - held < _REST_SHARE * (float(self.entry_total[e]) - named):
            return None
        rare = sorted(keys.tolist(), key=lambda k: -float(self.weight[k]))[:8]
        evidence = ["keys " + " ".join(self.words[k] for k in rare) + f" ({len(keys)} of {len(mine)})"]
        return (best / float(self.entry_total[e]), [[toks[int(hits[0])][1], toks[int(hits[-1])][2]]],
                [list(mine[int(k)]) for k in keys.tolist()], evidence)


def _anchor_regex(names: set[str]) -> str:
    """RE2 for the records that may hold one of `names` as an anchor: a name of two or more pieces
    in any naming convention, a one-word name (of two letters or more) where a function of that
    name is defined."""
    loose, defined = set(), set()
    for n in names:
        pieces = [p.group().lower() for p in _PIECE.finditer(n)]
        if len(pieces) > 1:
            loose.add("_*".join(pieces))
        elif len(_anchor(n)) >= 2:
            defined.add(_anchor(n))
    alt = []
    if loose:
        alt.append("|".join(sorted(loose)))
    if defined:
        words = "|".join(sorted(defined))
        alt.append(rf"\b(?:def|function|func|fn)\s+(?:{words})\b|\b(?:{words})\s*\([^()\n]*\)[^{{;\n]*\{{"
                   rf"|\b(?:{words})\s*[=:]\s*(?:async\s+)?(?:function\b|\()")
    return "(?i)" + "|".join(alt) if alt else r"[^\s\S]"  # no name: matches nothing


def _anchor(name: str) -> str:
    """A defined name in any naming convention: has_close_elements, hasCloseElements -> hascloseelements."""
    return name.replace("_", "").lower()
