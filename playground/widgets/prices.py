"""Costs with their date, the user's own prices, and the context-window bars: what Chat formats, Budget and
the Arena show under their counts.

The prices and windows are engine.explain.prices' (a pinned genai-prices release, its "as of" date): every
cost drawn here is followed by `prices.source_line()`, so no number reads as today's price.  The user's own
prices are one text box (``model=input/cached/output/reasoning; ...``), key `state.PRICES`, kept for the
session (``persist_state``) and carried by the share link of each page that shows a cost; a text that cannot
be read is named and ignored, never half-applied.
"""
from __future__ import annotations

import json
from typing import Any, Iterable

import pandas as pd
import streamlit as st

from engine.explain import context_window
from engine.explain import prices
from playground import state
from playground.cache import encodings
from playground.render.markdown import md
from playground.render.window import window_bars
from playground.widgets.page import draw, styles

MAX_TOKENS_DEFAULT = 4_096  # reserved output when the user has not said: a common max_tokens default
MAX_TOOL_RECOUNTS = 12  # per-tool costs need one more count per tool and model: drawn up to this many tools


def overrides() -> dict[str, dict[str, float]]:
    """The user's prices as the box holds them ({} when empty or unreadable: the box says why)."""
    try:
        return prices.parse_overrides(st.session_state.get(state.PRICES) or "")
    except prices.PriceOverrideError:
        return {}


def price_box() -> dict[str, dict[str, float]]:
    """The "Your prices" box and the price list it changes, in an expander; the overrides in force."""
    table = prices.load_table()
    with st.expander(f"Prices: {table.source} {table.version}, as of {table.as_of} · set your own"):
        text = st.text_input(
            "Your prices (USD per million tokens)", key=state.PRICES, persist_state="session",
            placeholder="gpt-4o=2/1/8; GLM-5.2=1.2/-/4",
            help="model=input/cached input/output/reasoning, models separated by ';'; '-' keeps the listed price. "
                 "Kept for this session and in the share link.")
        own: dict[str, dict[str, float]] = {}
        try:
            own = prices.parse_overrides(text or "")
        except prices.PriceOverrideError as error:
            st.error(f"**Your prices were not used:** {md(error, 400)}")
        rows = []
        for name in prices.model_names():
            p = prices.price_for(name, own)
            rows.append({"model": name, "priced as": p.label, "encoding": p.encoding,
                         **{prices.FIELD_LABELS[f]: _shown_rate(getattr(p, f)) + ("*" if f in p.overridden else "")
                            for f in prices.PRICE_FIELDS},
                         "window": p.window})
        st.dataframe(pd.DataFrame(rows), hide_index=True, key=state.PRICES_TABLE)
        st.caption(prices.source_line(bool(own)) + " A tiered price is billed whole at the tier the prompt "
                   "reaches; reasoning without its own price is billed as output.")
    return own


def _shown_rate(value: prices.Rate) -> str:
    if value is None:
        return "—"
    if isinstance(value, dict):
        tiers = ", ".join(f"{p:g} past {start:,}" for start, p in value["tiers"])
        return f"{value['base']:g} ({tiers})"
    return f"{value:g}"


def count_text(value: int | None) -> str:
    """A count that may be unknown (a window the price list does not give, a model that cannot count the
    conversation), written out: "—" for none.  Text, not a number: the browser's table prints an empty number cell
    as "None" whatever a Styler's display text says (seen at 1280 px: Gemini 3.1 Pro preview's window read "None"
    though the Styler gave "—")."""
    return "—" if value is None else f"{value:,}"


def _usd(value: float | None) -> str:
    if value is None:
        return "no price listed"
    return f"${value:,.6f}" if value < 0.01 else f"${value:,.4f}"


def input_costs(counts: Iterable[tuple[str, int]], *, what: str) -> None:
    """Budget and Arena: what `counts` ((encoding, tokens)) cost as input, each encoding priced as its
    default model, with the source and date; encodings no listed model uses are named."""
    own = price_box()
    rows, unpriced, yours = [], [], False
    for name, tokens in counts:
        p = prices.price_for_encoding(name, own)
        if p is None:
            unpriced.append(name)
            continue
        yours = yours or bool(p.overridden)
        rows.append({"tokenizer": name, "priced as": p.label, "tokens": tokens,
                     "input $/M": p.rate("input", tokens), f"cost of {what}": _usd(prices.cost(p, input_tokens=tokens)),
                     "window": p.window,
                     "fits": "—" if p.window is None else ("yes" if tokens <= p.window else f"over by {tokens - p.window:,}")})
    if rows:
        st.dataframe(pd.DataFrame(rows), hide_index=True, key=state.PRICES_COSTS)
        st.caption(prices.source_line(yours) + f" Cost of {md(what)} sent once "
                   "as input, uncached.")
    if unpriced:
        st.caption(f"No listed price for {md(', '.join(unpriced), 300)} (no priced model uses it).")


