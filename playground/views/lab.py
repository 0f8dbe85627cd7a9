"""Lab: each research result this playground demonstrates, with its paper and a button to its live demo.

`RESULTS` is the list, one `Result` per finding: add a feature's entry with one line there (its title, the
paper and link, the finding in one line with the paper's own number, the page and section that show it, and
the session values that open that section).  Only results with a working demo belong here: the AppTest
opens every entry's demo and checks that the named section is drawn (tests/app/test_lab.py).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import streamlit as st

from engine.training import lab as training_lab
from playground import state
from playground.render.markdown import md
from playground.widgets import pickers, train_lab
from playground.widgets.page import header


@dataclass(frozen=True)
class Result:
    title: str
    finding: str  # one line: what the paper found, its own number quoted from its abstract
    paper: str  # the paper's title
    cite: str  # "Authors, venue year"
    url: str
    page: str  # a key of playground.pages._VIEWS
    where: str  # the page and section that demonstrate it, as the menu and the page name them
    opens: tuple[tuple[str, Any], ...] = ()  # session values that open that section (widget keys, before drawing)


RESULTS: tuple[Result, ...] = (
    Result("Fertility and parity across languages",
           "The same text translated can need up to 15 times the tokens in another language.",
           "Language Model Tokenizers Introduce Unfairness Between Languages", "Petrov et al., NeurIPS 2023",
           "https://arxiv.org/abs/2305.15425", "arena", "Arena → Across languages, colour by tokens per word; "
           "Fertility and parity", ((state.ARENA_METRIC, "fertility"),)),
    Result("The African language tax",
           "Every one of 20 African languages costs more tokens than English: a median of 1.88× with o200k_base, "
           "up to 8.92× for N’Ko.",
           "The African Language Tax: Quantifying the Cost, Latency, and Context Penalty of Tokenizing African "
           "Languages in Frontier LLMs", "Somide, 2026", "https://arxiv.org/abs/2606.24460", "arena",
           "Arena → Across languages: add a sentence in an African language under “Add your own sentences”",
           ((state.ARENA_METRIC, "vs_english"),)),
    Result("Fertility predicts accuracy",
           "Across 10 LLMs on AfriMMLU (16 African languages), higher fertility (tokens per word) goes with lower accuracy.",
           "The Token Tax: Systematic Bias in Multilingual Tokenization", "Lundin et al., 2025",
           "https://arxiv.org/abs/2509.05486", "arena", "Arena → Fertility and parity (tokens per word per tokenizer)",
           ((state.ARENA_METRIC, "fertility"),)),
    Result("Parity-aware BPE",
           "Giving each merge to the worst-compressed language lowers the Gini over languages (by up to 89%) at "
           "little cost in global compression.",
           "Parity-Aware Byte-Pair Encoding: Improving Cross-lingual Fairness in Tokenization",
           "Foroutan et al., 2025", "https://arxiv.org/abs/2508.04796", "train",
           "Train your own → Algorithm: Parity-aware BPE", ((state.TRAIN_ALGORITHM, training_lab.PARITY),)),
    Result("SuperBPE: tokens across spaces",
           "At a 200k vocabulary, SuperBPE encodes a fixed text with up to 33% fewer tokens than BPE on average; "
           "its 8B model scores +4.0% over 30 tasks and needs 27% less inference compute.",
           "SuperBPE: Space Travel for Language Models", "Liu et al., COLM 2025", "https://arxiv.org/abs/2503.13423",
           "train", "Train your own → Algorithm: SuperBPE", ((state.TRAIN_ALGORITHM, training_lab.SUPERBPE),)),
    Result("Scaffold tokens",
           "Intermediate merge residues: tokens frequent while the merges are learned, so kept in the vocabulary, "
           "but mostly merged further and rarely emitted; removing them cuts parameters and fragmentation.",
           "LiteToken: Removing Intermediate Merge Residues From BPE Tokenizers", "Sun et al., 2026",
           "https://arxiv.org/abs/2602.04706", "vocab", "Vocabulary → 🧱 Scaffold & unreachable",
           ((state.VOCAB_PANE, "scaffold"),)),
    Result("Unreachable and under-trained tokens",
           "Tokens like SolidGoldMagikarp, which training barely saw, are found across a diverse set of models; "
           "tokenizer analysis flags tokens no text can produce without running the model.",
           "Fishing for Magikarp: Automatically Detecting Under-trained Tokens in Large Language Models",
           "Land & Bartolo, EMNLP 2024", "https://arxiv.org/abs/2405.05417", "vocab",
           "Vocabulary → 🧱 Scaffold & unreachable", ((state.VOCAB_PANE, "scaffold"),)),
    Result("WordPiece",
           "Wordpieces balance the flexibility of characters and the efficiency of words (Google's translation system).",
           "Google's Neural Machine Translation System: Bridging the Gap between Human and Machine Translation",
           "Wu et al., 2016", "https://arxiv.org/abs/1609.08144", "train", "Train your own → Algorithm: WordPiece",
           ((state.TRAIN_ALGORITHM, training_lab.WORDPIECE),)),
    Result("Unigram language model",
           "Sampling among a Unigram model's segmentations in training improves translation, most in low-resource "
           "and out-of-domain settings.",
           "Subword Regularization: Improving Neural Network Translation Models with Multiple Subword Candidates",
           "Kudo, ACL 2018", "https://arxiv.org/abs/1804.10959", "train",
           "Train your own → Algorithm: Unigram (SentencePiece)", ((state.TRAIN_ALGORITHM, train_lab.UNIGRAM),)),
    Result("BPE-dropout",
           "Skipping merges at random in training, then encoding canonically, gained up to 2.3 BLEU over plain BPE.",
           "BPE-Dropout: Simple and Effective Subword Regularization", "Provilkov et al., ACL 2020",
           "https://aclanthology.org/2020.acl-main.170/", "tokenize",
           "Tokenize → Other ways to cut this text: BPE-dropout", ((state.TOK_NC_OPEN, True),)),
    Result("Non-canonical tokenizations",
           "Instruction-tuned models keep up to 93.4% of their score on a random valid segmentation; right-aligned "
           "digit groups improve large-number arithmetic by +33%.",
           "Broken Tokens? Your Language Model can Secretly Handle Non-Canonical Tokenizations",
           "Zheng et al., NeurIPS 2025", "https://arxiv.org/abs/2506.19004", "tokenize",
           "Tokenize → Other ways to cut this text: random segmentation, right-aligned digits",
           ((state.TOK_NC_OPEN, True),)),
)


def open_demo(result: Result) -> None:
    """Set what opens `result`'s section (before its page draws its widgets), then go there."""
    for key, value in result.opens:
        st.session_state[key] = value
    pickers.go(result.page)


def render() -> None:
    header("Lab", "each result this playground demonstrates: the paper, its finding, and the live demo.")
    st.caption("Each finding and its number are taken from the paper's abstract. A demo runs here, on your text or the Arena's "
               "translations: it shows the mechanism, not the paper's experiment.")
    for number, result in enumerate(RESULTS):
        with st.container(border=True):
            st.markdown(f"**{md(result.title)}** — {md(result.finding)}")
            st.markdown(f"[“{md(result.paper)}”]({result.url}) · {md(result.cite)}")
            with st.container(horizontal=True, vertical_alignment="center"):
                if st.button("Open the demo", key=state.LAB_DEMO_PREFIX + str(number), icon=":material/play_arrow:"):
                    open_demo(result)
                st.caption(md(result.where))
