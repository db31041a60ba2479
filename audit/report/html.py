"""report.html: one self-contained page that shows a finished run to the people who sign it off.

The page is built from summary.json plus a few rows read from the run folder (example
quarantined records, the first unreadable entries). It needs no script, loads nothing from the
network (inline CSS, inline SVG, system fonts) and carries a Content-Security-Policy that forbids
scripts and every fetch, as a second wall behind the escaping: every value that comes from the
data (shard names, reasons, details, ids, language codes, eval set names, errors) goes through
`esc` or the `Html` marker discipline below, never into the page raw. No text excerpts are
shown: a record's text may hold personal data.
"""
from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterable, Mapping, Sequence
from importlib import resources
from pathlib import Path
from typing import Any

from audit.io.atomic import write_text_atomic
from audit.report.run_outputs import quarantine_examples, unreadable_entries
from audit.report.svg import bar_chart, esc, histogram, paired_bars

# Scripts, frames, fonts, fetches: none. Inline styles and data: images only.
CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'"
_SAFE_ID = re.compile(r"[A-Za-z0-9_-]{1,128}")
_DETAILS_CHARS = 400


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


def _fmt_float(x: object, digits: int = 4) -> str:
    if not isinstance(x, (int, float)):
        return "—"
    if x != 0 and abs(x) < 10 ** -digits:
        return f"{x:.2e}"
    return f"{x:.{digits}f}"


def doc_anchor(doc_id: object) -> str:
    """The id attribute of a quarantined record's row: `doc-<id>` (hashed if the id has odd characters)."""
    s = str(doc_id)
    if _SAFE_ID.fullmatch(s):
        return f"doc-{s}"
    return "doc-h" + hashlib.blake2b(s.encode("utf-8", "surrogatepass"), digest_size=8).hexdigest()


def _doc_link(doc_id: object) -> Html:
    return Html(f'<a class="mono" href="#{doc_anchor(doc_id)}">{esc(doc_id)}</a>')


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


def _section(anchor: str, title: str, body: str) -> Html:
    return Html(f'<section id="{esc(anchor)}"><h2>{esc(title)}</h2>{body}</section>')


def _empty(text: str) -> str:
    return f'<p class="empty">{esc(text)}</p>'


def _figure(svg: str, caption: str = "") -> str:
    cap = f"<figcaption>{esc(caption)}</figcaption>" if caption else ""
    return f"<figure>{svg}{cap}</figure>"


def _mapping(value: object) -> dict[str, Any]:
    return dict(value) if isinstance(value, Mapping) else {}


# ---------------------------------------------------------------- sections


def _headline(s: Mapping[str, Any]) -> Html:
    docs = s.get("documents") or 0
    mb = (s.get("bytes") or 0) / 1e6
    cards = [
        ("Documents", _num(docs), f"{_num(s.get('shards'))} shards" if s.get("shards") is not None else ""),
        ("Kept", _num(s.get("kept")), _share(s.get("kept"), docs)),
        ("Quarantined", _num(s.get("quarantined")), _share(s.get("quarantined"), docs)),
        ("Unreadable", _num(s.get("unreadable")), "lines or files"),
        ("MB read", f"{mb:,.2f}", "UTF-8 text"),
        ("Seconds", _num(s.get("seconds"), 1), f"scan {_num(s.get('scan_seconds'), 1)} s"
         if isinstance(s.get("scan_seconds"), (int, float)) else ""),
        ("MB/s", _num(s.get("mb_per_s"), 2), "whole run"),
    ]
    html = "".join(f'<div class="card"><div class="label">{esc(label)}</div><div class="value">{esc(value)}</div>'
                   f'<div class="sub">{esc(sub)}</div></div>' for label, value, sub in cards)
    body = f'<div class="cards">{html}</div>'
    if not docs:
        body += _empty("No documents were read in this run.")
    elif isinstance(s.get("kept"), int) and isinstance(s.get("quarantined"), int) \
            and s["kept"] + s["quarantined"] != docs:
        body += f'<p class="flag">Accounting does not hold: kept + quarantined = {esc(_num(s["kept"] + s["quarantined"]))}' \
                f', documents = {esc(_num(docs))}.</p>'
    return _section("counts", "Counts", body)


