"""What the views' charts share.

A legend above or below a chart lays its entries out in one row; on a phone a row of six names runs past
the chart's right edge and is cut.  `wrapping_legend` gives it as many columns as the chart's width holds
(Vega reads ``width`` when it draws, so the same chart wraps on a phone and stays one row on a desktop).

Presentation mode's large type reaches a chart only through its spec: Vega sizes its own text (10-12 px) and
lays the axes out around it, so CSS cannot enlarge it without overlaps.  `sized` (an Altair chart) and
`sized_spec` (a Vega-Lite dict) set axes, legends and titles to `css.PRESENT_TEXT_PX` when the mode is on;
every chart goes through one of them.
"""
from __future__ import annotations

from typing import Any

import altair as alt
import streamlit as st

from playground import state
from playground.render import css

__all__ = ["wrapping_legend", "LEGEND_COLUMN", "present", "text_px", "sized", "sized_spec"]

LEGEND_COLUMN = 130  # pixels one legend entry gets: a swatch and a name of up to ~16 characters


def wrapping_legend(*, orient: str = "bottom", **options) -> alt.Legend:
    """A legend above or below the chart whose entries wrap to the chart's width (see the module docstring)."""
    return alt.Legend(orient=orient, columns=alt.ExprRef(f"max(1, floor(width / {LEGEND_COLUMN}))"),
                      labelLimit=LEGEND_COLUMN - 20, **options)


def present() -> bool:
    """Presentation mode is on (the sidebar's toggle)."""
    return bool(st.session_state.get(state.PRESENT))


def text_px(usual: float) -> float:
    """A chart's text size: `usual`, or at least css.PRESENT_TEXT_PX in presentation mode (for marks and axes
    that set their own size, which the config below does not reach)."""
    return max(usual, css.PRESENT_TEXT_PX) if present() else usual


PRESENT_INK = "#111"  # present.css's near-black for small print: high contrast on a projector


def _config(px: int) -> dict[str, Any]:
    ink = {"labelColor": PRESENT_INK, "titleColor": PRESENT_INK}
    return {"axis": {"labelFontSize": px, "titleFontSize": px, **ink},
            "legend": {"labelFontSize": px, "titleFontSize": px, **ink},
            "header": {"labelFontSize": px, "titleFontSize": px},
            "title": {"fontSize": px + 2},
            "text": {"fontSize": px}}


def sized(chart: alt.TopLevelMixin) -> alt.TopLevelMixin:
    """`chart` with presentation mode's type on its axes, legends, titles and text marks (unchanged otherwise)."""
    if not present():
        return chart
    config = _config(css.PRESENT_TEXT_PX)
    return (chart.configure_axis(**config["axis"]).configure_legend(**config["legend"])
            .configure_header(**config["header"]).configure_title(**config["title"]).configure_text(**config["text"]))


def sized_spec(spec: dict[str, Any]) -> dict[str, Any]:
    """A Vega-Lite `spec` (a dict) with presentation mode's type, as `sized` (a copy; the spec is not changed)."""
    if not present():
        return spec
    config = dict(spec.get("config", {}))
    for part, values in _config(css.PRESENT_TEXT_PX).items():
        config[part] = {**config.get(part, {}), **values}
    return {**spec, "config": config}
