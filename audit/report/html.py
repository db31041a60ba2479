"""report.html: one self-contained page that a data lead reads and acts on.

Built from summary.json plus a bounded read of the run folder (audit.report.run_outputs): a
headline (documents, kept share, the three largest reasons), then what to look at, weighed by the
records each finding affects (contamination by eval set, duplicate clusters, PII types, language
drift, unreadable shards), then each finding with examples named by source id and URL with a
short excerpt of their text (personal data found in it masked by type), contamination as the eval
item's matched unit with its passages marked beside the record's, and the run's timings last.

It needs no script, loads nothing from the network (inline CSS, inline SVG, system fonts, no
outside link) and carries a Content-Security-Policy that forbids scripts and every fetch, as a
second wall behind the escaping: every value that comes from the data (texts, URLs, shard names,
reasons, details, ids, language codes, eval items, errors) goes through `esc` or the `Html`
marker discipline below, never into the page raw.
"""
from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime, timezone
from importlib import resources
from pathlib import Path
from typing import Any

from audit.io.atomic import write_text_atomic
from audit.report.run_outputs import (RunSources, contamination_examples, duplicate_clusters, pii_findings,
                                      quarantine_examples, unreadable_entries)
from audit.report.svg import bar_chart, esc, histogram, paired_bars

# Scripts, frames, fonts, fetches: none. Inline styles and data: images only.
CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'"
_SAFE_ID = re.compile(r"[A-Za-z0-9_-]{1,128}")
_DETAILS_CHARS = 400
_EXCERPT_CHARS = 240  # of a record's text
_ITEM_CHARS = 900  # of an eval item
_PASSAGE_CHARS = 400  # of one matched passage


class Html(str):
    """A string that is already safe HTML (built here); everything else is escaped on output."""


def _cell(value: object) -> str:
    if isinstance(value, Html):
        return value
    if value is None:
        return "—"
    return esc(value)


def _num(x: object, digits: int = 0) -> str:
    if x is None:
        return "—"
    if isinstance(x, bool) or not isinstance(x, (int, float)):
        return str(x)
    return f"{x:,.{digits}f}"


def _pct(x: object, digits: int = 1) -> str:
    return "—" if not isinstance(x, (int, float)) else f"{100 * x:.{digits}f}%"


def _share(part: object, whole: object) -> str:
    if not isinstance(part, (int, float)) or not isinstance(whole, (int, float)) or whole <= 0:
        return "—"
    return _pct(part / whole)


def doc_anchor(doc_id: object) -> str:
    """The id attribute of a quarantined record's row: `doc-<id>` (hashed if the id has odd characters)."""
    s = str(doc_id)
    if _SAFE_ID.fullmatch(s):
        return f"doc-{s}"
    return "doc-h" + hashlib.blake2b(s.encode("utf-8", "surrogatepass"), digest_size=8).hexdigest()


