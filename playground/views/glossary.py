"""Glossary: the playground's words in plain language (playground/render/glossary.py); every `?` help links here."""
from __future__ import annotations

import streamlit as st

from playground import state
from playground.render import glossary
from playground.widgets.page import header, styles


def render() -> None:
    styles("glossary")
    header("Glossary", "the words this playground uses, in plain language. Every ? help links its words here.")
    # A help's link names its term (v.glossary_term): that entry is marked, and glossary_links.js scrolls to it.
    st.markdown(glossary.glossary_html(st.session_state.get(state.GLOSSARY_TERM)), unsafe_allow_html=True)
