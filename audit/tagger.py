"""The Tagger: every measurement stage of the job applied to a block of records.

One stage list (`stage_classes`) and one Tagger serve the audit job's workers and the sidecar, so
both measure a record the same way.
"""
from __future__ import annotations

import time
from typing import Any

import pyarrow as pa

from audit.config import AuditConfig
from audit.normalize import WORD_COLUMNS, with_tokens
from audit.stages import Stage
from audit.stages.utf8view import VIEW, Utf8View

def stage_classes(config: AuditConfig) -> list[type[Stage]]:
    """The measurement stages of the job, in the order they run.

    A stage's module is imported only when the stage is on: each worker imports what it runs,
    and Presidio with spaCy alone takes seconds to import.
    """
    from audit.stages.charset import CharsetStage
    from audit.stages.junk import JunkStage
    from audit.stages.length import LengthStage

    stages: list[type[Stage]] = [LengthStage, CharsetStage, JunkStage]
    if config.languages.identify:
        from audit.stages.language import LanguageStage

        stages.append(LanguageStage)
    if config.lookup.passages:
        from audit.stages.passages import PassageIndexStage

        stages.append(PassageIndexStage)
    if config.dedup.exact:
        from audit.stages.exact_dup import ExactDupStage

        stages.append(ExactDupStage)
    if config.dedup.near:
        from audit.stages.near_dup import NearDupStage

        stages.append(NearDupStage)
    if config.eval_sets:
        from audit.stages.contamination import ContaminationStage

        stages.append(ContaminationStage)
    if config.pii.enabled:
        from audit.stages.pii import PiiStage

        stages.append(PiiStage)
    if config.stats.tokenizer:
        from audit.stages.tokens import TokenStage

        stages.append(TokenStage)
    return stages


# Per process: stages built ahead of a run's first block by `prepare_stages` (a Ray worker loads
# its models while the driver builds the eval index), by the config they were built for.
_PREPARED: dict[str, dict[str, Stage]] = {}


def _config_key(config: AuditConfig) -> str:
    return config.model_dump_json()


def prepare_stages(config: AuditConfig, skip: tuple[str, ...] = ()) -> int:
    """Build, in this process, the config's stages that take no shared state (named in `skip`),
    so that the run's Tagger here finds them built; returns this process's id."""
    import os

    from audit.normalize import char_tables_ready

    char_tables_ready()
    key = _config_key(config)
    if key not in _PREPARED:
        _PREPARED.clear()  # another run's stages: never two runs' models at once
        _PREPARED[key] = {cls.name: cls(config) for cls in stage_classes(config) if cls.name not in skip}
    return os.getpid()


class Tagger:
    """Every stage applied to a block of records (one per Ray worker process, or a plain object).

    It keeps, until `take_stats`, the seconds each step took (one figure per block, not per
    record) and how many blocks each stage failed on and had re-measured a record at a time.
    """

    def __init__(self, config: AuditConfig, shared: dict[str, Any] | None = None,
                 stages: list[Stage] | None = None) -> None:
        """`stages`: built stages to use instead of the config's (for tests)."""
        shared = shared or {}
        if stages is None:
            ready = _PREPARED.pop(_config_key(config), {}) if _PREPARED else {}
            stages = [ready[cls.name] if cls.name in ready and cls.name not in shared else
                      cls(config, **shared.get(cls.name, {})) for cls in stage_classes(config)]
        self.stages = stages
        # Stages that read words share one tokenisation of the block (audit.normalize.block_tokens).
        self.words = any("words" in s.reads for s in self.stages)
        # Stages that read VIEW share one UTF-8 view of the block's text (its decoded characters).
        self.view_readers = {id(s) for s in self.stages if VIEW in s.reads}
        self._culprit = ""  # the step in progress, named when a record cannot be measured
        self.seconds: dict[str, float] = {}
        self.retried_blocks: dict[str, int] = {}
        self.records_failed: dict[str, int] = {}

    def take_stats(self) -> dict[str, dict[str, Any]]:
        """{"seconds": {step: s}, "retried_blocks": {stage: n}, "records_failed": {stage: n}} since
        the last call (then reset); records_failed counts the records quarantined as unreadable."""
        stats = {"seconds": self.seconds, "retried_blocks": self.retried_blocks,
                 "records_failed": self.records_failed}
        self.seconds, self.retried_blocks, self.records_failed = {}, {}, {}
        return stats

    def __call__(self, block: pa.Table) -> pa.Table:
        """The block measured, without its text. A stage that fails on the block is retried a
        record at a time (and counted), so a record it cannot measure, even one alone in its
        block, is named and quarantined (its text dropped, `error` saying which stage failed and
        how) instead of failing the job."""
        try:
            return self._measure(block)
        except Exception:  # noqa: BLE001 - any stage failure: find the record(s) behind it
            culprit = self._culprit
        self.retried_blocks[culprit] = self.retried_blocks.get(culprit, 0) + 1
        parts = []
        for i in range(block.num_rows):
            row = block.slice(i, 1)
            try:
                parts.append(self._measure(row))
            except Exception as e:  # noqa: BLE001 - named in the record's error, never lost
                self.records_failed[self._culprit] = self.records_failed.get(self._culprit, 0) + 1
                failed = row.set_column(row.schema.get_field_index("text"), "text", pa.nulls(1, pa.string()))
                failed = failed.set_column(failed.schema.get_field_index("error"), "error",
                                           pa.array([f"could not be measured: {self._culprit}: "
                                                     f"{type(e).__name__}: {e}"[:500]], pa.string()))
                parts.append(self._measure(failed))
        return pa.concat_tables(parts, promote_options="permissive")

    def _timed(self, name: str, t0: float) -> None:
        self.seconds[name] = self.seconds.get(name, 0.0) + time.perf_counter() - t0

    def _measure(self, block: pa.Table) -> pa.Table:
        self._culprit = "tokenising"
        if self.words:
            t0 = time.perf_counter()
            block = with_tokens(block)
            self._timed("words", t0)
        self._culprit = "viewing the text"
        view = Utf8View.of(block.column("text")) if self.view_readers else None
        for stage in self.stages:
            self._culprit = f"stage {stage.name}"
            t0 = time.perf_counter()
            block = stage(block, view=view) if id(stage) in self.view_readers else stage(block)
            self._timed(stage.name, t0)
        return block.drop_columns(["text"] + [c for c in WORD_COLUMNS if c in block.column_names])
