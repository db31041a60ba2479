"""The rewrite tier asks a match for more than its unit's topic: prose stating facts in a
question's terms is no restatement of it (the question's form is missing), a list of choices named
without their question is no leak of the item; the restatements themselves are still found."""
from __future__ import annotations

from audit.stages.contamination_rewrite import asks
from tests.fixtures_rewrite import HOST, mc_counted

# Statements on the topics of two of the fixtures' questions, in their terms ...
TCP_FACTS = ("TCP is the transport protocol that gives applications a reliable, ordered byte stream: the "
             "receiver sends acknowledgements for each segment, and lost segments are recovered by "
             "retransmission after a timeout.")
RUBICON_FACTS = ("In 49 BC Julius Caesar led his legion across the Rubicon river, a step that started a civil "
                 "war against Pompey and the Senate.")
# ... the TCP question restated, and three of the VAT item's choices in a budget story.
TCP_RESTATED = ("Using acknowledgements and retransmission, which transport protocol delivers a byte stream "
                "reliably and in order?")
TAX_STORY = "The budget raised the capital gains tax and cut excise duty on fuel, while a poll tax was ruled out."
VAT_QUIZ = ("Quiz: a tax levied on the value added at every stage of producing and distributing goods. Which is "
            "it: a duty of excise, a tax on added value, a levy per head (poll), or a tax on the gains of capital?")


def _found(texts: list[str], tmp_path) -> list[list[tuple[str, str, str]]]:
    return [[(m["eval_id"], m["unit"], m["method"]) for m in got]
            for got in mc_counted(tmp_path, [HOST + "\n" + t + "\n" + HOST for t in texts])]


def test_facts_in_a_questions_terms_are_not_its_restatement(tmp_path):
    # (before: both reported as rewrites of the question unit, 0.73 of its stem weight)
    assert _found([TCP_FACTS, RUBICON_FACTS], tmp_path) == [[], []]
    assert _found([TCP_RESTATED], tmp_path) == [[("tcp", "question", "rewrite")]]


def test_choices_named_without_their_question_are_not_the_item(tmp_path):
    # (before: the choices unit, 0.85 of its weight: three choices, each by words of its own)
    assert _found([TAX_STORY], tmp_path) == [[]]
    # with its question near them, all reworded, the rewrite tier finds the item
    [got] = _found([VAT_QUIZ], tmp_path)
    assert [(i, method) for i, _, method in got] == [("vat", "rewrite")]


def test_a_span_asks_when_its_sentences_or_one_either_side_ask():
    text = "Intro here. Janet pays $1.20 for a pen and $0.30 for an eraser. She buys 8 pens. Done."
    span = text.index("Janet"), text.index("eraser") + 6
    assert not asks(text, *span)  # (the points of 1.20 and 0.30 end no sentence)
    assert asks(text.replace("Done.", "How much does she pay?"), *span)  # a question after the facts
    first = "How much will 8 pens cost?. " + text  # ... or first, its mark doubled as a rule writes it
    assert asks(first, first.index("Janet"), first.index("eraser") + 6)
    assert asks("Name the layer that holds most ozone. Then explain.", 9, 20)
    assert not asks("One. Two. The layer holds most ozone. Three. What now?", 10, 30)
