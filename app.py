"""BPE playground: the frame. Page config, shared state and sidebar, navigation, the page (errors caught),
all in one of the server's turns for script runs."""
from __future__ import annotations

import streamlit as st

from playground import state
from playground.pages import sections
from playground.render import html
from playground.serving import errors, script_gate, warmup
from playground.widgets import browser_memory, share_link, sidebar

with script_gate.turn():  # at most two runs at once, the rest in turn (playground/serving/script_gate.py)
    st.set_page_config(page_title="BPE playground", page_icon=html.favicon(), layout="wide")
    state.init_state()
    page = st.navigation(sections(), expanded=True)  # every page listed: teaching pages must not hide behind "View more"
    sidebar.render()
    errors.run_page(page)
    warmup.warm_builtins()  # once per server, after its first page: the defaults load in the background
    share_link.render(page.url_path)  # the address bar's link, and the sidebar's "Copy share link"
    browser_memory.render()  # what a reload would lose, kept in this browser (the Chat page's conversation too)
