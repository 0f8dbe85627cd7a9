"""AppTest (no browser) of the Merge tree, BPE steps and Vocabulary views, by widget key."""
from __future__ import annotations

import re

import pytest
from streamlit.testing.v1 import AppTest

from tests.conftest import merge_trees, plain, tree_boxes, tree_layout, view_app

import engine

def _labels(at: AppTest, i: int = 0) -> list[str]:
    return [text for _, text in tree_boxes(merge_trees(at)[i])]


def _walk(node):
    """An AppTest element tree in the order the page shows it."""
    yield node
    for child in getattr(node, "children", {}).values():
        yield from _walk(child)


# ------------------------------------------------------------------- tree
def test_tree_opens_on_the_token_from_tokenize():
    gpt2 = engine.get_encoding("gpt2")
    hello = gpt2.encode_single_token("hello")
    at = view_app("views.tree", token_id=hello, token_encoding="gpt2").run()
    assert not at.exception
    assert at.selectbox(key="tree_enc").value == "gpt2"
    labels = _labels(at)
    assert len(labels) == 9 and "h\nbyte 0x68\nid 71" in labels
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["id (= rank)"] == str(hello) and metrics["merges"] == "4" and metrics["depth"] == "3"
    assert at.query_params["tok"] == str(hello) and at.query_params["tenc"] == "gpt2"


def test_tree_pick_by_id_and_encoding_switch_keeps_the_bytes():
    cl = engine.get_encoding("cl100k_base")
    at = view_app("views.tree", token_encoding="cl100k_base", token_id=cl.encode_single_token(" hello")).run()
    at.segmented_control(key="tree_pick_mode").set_value("id").run()
    the = cl.encode_single_token(" the")
    at.number_input(key="tree_id").set_value(the).run()
    assert not at.exception and at.session_state["token_id"] == the
    labels = _labels(at)
    assert labels[0] == "␣the\nid 279" and len(labels) == 7 and "h\nbyte 0x68\nid 71" in labels
    at.selectbox(key="tree_enc").set_value("o200k_base").run()
    o200k = engine.get_encoding("o200k_base")
    assert at.session_state["token_id"] == o200k.encode_single_token(" the")
    assert at.session_state["token_encoding"] == "o200k_base"
    assert _labels(at)[0] == f"␣the\nid {o200k.encode_single_token(' the')}"


def test_tree_pick_from_the_text_and_by_search():
    gpt2 = engine.get_encoding("gpt2")
    at = view_app("views.tree", token_encoding="gpt2", text="Hello unbelievable world").run()
    chips = at.get("button_group")  # pills
    assert chips and not at.exception
    at.segmented_control(key="tree_pick_mode").set_value("search").run()
    at.text_input(key="tree_find").input(" SolidGoldMagikarp").run()
    assert at.session_state["token_id"] == gpt2.encode_single_token(" SolidGoldMagikarp")
    assert _labels(at)[0].startswith("␣SolidGoldMagikarp\n")


def test_tree_offers_tokens_from_the_start_of_a_long_text():
    """After a long paste the Merge tree's picker takes the tokens Tokenize draws (its cache), not the
    first 100,000 characters tokenized anew: the default token is the longest of the text's start."""
    from playground.cache import render_cache

    gpt2 = engine.get_encoding("gpt2")
    start = "Tokenizers unbelievably compress text. "
    text = start * 200 + " SolidGoldMagikarp" * 3000  # 7,800 characters, then a long tail
    at = view_app("views.tree", token_encoding="gpt2", text=text).run()
    assert not at.exception
    longest_start = max((t for t in gpt2.tokenize(text[: render_cache.DRAWN_CHARS + render_cache.DRAWN_MARGIN],
                                                  allowed_special=set(), disallowed_special=())),
                        key=lambda t: (len(t.bytes), -t.byte_start))
    assert at.session_state["token_id"] == longest_start.id != gpt2.encode_single_token(" SolidGoldMagikarp")


