"""Multiple-choice items reworded as a model rewords them, found by the rewrite tier
(audit/stages/contamination_rewrite.py): every inflection of a word meets at one stem (the item's
"address" is the rewording's "addresses"), and the embedding that confirms a match is of the
rewording (with the words just around it: "which cost: sunk, marginal..."), not of the host text
around it that happens to hold one more of the item's words; a clean look-alike (that host text
alone, the choices' words in another sentence) is none."""
from __future__ import annotations

import pytest

from audit.stages.contamination_rewrite import _forms, stem_words
from tests.fixtures_rewrite import NEWS, mc_counted


@pytest.mark.parametrize("words", [("power", "powers", "powered"), ("address", "addresses", "addressed"),
                                   ("teacher", "teachers"), ("station", "stations"), ("state", "states", "stated"),
                                   ("bonus", "bonuses"), ("building", "buildings"), ("class", "classes"),
                                   ("transfer", "transferred", "transferring"), ("request", "requested"),
                                   ("activity", "activities"), ("apply", "applied", "applies"), ("kilowatt", "kilowatts")])
def test_every_inflection_of_a_word_meets_at_one_stem_and_is_one_of_its_forms(words):
    stems = set(stem_words(list(words)))
    assert len(stems) == 1, stems
    (forms,) = _forms(list(stems))
    assert set(words) <= set(forms)


def test_short_words_keep_their_letters():
    # a stem keeps 4 letters before -er/-est, 5 before a noun suffix: meter is no "met", city no "c"
    assert stem_words(["meter", "meters", "forest", "city", "cities"]) == ["meter", "meter", "forest", "city", "city"]


# The DNA question reworded without one of its words (unwinds) ...
DNA_REWORDED = ("At the replication fork, which enzyme breaks the hydrogen bonds joining base pairs in the "
                "double helix of DNA?")
# ... and host text a few words on that holds that word, among words of its own.
AFTER = "The museum reopened its east wing on Saturday, where volunteers were unwinding the long banners."


def _rewrite(matches: list[dict], item: str) -> list[dict]:
    return [m for m in matches if m["eval_id"] == item and m["method"] == "rewrite"]


def test_a_rewording_is_confirmed_by_its_own_span_not_the_host_text_holding_one_more_word(tmp_path):
    # a strict similarity, so that the host's words in a span (cosine 0.87 here) fail it; the stems
    # alone (the sentence embedding finds the rewording too: test_contamination_translation.py)
    found, alone = mc_counted(tmp_path, [DNA_REWORDED + " " + AFTER, AFTER + " " + NEWS],
                              {"rewrite_similarity": 0.9, "rewrite_translation": False})
    (m,) = [m for m in _rewrite(found, "dna") if m["unit"] == "question"]
    assert m["evidence"][0].startswith("cosine")
    stems = m["evidence"][1].split()
    assert {"replicat", "hydrogen", "helix"} <= set(stems) and "unwind" not in stems and m["coverage"] < 1
    ((a, b),) = m["spans"]
    span = (DNA_REWORDED + " " + AFTER)[a:b]
    assert "museum" not in span and "fork" in span
    assert _rewrite(alone, "dna") == []


# Items about costs: "cost" is in most of them (no evidence), and the choices of the first are
# "<kind> cost" four times.
COST_ITEMS = [
    ("opportunity", "In economics, what term describes the value of the next best alternative that is given up "
                    "when a choice is made?", ["Sunk cost", "Marginal cost", "Opportunity cost", "Fixed cost"]),
    ("average", "How is the average cost of a firm computed from its total cost and its output?",
     ["Total cost over output", "Output over total cost", "Total cost minus output", "Total cost times output"]),
    ("shipping", "Which cost rises with every unit a warehouse ships to a customer?",
     ["Variable cost", "Rent", "Insurance", "Salaries"]),
    ("menu", "What do economists call the cost a restaurant pays to reprint its menu when prices change?",
     ["Menu cost", "Shoe-leather cost", "Transaction cost", "Search cost"]),
]
# The choices, named in a sentence of other words; "cost" stands just before them.
CHOICES_NAMED = ("The worth of the next-best option you forgo when choosing is known as which cost: sunk, "
                 "marginal, opportunity or fixed?")


def test_the_words_just_around_a_span_count_in_its_embedding(tmp_path):
    # the span "sunk, marginal, opportunity or fixed" alone is far from "Sunk cost Marginal cost
    # Opportunity cost Fixed cost"; with "which cost:" before it, near
    (got, clean) = mc_counted(tmp_path, [CHOICES_NAMED, "Sunk, marginal, or fixed: the house rules are posted."],
                              items=COST_ITEMS)
    (m,) = _rewrite(got, "opportunity")
    assert m["unit"] == "choices" and set(m["evidence"][1].split()[1:]) == {"sunk", "marginal", "opportun", "fix"}
    assert _rewrite(clean, "opportunity") == []
