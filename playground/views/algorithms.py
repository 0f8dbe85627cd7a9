"""Three algorithms on one text: a byte-level BPE, a WordPiece and a Unigram tokenizer (real vocabularies)
on the same words, each with its rule in one line and its work shown (`engine.explain.algorithms`):
BPE's merges in rank order, WordPiece's greedy longest-match lookups, Unigram's lattice and best path.

No Unigram vocabulary is built in; the third column is the session's uploaded Unigram tokenizer when
there is one, else Mistral's SentencePiece BPE with a line on how to add a Unigram.
"""
from __future__ import annotations

import streamlit as st

from playground import state
from playground.cache import encodings
from playground.render import pipeline as draw
from playground.render.markdown import md
from playground.widgets.page import header, styles

K_TEXT = state.ALGO_TEXT
K_BPE = state.ALGO_BPE
K_THIRD = state.ALGO_THIRD
BPE_CHOICES = ["gpt2", "o200k_base"]
WORDPIECE = "bert-base-uncased"
FALLBACK = "mistral-v1"  # SentencePiece BPE, when the session has no Unigram
DEFAULT_TEXT = "strawberry unbelievably"
MAX_CHARS = 200  # a few words: each piece's steps are listed
MAX_PIECES = 8


def render() -> None:
    styles("gallery", "pipeline")
    header("Three algorithms", "the same words through BPE, WordPiece and Unigram, each with its rule and its steps.")
    st.session_state.setdefault(K_TEXT, DEFAULT_TEXT)
    if st.session_state.get(K_BPE) not in BPE_CHOICES:
        st.session_state[K_BPE] = BPE_CHOICES[0]
    unigrams = state.own_unigrams()
    if st.session_state.get(K_THIRD) not in unigrams:
        st.session_state[K_THIRD] = unigrams[-1] if unigrams else None
    left, mid, right = st.columns([2, 1, 1])
    text = left.text_input("Text", key=K_TEXT, persist_state="session",
                           help=f"A few words (up to {MAX_CHARS} characters); the first {MAX_PIECES} pieces are explained.")
    bpe = mid.radio("Byte-level BPE", BPE_CHOICES, key=K_BPE, persist_state="session", horizontal=True)
    if unigrams:
        third = right.selectbox("Unigram", unigrams, key=K_THIRD, persist_state="session")
    else:
        third = FALLBACK
        right.info("No Unigram tokenizer in this session: upload a T5-style tokenizer.json or a SentencePiece "
                   "Unigram .model under *Train your own* → *Upload a tokenizer*. Shown meanwhile: Mistral's "
                   "SentencePiece **BPE**.")
    if len(text) > MAX_CHARS:
        st.warning(f"The text has {len(text):,} characters; the first {MAX_CHARS} are used.")
        text = text[:MAX_CHARS]
    if not text.strip():
        st.info("Type a few words above.")
        return
    cols = st.columns(3)
    for col, name in zip(cols, (bpe, WORDPIECE, third)):
        enc = encodings.resolve(name)
        try:
            stories = encodings.text_story(name, enc, text, MAX_PIECES)
        except ValueError as exc:
            col.error(f"**{md(name)} could not split this text:** {md(exc, 300)}")
            continue
        col.markdown(draw.algorithm_card(name, stories), unsafe_allow_html=True)
    st.caption("Open a piece's steps to see how its tokens were found. Under a chip: its id. "
               "BPE's rank is the id of the token a merge makes (learned earlier = lower).")
    state.save_query_params("algorithms")
