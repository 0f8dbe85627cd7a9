"""A live playground through AppTest: one token's tree without the full merge recovery, long trees laid out
left to right, grapheme-whole units with offsets in the markup, Compare's table without �."""
from __future__ import annotations

import re
from pathlib import Path

import pytest
import regex
from hypothesis import given, strategies as st
from streamlit.testing.v1 import AppTest

from tests.conftest import blocks, merge_trees, run_view as run, tree_boxes, tree_layout

import engine
import engine.tokenizer.encoding
from playground import state
from playground.render import html

SCRIPTS = "Family 👨‍👩‍👧 wave 👋🏽 flags 🇯🇵🇫🇷 नमस्ते दुनिया · مرحبا بالعالم · é"



def test_o200k_tree_without_recovering_all_merges(monkeypatch):
    def refuse(_ranks):
        raise AssertionError("the full merge recovery ran")

    monkeypatch.setattr(engine.tokenizer.encoding, "recover_merges", refuse)
    enc = engine.get_encoding("o200k_base")
    token_id = max(enc.encode_ordinary(" playground unbelievable"), key=lambda t: len(enc.decode_single_token_bytes(t)))
    at = run("views.tree", **{state.TOKEN_ENC: "o200k_base", state.TOKEN_ID: token_id})
    assert tree_boxes(merge_trees(at)[0])[0][1].endswith(f"\nid {token_id}")


def test_a_32_byte_gpt2_token_is_drawn_left_to_right_whole():
    at = run("views.tree", **{state.TOKEN_ENC: "gpt2", state.TOKEN_ID: 3880})  # 32 dashes
    tree = merge_trees(at)[0]
    assert tree_layout(tree) == "left-right"
    assert len(tree_boxes(tree)) == 63  # every box: 32 bytes, 31 merges
    at = run("views.tree", **{state.TOKEN_ENC: "gpt2", state.TOKEN_ID: 5303})  # 'hi': small, top-down
    assert tree_layout(merge_trees(at)[0]) == "top-down"


def test_units_carry_grapheme_offsets_and_rtl_runs():
    at = run("views.tokenize", **{state.TEXT: SCRIPTS, state.ENCODINGS: ["gpt2"], state.SHOW_WS: False})
    markup = next(h for h in blocks(at) if 'id="tokens-gpt2"' in h)
    bounds = {0} | {m.end() for m in regex.finditer(r"\X", SCRIPTS)}
    offsets = [(int(a), int(b)) for a, b in re.findall(r'data-start="(\d+)" data-end="(\d+)"', markup)]
    assert offsets and all(a in bounds and b in bounds for a, b in offsets)
    assert [a for a, _ in offsets[1:]] == [b for _, b in offsets[:-1]]  # no gaps, no overlaps
    assert markup.count('class="rtl" dir="rtl"') == 1
    assert 'data-idlist="ids-gpt2"' in markup and any('id="ids-gpt2"' in h for h in blocks(at))


def test_compare_table_shows_whole_graphemes():
    at = run("views.compare", **{state.TEXT: SCRIPTS, state.ENCODINGS: ["gpt2", "cl100k_base"], state.SHOW_WS: False})
    frame = at.dataframe[-1].value
    assert len(frame) and "\ufffd" not in frame.to_string()
    bounds = {0} | {m.end() for m in regex.finditer(r"\X", SCRIPTS)}
    for chars, text in zip(frame["chars"], frame["text"]):
        a, b = map(int, chars.split("–"))
        assert a in bounds and b in bounds and text == SCRIPTS[a:b].replace(" ", "␣")


def test_one_token_is_not_one_tokens():
    at = run("views.compare", **{state.TEXT: "hi", state.ENCODINGS: ["gpt2", "cl100k_base"]})
    assert any(m.value == "**gpt2** · 1 token" for m in at.markdown)


def _chips(name: str, text: str) -> str:
    from playground.render import gallery

    enc = engine.get_encoding(name)
    toks = enc.tokenize(text)
    return gallery.gallery_chips([(t.id, t.bytes, False, t.special) for t in toks], encoding=name)


