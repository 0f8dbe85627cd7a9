"""Session-state keys, their defaults, and the share link (query parameters).

Every key any view reads from `st.session_state` is a constant here.
Text, encodings and options live in the URL so that a copied link restores
the view; `load_query_params` runs once per session, `save_query_params`
after the widgets of a run have been read.
"""
from __future__ import annotations

import streamlit as st

# keys shared by every view (sidebar widgets)
TEXT = "text"
ENCODINGS = "encodings"
SPECIAL = "special_policy"
SHOW_WS = "show_ws"
# the session's own tokenizers (trained or uploaded): {name: engine.Encoding}
CUSTOM = "custom_encodings"
# merge tree / vocabulary views: the chosen token and encoding
TOKEN_ID = "token_id"
TOKEN_ENC = "token_encoding"
_LOADED = "_query_params_loaded"

BUILTIN_ENCODINGS = ["gpt2", "r50k_base", "cl100k_base", "o200k_base"]
DEFAULT_ENCODINGS = ["gpt2", "cl100k_base"]
SPECIAL_POLICIES = {
    "text": "as plain text",
    "special": "as special tokens",
    "refuse": "refuse (tiktoken's default)",
}
DEFAULT_TEXT = (
    "Hello world! Tokenizers cut text into pieces: \"unbelievable\" isn't one word to GPT-2.\n"
    "Numbers: 1234567 + 2026 = 1236593.   Code:\n"
    "def greet(name):\n"
    "    return f\"Hi, {name}!\"\n"
    "Languages: こんにちは世界 · Привет мир · مرحبا بالعالم · 👋🏽 🇯🇵"
)
MAX_URL_TEXT = 4000  # characters of text kept in the share link

DEFAULTS = {
    TEXT: DEFAULT_TEXT,
    ENCODINGS: DEFAULT_ENCODINGS,
    SPECIAL: "text",
    SHOW_WS: True,
    TOKEN_ID: None,
    TOKEN_ENC: "cl100k_base",
}


def init_state() -> None:
    """Set defaults (never overwriting), then restore the share link once per session."""
    st.session_state.setdefault(CUSTOM, {})
    for key, value in DEFAULTS.items():
        st.session_state.setdefault(key, list(value) if isinstance(value, list) else value)
    if not st.session_state.get(_LOADED):
        st.session_state[_LOADED] = True
        load_query_params()


def known_encodings() -> list[str]:
    return BUILTIN_ENCODINGS + list(st.session_state.get(CUSTOM, {}))


def load_query_params() -> None:
    qp = st.query_params
    if "text" in qp:
        st.session_state[TEXT] = qp["text"]
    if "enc" in qp:
        names = [n for n in qp["enc"].split(",") if n in BUILTIN_ENCODINGS]
        if names:
            st.session_state[ENCODINGS] = names[:4]
    if qp.get("sp") in SPECIAL_POLICIES:
        st.session_state[SPECIAL] = qp["sp"]
    if "ws" in qp:
        st.session_state[SHOW_WS] = qp["ws"] != "0"
    if "tok" in qp:
        try:
            st.session_state[TOKEN_ID] = int(qp["tok"])
        except ValueError:
            pass
    if qp.get("tenc") in BUILTIN_ENCODINGS:
        st.session_state[TOKEN_ENC] = qp["tenc"]


def save_query_params() -> None:
    """Write the current state into the URL (text only when short enough)."""
    text = st.session_state.get(TEXT, "")
    params = {
        "enc": ",".join(n for n in st.session_state.get(ENCODINGS, []) if n in BUILTIN_ENCODINGS),
        "sp": st.session_state.get(SPECIAL, "text"),
        "ws": "1" if st.session_state.get(SHOW_WS, True) else "0",
    }
    if len(text) <= MAX_URL_TEXT:
        params["text"] = text
    if st.session_state.get(TOKEN_ID) is not None:
        params["tok"] = str(st.session_state[TOKEN_ID])
        params["tenc"] = st.session_state.get(TOKEN_ENC, "cl100k_base")
    if dict(st.query_params) != params:
        st.query_params.from_dict(params)
