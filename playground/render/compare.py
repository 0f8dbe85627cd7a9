"""Compare's summaries: bars per metric, the sentences on what differs, the legend of the cuts."""
from __future__ import annotations

from typing import Mapping, Sequence

from playground.render.html import container, element, esc, one_line


# Compare's bars: one colour per encoding, in the order the user chose them (Tableau 10, Vega's default).
BAR_COLORS = ("#4c78a8", "#f58518", "#e45756", "#72b7b2", "#54a24b", "#eeca3b", "#b279a2", "#ff9da6")


def compare_bars(rows: Sequence[Mapping[str, object]], metrics: Sequence[tuple[str, str]]) -> str:
    """Small bar charts side by side, one per (metric, number format) pair, one bar per row
    (``{"encoding": name, metric: value, ...}``); each bar's length is its share of the largest.

    Plain HTML instead of three Vega-Lite charts: Vega's cost in the browser on every keystroke on
    Compare is far more than six bars are worth."""
    charts = []
    for metric, fmt in metrics:
        top = max((float(r[metric]) for r in rows), default=0.0) or 1.0
        bars = []
        for k, r in enumerate(rows):
            value = float(r[metric])
            shown = format(r[metric], fmt)
            width = max(0.0, min(100.0, 100 * value / top)) * 0.75  # room for the value after the bar
            colour = BAR_COLORS[k % len(BAR_COLORS)]
            bars.append(f'<div class="cbar" title="{esc(r["encoding"])}: {esc(shown)} {esc(metric)}">'
                        f'<span class="name">{esc(r["encoding"])}</span><span class="track">'
                        f'<span class="fill" style="width:{width:.1f}%;background:{colour}"></span>'
                        f'<span class="val">{esc(shown)}</span></span></div>')
        charts.append(f'<div class="cbars-one" role="group" aria-label="{esc(metric)}"><div class="ttl">{esc(metric)}</div>'
                      + "".join(bars) + "</div>")
    return '<div class="cbars" id="cmp-bars">' + "".join(charts) + "</div>"


def delta_lines(sentences: list[str], element_id: str = "delta") -> str:
    return one_line(container((element("p", s, {"class": "delta"}) for s in sentences), "deltas", element_id))


def cut_legend(n_shared: int, n_differing: int) -> str:
    return ('<div class="tc-legend"><span class="same"></span>'
            f"cut made by every encoding ({n_shared:,})"
            f'<span class="cut"></span>cut made by only some ({n_differing:,})</div>')
