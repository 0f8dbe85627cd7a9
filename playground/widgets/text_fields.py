"""Limited text boxes with the app's one character count: Unicode code points (Python's ``len``).

Streamlit's own ``max_chars`` is checked in the browser in UTF-16 units, so 🦜 counts 2 there and a
box silently stops taking what is typed (or cuts what is pasted) past the limit, in a unit no other
count in this app uses.  These boxes have no browser limit: every character typed stays in the box;
the count under it is in code points, as the Characters metric and the live text box count; past
the limit a message says by how much, and the caller refuses the text rather than cutting it.
"""
from __future__ import annotations

from typing import Any

import streamlit as st

from playground.render.markdown import md

NEAR = 0.8  # a single-line box shows its count from this share of its limit on (the long boxes always do)


def over_limit(label: str, text: str, limit: int) -> str | None:
    """The message for `text` past `limit` characters (code points), or None when it fits."""
    n = len(text)
    if n <= limit:
        return None
    return (f"{md(label)}: {n:,} characters, over the limit of {limit:,} ({n - limit:,} too many). "
            "Nothing was cut: shorten it to go on.")


def text_field(label: str, *, key: str, limit: int, area: bool = False, where: Any = None, **kwargs: Any) -> str | None:
    """``st.text_input`` (``st.text_area`` with `area`) under `key`, in `where` (a column; default the page),
    limited to `limit` characters: the text, or None when it is over the limit (it stays in the box, and a
    warning under it says by how much).  Other keyword arguments go to the Streamlit widget."""
    target = where if where is not None else st
    box = target.text_area if area else target.text_input
    text = box(label, key=key, **kwargs) or ""
    message = over_limit(label, text, limit)
    if message:
        target.warning(message)
        return None
    if text and (area or len(text) >= NEAR * limit):
        target.caption(f"{len(text):,} / {limit:,} characters")
    return text
