"""Exact duplicates: normalised text keys, raw-text fallback, earliest record kept."""
from __future__ import annotations

import pyarrow as pa
import pytest

from audit.config import AuditConfig
from audit.normalize import WORD_COLUMNS, with_tokens
from audit.dedup.exact import exact_duplicates
from audit.stages.exact_dup import ExactDupStage

CFG = AuditConfig(input={"paths": ["x"]})


def keys(texts: list[str | None], shared_words: bool = False) -> list[bytes | None]:
    t = pa.table({"text": pa.array(texts, pa.string())})
    if shared_words:
        t = with_tokens(t)
    return ExactDupStage(CFG)(t).column("exact_key").to_pylist()


def test_normalised_copies_share_a_key() -> None:
    k = keys(["Hello, World!", "hello   world", "HELLO\nWORLD.", "hello worlds", None])
    assert k[0] == k[1] == k[2]
    assert k[3] != k[0]
    assert k[4] is None


def test_text_with_no_words_is_keyed_by_its_raw_text() -> None:
    k = keys(["\x01\x02\x03", "\x01\x02\x03", "\x01\x02", "", "", "   "])
    assert k[0] == k[1] and k[0] != k[2]
    assert k[3] == k[4] and k[3] != k[5]
    assert None not in k
    assert k[0] != keys(["hello"])[0]


@pytest.mark.parametrize("texts", [["Café au lait — 3+4=7", "café au lait 347", "x"], ["", "日本語のテキスト。", None]])
def test_shared_words_give_the_same_keys(texts: list) -> None:
    """The pipeline's one tokenisation per block and a stage alone agree."""
    assert keys(texts, shared_words=True) == keys(texts)


def test_word_columns_are_internal() -> None:
    t = with_tokens(pa.table({"text": ["a b c", None]}))
    assert all(c in t.column_names for c in WORD_COLUMNS)
    assert t.column(WORD_COLUMNS[0]).to_pylist()[1] == []


def test_earliest_record_is_kept_across_shards() -> None:
    t = pa.table({"doc_id": ["a", "b", "c", "d", "e"], "shard_index": pa.array([1, 0, 0, 1, 0], pa.int32()),
                  "record": [0, 5, 1, 2, 3], "text": ["Hello, World", "hello world!", "other", None, "  HELLO world "]})
    t = ExactDupStage(CFG)(t)
    dups = {r["doc_id"]: r for r in exact_duplicates(t.select(["doc_id", "shard_index", "record", "exact_key"])).to_pylist()}
    # e is shard 0 record 3: earlier than b (0, 5) and a (1, 0)
    assert set(dups) == {"a", "b"}
    assert {r["kept_doc_id"] for r in dups.values()} == {"e"}
    assert {r["cluster_id"] for r in dups.values()} == {"exact-e"} and {r["kind"] for r in dups.values()} == {"exact"}


def test_order_keys_hold_past_ten_billion_records():
    """A million shards of 10^10 records' positions map to distinct, ordered int64 keys."""
    import numpy as np
    import pyarrow as pa

    from audit.records import make_doc_id
    from audit.dedup.exact import global_order

    shard = np.array([0, 0, 999_999, 999_999, 1_000_000], dtype=np.int32)
    record = np.array([0, 10**10, 0, 10**10, 5], dtype=np.int64)
    order = global_order(pa.table({"shard_index": shard, "record": record}))
    assert order.dtype == np.int64 and (order >= 0).all() and (np.diff(order) > 0).all()
    assert len(make_doc_id("s", 1)) == 33  # "d" + 128 bits in hex