@pytest.mark.parametrize("cold", [True, False], ids=["a vocabulary to load", "all loaded"])
def test_the_tree_is_drawn_and_sent_before_the_slow_parts(monkeypatch, cold):
    """The token pickers' chips are drawn after the tree (in their place above it): the first time, Streamlit reads
    its emoji table for them.  And when a vocabulary must still load for "The same bytes in other encodings",
    the run pauses once after the tree so that the server sends it first (script_gate.send_drawn)."""
    import streamlit as st

    from playground.cache import encodings
    from playground.serving import script_gate
    from playground.views import tree as tree_view

    calls: list[str] = []

    def record(name, real):
        def call(*args, **kwargs):
            calls.append(name)
            return real(*args, **kwargs)
        return call

    monkeypatch.setattr(tree_view, "merge_tree_figure", record("tree", tree_view.merge_tree_figure))
    monkeypatch.setattr(st, "pills", record("chips", st.pills))
    monkeypatch.setattr(script_gate, "send_drawn", lambda: calls.append("sent"), raising=False)
    monkeypatch.setattr(encodings, "loaded", lambda name: not cold, raising=False)
    at = view_app("views.tree", token_encoding="o200k_base", text="Hello unbelievable world").run()
    assert not at.exception
    assert calls == (["tree", "sent", "chips"] if cold else ["tree", "chips"])
    drawn = [getattr(node, "type", "") for node in _walk(at.main)]
    tree_at = next(i for i, node in enumerate(_walk(at.main)) if 'class="merge-tree"' in str(getattr(node, "value", "")))
    assert drawn.index("button_group") < tree_at  # the chips keep their place above the tree
    assert len(at.pills(key="tree_text_token").options) == 3


def test_tree_special_and_unknown_ids_explain_themselves():
    at = view_app("views.tree", token_encoding="gpt2", token_id=50256).run()
    assert not at.exception and "special token" in at.warning[0].value and not merge_trees(at)
    at = view_app("views.tree", token_encoding="o200k_base", token_id=200_005).run()
    assert not at.exception and "not a token of o200k_base" in plain(at.warning[0].value)


def test_tree_other_encodings_and_folding():
    o200k = engine.get_encoding("o200k_base")
    at = view_app("views.tree", token_encoding="o200k_base", token_id=engine.explain.vocab.longest(o200k, 1)[0]).run()
    assert not at.exception
    assert at.slider(key="tree_depth").value < at.slider(key="tree_depth").max
    # 16 folded boxes across: 1,853 px top-down, more than a desktop's column holds at MIN_SCALE
    assert at.toggle(key="tree_left_right").value is True
    kinds = [kind for kind, _ in tree_boxes(merge_trees(at)[0])]
    assert "folded" in kinds and len(kinds) <= 31 and tree_layout(merge_trees(at)[0]) == "left-right"
    at.slider(key="tree_depth").set_value(at.slider(key="tree_depth").max).run()
    kinds = [kind for kind, _ in tree_boxes(merge_trees(at)[0])]
    assert len(kinds) == 255 and "folded" not in kinds and kinds.count("leaf") == 128
    at.toggle(key="tree_left_right").set_value(False).run()
    assert tree_layout(merge_trees(at)[0]) == "top-down"
    at = view_app("views.tree", token_encoding="cl100k_base", token_id=engine.get_encoding("cl100k_base").encode_single_token(" hello")).run()
    at.segmented_control(key="tree_other_enc").set_value("gpt2").run()
    assert not at.exception and len(merge_trees(at)) == 2
    assert _labels(at, 1)[0] == "␣hello\nid 23748" and len(_labels(at, 1)) == 11  # gpt2's " hello" is 6 bytes


# ------------------------------------------------------------------ steps
def test_steps_slider_walks_the_trace_and_checks_encode():
    at = view_app("views.steps", token_encoding="cl100k_base", text="An unbelievable story").run()
    assert not at.exception
    assert at.selectbox(key="steps_piece").value == " unbelievable"
    cl = engine.get_encoding("cl100k_base")
    n = len(cl.bpe_trace(" unbelievable").steps)
    assert at.slider(key="steps_k").max == n
    assert "same as `enc.encode(piece)`" in at.success[0].value
    html = next(m.value for m in at.markdown if 'id="bpe-parts"' in m.value)
    assert html.count('class="part') == len(" unbelievable") and html.count('class="part merge"') == 2
    at.button(key="steps_next").click().run()
    assert at.slider(key="steps_k").value == 1
    at.button(key="steps_last").click().run()
    html = next(m.value for m in at.markdown if 'id="bpe-parts"' in m.value)
    assert html.count('class="part') == len(cl.encode_ordinary(" unbelievable"))
    assert "merge" not in html.split('class="part')[1][:10]


def test_steps_typed_long_piece_is_capped():
    at = view_app("views.steps", token_encoding="o200k_base", steps_source="typed", steps_typed="a" * 5000).run()
    assert not at.exception
    html = next(m.value for m in at.markdown if 'id="bpe-parts"' in m.value)
    assert html.count('class="part') == 160 and "parts after" in html
    assert "same as" in at.success[0].value
    at.slider(key="steps_k").set_value(2000).run()
    assert not at.exception


def test_steps_typed_text_of_several_pieces_is_explained():
    at = view_app("views.steps", token_encoding="gpt2", steps_source="typed", steps_typed="hello world").run()
    assert not at.exception and "cuts this text into 2 pieces" in at.info[0].value


