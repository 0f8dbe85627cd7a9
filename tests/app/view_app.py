"""AppTest harness: the app's frame around one view, picked by `at.session_state["_view"]`.

Usage in a test:
    at = AppTest.from_file(str(VIEW_APP), default_timeout=60)
    at.session_state["_view"] = "views.tokenize"
    at.run()

With ``at.session_state["_net"] = True`` the view runs inside `errors.run_page`, as in app.py,
so a test sees what users see when it fails; otherwise errors surface as `at.exception`.
"""
import importlib
import sys
from pathlib import Path
from types import SimpleNamespace

ROOT = str(Path(__file__).resolve().parents[2])
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

import streamlit as st  # noqa: E402

from playground import state  # noqa: E402
from playground.serving import errors  # noqa: E402
from playground.widgets import browser_memory, sidebar  # noqa: E402

state.init_state()
sidebar.render()
view = st.session_state.get("_view", "views.tokenize")
page = SimpleNamespace(run=lambda: importlib.import_module(f"playground.{view}").render(), url_path=view)
if st.session_state.get("_net"):
    errors.run_page(page)
else:
    page.run()
state.save_query_params()
browser_memory.render()
