"""Train your own, other algorithms: the "Algorithm" choice and the parity-aware BPE, WordPiece and SuperBPE trainers.

`choose_algorithm` draws the choice (naming each algorithm's reference trainer); `render` draws the chosen
lab trainer's form and results and returns True, or returns False for byte-level BPE, which the Train view
draws itself.  Training runs `engine.training.lab` in a job process (progress bar, stop on rerun, time
limit); the result is a tokenizer.json text, loaded by `engine.families.hf` like an upload, so once added
it is in the sidebar's Encodings for every view.

Unigram is listed here (UNIGRAM) but drawn by `playground.widgets.unigram_training` on the Train page's own text
box (its trainer is `engine.families.sentencepiece.training.train_unigram`).
"""
from __future__ import annotations

import json

import pandas as pd
import streamlit as st

from engine.explain.arena import language_samples
from engine.families.hf.load import load_tokenizer_json
from engine.training import lab
from engine.training.lab import LabResult
from engine.training.superbpe import transition_merges
from playground import state
from playground.cache import memo
from playground.render import training as draw_training
from playground.render.html import visible
from playground.render.markdown import md
from playground.serving import jobs
from playground.widgets.page import styles
from playground.widgets.text_fields import text_field

BYTE_LEVEL = "Byte-level BPE"
# label -> (what it is, its reference trainer); the first is the Train view's own (minbpe's algorithm).
UNIGRAM = "Unigram (SentencePiece)"  # drawn by playground.widgets.unigram_training, on the page's own text box
ALGORITHMS = {
    BYTE_LEVEL: ("merges the most frequent pair of the whole text", "karpathy/minbpe's `train`, merge for merge"),
    lab.PARITY: ("each merge goes to the language that is worst compressed now (Foroutan et al. 2025)",
                 "Hugging Face `tokenizers` 0.23.3 `ParityBpeTrainer` (variant \"base\", ByteLevel): merge for merge"),
    lab.WORDPIECE: ("BPE merges inside words, `##` marking a piece that continues a word (BERT's vocabulary)",
                    "Hugging Face `tokenizers` 0.23.3 `WordPieceTrainer` (BertPreTokenizer): the same vocabulary, "
                    "within the run-to-run spread of the reference itself"),
    lab.SUPERBPE: ("plain BPE up to a transition point, then merges that may cross spaces and make *superwords* "
                   "such as “ by the way” (Liu et al. 2025)",
                   "the authors' scripts (PythonNut/superbpe) and their `tokenizers` fork "
                   "(alisawuffles/tokenizers-superbpe), read and followed rule for rule; the fork's Rust cannot be "
                   "built here, and ties go to the pair seen first, as in minbpe"),
    UNIGRAM: ("a Unigram language model: seed pieces, EM, pruning the pieces whose loss costs least",
              "`sentencepiece` 0.2.3's trainer (one thread): the same pieces and scores on the tested corpora, "
              "1,994 of 2,000 pieces on the 185 kB taylorswift.txt"),
}
ARENA, OWN = "The Arena's translations", "My own texts"
SOURCES = [ARENA, OWN]
MIN_VOCAB, MAX_VOCAB, DEFAULT_VOCAB = 257, 4096, 512
MAX_LANGUAGE_CHARS = 200_000  # one language's text box (parity trains in pure Python: 2 runs, one per column)
MAX_WORDPIECE_CHARS = 2_000_000
MAX_SUPERBPE_CHARS = 1_000_000  # two pure-Python trainings (plain BPE and SuperBPE) within TIMEOUT
DEFAULT_TRANSITION = 80  # % of the vocabulary: the issue's ~80% (the released 128K tokenizer inherits 100K merges)
SUPERBPE_PAPER = "https://arxiv.org/abs/2503.13423"
MAX_OWN_LANGUAGES = 8
TIMEOUT = 180.0
PAPER = "https://arxiv.org/abs/2508.04796"


