"""Hover, highlight and pin for drawn tokens, and the pinned token's links to its tree and vocabulary entry.

A script-only inline component (``st.components.v2``, JavaScript in
playground/components/token_links.js) installs one set of document listeners:
hovering a drawn unit shows a styled tooltip at once (ids, bytes in hex,
text, rank, piece) and highlights the same tokens in the ids list and the same
characters in the other encodings on Compare; a click pins it.  The pinned
tooltip's links send a trigger value here; `_opened` picks the token (shared
state) and `follow` switches page, keeping the session.  Pinning itself sends a
"pin" trigger: the pinned token becomes the chosen token, so Tokenize's
"Explain a token" box shows it and its "Open its merge tree →" button opens it
(it opened the box's first token, "The", while ␣SolidGoldMagikarp was pinned).
"""
from __future__ import annotations

from typing import Any, Callable, Mapping

import streamlit as st

from playground import components, state
from playground.widgets import pickers

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


def pinned(session: Mapping[str, Any], choose: Callable[[str, int], None]) -> None:
    """A "pin" event in `session` (a click that pinned a drawn token): `choose(encoding, id)`; anything
    malformed is ignored (the value comes from the page)."""
    value = session.get(KEY)
    event = value.get("pin") if hasattr(value, "get") else None
    if not isinstance(event, dict) or not isinstance(event.get("enc"), str):
        return
    try:
        token_id = int(event["id"])
    except (KeyError, TypeError, ValueError):
        return
    choose(event["enc"], token_id)


def _choose(enc_name: str, token_id: int) -> None:
    if enc_name in state.known_encodings():
        pickers.set_token(enc_name, token_id)


def _pinned() -> None:
    pinned(st.session_state, _choose)


def mount() -> None:
    """Install the listeners on this page (once per page run) and follow a link clicked last run."""
    page = st.session_state.pop(_PENDING, None)
    if page:
        pickers.go(page)
    _component(key=KEY, on_open_change=_opened, on_pin_change=_pinned)
