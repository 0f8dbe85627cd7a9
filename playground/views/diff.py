"""Tokenizer diff: two vocabularies side by side (`engine.explain.diff.vocab_diff`) and what it does to your text.

Shared tokens, tokens only in A or only in B (counts, the earliest learned of
each, their lengths), how far shared tokens moved in merge order, special
tokens, and the token count of the app's text in each.  A and B are any of
the built-in encodings or this session's own (trained or uploaded in Train your own).
"""
from __future__ import annotations

import pandas as pd
import streamlit as st

import engine
from engine.explain.diff import LONG, VocabDiff
from playground import state
from playground.cache import encodings, teach
from playground.render import diff as draw_diff
from playground.render import html
from playground.render.markdown import md
from playground.widgets import charts
from playground.widgets.page import header, styles

PRESETS = {
    "gpt2 → cl100k": ("gpt2", "cl100k_base"),
    "cl100k → o200k": ("cl100k_base", "o200k_base"),
    "gpt2 → o200k": ("gpt2", "o200k_base"),
    "Llama 3 → Llama 4": ("llama3", "llama4"),
    "Qwen 2.5 → Qwen 3.6": ("qwen2.5", "qwen3.6"),
    "DeepSeek V3 → V4": ("deepseek-v3", "deepseek-v4"),
    "Gemma 3 → Gemma 4": ("gemma3", "gemma4"),  # offered once installed (scripts/install_gemma.py)
    "yours → gpt2": (None, "gpt2"),  # the session's newest own tokenizer against GPT-2's
}
GROUPS = {"shared": "shared", "only_a": "only in A", "only_b": "only in B"}
K_PRESET = state.DIFF_PRESET
K_A = state.DIFF_A
K_B = state.DIFF_B

# Grouped bars written out as a Vega-Lite spec (no Altair schema validation on every rerun).
LENGTH_SPEC = {
    "mark": {"type": "bar"},
    "height": 200,
    "autosize": {"type": "fit-x", "contains": "padding"},  # "fit" squeezed the plot to a few pixels under the legend
    "encoding": {
        "x": {"field": "bytes", "type": "ordinal", "title": f"token length in bytes ({LONG} = {LONG} or more)"},
        "xOffset": {"field": "group"},
        "y": {"field": "tokens", "type": "quantitative", "title": "tokens"},
        "color": {"field": "group", "type": "nominal", "legend": {"orient": "top", "title": None},
                  "sort": list(GROUPS.values())},
        "tooltip": [{"field": "group"}, {"field": "bytes"}, {"field": "tokens", "format": ","}],
    },
}


def _apply_preset() -> None:
    """Pills callback: set A and B (before their select boxes are drawn)."""
    a, b = PRESETS.get(st.session_state.get(K_PRESET), (None, None))
    if a is None and b is not None:
        own = list(st.session_state.get(state.CUSTOM, {}))
        a = own[-1] if own else None
    if a is not None:
        st.session_state[K_A], st.session_state[K_B] = a, b


def _clear_preset() -> None:
    st.session_state[K_PRESET] = None


def length_frame(d: VocabDiff) -> pd.DataFrame:
    return pd.DataFrame([{"group": GROUPS[g], "bytes": n, "tokens": c}
                         for g in GROUPS for n, c in d.lengths[g]])


def moves_frame(d: VocabDiff) -> pd.DataFrame:
    readable = engine.explain.vocab.readable
    return pd.DataFrame([{"token": readable(m.bytes, space=html.SPACE), "id in A": m.id_a, "id in B": m.id_b,
                          "place in A": m.place_a, "place in B": m.place_b, "moved": m.shift} for m in d.moves])


def _choose() -> tuple[str, str]:
    names = state.known_encodings()
    st.session_state.setdefault(K_A, "gpt2")
    st.session_state.setdefault(K_B, "o200k_base")
    for key in (K_A, K_B):
        if st.session_state.get(key) not in names:  # a released tokenizer, a bad link
            st.session_state[key] = "gpt2" if key == K_A else "o200k_base"
    own = bool(st.session_state.get(state.CUSTOM))
    offered = [p for p, (a, b) in PRESETS.items() if (a is None or a in names) and b in names]
    if st.session_state.get(K_PRESET) not in offered:
        st.session_state[K_PRESET] = None
    st.pills("Presets", offered, key=K_PRESET, persist_state="session", on_change=_apply_preset,
             help="Pairs people ask about; “yours → gpt2” compares the tokenizer you trained or uploaded last"
                  + ("." if own else " (none yet: make one in Train your own)."))
    if st.session_state.get(K_PRESET) == "yours → gpt2" and not own:
        st.info("You have no tokenizer of your own yet: train one in *Training, step by step* or *Train your own* "
                "(or upload one there), then pick this preset again.")
    left, right = st.columns(2)
    a = left.selectbox("A (before)", names, key=K_A, persist_state="session", on_change=_clear_preset)
    b = right.selectbox("B (after)", names, key=K_B, persist_state="session", on_change=_clear_preset)
    return a, b


