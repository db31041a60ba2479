"""The shared normaliser and its vectorised word hashing (used by dedup and contamination)."""
from __future__ import annotations

import json
import random

import numpy as np
import pyarrow as pa
import pytest

from audit.normalize import (_space_cuts, chunk_texts, hash_word, ngram_hashes, normalize, normalize_array,
                             tokenize_hashed, words)


def _word_hashes(tokens, i: int) -> list[int]:
    return tokens.hashes[tokens.bounds[i]:tokens.bounds[i + 1]].tolist()


def test_normalize_semantics_are_unchanged():
    assert normalize("Hello,  World!\n3+4=7  ") == "hello world 347"
    assert normalize("ＡＢＣ ﬁsh — Café") == "abc fish café"
    out = normalize_array(pa.array(["A  b", None, ""], pa.string())).to_pylist()
    assert out == ["a b", None, ""]


def test_words_are_the_normalised_whitespace_runs():
    assert words("Hello, World! 3+4=7 -- x") == ["hello", "world", "347", "x"]
    assert words("a\u2028b\u3000c\td") == ["a", "b", "c", "d"]  # Unicode separators split words
    assert words("") == []
    assert " ".join(words("The  QUICK, brown fox.")) == normalize("The  QUICK, brown fox.")


def test_han_and_kana_characters_are_words_of_their_own():
    """Chinese and Japanese write words without spaces: each character is a word (n-grams of a
    Chinese sentence are character n-grams); a letter of an alphabet written without spaces (Thai)
    is not, nor a full-width Latin letter (its normal form is ASCII)."""
    assert words("下列哪一项，最能描述？") == ["下", "列", "哪", "一", "项", "最", "能", "描", "述"]
    assert words("用Python写3个 ＡＢＣ カタカナ") == ["用", "python", "写", "3", "个", "abc", "カ", "タ", "カ", "ナ"]
    assert words("ภาษาไทย 한국어") == ["ภาษาไทย", "한국어"]
    text = "用Python写，好。"
    tokens = tokenize_hashed([text])
    assert [text[a:b] for a, b in zip(tokens.starts, tokens.ends)] == ["用", "Python", "写", "好"]
    assert _word_hashes(tokens, 0) == [hash_word(w) for w in words(text)]


def test_vectorised_hashes_equal_the_reference_on_tricky_text():
    texts = ["Hello, World! 3+4=7 café cafe\u0301 ﬁsh  — x", None, "",
             "ΟΔΟΣ İstanbul a\u00a8b\nnext\tline", "中文，测试。 full\u3000width ＡＢＣ x\u000by z\u0085w ½ ㈱",
             "  leading and trailing  ", "한국어 \u1100\u1161\u11a8 jamo"]
    tokens = tokenize_hashed(texts)
    assert len(tokens.bounds) == len(texts) + 1
    for i, t in enumerate(texts):
        assert _word_hashes(tokens, i) == [hash_word(w) for w in words(t or "")], t


def test_vectorised_hashes_equal_the_reference_on_random_unicode():
    rng = random.Random(3)
    texts = []
    for _ in range(400):
        chars = []
        for _ in range(rng.randint(0, 30)):
            r = rng.random()
            chars.append(" " if r < 0.2 else chr(rng.randint(33, 126)) if r < 0.5 else
                         chr(rng.randint(0x80, 0x3000)) if r < 0.8 else chr(rng.randint(0xE000, 0x2FFFF)))
        texts.append("".join(chars))
    tokens = tokenize_hashed(texts)
    for i, t in enumerate(texts):
        assert _word_hashes(tokens, i) == [hash_word(w) for w in words(t)], ascii(t)


@pytest.mark.slow  # seconds, not milliseconds: kept out of the fast tier
def test_vectorised_hashes_on_real_multilingual_text(shared_data):
    path = shared_data / "multilingual" / "lingua_testdata_sentences.jsonl"
    lines = path.read_text(encoding="utf-8").splitlines()[::97]
    texts = [json.loads(line)["text"] for line in lines]
    tokens = tokenize_hashed(texts)
    for i, t in enumerate(texts):
        assert _word_hashes(tokens, i) == [hash_word(w) for w in words(t)], t