def _kinds(s: Mapping[str, Any]) -> dict[str, int]:
    """Records per reason kind, as summary.json counts them (a record once per kind)."""
    return _mapping(s.get("reason_kinds"))


def _reasons(s: Mapping[str, Any], examples: Mapping[str, list[dict]]) -> Html:
    reasons = _mapping(s.get("reasons"))
    if not reasons:
        return _section("reasons", "Reasons", _empty("No record was quarantined."))
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
                     _share(kinds.get(kind), docs), _links(e["doc_id"] for e in ex)])
        classes.append("kind-row")
        for detail, c in sorted(by_kind.get(kind, []), key=lambda dc: -dc[1]):
            if not detail:
                continue
            reason = f"{kind}:{detail}"
            linked = [e["doc_id"] for e in ex if reason in (e.get("reasons") or [])]
            rows.append(["", detail, c, _share(c, docs), _links(linked)])
            classes.append("")
    table = _table(["Kind", "Detail", "Records", "Of documents", "Examples"], rows, numeric=(2, 3),
                   row_classes=classes)
    note = ('<p class="note">A record can carry several reasons; counts are per reason. '
            'Examples link to the quarantined records listed at the end of the page.</p>')
    return _section("reasons", "Reasons", _figure(chart) + table + note)


def _links(doc_ids: Iterable[object]) -> Html:
    return Html(" ".join(_doc_link(d) for d in doc_ids))


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


_MAX_ROWS = 200


