"""Eval sets named by the config, loaded as (id, text) items for the contamination index.

An item's text is its `text_fields` joined by a newline (so words of two fields never run
together); its id is `id_field` when given, else its 0-based index in the file as a string.
A field holding a list (multiple-choice `choices`) reads as its elements, one a line; one holding
an object reads as its values (never as Python's rendering of either): an object of lists of one
length is a table, read a row a line ({"text": [...], "label": [...]}: "Paris A"), any other one
its values a line each. A text field named with dots (`question.stem`) is a path into nested
objects where the item has no field of that very name. Each of the eval set's unit fields
(`eval_sets[].units`) is also kept on its own (`units`): the contamination index matches
it as well as the whole item, so a leak of the question alone counts. Where the config names no
units, a text field holding an object other than a table stands for its members (ARC's
`question`: `question.stem` and `question.choices`), so that its question is a unit without a line
of config.
Formats: .jsonl, .jsonl.gz, .jsonl.zst, .parquet, .csv (UTF-8, a byte-order mark allowed).
Anything that would leave an eval set silently useless or crash the run (missing, truncated or
damaged file, no items, a missing text field) is a ConfigError of one line naming the eval set,
the file and the fix.
"""
from __future__ import annotations

import csv
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson
import pyarrow.parquet as pq

from audit.config import AuditConfig, ConfigError, EvalSetConfig
from audit.io.shards import DamagedStream, iter_jsonl_lines

FORMATS = (".jsonl", ".jsonl.gz", ".jsonl.zst", ".parquet", ".csv")


@dataclass(frozen=True)
class EvalSet:
    """The items of one eval set: parallel lists of ids and texts."""

    name: str
    path: Path
    ids: list[str]
    texts: list[str]
    # unit field -> per item its text ("" when the item has none), for each unit field
    units: dict[str, list[str]] = field(default_factory=dict)

    def __len__(self) -> int:
        return len(self.ids)


def field_text(value: Any) -> str:
    """A field's text, never Python's rendering of a container: a list or tuple as its elements
    one a line (nested ones flattened); an object (dict) of lists of one length as a table, a row
    a line, its cells joined by a space; an object of plain values as them on one line (a choice
    {"text": "Paris", "label": "A"}: "Paris A"); any other object as its values one a line; None
    as ""; anything else as str()."""
    if value is None:
        return ""
    if isinstance(value, (list, tuple)):
        return "\n".join(t for t in map(field_text, value) if t)
    if isinstance(value, dict):
        values = list(value.values())
        if _is_table(value):
            return "\n".join(t for t in (" ".join(c for c in map(field_text, row) if c) for row in zip(*values)) if t)
        if all(not isinstance(v, (list, tuple, dict)) for v in values):
            return " ".join(t for t in map(field_text, values) if t)
        return "\n".join(t for t in map(field_text, values) if t)
    return str(value)


def _is_table(value: dict[str, Any]) -> bool:
    """An object of lists of one length: columns, read a row at a time."""
    values = list(value.values())
    return bool(values) and all(isinstance(v, (list, tuple)) for v in values) and len({len(v) for v in values}) == 1


def field_value(row: dict[str, Any], name: str) -> Any:
    """The item's field `name`: its own key of that name, else, for a dotted name, the path
    through nested objects (`question.stem`); None where either is missing."""
    if name in row or "." not in name:
        return row.get(name)
    value: Any = row
    for key in name.split("."):
        if not isinstance(value, dict) or key not in value:
            return None
        value = value[key]
    return value


def _unit_fields(cfg: EvalSetConfig, rows: list[dict[str, Any]]) -> list[str]:
    """The fields matched each on its own as well as the whole item: the config's `units`; where it
    names none, the text fields, one holding an object other than a table (in the first 100 items)
    standing for its members, when that makes two or more."""
    if cfg.units is not None:
        return list(cfg.units)
    names: list[str] = []
    for f in cfg.text_fields:  # (a table, as ARC's choices on the Hub, is one field: its rows are the choices)
        members: dict[str, None] = {}
        for row in rows[:100]:
            value = field_value(row, f)
            if isinstance(value, dict) and not _is_table(value):
                members.update(dict.fromkeys(value))
        names += [f"{f}.{k}" for k in members] if members else [f]
    return names if len(names) > 1 else []


def _fail(cfg: EvalSetConfig, path: Path, problem: str, fix: str) -> ConfigError:
    return ConfigError(f"eval set '{cfg.name}': {path}: {problem}: {fix}")


