"""BPE playground: the frame. Page config, shared state and sidebar, navigation, the page (errors caught)."""
from __future__ import annotations

from pathlib import Path

import streamlit as st

from playground import encodings, errors, sidebar, state
from playground.pages import sections

ICON = Path(__file__).parent / "playground" / "static" / "favicon.png"  # drawn tokens; an emoji icon is fetched from a CDN

st.set_page_config(page_title="BPE playground", page_icon=str(ICON), layout="wide")
state.init_state()
page = st.navigation(sections())
sidebar.render()
errors.run_page(page)
encodings.warm_builtins()  # once per server, after its first page: the defaults load in the background
state.save_query_params(page.url_path)
