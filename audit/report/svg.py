"""Small inline-SVG charts for the report page and the notebook (no plotting library needed).

Every function returns one well-formed `<svg>` element as a string: it can be pasted into an
HTML page or shown in a notebook with `IPython.display.SVG`. Every label from the data is
escaped here, so a caller may pass shard names, reasons or language codes as they are.
"""
from __future__ import annotations

import html
import math
from collections.abc import Sequence

import numpy as np

PALETTE = ("#3467a8", "#e08a2c", "#4a9a5b", "#b9473f", "#7d5ba6", "#8c6d4f")
_FONT = "font-family:system-ui,-apple-system,'Segoe UI',sans-serif;font-size:12px"
_LABEL_CHARS = 28  # longer labels are cut (the full text stays in the hover title)
_CHAR_W = 7.5  # a generous average glyph width at 12px, so a cut label never runs off the left edge
_LABEL_MAX_W = int(12 + _CHAR_W * _LABEL_CHARS)


def esc(value: object) -> str:
    """HTML/XML-escape any value for element text or a quoted attribute."""
    return html.escape(str(value), quote=True)


def compact(x: float) -> str:
    """A short number for axis labels: 950, 1.2k, 34k, 1.5M."""
    ax = abs(x)
    for div, suffix in ((1e9, "G"), (1e6, "M"), (1e3, "k")):
        if ax >= div:
            v = x / div
            return f"{v:.1f}{suffix}".replace(".0" + suffix, suffix) if abs(v) < 10 else f"{v:.0f}{suffix}"
    if ax >= 10 or x == int(x):
        return f"{x:.0f}"
    return f"{x:.2g}"


def _cut(label: str) -> str:
    return label if len(label) <= _LABEL_CHARS else label[: _LABEL_CHARS - 1] + "…"


def _open(width: int, height: int, title: str) -> list[str]:
    return [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
            f'viewBox="0 0 {width} {height}" role="img" aria-label="{esc(title)}" style="{_FONT}">',
            f"<title>{esc(title)}</title>"]


def bar_chart(items: Sequence[tuple[str, float]], *, title: str, unit: str = "",
              value_format: str = "{:,.0f}", width: int = 640, bar_height: int = 18,
              color: str = PALETTE[0]) -> str:
    """Horizontal bars, one per (label, value), in the order given."""
    label_w = int(min(_LABEL_MAX_W, 12 + _CHAR_W * max((len(_cut(str(k))) for k, _ in items), default=4)))
    value_w = 90
    plot_w = max(60, width - label_w - value_w)
    height = 10 + len(items) * (bar_height + 6) + 4
    top = max((v for _, v in items), default=0) or 1
    out = _open(width, max(height, 24), title)
    for i, (label, value) in enumerate(items):
        y = 8 + i * (bar_height + 6)
        w = max(0.0, plot_w * float(value) / top)
        shown = value_format.format(value) + (f" {unit}" if unit else "")
        out.append(f'<g><title>{esc(label)}: {esc(shown)}</title>'
                   f'<text x="{label_w - 6}" y="{y + bar_height * 0.72:.1f}" text-anchor="end">{esc(_cut(str(label)))}</text>'
                   f'<rect x="{label_w}" y="{y}" width="{w:.1f}" height="{bar_height}" fill="{color}" rx="2"/>'
                   f'<text x="{label_w + w + 4:.1f}" y="{y + bar_height * 0.72:.1f}" fill="#333">{esc(shown)}</text></g>')
    out.append("</svg>")
    return "".join(out)


def paired_bars(labels: Sequence[str], series: Sequence[tuple[str, Sequence[float | None]]], *, title: str,
                value_format: str = "{:.1%}", width: int = 640, bar_height: int = 10) -> str:
    """Horizontal grouped bars: for each label one bar per series (None draws nothing), with a legend."""
    label_w = int(min(_LABEL_MAX_W, 12 + _CHAR_W * max((len(_cut(str(k))) for k in labels), default=4)))
    value_w = 70
    plot_w = max(60, width - label_w - value_w)
    group_h = len(series) * (bar_height + 2) + 8
    legend_h = 22
    height = legend_h + len(labels) * group_h + 6
    top = max((v for _, vals in series for v in vals if v is not None), default=0) or 1
    out = _open(width, height, title)
    x = label_w
    for s, (name, _) in enumerate(series):
        color = PALETTE[s % len(PALETTE)]
        out.append(f'<rect x="{x}" y="5" width="12" height="12" fill="{color}"/>'
                   f'<text x="{x + 16}" y="15">{esc(name)}</text>')
        x += 30 + 7 * len(str(name))
    for i, label in enumerate(labels):
        y0 = legend_h + i * group_h
        out.append(f'<text x="{label_w - 6}" y="{y0 + group_h / 2 + 2:.1f}" text-anchor="end">'
                   f'<title>{esc(label)}</title>{esc(_cut(str(label)))}</text>')
        for s, (name, vals) in enumerate(series):
            v = vals[i]
            if v is None:
                continue
            y = y0 + 3 + s * (bar_height + 2)
            w = max(0.0, plot_w * float(v) / top)
            shown = value_format.format(v)
            out.append(f'<g><title>{esc(label)} {esc(name)}: {esc(shown)}</title>'
                       f'<rect x="{label_w}" y="{y}" width="{w:.1f}" height="{bar_height}" '
                       f'fill="{PALETTE[s % len(PALETTE)]}" rx="1"/>'
                       f'<text x="{label_w + w + 4:.1f}" y="{y + bar_height - 1}" font-size="10" fill="#333">'
                       f'{esc(shown)}</text></g>')
    out.append("</svg>")
    return "".join(out)


