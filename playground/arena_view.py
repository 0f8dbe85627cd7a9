"""Arena: every tokenizer against your text, ranked; and against one sentence in 32 languages.

Every built-in encoding (``engine.list_tokenizer_names()``, an alias such as
``r50k_base`` = ``gpt2`` counted once) and the session's own tokenizers run on
the app-wide text; the user can leave some out.  The ranking is
`engine.arena.rank_counts` (rank 1 = fewest tokens, ties share a rank); the
language matrix is `engine.arena.language_matrix`, measured now on the
samples of ``engine/data/languages.json``, not read from a stored table.

Counts are cached per (tokenizer, text, policy) as plain integers, so a
deselection or a return visit costs nothing; a text past
`encodings.INLINE_CHARS` is encoded in a job process by `encodings.encode`.
"""
from __future__ import annotations

from dataclasses import asdict

import altair as alt
import pandas as pd
import streamlit as st

import engine
from engine.arena import ArenaEntry
from playground import encodings, html, render_cache, state
from playground.drawing import header, refuse_message
from playground.escaping import md
from playground.live_input import text_box

K_PICK = "arena_pick"
K_METRIC = "arena_metric"
K_SEEN = "_arena_offered"  # the names the pills offered last time
ROW = 22  # pixels per language in the heatmap
METRICS = {"vs_english": "× English", "vs_best": "× best tokenizer", "tokens": "tokens"}


def all_names() -> tuple[list[str], dict[str, str]]:
    """Every built-in and the session's own tokenizers, aliases dropped: (names, {alias: kept name})."""
    names = list(dict.fromkeys(engine.list_tokenizer_names() + state.known_encodings()))
    kept, aliases = encodings.distinct(tuple(names), tuple(encodings.resolve(n) for n in names))
    return kept, aliases


def render() -> None:
    header("Arena", "every tokenizer against your text, ranked — and against one sentence in 32 languages.")
    text = text_box()
    names, aliases = all_names()
    _offer_new(names)
    chosen = st.pills("Tokenizers", names, selection_mode="multi", default=names, key=K_PICK, format_func=md,
                      persist_state="session", help="Click to leave a tokenizer out of the arena (or bring it back).")
    chosen = [n for n in names if n in (chosen or [])]
    if aliases:
        st.caption(" · ".join(f"{md(a)} is the same tokenizer as {md(b)} (counted once)" for a, b in aliases.items()))
    if not chosen:
        st.info("Pick at least one tokenizer above.")
        return
    policy = st.session_state.get(state.SPECIAL, "text")
    key = render_cache.text_key(text)
    counts = []
    for name in chosen:
        try:
            counts.append((name, encodings.count(name, encodings.resolve(name), key, text, policy)))
        except ValueError as error:  # refused special-token text (every tokenizer would), or this one failed
            refuse_message(error, name)
            if _refused(error):
                return
    if counts:
        _your_text(engine.arena.rank_counts(counts, text))
    _languages([name for name, _ in counts] or chosen)


def _offer_new(names: list[str]) -> None:
    """A tokenizer the pills have not offered before (one just trained or uploaded) starts chosen;
    the ones the user left out stay out.  Runs before the pills are drawn."""
    seen = st.session_state.get(K_SEEN)
    if seen is not None and K_PICK in st.session_state:
        new = [n for n in names if n not in seen]
        if new:
            st.session_state[K_PICK] = list(st.session_state[K_PICK] or []) + new
    st.session_state[K_SEEN] = list(names)


def _refused(error: ValueError) -> bool:
    """The special-token refusal (here or in a job process): the same for every tokenizer, so stop."""
    return isinstance(error, engine.DisallowedSpecialTokenError) or (
        getattr(error, "kind", None) == "DisallowedSpecialTokenError")


# ---------------------------------------------------------------- your text
def _summary(ranked: list[ArenaEntry]) -> str:
    best = [e.name for e in ranked if e.rank == 1]
    worst = ranked[-1]
    lead = " and ".join(md(n) for n in best)
    line = (f"**{lead}** need{'s' if len(best) == 1 else ''} the fewest tokens: "
            f"{html.plural(ranked[0].tokens, 'token')} ({ranked[0].chars_per_token:.2f} characters per token).")
    if worst.tokens > ranked[0].tokens:
        line += f" {md(worst.name)} needs {worst.ratio:.2f}× as many ({worst.tokens:,})."
    return line


def _frame(ranked: list[ArenaEntry]) -> pd.DataFrame:
    return pd.DataFrame([{
        "rank": e.rank,
        "tokenizer": e.name,
        "tokens": e.tokens,
        "chars/token": round(e.chars_per_token, 3),
        "bytes/token": round(e.bytes_per_token, 3),
        "× best": round(e.ratio, 3),
    } for e in ranked])


