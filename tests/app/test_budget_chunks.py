"""The gallery's token tax and budget and the Token-budget chunks page (AppTest): the gallery's token tax and budget use the sidebar's encodings, their charts
keep readable bars with few rows; Token-budget chunks start on the sidebar's first pick with N = 512."""
from __future__ import annotations

import json
from collections import OrderedDict

import pytest

from tests.conftest import blocks, run_view

import engine
from playground import state
from playground.views import chunks as chunk_view, gallery as gallery_view

FIVE = ["llama3", "mistral-v3", "deepseek-v4", "qwen3.6", "gpt2"]
TWO_SCRIPTS = "Hello world, how are you today? Привет, мир, как дела?"


def yours(text: str, encodings: list[str], **values):
    return run_view("views.gallery", timeout=180, **{state.TEXT: text, state.ENCODINGS: encodings,
                                                    "gallery_section": "yours", **values})


def charts(at) -> list[dict]:
    return [json.loads(c.proto.spec) for c in at.get("vega_lite_chart")]


def bar_chart(at, field: str) -> dict:
    return next(s for s in charts(at) if field in json.dumps(s.get("encoding", s.get("layer", ""))))


# ------------------------------------------------------------------ token tax and budget
def test_budget_and_token_tax_use_the_sidebars_five_encodings():
    at = yours(TWO_SCRIPTS, FIVE)
    budget = at.dataframe[1].value
    assert list(budget["Encoding"]) == FIVE  # before: gpt2, cl100k_base, o200k_base whatever the sidebar held
    for name, tokens in zip(budget["Encoding"], budget["Tokens"]):
        assert tokens == len(engine.get_encoding(name).encode(TWO_SCRIPTS))
    assert [m.label for m in at.metric] == FIVE
    tax = at.dataframe[0].value
    assert [c for c in tax.columns if c.endswith(" tokens")] == [f"{n} tokens" for n in FIVE]


def test_own_tokenizers_count_when_the_sidebar_picks_them():
    mine = engine.train_bpe("low lower lowest " * 20, 270)
    at = yours("low lower", ["gpt2", mine.name], **{state.CUSTOM: OrderedDict({mine.name: mine})})
    assert list(at.dataframe[1].value["Encoding"]) == ["gpt2", mine.name]
    at = yours("low lower", ["gpt2"], **{state.CUSTOM: OrderedDict({mine.name: mine})})
    assert list(at.dataframe[1].value["Encoding"]) == ["gpt2"]


def test_no_sidebar_encoding_says_what_to_do():
    at = yours(TWO_SCRIPTS, [])
    assert any("sidebar" in i.value for i in at.info) and not at.dataframe


@pytest.mark.parametrize("text", [TWO_SCRIPTS, "Hi", "Hello Привет 日本 مرحبا 123 👋🏽"])
def test_token_tax_bars_keep_their_thickness_with_few_scripts(text):
    """Streamlit's default autosize "fit" squeezed the whole chart, axis and legend into the given height:
    2-5 scripts gave bars of 1-3 pixels.  Now the width fits and the height is the bars' own."""
    at = yours(text, FIVE)
    spec = bar_chart(at, "Tokens per character")
    scripts = len(at.dataframe[0].value)
    assert spec["autosize"]["type"] == "fit-x"
    assert spec["height"] == scripts * (len(FIVE) * gallery_view.BAR + gallery_view.GAP)
    assert spec["encoding"]["yOffset"]["field"] == "Encoding"


def test_budget_bars_keep_their_thickness():
    at = yours(TWO_SCRIPTS, FIVE)
    spec = bar_chart(at, "Share of context %")
    assert spec["autosize"]["type"] == "fit-x" and spec["height"] >= len(FIVE) * gallery_view.BAR


# ------------------------------------------------------------------ Token-budget chunks
def chunks(**values):
    return run_view("views.chunks", timeout=180, **values)


def test_chunks_start_on_the_sidebars_first_pick_with_n_512():
    text = "A sentence to cut. " * 400
    at = chunks(**{state.TEXT: text, state.ENCODINGS: ["llama3", "gpt2"]})
    assert at.selectbox(key="chunk_encoding").value == "llama3"  # before: cl100k_base
    assert at.number_input(key="chunk_max").value == 512 == chunk_view.DEFAULT_MAX  # before: 64
    result = engine.chunk_text(text, engine.get_encoding("llama3"), 512)
    assert {m.label: m.value for m in at.metric}["Chunks"] == str(len(result.chunks))
    # it follows the sidebar until the user picks a tokenizer here
    at.session_state[state.ENCODINGS] = ["mistral-v3", "gpt2"]
    at.run()
    assert at.selectbox(key="chunk_encoding").value == "mistral-v3"
    at.selectbox(key="chunk_encoding").set_value("qwen3.6").run()
    at.session_state[state.ENCODINGS] = ["gpt2"]
    at.run()
    assert not at.exception and at.selectbox(key="chunk_encoding").value == "qwen3.6"


def test_chunks_without_a_sidebar_pick_start_on_cl100k():
    at = chunks(**{state.ENCODINGS: []})
    assert at.selectbox(key="chunk_encoding").value == "cl100k_base"


def test_chunk_share_link_values_still_win():
    at = chunks(query={"v.chunk_encoding": json.dumps("llama3"), "v.chunk_max": "16",
                       "enc": "gpt2,cl100k_base"})
    assert at.selectbox(key="chunk_encoding").value == "llama3"
    assert at.number_input(key="chunk_max").value == 16
    cards = next(h for h in blocks(at) if 'class="chunks"' in h)
    assert "/ 16 tokens" in cards