def histogram(edges: Sequence[float], counts: Sequence[float], *, title: str, x_label: str = "",
              width: int = 640, height: int = 220, color: str = PALETTE[0],
              markers: Sequence[tuple[str, float]] = ()) -> str:
    """Vertical bars for bins [edges[i], edges[i+1]), each bin drawn the same width.

    With log-spaced edges the x axis is therefore a log axis. `markers` are (label, value) pairs
    (e.g. percentiles) drawn as dashed lines at their position within their bin.
    """
    counts = [float(c) for c in counts]
    edges = [float(e) for e in edges]
    if len(edges) != len(counts) + 1:
        raise ValueError(f"histogram needs len(edges) == len(counts) + 1, got {len(edges)} and {len(counts)}")
    left, right, top_pad, bottom = 48, 12, 22, 38
    plot_w, plot_h = width - left - right, height - top_pad - bottom
    n = max(len(counts), 1)
    bw = plot_w / n
    top = max(counts, default=0) or 1
    out = _open(width, height, title)
    out.append(f'<line x1="{left}" y1="{top_pad + plot_h}" x2="{left + plot_w}" y2="{top_pad + plot_h}" stroke="#888"/>')
    for frac in (0.5, 1.0):
        y = top_pad + plot_h * (1 - frac)
        out.append(f'<line x1="{left}" y1="{y:.1f}" x2="{left + plot_w}" y2="{y:.1f}" stroke="#e4e4e4"/>'
                   f'<text x="{left - 4}" y="{y + 4:.1f}" text-anchor="end" fill="#555">{esc(compact(top * frac))}</text>')
    for i, c in enumerate(counts):
        h = plot_h * c / top
        x = left + i * bw
        out.append(f'<rect x="{x + 0.5:.1f}" y="{top_pad + plot_h - h:.1f}" width="{max(bw - 1, 0.5):.1f}" '
                   f'height="{h:.1f}" fill="{color}"><title>{esc(compact(edges[i]))}–{esc(compact(edges[i + 1]))}: '
                   f'{c:,.0f}</title></rect>')
    step = max(1, math.ceil((len(edges)) / 10))
    for i in range(0, len(edges), step):
        x = left + i * bw
        out.append(f'<text x="{x:.1f}" y="{top_pad + plot_h + 14}" text-anchor="middle" fill="#555">'
                   f'{esc(compact(edges[i]))}</text>')
    if x_label:
        out.append(f'<text x="{left + plot_w / 2:.1f}" y="{height - 6}" text-anchor="middle">{esc(x_label)}</text>')
    for j, (name, value) in enumerate(markers):
        x = _position(edges, float(value), left, bw)
        if x is None:
            continue
        # Labels alternate between two rows so neighbouring markers do not overprint each other.
        anchor, dx = ("end", -2) if x > left + plot_w - 30 else ("start", 2)
        out.append(f'<line x1="{x:.1f}" y1="{top_pad}" x2="{x:.1f}" y2="{top_pad + plot_h}" stroke="{PALETTE[3]}" '
                   f'stroke-dasharray="3,3"><title>{esc(name)}: {esc(compact(float(value)))}</title></line>'
                   f'<text x="{x + dx:.1f}" y="{10 + (j % 2) * 10}" fill="{PALETTE[3]}" text-anchor="{anchor}" '
                   f'font-size="10">{esc(name)}</text>')
    out.append("</svg>")
    return "".join(out)


def _position(edges: Sequence[float], value: float, left: float, bw: float) -> float | None:
    """x of `value` on a histogram whose bins are drawn equally wide (log-interpolated when possible)."""
    if not edges or value < edges[0] or value > edges[-1]:
        return None
    i = max(0, min(int(np.searchsorted(edges, value, side="right")) - 1, len(edges) - 2))
    lo, hi = edges[i], edges[i + 1]
    if hi <= lo:
        frac = 0.0
    elif lo > 0:
        frac = math.log(value / lo) / math.log(hi / lo) if value > 0 else 0.0
    else:
        frac = (value - lo) / (hi - lo)
    return left + (i + min(max(frac, 0.0), 1.0)) * bw

