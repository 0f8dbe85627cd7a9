"""Every page runs inside `run_page`: an unexpected error becomes a short message, never a traceback.

The traceback goes to the server log with a short reference id, and the user
sees that id (``client.showErrorDetails = "none"`` in .streamlit/config.toml
hides Streamlit's own traceback box as well).  Expected problems -- a
refused special token, a bad file, a limit -- are caught where they happen
and explained there; this is the net under them.

When the session's own tokenizers (trained or uploaded) are selected, they
are unselected after an error, so a broken one cannot keep every page failing.
Streamlit's control-flow exceptions (rerun, stop, switch page) derive from
BaseException and pass through untouched.
"""
from __future__ import annotations

import uuid
from typing import Any

import streamlit as st
from streamlit.logger import get_logger

from playground import state
from playground.render.markdown import md

LOG = get_logger("playground")


def show_notices() -> None:
    # up to 8,000 characters: a link with a bad value for each of its 40 settings gets one notice naming all
    for kind, text in state.take_notices():
        {"error": st.error, "warning": st.warning, "success": st.success}.get(kind, st.info)(md(text, 8000))


def report(exc: BaseException, where: str) -> str:
    """Log `exc` with a fresh reference id and show the user a message with it; returns the id.

    If the session's own tokenizers are selected they are unselected (the sidebar widget is
    already drawn, so this happens in a fresh run, which shows the message as a notice).
    """
    ref = uuid.uuid4().hex[:8]
    LOG.error("error %s in %s", ref, where, exc_info=exc)
    message = (f"Something went wrong on this page (error reference {ref}; the details are in the "
               "server log). Try another text or setting, or reload the page.")
    custom = state.session_only_selected()
    if custom:
        state.unselect(custom)
        state.notify("error", message + f" Your own tokenizer{'s' if len(custom) > 1 else ''} "
                     f"({', '.join(custom)}) {'were' if len(custom) > 1 else 'was'} unselected in case "
                     "it caused this; select it again in the sidebar.")
        st.rerun()
    st.error(md(message, 600))
    return ref


def run_page(page: Any) -> None:
    """Notices, then the page, with any unexpected error reported instead of raised."""
    show_notices()
    try:
        page.run()
    except Exception as exc:  # noqa: BLE001 -- the net: everything not caught where it happened
        report(exc, f"page {getattr(page, 'url_path', '?')!r}")
