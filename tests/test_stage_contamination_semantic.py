"""The semantic contamination tier: WordLlama embeddings (from its wheel) propose, alignment confirms."""
from __future__ import annotations

import socket
from pathlib import Path

import pyarrow as pa
import pytest

from audit.config import parse_config
from audit.stages.contamination import ContaminationIndex, ContaminationStage, counted, first_match
from tests.fixtures_contamination import EVERY_THIRD, HOST, STORY

# The same template, another story: topical neighbours, not a leak.
OTHER = ("Maria runs a small flower shop near the station. Every morning she sells forty roses and "
         "sixty tulips before noon. On Saturdays her sister helps her and they sell twice as many tulips. "
         "How many tulips does the shop sell over a week that has one Saturday in it?")
QUESTION = "How many apples does Tom have if he buys three more at the shop today?"


def _config(**contamination):
    return parse_config({"input": {"paths": ["x/"]}, "contamination": contamination}, base_dir=Path("/"))


def _run(config, texts):
    index = ContaminationIndex.from_items([("gsm", ["s1", "q1"], [STORY, QUESTION])], config.contamination)
    out = ContaminationStage(config, index)(pa.table({"text": pa.array(texts, pa.string())}))
    return out, counted(out.column("contamination"), config).to_pylist()


def test_every_third_word_replaced_is_found_by_the_semantic_tier_only():
    texts = [HOST + "\n" + EVERY_THIRD + "\n" + HOST, HOST + "\n" + OTHER + "\n" + HOST, HOST]
    config = _config(semantic=True, rewrite=False)  # the rewrite tier finds it too (test_stage_contamination_units)
    out, (leak, other, clean) = _run(config, texts)
    assert [(m["eval_id"], m["method"]) for m in leak] == [("s1", "semantic")]
    m = leak[0]
    assert 0.5 <= m["coverage"] < 1.0 and m["evidence"][0].startswith("cosine ")
    at = texts[0].index(EVERY_THIRD)
    assert all(at <= a < b <= at + len(EVERY_THIRD) for a, b in m["spans"]) and m["longest_span"] in m["spans"]
    assert other == [] and clean == []
    assert first_match(out, config)["method"] == "semantic"
    assert first_match(out, _config(semantic=True, rewrite=False, canary_methods=["exact_ngram"])) is None
    # The semantic threshold judges it: raised over its coverage, it no longer counts.
    assert counted(out.column("contamination"),
                   _config(semantic=True, rewrite=False, semantic_threshold=0.9)).to_pylist()[0] == []
    # Off (the default), nothing else finds it.
    assert _run(_config(rewrite=False), texts)[1] == [[], [], []]


def test_model_loads_from_the_wheel_with_no_network(monkeypatch):
    from audit.stages.semantic import WordVectors

    def no_network(*args, **kwargs):
        raise AssertionError("the semantic tier tried to open a connection")
    monkeypatch.setattr(socket.socket, "connect", no_network)
    vectors = WordVectors(64)
    [bakery, bread, council] = vectors.embed_words(["bakery", "bread", "council"])
    assert bakery.shape == (64,) and abs(bakery).sum() > 0
    cos = lambda a, b: float(a @ b / ((a @ a) ** 0.5 * (b @ b) ** 0.5))  # noqa: E731
    assert cos(bakery, bread) > cos(bakery, council)


def test_word_vectors_are_numpys_own_sums_of_the_token_vectors():
    # embed_words sums a word's token vectors by token count, in numpy's reduction order: bit for
    # bit what np.add.reduceat gives (the vectors the eval index was measured with); a numpy that
    # sums in another order fails here
    import itertools

    import numpy as np

    from audit.stages.semantic import WordVectors
    vectors = WordVectors(64)
    words = ["bakery", "the", "unbelievably", "x" * 700, "ab" * 90, "", "zq" * 7, "floccinaucinihilipilification"]
    ids = [e.ids for e in vectors.tokenizer.encode_batch(words, add_special_tokens=False)]
    sizes = [len(i) for i in ids]
    assert {0, 1}.issubset(set(sizes)) and max(sizes) > 128 and any(8 <= n <= 128 for n in sizes)
    flat = np.array(list(itertools.chain.from_iterable(ids)), dtype=np.int64)
    starts = np.cumsum([0] + sizes[:-1])[[n > 0 for n in sizes]]
    want = np.zeros((len(words), 64), dtype=np.float32)
    want[[n > 0 for n in sizes]] = np.add.reduceat(vectors.table[flat], starts, axis=0)
    assert np.array_equal(vectors.embed_words(words).view(np.uint32), want.view(np.uint32))


@pytest.mark.parametrize("key,value", [("semantic_dim", 100), ("semantic_similarity", 0.0)])
def test_bad_semantic_settings_are_refused(key, value):
    with pytest.raises(Exception, match=key):
        _config(semantic=True, **{key: value})


def test_index_ships_to_a_worker_without_the_model_and_matches_the_same():
    import pickle
    config = _config(semantic=True)
    index = ContaminationIndex.from_items([("gsm", ["s1", "q1"], [STORY, QUESTION])], config.contamination)
    blob = pickle.dumps(index)
    assert len(blob) < 2_000_000  # the 32 MB model table stays behind; the worker loads its own
    text = [HOST + "\n" + EVERY_THIRD + "\n" + HOST]
    assert pickle.loads(blob).match(text) == index.match(text)


def test_word_vectors_keep_their_vocabulary_in_the_cache_and_a_worker_never_loads_the_tokenizer(tmp_path,
                                                                                              monkeypatch):
    """The vocabulary's hashes are derived once into the user's cache folder; a worker unpickling the
    vectors reads them and leaves the tokenizer unloaded; a damaged cached copy is derived again."""
    import pickle

    import numpy as np

    from audit.stages.semantic import WordVectors
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    first = WordVectors(64)
    [cached] = (tmp_path / "audit").glob("wordllama-vocabulary-*.npz")
    worker = pickle.loads(pickle.dumps(first))
    assert worker._tokenizer is None
    # (the worker's table ends in the zero row of words outside the vocabulary)
    assert np.array_equal(worker.keys, first.keys) and np.array_equal(worker.vecs[:-1], first.vecs)
    cached.write_bytes(b"not an npz file")
    again = WordVectors(64)
    assert np.array_equal(again.keys, first.keys) and np.array_equal(again.vecs, first.vecs)
