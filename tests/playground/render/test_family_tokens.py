"""render/tokens.py draws the families that change the text as they are: the spaces a WordPiece pre-tokenizer drops
between the tokens (uncoloured), a ## continuation dimmed, a lower-cased or accent-stripped token underlined with
the user's characters in its tooltip -- byte-level BPE unchanged -- and the fast builder equals the reference."""
from __future__ import annotations

import html as stdlib_html
import re

import pytest

import engine
from engine.sources.uploads import load_files
from playground.render import tokens
from tests.engine.sources.test_load_files import BERT_VOCAB


@pytest.fixture(scope="module")
def bert():
    return load_files([("vocab.txt", BERT_VOCAB)])


def notes_of(enc, text: str):
    """The family notes of the text's tokens, as the token views pass them to the renderer."""
    return engine.explain.families.tokenize_text(enc, text, allowed_special=set(), disallowed_special=()).notes


def draw(enc, text: str, **kw) -> str:
    units = engine.explain.compare.group_tokens(enc.tokenize(text, allowed_special=set(), disallowed_special=()), text)
    args = dict(show_ws=True, notes=notes_of(enc, text), source=text, **kw)
    fast = tokens.token_units(units, "x", **args)
    assert fast == tokens.token_units_reference(units, "x", **args)
    return fast


def test_wordpiece_gaps_continuations_and_changes(bert):
    markup = draw(bert, "Hello tokenization É!")
    assert markup.count('<span class="gap"><span class="ws">␣</span></span>') == 2  # the two spaces no token holds
    assert markup.count('<span class="cont">##</span>') == 2  # ##iz, ##ation
    assert 'class="cont">##</span>iz<' in markup and 'class="cont">##</span>ation<' in markup
    norm = re.findall(r'<span class="tok norm[^"]*"[^>]*data-x="([^"]*)"', markup)
    assert len(norm) == 2  # Hello -> hello, É -> e
    assert "your text “Hello” → token “hello”" in stdlib_html.unescape(norm[0])
    assert "your text “É” → token “e”" in stdlib_html.unescape(norm[1])


def test_byte_level_bpe_is_drawn_as_before(bert):
    gpt2 = engine.get_encoding("gpt2")
    text = "Hello tokenization É!"
    units = engine.explain.compare.group_tokens(gpt2.tokenize(text), text)
    with_source = tokens.token_units(units, "x", show_ws=True, source=text)
    assert with_source == tokens.token_units(units, "x", show_ws=True)
    assert "gap" not in with_source and "norm" not in with_source


@pytest.mark.parametrize("show_ws", [True, False])
def test_fast_equals_reference_with_escaping(bert, show_ws):
    text = "<b>Héllo</b> &amp;  \"tokenization\"\n\nworld's ##s"
    units = engine.explain.compare.group_tokens(bert.tokenize(text, allowed_special=set(), disallowed_special=()), text)
    args = dict(show_ws=show_ws, notes=notes_of(bert, text), source=text, pieces=None)
    markup = tokens.token_units(units, "x", **args)
    assert markup == tokens.token_units_reference(units, "x", **args)
    assert "<b>" not in markup.replace('<span class="', "")


@pytest.mark.parametrize("family, says", [("wordpiece", "## means glued"), ("unigram", "most probable"),
                                          ("wordlevel", "underlined"), ("tiktoken", None)])
def test_each_normalizing_family_has_a_legend(family, says):
    legend = tokens.family_legend(family)
    if says is None:
        assert legend == ""
    else:
        assert says in legend and "grey" in legend and legend.startswith('<div class="fam-legend">')


def test_a_piece_as_long_as_the_text_is_labelled_once(monkeypatch):
    """Without a pre-tokenizer a piece is the whole text, and every token's tooltip names it ("piece aaaa…"):
    made once per piece, not once per token -- 7,000 "a" with a crafted WordPiece file was 7,000 tokens times a
    7,000-character label, seconds of the server's one GIL on every redraw.  Counted, not timed."""
    from tests.engine.formats.crafted_slow_files import AT_THE_BOUNDS

    filename, build, _ = AT_THE_BOUNDS["hf_unigram_256_prefixes"]
    enc = load_files([(filename, build())])
    text = "ab" * 1_000  # no piece of the model holds "b": one token per character, all in one piece
    found = engine.explain.families.tokenize_text(enc, text)
    assert len(found.pieces) == 1 and len(found.tokens) == len(text)
    units = engine.explain.compare.group_tokens(found.tokens, text)
    labelled: list[int] = []
    real = tokens.visible
    monkeypatch.setattr(tokens, "visible", lambda s: labelled.append(len(s)) or real(s))
    markup = tokens.token_units(units, "x", show_ws=True, pieces=found.pieces, source=text)
    assert markup.count("piece abababab") == len(text)  # every tooltip still names the piece
    assert sum(labelled) <= 2 * len(text), sum(labelled)  # before: 2,000 labels of 2,000 characters