# ------------------------------------------------------------------ vocab
def test_vocab_search_substring_and_filter():
    at = view_app("views.vocab", token_encoding="gpt2").run()
    assert not at.exception
    at.text_input(key="vocab_query").input("Magikarp").run()
    df = at.dataframe[0].value
    assert "␣SolidGoldMagikarp" in set(df["token"]) and df["glitch"].any()
    at.segmented_control(key="vocab_filter").set_value("leading_space").run()
    df = at.dataframe[0].value
    assert len(df) and df["leading space"].all()


def test_vocab_regex_errors_are_messages():
    at = view_app("views.vocab", token_encoding="cl100k_base").run()
    at.radio(key="vocab_mode").set_value("regex").run()
    at.text_input(key="vocab_query").input("(ab").run()
    assert not at.exception and "invalid regex" in plain(at.error[0].value)
    at.text_input(key="vocab_query").input(r"^\d{3}$").run()
    assert not at.exception and len(at.dataframe[0].value) == 1000


def test_vocab_regex_timeout_message(monkeypatch):
    from playground.cache import encodings
    from playground.serving import jobs

    monkeypatch.setattr(encodings, "SEARCH_BUDGET", 0.2)  # sent to the job process with the search
    jobs.clear()
    at = view_app("views.vocab", token_encoding="cl100k_base").run()
    at.radio(key="vocab_mode").set_value("regex").run()
    at.text_input(key="vocab_query").input("( | )+x").run()
    assert not at.exception
    assert "took too long" in plain(at.error[0].value) and "single repeat" in plain(at.error[0].value)


def test_vocab_token_pane_families_and_glitch_pane():
    gpt2 = engine.get_encoding("gpt2")
    hello = gpt2.encode_single_token("hello")
    at = view_app("views.vocab", token_encoding="gpt2", token_id=hello, vocab_pane="token").run()
    assert not at.exception and at.number_input(key="vocab_id").value == hello
    at.number_input(key="vocab_id").set_value(gpt2.encode_single_token(" SolidGoldMagikarp")).run()
    facts = at.dataframe[0].value
    assert "glitch token" in set(facts["fact"])
    at.segmented_control(key="vocab_pane").set_value("glitch").run()
    assert not at.exception and len(at.dataframe[0].value) == len(engine.explain.vocab.glitch_tokens(gpt2))
    assert any("Fishing for Magikarp" in m.value for m in at.markdown)
    at.segmented_control(key="vocab_pane").set_value("lengths").run()
    assert not at.exception and at.get("vega_lite_chart")


@pytest.mark.parametrize("view", ["views.tree", "views.steps", "views.vocab"])
def test_views_render_on_the_default_state(view):
    at = view_app(view).run()
    assert not at.exception and not at.error and not at.warning


def test_links_between_views_set_state_without_warnings():
    gpt2 = engine.get_encoding("gpt2")
    at = view_app("views.tree", token_encoding="gpt2", token_id=gpt2.encode_single_token(" hello")).run()
    at.button(key="tree_to_steps").click().run()  # the state set before st.switch_page is what counts here
    assert at.session_state["steps_source"] == "typed" and at.session_state["steps_typed"] == " hello"
    at = view_app("views.tree", token_encoding="gpt2", token_id=gpt2.encode_single_token(" hello")).run()
    at.button(key="tree_to_vocab").click().run()
    assert at.session_state["vocab_pane"] == "token"
    at = view_app("views.steps", token_encoding="gpt2", steps_source="typed", steps_typed=" hello").run()
    assert not at.exception and not at.warning
    at = view_app("views.vocab", token_encoding="gpt2", token_id=31373, vocab_pane="token").run()
    assert not at.exception and not at.warning


@pytest.mark.parametrize("view", ["views.tree", "views.vocab"])
def test_the_token_text_is_a_chip_not_a_code_block(view):
    """The chosen token's text is drawn as escaped HTML (st.code would load the syntax highlighter)."""
    enc = engine.get_encoding("gpt2")
    token_id = enc.encode_ordinary("<b")[0] if len(enc.encode_ordinary("<b")) == 1 else enc.encode_ordinary(" <")[0]
    at = view_app(view, token_id=token_id, token_encoding="gpt2", **({"vocab_pane": "token"} if view == "views.vocab" else {})).run()
    assert not at.exception and not at.code
    chips = [m.value for m in at.markdown if 'class="tokchip"' in m.value]
    text = engine.explain.vocab.readable(enc.decode_single_token_bytes(token_id), space="␣")
    assert len(chips) == 1 and "<b>" not in chips[0] and text.replace("<", "&lt;") in chips[0]
