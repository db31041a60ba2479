"""A takedown request (REQUEST.yaml of CONTRACT.md), validated: unknown keys are an error naming the key."""
from __future__ import annotations

import re
from datetime import datetime
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator


class RequestError(ValueError):
    """A request file that cannot be used: one line naming the file, the key and the fix."""


_SHA256 = re.compile(r"^[0-9a-f]{64}$")


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
    key = ".".join(str(p) for p in err["loc"]) or "(top level)"
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
    got = err.get("input")
    shown = f" (got {str(got)[:60]!r})" if got is not None and not isinstance(got, dict) else ""
    return f"{source}: key '{key}': {msg}{shown}"


def load_request(path: str | Path) -> tuple[TakedownRequest, bytes]:
    """Read and validate a request file; returns the request and the bytes as received."""
    p = Path(path)
    try:
        raw = p.read_bytes()
    except OSError as e:
        raise RequestError(f"{p}: cannot read the request file: {e.strerror or e}") from None
    try:
        data = yaml.safe_load(raw.decode("utf-8"))
    except UnicodeDecodeError as e:
        raise RequestError(f"{p}: not UTF-8 text (byte {e.start})") from None
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        where = f" at line {mark.line + 1}" if mark is not None else ""
        raise RequestError(f"{p}: not valid YAML{where}: {getattr(e, 'problem', None) or e}") from None
    if not isinstance(data, dict):
        raise RequestError(f"{p}: expected a mapping of keys (request_id, received, requester, basis, match), "
                           f"got {type(data).__name__}")
    try:
        return TakedownRequest(**{str(k): v for k, v in data.items()}), raw
    except ValidationError as e:
        raise RequestError(_describe(e.errors()[0], str(p))) from None

