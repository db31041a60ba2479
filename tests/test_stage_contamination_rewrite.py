"""The rewrite tier on short multiple-choice questions: a question restated in other words, alone or
with its choices reworded, is found and its evidence names the unit; prose sharing a few of its
words is not."""
from __future__ import annotations

from audit.stages.contamination_rewrite import stems_needed, stem_words
from tests.fixtures_rewrite import DNA_FULL, DNA_RESTATED, FPGA, FPGA_RESTATED, HOST, MC_ITEMS, NEWS, mc_config, mc_counted


def test_a_restated_multiple_choice_question_is_found_by_its_question_unit(tmp_path):
    [got] = mc_counted(tmp_path, [HOST + "\n" + DNA_RESTATED + "\n" + HOST])
    [m] = got
    assert (m["eval_id"], m["unit"], m["method"]) == ("dna", "question", "rewrite")
    assert m["evidence"][0].startswith("cosine ")
    stems = set(m["evidence"][1].split()[1:])  # the unit's rarest stems found in the window
    assert {"hydrogen", "replicat", "helix"} <= stems
    [[a, b]] = m["spans"]
    text = HOST + "\n" + DNA_RESTATED + "\n" + HOST
    assert "fork" in text[a:b] and "DNA" in text[a:b]
    off = mc_counted(tmp_path, [HOST + "\n" + DNA_RESTATED + "\n" + HOST], {"rewrite": False})
    assert off == [[]]


def test_a_question_restated_with_its_choices_is_found(tmp_path):
    # the stems alone (the sentence embedding finds its question too: test_contamination_translation.py)
    [got] = mc_counted(tmp_path, [HOST + "\n" + DNA_FULL + "\n" + HOST], {"rewrite_translation": False})
    assert [m["eval_id"] for m in got] == ["dna"]
    [m] = got
    # the whole item (question and choices) is the best unit: the choices' terms are its evidence too
    assert (m["method"], m["unit"]) == ("rewrite", "item") and m["coverage"] >= 0.5
    assert {"helicas", "topoisomeras", "replicat"} <= set(m["evidence"][1].split()[1:])


def test_news_sharing_a_few_of_the_questions_words_is_not_found(tmp_path):
    assert mc_counted(tmp_path, [NEWS, HOST + "\n" + NEWS]) == [[], []]


def test_a_short_question_needs_half_its_stems_and_nouns_share_their_verbs_stem():
    # 7 or 8 evidence stems: 4 in a window (was 5); fewer: 60%, at least 3; more: 5
    assert [stems_needed(n) for n in (4, 5, 6, 7, 8, 9, 20)] == [3, 3, 4, 4, 4, 5, 5]
    words = ["acceleration", "accelerates", "immunity", "immune", "station", "state"]
    assert stem_words(words) == ["accelerat", "accelerat", "immun", "immun", "station", "stat"]


def test_form_hashes_are_kept_per_stem_list_and_a_foreign_copy_is_derived_again(tmp_path, monkeypatch):
    """The forms of an eval set's stems come from the cache folder on the second build, equal to
    those derived; a cached copy that does not fit the stems (another list's) is not used."""
    import numpy as np

    from audit.normalize import hash_words
    from audit.stages import contamination_rewrite as cr

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "home"))
    stems = ["teach", "run", "address", "1648"]
    want = [hash_words(f) for f in cr._forms(stems)]
    h, count = cr.form_hashes(stems)
    assert count.tolist() == [len(w) for w in want] and np.array_equal(h, np.concatenate(want))
    assert any((tmp_path / "home" / "audit").glob("rewrite-forms-*.npz"))
    calls = []
    monkeypatch.setattr(cr, "_forms", lambda s: calls.append(s) or [])
    again, _ = cr.form_hashes(stems)  # from the cache: _forms not called
    assert calls == [] and np.array_equal(again, h)
    monkeypatch.undo()
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "home"))
    (kept,) = (tmp_path / "home" / "audit").glob("rewrite-forms-*.npz")
    np.savez(kept, hash=h[:3], count=count)  # a copy that does not add up (damaged or planted)
    fixed, fixed_count = cr.form_hashes(stems)
    assert np.array_equal(fixed, h) and fixed_count.tolist() == count.tolist()


def test_compounds_meet_written_apart_hyphenated_or_joined(tmp_path):
    """A unit's hyphenated word is found written apart, its joined word at a split into two words,
    and two adjacent words of it found hyphenated or joined; one part alone is no compound."""
    import numpy as np

    from audit.normalize import tokenize_hashed
    from audit.stages.contamination import ContaminationIndex

    rw = ContaminationIndex.build(mc_config(tmp_path, items=MC_ITEMS + [FPGA])).rewrite
    records = ["field programmable", "hardware description languages", "gate-array", "gatearrays",
               "bread board", "field", "gate array"]
    tokens = tokenize_hashed(records)
    word, stem = rw.bridges.hits(tokens, np.arange(len(tokens.hashes)))
    found = [sorted({rw.names[s] for w, s in zip(word.tolist(), stem.tolist()) if tokens.text_of[w] == k})
             for k in range(len(records))]
    [programmable, description, board, gate, array] = stem_words(
        ["fieldprogrammable", "hardwaredescription", "breadboard", "gate", "array"])
    pair = sorted([gate, array])
    assert found == [[programmable], [description], pair, pair, [board], [], []]


def test_a_restatement_writing_the_compounds_otherwise_is_found(tmp_path):
    [got] = mc_counted(tmp_path, [HOST + "\n" + FPGA_RESTATED + "\n" + HOST], items=MC_ITEMS + [FPGA])
    [m] = got
    assert (m["eval_id"], m["method"], m["unit"]) == ("fpga", "rewrite", "question")
    assert {"fieldprogrammabl", "breadboard"} <= set(m["evidence"][1].split()[1:])


# An instruction (no question mark), the same asked, and text about its topic (a textbook's lines).
EDGES = ("edges", "Find the number of edges in a complete graph with 10 vertices.", ["45", "90", "100", "55"])
EDGES_ASKED = "How many edges does a complete graph on 10 vertices have?"
GRAPH_TEXT = ("Graph theory basics: a complete graph joins every pair of vertices by an edge, and the edges of a tree "
              "number one fewer than its vertices.")


def test_an_instruction_asks_as_a_question_does(tmp_path):
    """A unit of one line opening with a request (find, name, select...) is matched by a span that
    asks, as a question is, not by text naming its terms (each of these at cosine 0.77-0.87)."""
    stems_alone = {"rewrite_translation": False}
    asked, about = mc_counted(tmp_path, [HOST + " " + EDGES_ASKED, GRAPH_TEXT], stems_alone, items=MC_ITEMS + [EDGES])
    assert [(m["eval_id"], m["unit"], m["method"]) for m in asked] == [("edges", "question", "rewrite")]
    assert about == []
