"""Controls shared by every view: encodings, special-token policy, whitespace markers."""
from __future__ import annotations

import streamlit as st

from playground import state


def render() -> None:
    with st.sidebar:
        st.multiselect(
            "Encodings",
            state.known_encodings(),
            key=state.ENCODINGS,
            max_selections=4,
            help="Compare shows up to four side by side; Tokenize inspects one of them.",
        )
        st.radio(
            "Special tokens such as <|endoftext|>",
            list(state.SPECIAL_POLICIES),
            format_func=state.SPECIAL_POLICIES.get,
            key=state.SPECIAL,
            help="tiktoken's encode() refuses special-token text unless you allow it.",
        )
        st.toggle("Show whitespace", key=state.SHOW_WS, help="Draw · for space, → for tab, ↵ for newline.")
