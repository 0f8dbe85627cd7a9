"""What a reload would lose, kept in this browser: a script-only inline component over the browser's storage.

A reload (or a connection lost past Streamlit's grace period) starts a new Streamlit session, and nothing of
the old one reaches it: the Chat page came back as the example conversation, and a trained tokenizer or an
upload was gone without a word (issue 33).  This component keeps a few small *items* in the browser, each
under one key, ``bpe-playground:<item>``:

* ``chat`` in **localStorage** (this browser, across reloads, tabs and restarts; never another browser):
  the Chat page's conversation, models, tools and thinking settings as its share code (playground/views/chat.py
  says how much and how to clear it);
* ``own`` in **sessionStorage** (this tab, across its reloads): the *names* of the tab's trained and uploaded
  tokenizers, so the page after a reload can say which ones the reload cleared.  The tokenizers themselves live
  in the server's memory and cannot be kept.  Per tab, not per browser: another tab's tokenizers are still
  alive in its own session, and must not be reported lost.

How it talks (playground/components/browser_store.js beside this file): every run `mount` sends this
session's token, the items the page `ask`-ed about, and the `keep` writes that differ from what the browser
holds.  The browser reads each asked item once per session, *before* writing anything, and reports (a
trigger value, so a rerun) only when an item holds something -- or when the page asked for an answer -- so
a visitor with nothing kept costs no extra run.  Reported text comes from the page: `take_report` checks its
shape and size, and each item's reader checks its content like any other input.
"""
from __future__ import annotations

import json
import uuid
from dataclasses import dataclass, field
from typing import Any, Callable

import streamlit as st

from playground import components

KEY = "browser_store"
WHERE = {"chat": "local", "own": "tab"}  # item -> localStorage ("local") or sessionStorage ("tab")
MAX_VALUE_CHARS = 1_100_000  # a reported item past this is ignored (the chat keeps at most 1,000,000 + its JSON)
HOWS = ("reload", "navigate", "back_forward", "session")  # how the page that reported was opened
_TOKEN = "_browser_store_token"  # this session's id for the browser (it reads each item once per session)
_ASK = "_browser_store_ask"  # {item: answer wanted} asked in this run
_HEARD = "_browser_store_heard"  # {item: text or None} what the browser held when asked
_HOW = "_browser_store_how"
_WANT = "_browser_store_want"  # {item: text or None} this run's `keep` calls
_SENT = "_browser_store_sent"  # {item: text or None} what the browser holds, as far as this session knows
_REV = "_browser_store_rev"  # the number of the last writes sent (each applied once)
_REFUSED = "_browser_store_refused"  # {item: why} writes the browser refused (storage full or blocked)

_component = components.inline("bpe_browser_store", "browser_store.js")


@dataclass(frozen=True)
class Report:
    """What the browser said: how the page was opened, the items it read (text, or None for nothing kept),
    and the writes it refused (why)."""
    how: str
    items: dict[str, str | None] = field(default_factory=dict)
    refused: dict[str, str] = field(default_factory=dict)


def take_report(value: Any) -> Report | None:
    """The component's report in `value` (its session-state value: JSON from the page, so anything a raw
    client sends), checked: only known items, text only, each at most `MAX_VALUE_CHARS`; None if malformed."""
    report = value.get("report") if hasattr(value, "get") else None
    if not isinstance(report, dict):
        return None
    how = report.get("how") if report.get("how") in HOWS else "navigate"
    asked = report.get("asked") if isinstance(report.get("asked"), list) else []
    sent = report.get("items") if isinstance(report.get("items"), dict) else {}
    items: dict[str, str | None] = {item: None for item in asked if isinstance(item, str) and item in WHERE}
    for item, text in sent.items():
        if item in WHERE and isinstance(text, str) and len(text) <= MAX_VALUE_CHARS:
            items[item] = text
    refused = report.get("refused") if isinstance(report.get("refused"), dict) else {}
    return Report(how, items, {k: v[:200] for k, v in refused.items() if k in WHERE and isinstance(v, str)})


def _heard(report: Report) -> None:
    """Note the report in session state: what each item held, and what the browser holds now."""
    ss = st.session_state
    ss[_HOW] = report.how
    ss.setdefault(_HEARD, {}).update(report.items)
    sent = ss.setdefault(_SENT, {})
    for item, text in report.items.items():
        sent.setdefault(item, text)  # a write made after the read (same call) stays what the browser holds
    ss.setdefault(_REFUSED, {}).update(report.refused)


def ask(item: str, *, answer: bool = False) -> None:
    """Have the browser read `item` (once per session) and report it if it holds something; with `answer`,
    report even when it holds nothing (`answered` then tells the two apart)."""
    asked = st.session_state.setdefault(_ASK, {})
    asked[item] = asked.get(item, False) or answer


def answered(item: str) -> bool:
    """Whether the browser has said what `item` held in this session."""
    return item in st.session_state.get(_HEARD, {})


def stored(item: str) -> str | None:
    """The text the browser held for `item` when this session asked (None: nothing, or no answer yet)."""
    return st.session_state.get(_HEARD, {}).get(item)


def opened_by() -> str | None:
    """How the page was opened when the browser first reported ("reload", "navigate", "back_forward", or
    "session": a new session in the same page, after the server let the last one go); None before that."""
    return st.session_state.get(_HOW)


def keep(item: str, text: str | None) -> None:
    """Have the browser hold `text` for `item` (None: remove it), sent at the end of this run if it differs."""
    st.session_state.setdefault(_WANT, {})[item] = text


def holds(item: str) -> str | None:
    """What the browser holds for `item`, as far as this session knows (its report, and the writes since)."""
    return st.session_state.get(_SENT, {}).get(item)


def refused(item: str) -> str | None:
    """Why the browser refused the last write of `item` (storage full or blocked), or None."""
    return st.session_state.get(_REFUSED, {}).get(item)


def mount(on_report: Callable[[Report], None] | None = None) -> None:
    """Send this run's asks and writes (once, at the end of the run, after every `ask` and `keep`);
    `on_report` gets each report before the run it starts."""
    ss = st.session_state
    token = ss.setdefault(_TOKEN, uuid.uuid4().hex)
    asks = ss.pop(_ASK, {})
    message: dict[str, Any] = {"where": dict(WHERE),
                               "ask": {item: {"where": WHERE[item], "answer": answer} for item, answer in asks.items()}}
    sent = ss.setdefault(_SENT, {})
    writes = {item: text for item, text in ss.pop(_WANT, {}).items() if sent.get(item) != text}
    if writes:
        ss[_REV] = message["rev"] = ss.get(_REV, 0) + 1
        message["writes"] = writes
        sent.update(writes)  # a refused one is not sent again until it changes (no rerun per run)
        for item in writes:
            ss.setdefault(_REFUSED, {}).pop(item, None)
    # One JSON text: Streamlit looks for a dataframe in every data value that is a dict or a list, and that
    # look imports pandas and pyarrow (components.inline); a str it passes as it is.
    data = {"token": token, "message": json.dumps(message, ensure_ascii=False)}

    def reported() -> None:
        report = take_report(st.session_state.get(KEY))
        if report is None:
            return
        _heard(report)
        if on_report is not None:
            on_report(report)

    _component(key=KEY, data=data, on_report_change=reported)
