"""audit.lengths: percentiles, log-spaced histogram, context fit, token counts."""
from __future__ import annotations

import json

import numpy as np
import pyarrow as pa
import pytest

from audit.lengths import TokenCounter, log_bin_edges
from tests.fixtures_datasets import length_summary


def test_percentiles_and_totals():
    chars = np.arange(1, 101)
    s = length_summary(chars, chars // 5)["overall"]
    assert s["documents"] == 100
    assert s["chars"]["p50"] == pytest.approx(50.5) and s["chars"]["p90"] == pytest.approx(90.1)
    assert s["chars"]["p99"] == pytest.approx(99.01) and s["chars"]["max"] == 100
    assert s["chars"]["total"] == 5050 and s["words"]["max"] == 20
    json.dumps(s)


def test_histogram_on_log_bins():
    edges = log_bin_edges(5000)
    assert edges[0] == 0 and edges[1] == 1 and edges[-1] >= 5000
    ratios = edges[2:] / edges[1:-1]
    assert np.allclose(ratios, 10 ** 0.25)
    chars = np.array([0, 3, 30, 300, 3000, 3000])
    hist = length_summary(chars, chars)["overall"]["chars"]["histogram"]
    assert sum(hist["counts"]) == 6 and hist["edges"] == pytest.approx(log_bin_edges(3000).tolist())
    assert hist["counts"][0] == 1  # the empty document sits in [0, 1)
    k = int(np.searchsorted(hist["edges"], 3000, side="right")) - 1
    assert hist["counts"][k] == 2


def test_context_fit_in_words_or_tokens():
    words = np.array([1000, 3000, 5000, 10000])
    fit = length_summary(words * 6, words, context_lengths=[4096])["overall"]["context_fit"]
    assert fit["unit"] == "words"
    c = fit["lengths"]["4096"]
    assert c["documents"] == 0.5
    assert c["text"] == pytest.approx(4000 / 19000)
    assert c["text_if_truncated"] == pytest.approx((1000 + 3000 + 4096 + 4096) / 19000)
    tokens = words * 2
    fit = length_summary(words * 6, words, tokens, context_lengths=[4096])["overall"]["context_fit"]
    assert fit["unit"] == "tokens" and fit["lengths"]["4096"]["documents"] == 0.25


def test_per_source_with_nulls_left_out():
    chars = pa.array([100, None, 300, 5000, 50], pa.int64())
    words = pa.array([20, None, 60, 1000, 10], pa.int64())
    sources = pa.array(["a", "a", "b", "b", "a"])
    s = length_summary(chars, words, sources=sources, context_lengths=[100])
    assert s["overall"]["documents"] == 4
    assert set(s["by_source"]) == {"a", "b"}
    assert s["by_source"]["a"]["documents"] == 2 and s["by_source"]["b"]["chars"]["max"] == 5000
    # every source's histogram uses the overall bins
    assert s["by_source"]["a"]["chars"]["histogram"]["edges"] == s["overall"]["chars"]["histogram"]["edges"]
    assert s["by_source"]["b"]["context_fit"]["lengths"]["100"]["documents"] == 0.5


def test_empty_input():
    s = length_summary([], [], sources=[])
    assert s["overall"]["documents"] == 0 and s["overall"]["chars"]["p50"] is None and s["by_source"] == {}
    json.dumps(s)


def test_mismatched_lengths_are_an_error():
    with pytest.raises(ValueError):
        length_summary([1, 2], [1])


def test_token_counter_with_a_tokenizer_built_here(tmp_path):
    from tokenizers import Tokenizer, models, pre_tokenizers, trainers

    tok = Tokenizer(models.WordLevel(unk_token="[UNK]"))
    tok.pre_tokenizer = pre_tokenizers.Whitespace()
    tok.train_from_iterator(["the cat sat on the mat", "the dog sat on the log"],
                            trainers.WordLevelTrainer(special_tokens=["[UNK]"]))
    path = tmp_path / "tokenizer.json"
    tok.save(str(path))
    counter = TokenCounter(path, batch_size=2)
    out = counter.count(pa.array(["the cat sat", "a bird flew over the mat .", None, ""]))
    assert out.type == pa.int64()
    # Whitespace pre-tokenizer: unknown words still count, one [UNK] each
    assert out.to_pylist() == [3, 7, None, 0]


def test_token_counter_missing_file(tmp_path):
    with pytest.raises(FileNotFoundError, match="tokenizer"):
        TokenCounter(tmp_path / "nope.json")


def _config_with_tokenizer(tmp_path, name: str):
    from audit.config import parse_config

    return parse_config({"input": {"paths": ["x"]}, "stats": {"tokenizer": name}}, base_dir=tmp_path)


def test_a_bad_tokenizer_file_is_a_config_error(tmp_path):
    from audit.config import ConfigError
    from audit.stages.tokens import TokenStage, load_token_counter

    (tmp_path / "broken.json").write_text('{"version": "1.0", "model": ', encoding="utf-8")
    with pytest.raises(ConfigError) as e:
        load_token_counter(_config_with_tokenizer(tmp_path, "broken.json"))
    msg = str(e.value)
    assert msg.startswith("stats.tokenizer:") and "broken.json" in msg and "\n" not in msg
    with pytest.raises(ConfigError, match="stats.tokenizer"):
        TokenStage(_config_with_tokenizer(tmp_path, "broken.json")).setup()
    with pytest.raises(ConfigError, match="stats.tokenizer: .*missing.json"):
        load_token_counter(_config_with_tokenizer(tmp_path, "missing.json"))


def test_token_stage_uses_the_counter_it_is_given(tmp_path):
    import pickle

    from tokenizers import Tokenizer, models, pre_tokenizers, trainers

    from audit.stages.tokens import TokenStage, load_token_counter

    tok = Tokenizer(models.WordLevel(unk_token="[UNK]"))
    tok.pre_tokenizer = pre_tokenizers.Whitespace()
    tok.train_from_iterator(["the cat sat"], trainers.WordLevelTrainer(special_tokens=["[UNK]"]))
    tok.save(str(tmp_path / "tokenizer.json"))
    counter = load_token_counter(_config_with_tokenizer(tmp_path, "tokenizer.json"))
    counter = pickle.loads(pickle.dumps(counter))  # shipped to the workers as shared state
    (tmp_path / "tokenizer.json").unlink()  # the stage must not read the file again
    stage = TokenStage(_config_with_tokenizer(tmp_path, "tokenizer.json"), counter=counter)
    out = stage(pa.table({"text": pa.array(["the cat sat .", None], pa.string())}))
    assert out.column("length_tokens").to_pylist() == [4, None]


def test_sketches_merge_to_the_whole_and_keep_their_error_bound():
    from audit.lengths import LengthSketch

    rng = np.random.default_rng(3)
    values = np.concatenate([rng.integers(0, 1024, 5000), rng.lognormal(9, 2, 20000).astype(np.int64)])
    parts = np.array_split(values, 7)
    merged = LengthSketch([4096])
    for part in parts:  # each part travels as JSON, as a worker's partial does
        sk = LengthSketch([4096])
        sk.add(part)
        merged.merge(LengthSketch.from_dict(json.loads(json.dumps(sk.to_dict()))))
    whole = LengthSketch([4096])
    whole.add(values)
    assert merged.describe() == whole.describe()
    d = merged.describe()
    for q in (50, 90, 95, 99):
        assert d[f"p{q}"] == pytest.approx(float(np.percentile(values, q)), rel=0.006)
    assert d["total"] == float(values.sum()) and d["max"] == float(values.max())
    assert merged.context_fit()["4096"]["documents"] == pytest.approx(float((values <= 4096).mean()))
    small = LengthSketch()
    small.add(np.arange(1, 101))
    assert small.describe()["p50"] == 50.5  # exact below 1024
