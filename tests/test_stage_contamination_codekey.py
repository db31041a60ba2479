"""The code key (audit/stages/contamination_codekey.py): a HumanEval item ported to another
language from scratch keeps its signature (name, parameters, types), its literals, its library
calls and its docstring examples in its tests; a record that defines the item's function is found
by those, and real code that merely shares a common name (a tutorial's `is_prime(n)`, a math
library's `greatestCommonDivisor(T A, T B)`, the standard library's `median(data)`) is not."""
from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from audit.stages.code_canon import looks_like_code
from audit.stages.contamination_codekey import (CodeKeyIndex, defined_signatures, looks_like_any_code, port_tokens,
                                                 type_class)

# HumanEval/93 (encode) ported to Rust from scratch: no local name of the item is left, its vowel
# string and its signature are.
RUST_93 = '''fn encode(message:&str) -> String{
    let mut res: String = String::new();
    let v: Vec<char> = "aeiouAEIOU".to_string().chars().into_iter().collect();
    for (indx, elem) in message.chars().into_iter().enumerate() {
        let mut c = elem.to_string();
        if v.contains(&elem) {
            c = ((elem as u8) + 2) as char).to_string();
        }
        if elem.is_uppercase() { res.push_str(&c.to_lowercase()); } else { res.push_str(&c.to_uppercase()); }
    }
    return res;
}
'''
# HumanEval/45 (triangle_area) in C++: its two-piece name and parameters are all that is left.
CPP_45 = "float triangle_area(float a, float h){\n    return (a*h)*0.5;\n}\n"
# Library code defining `encode(message)`: one common word, none of the item's literals.
JAVA_ENCODE = '''public static String encode(String message) {
    byte[] bytes = message.getBytes(StandardCharsets.UTF_8);
    return Base64.getEncoder().encodeToString(bytes);
}
'''
# A helper nested in an item's solution (HumanEval/39 defines is_prime inside prime_fib) is
# any program's: a record defining it is no port of the item.
PY_PRIME = '''def is_prime(n):
    """Whether n is a prime."""
    if n < 2:
        return False
    return all(n % d for d in range(2, int(math.sqrt(n)) + 1))
'''

@pytest.fixture(scope="module")
def humaneval(shared_data: Path) -> CodeKeyIndex:
    with gzip.open(shared_data / "evals/HumanEval.jsonl.gz", "rt", encoding="utf-8") as f:
        items = [json.loads(x) for x in f if x.strip()]
    texts = [r["prompt"] + "\n" + r["canonical_solution"] for r in items]
    index = CodeKeyIndex.build(texts, looks_like_any_code(texts))
    assert index is not None
    return index


def test_every_text_the_code_tier_reads_has_a_sign_the_key_reads(shared_data):
    # ContaminationIndex.match looks for the code tier's signs only in the texts with the code
    # key's (one pass over every text instead of two): those must hold the code tier's.
    with gzip.open(shared_data / "evals/HumanEval.jsonl.gz", "rt", encoding="utf-8") as f:
        items = [json.loads(x) for x in f if x.strip()]
    texts = [r["prompt"] + "\n" + r["canonical_solution"] for r in items] + [RUST_93] + [
        "const f = function (a, b)\n  {\n  return a;\n}", "x = function add(a) { return a }", "int f(int a) {\n",
        "if (ok) {\n", "def f(x): pass\n", "a walk in the park.\n    return home", "func main() {", None, ""]
    code, signs = looks_like_code(texts), looks_like_any_code(texts)
    assert code.sum() > 150 and not (code & ~signs).any()


def test_the_port_key_is_the_literals_and_calls():
    keys = {k for k, _, _ in port_tokens("def has_close_elements(numbers, threshold):\n"
                                         "    local_name = abs(numbers[0] - 2.5) < threshold\n"
                                         "    return 'yes' if local_name else ''\n")}
    assert keys == {"abs", "#0", "#2.5", "'yes"}


@pytest.mark.parametrize("written, cls", [
    ("List[float]", "list:float"), ("vector<double>", "list:float"), ("[]float64", "list:float"),
    ("Vec<f32>", "list:float"), ("List<Double>", "list:float"), ("float  []", "list:float"), ("int *", "list:int"),
    ("const char*", "str"), ("&str", "str"), ("String", "str"), ("std::string", "str"), ("Optional[str]", "str"),
    ("i64", "int"), ("long long", "int"), ("boolean", "bool"), ("Tuple[int, int]", "tuple"),
    ("HashMap<String, i32>", "map"), ("vector<vector<int>>", "list:list"), ("APInt", "other"), ("", None),
    ("[Double]", "list:float"), ("[String: Int]", "map"), ("number[]", "list:int")])