def choose_algorithm() -> str:
    """The Algorithm choice, with what the chosen one does and the trainer it is tested against."""
    choice = st.segmented_control("Algorithm", list(ALGORITHMS), key=state.TRAIN_ALGORITHM, default=BYTE_LEVEL,
                                  required=True, persist_state="session")
    choice = choice if choice in ALGORITHMS else BYTE_LEVEL
    what, reference = ALGORITHMS[choice]
    st.caption(f"**{choice}**: {what}. Reference: {reference}.")
    return choice


def render(algorithm: str) -> bool:
    """Draw the lab trainer for `algorithm`; False for byte-level BPE (the Train view's own form)."""
    if algorithm == lab.PARITY:
        _parity_form()
    elif algorithm == lab.WORDPIECE:
        _wordpiece_form()
    elif algorithm == lab.SUPERBPE:
        _superbpe_form()
    else:
        return False
    result = st.session_state.get(state.LAB_RESULT)
    if isinstance(result, LabResult) and result.algorithm == algorithm:
        _results(result)
    return True


# ------------------------------------------------------------------ forms
def _vocab_input(help_text: str, where=st) -> int:
    return int(where.number_input("Vocabulary size", MIN_VOCAB, MAX_VOCAB, value=DEFAULT_VOCAB, step=64,
                               key=state.LAB_VOCAB, help=help_text, persist_state="session"))


def _parity_texts() -> tuple[list[str], list[str]] | None:
    """The languages' names and texts (the Arena's, or the user's boxes); None while a box is over its limit."""
    source = st.segmented_control("Texts", SOURCES, key=state.LAB_SOURCE, default=ARENA, required=True,
                                  persist_state="session")
    if source != OWN:
        samples = {s.language: s.text for s in language_samples()}
        picked = st.multiselect("Languages", list(samples), default=list(samples), key=state.LAB_LANGUAGES,
                                persist_state="session",
                                help="One sentence of GTK's, translated into each language: parallel text.")
        st.caption("Each language's sentence is both its training text and its dev set (the text whose length "
                   "in tokens decides which language the next merge serves).")
        return list(picked), [samples[p] for p in picked]
    count = int(st.number_input("Languages", 2, MAX_OWN_LANGUAGES, value=2, key=state.LAB_OWN_COUNT,
                                persist_state="session"))
    st.caption("Give the same content in every language (a translation): the dev set is each text itself, and "
               "parity compares their lengths in tokens.")
    names, texts = [], []
    for i, col in zip(range(count), st.columns(2) * MAX_OWN_LANGUAGES):
        name = text_field(f"Language {i + 1}", key=state.LAB_OWN_NAME.format(i=i), limit=40, where=col,
                          placeholder=f"Language {i + 1}", persist_state="session")
        text = text_field(f"Text in language {i + 1}", key=state.LAB_OWN_TEXT.format(i=i), limit=MAX_LANGUAGE_CHARS,
                          area=True, where=col, height=110, persist_state="session")
        if name is None or text is None:
            return None
        names.append(name.strip() or f"Language {i + 1}")
        texts.append(text)
    return names, texts


def _parity_form() -> None:
    found = _parity_texts()
    vocab = _vocab_input("256 byte tokens + one token per merge; plain BPE is trained at the same size.")
    ready = found is not None and len(found[0]) >= 2 and all(t.strip() for t in found[1])
    if found is not None and not ready:
        st.info("Pick at least two languages, each with some text.")
    if st.button("Train", key=state.LAB_GO, type="primary", disabled=not ready) and ready:
        names, texts = found
        _run(lab.PARITY, (tuple(names), tuple(texts), vocab), sum(map(len, texts)),
             f"Training parity-aware and plain BPE on {len(texts)} languages")


def _wordpiece_form() -> None:
    text = text_field("Training text", key=state.TRAIN_TEXT, limit=MAX_WORDPIECE_CHARS, area=True, height=160,
                      persist_state="session")
    vocab = _vocab_input("Every entry counts: [UNK], the characters, their ## forms and the merges.")
    if st.button("Train", key=state.LAB_GO, type="primary", disabled=not (text and text.strip())) and text:
        _run(lab.WORDPIECE, (text, vocab), len(text), f"Training WordPiece on {len(text):,} characters")


