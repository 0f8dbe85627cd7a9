"""Glossary links in every `?` help, and presentation mode's class on the page.

Streamlit draws a widget's help as a tooltip when its `?` is hovered.  Rather than
repeat a link in every help text of every view, this script-only inline component
(``st.components.v2``, JavaScript in glossary_links.js) watches for those tooltips
and adds a line “Glossary: rank · merge” naming the glossary's terms found in that
help (playground/render/glossary.py), each a link to its entry on the Glossary page
(in a new tab, so the lecture's page stays as it was), or a plain “Glossary” link.
It also scrolls the Glossary page to the entry a link names (``?v.glossary_term=…``), once drawn.
"""
from __future__ import annotations

from playground import components
from playground.render import glossary

KEY = "glossary_links"
PAGE = "glossary"  # the Glossary page's URL path (playground/pages.py)

_component = components.inline("bpe_glossary_links", "glossary_links.js")


def mount() -> None:
    """Install the tooltip watcher on this page (once per page run)."""
    _component(key=KEY, data={"terms": glossary.link_terms(), "page": PAGE})
