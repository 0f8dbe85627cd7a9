"""Tokenize's "Other ways to cut this text": the same text in non-canonical tokenizations of a BPE tokenizer.

A toggle opens it (the lanes cost a tenth of a second or more, so a closed panel costs nothing); then a
dropout slider and a seed, one token row per lane (`playground.cache.other_cuts`: the engine's
`engine.explain.noncanonical`, drawn by `playground.render.tokens.token_units` like Tokenize's own row),
each with its count and the published effect of feeding a model such cuts, and the exact number of ways
the vocabulary spells a word of the text.  p, the seed and the toggle are in the share link (`state.PAGE_KEYS`).
"""
from __future__ import annotations

import streamlit as st

import engine
from engine.explain.algorithms import algorithm_of
from engine.explain.noncanonical import MAX_CHARS
from playground import state
from playground.cache import other_cuts
from playground.render import html
from playground.render.markdown import md
from playground.render.tokens import isolate_rtl
from playground.widgets.page import draw, refuse_message

MAX_SEED = 2**31 - 1
DEFAULT_P = 0.1  # Provilkov et al.'s rate for training
ZHENG = "[Zheng et al., NeurIPS 2025](https://arxiv.org/abs/2506.19004)"
PROVILKOV = "[Provilkov et al., ACL 2020](https://aclanthology.org/2020.acl-main.170/)"
# each lane: its title and what it is, then its published effect (numbers checked against the papers' abstracts)
LANES = {
    "canonical": ("Canonical", "What encode gives: the one cut the model saw in training."),
    "dropout": ("BPE-dropout", "Each merge is skipped with probability p as the merge loop runs (the rule of "
                f"the `tokenizers` library's dropout; p = 0 is the canonical cut, p = 1 single bytes or characters). {PROVILKOV}: "
                "training on such cuts, then encoding canonically, gained up to 2.3 BLEU over plain BPE in translation."),
    "chars": ("Character level", "Every character on its own, as its own token (or its bytes when it has none). "
              f"{ZHENG}: instruction-tuned models keep up to 90.8% of their score on character-level input, and it "
              "improves string-manipulation and code-understanding tasks by up to +14%."),
    "random": ("A random valid segmentation", "Each piece spelled with vocabulary tokens, drawn uniformly among all "
               f"the ways there are (counted exactly, below), seeded. {ZHENG}: instruction-tuned models keep up to "
               "93.4% of their score when given a randomly sampled tokenization."),
    "digits": ("Right-aligned digit groups", "Runs of digits cut in threes from the right (1|234|567), each group "
               "encoded alone; the rest keeps its canonical tokens. "
               f"{ZHENG}: right-aligned digit grouping improves large-number arithmetic by +33%."),
}
MAX_DIGITS_SHOWN = 40  # a count longer than this is shown rounded, its exact digits in a box below


def _count_words(count: int) -> str:
    digits = str(count)
    if len(digits) <= MAX_DIGITS_SHOWN:
        return f"{count:,}"
    return f"about {digits[0]}.{digits[1:4]} × 10^{len(digits) - 1} ({len(digits):,} digits)"


def _word_count(name: str, enc: engine.Encoding, words: tuple[str, ...]) -> None:
    if not words:
        return
    if st.session_state.get(state.TOK_NC_WORD) not in words:
        st.session_state[state.TOK_NC_WORD] = max(words, key=len)  # before the widget: the longest piece first
    word = st.selectbox("Count the ways to spell a piece", words, key=state.TOK_NC_WORD,
                        format_func=lambda w: isolate_rtl(html.visible(w)),
                        help="The pieces of this text (the tokenizer's own pre-tokenization). The count is every "
                             "way to cut the piece into vocabulary tokens from its bytes (characters for "
                             "SentencePiece and BPE over characters): computed by dynamic programming, exact.")
    try:
        count = other_cuts.segmentation_count(name, enc, word)
    except ValueError as error:
        refuse_message(error, name)
        return
    st.markdown(f"**{md(html.visible(word))}** can be spelled in **{_count_words(count)}** "
                f"{'way' if count == 1 else 'ways'} with {md(name)}'s vocabulary; encode picks one.")
    if len(str(count)) > MAX_DIGITS_SHOWN:
        st.code(f"{count:,}", language=None, wrap_lines=True)


def panel(name: str, enc: engine.Encoding, text: str, show_ws: bool) -> None:
    """The toggle and, when on, the lanes for `enc` (a BPE-family tokenizer; nothing for the others)."""
    if algorithm_of(enc) != "bpe":
        return
    if not st.toggle("Other ways to cut this text", key=state.TOK_NC_OPEN, persist_state="session",
                     help="Non-canonical tokenizations: the same text written with the same vocabulary in other "
                          "ways, each of which decodes back to the text."):
        return
    ss = st.session_state
    p_now, seed_now = ss.get(state.TOK_NC_P), ss.get(state.TOK_NC_SEED)
    if isinstance(p_now, bool) or not isinstance(p_now, (int, float)) or not 0.0 <= p_now <= 1.0:
        ss[state.TOK_NC_P] = DEFAULT_P  # before the widgets: a link's value was checked already (state.link_value)
    elif isinstance(p_now, int):
        ss[state.TOK_NC_P] = float(p_now)  # a link's "1": the slider holds floats
    if isinstance(seed_now, bool) or not isinstance(seed_now, int) or not 0 <= seed_now <= MAX_SEED:
        ss[state.TOK_NC_SEED] = 0
    left, right = st.columns(2)
    p = left.slider("Dropout p", 0.0, 1.0, step=0.05, key=state.TOK_NC_P, persist_state="session",
                    help="The probability that BPE-dropout skips each merge.")
    seed = right.number_input("Seed", 0, MAX_SEED, step=1, key=state.TOK_NC_SEED, persist_state="session",
                              help="Draws for BPE-dropout and the random segmentation: the same seed, the same cuts.")
    try:
        view = other_cuts.cuts(name, enc, text, float(p), int(seed), show_ws)
    except ValueError as error:
        refuse_message(error, name)
        return
    notes = ["Special-token text is cut as plain text here."]
    if view.cut:
        notes.insert(0, f"The lanes cut the first {MAX_CHARS:,} of the text's {len(text):,} characters.")
    st.caption(" ".join(notes))
    canonical = view.lanes[0].count
    for lane in view.lanes:
        title, caption = LANES[lane.key]
        delta = lane.count - canonical
        more = "" if lane.key == "canonical" else f" ({'+' if delta >= 0 else '−'}{abs(delta):,} vs canonical)"
        st.markdown(f"**{title}** · {html.plural(lane.count, 'token')}{more}")
        draw(lane.markup, key=state.TOK_NC_LANE_PREFIX + lane.key)
        st.caption(caption)
    _word_count(name, enc, view.words)
