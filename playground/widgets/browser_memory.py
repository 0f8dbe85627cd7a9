"""What this tab remembers across a reload: the names of its own tokenizers, so the page after a reload says
which ones the reload cleared.

A trained tokenizer and an upload live in the server's memory, in this tab's session
(playground/cache/uploads.py): a reload starts a new session without them.  They cannot be kept, so the
page says so where they are made (views/train.py: "kept for this tab only") and, after a reload, names them:
"Your trained tokenizer X and uploads Y were cleared by the reload".  For that the tab keeps their names
(playground/components/browser_store.py's ``own`` item, in sessionStorage: this tab only, so another tab's
tokenizers, still alive in its own session, are never reported lost).

`render` runs at the end of every run (app.py), after the page made or dropped tokenizers: it writes the
names and sends the browser store's asks and writes (the Chat page's included).
"""
from __future__ import annotations

import json
import streamlit as st

from playground import state
from playground.cache.uploads import MAX_NAME_CHARS
from playground.components import browser_store

ITEM = "own"
MAX_NAMES = 20  # names read back per kind (a session holds state.MAX_CUSTOM, and one trained result)


def own_names() -> dict[str, list[str]]:
    """This session's tokenizers by kind: {"trained": [...], "uploaded": [...]}, the trained result of
    Train your own included (kept there until "Use in Compare" adds it to the sidebar)."""
    trained, uploaded = [], []
    for name, enc in st.session_state.get(state.CUSTOM, {}).items():
        (trained if getattr(enc, "training", None) is not None else uploaded).append(name)
    result = getattr(st.session_state.get(state.TRAIN_RESULT), "name", None)
    if isinstance(result, str) and result not in trained:
        trained.insert(0, result)
    return {"trained": trained, "uploaded": uploaded}


def read_names(text: str | None) -> dict[str, list[str]]:
    """The names the tab kept (text from the page: anything malformed reads as none)."""
    try:
        doc = json.loads(text) if isinstance(text, str) and len(text) < 10_000 else None
    except ValueError:
        doc = None
    doc = doc if isinstance(doc, dict) else {}
    return {kind: [n for n in doc.get(kind) if isinstance(n, str) and 0 < len(n) <= 2 * MAX_NAME_CHARS][:MAX_NAMES]
            if isinstance(doc.get(kind), list) else [] for kind in ("trained", "uploaded")}


WHEN = {
    "reload": "by the reload",
    "navigate": "when this tab opened the playground again",
    "back_forward": "when this tab opened the playground again",
    "session": "when the server ended this tab's session (the connection was lost for longer than Streamlit "
               "keeps a session, or the server restarted)",
}


def lost_notice(before: dict[str, list[str]], now: dict[str, list[str]], how: str) -> str | None:
    """What to tell after a reload: the tokenizers the tab had (`before`) that this session lacks (`now`),
    by kind, in words; None if nothing was lost."""
    have = {n for names in now.values() for n in names}
    trained = [n for n in before["trained"] if n not in have]
    uploaded = [n for n in before["uploaded"] if n not in have]
    if not trained and not uploaded:
        return None
    parts = []
    if trained:
        parts.append(f"trained tokenizer{'s' if len(trained) > 1 else ''} {', '.join(trained)}")
    if uploaded:
        parts.append(f"{'uploads' if len(uploaded) > 1 else 'upload'} {', '.join(uploaded)}")
    several = len(trained) + len(uploaded) > 1
    again = " or ".join(filter(None, [
        "train again (or upload a trained tokenizer's downloaded .tiktoken file as a rank file)" if trained else "",
        "upload the files again" if uploaded else ""]))
    return (f"Your {' and '.join(parts)} {'were' if several else 'was'} cleared {WHEN.get(how, WHEN['navigate'])}: "
            f"the server keeps {'them' if several else 'it'} in memory for one tab's session only, and a reload "
            f"starts a new one. On Train your own, {again}.")


def _reported(report: browser_store.Report) -> None:
    """The browser's report, before the run it starts: the notices the last run showed are shown again (that
    run's page is redrawn), and after a reload, what it cleared."""
    notice = lost_notice(read_names(report.items[ITEM]), own_names(), report.how) if ITEM in report.items else None
    # the link's notice named the same tokenizers as "the sender's": this tab's reload is where they went
    cut = state.link_cut()
    state.notices_again({state.cut_notice(cut): state.cut_notice(cut, own=False)} if notice and cut else None)
    if notice:
        state.notify("warning", notice)


def render() -> None:
    """Keep this tab's tokenizer names in the browser, and send the browser store's asks and writes."""
    names = own_names()
    browser_store.ask(ITEM)
    browser_store.keep(ITEM, json.dumps(names, ensure_ascii=False) if any(names.values()) else None)
    with st.sidebar:
        browser_store.mount(on_report=_reported)
