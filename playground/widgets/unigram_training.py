"""Train your own, Unigram: a SentencePiece Unigram model learned from the page's training text.

`engine.training.unigram.train_unigram` runs in a job process (`playground.serving.jobs`, task
``train_unigram``) with a progress bar that names each step (seeding, EM rounds, pruning) and the
jobs' stop-on-rerun and time limit.  The result is the same kind of object a loaded SentencePiece
``.model`` becomes, so "Use in Compare" puts it in every view.  It lives in this session's state only.

`render` is the one call the Train page makes; it takes the page's training text and the page's own
"Use in Compare" button drawer (views never import each other, and this widget never imports a view).
"""
from __future__ import annotations

import math
from typing import Any, Callable

import pandas as pd
import streamlit as st

from engine.training import unigram
from playground import state
from playground.cache import memo
from playground.render import html
from playground.render.markdown import md
from playground.serving import jobs
from playground.widgets import charts

MIN_VOCAB, MAX_VOCAB, DEFAULT_VOCAB = 20, 8000, 80  # 80 fits the sample text (it has 86 pieces at most)
TIMEOUT = 180.0  # seconds a Unigram training job may run (the page's BPE limit)
MAX_TEXT_CHARS = 400_000  # ~1 s per 10 kB, twice that on a busy machine (bench/bench_unigram_train.py): under TIMEOUT
REFERENCE = ("sentencepiece 0.2.3's trainer (model_type=unigram, normalization_rule_name=identity, num_threads=1): "
             "equal pieces and scores (within 5e-5) on the corpora the tests run, a handful of near-tie pieces apart on "
             "bigger ones (1,994 of 2,000 on a 185 kB text).")
ROUNDS_SPEC = {
    "mark": {"type": "line", "point": True},
    "encoding": {
        "x": {"field": "step", "type": "quantitative", "title": "step"},
        "y": {"field": "pieces", "type": "quantitative", "title": "pieces", "scale": {"type": "log"}},
        "tooltip": [{"field": "step"}, {"field": "what"}, {"field": "pieces", "format": ","}],
    },
    "height": 220,
}
KEY_VOCAB, KEY_BYTES, KEY_GO = state.TRAIN_UNIGRAM_VOCAB, state.TRAIN_UNIGRAM_BYTES, state.TRAIN_UNIGRAM_GO
KEY_RESULT, KEY_USE = state.TRAIN_UNIGRAM_RESULT, state.TRAIN_UNIGRAM_USE


def rounds_frame(report: unigram.UnigramReport) -> pd.DataFrame:
    """One row per step: its number, what it was (seed, EM, prune, unreachable) and the pieces left."""
    return pd.DataFrame([{"step": i, "what": r.what, "pieces": r.size} for i, r in enumerate(report.rounds)])


def pieces_frame(enc: Any, limit: int = 2000) -> pd.DataFrame:
    """The trained vocabulary by id: piece (spaces visible), its kind and its score (a log-probability)."""
    kinds = {1: "normal", 2: "unknown", 3: "control", 6: "byte"}
    rows = [{"id": i, "piece": html.visible(p.replace("\u2581", " ")), "kind": kinds.get(t, str(t)), "score": s}
            for i, (p, s, t) in enumerate(enc.model.pieces[:limit])]
    return pd.DataFrame(rows)


def _train(text: str, vocab_size: int, byte_fallback: bool) -> Any:
    """Train in a job process, the progress bar naming each step as it ends."""
    bar = st.progress(0.0, text="Finding seed pieces…")
    first: list[int] = []

    def progress(r: unigram.UnigramRound) -> None:
        if not first:
            first.append(r.size)
        # Pieces fall from the seed count towards vocab_size; the bar follows that fall on a log scale.
        done = math.log(first[0] / max(r.size, 1)) / max(math.log(first[0] / vocab_size), 1e-9)
        bar.progress(min(max(done, 0.0), 0.99), text=f"{r.what}: {r.size:,} pieces")

    key = ("train_unigram", vocab_size, byte_fallback, memo.text_key(text))
    enc = jobs.cached_run(key, len(text), "train_unigram", (text, vocab_size, byte_fallback),
                          label=f"Unigram training on {len(text):,} characters", timeout=TIMEOUT, on_progress=progress)
    bar.progress(1.0, text=enc.training.message)
    return enc


def _results(enc: Any, use_button: Callable[[str, str], None]) -> None:
    report: unigram.UnigramReport = enc.training
    st.success(f"**{md(enc.name)}**: {md(report.message, 600)}")
    cols = st.columns(4)
    cols[0].metric("Vocabulary", f"{enc.n_vocab:,}", help="meta pieces (<unk> <s> </s>, byte pieces) included")
    cols[1].metric("EM rounds", f"{sum(r.what == 'EM' for r in report.rounds)}")
    cols[2].metric("Words", f"{report.n_words:,}", help=f"distinct words in {report.n_sentences:,} lines")
    cols[3].metric("Training time", f"{report.seconds:.2f} s")
    st.vega_lite_chart(rounds_frame(report), charts.sized_spec(ROUNDS_SPEC), width="stretch")
    st.caption(f"{html.SPACE} is a space (SentencePiece writes ▁). Score: the piece's log-probability; a text is cut "
               "into the pieces whose scores sum highest.")
    st.dataframe(pieces_frame(enc), hide_index=True, width="stretch")
    use_button(KEY_USE, KEY_RESULT)


def render(text: str | None, use_button: Callable[[str, str], None]) -> None:
    """The Unigram section of Train your own, on the page's training `text`.

    `use_button(key, result_key)` draws the page's "Use in Compare" button for the encoding held at
    ``st.session_state[result_key]``."""
    st.subheader("Unigram (SentencePiece)")
    st.caption(f"SentencePiece's Unigram LM: seed pieces from frequent substrings, EM with a digamma update, "
               f"pruning the pieces whose loss costs least. Reference: {md(REFERENCE)}")
    st.session_state.setdefault(KEY_VOCAB, DEFAULT_VOCAB)
    cols = st.columns(2)
    vocab = cols[0].number_input("Unigram vocabulary size", MIN_VOCAB, MAX_VOCAB, key=KEY_VOCAB, step=50,
                                 help="Every piece counted: <unk> <s> </s> (and 256 byte pieces with byte fallback).")
    byte_fallback = cols[1].checkbox("Byte fallback", key=KEY_BYTES,
                                     help="256 <0xXX> pieces: a character outside the vocabulary becomes its bytes "
                                          "instead of <unk>.")
    clicked = st.button("Train Unigram", key=KEY_GO, disabled=not text)
    if clicked and text:
        if len(text) > MAX_TEXT_CHARS:
            st.error(f"The training text has {len(text):,} characters; Unigram training here takes up to "
                     f"{MAX_TEXT_CHARS:,} (it runs in pure Python, about 1 s per 10 kB). Train on a part of it.")
        else:
            try:
                st.session_state[KEY_RESULT] = _train(text, int(vocab), bool(byte_fallback))
            except ValueError as exc:  # too big a vocabulary for the text, a job stopped at its limit
                st.session_state.pop(KEY_RESULT, None)
                st.error(f"Unigram training failed: {md(exc, 600)}")
    enc = st.session_state.get(KEY_RESULT)
    if enc is not None:
        _results(enc, use_button)