def _bar_chart(frame: pd.DataFrame) -> alt.LayerChart:
    order = list(frame["tokenizer"])
    base = alt.Chart(frame).encode(
        y=alt.Y("tokenizer:N", sort=order, title=None, axis=alt.Axis(labelLimit=200)),
        x=alt.X("tokens:Q", title="tokens (fewer is better)"),
        tooltip=["rank", "tokenizer", alt.Tooltip("tokens:Q", format=","), "chars/token", "bytes/token", "× best"],
    )
    bars = base.mark_bar().encode(color=alt.condition(alt.datum.rank == 1, alt.value("#2e7d32"), alt.value("#90a4ae")))
    labels = base.mark_text(align="left", dx=3, fontSize=11).encode(text=alt.Text("label:N"))
    frame_height = 24 * len(order) + 10
    # a height in pixels, never alt.Step: with Streamlit's autosize "fit" a step height makes Vega
    # drop fit-y with a console warning
    return (bars + labels).transform_calculate(
        label="format(datum.tokens, ',') + ' · ×' + format(datum['× best'], '.2f')"
    ).properties(height=frame_height)


def _your_text(ranked: list[ArenaEntry]) -> None:
    st.subheader("On your text")
    st.markdown(_summary(ranked))
    frame = _frame(ranked)
    left, right = st.columns([7, 5])
    with left:
        number = st.column_config.NumberColumn
        st.dataframe(frame, hide_index=True, key="arena_table", height=min(38 + 35 * len(frame), 500),
                     column_config={"rank": number(width=48), "tokenizer": st.column_config.TextColumn(width=130),
                                    "tokens": number(width=70, format="%d"), "chars/token": number(width=88, format="%.3f"),
                                    "bytes/token": number(width=88, format="%.3f"), "× best": number(width=64, format="%.3f")})
    with right:
        st.altair_chart(_bar_chart(frame), width="stretch", height=24 * len(frame) + 60)
    st.caption("Rank 1 needs the fewest tokens; equal counts share a rank and the next rank skips (1, 1, 3). "
               "× best = tokens ÷ the fewest tokens. Characters are code points; bytes are UTF-8.")


# ---------------------------------------------------------------- languages
def _heatmap(cells: pd.DataFrame, names: list[str], order: list[str], metric: str) -> alt.LayerChart:
    title = METRICS[metric]
    fmt = ",d" if metric == "tokens" else ".1f"
    base = alt.Chart(cells).encode(
        x=alt.X("encoding:N", sort=names, title=None,
                axis=alt.Axis(orient="top", labelAngle=-35, labelLimit=140, labelOverlap=False)),
        y=alt.Y("label:N", sort=order, title=None, axis=alt.Axis(labelLimit=220, labelOverlap=False)),
        tooltip=[alt.Tooltip("label:N", title="language"), "script", alt.Tooltip("encoding:N", title="tokenizer"),
                 alt.Tooltip("tokens:Q", format=","), alt.Tooltip("vs_english:Q", title="× English", format=".2f"),
                 alt.Tooltip("vs_best:Q", title="× best tokenizer", format=".2f")],
    )
    scale = alt.Scale(scheme="orangered", type="log") if metric != "tokens" else alt.Scale(scheme="orangered")
    rect = base.mark_rect().encode(color=alt.Color(f"{metric}:Q", scale=scale, title=title,
                                                  legend=alt.Legend(orient="right", format=fmt)))
    text = base.mark_text(fontSize=10).encode(
        text=alt.Text(f"{metric}:Q", format=fmt),
        color=alt.condition(f"datum.{metric} > {_dark_above(cells, metric)}", alt.value("white"), alt.value("#222")))
    return (rect + text).properties(height=ROW * len(order))


def _dark_above(cells: pd.DataFrame, metric: str) -> float:
    """The value above which a cell's colour is dark enough for white text (the top third, log scale)."""
    values = cells[metric]
    lo, hi = float(values.min()), float(values.max())
    if metric == "tokens":
        return lo + (hi - lo) * 0.6
    return lo * (hi / lo) ** 0.6 if lo > 0 else hi


@st.fragment
def _languages(names: list[str]) -> None:
    """The language heatmap (a fragment: "Colour by" redraws only this)."""
    st.subheader("Across languages")
    matrix = encodings.language_matrix(tuple(names), tuple(encodings.resolve(n) for n in names))
    metric = st.segmented_control("Colour by", list(METRICS), format_func=METRICS.get, key=K_METRIC,
                                  persist_state="session", default="vs_english", required=True)
    cells = pd.DataFrame([{**asdict(c), "label": f"{c.language} ({c.code})"} for c in matrix.cells()])
    order = [f"{s.language} ({s.code})" for s in matrix.languages]
    worst = matrix.worst()
    st.markdown("**Which language each tokenizer taxes most:** " + "; ".join(
        f"{md(c.encoding)} → {md(c.language)} ({c.vs_english:.1f}× English)" for c in worst) + ".")
    st.altair_chart(_heatmap(cells, names, order, metric), width="stretch", height=ROW * len(order) + 90)
    st.caption(f"The same message in {len(order)} languages (GTK's translators' translations of one sentence, "
               "engine/data/languages.json), encoded now by each tokenizer. × English = tokens ÷ that tokenizer's "
               "English tokens (the tax a speaker pays); × best tokenizer = tokens ÷ the fewest any chosen "
               "tokenizer needs for that language. Colours on a log scale.")