def test_written_types_are_classed_alike_across_languages(written, cls):
    assert type_class(written) == cls


def test_definitions_are_parsed_in_each_language_and_calls_are_not():
    code = """int count_up(vector<int> l, int n) {
    if (n > 0) { return foo(l, n); }
}
class Solution {
    public List<Integer> sortThird(List<Integer> l) throws Exception {
        return obj.apply(l);
    }
}
func (s *T) FizzBuzz(a, b int) (int, error) {
}
fn below_zero(&self, mut operations: Vec<i32>) -> bool {
}
const incrList = (l) => l.map(x => x + 1);
function fooBar(a, b = 2) {
}
def is_nested(string: str) -> bool:
    pass
def plain(x):
    total: int = 0
"""
    got = [(s.name, s.params, s.types, s.returns) for s in defined_signatures(code)]
    assert got == [("count_up", ["l", "n"], ["list:int", "int"], "int"),
                   ("sortThird", ["l"], ["list:int"], "list:int"),
                   ("FizzBuzz", ["a", "b"], ["int", "int"], "int"),
                   ("below_zero", ["operations"], ["list:int"], "bool"),
                   ("incrList", ["l"], [None], None),
                   ("fooBar", ["a", "b"], [None, None], None),
                   ("is_nested", ["string"], ["str"], "bool"),
                   ("plain", ["x"], [None], None)]  # no return type written (not the next line's)
    assert [s.name for s in defined_signatures(code, {"fizzbuzz"})] == ["FizzBuzz"]


def test_a_port_written_from_scratch_is_found_by_its_signature_and_literals(humaneval):
    assert 93 in {item for item, cov, *_ in humaneval.matches(RUST_93, 0.5)}
    assert 45 in {item for item, cov, *_ in humaneval.matches(CPP_45, 0.5)}


def test_a_common_name_without_the_items_literals_or_a_nested_helper_is_no_port(humaneval):
    assert [item for item, *_ in humaneval.matches(JAVA_ENCODE, 0.5)] == []
    assert 39 not in {item for item, *_ in humaneval.matches(PY_PRIME, 0.5)}
    # calling the item's function is not defining it: the port key asks for a definition
    call = "total = triangle_area(a, h) + triangle_area(b, h)\nprint(total * 0.5)\n"
    assert 45 not in {item for item, *_ in humaneval.matches(call, 0.5)}


# Ports written from scratch: every local renamed and the body restructured; the signature stays.
JAVA_0 = """class Solution {
    public boolean hasCloseElements(List<Double> numbers, double threshold) {
        for (int p = 0; p < numbers.size(); p++)
            for (int q = p + 1; q < numbers.size(); q++)
                if (Math.abs(numbers.get(p) - numbers.get(q)) < threshold) return true;
        return false;
    }
}
"""
JS_0 = "const hasCloseElements = (numbers, threshold) => numbers.some((u, p) =>\n" \
       "  numbers.some((v, q) => p !== q && Math.abs(u - v) < threshold));\n"
# HumanEval/47 in C with an array and its length; HumanEval/53 (`add`, a three-letter name) with
# its docstring's examples in a test.
C_47 = "float median(float l[], int n) {\n  qsort(l, n, sizeof(float), cmp);\n" \
       "  return n % 2 ? l[n / 2] : 0.5 * (l[n / 2 - 1] + l[n / 2]);\n}\n"
CPP_53 = "int add(int x, int y) {\n    return x + y;\n}\nint main() {\n    assert(add(2, 3) == 5);\n" \
         "    assert(add(5, 7) == 12);\n}\n"


def _found(index: CodeKeyIndex, text: str, floor: float = 0.5) -> dict[int, tuple[float, list[str]]]:
    return {item: (cov, ev) for item, cov, _, _, ev in index.matches(text, floor)}


def test_a_port_is_found_by_its_signature_in_any_language(humaneval):
    for port in (JAVA_0, JS_0):
        got = _found(humaneval, port)
        assert 0 in got, port
        [sig] = [e for e in got[0][1] if e.startswith("signature ")]
        assert "parameters named alike 2 of 2" in sig
    # the C array's length is no parameter of the item: the signature is compared (a one-word name
    # and a one-letter parameter are measured, below the count)
    got = _found(humaneval, C_47, 0.3)
    assert 47 in got and got[47][0] < 0.5 and "parameters named alike 1 of 1 (shortened 0), types +0.4" in got[47][1][0]


