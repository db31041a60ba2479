"""Contamination tiers beyond exact n-grams: canonical code, and boilerplate that must not match."""
from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pyarrow as pa

from audit.config import parse_config
from audit.stages.code_canon import code_tokens
from audit.stages.contamination import COLUMN_TYPE, ContaminationIndex, ContaminationStage, counted
from tests.fixtures_contamination import HOST, STORY

CODE_ITEM = '''def below_threshold(numbers: list, limit: int) -> bool:
    """Return True if every number in the list is below the limit.
    >>> below_threshold([1, 2, 4, 10], 100)
    True
    """
    for value in numbers:
        if value >= limit:
            return False
    return True
'''

RENAMED = '''Here is a snippet I found on a forum:

def all_small(xs, t):
  # check each one
  for e in xs:
    if e >= t:
      return False
  return True

It works fine for me.'''

PROSE_ITEM = ("Which of the following statements best describes the role of the mitochondria in a "
              "eukaryotic cell during periods of intense physical exercise and recovery afterwards?")


def _config(**contamination):
    return parse_config({"input": {"paths": ["x/"]}, "contamination": contamination}, base_dir=Path("/"))


def _index(config, items):
    return ContaminationIndex.from_items([("evals", [i for i, _ in items], [t for _, t in items])],
                                         config.contamination)


def _counted(config, index, texts):
    out = ContaminationStage(config, index)(pa.table({"text": pa.array(texts, pa.string())}))
    assert out.schema.field("contamination").type == COLUMN_TYPE
    return counted(out.column("contamination"), config).to_pylist()


def test_code_canonical_form_ignores_names_comments_docstrings_and_layout():
    loop = RENAMED[RENAMED.index("def "):RENAMED.index("\n\nIt works")]
    [ta, tb] = [code_tokens([t]) for t in (CODE_ITEM, loop)]
    assert len(tb.hashes) == 22 and list(ta.hashes[-14:]) == list(tb.hashes[-14:])  # the loop onwards
    assert list(ta.hashes[:2]) == list(tb.hashes[:2])  # `def <name>`: the docstring and comment leave no token
    assert len(code_tokens(["Plain prose with no code in it at all, just words."]).hashes) == 0


def test_renamed_reindented_code_matches_by_the_code_tier():
    config = _config(code_ngram=12)  # the code tier is on by default
    index = _index(config, [("he/1", CODE_ITEM), ("q/1", PROSE_ITEM)])
    [matches] = _counted(config, index, [RENAMED])
    assert [(m["eval_id"], m["method"]) for m in matches] == [("he/1", "code")]
    a, b = matches[0]["longest_span"]
    assert RENAMED[a:b].startswith("for e in xs") or "for e in xs" in RENAMED[a:b]
    off = _config(code_ngram=12, code=False)
    assert _counted(off, _index(off, [("he/1", CODE_ITEM)]), [RENAMED]) == [[]]


def test_clean_document_full_of_shared_boilerplate_does_not_match():
    # Items share a template and a `__main__` idiom; a clean page repeats exactly that boilerplate.
    template = "Which of the following statements best describes"
    items = [(f"q/{k}", f"{template} {topic}") for k, topic in enumerate([
        "the role of the mitochondria in a eukaryotic cell during periods of intense exercise?",
        "the causes of the French revolution in the late eighteenth century and its aftermath?",
        "the way interest rates affect the price of long term government bonds over time?"])]
    main_idiom = 'if __name__ == "__main__":\n    main()\n'
    items += [(f"c/{k}", f"def {name}(x):\n    return {expr}\n\n{main_idiom}") for k, (name, expr) in
              enumerate([("double", "x * 2"), ("square", "x ** 2"), ("half", "x / 2")])]
    config = _config(code_ngram=12, code=True)
    index = _index(config, items)
    page = "\n".join([f"{template} your reading of the passage above?"] * 5 + [main_idiom] * 5
                     + ["def run(x):\n    return x + 1\n", main_idiom])
    assert _counted(config, index, [page]) == [[]]




def _edit(text: str, every: int) -> str:
    """Every `every`-th word replaced, the one after it dropped: a rewrite with insertions and deletions."""
    out, words = [], text.split(" ")
    for k, w in enumerate(words):
        if k % every == every - 1:
            out.append("zebra")
        elif k % every == 0 and k:
            continue
        else:
            out.append(w)
    return " ".join(out)


