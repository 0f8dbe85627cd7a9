"""The playground's small inline components (Streamlit 1.67's ``st.components.v2.component``).

Each is a Python wrapper beside its JavaScript of the same stem in this folder
(``live_input.py`` + ``live_input.js``) and, where it draws something, HTML and
CSS from playground/render/: no npm build, nothing fetched. Each wrapper says why
its component exists (browser_store, copy_button, glossary_links, history, html_block, live_input,
token_links).
"""
from __future__ import annotations

from pathlib import Path
from typing import Any

import streamlit as st

HERE = Path(__file__).parent  # each component's .js sits beside its .py


def inline(name: str, script: str, **options: Any) -> Any:
    """Register component `name` with playground/components/`script` as its JavaScript; `options` are
    ``st.components.v2.component``'s (html, css, isolate_styles).

    The mount function it returns sends each list in ``data`` as a tuple (the same JSON array): Streamlit
    looks for a dataframe in every ``data`` value that is not a str, number, tuple or set, and that look
    imports pandas and pyarrow -- half a second of a cold server's first page, which mounts components.
    """
    mount = st.components.v2.component(name, js=(HERE / script).read_text(encoding="utf-8"), **options)

    def light_mount(*args: Any, data: Any = None, **kwargs: Any) -> Any:
        if isinstance(data, dict):
            data = {k: tuple(v) if isinstance(v, list) else v for k, v in data.items()}
        return mount(*args, data=data, **kwargs)

    return light_mount
