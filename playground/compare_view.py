"""Compare: 2–4 encodings cut the same text; where do they agree, and who needs fewer tokens?

Every sidebar encoding (built-in, trained or uploaded) gets a row of tokens;
the start of each token is marked green when every encoding cuts there and
orange when only some do (engine.boundary_diff).  Counts cover the whole
text, drawing the first `encodings.DRAW_LIMIT` characters.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import streamlit as st

import engine
from playground import encodings, html, state
from playground.tokenize_view import draw, refuse_message, slug, styles, text_box

if TYPE_CHECKING:
    import pandas as pd

MAX_DISAGREEMENTS = 300  # rows in the "where they disagree" table
LAYOUTS = ["Side by side", "Stacked"]


def _stats_frame(stats: list[engine.EncodingStats]) -> pd.DataFrame:
    import pandas as pd  # imported on first use: the token rows are drawn before it is needed

    base = stats[0].tokens
    return pd.DataFrame([{
        "encoding": s.name,
        "tokens": s.tokens,
        "characters": s.chars,
        "UTF-8 bytes": s.bytes,
        "bytes/token": round(s.bytes_per_token, 3),
        "chars/token": round(s.chars_per_token, 3),
        f"tokens vs {stats[0].name}": f"{(s.tokens - base) / base:+.1%}" if base else "–",
    } for s in stats])


def _charts(frame: pd.DataFrame, names: list[str]) -> None:
    import altair as alt

    cols = st.columns(3)
    for col, metric, fmt in zip(cols, ["tokens", "bytes/token", "chars/token"], [",d", ".2f", ".2f"]):
        base = alt.Chart(frame).encode(
            y=alt.Y("encoding:N", sort=names, title=None),
            x=alt.X(f"{metric}:Q", title=None),
            tooltip=["encoding", alt.Tooltip(f"{metric}:Q", format=fmt)],
        )
        chart = (base.mark_bar().encode(color=alt.Color("encoding:N", sort=names, legend=None))
                 + base.mark_text(align="left", dx=3).encode(text=alt.Text(f"{metric}:Q", format=fmt)))
        col.altair_chart(chart.properties(height=alt.Step(30), title=metric), width="stretch")


def _label(unit: engine.DisplayUnit) -> str:
    """A token as plain text for the table: visible spaces, and the count when a character is split."""
    text = unit.text.replace(" ", "·").replace("\n", "↵").replace("\t", "→")
    return f"{text} ({len(unit.ids)} tokens)" if unit.split else text


def _disagreement_frame(found: list[engine.Disagreement], names: list[str]) -> pd.DataFrame:
    import pandas as pd

    rows = []
    for d in found[:MAX_DISAGREEMENTS]:
        whole = b"".join(t.bytes for t in d.parts[names[0]]).decode("utf-8", errors="replace")
        row = {"chars": f"{d.char_start}–{d.char_end}", "text": whole.replace(" ", "·").replace("\n", "↵").replace("\t", "→")}
        for name in names:
            row[name] = " | ".join(_label(u) for u in engine.group_tokens(d.parts[name]))
        rows.append(row)
    return pd.DataFrame(rows)


def _row(name: str, n_tokens: int, units, pieces, shared: frozenset[int], show_ws: bool) -> None:
    st.markdown(f"**{html.esc(name)}** · {n_tokens:,} tokens")
    draw(html.token_units(units, f"cmp-{slug(name)}", show_ws=show_ws, pieces=pieces,
                          shared_cuts=shared, cls="tokens cmp"))


def render() -> None:
    styles()
    st.title("Compare")
    text = text_box()
    names = list(st.session_state.get(state.ENCODINGS) or [])
    if len(names) < 2:
        st.info("Pick two to four encodings under *Encodings* in the sidebar to compare them.")
        if not names:
            return
    policy = st.session_state.get(state.SPECIAL, "text")
    show_ws = bool(st.session_state.get(state.SHOW_WS, True))

    counts, tokens, pieces = {}, {}, {}
    for name in names:
        enc = encodings.resolve(name)
        try:
            counts[name] = len(encodings.encode(name, enc, text, policy))
            tokens[name] = encodings.tokenize(name, enc, text, policy)
            pieces[name] = encodings.pretokenize(name, enc, text, policy)
        except ValueError as error:
            refuse_message(error, name)
            return

    stats = [engine.text_stats(name, text, counts[name]) for name in names]
    st.markdown(html.delta_lines(engine.delta_sentences(stats)), unsafe_allow_html=True)

    diff = engine.boundary_diff(tokens)
    shared = diff.shared_bytes()
    c1, c2, c3, c4 = st.columns([2, 2, 2, 3], vertical_alignment="bottom")
    c1.metric("Cuts every encoding makes", f"{len(diff.shared):,}")
    c2.metric("Cuts only some make", f"{len(diff.differing):,}")
    c3.metric("Agreement", f"{diff.agreement:.0%}",
              help="Shared cuts as a share of all places where any encoding cuts (drawn part of the text).")
    layout = c4.segmented_control("Layout", LAYOUTS, key="cmp_layout", default=LAYOUTS[0], required=True)
    st.markdown(html.cut_legend(len(diff.shared), len(diff.differing)), unsafe_allow_html=True)

    units = {name: engine.group_tokens(tokens[name]) for name in names}
    if layout == "Stacked":
        for name in names:
            _row(name, counts[name], units[name], pieces[name], shared, show_ws)
    else:
        for col, name in zip(st.columns(len(names)), names):
            with col:
                _row(name, counts[name], units[name], pieces[name], shared, show_ws)

    st.subheader("Numbers")
    frame = _stats_frame(stats)
    st.dataframe(frame, hide_index=True, key="cmp_table")
    _charts(frame, names)

    if len(names) >= 2:
        st.subheader("Where they disagree")
        found = engine.disagreements(tokens, diff)
        if not found:
            st.success("Every encoding cuts this text at exactly the same places.")
        else:
            note = f"{len(found):,} stretches between shared cuts, split differently"
            if len(found) > MAX_DISAGREEMENTS:
                note += f" (first {MAX_DISAGREEMENTS} shown)"
            st.caption(note + ". Tokens are separated by |, spaces shown as ·.")
            st.dataframe(_disagreement_frame(found, names), hide_index=True, key="cmp_disagree",
                         height=min(400, 38 + 35 * min(len(found), MAX_DISAGREEMENTS)))
