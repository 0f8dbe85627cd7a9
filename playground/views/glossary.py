"""Glossary: the playground's words in plain language (playground/render/glossary.py); every `?` help links here."""
from __future__ import annotations

import streamlit as st

from playground import state
from playground.render import glossary
from playground.widgets.page import header, styles

K_TERM = state.GLOSSARY_TERM


def render() -> None:
    styles("glossary")
    header("Glossary", "the words this playground uses, in plain language. Every ? help links its words here.")
    # A help's link names its term (v.glossary_term): that entry is marked, and glossary_links.js scrolls to it.
    term = st.selectbox("Find a term", glossary.NAMES, index=None, key=K_TERM, persist_state="session",
                        placeholder="piece, rank, merge…")
    st.markdown(glossary.glossary_html(term), unsafe_allow_html=True)