def _more(total: int, what: str) -> str:
    return f'<p class="note">Showing {_MAX_ROWS} of {total:,} {esc(what)}.</p>' if total > _MAX_ROWS else ""


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
        rows = [["Jensen-Shannon distance", _fmt_float(drift.get("js"))],
                ["PSI", _fmt_float(drift.get("psi"))],
                ["Chi-square", _fmt_float(drift.get("chi2"), 2)],
                ["Degrees of freedom", _num(drift.get("dof"))],
                ["p-value", _fmt_float(drift.get("pvalue"))],
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
                 _fmt_float(r.get("mean_score"), 3), _pct(r.get("mean_share")), _pct(r.get("second_identifier_share"))]
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
        rows.append([name, _num(e.get("documents")), top, _fmt_float(e.get("js")), _fmt_float(e.get("pvalue")),
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
    rows = []
    for name, e in items[:_MAX_ROWS]:
        e = _mapping(e)
        rows.append([name, _num(e.get("documents")), _fmt_float(e.get("js")), _fmt_float(e.get("psi")),
                     _fmt_float(e.get("chi2"), 2), _fmt_float(e.get("pvalue")),
                     Html('<span class="flag">drift</span>') if e.get("drift") else "ok"])
    drifting = shards_block.get("drifting") or []
    head = (f'<p class="note">{len(drifting):,} of {len(shards):,} shards drift from the overall mix.</p>'
            if isinstance(drifting, list) else "")
    return ("<h3>Per shard, against the run's overall mix</h3>" + head
            + _table(["Shard", "Documents", "JS", "PSI", "Chi-square", "p-value", "Verdict"], rows,
                     numeric=(1, 2, 3, 4, 5)) + _more(len(shards), "shards"))


def _pii(s: Mapping[str, Any]) -> Html:
    pii = _mapping(s.get("pii"))
    by_type = _mapping(pii.get("by_type"))
    docs = s.get("documents") or 0
    head = (f"<p>{esc(_num(pii.get('records')))} records ({esc(_share(pii.get('records'), docs))} of documents) "
            f"hold at least one finding. Findings are stored by type and offsets only, never the value.</p>")
    if not by_type:
        return _section("pii", "Personal data (PII)", head + _empty("No PII findings."))
    chart = bar_chart(list(by_type.items()), title="PII findings by type")
    return _section("pii", "Personal data (PII)", head + _figure(chart, "Findings by entity type."))


def _contamination(s: Mapping[str, Any]) -> Html:
    cont = _mapping(s.get("contamination"))
    sets = _mapping(cont.get("eval_sets"))
    if not sets:
        return _section("contamination", "Contamination",
                        _empty("No eval set matched (or none was configured)."))
    rows = [[name, _num(_mapping(v).get("records")), _num(_mapping(v).get("items_matched"))] for name, v in sets.items()]
    chart = bar_chart([(name, _mapping(v).get("records") or 0) for name, v in sets.items()],
                      title="Contaminated records by eval set", color="#b9473f")
    body = (f"<p>{esc(_num(cont.get('records')))} records quarantined for contamination.</p>" + _figure(chart)
            + _table(["Eval set", "Records", "Eval items matched"], rows, numeric=(1, 2)))
    methods = _mapping(cont.get("by_method"))
    if methods:
        body += _table(["Method", "Matches (record, item)"], [[k, _num(v)] for k, v in methods.items()], numeric=(1,))
    return _section("contamination", "Contamination by eval set", body)


def _duplicates(s: Mapping[str, Any]) -> Html:
    dup = _mapping(s.get("duplicates"))
    if not dup:
        return _section("duplicates", "Duplicates", _empty("No duplicate figures in this run."))
    body = (f"<p>Exact duplicates: <b>{esc(_num(dup.get('exact')))}</b> · near duplicates: "
            f"<b>{esc(_num(dup.get('near')))}</b> · duplicate rate: <b>{esc(_pct(dup.get('rate'), 2))}</b> "
            f"of documents (a cluster keeps one record; the rest are duplicates).</p>")
    sizes = _mapping(dup.get("cluster_sizes"))
    if sizes:
        items = sorted(sizes.items(), key=lambda kv: int(kv[0]) if str(kv[0]).isdigit() else 1 << 62)
        body += _figure(bar_chart([(f"size {k}", v) for k, v in items], title="Duplicate clusters by size"),
                        "Clusters by size (records in the cluster, the kept one included).")
    else:
        body += _empty("No duplicate clusters.")
    return _section("duplicates", "Duplicates", body)


def _stages(s: Mapping[str, Any]) -> Html:
    stages = _mapping(s.get("stages"))
    items = sorted(((k, v) for k, v in stages.items() if isinstance(v, (int, float))), key=lambda kv: -kv[1])
    if not items:
        return _section("stages", "Slowest stages", _empty("No stage timings recorded."))
    chart = bar_chart(items[:12], title="Seconds per stage", unit="s", value_format="{:,.2f}", color="#7d5ba6")
    note = ('<p class="note">Stage seconds are summed over all workers (they can exceed the wall-clock time '
            f'of {esc(_num(s.get("seconds"), 1))} s).</p>')
    retried = _mapping(s.get("retried_blocks"))
    if retried:  # a stage that fails on whole blocks makes the run much slower: say which
        note += ("<p>Blocks a stage failed on, re-measured a record at a time:</p>"
                 + _table(["stage", "blocks"], sorted(retried.items()), numeric=[1]))
    return _section("stages", "Slowest stages", _figure(chart) + note)


def _unreadable(s: Mapping[str, Any], entries: list[dict[str, Any]]) -> Html:
    total = s.get("unreadable") or len(entries)
    if not entries:
        return _section("unreadable", "Unreadable input", _empty("Every line and file could be read."))
    rows = [[e.get("shard"), _num(e.get("line")), _num(e.get("byte_offset")),
             Html(f"<code>{esc(e['doc_id'])}</code>") if e.get("doc_id") else None, e.get("error")] for e in entries]
    shown = f"Showing the first {len(entries):,} of {total:,}" if total > len(entries) else f"All {len(entries):,}"
    body = (f'<p class="note">{esc(shown)} entries of unreadable.jsonl.</p>'
            + _table(["Shard", "Line", "Byte offset", "Doc id", "Error"], rows, numeric=(1, 2)))
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


def _details(details: object) -> Html:
    text = details if isinstance(details, str) else json.dumps(details, ensure_ascii=False, sort_keys=True,
                                                                default=str)
    if len(text) > _DETAILS_CHARS:
        text = text[:_DETAILS_CHARS] + " …"
    return Html(f"<code>{esc(text)}</code>")


def _examples(examples: Mapping[str, list[dict[str, Any]]]) -> Html:
    if not any(examples.values()):
        return _section("examples", "Example quarantined records", _empty("No quarantined records to show."))
    body = ['<p class="note">A few records per reason kind: lineage and the measured values behind each reason. '
            'No text is shown (it may hold personal data); use <code>audit lookup --run DIR --id ...</code> '
            'or the shard and byte offset to read a record.</p>']
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
            ["Doc id", "Shard", "Record", "Byte offset", "Reasons", "Details"],
            [[Html(f'<a class="mono" href="#{doc_anchor(r.get("doc_id"))}">{esc(r.get("doc_id"))}</a>'),
              r.get("shard"), _num(r.get("record")), _num(r.get("byte_offset")),
              Html("<br>".join(f'<code class="reason">{esc(x)}</code>' for x in r.get("reasons") or [])),
              _details(r.get("details"))] for r in rows],
            numeric=(2, 3), row_ids=ids))
    return _section("examples", "Example quarantined records", "".join(body))