def test_alignment_of_a_piece_tolerates_replaced_and_dropped_words():
    from audit.stages.alignment import align_pieces
    item = np.arange(1, 13, dtype=np.uint64)
    edited = np.array([1, 2, 99, 4, 5, 7, 8, 9, 9, 10, 11, 12], dtype=np.uint64)  # 3 replaced, 6 dropped, 9 twice
    doc = np.concatenate([np.arange(500, 520, dtype=np.uint64), edited, np.arange(600, 610, dtype=np.uint64)])
    [hit] = align_pieces(item, np.ones(12, dtype=np.float32), np.array([0, 12]), doc)
    assert hit.words == 10 and hit.weight == 10 and (hit.start, hit.end) == (20, 32)
    [none] = align_pieces(item, np.ones(12, dtype=np.float32), np.array([0, 12]), np.arange(500, 540, dtype=np.uint64))
    assert none.words == 0


def test_words_replaced_and_dropped_item_matches_by_alignment():
    config = _config()
    index = _index(config, [("gsm/1", STORY), ("q/1", PROSE_ITEM)])
    leak = _edit(STORY, 10)  # a fifth of the words edited
    text = HOST + "\n" + leak + "\n" + HOST
    [matches] = _counted(config, index, [text])
    assert [(m["eval_id"], m["method"]) for m in matches] == [("gsm/1", "fuzzy")]
    m = matches[0]
    assert 0.6 <= m["coverage"] < 1.0 and m["longest_span"] in m["spans"]
    at = text.index(leak)
    assert all(at <= a < b <= at + len(leak) for a, b in m["spans"])
    off = _config(minhash=False)
    assert _counted(off, _index(off, [("gsm/1", STORY)]), [text]) == [[]]


def test_reordered_edited_item_adds_up_over_the_record():
    config = _config()
    index = _index(config, [("gsm/1", STORY)])
    sentences = [_edit(s, 8) for s in re.split(r"(?<=[.?])\s+", STORY)]
    # Sentences in another order, two of them paragraphs away from the rest.
    text = "\n".join([sentences[3], sentences[0], HOST, sentences[4], HOST, HOST, sentences[2], sentences[1]])
    [matches] = _counted(config, index, [text])
    assert [(m["eval_id"], m["method"]) for m in matches] == [("gsm/1", "fuzzy")]
    assert len(matches[0]["spans"]) >= 4 and matches[0]["coverage"] >= 0.6


def test_template_shared_by_many_items_makes_no_match_alone():
    # Item document frequency: twelve items open with one long instruction; a clean page holding
    # that instruction (and a question of its own) is measured as nothing, a verbatim item as 1.0.
    template = ("Read the following question carefully and think step by step before you answer it. "
                "Show all of your working and give the final answer on its own line at the end.")
    questions = [f"How many {a} does {b} need to {c} the {d}?" for a, b, c, d in [
        ("apples", "Tom", "fill", "basket"), ("nails", "Ann", "build", "shed"), ("cups", "Raj", "serve", "guests"),
        ("tiles", "Lee", "cover", "floor"), ("boxes", "Kim", "pack", "books"), ("seeds", "Eva", "plant", "garden"),
        ("bricks", "Sam", "finish", "wall"), ("pages", "Ali", "print", "report"), ("coins", "Mia", "buy", "ticket"),
        ("eggs", "Ben", "bake", "cake"), ("ropes", "Zoe", "tie", "boat"), ("lamps", "Ian", "light", "hall")]]
    config = _config()
    index = _index(config, [(f"t/{k}", f"{template}\n{q}") for k, q in enumerate(questions)])
    page = HOST + "\n" + template + "\nHow many volunteers does the club need this year?\n" + HOST
    out = ContaminationStage(config, index)(pa.table({"text": [page, HOST + "\n" + template + "\n" + questions[4]]}))
    clean, leak = out.column("contamination").to_pylist()
    assert clean == []  # not even below the threshold
    assert [(m["eval_id"], m["coverage"]) for m in leak] == [("t/4", 1.0)]


def test_short_question_with_words_edited_matches_and_its_common_words_alone_do_not():
    question = "How many marbles does Priya keep after giving seven to her cousin Omar?"  # 13 words
    config = _config()
    index = _index(config, [("q/1", question), ("gsm/1", STORY)])
    edited = "How many shiny marbles does Priya keep after handing seven to her cousin?"  # 1 added, 1 replaced, 1 dropped
    [matches, none] = _counted(config, index, [HOST + "\n" + edited + "\n" + HOST,
                                               HOST + "\nHow many marbles does a child keep in a jar?\n" + HOST])
    assert [(m["eval_id"], m["method"]) for m in matches] == [("q/1", "fuzzy")]
    assert none == []