def _superbpe_form() -> None:
    text = text_field("Training text", key=state.TRAIN_TEXT, limit=MAX_SUPERBPE_CHARS, area=True, height=160,
                      persist_state="session")
    cols = st.columns(2)
    vocab = _vocab_input("256 byte tokens + one token per merge; plain BPE is trained at the same size.", cols[0])
    percent = int(cols[1].slider("Transition point (% of the vocabulary)", 0, 100, value=DEFAULT_TRANSITION, step=5,
                                 key=state.LAB_TRANSITION, persist_state="session",
                                 help="Stage 1 (plain BPE, merges inside words) runs until the vocabulary is this "
                                      "full; stage 2 fills the rest with merges that may cross spaces."))
    t = transition_merges(vocab, percent / 100)
    st.caption(f"Stage 1: {t:,} merges of plain BPE on the authors' split pattern. Stage 2: up to "
               f"{vocab - 256 - t:,} merges on pieces that keep spaces inside (cut only at numbers, runs of "
               "punctuation and line ends); never a token holding “: ” or more than four words, as in the "
               f"authors' fork. The last tenth of the text is held out to measure both tokenizers. "
               f"[Liu et al., “SuperBPE: Space Travel for Language Models”]({SUPERBPE_PAPER}) (COLM 2025).")
    if st.button("Train", key=state.LAB_GO, type="primary", disabled=not (text and text.strip())) and text:
        _run(lab.SUPERBPE, (text, vocab, percent / 100), len(text),
             f"Training plain BPE and SuperBPE on {len(text):,} characters")


def _run(algorithm: str, args: tuple, weight: int, label: str) -> None:
    bar = st.progress(0.0, text="Counting pairs…")

    def progress(value: tuple[int, int]) -> None:
        done, total = value
        bar.progress(min(done / total, 1.0) if total else 1.0, text=f"Step {done:,} of {total:,}")

    key = ("train_lab", algorithm, tuple(memo.text_key(a) if isinstance(a, str) else a for a in args))
    try:
        result = jobs.cached_run(key, weight, "train_lab", (algorithm, args), label=label, timeout=TIMEOUT,
                                 on_progress=progress)
    except ValueError as exc:  # bad settings (the engine says the fix), a job stopped at its time limit
        st.error(f"Training failed: {md(exc, 600)}")
        return
    bar.progress(1.0, text=result.summary)
    st.session_state[state.LAB_RESULT] = result


# ---------------------------------------------------------------- results
def parity_frame(result: LabResult) -> pd.DataFrame:
    """One row per language: its text in bytes and in tokens after plain and after parity-aware BPE."""
    rows = result.parity.rows
    return pd.DataFrame({
        "language": [r.language for r in rows],
        "bytes": [r.bytes for r in rows],
        "plain BPE": [r.plain for r in rows],
        "parity-aware": [r.parity for r in rows],
        "change": [f"{(r.parity - r.plain) / r.plain:+.0%}" if r.plain else "–" for r in rows],
    })


def _results(result: LabResult) -> None:
    (st.warning if result.stopped_early else st.success)(f"**{md(result.name)}**: {md(result.summary, 600)}")
    if result.superbpe is not None:
        _superbpe_results(result.superbpe)
    elif result.parity is not None:
        p = result.parity
        cols = st.columns(4)
        cols[0].metric("Gini, bytes", f"{p.gini_bytes:.3f}", help="over the languages' texts before any merge")
        cols[1].metric("Gini, plain BPE", f"{p.gini_plain:.3f}")
        cols[2].metric("Gini, parity-aware", f"{p.gini_parity:.3f}", delta=f"{p.gini_parity - p.gini_plain:+.3f}",
                       delta_color="inverse")
        cols[3].metric("Gini fell by", f"{p.gini_drop:.0%}", help="1 − parity-aware ÷ plain BPE")
        st.caption(
            "Tokens per language for the same content, at the same vocabulary size. The Gini coefficient over "
            "languages is 0 when every language costs the same number of tokens. Foroutan et al., "
            f"[“Parity-Aware Byte-Pair Encoding”]({PAPER}) (2025), report it falling by up to 89% with little "
            "change in compression overall. Measured here on the training texts themselves, not held-out text.")
        st.dataframe(parity_frame(result), hide_index=True, width="stretch")
    else:
        vocab = json.loads(result.tokenizer_json)["model"]["vocab"]
        cols = st.columns(3)
        cols[0].metric("Vocabulary", f"{len(vocab):,}")
        cols[1].metric("Word-inside pieces (##)", f"{sum(t.startswith('##') for t in vocab):,}")
        cols[2].metric("Training time", f"{result.seconds:.2f} s")
        st.caption("WordPiece does not give every text back: its decoder puts its own spaces between words, and a "
                   "word with a character it never saw becomes [UNK].")
        st.dataframe(pd.DataFrame({"id": list(vocab.values()), "token": list(vocab)}), hide_index=True,
                     width="stretch", height=240)
    cols = st.columns(2)
    cols[0].download_button("⬇ tokenizer.json", result.tokenizer_json, file_name=f"{result.name}.json",
                            mime="application/json", key=state.LAB_DL, width="stretch",
                            help="Loads in Hugging Face tokenizers (Tokenizer.from_file) and in Upload below.")
    if cols[1].button("Use in every view", key=state.LAB_USE, type="primary", width="stretch"):
        _use(result)


