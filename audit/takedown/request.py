"""A takedown request (REQUEST.yaml of CONTRACT.md), validated: unknown keys are an error naming the key."""
from __future__ import annotations

import re
from datetime import datetime
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from audit.config import EXPECTED, key_path, shown_value
from audit.io.records import json_type


class RequestError(ValueError):
    """A request file that cannot be used: one line naming the file, the key and the fix."""


_SHA256 = re.compile(r"^[0-9a-f]{64}$")
# A request is a few keys and a passage: anything larger is not a request (and is not read whole).
MAX_REQUEST_BYTES = 1 << 20


class _NoAliasLoader(yaml.SafeLoader):
    """SafeLoader that refuses anchors and aliases: a request never needs them, and a few nested
    aliases expand to gigabytes (the "billion laughs")."""

    def compose_node(self, parent: Any, index: Any) -> Any:  # noqa: ANN401 - yaml's own signature
        if self.check_event(yaml.AliasEvent):
            mark = self.peek_event().start_mark
            raise yaml.YAMLError(f"YAML aliases (*name) are not allowed in a request (line {mark.line + 1})")
        event = self.peek_event()
        if getattr(event, "anchor", None):
            raise yaml.YAMLError(f"YAML anchors (&{event.anchor}) are not allowed in a request "
                                 f"(line {event.start_mark.line + 1})")
        return super().compose_node(parent, index)


def _as_list(v: Any) -> Any:
    return [v] if isinstance(v, str) else v


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class MatchSpec(_Strict):
    """What to look for; every key given is looked up."""

    urls: list[str] = Field(default_factory=list)
    sha256: list[str] = Field(default_factory=list)
    source_ids: list[str] = Field(default_factory=list)
    text: str | None = None

    _lists = field_validator("urls", "sha256", "source_ids", mode="before")(_as_list)

    @field_validator("sha256")
    @classmethod
    def _hex_digests(cls, v: list[str]) -> list[str]:
        out = [h.lower() for h in v]
        bad = [h for h in out if not _SHA256.match(h)]
        if bad:
            raise ValueError(f"not a SHA-256 hex digest (64 hex characters): {bad[0][:80]!r}")
        return out

    @field_validator("urls", "source_ids")
    @classmethod
    def _non_empty(cls, v: list[str]) -> list[str]:
        if any(not s for s in v):
            raise ValueError("empty value")
        return v

    @model_validator(mode="after")
    def _something_to_match(self) -> "MatchSpec":
        if not (self.urls or self.sha256 or self.source_ids or (self.text and self.text.strip())):
            raise ValueError("give at least one of urls, sha256, source_ids, text")
        return self


class TakedownRequest(_Strict):
    """A rights holder's or a person's request to remove content."""

    # Used as a folder name under takedowns/: letters, digits, '.', '_', '-'.
    request_id: str = Field(pattern=r"^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$")
    received: datetime
    requester: str = Field(min_length=1)
    basis: str = Field(min_length=1)
    match: MatchSpec

    def keys(self) -> list[tuple[str, str]]:
        """(kind, value) of every match key, text last."""
        m = self.match
        out = [("url", u) for u in m.urls] + [("sha256", h) for h in m.sha256]
        out += [("source_id", s) for s in m.source_ids]
        if m.text and m.text.strip():
            out.append(("text", m.text))
        return out


def _describe(err: dict[str, Any], source: str) -> str:
    key = key_path(err["loc"])
    kind = err["type"]
    if kind == "extra_forbidden":
        parent = err["loc"][:-1]
        model = MatchSpec if parent and parent[-1] == "match" else TakedownRequest
        allowed = ", ".join(model.model_fields)
        return f"{source}: unknown key '{key}': remove it or check its spelling (allowed here: {allowed})"
    if kind == "missing":
        return f"{source}: missing key '{key}': it is required"
    msg = err["msg"].removeprefix("Value error, ")
    if kind == "string_pattern_mismatch" and key == "request_id":
        msg = "use letters, digits, '.', '_' or '-' (it names a folder under takedowns/)"
    if kind in EXPECTED:
        if key == "match" and kind == "model_type":
            msg = f"expected a mapping of keys ({', '.join(MatchSpec.model_fields)})"
        else:
            msg = f"expected {EXPECTED[kind]}"
    got = err.get("input")
    shown = f" (got {shown_value(got)})" if not isinstance(got, dict) else ""
    return f"{source}: key '{key}': {msg}{shown}"


def load_request(path: str | Path) -> tuple[TakedownRequest, bytes]:
    """Read and validate a request file; returns the request and the bytes as received."""
    p = Path(path)
    try:
        with open(p, "rb") as f:
            raw = f.read(MAX_REQUEST_BYTES + 1)
    except OSError as e:
        raise RequestError(f"{p}: cannot read the request file: {e.strerror or e}") from None
    if len(raw) > MAX_REQUEST_BYTES:
        raise RequestError(f"{p}: the request file is larger than {MAX_REQUEST_BYTES >> 20} MiB, the limit for a "
                           "request: give the content's sha256, URLs or a passage of it, not the content")
    try:
        data = yaml.load(raw.decode("utf-8"), Loader=_NoAliasLoader)  # noqa: S506 - a SafeLoader subclass
    except UnicodeDecodeError as e:
        raise RequestError(f"{p}: not UTF-8 text (byte {e.start})") from None
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        where = f" at line {mark.line + 1}" if mark is not None else ""
        raise RequestError(f"{p}: not valid YAML{where}: {getattr(e, 'problem', None) or e}") from None
    if not isinstance(data, dict):
        raise RequestError(f"{p}: expected a mapping of keys (request_id, received, requester, basis, match), "
                           f"got {json_type(data)}")
    try:
        return TakedownRequest(**{str(k): v for k, v in data.items()}), raw
    except ValidationError as e:
        raise RequestError(_describe(e.errors()[0], str(p))) from None

