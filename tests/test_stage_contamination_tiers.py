"""Contamination tiers beyond exact n-grams: canonical code, and boilerplate that must not match."""
from __future__ import annotations

from pathlib import Path

import pyarrow as pa

from audit.config import parse_config
from audit.stages.code_canon import code_tokens
from audit.stages.contamination import COLUMN_TYPE, ContaminationIndex, ContaminationStage, counted

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
    config = _config(code_ngram=12, code=True)  # the code tier is opt-in (its cost)
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