def superword_frame(comparison) -> pd.DataFrame:
    """The superword tokens, in the order stage 2 made them, whitespace made visible."""
    return pd.DataFrame({
        "id": [i for i, _ in comparison.superwords],
        "superword": [visible(data.decode("utf-8", errors="replace")) for _, data in comparison.superwords],
        "bytes": [len(data) for _, data in comparison.superwords],
    })


def _superbpe_results(c) -> None:
    st.markdown("**Bytes per token on the held-out text**, at one vocabulary size")
    cols = st.columns(4)
    cols[0].metric("Plain BPE", f"{c.plain_bytes_per_token:.2f}",
                   help="SuperBPE's stage 1 run to the whole vocabulary: the same pattern, size and tie-break")
    change = c.super_bytes_per_token / c.plain_bytes_per_token - 1 if c.plain_bytes_per_token else 0.0
    cols[1].metric("SuperBPE", f"{c.super_bytes_per_token:.2f}", delta=f"{change:+.1%}")
    cols[2].metric("Superwords", f"{len(c.superwords):,}", help="tokens spanning two or more space-separated words")
    cols[3].metric("Transition t", f"{c.transition:,}",
                   help=f"merges in stage 1; {c.stage2_merges:,} in stage 2, which passed over {c.skipped:,} "
                        "pairs its rules forbid")
    if c.held_out_seen:
        st.warning("The held-out text also occurs in the training part (the text repeats itself), so these numbers "
                   "are in-sample and flatter SuperBPE: train on a text that does not repeat for a fair comparison.")
    st.caption(
        f"Measured on the held-out last tenth of your text ({c.held_out_chars:,} characters, "
        f"{c.held_out_bytes:,} bytes), which neither tokenizer saw: plain BPE {c.plain_tokens:,} tokens, SuperBPE "
        f"{c.super_tokens:,}. More bytes per token is better. [Liu et al.]({SUPERBPE_PAPER}) report up to 33% "
        "fewer tokens at a 200k vocabulary on a large corpus; a small text and vocabulary gain far less.")
    styles("gallery", "training")
    st.markdown("**The held-out text in SuperBPE's tokens** (superwords outlined in red)")
    if c.sample:
        st.markdown(draw_training.superword_sample(c.sample), unsafe_allow_html=True)
    if c.superwords:
        st.dataframe(superword_frame(c), hide_index=True, width="stretch", height=240)
    else:
        st.info("No superword was made: give a longer text, a larger vocabulary or an earlier transition point.")


def _use(result: LabResult) -> None:
    """Load the trained tokenizer.json and add it to the sidebar's Encodings (selected), like an upload."""
    try:
        enc = load_tokenizer_json(result.tokenizer_json, name=result.name)
        name = state.add_custom(enc, suffix_if_taken=True)
    except ValueError as exc:  # the server's memory budget for tokenizers
        st.error(f"Could not add it: {md(exc, 600)}")
        return
    state.select(name)
    st.session_state[state.TRAIN_FLASH] = name  # the Train view says where it is, after the rerun
    st.rerun()