def _table(headers: Sequence[str], rows: Iterable[Sequence[object]], numeric: Iterable[int] = (),
           row_classes: Sequence[str] | None = None, row_ids: Sequence[str | None] | None = None) -> Html:
    num = set(numeric)
    head = "".join(f'<th{" class=num" if i in num else ""}>{esc(h)}</th>' for i, h in enumerate(headers))
    body = []
    for r, row in enumerate(rows):
        cls = f' class="{esc(row_classes[r])}"' if row_classes and row_classes[r] else ""
        rid = f' id="{esc(row_ids[r])}"' if row_ids and row_ids[r] else ""
        cells = "".join(f'<td{" class=num" if i in num else ""}>{_cell(v)}</td>' for i, v in enumerate(row))
        body.append(f"<tr{cls}{rid}>{cells}</tr>")
    return Html(f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>")


def _section(anchor: str, title: str, body: str, collapsed: bool = False) -> Html:
    """A section; `collapsed` (nothing found) shows as one line that opens on a click."""
    if collapsed:
        return Html(f'<section id="{esc(anchor)}" class="quiet"><details><summary>{esc(title)}: nothing found'
                    f'</summary>{body}</details></section>')
    return Html(f'<section id="{esc(anchor)}"><h2>{esc(title)}</h2>{body}</section>')


def _empty(text: str) -> str:
    return f'<p class="empty">{esc(text)}</p>'


def _figure(svg: str, caption: str = "") -> str:
    cap = f"<figcaption>{esc(caption)}</figcaption>" if caption else ""
    return f"<figure>{svg}{cap}</figure>"


def _mapping(value: object) -> dict[str, Any]:
    return dict(value) if isinstance(value, Mapping) else {}


# ---------------------------------------------------------------- dates, records, excerpts


def readable_time(value: object) -> str:
    """An ISO timestamp as a person reads it: `1 Jan 2026, 00:00 UTC` (the value itself if it does not parse)."""
    if not isinstance(value, str) or not value:
        return "—"
    try:
        t = datetime.fromisoformat(value)
    except ValueError:
        return value
    if t.tzinfo is not None:
        t = t.astimezone(timezone.utc)
    return f"{t.day} {t:%b %Y, %H:%M} UTC"


def readable_seconds(x: object) -> str:
    """Seconds as `4.2 s`, `3 min 05 s` or `2 h 04 min`."""
    if not isinstance(x, (int, float)):
        return "—"
    if x < 60:
        return f"{x:.1f} s"
    m, sec = divmod(int(round(x)), 60)
    if m < 60:
        return f"{m} min {sec:02d} s"
    h, m = divmod(m, 60)
    return f"{h} h {m:02d} min"


def _sig(x: object, digits: int = 3) -> str:
    """A measure to `digits` significant digits; 0 as `0` (no walls of 0.0000)."""
    if not isinstance(x, (int, float)):
        return "—"
    if x == 0:
        return "0"
    return f"{x:.{digits}g}"


def masked(text: str, spans: Sequence[tuple[int, int, str]], start: int, end: int) -> str:
    """text[start:end] with every PII finding in `spans` (start, end, type) replaced by `⟨TYPE⟩`."""
    out, at = [], start
    for s0, e0, kind in sorted(spans):
        if e0 <= at or s0 >= end:
            continue
        out.append(text[at:max(at, s0)])
        out.append(f"⟨{kind}⟩")
        at = max(at, e0)
    out.append(text[at:end] if at < end else "")
    return "".join(out)


def excerpt(text: str | None, pii: Sequence[tuple[int, int, str]] = (), chars: int = _EXCERPT_CHARS) -> str | None:
    """The start of a record's text, white space collapsed, personal data masked, at most `chars` long."""
    if text is None:
        return None
    cut = masked(text, pii, 0, min(len(text), chars + 200))
    cut = " ".join(cut.split())
    if len(cut) <= chars and len(text) <= chars + 200:
        return cut
    cut = cut[:chars]
    if cut.rfind("⟨") > cut.rfind("⟩"):  # never half a mask
        cut = cut[:cut.rfind("⟨")]
    return cut.rstrip() + " …"


def _record(row: Mapping[str, Any], *, anchor: bool = False) -> Html:
    """A record named for a person: its source id, its URL (as text: the page links nowhere outside),
    and where it sits (shard, record)."""
    sid = row.get("source_id")
    name = (f"<b>{esc(sid)}</b>" if sid not in (None, "") else
            f'<span class="note">no source id</span> <code>{esc(row.get("doc_id"))}</code>')
    if anchor:
        name = f'<a href="#{doc_anchor(row.get("doc_id"))}">{name}</a>'
    url = f'<div class="url">{esc(row["url"])}</div>' if row.get("url") else ""
    where = (f'<div class="where">{esc(row.get("shard"))} · record {esc(_num(row.get("record")))}</div>'
             if row.get("shard") is not None else "")
    return Html(f'<div class="rec">{name}{url}{where}</div>')


def _quote(text: str | None, missing: str = "text not read") -> Html:
    if text is None:
        return Html(f'<span class="note">{esc(missing)}</span>')
    return Html(f'<blockquote class="excerpt">{esc(text)}</blockquote>')


def _details(details: object) -> Html:
    """The measured values behind each reason, as `reason: name value, …` lines (not JSON)."""
    if isinstance(details, list):  # the typed form: [{reason, name, value, text}]
        grouped: dict[str, list[str]] = {}
        for d in details:
            if isinstance(d, Mapping):
                v = d.get("text") if d.get("text") is not None else _sig(d.get("value"), 4)
                grouped.setdefault(str(d.get("reason")), []).append(f"{d.get('name')} {v}")
        lines = [f"{r}: {', '.join(vs)}" for r, vs in grouped.items()]
    elif isinstance(details, Mapping):
        lines = [f"{r}: {', '.join(f'{k} {_value(v)}' for k, v in _flat(_mapping(m)).items())}"
                 if isinstance(m, Mapping) else f"{r}: {_value(m)}" for r, m in details.items()]
    elif details is None:
        return Html("—")
    else:
        lines = [str(details)]
    text = "\n".join(lines)
    if len(text) > _DETAILS_CHARS:
        text = text[:_DETAILS_CHARS] + " …"
    return Html(f'<div class="details">{esc(text)}</div>')


def _flat(d: Mapping[str, Any], prefix: str = "") -> dict[str, Any]:
    out: dict[str, Any] = {}
    for k, v in d.items():
        if isinstance(v, Mapping):
            out.update(_flat(v, f"{prefix}{k}."))
        else:
            out[f"{prefix}{k}"] = v
    return out


def _value(v: object) -> str:
    if isinstance(v, float):
        return _sig(v, 4)
    if isinstance(v, list):
        return "[" + ", ".join(_value(x) for x in v[:8]) + (", …" if len(v) > 8 else "") + "]"
    return str(v)


# ---------------------------------------------------------------- sections


def _headline(s: Mapping[str, Any]) -> Html:
    docs = s.get("documents") or 0
    kinds = _kinds(s)
    cards = [
        ("Documents", _num(docs), f"{_num(s.get('shards'))} shards" if s.get("shards") is not None else ""),
        ("Kept", _num(s.get("kept")), _share(s.get("kept"), docs)),
        ("Quarantined", _num(s.get("quarantined")), _share(s.get("quarantined"), docs)),
        ("Unreadable", _num(s.get("unreadable")), "lines or files"),
    ]
    html = "".join(f'<div class="card"><div class="label">{esc(label)}</div><div class="value">{esc(value)}</div>'
                   f'<div class="sub">{esc(sub)}</div></div>' for label, value, sub in cards)
    if not docs:
        return _section("headline", "Headline", f'<div class="cards">{html}</div>'
                        + _empty("No documents were read in this run."))
    top = list(kinds.items())[:3]
    reasons = ("; the largest reasons: " + ", ".join(
        f"<b>{esc(k)}</b> {esc(_num(v))} ({esc(_share(v, docs))})" for k, v in top)) if top else \
        "; no record was quarantined"
    line = (f'<p class="headline">{esc(_num(docs))} documents: <b>{esc(_share(s.get("kept"), docs))} kept</b> '
            f'({esc(_num(s.get("kept")))}), {esc(_num(s.get("quarantined")))} quarantined{reasons}.</p>')
    body = line + f'<div class="cards">{html}</div>'
    if isinstance(s.get("kept"), int) and isinstance(s.get("quarantined"), int) \
            and s["kept"] + s["quarantined"] != docs:
        body += f'<p class="flag">Accounting does not hold: kept + quarantined = {esc(_num(s["kept"] + s["quarantined"]))}' \
                f', documents = {esc(_num(docs))}.</p>'
    return _section("headline", "Headline", body)


def look_at(s: Mapping[str, Any]) -> list[tuple[int, str, str, str]]:
    """What to look at: (records affected, title, one line, section anchor), most records first;
    findings that affect no record are left out."""
    items: list[tuple[int, str, str, str]] = []
    docs = s.get("documents") or 0
    for name, v in _mapping(_mapping(s.get("contamination")).get("eval_sets")).items():
        v = _mapping(v)
        n = int(v.get("records") or 0)
        items.append((n, f"Contamination: eval set {name}",
                      f"{_num(n)} records ({_share(n, docs)}) match {_num(v.get('items_matched'))} of its items",
                      "contamination"))
    dup = _mapping(s.get("duplicates"))
    n_dup = int(dup.get("exact") or 0) + int(dup.get("near") or 0)
    sizes = {int(k): int(v) for k, v in _mapping(dup.get("cluster_sizes")).items() if str(k).isdigit()}
    items.append((n_dup, "Duplicate clusters",
                  f"{_num(n_dup)} duplicate records ({_num(dup.get('exact'))} exact, {_num(dup.get('near'))} near) in "
                  f"{_num(sum(sizes.values()))} clusters, the largest of {_num(max(sizes, default=0))} records",
                  "duplicates"))
    pii = _mapping(s.get("pii"))
    by_type = _mapping(pii.get("by_type"))
    n_pii = int(_kinds(s).get("pii") or 0)
    items.append((n_pii, "Personal data (PII)",
                  f"{_num(n_pii)} records quarantined; findings by type: "
                  + (", ".join(f"{k} {_num(v)}" for k, v in list(by_type.items())[:5]) or "none"), "pii"))
    drift = _mapping(s.get("drift"))
    shards = _mapping(_mapping(drift.get("shards")).get("shards"))
    drifting = [k for k, e in shards.items() if _mapping(e).get("drift")]
    n_lang = int(_kinds(s).get("language") or 0)
    n_drift = sum(int(_mapping(shards[k]).get("documents") or 0) for k in drifting)
    if drift.get("verdict") == "drift":
        n_drift = max(n_drift, int(drift.get("documents") or 0))
    if n_lang or n_drift:
        what = [f"{_num(n_lang)} records quarantined for language"] if n_lang else []
        if drift.get("verdict") == "drift":
            what.append(f"the mix drifts from the recipe (Jensen-Shannon {_sig(drift.get('js'))})")
        if drifting:
            what.append(f"{_num(len(drifting))} shards drift from the run's mix")
        items.append((max(n_lang, n_drift), "Language drift", "; ".join(what), "languages"))
    n_bad = int(s.get("unreadable") or 0)
    items.append((n_bad, "Unreadable input", f"{_num(n_bad)} unreadable lines or files", "unreadable"))
    return sorted((i for i in items if i[0] > 0), key=lambda i: -i[0])


def _look_at(s: Mapping[str, Any]) -> Html:
    items = look_at(s)
    if not items:
        return _section("look-at", "What to look at", _empty("Nothing: no contamination, duplicates, PII, "
                                                              "language drift or unreadable input."))
    rows = "".join(f'<li><a href="#{a}"><b>{esc(title)}</b></a> — {esc(line)}</li>' for _, title, line, a in items)
    return _section("look-at", "What to look at", f'<ol class="look-at">{rows}</ol>'
                    '<p class="note">In order of the records each finding affects.</p>')


def _kinds(s: Mapping[str, Any]) -> dict[str, int]:
    """Records per reason kind, as summary.json counts them (a record once per kind)."""
    return _mapping(s.get("reason_kinds"))


def _reasons(s: Mapping[str, Any], examples: Mapping[str, list[dict]]) -> Html:
    reasons = _mapping(s.get("reasons"))
    if not reasons:
        return _section("reasons", "Reasons", _empty("No record was quarantined."), collapsed=True)
    docs = s.get("documents") or 0
    kinds = _kinds(s)
    chart = bar_chart([(k, v) for k, v in kinds.items()], title="Quarantine reasons by kind")
    by_kind: dict[str, list[tuple[str, int]]] = {}
    for r, c in reasons.items():
        kind, _, detail = str(r).partition(":")  # audit.decide.reason_kind, with the detail
        by_kind.setdefault(kind, []).append((detail, c))
    rows: list[list[object]] = []
    classes: list[str] = []
    for kind in list(kinds) + [k for k in by_kind if k not in kinds]:
        ex = examples.get(kind, [])
        rows.append([kind, "", kinds.get(kind, sum(c for _, c in by_kind.get(kind, []))),
                     _share(kinds.get(kind), docs), _links(ex)])
        classes.append("kind-row")
        for detail, c in sorted(by_kind.get(kind, []), key=lambda dc: -dc[1]):
            if not detail:
                continue
            reason = f"{kind}:{detail}"
            rows.append(["", detail, c, _share(c, docs), _links(e for e in ex if reason in (e.get("reasons") or []))])
            classes.append("")
    table = _table(["Kind", "Detail", "Records", "Of documents", "Examples"], rows, numeric=(2, 3),
                   row_classes=classes)
    note = ('<p class="note">A record can carry several reasons; counts are per reason. '
            'Examples link to the quarantined records listed further down.</p>')
    return _section("reasons", "Reasons", _figure(chart) + table + note)


def _links(rows: Iterable[Mapping[str, Any]]) -> Html:
    return Html(" ".join(f'<a href="#{doc_anchor(r.get("doc_id"))}">{esc(_label(r))}</a>' for r in rows))


def _label(row: Mapping[str, Any]) -> str:
    sid = row.get("source_id")
    return str(sid) if sid not in (None, "") else str(row.get("doc_id"))[:12] + "…"


_MAX_ROWS = 200


def _more(total: int, what: str) -> str:
    return f'<p class="note">Showing {_MAX_ROWS} of {total:,} {esc(what)}.</p>' if total > _MAX_ROWS else ""


_UNITS = (("chars", "characters"), ("words", "words"), ("tokens", "tokens"))
_PCTS = ("p50", "p90", "p95", "p99", "max", "mean")


def _lengths(s: Mapping[str, Any]) -> Html:
    length = _mapping(s.get("length"))
    overall = _mapping(length.get("overall")) or length
    units = [(u, name) for u, name in _UNITS if isinstance(overall.get(u), Mapping)]
    if not units or not overall.get("documents", s.get("documents")):
        return _section("lengths", "Lengths", _empty("No lengths were measured (no readable documents)."))
    figs = []
    for unit, name in units:
        stats = overall[unit]
        hist = _mapping(stats.get("histogram"))
        edges, counts = hist.get("edges") or [], hist.get("counts") or []
        if counts and len(edges) == len(counts) + 1:
            markers = [(p, stats[p]) for p in ("p50", "p90", "p99") if isinstance(stats.get(p), (int, float))]
            figs.append(_figure(histogram(edges, counts, title=f"Documents by length in {name}",
                                          x_label=f"{name} (log-spaced bins)", width=440, markers=markers),
                                f"Documents by length in {name}; dashed lines: p50, p90, p99."))
    pct_rows = [[name] + [_num(overall[u].get(p), 0) for p in _PCTS] for u, name in units]
    body = f'<div class="figs">{"".join(figs)}</div>' if figs else ""
    body += "<h3>Percentiles</h3>" + _table(["Unit", *_PCTS], pct_rows, numeric=range(1, len(_PCTS) + 1))
    fit = _mapping(overall.get("context_fit"))
    lengths = _mapping(fit.get("lengths"))
    if lengths:
        unit = fit.get("unit", "tokens")
        rows = [[_num(int(c)) if str(c).isdigit() else c, _pct(v.get("documents")), _pct(v.get("text")),
                 _pct(v.get("text_if_truncated"))] for c, v in lengths.items() if isinstance(v, Mapping)]
        body += (f"<h3>Context fit (measured in {esc(unit)})</h3>"
                 + _table([f"Context ({unit})", "Documents that fit", "Text in documents that fit",
                           "Text kept if cut at context"], rows, numeric=(0, 1, 2, 3)))
    by_source = _mapping(length.get("by_source"))
    if len(by_source) > 1:
        ctx = list(lengths)
        rows = []
        for name, src in list(by_source.items())[:_MAX_ROWS]:
            src = _mapping(src)
            chars = _mapping(src.get("chars"))
            sfit = _mapping(_mapping(src.get("context_fit")).get("lengths"))
            rows.append([name, _num(src.get("documents")), _num(chars.get("p50")), _num(chars.get("p90")),
                         _num(chars.get("p99")), _num(chars.get("max"))]
                        + [_pct(_mapping(sfit.get(c)).get("documents")) for c in ctx])
        body += ("<h3>By source</h3>" + _table(
            ["Source", "Documents", "chars p50", "chars p90", "chars p99", "chars max"]
            + [f"fit {c}" for c in ctx], rows, numeric=range(1, 6 + len(ctx))) + _more(len(by_source), "sources"))
    return _section("lengths", "Lengths", body)


def _verdict_badge(verdict: object) -> str:
    v = str(verdict)
    cls = {"ok": "ok", "drift": "drift"}.get(v, "none")
    text = {"ok": "within recipe", "drift": "drift", "no_recipe": "no recipe configured"}.get(v, v)
    return f'<span class="verdict {cls}">{esc(text)}</span>'


def _languages(s: Mapping[str, Any]) -> Html:
    drift = _mapping(s.get("drift"))
    counts = _mapping(s.get("languages"))
    observed = _mapping(drift.get("observed"))
    if not observed and counts:
        total = sum(counts.values()) or 1
        observed = {k: v / total for k, v in sorted(counts.items(), key=lambda kv: -kv[1])}
    if not observed:
        return _section("languages", "Languages", _empty("No language was identified in this run."))
    expected = _mapping(drift.get("expected"))
    exp_total = sum(v for v in expected.values() if isinstance(v, (int, float))) or 1
    langs = list(observed)[:24]
    langs += [k for k in expected if k not in langs]
    series: list[tuple[str, list[float | None]]] = [("observed", [observed.get(k, 0.0) for k in langs])]
    if expected:
        series.append(("recipe", [expected[k] / exp_total if k in expected else None for k in langs]))
    body = "<p>Verdict: " + _verdict_badge(drift.get("verdict", "no_recipe")) + "</p>"
    body += _figure(paired_bars(langs, series, title="Language mix: observed against the recipe"),
                    "Share of readable documents per language" + (" against the recipe." if expected else "."))
    if len(observed) > 24:
        body += f'<p class="note">{len(observed) - 24:,} more languages with smaller shares are not drawn.</p>'
    if expected:
        rows = [["Jensen-Shannon distance", _sig(drift.get("js"))],
                ["PSI", _sig(drift.get("psi"))],
                ["Chi-square", _sig(drift.get("chi2"))],
                ["Degrees of freedom", _num(drift.get("dof"))],
                ["p-value", _sig(drift.get("pvalue"))],
                ["Documents compared", _num(drift.get("documents"))]]
        body += "<h3>Against the recipe</h3>" + _table(["Measure", "Value"], rows, numeric=(1,))
    new = drift.get("new_languages") or []
    if new:
        body += ("<h3>New languages (not in the recipe)</h3><p>"
                 + ", ".join(f'<code>{esc(k)}</code> {esc(_pct(observed.get(k)))}' for k in new) + "</p>")
    elif expected:
        body += '<p class="note">No new languages above the reporting share.</p>'
    body += _source_mix(_mapping(drift.get("sources")))
    body += _shard_drift(_mapping(drift.get("shards")))
    table = [_mapping(r) for r in s.get("language_table") or []]
    if table:
        # Per language: how sure the identifiers were, and how much the second one decided.
        rows = [[r.get("language"), r.get("tag"), _num(r.get("documents")), _pct(observed.get(r.get("language"))),
                 _pct(expected[r["language"]] / exp_total) if r.get("language") in expected else "—",
                 _sig(r.get("mean_score")), _pct(r.get("mean_share")), _pct(r.get("second_identifier_share"))]
                for r in table[:_MAX_ROWS]]
        body += "<h3>Per language</h3>" + _table(
            ["Language", "ISO 639-3 + script", "Documents", "Share", "Recipe", "Mean score",
             "Mean share of the document in it", "Judged by the second identifier"], rows,
            numeric=(2, 3, 4, 5, 6, 7)) + _more(len(table), "languages")
    elif counts:
        rows = [[k, _num(v), _pct(observed.get(k)), _pct(expected[k] / exp_total) if k in expected else "—"]
                for k, v in list(counts.items())[:_MAX_ROWS]]
        body += "<h3>Counts</h3>" + _table(["Language", "Documents", "Share", "Recipe"], rows, numeric=(1, 2, 3)) \
            + _more(len(counts), "languages")
    return _section("languages", "Languages and drift", body)


def _source_mix(sources: Mapping[str, Any]) -> str:
    """Per source (input.source_field): its mix against the recipe, or its top languages."""
    if not sources:
        return ""
    rows = []
    for name, e in list(sources.items())[:_MAX_ROWS]:
        e = _mapping(e)
        top = ", ".join(f"{k} {_pct(v)}" for k, v in list(_mapping(e.get("observed")).items())[:4])
        rows.append([name, _num(e.get("documents")), top, _sig(e.get("js")), _sig(e.get("pvalue")),
                     Html('<span class="flag">drift</span>') if e.get("drift") else
                     ("ok" if e.get("verdict") == "ok" else "—")])
    return ("<h3>Per source, against the recipe</h3>"
            + _table(["Source", "Documents", "Top languages", "JS", "p-value", "Verdict"], rows, numeric=(1, 3, 4))
            + _more(len(sources), "sources"))


def _shard_drift(shards_block: Mapping[str, Any]) -> str:
    shards = _mapping(shards_block.get("shards"))
    if not shards:
        return ""
    items = sorted(shards.items(), key=lambda kv: (not _mapping(kv[1]).get("drift"),
                                                   -(_mapping(kv[1]).get("js") or 0.0), str(kv[0])))
    # a shard whose mix equals the run's (every measure 0) says nothing: counted, not listed
    same = [k for k, e in items if not any(_mapping(e).get(m) for m in ("js", "psi", "chi2"))
            and not _mapping(e).get("drift")]
    items = [(k, e) for k, e in items if k not in set(same)]
    rows = []
    for name, e in items[:_MAX_ROWS]:
        e = _mapping(e)
        rows.append([name, _num(e.get("documents")), _sig(e.get("js")), _sig(e.get("psi")),
                     _sig(e.get("chi2")), _sig(e.get("pvalue")),
                     Html('<span class="flag">drift</span>') if e.get("drift") else "ok"])
    drifting = shards_block.get("drifting") or []
    head = (f'<p class="note">{len(drifting):,} of {len(shards):,} shards drift from the overall mix.</p>'
            if isinstance(drifting, list) else "")
    if same:
        head += f'<p class="note">{len(same):,} shards have exactly the overall mix and are not listed.</p>'
    if not items:
        return "<h3>Per shard, against the run's overall mix</h3>" + head
    return ("<h3>Per shard, against the run's overall mix</h3>" + head
            + _table(["Shard", "Documents", "JS", "PSI", "Chi-square", "p-value", "Verdict"], rows,
                     numeric=(1, 2, 3, 4, 5)) + _more(len(shards), "shards"))




def _pii(s: Mapping[str, Any], found: Mapping[str, list[dict[str, Any]]], texts: Mapping[tuple[str, int], str],
         spans: Mapping[str, list[tuple[int, int, str]]]) -> Html:
    pii = _mapping(s.get("pii"))
    by_type = _mapping(pii.get("by_type"))
    docs = s.get("documents") or 0
    head = (f"<p>{esc(_num(pii.get('records')))} records ({esc(_share(pii.get('records'), docs))} of documents) "
            f"hold at least one finding; {esc(_num(_kinds(s).get('pii')))} were quarantined for it. Findings are "
            "stored by type and offsets only, never the value; excerpts here show the type in its place.</p>")
    if not by_type:
        return _section("pii", "Personal data (PII)", head + _empty("No PII findings."), collapsed=True)
    chart = bar_chart(list(by_type.items()), title="PII findings by type")
    rows = []
    for kind, examples in found.items():
        for e in examples:
            text = texts.get((e.get("shard"), e.get("record")))
            cut = None
            if text is not None and isinstance(e.get("start"), int):
                lo, hi = max(0, e["start"] - 120), min(len(text), e["end"] + 120)
                cut = ("… " if lo else "") + " ".join(masked(text, spans.get(e["doc_id"], []), lo, hi).split()) \
                    + (" …" if hi < len(text) else "")
            rows.append([kind, _record(e), _quote(cut)])
    body = head + _figure(chart, "Findings by entity type.")
    if rows:
        body += "<h3>Examples</h3>" + _table(["Type", "Record", "Around the finding (masked)"], rows)
    return _section("pii", "Personal data (PII)", body)


def _passages(text: str | None, spans: object, limit: int = 3) -> Html:
    """The record's matched passages, each marked inside a little context."""
    if text is None:
        return _quote(None)
    parts = []
    for span in (spans if isinstance(spans, list) else [])[:limit]:
        if not (isinstance(span, (list, tuple)) and len(span) == 2):
            continue
        a, b = int(span[0]), int(span[1])
        b = min(b, a + _PASSAGE_CHARS)
        lo, hi = max(0, a - 80), min(len(text), b + 80)
        parts.append(f'<blockquote class="excerpt">{"… " if lo else ""}{esc(text[lo:a])}<mark>{esc(text[a:b])}</mark>'
                     f'{esc(text[b:hi])}{" …" if hi < len(text) else ""}</blockquote>')
    more = len(spans) - limit if isinstance(spans, list) and len(spans) > limit else 0
    if more:
        parts.append(f'<p class="note">{more:,} more passages.</p>')
    return Html("".join(parts) or _quote(None, "no passage offsets"))


def _item_passages(text: str | None, spans: object) -> Html:
    """The eval item (or its matched unit) with its matched passages (`item_spans`) marked, cut
    to _ITEM_CHARS: the eval side of a match, to read beside the record's passages."""
    if text is None:
        return _quote(None, "item not read")
    cut = min(len(text), _ITEM_CHARS)
    marks = sorted((int(sp[0]), int(sp[1])) for sp in (spans if isinstance(spans, list) else [])
                   if isinstance(sp, (list, tuple)) and len(sp) == 2)
    parts, at = [], 0
    for a, b in marks:
        a, b = max(a, at), min(b, cut)  # overlapping spans mark once; nothing past the cut
        if b > a:
            parts.append(f"{esc(text[at:a])}<mark>{esc(text[a:b])}</mark>")
            at = b
    parts.append(esc(text[at:cut]) + (" …" if cut < len(text) else ""))
    return Html(f'<blockquote class="excerpt">{"".join(parts)}</blockquote>')


def _contamination(s: Mapping[str, Any], matches: list[dict[str, Any]], texts: Mapping[tuple[str, int], str],
                   items: Mapping[tuple[str, str, str], str]) -> Html:
    cont = _mapping(s.get("contamination"))
    sets = _mapping(cont.get("eval_sets"))
    if not sets:
        return _section("contamination", "Contamination",
                        _empty("No eval set matched (or none was configured)."), collapsed=True)
    rows = [[name, _num(_mapping(v).get("records")), _num(_mapping(v).get("items_matched"))] for name, v in sets.items()]
    chart = bar_chart([(name, _mapping(v).get("records") or 0) for name, v in sets.items()],
                      title="Contaminated records by eval set", color="#b9473f")
    body = (f"<p>{esc(_num(cont.get('records')))} records quarantined for contamination.</p>" + _figure(chart)
            + _table(["Eval set", "Records", "Eval items matched"], rows, numeric=(1, 2)))
    methods = _mapping(cont.get("by_method"))
    if methods:
        body += _table(["Method", "Matches (record, item)"], [[k, _num(v)] for k, v in methods.items()], numeric=(1,))
    if matches:
        body += "<h3>Matches: the eval item beside the record</h3>"
        for m in matches:
            key = (str(m.get("eval_set")), str(m.get("eval_id")))
            unit = str(m.get("unit") or "item")
            # the unit's own text, where item_spans point; else the whole item, unmarked
            unit_text = items.get((*key, unit))
            shown = _item_passages(unit_text, m.get("item_spans")) if unit_text is not None \
                else _item_passages(items.get((*key, "item")), None)
            facts = (f'eval set <b>{esc(m.get("eval_set"))}</b> · item <code>{esc(m.get("eval_id"))}</code> · '
                     f'unit <b>{esc(unit)}</b> · '
                     f'method <b>{esc(m.get("method") or "—")}</b> · overlap {esc(_pct(m.get("overlap")))} · '
                     f'coverage {esc(_pct(m.get("coverage")))}')
            evidence = m.get("evidence") or []
            if evidence:
                facts += f' · {esc("; ".join(str(e) for e in evidence[:4]))}'
            body += (f'<div class="match"><p>{facts}</p><div class="pair">'
                     f'<div class="item"><h4>Eval item · {esc(unit)}</h4>{shown}</div>'
                     f'<div><h4>The record</h4>{_record(m)}'
                     f'{_passages(texts.get((m.get("shard"), m.get("record"))), m.get("spans"))}</div></div></div>')
    return _section("contamination", "Contamination by eval set", body)


def _duplicates(s: Mapping[str, Any], clusters: list[dict[str, Any]], texts: Mapping[tuple[str, int], str],
                spans: Mapping[str, list[tuple[int, int, str]]]) -> Html:
    dup = _mapping(s.get("duplicates"))
    if not dup or not (dup.get("exact") or dup.get("near")):
        return _section("duplicates", "Duplicates", _empty("No duplicates."), collapsed=True)
    body = (f"<p>Exact duplicates: <b>{esc(_num(dup.get('exact')))}</b> · near duplicates: "
            f"<b>{esc(_num(dup.get('near')))}</b> · duplicate rate: <b>{esc(_pct(dup.get('rate'), 2))}</b> "
            f"of documents (a cluster keeps one record; the rest are duplicates).</p>")
    sizes = _mapping(dup.get("cluster_sizes"))
    if sizes:
        items = sorted(sizes.items(), key=lambda kv: int(kv[0]) if str(kv[0]).isdigit() else 1 << 62)
        body += _figure(bar_chart([(f"size {k}", v) for k, v in items], title="Duplicate clusters by size"),
                        "Clusters by size (records in the cluster, the kept one included).")
    rows = []
    for c in clusters:
        kept = c["kept"]
        rows.append([Html(f'<code>{esc(c["cluster_id"])}</code>'), _num(c["size"]), c["kind"], _record(kept),
                     _quote(excerpt(texts.get((kept.get("shard"), kept.get("record"))), spans.get(kept["doc_id"], []))),
                     Html("".join(f"<div>{_record(m)}</div>" for m in c["members"]))])
    if rows:
        body += "<h3>Largest clusters</h3>" + _table(
            ["Cluster", "Records", "Kind", "Kept record", "Its text", "Some of its duplicates"], rows, numeric=(1,))
    return _section("duplicates", "Duplicates", body)


def _unreadable(s: Mapping[str, Any], entries: list[dict[str, Any]]) -> Html:
    total = s.get("unreadable") or len(entries)
    if not entries:
        return _section("unreadable", "Unreadable input", _empty("Every line and file could be read."), collapsed=True)
    by_shard: dict[str, list[dict[str, Any]]] = {}
    for e in entries:
        by_shard.setdefault(str(e.get("shard")), []).append(e)
    shards = _table(["Shard", "Entries (of those shown)", "First error"],
                    [[k, _num(len(v)), v[0].get("error")] for k, v in
                     sorted(by_shard.items(), key=lambda kv: -len(kv[1]))], numeric=(1,))
    rows = [[e.get("shard"), _num(e.get("record")), _num(e.get("line")), _num(e.get("byte_offset")), e.get("error")]
            for e in entries]
    shown = f"Showing the first {len(entries):,} of {total:,}" if total > len(entries) else f"All {len(entries):,}"
    body = ("<h3>By shard</h3>" + shards + f'<p class="note">{esc(shown)} entries of unreadable.jsonl '
            "(record and line are 0-based; a file-level fault has neither).</p>"
            + _table(["Shard", "Record", "Line", "Byte offset", "Error"], rows, numeric=(1, 2, 3)))
    return _section("unreadable", "Unreadable input", body)


def _judgement_history(s: Mapping[str, Any]) -> Html:
    """The judgements `audit decide` replaced (the run folder's judgements/), oldest first; nothing
    when the run was never re-judged."""
    rows = s.get("judgements")
    if not isinstance(rows, list) or not rows:
        return Html("")
    cells = "".join(
        "<tr>" + "".join(f"<td>{esc('—' if r.get(k) is None else r.get(k))}</td>" for k in
                         ("seq", "finished", "documents", "kept", "quarantined", "config_fingerprint", "folder"))
        + "</tr>" for r in rows if isinstance(r, Mapping))
    head = "".join(f"<th>{esc(h)}</th>" for h in ("#", "Finished", "Documents", "Kept", "Quarantined",
                                                    "Config fingerprint", "Kept in"))
    return Html('<section id="judgements"><h2>Earlier judgements</h2><p class="note">Each re-judging with '
                "<code>audit decide</code> keeps the judgement it replaced (summary.json and run.json).</p>"
                f"<table><thead><tr>{head}</tr></thead><tbody>{cells}</tbody></table></section>")


def _examples(examples: Mapping[str, list[dict[str, Any]]], texts: Mapping[tuple[str, int], str],
              spans: Mapping[str, list[tuple[int, int, str]]]) -> Html:
    if not any(examples.values()):
        return _section("examples", "Example quarantined records", _empty("No quarantined records to show."),
                        collapsed=True)
    body = ['<p class="note">A few records per reason kind: the record, the start of its text (personal data '
            'found in it masked by type), its reasons and the measured values behind them. '
            '<code>audit lookup --run DIR --id SOURCE_ID</code> shows a whole record.</p>']
    anchored: set[str] = set()
    for kind, rows in examples.items():
        if not rows:
            continue
        # A record listed under several kinds carries its anchor on its first row only.
        ids: list[str | None] = []
        for r in rows:
            a = doc_anchor(r.get("doc_id"))
            ids.append(None if a in anchored else a)
            anchored.add(a)
        body.append(f"<h3>{esc(kind)}</h3>")
        body.append(_table(
            ["Record", "Text", "Reasons", "Measured"],
            [[_record(r), _quote(excerpt(texts.get((r.get("shard"), r.get("record"))), spans.get(r["doc_id"], [])),
                                 "text not read" if r.get("sha256") else "no text: unreadable"),
              Html("<br>".join(f'<code class="reason">{esc(x)}</code>' for x in r.get("reasons") or [])),
              _details(r.get("details"))] for r in rows], row_ids=ids))
    return _section("examples", "Example quarantined records", "".join(body))


def _timings(s: Mapping[str, Any]) -> Html:
    mb = (s.get("bytes") or 0) / 1e6
    rows = [["Wall clock", readable_seconds(s.get("seconds"))], ["Reading and measuring (scan)", readable_seconds(s.get("scan_seconds"))],
            ["Starting Ray", readable_seconds(s.get("ray_start_seconds"))], ["Text read", f"{mb:,.2f} MB"],
            ["Throughput", f"{_num(s.get('mb_per_s'), 2)} MB/s"]]
    body = _table(["", ""], [r for r in rows if "—" not in r[1]], numeric=(1,))
    stages = _mapping(s.get("stages"))
    items = sorted(((k, v) for k, v in stages.items() if isinstance(v, (int, float))), key=lambda kv: -kv[1])
    if items:
        body += _figure(bar_chart(items[:12], title="Seconds per stage", unit="s", value_format="{:,.2f}",
                                  color="#7d5ba6"))
        body += ('<p class="note">Stage seconds are summed over all workers (they can exceed the wall-clock time '
                 f'of {esc(_num(s.get("seconds"), 1))} s).</p>')
    retried = _mapping(s.get("retried_blocks"))
    if retried:  # a stage that fails on whole blocks makes the run much slower: say which
        body += ("<p>Blocks a stage failed on, re-measured a record at a time:</p>"
                 + _table(["stage", "blocks"], sorted(retried.items()), numeric=[1]))
    return _section("stages", "Timings", body)


_NAV = (("headline", "Headline"), ("look-at", "What to look at"), ("contamination", "Contamination"),
        ("duplicates", "Duplicates"), ("pii", "PII"), ("languages", "Languages"), ("unreadable", "Unreadable"),
        ("reasons", "Reasons"), ("lengths", "Lengths"), ("examples", "Examples"), ("stages", "Timings"))


def render_report(run_dir: Path, summary: Mapping[str, Any], *, examples_per_kind: int = 3,
                  unreadable_limit: int = 50) -> str:
    """The report page for the run in `run_dir` whose summary.json object is `summary`."""
    run_dir = Path(run_dir)
    s = _mapping(summary)
    kinds = list(_kinds(s))
    hinted = [d for ids in _mapping(s.get("examples")).values() if isinstance(ids, list) for d in ids]
    examples = quarantine_examples(run_dir, kinds, per_kind=examples_per_kind, doc_ids=hinted)
    unreadable = unreadable_entries(run_dir, unreadable_limit)
    matches = contamination_examples(run_dir)
    clusters = duplicate_clusters(run_dir)
    shown = [r for rows in examples.values() for r in rows] + [c["kept"] for c in clusters]
    found, spans = pii_findings(run_dir, doc_ids=[r["doc_id"] for r in shown])
    sources = RunSources(run_dir)
    # contamination and PII first: the text budget goes to what a reader checks by eye
    texts = sources.texts([*matches, *(e for v in found.values() for e in v), *shown])
    items = sources.eval_items((str(m.get("eval_set")), str(m.get("eval_id")), unit) for m in matches
                               for unit in {str(m.get("unit") or "item"), "item"})
    css = resources.files("audit.report").joinpath("report.css").read_text(encoding="utf-8")
    meta = " · ".join(esc(x) for x in (
        f"run {s['run_id']}" if s.get("run_id") else "",
        f"started {readable_time(s['started'])}" if s.get("started") else "",
        f"took {readable_seconds(s['seconds'])}" if isinstance(s.get("seconds"), (int, float)) else "",
        f"audit {s['version']}" if s.get("version") else "",
        f"{_num(s.get('shards'))} shards" if s.get("shards") is not None else "") if x)
    sections = [
        _headline(s), _look_at(s), _contamination(s, matches, texts, items), _duplicates(s, clusters, texts, spans),
        _pii(s, found, texts, spans), _languages(s), _unreadable(s, unreadable), _reasons(s, examples), _lengths(s),
        _examples(examples, texts, spans), _judgement_history(s), _timings(s),
    ]
    notes = "".join(f"<li>{esc(p)}</li>" for p in sources.problems)
    if notes:
        sections.append(_section("notes", "Not shown", f"<ul>{notes}</ul>"))
    # The folder may still be the run's temporary one when this is called: name the run by its start.
    title = f"Audit report · {readable_time(s['started'])}" if s.get("started") else "Audit report"
    nav = "".join(f'<a href="#{a}">{esc(t)}</a>' for a, t in _NAV)
    return (
        "<!DOCTYPE html>\n"
        '<html lang="en"><head><meta charset="utf-8">'
        f'<meta http-equiv="Content-Security-Policy" content="{esc(CSP)}">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        '<meta name="referrer" content="no-referrer">'
        f"<title>{esc(title)}</title><style>{css}</style></head><body>"
        f'<header><h1>Audit report</h1><p class="meta">{meta}</p><nav>{nav}</nav></header>'
        f"<main>{''.join(sections)}</main>"
        '<footer>Generated by <code>audit run</code> from summary.json and the datasets of this run folder; '
        "excerpts are read back from the input shards.</footer></body></html>\n")


def write_report(run_dir: Path, summary: Mapping[str, Any]) -> Path:
    """Write `run_dir/report.html` atomically; returns its path."""
    return write_text_atomic(Path(run_dir) / "report.html", render_report(run_dir, summary))
