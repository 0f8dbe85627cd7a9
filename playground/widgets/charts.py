"""What the views' Altair charts share.

A legend above or below a chart lays its entries out in one row; on a phone a row of six names runs past
the chart's right edge and is cut.  `wrapping_legend` gives it as many columns as the chart's width holds
(Vega reads ``width`` when it draws, so the same chart wraps on a phone and stays one row on a desktop).
"""
from __future__ import annotations

import altair as alt

__all__ = ["wrapping_legend", "LEGEND_COLUMN"]

LEGEND_COLUMN = 130  # pixels one legend entry gets: a swatch and a name of up to ~16 characters


def wrapping_legend(*, orient: str = "bottom", **options) -> alt.Legend:
    """A legend above or below the chart whose entries wrap to the chart's width (see the module docstring)."""
    return alt.Legend(orient=orient, columns=alt.ExprRef(f"max(1, floor(width / {LEGEND_COLUMN}))"),
                      labelLimit=LEGEND_COLUMN - 20, **options)
