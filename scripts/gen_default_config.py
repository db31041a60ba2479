#!/usr/bin/env python3
"""Write configs/default.yaml: every setting of audit/config.py with its default and its comment.

    python scripts/gen_default_config.py [--check]

The comments above each field in audit/config.py are the documentation; this script copies them
next to the default values, so the YAML file and the code cannot disagree (tests run --check).
"""
from __future__ import annotations

import argparse
import ast
import sys
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from audit.config import AuditConfig, field_role  # noqa: E402

HEADER = """\
# Every setting of an audit job, with its default, and nothing else (jobs to start from, with eval
# sets, a language recipe, a cluster, object storage: configs/examples/). Copy what you need into
# your job's YAML; keys left out take these defaults. Generated from audit/config.py by
# scripts/gen_default_config.py.
# Relative paths are read from the folder of the config file.
# Each key says what changing it does: [measure] changes what is measured (measure again with
# `audit run`); [judge] only changes how measurements are judged (`audit decide RUN --config` re-judges
# a finished run; a threshold marked "measured down to" needs measuring again below that);
# [run] only changes how or where the job runs.
"""
EXTRA_COMMENTS = {
    ("input", "paths"): "Files, folders or globs: .jsonl .jsonl.gz .jsonl.zst .parquet; `audit run` needs at "
                        "least one, e.g. [shards/].",
    ("input", "text_field"): "The field holding the document text.",
    ("input", "id_field"): "Optional: the record's own id, carried as source_id.",
    ("input", "url_field"): "Optional: the record's URL.",
    ("eval_sets",): "Contamination targets: a list of {name, path, text_fields, id_field, units}; files "
                    ".jsonl(.gz), .parquet or .csv; text_fields are joined, a list read one element a line, "
                    "an object by its values, a dotted name (question.stem) a nested field; id_field optional "
                    "(default: the item's index). None by default: see configs/examples/eval_sets.yaml.",
    ("output",): "Output folder (audit run --out overrides it).",
    ("dedup", "exact"): "Exact duplicates: SHA-256 of the normalised text, first occurrence kept.",
    ("dedup", "near"): "Near duplicates: MinHash LSH clusters across all shards, earliest record kept.",
    ("pii", "enabled"): "PII detection with Presidio (types and offsets only, never values).",
    ("pii", "entities"): "Entity types to look for (Presidio names).",
    ("sidecar", "sample_rate"): "Share of the stream's records sampled (Bernoulli).",
    ("ray", "object_store_memory"): "Bytes of Ray's object store when a local Ray is started.",
}


def field_comments() -> dict[tuple[str, str], list[str]]:
    """(class name, field name) -> the comment lines right above the field in audit/config.py."""
    src = (ROOT / "audit" / "config.py").read_text(encoding="utf-8")
    lines = src.splitlines()
    out: dict[tuple[str, str], list[str]] = {}
    for node in ast.walk(ast.parse(src)):
        if not isinstance(node, ast.ClassDef):
            continue
        for stmt in node.body:
            if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
                i = stmt.lineno - 2
                block: list[str] = []
                while i >= 0 and lines[i].strip().startswith("#"):
                    block.insert(0, lines[i].strip()[1:].strip())
                    i -= 1
                trailing = lines[stmt.lineno - 1].split("#", 1)
                if len(trailing) == 2 and "Field(" in trailing[0] or (len(trailing) == 2 and "=" in trailing[0]):
                    block.append(trailing[1].strip())
                out[(node.name, stmt.target.id)] = block
    return out


def render(model: BaseModel, comments: dict, path: tuple[str, ...], indent: int) -> list[str]:
    pad = "  " * indent
    out: list[str] = []
    for name, field in type(model).model_fields.items():
        if field.exclude:
            continue
        value = getattr(model, name)
        note = EXTRA_COMMENTS.get(path + (name,)) or " ".join(comments.get((type(model).__name__, name), []))
        note = f"{_role_tag(type(model), name, value)} {note}".strip()
        if note:
            out += [f"{pad}# {line}" for line in _wrap(note, 100 - len(pad) - 2)]
        if isinstance(value, BaseModel):
            out.append(f"{pad}{name}:")
            out += render(value, comments, path + (name,), indent + 1)
        else:
            dumped = value.model_dump() if isinstance(value, BaseModel) else _plain(value)
            if isinstance(dumped, list) and dumped and isinstance(dumped[0], dict):
                text = yaml.safe_dump({name: dumped}, default_flow_style=None, sort_keys=False, width=100)
            else:
                text = yaml.safe_dump({name: dumped}, default_flow_style=True, sort_keys=False, width=100)[1:-2] + "\n"
                text = text.replace(": ", ": ", 1)
            out += [pad + line for line in text.rstrip("\n").splitlines()]
    return out


def _role_tag(model: type[BaseModel], name: str, value: Any) -> str:
    """"[measure]", "[judge]" or "[run]" for a setting (a section: its own role, if it has one)."""
    if isinstance(value, BaseModel):
        role = getattr(type(value), "section_role", None)
        return f"[{role}: every key]" if role else ""
    f = field_role(model, name)
    if f.role is not None and getattr(model, "section_role", None) == f.role:
        return ""  # said once, on the section
    floor = f" (measured down to {f.floor})" if f.floor else ""
    return f"[{f.role}{floor}]"


def _plain(v: Any) -> Any:
    if isinstance(v, list):
        return [_plain(x) for x in v]
    if isinstance(v, dict):
        return {k: _plain(x) for k, x in v.items()}
    if isinstance(v, BaseModel):
        return v.model_dump()
    return v


def _wrap(text: str, width: int) -> list[str]:
    words, lines, cur = text.split(), [], ""
    for w in words:
        if cur and len(cur) + 1 + len(w) > width:
            lines.append(cur)
            cur = w
        else:
            cur = f"{cur} {w}" if cur else w
    return lines + ([cur] if cur else [])


def generate() -> str:
    """The file's text: the defaults of AuditConfig and nothing else (examples: configs/examples/)."""
    cfg = AuditConfig()
    body = render(cfg, field_comments(), (), 0)
    return HEADER + "\n".join(body) + "\n"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--check", action="store_true", help="exit 1 when configs/default.yaml is out of date")
    a = ap.parse_args()
    target = ROOT / "configs" / "default.yaml"
    text = generate()
    if a.check:
        if not target.exists() or target.read_text(encoding="utf-8") != text:
            print(f"{target} is out of date: run python scripts/gen_default_config.py", file=sys.stderr)
            return 1
        return 0
    target.parent.mkdir(exist_ok=True)
    target.write_text(text, encoding="utf-8")
    print(f"wrote {target}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
