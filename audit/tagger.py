"""The Tagger: every measurement stage of the job applied to a block of records.

One stage list (`build_stages`: the built-in stages the config turns on, then the user's own from
its `stages:` key) and one Tagger serve the audit job's workers and the sidecar, so both measure
a record the same way; `audit decide` builds the same list and calls each stage's `judge` only.
"""
from __future__ import annotations

import importlib
import inspect
import re
import sys
import time
from collections.abc import Callable
from importlib import metadata
from typing import Any

import pyarrow as pa

from audit.config import AuditConfig, ConfigError
from audit.normalize import WORD_COLUMNS, with_tokens
from audit.records import LINEAGE_COLUMNS, RECORD_SCHEMA
from audit.stages import BUILTIN_KINDS, Finding, Stage, add_seconds
from audit.stages.utf8view import VIEW, Utf8View

# The entry-point group under which an installed package registers its stages by name.
ENTRY_POINTS = "audit.stages"
# A stage's name is the kind of its reasons ("name" or "name:detail"): a plain identifier.
_NAME = re.compile(r"[a-z][a-z0-9_]*")


class StageError(ConfigError):
    """A user stage that cannot be loaded, built, set up or judged, or breaks the stage protocol:
    one line naming its `stages[i].use` and the fix (exit 2)."""


# The built-in stages in the order they run: (name, "module:Class", whether the config turns it on).
_BUILT_IN: tuple[tuple[str, str, Callable[[AuditConfig], bool]], ...] = (
    ("length", "audit.stages.length:LengthStage", lambda c: True),
    ("charset", "audit.stages.charset:CharsetStage", lambda c: True),
    ("junk", "audit.stages.junk:JunkStage", lambda c: True),
    ("language", "audit.stages.language:LanguageStage", lambda c: c.languages.identify),
    ("passages", "audit.stages.passages:PassageIndexStage", lambda c: c.lookup.passages),
    ("exact_dup", "audit.stages.exact_dup:ExactDupStage", lambda c: c.dedup.exact),
    ("near_dup", "audit.stages.near_dup:NearDupStage", lambda c: c.dedup.near),
    ("contamination", "audit.stages.contamination:ContaminationStage", lambda c: bool(c.eval_sets)),
    ("pii", "audit.stages.pii:PiiStage", lambda c: c.pii.enabled),
    ("tokens", "audit.stages.tokens:TokenStage", lambda c: bool(c.stats.tokenizer)),
)


def builtin_stage_names(config: AuditConfig) -> list[str]:
    """The names of the built-in stages the config turns on, in the order they run (no import)."""
    return [name for name, _, on in _BUILT_IN if on(config)]


def stage_classes(config: AuditConfig) -> list[type[Stage]]:
    """The built-in stages the config turns on, in the order they run (the user's own run after them).

    A stage's module is imported only when the stage is on: each worker imports what it runs,
    and Presidio with spaCy alone takes seconds to import.
    """
    out: list[type[Stage]] = []
    for name, where, on in _BUILT_IN:
        if on(config):
            module, cls = where.split(":")
            out.append(getattr(importlib.import_module(module), cls))
    return out


def add_python_path(config: AuditConfig) -> None:
    """Put the config's `python_path` folders (relative to the config file) first on sys.path, in
    this process: the driver, a Ray worker or this process's LocalExecutor, wherever stages are built."""
    for folder in reversed(config.python_path):
        path = str(config.resolve(folder).resolve())
        if path not in sys.path:
            sys.path.insert(0, path)


def _where() -> str:
    """Which process a stage failed to load in (a worker on another node may lack a folder)."""
    import os
    import socket

    return f"on host {socket.gethostname()} (pid {os.getpid()})"