def test_docstring_examples_in_a_ports_tests_find_a_short_name(humaneval):
    got = _found(humaneval, CPP_53)
    assert 53 in got and "examples 4.0" in got[53][1][0]
    # the definition alone, or calls with the example's arguments but no expected value: any program's
    assert 53 not in _found(humaneval, CPP_53.split("int main")[0])
    assert 106 not in _found(humaneval, "def f(i):\n    return i\n\nf(5)\nprint(f(5))\nx = f(5) + 1\n")


@pytest.mark.parametrize("clean", [
    # a tutorial's prime test and product: a common name and one-letter parameters
    "def is_prime(n):\n    return n > 1 and all(n % d for d in range(2, n))\n",
    "def multiply(a,b):\n    return a * b\n",
    # the standard library's median, under other parameter names
    "def median(data):\n    data = sorted(data)\n    n = len(data)\n    if n % 2 == 1:\n        return data[n // 2]\n"
    "    i = n // 2\n    return (data[i - 1] + data[i]) / 2\n",
    # a math library: the item's three-piece name and parameters, a type of its own
    "template <typename T> T greatestCommonDivisor(T A, T B) {\n  while (B) { T Tmp = B; B = A % B; A = Tmp; }\n"
    "  return A;\n}\n",
    # a header declaring the name near a few small numbers (no definition)
    "/// Log2_32_Ceil(6) == 3, Log2_32_Ceil(5) == 3\nAPInt GreatestCommonDivisor(APInt A, APInt B);\n"
    "inline unsigned Log2_32_Ceil(uint32_t Value) {\n  return 32 - countLeadingZeros(Value - 1);\n}\n",
    # a library's remove_duplicates of its own (another parameter) with `collections`
    "import collections\n\ndef remove_duplicates(items):\n    return iter(collections.OrderedDict.fromkeys(items))\n",
    # the item's name only as another function's argument
    "_.uniq = function(array, isSorted, iteratee) {\n  var result = [];\n  for (var i = 0; i < array.length; i++) {\n"
    "    if (isSorted) { result.push(array[i]); }\n  }\n  return result;\n};\n"])
def test_lookalike_real_code_is_no_port(humaneval, clean):
    assert _found(humaneval, clean) == {}


def test_a_parameter_shortened_in_the_port_counts_in_part(humaneval):
    # HumanEval/23 strlen(string: str) -> int in C++, where `string` is a type: the parameter is `str`
    got = _found(humaneval, "int strlen(string str){\n    return str.length();\n}\n")
    assert 23 in got and "(shortened 1)" in got[23][1][0]
    assert 23 not in _found(humaneval, "int strlen(string buf){\n    return buf.length();\n}\n")


def test_a_signature_score_reads_as_a_coverage_that_counts_at_the_threshold_score():
    from audit.stages.contamination_codekey import _SIGNATURE_SCORE, signature_coverage
    assert signature_coverage(_SIGNATURE_SCORE) == pytest.approx(0.5)
    assert signature_coverage(_SIGNATURE_SCORE * 0.99) < 0.5 < signature_coverage(_SIGNATURE_SCORE * 1.01)
    assert signature_coverage(2 * _SIGNATURE_SCORE) == pytest.approx(0.75) and signature_coverage(100.0) < 1.0


@pytest.mark.parametrize("port", [
    "public static bool HasCloseElements(List<double> numbers, double threshold) {\n    return false;\n}\n",  # C#
    "function hasCloseElements(numbers: number[], threshold: number): boolean {\n  return false;\n}\n",  # TypeScript
    "fun hasCloseElements(numbers: List<Double>, threshold: Double): Boolean {\n    return false\n}\n",  # Kotlin
    "func hasCloseElements(_ numbers: [Double], _ threshold: Double) -> Bool {\n    return false\n}\n",  # Swift
    "function has_close_elements(array $numbers, float $threshold): bool {\n    return false;\n}\n"])  # PHP
def test_a_signature_is_read_in_other_languages_too(humaneval, port):
    got = _found(humaneval, port)
    assert 0 in got and "parameters named alike 2 of 2" in got[0][1][-1]
