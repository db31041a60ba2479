"""The Tagger: every stage over a block; a record a stage cannot measure is named, not fatal."""
from __future__ import annotations

import pyarrow as pa
import pyarrow.compute as pc

from audit.config import AuditConfig
from audit.decide import Decider
from audit.tagger import Tagger
from audit.stages import ConfigStage
from audit.stages.charset import CharsetStage
from audit.stages.exact_dup import ExactDupStage
from audit.stages.length import LengthStage
from tests.fixtures_stages import records

CFG = AuditConfig(input={"paths": ["x"]})


class RejectsMarkedText(ConfigStage):
    """A stage with a bug that only one record triggers (as a library bug would)."""

    name = "picky"

    def __call__(self, batch: pa.Table) -> pa.Table:
        texts = batch.column("text").to_pylist()
        if any(t and "\u2063BOOM" in t for t in texts):
            raise ValueError("cannot handle this record")
        return batch.append_column("picky_chars", pc.utf8_length(batch.column("text")))


def test_one_bad_record_is_named_and_the_rest_measured() -> None:
    texts = ["first record of prose here", "second one", "third \u2063BOOM record", None, "fifth record"]
    stages = [LengthStage(CFG), RejectsMarkedText(CFG), ExactDupStage(CFG), CharsetStage(CFG)]
    out = Tagger(CFG, stages=stages)(records(texts))
    assert out.num_rows == 5 and "text" not in out.column_names
    errors = out.column("error").to_pylist()
    assert errors[2].startswith("could not be measured: stage picky: ValueError: cannot handle this record")
    assert [e is None for i, e in enumerate(errors) if i != 2] == [True] * 4
    assert out.column("picky_chars").to_pylist() == [26, 10, None, None, 12]
    assert out.column("length_words").to_pylist()[2] is None  # measured as unreadable: no text
    decided = Decider(CFG, stages)(out)
    assert decided.column("reasons").to_pylist()[2] == ["unreadable"]
    reasons = decided.column("reasons").to_pylist()
    assert all("unreadable" not in reasons[i] for i in (0, 1, 4))


def test_a_block_that_measures_cleanly_is_one_pass() -> None:
    out = Tagger(CFG, stages=[LengthStage(CFG)])(records(["a b c d e f", "g h"]))
    assert out.column("length_words").to_pylist() == [6, 2]
    assert pc.all(pc.is_null(out.column("error"))).as_py()


def test_retried_blocks_are_counted_and_timing_is_one_figure_per_block() -> None:
    tagger = Tagger(CFG, stages=[LengthStage(CFG), RejectsMarkedText(CFG)])
    out = tagger(records(["fine text", "bad \u2063BOOM", "more text"]))
    assert not [c for c in out.column_names if c.startswith("_")]  # no per-row timing column
    stats = tagger.take_stats()
    assert stats["retried_blocks"] == {"stage picky": 1}
    assert stats["records_failed"] == {"stage picky": 1}  # the one record it cannot measure
    assert set(stats["seconds"]) == {"length", "picky"} | ({"words"} if tagger.words else set())
    assert tagger.take_stats() == {"seconds": {}, "retried_blocks": {}, "records_failed": {}}  # taken, then reset


def test_a_record_alone_in_its_block_is_quarantined_not_fatal() -> None:
    tagger = Tagger(CFG, stages=[LengthStage(CFG), RejectsMarkedText(CFG)])
    out = tagger(records(["x \u2063BOOM " * 1000]))  # a huge record fills a block by itself
    assert out.num_rows == 1
    assert out.column("error").to_pylist()[0].startswith("could not be measured: stage picky")
    assert tagger.take_stats()["retried_blocks"] == {"stage picky": 1}


class CountsSetups(ConfigStage):
    """Writes how many times it was set up."""

    name = "counted"
    writes = ("counted_setups",)

    def __init__(self, config: AuditConfig) -> None:
        super().__init__(config)
        self.setups = 0

    def setup(self) -> None:
        self.setups += 1

    def __call__(self, batch: pa.Table) -> pa.Table:
        return batch.append_column("counted_setups", pa.array([self.setups] * batch.num_rows, pa.int64()))


def test_the_tagger_sets_each_stage_up_once_before_its_first_block() -> None:
    stage = CountsSetups(CFG)
    assert stage.setups == 0  # building a stage is cheap: decide builds stages to judge only
    tagger = Tagger(CFG, stages=[LengthStage(CFG), stage])
    assert stage.setups == 1
    first, second = tagger(records(["a b c"])), tagger(records(["d e", "f"]))
    assert first.column("counted_setups").to_pylist() + second.column("counted_setups").to_pylist() == [1, 1, 1]
    alone = CountsSetups(CFG)
    assert alone(records(["x"])).column("counted_setups").to_pylist() == [1]  # called directly: set up first
