"""Scaffold and unreachable tokens: the corpus choice, one token's line, the chart of every built-in.

Shared by the Vocabulary page (its "Scaffold & unreachable" pane, and a fact of one token) and the Merge
tree page (the line under a tree), which must not import each other.  The numbers come from
`playground.cache.encodings` (`scaffold_counts`, `reachability`, `builtin_health`); here they are only drawn.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import streamlit as st

import engine
from playground import state
from playground.cache import encodings
from playground.render.markdown import md
from playground.serving import jobs

if TYPE_CHECKING:  # pandas, altair and the chart helpers are imported where a chart is made: the Merge tree page
    # draws token_use_line only, and its first tree must not wait for pandas and pyarrow, nor for altair (0.48 s of
    # a fresh server's first tree, py-spy: bench/bench_first_tree.py; tests/app/test_first_page.py)
    import altair as alt
    import pandas as pd

CORPORA = {"builtin": "Built-in multilingual corpus", "text": "Your text (sidebar)"}
LITETOKEN = "[LiteToken (Sun et al. 2026)](https://arxiv.org/abs/2602.04706)"
MAGIKARP = "[Fishing for Magikarp (Land & Bartolo, EMNLP 2024)](https://arxiv.org/abs/2405.05417)"
KINDS = {  # chart series: label -> colour (colour-blind-safe, ordered as the legend reads)
    "partial UTF-8": "#4c78a8", "unreachable": "#e45756", "only in context": "#f58518",
    "special never made": "#72b7b2", "GPT-2 glitch list": "#111111",
}
LOG_TICKS = [0, 10, 100, 1000]  # symlog's own ticks crowd the right end (1,600 3,200 4,800) and draw a dozen grid lines
LEGEND_ENTRY = 150  # pixels per legend entry: "special never made" is wider than charts.LEGEND_COLUMN allows


def corpus_text() -> str | None:
    """The text the scaffold counts run over: the sidebar's text if the reader chose it and it is not empty,
    else None (the built-in corpus)."""
    if st.session_state.get(state.SCAFFOLD_CORPUS) == "text":
        text = st.session_state.get(state.TEXT) or ""
        if text.strip():
            return text
    return None


def corpus_label(text: str | None) -> str:
    n = len(engine.explain.scaffold.builtin_corpus())
    return (f"the built-in multilingual corpus (one sentence in {n} languages)" if text is None
            else f"your text ({len(text):,} characters)")


def counts_or_reason(name: str, enc: engine.Encoding, text: str | None
                     ) -> tuple[engine.explain.scaffold.ScaffoldCounts | None, str]:
    """The scaffold counts, or None and why there are none (in markdown)."""
    try:
        return encodings.scaffold_counts(name, enc, text), ""
    except engine.explain.scaffold.NoMergeTreesError as err:
        return None, md(err, 400)
    except (jobs.JobError, jobs.ServerBusyError, ValueError) as err:
        return None, f"Scaffold counts not available: {md(err, 400)}"


def token_use_line(name: str, enc: engine.Encoding, token_id: int) -> None:
    """"This token is scaffolding: emitted 0×, inside longer tokens N×", or its plain counts, over the chosen corpus."""
    if enc.is_special_token(token_id):
        return
    text = corpus_text()
    counts, reason = counts_or_reason(name, enc, text)
    if counts is None:
        if reason and "merges nothing" not in reason and "builds no token" not in reason:
            st.caption(reason)
        return
    use = counts.use(token_id)
    where = corpus_label(text)
    if use.scaffold:
        st.info(f"**This token is scaffolding: emitted 0×, inside longer tokens {use.inside:,}×** over {where}. "
                f"BPE builds it on the way to longer tokens, then merges it away ({LITETOKEN}). "
                "Choose the corpus in Vocabulary → Scaffold & unreachable.", icon=":material/construction:")
    elif use.emitted or use.inside:
        st.caption(f"Over {where}: emitted {use.emitted:,}×, inside longer tokens {use.inside:,}× "
                   f"(scaffold tokens are emitted 0×: {LITETOKEN}).")
    else:
        st.caption(f"Over {where}: neither emitted nor inside any emitted token's merge tree.")


# ------------------------------------------------------------------ the chart of every built-in
def health_frame() -> pd.DataFrame:
    import pandas as pd

    return pd.DataFrame(encodings.builtin_health())


def kinds_chart(frame: pd.DataFrame) -> alt.TopLevelMixin:
    """Per built-in, its tokens of each kind as grouped bars (log scale: 4 to 5,000), GPT-2's glitch list a black bar."""
    import altair as alt

    from playground.widgets import charts

    frame = frame.drop(columns=["glitch flagged"])
    long = frame.melt(id_vars=["encoding"], value_vars=list(KINDS), var_name="kind", value_name="count").dropna()
    long = long[long["count"] > 0]
    order = list(frame["encoding"])
    legend = alt.Legend(orient="bottom", title=None, columns=alt.ExprRef(f"max(1, floor(width / {LEGEND_ENTRY}))"),
                        labelLimit=LEGEND_ENTRY - 20)
    colour = alt.Color("kind:N", scale=alt.Scale(domain=list(KINDS), range=list(KINDS.values())), legend=legend,
                       sort=list(KINDS))
    return alt.Chart(long).mark_bar().encode(
        y=alt.Y("encoding:N", sort=order, title=None, axis=alt.Axis(labelLimit=200)),
        yOffset=alt.YOffset("kind:N", sort=list(KINDS)),
        x=alt.X("count:Q", scale=alt.Scale(type="symlog"), title="tokens (log scale)",
                axis=alt.Axis(values=LOG_TICKS, labelExpr="format(datum.value, ',')")),  # format= gives 1e+1 here
        color=colour,
        tooltip=["encoding", "kind", alt.Tooltip("count:Q", format=",", title="tokens")],
    ).properties(height=alt.Step(7 if not charts.present() else 9))


