"""Hover, highlight and pin for drawn tokens, and the pinned token's links to its tree and vocabulary entry.

A script-only inline component (``st.components.v2``, JavaScript in
playground/components/token_links.js) installs one set of document listeners:
hovering a drawn unit shows a styled tooltip at once (ids, bytes in hex,
text, rank, piece) and highlights the same tokens in the ids list and the same
characters in the other encodings on Compare; a click pins it.  The pinned
tooltip's links send an "open" trigger value; pinning itself sends a "pin"
trigger.  This module reads both events; what they do (pick the token, switch
page; make the pinned token the chosen one, so Tokenize's "Explain a token" box
and its "Open its merge tree →" button follow the pin, not the box's first
token) belongs to the pickers (playground/widgets/pickers.py), which mount it.
"""
from __future__ import annotations

from typing import Any, Callable, Mapping

from playground import components

KEY = "token_links"

_component = components.inline("bpe_token_links", "token_links.js")


def opened(session: Mapping[str, Any], open_page: Callable[[str, str, int], None]) -> None:
    """An "open" event in `session` (a pinned token's link to its tree or vocabulary entry):
    `open_page(page, encoding, id)`; anything malformed is ignored (the value comes from the page)."""
    value = session.get(KEY)
    event = value.get("open") if hasattr(value, "get") else None
    if not isinstance(event, dict) or event.get("page") not in ("tree", "vocab"):
        return
    try:
        token_id = int(event["id"])
    except (KeyError, TypeError, ValueError, OverflowError):  # OverflowError: a raw client's 1e400 is inf
        return
    open_page(event["page"], str(event.get("enc", "")), token_id)


def pinned(session: Mapping[str, Any], choose: Callable[[str, int], None]) -> None:
    """A "pin" event in `session` (a click that pinned a drawn token): `choose(encoding, id)`; anything
    malformed is ignored (the value comes from the page)."""
    value = session.get(KEY)
    event = value.get("pin") if hasattr(value, "get") else None
    if not isinstance(event, dict) or not isinstance(event.get("enc"), str):
        return
    try:
        token_id = int(event["id"])
    except (KeyError, TypeError, ValueError, OverflowError):  # OverflowError: a raw client's 1e400 is inf
        return
    choose(event["enc"], token_id)


def mount(*, on_open: Callable[[], None], on_pin: Callable[[], None]) -> None:
    """Install the listeners on this page (once per page run); `on_open` runs when a pinned token's link
    was clicked, `on_pin` when a token was pinned."""
    _component(key=KEY, on_open_change=on_open, on_pin_change=on_pin)