def test_offsets_point_at_the_original_words():
    text = "  Über-cool,\tCAFÉ\n\n«quoted» (x)  "
    tokens = tokenize_hashed(["first text", text])
    a, b = tokens.bounds[1], tokens.bounds[2]
    originals = [text[s:e] for s, e in zip(tokens.starts[a:b], tokens.ends[a:b])]
    assert originals == ["Über-cool,", "CAFÉ", "«quoted»", "(x)"]
    assert [normalize(o) for o in originals] == words(text)


def test_same_words_hash_the_same_whatever_case_and_punctuation():
    tokens = tokenize_hashed(["The cat, sat.", "the CAT sat", "the dog sat"])
    assert _word_hashes(tokens, 0) == _word_hashes(tokens, 1)
    assert _word_hashes(tokens, 0)[1] != _word_hashes(tokens, 2)[1]


def test_ngrams_stay_inside_their_text():
    tokens = tokenize_hashed(["a b c d", "e f", "g h i"])
    grams, first = ngram_hashes(tokens, 3)
    assert first.tolist() == [0, 1, 6]  # "a b c", "b c d", "g h i"; nothing across texts
    again, _ = ngram_hashes(tokenize_hashed(["x y z a b c"]), 3)
    assert grams[0] == again[-1]  # the same 3 words give the same n-gram anywhere
    assert len(np.unique(grams)) == 3


def test_short_texts_get_one_whole_text_gram_on_request():
    tokens = tokenize_hashed(["a b", "", "c d e f"])
    grams, first = ngram_hashes(tokens, 3)
    assert first.tolist() == [2, 3]
    grams, first = ngram_hashes(tokens, 3, short=True)
    assert first.tolist() == [0, 2, 3]
    other, _ = ngram_hashes(tokenize_hashed(["A, B!"]), 3, short=True)
    assert grams[0] == other[0]


def test_chunks_cover_every_text_once():
    texts = ["x" * 10, None, "y" * 30, "z" * 5, "w" * 100]
    runs = list(chunk_texts(texts, max_chars=25))
    assert runs[0][0] == 0 and runs[-1][1] == len(texts)
    assert all(a < b for a, b in runs)
    assert all(runs[k][1] == runs[k + 1][0] for k in range(len(runs) - 1))


def test_chunked_tokenising_equals_one_pass():
    texts = ["Alpha beta, gamma.", None, "delta " * 50, "", "ε ζ η θ", "last one here"]
    whole = tokenize_hashed(texts, max_chars=10**9)
    parts = tokenize_hashed(texts, max_chars=20)
    for name in ("hashes", "starts", "ends", "bounds"):
        assert np.array_equal(getattr(whole, name), getattr(parts, name)), name


def test_long_words_and_many_runs_hash_as_the_reference(monkeypatch):
    """Words past the 64 ranks of the ASCII table, a run's first word, and a batch cut into many
    cache-sized runs (each text's words do not depend on which run holds it)."""
    import audit.normalize as normalize_module

    texts = ["x" * 200 + " short " + "Ab" * 40, "é" * 70 + " " + "y" * 63 + "é", None, "a" * 64, "",
             "ΟΔΟΣ " * 30 + "z" * 65]
    one_run = tokenize_hashed(texts)
    for i, t in enumerate(texts):
        assert _word_hashes(one_run, i) == [hash_word(w) for w in words(t or "")], i
    monkeypatch.setattr(normalize_module, "_RUN_CHARS", 70)  # about a run per text
    runs = tokenize_hashed(texts)
    for name in ("hashes", "starts", "ends", "bounds"):
        assert np.array_equal(getattr(one_run, name), getattr(runs, name)), name