# The lexer's semantics, as one regular expression scanned left to right (the vectorised lexer
# in audit/stages/code_canon.py must cut and hash exactly these tokens).
_REFERENCE = re.compile(r'"""[\s\S]*?"""|\'\'\'[\s\S]*?\'\'\'|#[^\n]*|//[^\n]*|"(?:\\.|[^"\\\n])*"'
                        r"|'(?:\\.|[^'\\\n])*'|[A-Za-z_]\w*|\d+(?:\.\d+)?|==|!=|<=|>=|\*\*|->|\+=|-=|[^\s\w]")


def _reference_tokens(text: str) -> list[tuple[int, int, int]]:
    from audit.normalize import hash_word
    from audit.stages.code_canon import _KEEP
    out = []
    for m in _REFERENCE.finditer(text):
        tok = m.group()
        if tok.startswith(('"""', "'''", "#", "//")):
            continue  # docstrings and comments leave no token
        canon = "\x00S" if tok[0] in "\"'" else ("\x00I" if (tok[0].isalpha() or tok[0] == "_") and tok not in _KEEP
                                                  else tok)
        out.append((hash_word(canon) ^ 0xC0DE, m.start(), m.end()))
    return out


def test_vectorised_lexer_cuts_the_tokens_of_the_reference_regex():
    import random
    rng = random.Random(7)
    alphabet = "ab_Z09 .\n\t'\"#/=!<>*-+(){}:é²٣\\x"  # quotes, comments, decimals, chained operators, non-ASCII
    texts = [CODE_ITEM, RENAMED, 'x = 1.2.3.4 === y !== "a\\"b" # c\n\'\'\'d\ne\'\'\' f\'g "h 12ab x1.5 3é4.5',
             "def f():\n    return '''unclosed\n" + '"""', "def g(): pass\n/* c */ // d\n a // b \n 1_000 ->= **="]
    texts += ["def f(x):\n    return " + "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 80)))
              for _ in range(3000)]
    tokens = code_tokens(texts, np.ones(len(texts), dtype=bool))  # every text lexed, code-like or not
    for i, text in enumerate(texts):
        lo, hi = tokens.bounds[i], tokens.bounds[i + 1]
        got = list(zip(tokens.hashes[lo:hi].tolist(), tokens.starts[lo:hi].tolist(), tokens.ends[lo:hi].tolist()))
        assert got == _reference_tokens(text), text


def test_code_prefilter_passes_code_and_not_prose():
    from audit.stages.code_canon import looks_like_code
    flags = looks_like_code([CODE_ITEM, RENAMED, "int main() {\n  return 0;\n}", "var f = function (a) { }",
                             PROSE_ITEM, "We define the return on capital as profit (before tax): see below.", None,
                             "Find the derivative of the function f(x) = x^3 sin(x).",
                             "const g = function (x)\n{ x++; }"])
    # mathematics that names "the function f(x)" is prose: a JavaScript function has a body
    assert flags.tolist() == [True, True, True, True, False, False, False, False, True]
    assert len(code_tokens([PROSE_ITEM, None, CODE_ITEM]).hashes) == len(code_tokens([CODE_ITEM]).hashes) > 0


def test_one_line_function_renamed_matches_whole_and_a_part_of_it_does_not():
    # 16 canonical tokens, under code_ngram: indexed whole, so all of it must be found.
    item = 'def add(x: int, y: int):\n    """Add two numbers x and y\n    >>> add(2, 3)\n    5\n    """\n    return x + y\n'
    config = _config()
    index = _index(config, [("he/53", item), ("he/1", CODE_ITEM)])
    renamed = "Try this:\n\ndef plus(a: int, b: int):\n  return a + b\n\nThat is all."
    partial = "Try this:\n\ndef plus(a: int, b: int):\n  return None\n\nThat is all."
    [leak, other] = _counted(config, index, [renamed, partial])
    assert [(m["eval_id"], m["method"], m["coverage"]) for m in leak] == [("he/53", "code", 1.0)]
    assert other == []


QUOTE = "to be or not to be that is the question whether tis nobler in the mind to suffer"
HOSTS = ["The drama club read aloud on Friday evening in the old hall.",
         "Our essay on tragedy opens with the most quoted line in English literature.",
         "A poster in the station had the line printed in large letters."]


