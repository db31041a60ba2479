"""Takedown request files for tests."""
from __future__ import annotations

import json
from pathlib import Path


def request_file(folder: Path, name: str = "req.yaml", request_id: str = "TR-2026-0001",
                 requester: str = "Jane Doe", match: dict | None = None, extra: str = "") -> Path:
    """Write a REQUEST.yaml (basis copyright) with the given match keys; returns its path."""
    p = folder / name
    p.write_text(f"request_id: {request_id}\nreceived: 2026-11-20T10:00:00Z\nrequester: {json.dumps(requester)}\n"
                 f"basis: copyright\nmatch: {json.dumps(match or {})}\n{extra}", encoding="utf-8")
    return p