def test_arabic_chips_read_right_to_left_with_their_ids_kept_apart():
    """A run of Arabic chips sits in one dir="rtl" span (first token on the right); each chip's text is
    a <bdi> with its own direction, so its id never joins the Arabic run; Latin chips stay outside any
    rtl span; a line that starts in Arabic is a right-to-left paragraph."""
    markup = _chips("o200k_base", "Hello مرحبا بالعالم world")
    assert markup.count('class="rtl" dir="rtl"') == 1
    rtl = markup.index('dir="rtl"')
    assert markup.index("Hello") < rtl < markup.index("م") and markup.rindex("م") < markup.index("world")
    chips = re.findall(r'<span class="tok[^"]*"[^>]*dir="(?:auto|ltr|rtl)"[^>]*><bdi[^>]*>(.*?)</bdi>', markup)
    assert re.search(r'dir="rtl"><bdi dir="rtl">(<span class="ws">␣</span>)?م', markup)  # an Arabic chip and its text, right to left
    assert "".join(chips).replace('<span class="ws">␣</span>', " ") == "Hello مرحبا بالعالم world"
    assert 'class="rtl"' not in _chips("o200k_base", "Hello world")
    assert _chips("o200k_base", "مرحبا Hello").startswith('<div class="gchips" dir="rtl"')
    assert 'class="ltr" dir="ltr"' in _chips("o200k_base", "مرحبا Hello world")


def test_pill_labels_isolate_the_token_text():
    """An Arabic token's pill label keeps "text · id" order: the text is isolated (FSI … PDI)."""
    from playground.widgets import pickers

    enc = engine.get_encoding("cl100k_base")
    token_id = enc.encode_ordinary(" مرحبا")[0]
    label = pickers.token_label(enc, token_id)
    assert label.startswith("\u2068") and label.endswith(f"\u2069 · {token_id}")
    hello = enc.encode_ordinary(" hello")[0]
    assert pickers.token_label(enc, hello) == f"␣hello · {hello}"  # nothing to isolate


def test_attribute_values_are_escaped_and_ints_are_plain():
    from playground.render import html

    assert html.attrs({"data-i": 7, "data-tip": '"><img src=x onerror=alert(1)>', "hidden": True}) == (
        'data-i="7" data-tip="&quot;&gt;&lt;img src=x onerror=alert(1)&gt;" hidden="True"')


def test_drawing_a_long_text_tokenizes_only_its_start():
    """The drawn part of a long text comes from tokenizing its start alone: the same records as
    tokenizing the whole text, up to past the drawn characters."""
    from playground.cache import render_cache

    text = (Path(__file__).parents[1] / "data" / "corpus" / "taylorswift.txt").read_text(encoding="utf-8")[:40_000]
    for name in ("gpt2", "o200k_base"):
        enc = engine.get_encoding(name)
        start = render_cache.drawn(name, enc, text, "text")
        assert len(start.text) < 2 * render_cache.DRAWN_CHARS  # not the first DRAW_LIMIT characters
        assert start.tokens[-1].char_end >= render_cache.DRAWN_CHARS
        assert start.tokens == tuple(enc.tokenize(text)[: len(start.tokens)])
        assert start.pieces == tuple(enc.pretokenize(text)[: len(start.pieces)])


_UNIT_TEXTS = [
    "Hello world! unbelievable 1234567",
    "Family 👨‍👩‍👧 wave 👋🏽 flags 🇯🇵🇫🇷 नमस्ते दुनिया · مرحبا بالعالم · é",
    "a\tb\nc\r\nd\u00a0e  <script>alert('x')</script> & \"q\" <|endoftext|> done",
    "世界 こんにちは 😀\u200d ﷺ \U0001F9E9 \x00\x1f",
]


@pytest.mark.parametrize("name", ["gpt2", "cl100k_base", "mistral-v1"])
@pytest.mark.parametrize("show_ws", [True, False])
def test_fast_token_units_equal_the_reference(name, show_ws):
    """tokens.token_units (one f-string a span) gives exactly token_units_reference's markup: ids, offsets,
    classes, hex bytes, extra tooltip lines, stripes for split characters, escaping."""
    from playground.render import tokens

    enc = engine.get_encoding(name)
    for text in _UNIT_TEXTS:
        for policy in ({"allowed_special": set(), "disallowed_special": ()}, {"allowed_special": "all"}):
            units = engine.explain.compare.group_tokens(enc.tokenize(text, **policy), text)
            pieces = enc.pretokenize(text, **policy)
            cuts = {u.byte_start for u in units[::2]}
            kw = dict(show_ws=show_ws, pieces=pieces, shared_cuts=cuts, cls="tokens cmp", encoding=name,
                      n_vocab=enc.n_vocab, notes=engine.explain.families.tokenize_text(enc, text, **policy).notes)
            assert tokens.token_units(units, "x", **kw) == tokens.token_units_reference(units, "x", **kw)
            plain = dict(show_ws=show_ws, idlist="ids-x")
            assert tokens.token_units(units, "y", **plain) == tokens.token_units_reference(units, "y", **plain)


@given(st.text(max_size=60))
def test_show_whitespace_equals_the_reference(text):
    assert html.show_whitespace(text) == html.show_whitespace_reference(text)
    assert html.hex_bytes(text.encode("utf-8", "surrogatepass")) == " ".join(
        f"{b:02x}" for b in text.encode("utf-8", "surrogatepass"))
