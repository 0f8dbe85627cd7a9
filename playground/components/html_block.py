"""Big blocks of markup from playground/render/ (token rows, bytes, pieces, ids, chunk cards), drawn in place.

A small inline component (Streamlit 1.67's ``st.components.v2.component``, in
the page's own DOM so the page's CSS and the token listeners reach it;
JavaScript in playground/components/html_block.js).  Used instead of ``st.html``
for these blocks: ``st.html`` runs each block through DOMPurify and React replaces
it whole on every rerun, which costs the browser's main thread on every
keystroke on Compare.  The component parses
the markup inert, keeps the unchanged beginning and end of the block as they
are (the same DOM nodes: a hovered or pinned unit before the edit stays) and
updates the rest, cleaning what it takes against an allowlist (defence in
depth: playground/render/ has escaped every value already; tests/browser/test_block.py
pushes hostile markup through it).
"""
from __future__ import annotations

from playground import components

_component = components.inline("bpe_html_block", "html_block.js", isolate_styles=False)


def block(markup: str, *, key: str) -> None:
    """Draw `markup` (built and escaped by playground.render.html) under a key unique on the page."""
    _component(key=key, data={"html": markup})
