"""The playground's CSS, read from playground/render/styles/*.css: the one way a page gets its styles.

A page's `<style>` block goes through ``st.markdown``, where a blank line ends the HTML block and
shows the rest of the CSS as text, so blank lines and ``/* comments */`` are dropped on loading;
one block holds all the rules asked for (a line with ``</style><style>`` ends the block too).
"""
from __future__ import annotations

import functools
import re
from pathlib import Path

STYLES = Path(__file__).parent / "styles"
# The smallest text presentation mode draws, in CSS pixels (present.css sets the page's type to 20 px; Streamlit's
# small print is 0.8-0.875 of it): drawings that size their own text (charts, the merge tree) use it too.
PRESENT_TEXT_PX = 16
_COMMENT = re.compile(r"/\*.*?\*/", re.S)


@functools.cache
def rules(*names: str) -> str:
    """The rules of styles/<name>.css for each of `names`, in order, without comments or blank lines."""
    text = "\n".join(_COMMENT.sub("", (STYLES / f"{name}.css").read_text(encoding="utf-8")) for name in names)
    return "\n".join(line for line in text.splitlines() if line.strip())


def style_block(*names: str) -> str:
    """One ``<style>`` block with the rules of `names`, for ``st.markdown`` or the start of a drawn block."""
    return "<style>\n" + rules(*names) + "\n</style>"
