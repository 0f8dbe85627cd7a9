"""The shared text box of Tokenize and Compare: tokens update while you type, no Ctrl+Enter.

A small inline custom component (Streamlit 1.67's ``st.components.v2.component``:
HTML from playground/render/html.py, CSS from playground/render/styles/live_input.css,
JavaScript from playground/components/live_input.js).
It needs no npm build and fetches nothing: the browser sends the text
150 ms after the last keystroke (and at once when the box loses focus).
Chosen over a PyPI package (streamlit-keyup and the like are v1 iframe
components, one more dependency and an iframe round trip per keystroke) and
over ``st.text_area`` (which commits only on Ctrl+Enter or blur).

The text itself lives in ``st.session_state[state.TEXT]``, so every
other view, the share link and the gallery's "open" buttons keep working: the
component reports the typed text into that key, and Python sends the text back
down only when Python changed it (tagged with a revision number), never the
same megabytes on every rerun.  The browser reports the text as a *trigger*
value, not as component state: state is sent up again with every later rerun
request (a 2 MB paste then travelled, and was parsed, on every click).
"""
from __future__ import annotations

import streamlit as st

from playground import components, state
from playground.cache import encodings, render_cache
from playground.render import css, html
from playground.render.markdown import md

KEY = "live_text"
DEBOUNCE_MS = 150
_SEEN = "_live_text_seen"  # the text the browser is known to hold
_REV = "_live_text_rev"  # bumped whenever Python sends a text down

_component = components.inline("bpe_live_text", "live_input.js", html=html.LIVE_TEXT_HTML, css=css.rules("live_input"))


def _typed() -> None:
    """The browser reported new text: it becomes the app's text."""
    take_typed(st.session_state.get(KEY))


def take_typed(value: object) -> None:
    """The component's report `value` ({"text": ...}, JSON from the page, so anything a raw client sends)
    made the app's text: cut to the limit and repaired, each with a notice."""
    text = value.get("text") if hasattr(value, "get") else None
    if isinstance(text, str):
        sent = text
        if len(text) > state.MAX_TEXT_CHARS:
            state.notify("warning", f"The text had {len(text):,} characters; the limit is {state.MAX_TEXT_CHARS:,}, "
                                    "so only its beginning is used.")
            text = text[: state.MAX_TEXT_CHARS]
        text = state.repaired_text(text, "The typed text")
        # a shortened or repaired text goes back down to the box, so the box shows what is counted
        st.session_state[_SEEN] = text if text is sent else None
        st.session_state[state.TEXT] = text


def text_box(label: str = "Text", *, notes: bool = True) -> str:
    """The live text box (its text is ``st.session_state[state.TEXT]``); with `notes`, the share-link
    hint and the drawing limit under it (Tokenize, Compare; the gallery has notes of its own)."""
    text = st.session_state.get(state.TEXT, state.DEFAULT_TEXT)
    st.session_state[state.TEXT] = text
    data: dict[str, object] = {"text": None, "rev": st.session_state.get(_REV, 0), "debounce": DEBOUNCE_MS,
                               "max": state.MAX_TEXT_CHARS, "label": label}
    if text != st.session_state.get(_SEEN):
        data["rev"] = st.session_state[_REV] = st.session_state.get(_REV, 0) + 1
        data["text"] = text
        st.session_state[_SEEN] = text
    _component(key=KEY, data=data, on_text_change=_typed)
    if not notes:
        return text
    if len(text) <= state.MAX_URL_TEXT:
        st.caption("🔗 Share link: the address bar holds this text, the encodings and the options.")
    else:
        st.caption(f"🔗 Share link: this text ({len(text):,} characters) is over the {state.MAX_URL_TEXT:,} a link "
                   "holds, so it is left out: the link opens with the demo text (and says so) but keeps the "
                   "encodings and options. Send the text another way.")
    own = state.session_only_selected()
    if own:
        st.caption(f"Your own tokenizer{'s' if len(own) > 1 else ''} ({md(', '.join(own))}) cannot travel in a "
                   "link: the person you send it to sees the other encodings.")
    if len(text) > render_cache.DRAWN_CHARS:
        st.info(f"Drawing tokens for the first {render_cache.DRAWN_CHARS:,} of {len(text):,} characters "
                f"(the table and downloads cover {min(len(text), encodings.DRAW_LIMIT):,}). "
                "The counts cover the whole text.")
    return text
