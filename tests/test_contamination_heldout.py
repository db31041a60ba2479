"""Ports and rewrites as a chat model writes them (bench/eval_heldout_rewrites.py's kinds), found by
the code key's signature (audit/stages/contamination_codekey.py): a C port that passes an array's
length beside it and returns its result through a pointer, a JavaScript port and a Python rewrite
whose comment or docstring restates the item's docstring in other words; and look-alikes that are
none (the same one-word name documented alike, an extra input array); and a reworded question
longer than the item, found whole by the rewrite tier wherever it stands in the record."""
from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from audit.stages.contamination_codekey import (CodeKeyIndex, defined_signatures, looks_like_any_code,
                                                 prose_stems, type_class)
from tests.fixtures_rewrite import HOST, mc_counted

# HumanEval/9 (rolling_max) in C as a model writes it: the length after the array, the result
# written through a pointer, no docstring.
C_ROLLING_MAX = '''#include <stddef.h>

void rolling_max(const int *numbers, size_t n, int *out) {
    for (size_t i = 0; i < n; i++) {
        out[i] = (i == 0 || numbers[i] > out[i - 1]) ? numbers[i] : out[i - 1];
    }
}
'''
# The same name and array with a second input array (const: read, not written): another function.
C_ROLLING_MAX_WEIGHTED = '''int *rolling_max(const int *numbers, int n, const int *window) {
    int *best = malloc(n * sizeof(int));
    for (int i = 0; i < n; i++) best[i] = numbers[i] > window[i] ? numbers[i] : window[i];
    return best;
}
'''
# HumanEval/91 (is_bored) in JavaScript: another algorithm, the docstring restated in a comment.
JS_IS_BORED = '''// Counts the boredoms in a text: a boredom is a sentence that begins with the word "I".
// Sentences end with a period, a question mark or an exclamation mark.
function isBored(S) {
  return S.split(/[.?!]/).filter((s) => s.trim().startsWith("I ")).length;
}
'''
# The same name in an application, documented in its own words.
JS_IS_BORED_APP = '''// Tells the idle screen whether the visitor has stopped scrolling for a while.
function isBored(S) {
  return Date.now() - S.lastScroll > 30000;
}
'''
# HumanEval/77 (iscube) rewritten in Python: the same name and parameter, another body, the
# docstring reworded.
PY_ISCUBE = '''def iscube(a):
    """Return True when the integer a equals some integer raised to the third power,
    i.e. when a is a perfect cube; the input can be assumed valid."""
    n = -a if a < 0 else a
    k = 0
    while k * k * k < n:
        k += 1
    return k * k * k == n
'''
# A library's `iscube(value)` documented with the same words: a one-word name none of whose
# parameters is the item's is any program's, whatever its docstring says.
PY_ISCUBE_LIBRARY = '''def iscube(value):
    """Whether the integer value is the cube of an integer (assumed valid: callers always check)."""
    return value in CUBES
'''


@pytest.fixture(scope="module")
def humaneval_units(shared_data: Path) -> tuple[CodeKeyIndex, int]:
    """The code key of HumanEval's units as the stage keys them (the item, its prompt, its
    solution), and the number of units per item."""
    with gzip.open(shared_data / "evals/HumanEval.jsonl.gz", "rt", encoding="utf-8") as f:
        items = [json.loads(x) for x in f if x.strip()]
    texts = [t for r in items for t in (r["prompt"] + r["canonical_solution"], r["prompt"], r["canonical_solution"])]
    index = CodeKeyIndex.build(texts, looks_like_any_code(texts))
    assert index is not None
    return index, 3


def _found(units: tuple[CodeKeyIndex, int], text: str) -> dict[int, tuple[float, list[str]]]:
    """HumanEval item -> (its best unit's coverage, that match's evidence) of the matches >= 0.5."""
    index, per = units
    out: dict[int, tuple[float, list[str]]] = {}
    for unit, coverage, _, _, evidence in index.matches(text, 0.5):
        if coverage > out.get(unit // per, (-1.0,))[0]:
            out[unit // per] = (coverage, evidence)
    return out


def test_a_c_port_is_read_without_its_array_lengths_and_result_pointers(humaneval_units):
    (sig,) = defined_signatures(C_ROLLING_MAX)
    assert sig.params == ["numbers", "n", "out"] and sig.outs == [False, False, True]
    found = _found(humaneval_units, C_ROLLING_MAX)
    assert 9 in found
    assert "signature rolling_max(numbers, n, out) read as (numbers)" in found[9][1][0]


@pytest.mark.parametrize("written, cls", [("char **", "list:str"), ("const char *const *", "list:str"),
                                          ("char *", "str"), ("int *", "list:int")])
def test_a_c_pointer_to_strings_is_a_list_of_them(written, cls):
    assert type_class(written) == cls


def test_an_extra_input_array_is_not_read_away(humaneval_units):
    assert 9 not in _found(humaneval_units, C_ROLLING_MAX_WEIGHTED)


def test_a_js_port_is_found_by_its_restated_docstring(humaneval_units):
    found = _found(humaneval_units, JS_IS_BORED)
    assert 91 in found
    line = found[91][1][0]
    assert line.startswith("signature isBored(s) score") and "docstring words" in line and "boredom" in line


def test_a_python_rewrite_is_found_by_its_signature_and_reworded_docstring(humaneval_units):
    found = _found(humaneval_units, PY_ISCUBE)
    assert 77 in found
    (line,) = [e for e in found[77][1] if e.startswith("signature iscube(a)")]
    assert "cub" in line.split("docstring words", 1)[1]


def test_lookalikes_documented_in_their_own_words_or_by_another_parameter_are_none(humaneval_units):
    assert 91 not in _found(humaneval_units, JS_IS_BORED_APP)
    assert 77 not in _found(humaneval_units, PY_ISCUBE_LIBRARY)


def test_prose_stems_are_the_comments_and_docstrings_words_not_the_codes():
    stems = prose_stems('// Counts the boredoms in a text\nconst sentences = text.split(".");\n"""Sentences end."""')
    assert {"count", "boredom", "text", "sentenc"} <= stems
    assert "split" not in stems and "const" not in stems and "the" not in stems


# The DNA question of fixtures_rewrite reworded as a model does, longer than it (24 words to 18).
DNA_LONGER = ("At the replication fork of a dividing cell, which enzyme breaks the hydrogen bonds that join base "
              "pairs, unwinding the double helix of DNA?")


def test_a_rewording_longer_than_its_unit_is_held_whole_at_any_offset(tmp_path):
    words = (HOST + " " + HOST).split()
    got = mc_counted(tmp_path, [" ".join(words[:k]) + " " + DNA_LONGER for k in range(30)])
    for k, matches in enumerate(got):
        (m,) = [m for m in matches if m["eval_id"] == "dna" and m["unit"] == "question" and m["method"] == "rewrite"]
        assert m["coverage"] == pytest.approx(1.0), k  # no window cuts it, whatever the host words before it
        assert m["evidence"][0].startswith("cosine") and "replicat" in m["evidence"][1]