def _corpus_index(config, items, sample):
    index = _index(config, items)
    common = index.corpus_common(sample, config.contamination.corpus_df_min_docs, config.contamination.corpus_df_ratio)
    sets = [("evals", [i for i, _ in items], [t for _, t in items])]
    return ContaminationIndex.from_items(sets, config.contamination, exclude=common), common


def test_a_phrase_common_in_the_corpus_makes_no_match_alone_but_the_item_still_matches():
    config = _config()
    item = QUOTE + " said the teacher before the students of grade seven left for the long winter break"
    sample = [f"{HOSTS[i % 3]} {QUOTE}. Page {i} of the collected notes." for i in range(40)] + HOSTS
    page = f"{HOSTS[0]} {QUOTE}. Then the curtain fell."
    plain = _index(config, [("q1", item)])
    assert [bool(m) for m in _counted(config, plain, [page])] == [True]  # the quote covers most of the item
    index, common = _corpus_index(config, [("q1", item)], sample)
    assert len(common) > 0
    assert [bool(m) for m in _counted(config, index, [page, f"Leaked: {item}"])] == [False, True]


def test_an_item_copied_into_many_documents_keeps_its_ngrams():
    config = _config()
    item = ("Natalia sold clips to forty eight of her friends in April and then she sold half as many "
            "clips in May how many clips did Natalia sell altogether in April and May")
    sample = [f"{HOSTS[i % 3]} {item} Answer below." for i in range(60)] + HOSTS
    index, common = _corpus_index(config, [("gsm", item)], sample)
    assert len(common) == 0
    assert [bool(m) for m in _counted(config, index, [f"Homework: {item}"])] == [True]


def test_the_built_index_equals_the_items_indexed_without_the_corpus_common_ngrams(tmp_path):
    # build() indexes the items once, finds the n-grams common in the sample from that index, and
    # indexes the n-gram tiers again without them: the index of the items with those n-grams left
    # out from the start, in every n-gram tier (words, number skeleton, code)
    items = [("q1", QUOTE + " said the teacher to 12 students of grade 7 before 3 of them left for the break"),
             ("he1", CODE_ITEM)]
    evals = tmp_path / "evals.jsonl"
    evals.write_text("".join(json.dumps({"id": i, "text": t}) + "\n" for i, t in items))
    config = parse_config({"input": {"paths": ["x/"]}, "eval_sets": [
        {"name": "evals", "path": str(evals), "text_fields": ["text"], "id_field": "id"}]}, base_dir=tmp_path)
    header = CODE_ITEM[:CODE_ITEM.index('    """')]
    sample = ([f"{HOSTS[i % 3]} {QUOTE}. Page {i} of the notes, with 12 students of grade {i}." for i in range(40)]
              + [f"Snippet {i}:\n\n{header}    for value in numbers:\n        if value >= 7:\n            print({i})\n"
                 for i in range(40)]
              + HOSTS)
    built = ContaminationIndex.build(config, sample)
    c = config.contamination
    sets = [("evals", [i for i, _ in items], [t for _, t in items])]
    common = ContaminationIndex.from_items(sets, c).corpus_common(sample, c.corpus_df_min_docs, c.corpus_df_ratio)
    direct = ContaminationIndex.from_items(sets, c, exclude=common, sample=sample)
    assert built.corpus_common_grams == len(common) > 0
    for a, b in ((built, direct), (built.skeleton, direct.skeleton), (built.code, direct.code)):
        assert a.settings == b.settings and np.array_equal(a.coverable, b.coverable)
        assert [(g.n, g.hashes.sorted.tolist(), g.item.tolist(), g.pos.tolist()) for g in a.grams] == \
            [(g.n, g.hashes.sorted.tolist(), g.item.tolist(), g.pos.tolist()) for g in b.grams]
    excluded = {k: sum(len(g.hashes.sorted) for g in direct_tier.grams) - sum(
        len(g.hashes.sorted) for g in full.grams) for k, direct_tier, full in (
        ("words", direct, ContaminationIndex.from_items(sets, c)),
        ("skeleton", direct.skeleton, ContaminationIndex.from_items(sets, c).skeleton),
        ("code", direct.code, ContaminationIndex.from_items(sets, c).code))}
    assert all(v < 0 for v in excluded.values()), excluded  # each tier lost some n-grams to the sample
    texts = [f"Leaked: {items[0][1]}", f"{HOSTS[1]} {QUOTE}.", f"Found this:\n\n{CODE_ITEM}", HOSTS[2]]
    assert built.match(texts) == direct.match(texts)