# ---------------------------------------------------------------- Chat formats: costs and the window
def chat_window(results: dict[str, tuple[Any, Any]], messages: list[dict], tools: list[dict],
                image_tokens: dict[str, int] | None = None) -> None:
    """Chat formats' cost table and context-window bars for its rows (`results`: name -> (encoding, ChatTokens or
    the reason it was not counted)); per-tool costs are recounts of the conversation without each tool.
    `image_tokens`: each row's image and PDF parts, counted beside its text by the maker's rule (media_parts)."""
    counted = {name: (enc, r) for name, (enc, r) in results.items() if not isinstance(r, str)}
    if not counted:
        return
    st.markdown("**What it costs, and the context window**")
    st.session_state.setdefault(state.CHAT_MAX_TOKENS, MAX_TOKENS_DEFAULT)
    reserved = int(st.number_input("Reserved output (max_tokens)", min_value=0, max_value=100_000_000, step=1024,
                                   key=state.CHAT_MAX_TOKENS, persist_state="session",
                                   help="The reply's room: a window holds the prompt and the reply together."))
    own = price_box()
    conversation = json.dumps(messages, ensure_ascii=False)  # the recounts' inputs, made once for every row
    without = [] if len(tools) > MAX_TOOL_RECOUNTS else [
        (t["function"]["name"], json.dumps(tools[:i] + tools[i + 1:], ensure_ascii=False)) for i, t in enumerate(tools)]
    rows, bars, yours = [], [], False
    for name, (enc, r) in counted.items():
        parts = r.breakdown()
        p = prices.price_for_encoding(name, own)
        yours = yours or bool(p and p.overridden)
        window = p.window if p else None
        use = context_window.window_use([(part.label, part.tokens) for part in parts], window=window,
                                        reserved_output=reserved, image_tokens=(image_tokens or {}).get(name, 0),
                                        tool_costs=_tool_costs(name, enc, r, parts, conversation, without))
        label, row = _priced(name, p, use, reserved)
        bars.append((label, use))
        rows.append({"model": name, **row, "over by": count_text(use.over or None)})
    st.dataframe(pd.DataFrame(rows), hide_index=True, key=state.CHAT_COSTS_TABLE)
    st.caption(prices.source_line(yours) + " The prompt's cost is its tokens as input, uncached; the reply "
               "column adds max_tokens of output (reasoning billed as output where no price of its own is listed).")
    styles("window")
    draw(window_bars(bars), key=state.CHAT_WINDOW_BARS)


def family_costs(counts: dict[str, int]) -> None:
    """The Claude panel's costs and window bars: each family's count (one user message) priced as its default
    listed model, with the Chat page's max_tokens and the user's prices (set in the cost table's box above)."""
    own = overrides()
    reserved = int(st.session_state.get(state.CHAT_MAX_TOKENS, MAX_TOKENS_DEFAULT))
    rows, bars = [], []
    for name, tokens in counts.items():
        p = prices.price_for_encoding(name, own)
        use = context_window.window_use([("message 1 · user", tokens)], window=p.window if p else None,
                                        reserved_output=reserved)
        label, row = _priced(name, p, use, reserved)
        bars.append((label, use))
        rows.append({"family": name, **row})
    st.dataframe(pd.DataFrame(rows), hide_index=True, key=state.CLAUDE_COSTS_TABLE)
    st.caption(prices.source_line(bool(own)) + " Each family is priced as its first listed model (the Prices box "
               "lists the others and takes your own); the counts are reconstructed, so are these costs.")
    styles("window")
    draw(window_bars(bars, element_id="claude-window-bars"), key=state.CLAUDE_WINDOW_BARS)


def _priced(name: str, p: Any, use: Any, reserved: int) -> tuple[str, dict]:
    """One row's window-bar label and cost cells (Chat's rows and the Claude panel's families alike): `p` its
    price (None: no listed model), `use` its request against the window, `reserved` max_tokens."""
    label = f"{name} · {p.label}" if p else f"{name} · no listed model"
    return label, {"priced as": p.label if p else "no listed price", "prompt tokens": use.prompt,
                   "prompt cost": _usd(prices.cost(p, input_tokens=use.prompt)) if p else "—",
                   "reply of max_tokens": _usd(prices.cost(p, input_tokens=use.prompt, output_tokens=reserved))
                   if p else "—",
                   "window": count_text(p.window if p else None), "free after max_tokens": count_text(use.free)}


def _tool_costs(name: str, enc: Any, r: Any, parts: list, conversation: str,
                without: list[tuple[str, str]]) -> tuple[tuple[str, int], ...]:
    """Each tool's marginal tokens in this row: the conversation recounted with the tools JSON of `without`
    (each tool's name and the list without it), the number only (`encodings.chat_count`), cached.  The recount
    takes the row's own encoding and format (`r.format`): a row is not always an encoding (a Gemini row counts
    with a Gemma vocabulary in Gemini's format), so its name is not something to load."""
    tools_tokens = sum(p.tokens for p in parts if p.label == "tools")
    if not without or not tools_tokens:
        return ()
    counts: dict[str, int] = {}
    for tool_name, rest in without:
        other = encodings.chat_count(name, enc, conversation, rest, r.thinking, format=r.format)
        if isinstance(other, str):
            return ()
        counts[tool_name] = other
    return context_window.tool_costs(tools_tokens, r.count, counts)
