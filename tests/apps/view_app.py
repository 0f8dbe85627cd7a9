"""AppTest harness: the app's frame around one view, picked by `at.session_state["_view"]`.

Usage in a test:
    at = AppTest.from_file(str(VIEW_APP), default_timeout=60)
    at.session_state["_view"] = "tokenize_view"
    at.run()
"""
import importlib
import sys
from pathlib import Path

ROOT = str(Path(__file__).resolve().parents[2])
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

import streamlit as st  # noqa: E402

from playground import sidebar, state  # noqa: E402

state.init_state()
sidebar.render()
importlib.import_module(f"playground.{st.session_state.get('_view', 'tokenize_view')}").render()
state.save_query_params()