def _rows(cfg: EvalSetConfig, path: Path) -> list[dict[str, Any]]:
    """Every item of the file as a dict (field -> value)."""
    name = path.name.lower()
    try:
        if name.endswith(".parquet"):
            return pq.read_table(path).to_pylist()
        if name.endswith(".csv"):
            # eval items (a passage, a whole program) may exceed csv's default 131072-character field
            csv.field_size_limit(sys.maxsize)
            with open(path, newline="", encoding="utf-8-sig") as f:  # -sig: a BOM is not part of a name
                return list(csv.DictReader(f))
        if name.endswith((".jsonl", ".jsonl.gz", ".jsonl.zst")):
            rows = []
            for line_no, (_, line) in enumerate(iter_jsonl_lines(str(path)), start=1):
                if not line.strip():
                    continue
                try:
                    row = orjson.loads(line)
                except orjson.JSONDecodeError as e:
                    raise _fail(cfg, path, f"line {line_no} is not valid JSON ({e})",
                                "fix or remove that line") from None
                if not isinstance(row, dict):
                    raise _fail(cfg, path, f"line {line_no} is not a JSON object",
                                "write one object per line, e.g. {\"id\": ..., \"text\": ...}")
                rows.append(row)
            return rows
    except ConfigError:
        raise
    except FileNotFoundError:
        raise _fail(cfg, path, "no such file", "fix eval_sets[].path (relative paths are read from the "
                                               "config file's folder)") from None
    except (OSError, EOFError, DamagedStream, csv.Error, UnicodeDecodeError, ValueError) as e:
        problem = " ".join(str(e).split()) or type(e).__name__
        raise _fail(cfg, path, f"cannot read it ({problem})", f"check it is a whole, valid {path.suffix} file") from None
    raise _fail(cfg, path, "unknown format", f"use one of {', '.join(FORMATS)}")


def load_eval_set(cfg: EvalSetConfig, config: AuditConfig) -> EvalSet:
    """Read one eval set; raise ConfigError for an empty file or missing fields."""
    path = config.resolve(cfg.path)
    rows = _rows(cfg, path)
    if not rows:
        raise _fail(cfg, path, "the file has no items", "point eval_sets[].path at the eval set's items "
                                                        "or remove this eval set from the config")
    fields = set().union(*(r.keys() for r in rows[:100]))
    for f in [*cfg.text_fields, *([cfg.id_field] if cfg.id_field else [])]:
        if f not in fields and not any(field_value(r, f) is not None for r in rows[:100]):
            raise _fail(cfg, path, f"items have no field '{f}' (fields: {', '.join(sorted(fields)) or 'none'})",
                        "set text_fields / id_field to the item's fields (a dotted name, question.stem, "
                        "reads a nested one)")
    ids: list[str] = []
    texts: list[str] = []
    units: dict[str, list[str]] = {u: [] for u in _unit_fields(cfg, rows)}
    for i, row in enumerate(rows):
        parts = [field_value(row, f) for f in cfg.text_fields]
        if all(p is None for p in parts):
            raise _fail(cfg, path, f"item {i} has none of the text fields {cfg.text_fields}",
                        "fill them or remove the item")
        texts.append("\n".join(field_text(p) for p in parts if p is not None))
        for u, out in units.items():
            out.append(field_text(field_value(row, u)))
        if cfg.id_field:
            item_id = field_value(row, cfg.id_field)
            if item_id is None:
                raise _fail(cfg, path, f"item {i} has no '{cfg.id_field}'",
                            "give every item an id or leave id_field out (the index is used)")
            ids.append(str(item_id))
        else:
            ids.append(str(i))
    if not any(t.strip() for t in texts):
        raise _fail(cfg, path, f"every item's {cfg.text_fields} is empty", "set text_fields to the fields "
                                                                          "holding the item's text")
    return EvalSet(cfg.name, path, ids, texts, units)


def load_eval_sets(config: AuditConfig) -> list[EvalSet]:
    """Every eval set the config names, in config order; names must be unique."""
    seen: set[str] = set()
    out = []
    for cfg in config.eval_sets:
        if cfg.name in seen:
            raise ConfigError(f"eval set '{cfg.name}' is named twice in eval_sets: give each a distinct name")
        seen.add(cfg.name)
        out.append(load_eval_set(cfg, config))
    return out
