"""Drawing shared by the views: the page header and styles, big HTML blocks, messages, ids for HTML.

Every page opens with `header`: the page's CSS (playground/render/styles/, once
per page), a compact title with one line on what the page shows, and the
token hover/pin listeners (playground/components/token_links.py, mounted by widgets/pickers.py).
"""
from __future__ import annotations

import streamlit as st

import engine
from playground.components import html_block
from playground.render import css, html
from playground.render.markdown import md
from playground.widgets import pickers

TOOL = "BPE playground"


def styles(*names: str) -> None:
    """The CSS of playground/render/styles/<name>.css for each of `names`, as one <style> block."""
    st.markdown(css.style_block(*names), unsafe_allow_html=True)


def header(title: str, tagline: str) -> None:
    """Styles, the compact header (no emoji: titles look alike on every page), the token listeners."""
    styles("base", "hues", "tokens", "families")
    st.markdown(html.page_header(title, f"{TOOL} · {tagline}"), unsafe_allow_html=True)
    pickers.mount_token_links()


def draw(markup: str, *, key: str) -> None:
    """Show a big block built by playground/render/ (thousands of spans) under `key` (unique on the page).

    Not st.markdown: its markdown parser took seconds for a 10,000-character
    text in chromium.  Not st.html: DOMPurify and a full React redraw on every
    rerun.  playground.components.html_block merges the new markup into what is shown.
    Every value is escaped by playground/render/ either way.
    """
    html_block.block(markup, key=key)


def refuse_message(error: ValueError, name: str) -> None:
    """The engine's ValueError as a message: tiktoken's special-token refusal, or a split-pattern problem."""
    if not isinstance(error, engine.DisallowedSpecialTokenError):  # a job raises it as this class too
        st.error(f"**{md(name)} could not split this text:** {md(error, 600)}")
        return
    st.error(f"**{md(name)} refused the text** (special-token option “refuse”). To go on, choose “as plain text” "
             "or “as special tokens” under *Special tokens* in the sidebar.")
    st.code(str(error), language=None, wrap_lines=True)


def token_text(data: bytes) -> None:
    """A token's bytes as readable text (space as ␣, a piece of a character as ‹hex›), big."""
    st.markdown(html.token_chip(engine.explain.vocab.readable(data, space=html.SPACE)), unsafe_allow_html=True)


def family_stages(note: engine.explain.families.FamilyNote) -> None:
    """A family's pre-tokenization stages (each with its regex) and its merge rule, one line each."""
    st.markdown(f"**{md(note.title)}**: {md(note.merges[:1].upper() + note.merges[1:])}")
    for stage in note.stages:
        st.markdown(f"- **{md(stage.name)}**: {md(stage.detail)}")
        if stage.pattern:
            st.code(stage.pattern, language=None, wrap_lines=True)