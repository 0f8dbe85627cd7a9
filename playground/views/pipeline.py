"""Pipeline, stage by stage: any tokenizer's normalizer, pre-tokenizer, model, post-processor and decoder
on a short text, in one layout for every family (`engine.explain.pipeline.pipeline_stages`).

The stages are Hugging Face `tokenizers`' names; a byte-level BPE (GPT-2) has no normalizer and no
post-processor, SentencePiece (Mistral) writes spaces as ``▁``, BERT lower-cases, strips accents and
adds ``[CLS]``/``[SEP]``, and a lossy tokenizer's badge says where its decode first differs.
"""
from __future__ import annotations

import streamlit as st

from playground import state
from playground.cache import encodings
from playground.render import pipeline as draw
from playground.render.markdown import md
from playground.widgets.page import header, styles

K_ENC = state.PIPE_ENCODING
K_TEXT = state.PIPE_TEXT
DEFAULT_ENCODING = "bert-base-uncased"
DEFAULT_TEXT = "Héllo, World!  Ça coûte 12€: the ﬁnal, unbelievable 東京 deal."
MAX_CHARS = 1000  # a teaching text: every stage is drawn in full
# one of each family, for the quick picks
EXAMPLES = {"bert-base-uncased": "WordPiece (BERT)", "gpt2": "byte-level BPE (GPT-2)",
            "mistral-v1": "SentencePiece BPE (Mistral)", "claude-legacy": "byte-level BPE after NFKC (lossy)"}


def token_label(enc, tid: int) -> str:
    """A token as its vocabulary shows it (``##bel``, ``▁straw``), or its bytes; a part of a character as ‹hex›."""
    stored = getattr(enc, "stored_piece", None)
    if stored is not None:
        return stored(tid)
    data = enc.decode_single_token_bytes(tid)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return f"‹{data.hex(' ')}›"


def render() -> None:
    styles("gallery", "pipeline")
    header("Pipeline, stage by stage", "what each stage of a tokenizer does to your text: normalize, "
                                       "pre-tokenize, the model, the post-processor, decode.")
    names = state.known_encodings()
    if st.session_state.get(K_ENC) not in names:  # first visit, a released tokenizer, a bad link
        st.session_state[K_ENC] = DEFAULT_ENCODING
    st.session_state.setdefault(K_TEXT, DEFAULT_TEXT)
    left, right = st.columns([1, 2])
    name = left.selectbox("Tokenizer", names, key=K_ENC, persist_state="session",
                          format_func=lambda n: f"{n} · {EXAMPLES[n]}" if n in EXAMPLES else n,
                          help="Any built-in or one of yours. One of each kind: " + ", ".join(EXAMPLES) + ".")
    text = right.text_area("Text", key=K_TEXT, persist_state="session", height=80,
                           help=f"A short text (up to {MAX_CHARS:,} characters): every stage is drawn in full.")
    if not state.own_unigrams():
        left.caption("A T5-style **Unigram** tokenizer: upload its tokenizer.json (or a SentencePiece Unigram "
                     ".model) under *Train your own* → *Upload a tokenizer*; it then appears in this list.")
    if len(text) > MAX_CHARS:
        st.warning(f"The text has {len(text):,} characters; the first {MAX_CHARS:,} are shown.")
        text = text[:MAX_CHARS]
    enc = encodings.resolve(name)
    try:
        stages = encodings.pipeline_stages(name, enc, text)
    except ValueError as exc:
        st.error(f"**{md(name)} could not run on this text:** {md(exc, 400)}")
        return
    st.caption("Marked in yellow: what the normalizer changed (hover for before → after); green: inserted; "
               "red: dropped. Special-token text counts as plain text here.")
    st.markdown(draw.stages(stages, lambda tid: token_label(enc, tid)), unsafe_allow_html=True)
    state.save_query_params("pipeline")