def _counts(d: VocabDiff) -> None:
    cols = st.columns(5)
    cols[0].metric("Shared", f"{d.shared:,}", help="Tokens (as bytes) in both vocabularies; special tokens apart.")
    cols[1].metric("Only in A", f"{d.only_a:,}", help=f"Of A's {d.n_a:,} ordinary tokens.")
    cols[2].metric("Only in B", f"{d.only_b:,}", help=f"Of B's {d.n_b:,} ordinary tokens.")
    cols[3].metric("Same id", f"{d.same_id:,}", help="Shared tokens with the same id in A and B.")
    cols[4].metric("Merge order kept", f"{d.spearman:.2f}",
                   help="Spearman's rank correlation of the shared merged tokens' order in A and in B: "
                        "1 is the same order, 0 no relation. A token's id is its merge rank.")


def _text_counts(a: str, b: str) -> None:
    text = st.session_state.get(state.TEXT, "")
    if not text:
        return
    policy = st.session_state.get(state.SPECIAL, "text")
    try:
        n_a = len(encodings.encode(a, encodings.resolve(a), text, policy))
        n_b = len(encodings.encode(b, encodings.resolve(b), text, policy))
    except ValueError as exc:
        st.warning(f"Your text could not be counted: {md(exc, 300)}")
        return
    change = (n_b - n_a) / n_a * 100 if n_a else 0.0
    st.markdown(f"**Your text** ({len(text):,} characters, the text of Tokenize and Compare)")
    cols = st.columns(3)
    # names are built-in names or checked upload names (letters, digits, ".", "_", "-"): safe as labels
    cols[0].metric(f"Tokens in A · {a}", f"{n_a:,}")
    cols[1].metric(f"Tokens in B · {b}", f"{n_b:,}", delta=f"{n_b - n_a:+,} ({change:+.1f}%)",
                   delta_color="inverse")
    cols[2].metric("Characters per token, A → B", f"{len(text) / n_a:.2f} → {len(text) / n_b:.2f}"
                   if n_a and n_b else "–")


def render() -> None:
    styles("gallery", "training")
    header("Tokenizer diff", "two vocabularies side by side: what they share, what each adds, how the merge "
                             "order changed, and what that does to your text.")
    a, b = _choose()
    enc_a, enc_b = encodings.resolve(a), encodings.resolve(b)
    with st.spinner("Comparing the vocabularies…"):
        d = teach.vocab_diff(a, enc_a, b, enc_b)
    _counts(d)
    _text_counts(a, b)
    st.markdown("##### Tokens by length")
    st.vega_lite_chart(length_frame(d), charts.sized_spec(LENGTH_SPEC), width="stretch")
    st.markdown("##### Samples: the earliest learned (lowest ids) of each group")
    st.caption(f"{html.SPACE} is a space; the number under a chip is its id (A→B for shared tokens); "
               "a dashed outline is part of a character.")
    for group, samples in (("only in A", d.samples_only_a), ("only in B", d.samples_only_b),
                           ("shared (merged tokens)", d.samples_shared)):
        st.markdown(f"**{group}**")
        st.markdown(draw_diff.sample_chips(samples, group=group), unsafe_allow_html=True)
    st.markdown("##### Merge order: the shared tokens that moved most")
    st.caption(f"Each shared token of 2+ bytes at its place among them in A's order and in B's. "
               f"{d.moved_far:,} of {d.merged_shared:,} moved by more than a tenth of the list; a negative move "
               "was learned earlier in B.")
    if d.moves:
        st.dataframe(moves_frame(d), hide_index=True, width="stretch", height=280)
    st.markdown("##### Special tokens")
    cols = st.columns(3)
    for col, (label, names) in zip(cols, (("shared", d.specials_shared), ("only in A", d.specials_only_a),
                                          ("only in B", d.specials_only_b))):
        col.markdown(f"**{label}** ({len(names):,})")
        col.markdown(draw_diff.special_list(names[:60]), unsafe_allow_html=True)
    state.save_query_params("diff")
