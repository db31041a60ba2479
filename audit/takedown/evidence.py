"""Evidence of a takedown: `evidence.json` and a self-contained, HTML-escaped `evidence.html`.

The evidence says what was asked (the request as received, with a passage named by its SHA-256
and a masked excerpt rather than copied), what was found and how (method, score), what was done
and what the verification found, with timestamps and the tool version. Matched text appears only
as a short masked excerpt: the first letter of a few words, the rest starred.
"""
from __future__ import annotations

import html
import json
from typing import Any

_EXCERPT_WORDS = 6
_EXCERPT_CHARS = 48


def mask_excerpt(text: str | None, words: int = _EXCERPT_WORDS, max_chars: int = _EXCERPT_CHARS) -> str | None:
    """'The quick brown fox' -> 'T** q**** b**** f**': enough to recognise, too little to reuse."""
    if not text:
        return None
    parts = text.split()
    masked = " ".join(w[0] + "*" * (len(w) - 1) for w in parts[:words])[:max_chars]
    return masked + (" …" if len(parts) > words or len(masked) >= max_chars else "")


def evidence_json(evidence: dict[str, Any]) -> bytes:
    """The evidence file's bytes (indented, UTF-8, trailing newline)."""
    return (json.dumps(evidence, indent=2, ensure_ascii=False, default=str) + "\n").encode("utf-8")


def _e(v: Any) -> str:
    if v is None:
        return "—"
    if isinstance(v, (list, dict)):
        v = json.dumps(v, ensure_ascii=False, default=str)
    return html.escape(str(v), quote=True)


def _table(rows: list[dict[str, Any]], cols: list[str]) -> str:
    if not rows:
        return "<p class=none>none</p>"
    head = "".join(f"<th>{_e(c)}</th>" for c in cols)
    body = "".join("<tr>" + "".join(f"<td>{_e(r.get(c))}</td>" for c in cols) + "</tr>" for r in rows)
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def _pairs(d: dict[str, Any]) -> str:
    return "<table class=kv>" + "".join(f"<tr><th>{_e(k)}</th><td>{_e(v)}</td></tr>" for k, v in d.items()) + "</table>"


_CSS = """body{font:14px/1.45 system-ui,sans-serif;margin:2em auto;max-width:1200px;color:#222;padding:0 1em}
h1{font-size:1.5em}h2{font-size:1.15em;margin-top:1.6em;border-bottom:1px solid #ddd}
table{border-collapse:collapse;margin:.5em 0;font-size:13px}td,th{border:1px solid #ddd;padding:3px 6px;
text-align:left;vertical-align:top;word-break:break-all}th{background:#f4f4f4}.kv th{width:14em}
.ok{color:#176a2c;font-weight:600}.bad{color:#a11;font-weight:600}.none{color:#777}"""


def evidence_html(ev: dict[str, Any]) -> str:
    """One page, no scripts, no network: every value from the request and the data is escaped."""
    ver = ev.get("verification") or {}
    ok = ver.get("ok")
    status = ("<span class=ok>verified</span>" if ok else "<span class=bad>verification failed</span>"
              if ok is False else "<span class=none>not verified (dry run)</span>")
    located = [{**r, "matched_by": "; ".join(f"{m['method']} {m.get('score', 1.0):.2f}" for m in r["matched_by"])}
               for r in ev.get("located", [])]
    action = dict(ev.get("action") or {})
    physical = action.pop("physical", None) or []
    checks = ver.get("checks") or []
    parts = [
        "<!doctype html><html lang=en><head><meta charset=utf-8>",
        f"<title>Takedown {_e(ev['request_id'])}</title><style>{_CSS}</style></head><body>",
        f"<h1>Takedown {_e(ev['request_id'])} — {_e(ev['mode'])} — {status}</h1>",
        "<h2>Request as received</h2>", _pairs({k: v for k, v in ev["request"].items() if k != "match"}),
        _pairs(ev["request"]["match"]),
        "<h2>Summary</h2>", _pairs(ev.get("summary", {})),
        "<h2>Located records</h2>",
        _table(located, ["shard", "record", "byte_offset", "doc_id", "sha256", "url", "source_id", "matched_by",
                         "excerpt", "verdict", "blocked_before"]),
        "<h2>Keys that found nothing</h2>", _table(ev.get("not_found", []), ["kind", "key", "status"]),
        "<h2>Action</h2>", _pairs(action),
        _table(physical, ["shard", "format", "records_before", "records_after", "removed_records",
                          "removed_text_checked", "sha256_before", "sha256_after", "compared"]) if physical else "",
        "<h2>Verification</h2>", _pairs({k: v for k, v in ver.items() if k not in ("checks", "physical")}),
        _table(checks, ["kind", "key", "found", "blocked", "unreadable", "not_blocked"]),
        _table(ver.get("physical") or [], ["shard", "records", "blocked_left", "request_keys_left", "passage_left"])
        if ver.get("physical") else "",
        "<h2>Timestamps and tool</h2>", _pairs({**ev.get("timestamps", {}), **{f"tool {k}": v for k, v in
                                                                               ev.get("tool", {}).items()}}),
        _pairs(ev.get("run", {})), _pairs(ev.get("ledger", {})),
        "</body></html>\n",
    ]
    return "\n".join(parts)
