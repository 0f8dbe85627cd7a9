"""The share link: the address bar holds the text, the encodings and the open page's settings
(`state.save_query_params`); "Copy share link" at the foot of the sidebar copies it.

Beside the button the sender reads what the link cannot carry (a text over `state.MAX_URL_TEXT`
characters, their own tokenizers, an over-long setting), and the link itself lists them
(its ``cut`` parameter), so whoever opens it is told as well (`state.load_query_params`):
a link never drops something without a word.
"""
from __future__ import annotations

import streamlit as st

from playground import state
from playground.components.copy_button import copy_button
from playground.render.markdown import md


def render(page: str | None) -> None:
    """Write the link for `page` into the address bar, then the copy button and what the link leaves out."""
    state.save_query_params(page)
    gaps = state.link_gaps(page)
    with st.sidebar:
        copy_button("🔗 Copy share link", "", key=state.SHARE_LINK_COPY, address=True)
        if gaps:
            st.warning(md("This link leaves out " + "; ".join(gaps) + ".", 1000))
        else:
            st.caption("The link opens this page with your text, encodings and settings.")
