"""Claude 3 through Opus 4.x on the Chat formats page: ctok 1.3.0's reconstructed counts, labelled as such.

One user message (the only request the reconstruction measured) -> a row per generation (claude-3,
claude-4.7, claude-4.8) with its frame and content tokens, and one generation's tiling drawn with the
marked stream it tiles.  Any other conversation gets the reason it is not counted.
"""
from __future__ import annotations

from typing import Any

import pandas as pd
import streamlit as st

from engine.families import claude
from playground import state
from playground.cache import encodings
from playground.render.claude import claude_tokens
from playground.render.markdown import md
from playground.widgets import prices
from playground.widgets.page import draw

DRAWN_BY_DEFAULT = "claude-4.8"
DRAWN_TOKENS = 400  # content tokens drawn, then one "… more" chip, as a Chat row draws a message (counts stay whole)


def render(messages: list[dict], tools: list[dict]) -> None:
    st.subheader("Claude 3 and later (reconstructed)")
    st.caption(f"Counts {md(claude.LABEL)}. Claude 1–2 is `claude-legacy`, Anthropic's own published tokenizer.")
    try:
        text = claude.one_user_message(messages, tools)
    except claude.ClaudeConversationError as error:
        st.info(f"Not counted: {md(error, 400)}.")
        return
    with st.spinner("Counting Claude's tokens…"):  # about 25 ms per 10,000 characters each (bench/bench_claude.py)
        tilings = {name: encodings.claude_tiling(name, text) for name in claude.list_claude_names()}
    rows: list[dict[str, Any]] = [
        {"family": name, "tokens": t.count, "frame": t.frame, "content": len(t.tokens),
         "models": claude.SPECS[name].models, "status": "reconstructed (ctok 1.3.0)"}
        for name, t in tilings.items()]
    # the counts first: a phone shows the first columns
    st.dataframe(pd.DataFrame(rows), hide_index=True, key=state.CLAUDE_TABLE,
                 column_config={"models": st.column_config.TextColumn(width="medium")})
    prices.family_costs({name: t.count for name, t in tilings.items()})
    old, new = tilings["claude-3"].count, tilings["claude-4.7"].count
    st.caption(f"Opus 4.6 → 4.7 on this text: {old:,} → {new:,} tokens ({(new - old) / old:+.0%}). 4.7 has a smaller "
               f"vocabulary ({claude.get_claude('claude-4.7').n_pieces:,} pieces; v3 "
               f"{claude.get_claude('claude-3').n_pieces:,}), keeps curly quotes, writes no ⟨caps⟩ and has an "
               f"{tilings['claude-4.7'].frame}-token frame (v3: {tilings['claude-3'].frame}).")
    st.session_state.setdefault(state.CLAUDE_DRAW, DRAWN_BY_DEFAULT)
    name = st.segmented_control("Draw the tiling of", list(tilings), key=state.CLAUDE_DRAW,
                                help="One cheapest tiling of the marked stream: it explains the count; Claude's own "
                                     "boundaries are not published.") or DRAWN_BY_DEFAULT
    t = tilings[name]
    st.markdown(f"**{md(name)}** · {t.count:,} tokens ({t.frame:,} frame, {len(t.tokens):,} content)")
    draw(claude_tokens(claude.get_claude(name).frame_tokens(), t.tokens, "claude-tiling", DRAWN_TOKENS),
         key=state.CLAUDE_TOKENS)
    st.caption("⟨bow⟩ ⟨eow⟩ mark a word's start and end (one space between two words is their seam and costs "
               "nothing), ⟨shift⟩ a Title-case word and ⟨caps⟩ an ALL-CAPS one (written lowered after it; v4.7+ "
               "has no ⟨caps⟩), ⟨0xNN⟩ one byte of a character no piece covers, ⟨pad⟩ a token of the message frame.")
    with st.expander("The marked stream it tiles"):
        st.code(t.stream, language=None, wrap_lines=True)