def stage_class(config: AuditConfig, i: int) -> type[Stage]:
    """The class `stages[i].use` names: "module:Class" (found on python_path or installed) or the
    name of an installed entry point (group audit.stages). Raises StageError naming the fix."""
    use = config.stages[i].use
    key = f"stages[{i}].use"
    add_python_path(config)
    if ":" in use:
        module_name, _, attr = use.partition(":")
        try:
            module = importlib.import_module(module_name)
        except Exception as e:  # noqa: BLE001 - any failure importing the user's module is named, one line
            raise StageError(f"{key}: cannot import module {module_name!r} {_where()}: {type(e).__name__}: {e}: "
                             "add its folder to python_path (relative to the config file; the same path on "
                             "every node) or install it") from None
        found = getattr(module, attr, None)
        if found is None:
            raise StageError(f"{key}: module {module_name!r} has no {attr!r}: give module:Class of your Stage")
    else:
        points = {ep.name: ep for ep in metadata.entry_points(group=ENTRY_POINTS)}
        if use not in points:
            raise StageError(f"{key}: {use!r} is neither module:Class nor an installed stage (entry points of "
                             f"group {ENTRY_POINTS}: {', '.join(sorted(points)) or 'none installed'})")
        try:
            found = points[use].load()
        except Exception as e:  # noqa: BLE001 - a broken installed plugin is named, one line
            raise StageError(f"{key}: the installed stage {use!r} ({points[use].value}) cannot be loaded "
                             f"{_where()}: {type(e).__name__}: {e}: reinstall its package") from None
    if not (isinstance(found, type) and issubclass(found, Stage)):
        raise StageError(f"{key}: {use} is not a subclass of audit.Stage: write `class X(audit.Stage)` with "
                         "name, writes, __call__ and judge (README: Write your own stage)")
    if inspect.isabstract(found):
        raise StageError(f"{key}: {use} does not define {', '.join(sorted(found.__abstractmethods__))}: a stage "
                         "measures in __call__(batch) -> batch")
    return found


def user_stage(config: AuditConfig, i: int) -> Stage:
    """`stages[i]` built with its params (cheap: no setup), named for the Tagger and the Decider."""
    spec = config.stages[i]
    cls = stage_class(config, i)
    try:
        stage = cls(**spec.params)
    except Exception as e:  # noqa: BLE001 - bad params are the user's to fix: named, one line
        raise StageError(f"stages[{i}].params: {spec.use}(**params) failed: {type(e).__name__}: {e}: give the "
                         "keyword arguments its __init__ takes") from None
    stage._audit_use = f"stages[{i}].use {spec.use}"  # type: ignore[attr-defined]
    return stage


def stage_label(stage: Stage) -> str:
    """How a stage is named in errors and counts: "stage length", "stage shouting (stages[0].use ...)"."""
    use = getattr(stage, "_audit_use", None)
    return f"stage {stage.name}" + (f" ({use})" if use else "")


def measuring_params(config: AuditConfig, i: int) -> dict[str, Any]:
    """`stages[i].params`, with its __init__'s defaults for those not given, but those its class
    names in `judges`: what its measurements depend on."""
    cls = stage_class(config, i)
    bound = inspect.signature(cls).bind_partial(**config.stages[i].params)
    bound.apply_defaults()
    return {k: v for k, v in bound.arguments.items() if k not in set(cls.judges)}


def stage_source(config: AuditConfig, i: int) -> str:
    """The file of `stages[i]`'s module: its code is part of what was measured (a changed file
    means measuring again, as for an eval set)."""
    cls = stage_class(config, i)
    try:
        return inspect.getsourcefile(cls) or inspect.getfile(cls)
    except TypeError:  # a class with no file (built in a notebook cell): its module's name stands for it
        return cls.__module__


