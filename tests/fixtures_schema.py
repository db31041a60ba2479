"""docs/SCHEMA.md read as data: the documented columns of each dataset of a run folder."""
from __future__ import annotations

import re
from pathlib import Path

SCHEMA_DOC = Path(__file__).parents[1] / "docs" / "SCHEMA.md"
_ROW = re.compile(r"^\| `([^`]+)` \| [^|]+ \| (.*) \|$")


def documented_columns(path: Path = SCHEMA_DOC) -> dict[str, dict[str, bool]]:
    """{dataset heading (`lineage/`, `summary.json`, ...): {column: optional}} from the page's tables;
    a column is optional when its meaning starts with *optional*."""
    out: dict[str, dict[str, bool]] = {}
    section = None
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("## "):
            section = line[3:].strip()
            out[section] = {}
        elif section is not None:
            m = _ROW.match(line)
            if m:
                out[section][m.group(1)] = m.group(2).startswith("*optional*")
    return out
