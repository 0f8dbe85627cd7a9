"""The playground's small inline components (Streamlit 1.67's ``st.components.v2.component``).

Each is one JavaScript file in playground/static/ and, where it draws
something, HTML and CSS from playground/html.py: no npm build, nothing fetched.
The modules that use them say why each exists (copy_button, html_block,
live_input, token_links).
"""
from __future__ import annotations

from pathlib import Path
from typing import Any

import streamlit as st

STATIC = Path(__file__).parent / "static"


def inline(name: str, script: str, **options: Any) -> Any:
    """Register component `name` with playground/static/`script` as its JavaScript; `options` are
    ``st.components.v2.component``'s (html, css, isolate_styles)."""
    return st.components.v2.component(name, js=(STATIC / script).read_text(encoding="utf-8"), **options)
