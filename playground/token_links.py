"""Hover, highlight and pin for drawn tokens, and the pinned token's links to its tree and vocabulary entry.

A script-only inline component (``st.components.v2``, JavaScript in
playground/static/token_links.js) installs one set of document listeners:
hovering a drawn unit shows a styled tooltip at once (ids, bytes in hex,
text, rank, piece) and highlights the same tokens in the ids list and the same
characters in the other encodings on Compare; a click pins it.  The pinned
tooltip's links send a trigger value here; `_opened` picks the token (shared
state) and `follow` switches page, keeping the session.
"""
from __future__ import annotations

import streamlit as st

from playground import components, pickers

KEY = "token_links"
_PENDING = "_token_links_open"  # the page to switch to after a pinned token's link was clicked

_component = components.inline("bpe_token_links", "token_links.js")


def _opened() -> None:
    value = st.session_state.get(KEY)
    event = value.get("open") if hasattr(value, "get") else None
    if not isinstance(event, dict) or event.get("page") not in ("tree", "vocab"):
        return
    try:
        token_id = int(event["id"])
    except (KeyError, TypeError, ValueError):
        return
    pickers.set_token(str(event.get("enc", "")), token_id)
    if event["page"] == "vocab":
        pickers.open_vocab_token()
    st.session_state[_PENDING] = event["page"]


def mount() -> None:
    """Install the listeners on this page (once per page run) and follow a link clicked last run."""
    page = st.session_state.pop(_PENDING, None)
    if page:
        pickers.go(page)
    _component(key=KEY, on_open_change=_opened)
