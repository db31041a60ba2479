"""The code key's port entry (audit/stages/contamination_codekey.py): a HumanEval item ported to
another language from scratch keeps its signature, its literals and its library calls; a record
that defines the item's function is found by those, and a program merely sharing a common
one-word name is not."""
from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from audit.stages.contamination_codekey import CodeKeyIndex, looks_like_any_code, port_tokens

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


def test_the_port_key_is_the_signature_literals_and_calls():
    keys = {k for k, _, _ in port_tokens("def has_close_elements(numbers, threshold):\n"
                                         "    local_name = abs(numbers[0] - 2.5) < threshold\n"
                                         "    return 'yes' if local_name else ''\n")}
    assert keys == {"has", "close", "elements", "numbers", "threshold", "abs", "#0", "#2.5", "'yes"}


def test_a_port_written_from_scratch_is_found_by_its_signature_and_literals(humaneval):
    assert 93 in {item for item, cov, *_ in humaneval.matches(RUST_93, 0.5)}
    assert 45 in {item for item, cov, *_ in humaneval.matches(CPP_45, 0.5)}


def test_a_common_name_without_the_items_literals_or_a_nested_helper_is_no_port(humaneval):
    assert [item for item, *_ in humaneval.matches(JAVA_ENCODE, 0.5)] == []
    assert 39 not in {item for item, *_ in humaneval.matches(PY_PRIME, 0.5)}
    # calling the item's function is not defining it: the port key asks for a definition
    call = "total = triangle_area(a, h) + triangle_area(b, h)\nprint(total * 0.5)\n"
    assert 45 not in {item for item, *_ in humaneval.matches(call, 0.5)}