def check_stages(config: AuditConfig) -> None:
    """Refuse, before any work, what would fail later: a python_path folder that is not there, a
    user stage that does not load or build, a name that clashes with a built-in reason kind or
    another stage, `writes` columns that clash with the record's or another stage's."""
    for j, folder in enumerate(config.python_path):
        if not config.resolve(folder).is_dir():
            raise StageError(f"python_path[{j}]: folder {config.resolve(folder)} not found: give folders relative "
                             "to the config file")
    builtin = stage_classes(config)
    names = {cls.name: "a built-in stage" for cls in builtin} | {k: "a built-in reason kind" for k in BUILTIN_KINDS}
    columns = {c: "a record column" for c in [*RECORD_SCHEMA.names, *LINEAGE_COLUMNS, "verdict", "reasons",
                                               "details", *WORD_COLUMNS]}
    columns |= {c: f"written by stage {cls.name}" for cls in builtin for c in cls.writes}
    for i, spec in enumerate(config.stages):
        stage = user_stage(config, i)
        key = f"stages[{i}].use"
        name = getattr(stage, "name", None)
        if not isinstance(name, str) or not _NAME.fullmatch(name):
            raise StageError(f"{key}: {spec.use}.name is {name!r}: give the class a name of lower-case letters, "
                             "digits and _ (the kind of its reasons)")
        if name in names:
            raise StageError(f"{key}: {spec.use}.name {name!r} is {names[name]}: choose another name")
        names[name] = f"the name of stages[{i}]"
        writes = stage.writes
        if not isinstance(writes, tuple) or not all(isinstance(c, str) and c for c in writes):
            raise StageError(f"{key}: {spec.use}.writes is {writes!r}: give a tuple of the column names it adds")
        for c in writes:
            if c in columns:
                raise StageError(f"{key}: {spec.use} writes column {c!r}, {columns[c]}: choose another column name")
            columns[c] = f"written by stages[{i}]"
        unknown = set(stage.judges) - set(spec.params) - set(_init_params(type(stage)))
        if unknown:
            raise StageError(f"{key}: {spec.use}.judges names {sorted(unknown)}, not params of its __init__: "
                             "list the params that only judge")


def _init_params(cls: type[Stage]) -> list[str]:
    """The keyword params of a stage class's __init__."""
    return [p.name for p in inspect.signature(cls.__init__).parameters.values()
            if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY) and p.name != "self"]


def build_stages(config: AuditConfig, shared: dict[str, Any] | None = None) -> list[Stage]:
    """Every stage of the run, built (cheap: nothing set up), in the order they run: the built-in
    ones the config turns on, with the driver's `shared` state by stage name, then the user's own."""
    shared = shared or {}
    stages: list[Stage] = [cls(config, **shared.get(cls.name, {})) for cls in stage_classes(config)]
    return stages + [user_stage(config, i) for i in range(len(config.stages))]


def set_up(stage: Stage) -> Stage:
    """`stage.ready()`; a user stage's setup that fails is named (its use, where) as a StageError."""
    if getattr(stage, "_audit_use", None) is None:
        return stage.ready()
    try:
        return stage.ready()
    except Exception as e:  # noqa: BLE001 - the user's setup: named, one line
        raise StageError(f"{stage_label(stage)}: setup() failed {_where()}: {type(e).__name__}: {e}") from None


# Per process: stages built and set up ahead of a run's first block by `prepare_stages` (a Ray
# worker loads its models while the driver builds the eval index), by the config they were built for.
_PREPARED: dict[str, dict[str, Stage]] = {}


def _config_key(config: AuditConfig) -> str:
    return config.model_dump_json()


