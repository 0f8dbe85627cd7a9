"""Compare: 2–6 encodings cut the same text; where do they agree, and who needs fewer tokens?

Every sidebar encoding (built-in, trained or uploaded) gets a row of tokens;
the start of each token is marked green when every encoding cuts there and
orange when only some do (engine.explain.compare.unit_diff).  Cuts are taken between
grapheme clusters, so a flag or an emoji family is never "cut".  Counts cover
the whole text, drawing the first `encodings.DRAW_LIMIT` characters; the rows,
cut counts and disagreement table are cached (playground/cache/render_cache.py).
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

import streamlit as st

import engine
from playground import state
from playground.cache import encodings, render_cache
from playground.components.live_input import text_box
from playground.render import html
from playground.render.compare import compare_bars, cut_legend, delta_lines
from playground.render.markdown import md
from playground.widgets.page import draw, header, refuse_message

if TYPE_CHECKING:
    import pyarrow as pa

MAX_DISAGREEMENTS = 300  # rows in the "where they disagree" table
LAYOUTS = ["Side by side", "Stacked"]


def _stats_rows(stats: list[engine.explain.compare.EncodingStats]) -> list[dict[str, Any]]:
    base = stats[0].tokens
    return [{
        "encoding": s.name,
        "tokens": s.tokens,
        "characters": s.chars,
        "UTF-8 bytes": s.bytes,
        "bytes/token": round(s.bytes_per_token, 3),
        "chars/token": round(s.chars_per_token, 3),
        f"tokens vs {stats[0].name}": f"{(s.tokens - base) / base:+.1%}" if base else "–",
    } for s in stats]


def _table(rows: list[dict[str, Any]]) -> pa.Table:
    """Rows for st.dataframe as an Arrow table: given a pandas DataFrame, Streamlit converts it to Arrow
    column by column, about 14 ms of every Compare run for a 3-row table (py-spy, bench_load)."""
    import pyarrow as pa  # Streamlit's own dependency, loaded with st.dataframe

    return pa.Table.from_pylist(rows)


def _charts(rows: list[dict[str, Any]]) -> None:
    """Bars for tokens, bytes/token and chars/token, one per encoding (compare_bars: plain HTML)."""
    draw(compare_bars(rows, [("tokens", ",d"), ("bytes/token", ".2f"), ("chars/token", ".2f")]),
         key=state.CMP_BARS)


def _row(name: str, n_tokens: int, markup: str) -> None:
    st.markdown(f"**{md(name)}** · {html.plural(n_tokens, 'token')}")
    draw(markup, key=f"{state.CMP_ROW_PREFIX}{name}")


def render() -> None:
    header("Compare", "two to six tokenizers cut the same text: where they agree, and who needs fewer tokens.")
    text = text_box()
    names = list(st.session_state.get(state.ENCODINGS) or [])
    if len(names) < 2:
        st.info("Pick two to six encodings under *Encodings* in the sidebar to compare them.")
        if not names:
            return
    policy = st.session_state.get(state.SPECIAL, "text")
    show_ws = bool(st.session_state.get(state.SHOW_WS, True))

    counts = {}
    for name in names:
        enc = encodings.resolve(name)
        try:
            counts[name] = len(render_cache.ids(name, enc, text, policy))
            render_cache.tokens(name, enc, text, policy)
        except ValueError as error:
            refuse_message(error, name)
            return

    stats = [render_cache.stats(name, text, counts[name]) for name in names]
    st.markdown(delta_lines(engine.explain.compare.delta_sentences(stats)), unsafe_allow_html=True)
    view = render_cache.compare_view(tuple(names), tuple(encodings.resolve(n) for n in names), text, policy,
                                     show_ws, MAX_DISAGREEMENTS)
    _rows(names, counts, view)

    st.subheader("Numbers")
    rows = _stats_rows(stats)
    st.dataframe(_table(rows), hide_index=True, key=state.CMP_TABLE)
    _charts(rows)

    if len(names) >= 2:
        st.subheader("Where they disagree")
        if not view.n_disagreements:
            st.success("Every encoding cuts this text at exactly the same places.")
        else:
            note = f"{html.plural(view.n_disagreements, 'stretch', 'stretches')} between shared cuts, split differently"
            if view.n_disagreements > MAX_DISAGREEMENTS:
                note += f" (first {MAX_DISAGREEMENTS} shown)"
            st.caption(note + ". Cuts are counted between characters as you see them (grapheme clusters); "
                              f"tokens are separated by |, spaces shown as {html.SPACE}.")
            st.dataframe(_table(view.disagreement_rows), hide_index=True, key=state.CMP_DISAGREE,
                         height=min(400, 38 + 35 * len(view.disagreement_rows)))


@st.fragment
def _rows(names: list[str], counts: dict[str, int], view: render_cache.CompareView) -> None:
    """Cut counts, the layout picker and one row of tokens per encoding (the picker redraws only this)."""
    c1, c2, c3, c4 = st.columns([2, 2, 2, 3], vertical_alignment="bottom")
    c1.metric("Cuts every encoding makes", f"{view.n_shared:,}")
    c2.metric("Cuts only some make", f"{view.n_differing:,}")
    c3.metric("Agreement", f"{view.agreement:.0%}",
              help="Shared cuts as a share of all places where any encoding cuts (drawn part of the text).")
    layout = c4.segmented_control("Layout", LAYOUTS, key=state.CMP_LAYOUT, persist_state="session", default=LAYOUTS[0], required=True)
    st.markdown(cut_legend(view.n_shared, view.n_differing), unsafe_allow_html=True)
    if layout == "Stacked":
        for name in names:
            _row(name, counts[name], view.markups[name])
    else:
        for col, name in zip(st.columns(len(names)), names):
            with col:
                _row(name, counts[name], view.markups[name])
    st.caption("Hover a token: the same characters light up in the other encodings. Click to pin it.")
    state.save_query_params("compare")  # a fragment run skips app.py's save: the link follows the layout too
