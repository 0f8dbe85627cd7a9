"""A "Copy" button for long values (all token ids of a text): one click puts them on the clipboard.

A small inline component (Streamlit 1.67's ``st.components.v2.component``; HTML
in playground/render/html.py, CSS in playground/render/styles/copy_button.css, JavaScript
in playground/components/copy_button.js).  Used instead of ``st.code``'s copy icon where
the value is long: ``st.code`` loads the syntax highlighter's bundle, a noticeable share
of a fresh page's main thread, on the first page a newcomer sees, only to show plain numbers.
"""
from __future__ import annotations

from playground import components
from playground.render import css, html

_component = components.inline("bpe_copy_button", "copy_button.js", html=html.COPY_BUTTON_HTML,
                               css=css.rules("copy_button"))


def copy_button(label: str, text: str, *, key: str, address: bool = False) -> None:
    """A button labelled `label` that copies `text` (sent with the page, not fetched on click); with
    `address`, the page's address as it is when clicked (the share link: the app rewrites it on each run)."""
    data: dict[str, object] = {"label": label, "text": text}
    if address:
        data["address"] = True
    _component(key=key, data=data)