def scaffold_chart(frame: pd.DataFrame) -> alt.TopLevelMixin:
    """Per built-in, the share of the tokens the corpus reached that were scaffolding."""
    import altair as alt

    from playground.widgets import charts

    data = frame.dropna(subset=["scaffold"])
    bars = alt.Chart(data).mark_bar(color="#9d755d").encode(
        y=alt.Y("encoding:N", sort=list(data["encoding"]), title=None, axis=alt.Axis(labelOverlap=False, labelLimit=200)),
        x=alt.X("scaffold % of reached:Q", title="scaffold, % of the tokens reached"),
        tooltip=["encoding", alt.Tooltip("scaffold:Q", format=","), alt.Tooltip("reached:Q", format=","),
                 "scaffold % of reached", "scaffold % of vocab"],
    )
    labels = bars.mark_text(align="left", dx=3, fontSize=charts.text_px(11)).encode(
        text=alt.Text("scaffold:Q", format=","))
    return (bars + labels).properties(height=alt.Step(20 if not charts.present() else 26))


def builtin_charts() -> pd.DataFrame:
    """Both charts and their captions; returns the numbers for a table."""
    from playground.widgets import charts

    frame = health_frame()
    st.markdown("**Tokens that ordinary text never gives back, per built-in**")
    st.altair_chart(charts.sized(kinds_chart(frame)), width="stretch")
    gpt2 = frame[frame["encoding"] == "gpt2"].iloc[0]
    flagged = int(gpt2["glitch flagged"]) or "none"
    st.caption(f"After {MAGIKARP}: each token decoded and encoded again. *Partial UTF-8*: bytes that are not a "
               "whole character (decoding one alone gives �). *Unreachable*: valid text, but neither alone nor in "
               "any of the few contexts tried does it encode back to itself (often text the split pattern cuts "
               "apart). *Only in context*: back only after a letter or space (SentencePiece models such as "
               "mistral-v1 put a ▁ before the whole text, so their tokens come back only after another word). "
               "*Special never made*: special "
               f"tokens that ordinary text never gives (all of tiktoken's, by design). The black bar is GPT-2's "
               f"list of {int(gpt2['GPT-2 glitch list'])} known glitch tokens, {flagged} of which fail this test: "
               "under-trained tokens are mostly ordinary, reachable text, and only the model's "
               "weights show them (the paper's second step).")
    st.markdown("**Scaffold tokens over the built-in multilingual corpus**")
    st.altair_chart(charts.sized(scaffold_chart(frame)), width="stretch")
    st.caption(f"After {LITETOKEN}: a token is *scaffolding* when the corpus never emits it but builds it inside "
               "the merge tree of a token it does emit. The label is the count. One sentence in each of "
               f"{len(engine.explain.scaffold.builtin_corpus())} languages reaches only a few hundred tokens of each "
               "vocabulary, so the share is of the tokens it reached; the paper finds 5–10% of the whole vocabulary "
               "on a large English corpus. WordPiece (bert-base-uncased) merges nothing: no scaffolding.")
    return frame