_NAV = (("counts", "Counts"), ("reasons", "Reasons"), ("lengths", "Lengths"), ("languages", "Languages"),
        ("pii", "PII"), ("contamination", "Contamination"), ("duplicates", "Duplicates"),
        ("stages", "Stages"), ("unreadable", "Unreadable"), ("examples", "Examples"))


def render_report(run_dir: Path, summary: Mapping[str, Any], *, examples_per_kind: int = 3,
                  unreadable_limit: int = 50) -> str:
    """The report page for the run in `run_dir` whose summary.json object is `summary`."""
    run_dir = Path(run_dir)
    s = _mapping(summary)
    kinds = list(_kinds(s))
    hinted = [d for ids in _mapping(s.get("examples")).values() if isinstance(ids, list) for d in ids]
    examples = quarantine_examples(run_dir, kinds, per_kind=examples_per_kind, doc_ids=hinted)
    unreadable = unreadable_entries(run_dir, unreadable_limit)
    css = resources.files("audit.report").joinpath("report.css").read_text(encoding="utf-8")
    meta = " · ".join(esc(x) for x in (
        f"started {s['started']}" if s.get("started") else "",
        f"finished {s['finished']}" if s.get("finished") else "",
        f"audit {s['version']}" if s.get("version") else "",
        f"{_num(s.get('shards'))} shards" if s.get("shards") is not None else "") if x)
    sections = [
        _headline(s), _reasons(s, examples), _lengths(s), _languages(s), _pii(s), _contamination(s),
        _duplicates(s), _stages(s), _unreadable(s, unreadable), _examples(examples), _judgement_history(s),
    ]
    # The folder may still be the run's temporary one when this is called: name the run by its start.
    title = f"Audit report · {s['started']}" if s.get("started") else "Audit report"
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
        '<footer>Generated by <code>audit run</code> from summary.json, quarantine/ and unreadable.jsonl '
        "of this run folder.</footer></body></html>\n")


def write_report(run_dir: Path, summary: Mapping[str, Any]) -> Path:
    """Write `run_dir/report.html` atomically; returns its path."""
    return write_text_atomic(Path(run_dir) / "report.html", render_report(run_dir, summary))