def test_the_hard_words_of_every_run_are_normalised_in_one_call(monkeypatch):
    """Words whose normal form depends on neighbouring characters go through normalize_array, whose
    every call compiles its patterns again: one call for the runs of a batch, the same words."""
    import audit.normalize as normalize_module

    texts = ["e\u0301t\u00e9 one", "x\u0308y two", None, "नमस्ते three", "plain"]
    whole = tokenize_hashed(texts, max_chars=10**9)
    calls = []
    real = normalize_module.normalize_array
    monkeypatch.setattr(normalize_module, "normalize_array", lambda a: calls.append(len(a)) or real(a))
    parts = tokenize_hashed(texts, max_chars=5)  # a run per text
    assert calls == [3]
    for name in ("hashes", "starts", "ends", "bounds"):
        assert np.array_equal(getattr(whole, name), getattr(parts, name)), name
    assert _word_hashes(parts, 0) == [hash_word(normalize("e\u0301t\u00e9")), hash_word("one")]


def test_lone_surrogates_are_dropped_not_fatal():
    tokens = tokenize_hashed(["ab\udc80c e\u0301\udc80 plain"])
    assert _word_hashes(tokens, 0) == [hash_word("abc"), hash_word("é"), hash_word("plain")]


def _mixed_text(words: int, seed: int) -> str:
    rng = random.Random(seed)
    vocab = ["Hello", "WORLD,", "naïve", "Ǆemal", "e\u0301t\u00e9", "日本語", "x\u0308y", "!!", "–", "z" * 70]
    seps = [" ", "\n", "\u3000", "  ", "\u00a0"]
    return "".join(rng.choice(vocab) + rng.choice(seps) for _ in range(words))


@pytest.mark.slow  # seconds, not milliseconds: kept out of the fast tier
def test_a_long_text_is_tokenised_in_pieces_with_the_same_result():
    texts = [_mixed_text(4000, 1), None, "short one", _mixed_text(3000, 2) + "L" * 500 + " tail"]
    whole = tokenize_hashed(texts, max_chars=10**9)
    for max_chars in (64, 333, 5000):  # pieces cut inside the text; the 500-letter word longer than some
        parts = tokenize_hashed(texts, max_chars=max_chars)
        for name in ("hashes", "starts", "ends", "bounds"):
            assert np.array_equal(getattr(whole, name), getattr(parts, name)), (max_chars, name)


def test_one_huge_text_takes_memory_by_piece_not_by_length():
    import tracemalloc

    rng = random.Random(0)
    text = " ".join(f"w{rng.randint(0, 99999)}" for _ in range(400_000))  # ~2.7M characters
    tokenize_hashed(["warm up"])
    tracemalloc.start()
    try:
        tokens = tokenize_hashed([text], max_chars=100_000)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert len(tokens.hashes) == 400_000 and text[tokens.starts[-1]:tokens.ends[-1]] == text.rsplit(" ", 1)[1]
    # whole: ~45 bytes a character (~120 MB); in pieces: the result (32 bytes a word) and the pieces
    assert peak < 45 * 2**20, peak / 2**20


def test_a_long_line_of_chinese_is_cut_between_its_characters():
    """No white space at all, but each Han character is a word: pieces end before one, and the
    words are those of one pass."""
    rng = random.Random(1)
    text = "".join(chr(rng.randint(0x4E00, 0x9FFF)) + ("，" if k % 9 == 8 else "") for k in range(30_000))
    whole = tokenize_hashed([text, "x"], max_chars=10**9)
    parts = tokenize_hashed([text, "x"], max_chars=1000)
    for name in ("hashes", "starts", "ends", "bounds"):
        assert np.array_equal(getattr(whole, name), getattr(parts, name)), name
    assert whole.bounds[1] == 30_000
    pieces = _space_cuts(text, 1000)  # (before: one piece of the whole line, its memory with it)
    assert len(pieces) > 30 and max(b - a for a, b in pieces) <= 1000 and pieces[-1][1] == len(text)