def prepare_stages(config: AuditConfig, skip: tuple[str, ...] = ()) -> int:
    """Build and set up, in this process, the config's stages that take no shared state (those not
    named in `skip`), so that the run's Tagger here finds them ready; returns this process's id."""
    import os

    from audit.normalize import char_tables_ready

    char_tables_ready()
    key = _config_key(config)
    if key not in _PREPARED:
        _PREPARED.clear()  # another run's stages: never two runs' models at once
        _PREPARED[key] = {s.name: set_up(s) for s in build_stages(config) if s.name not in skip}
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
            stages = [ready[s.name] if s.name in ready and s.name not in shared else s
                      for s in build_stages(config, shared)]
        stages = [set_up(s) for s in stages]
        self.stages = stages
        # Stages that read words share one tokenisation of the block (audit.normalize.block_tokens).
        self.words = any("words" in s.reads for s in self.stages)
        # Stages that read VIEW share one UTF-8 view of the block's text (its decoded characters).
        self.view_readers = {id(s) for s in self.stages if VIEW in s.reads}
        self._culprit = ""  # the step in progress, named when a record cannot be measured
        self._stage: Stage | None = None  # the stage in progress
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
        how) instead of failing the job. A user stage that breaks the protocol (a StageError) or
        fails on a record without text stops the job, named."""
        try:
            return self._measure(block)
        except StageError:
            raise
        except Exception:  # noqa: BLE001 - any stage failure: find the record(s) behind it
            culprit = self._culprit
        self.retried_blocks[culprit] = self.retried_blocks.get(culprit, 0) + 1
        parts = []
        for i in range(block.num_rows):
            row = block.slice(i, 1)
            try:
                parts.append(self._measure(row))
            except StageError:
                raise
            except Exception as e:  # noqa: BLE001 - named in the record's error, never lost
                self.records_failed[self._culprit] = self.records_failed.get(self._culprit, 0) + 1
                failed = row.set_column(row.schema.get_field_index("text"), "text", pa.nulls(1, pa.string()))
                failed = failed.set_column(failed.schema.get_field_index("error"), "error",
                                           pa.array([f"could not be measured: {self._culprit}: "
                                                     f"{type(e).__name__}: {e}"[:500]], pa.string()))
                parts.append(self._measure_unreadable(failed))
        return pa.concat_tables(parts, promote_options="permissive")

    def _measure_unreadable(self, row: pa.Table) -> pa.Table:
        """A record whose text is null measured (every stage gives it null measurements)."""
        try:
            return self._measure(row)
        except StageError:
            raise
        except Exception as e:
            if self._stage is None or getattr(self._stage, "_audit_use", None) is None:
                raise  # a built-in stage failing on null text: our bug
            raise StageError(f"{self._culprit}: fails on a record whose text is null (an unreadable record): "
                             f"{type(e).__name__}: {e}: give such a record null measurements") from None

    def _timed(self, name: str, t0: float) -> None:
        add_seconds(self.seconds, name, t0)

    def _measure(self, block: pa.Table) -> pa.Table:
        self._stage = None
        self._culprit = "tokenising"
        if self.words:
            t0 = time.perf_counter()
            block = with_tokens(block)
            self._timed("words", t0)
        self._culprit = "viewing the text"
        view = Utf8View.of(block.column("text")) if self.view_readers else None
        for stage in self.stages:
            self._stage, self._culprit = stage, stage_label(stage)
            t0 = time.perf_counter()
            out = stage(block, view=view) if id(stage) in self.view_readers else stage(block)
            if getattr(stage, "_audit_use", None) is not None:
                check_output(stage, block, out)
            block = out
            self._timed(stage.name, t0)
        return block.drop_columns(["text"] + [c for c in WORD_COLUMNS if c in block.column_names])


def check_output(stage: Stage, batch: pa.Table, out: Any) -> None:
    """A user stage's `__call__` returned `batch` with exactly its `writes` columns added, same rows."""
    label = stage_label(stage)
    if not isinstance(out, pa.Table):
        raise StageError(f"{label}: __call__ returned {type(out).__name__}, not a pyarrow.Table: return the batch "
                         "with its writes columns added")
    added = [c for c in out.column_names if c not in batch.column_names]
    if out.num_rows != batch.num_rows or sorted(added) != sorted(stage.writes) or \
            any(c not in out.column_names for c in batch.column_names):
        raise StageError(f"{label}: __call__ returned {out.num_rows} rows and added columns {added}, for "
                         f"{batch.num_rows} rows and writes {list(stage.writes)}: keep every row and column of the "
                         "batch and add exactly the writes columns")


def judge_stage(stage: Stage, table: pa.Table) -> list[Finding]:
    """`stage.judge(table)` as a list; a user stage's judge that raises or yields a reason not of
    its kind ("name" or "name:detail") or a row outside the table is named as a StageError."""
    if getattr(stage, "_audit_use", None) is None:
        return list(stage.judge(table))
    label = stage_label(stage)
    try:
        found = [(int(row), reason, values) for row, reason, values in stage.judge(table)]
    except Exception as e:  # noqa: BLE001 - the user's judge: named, one line
        raise StageError(f"{label}: judge failed: {type(e).__name__}: {e}") from None
    for row, reason, values in found:
        if not isinstance(reason, str) or reason.split(":", 1)[0] != stage.name:
            raise StageError(f"{label}: judge yielded reason {reason!r}: a reason is {stage.name!r} or "
                             f"'{stage.name}:<detail>'")
        if not 0 <= row < table.num_rows or not isinstance(values, dict):
            raise StageError(f"{label}: judge yielded ({row}, {reason!r}, {type(values).__name__}): yield (row "
                             f"index below {table.num_rows}, reason, dict of the values behind it)")
    return found
