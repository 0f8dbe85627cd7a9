"""AppTest (no browser): the encoding picker (makers, model search, aliases, share link), every view with
every tokenizer family (tiktoken-style open models, SentencePiece, tokenizer.json), and uploads of the
new formats."""
from __future__ import annotations

import html as htmllib
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from tests.conftest import blocks, diagonal, merge_trees, plain, run_view, tree_boxes

import engine
from engine.families.hf.builtins import BUILTIN_FILES
from engine.families.sentencepiece.encoding import BUILTIN_MODELS
from engine.formats.tiktoken_files import read_data_file
from playground import state
from playground.widgets.sidebar import pick_key

VIEW_APP = str(Path(__file__).parent / "view_app.py")
TEXT = "Hello world!\nSentencePiece 🧩 and 日本語, 12345 café"
FAMILIES = ["llama3", "mistral-tekken", "mistral-v1", "deepseek-v4"]
VIEWS = ["views.tokenize", "views.compare", "views.gallery", "views.tree", "views.steps", "views.vocab"]



def markup(at: AppTest, marker: str) -> str:
    found = [m for m in [*(m.value for m in at.markdown), *blocks(at)] if marker in m]
    assert found, marker
    return htmllib.unescape(found[0])


def texts(at: AppTest) -> str:
    """Every message and markdown text a reader sees (markdown escapes removed)."""
    return "\n".join(plain(e.value) for kind in ("markdown", "caption", "info", "success", "warning", "error")
                     for e in getattr(at, kind))


# ------------------------------------------------------------------ every view, every family
@pytest.mark.parametrize("name, view", diagonal(FAMILIES, VIEWS))  # every pair under -m slow
def test_every_view_works_for_every_family(view, name):
    at = run_view(view, **{state.TEXT: TEXT, state.ENCODINGS: [name, "gpt2"], state.TOKEN_ENC: name})
    assert not at.error, [e.value for e in at.error]
    if view in ("views.tree", "views.steps", "views.vocab"):
        assert at.selectbox(key={"views.tree": "tree_enc", "views.steps": "steps_enc", "views.vocab": "vocab_enc"}[view]).value == name
    if view == "views.steps":
        assert "same as `enc.encode(piece)`" in at.success[0].value


def test_tokenize_sentencepiece_draws_space_and_byte_fallback():
    at = run_view("views.tokenize", **{state.TEXT: "Hi there\n🧩", state.ENCODINGS: ["mistral-v1"]})
    tokens = markup(at, 'id="tokens-mistral-v1"')
    assert 'class="tok bytefb"' in tokens or "tok split bytefb" in tokens
    assert "byte fallback <0x0A>" in tokens and "byte fallback <0xF0> <0x9F> <0xA7> <0xA9>" in tokens
    assert "piece ▁there: ▁ is SentencePiece's space" in tokens
    assert "SentencePiece writes a space as ▁" in markup(at, 'class="fam-legend"')
    at.segmented_control(key="tok_pane").set_value("Pieces").run()
    assert not at.exception
    body = texts(at)
    assert "Split before ▁" in body and "dummy prefix" in body and "Byte fallback" in body


def test_tokenize_pieces_pane_shows_each_family_stages():
    at = run_view("views.tokenize", **{state.TEXT: TEXT, state.ENCODINGS: ["deepseek-v4", "qwen2.5", "gpt2"],
                                      "tok_pane": "Pieces"})
    body = texts(at)
    assert "1. Split (Isolated)" in body and "ByteLevel" in body  # DeepSeek's pre-tokenizer sequence
    assert "Unicode NFC" in body  # Qwen normalises first
    assert "Split (regex)" in body and "tiktoken-style ranks" in body
    assert any(r"\p{N}{1,3}" in c.value for c in at.code)


def test_compare_tooltips_explain_tokenizer_json_spelling():
    at = run_view("views.compare", **{state.TEXT: "the cat", state.ENCODINGS: ["deepseek-v4", "mistral-v1"]})
    assert "stored as Ġcat" in markup(at, 'id="cmp-deepseek-v4"')
    assert "piece ▁cat" in markup(at, 'id="cmp-mistral-v1"')


@pytest.mark.heavy
def test_tree_per_family():
    llama = engine.get_encoding("llama3")
    at = run_view("views.tree", **{state.TOKEN_ENC: "llama3", state.TOKEN_ID: llama.encode_single_token(" hello")})
    assert merge_trees(at) and "tiktoken-style ranks" in texts(at) and "678 in Llama 3" in texts(at)
    whole = next(iter(llama.whole_piece_tokens))
    at = run_view("views.tree", **{state.TOKEN_ENC: "llama3", state.TOKEN_ID: whole})
    assert "no merge makes it" in at.info[0].value and not merge_trees(at)
    at = run_view("views.tree", **{state.TOKEN_ENC: "mistral-v1", state.TOKEN_ID: 13})  # <0x0A>
    assert "byte-fallback token" in at.info[0].value and "highest score" in texts(at)
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["id"] == "13"
    sp = engine.get_encoding("mistral-v1")
    at = run_view("views.tree", **{state.TOKEN_ENC: "mistral-v1", state.TOKEN_ID: sp.encode_single_token("▁token")})
    assert tree_boxes(merge_trees(at)[0])[0][1].startswith("␣token\n")
    at = run_view("views.tree", **{state.TOKEN_ENC: "deepseek-v4", state.TOKEN_ID: 1000})
    assert merge_trees(at) and "merges list" in texts(at)


def test_steps_per_family():
    at = run_view("views.steps", **{state.TOKEN_ENC: "mistral-v1", "steps_source": "typed", "steps_typed": " 🧩ok"})
    parts = markup(at, 'id="bpe-parts"')
    assert "bytes 243 162 170 172" in parts and "score" in texts(at)
    at = run_view("views.steps", **{state.TOKEN_ENC: "deepseek-v4", "steps_source": "typed", "steps_typed": "hello"})
    assert "merge #" in texts(at) and "#" in markup(at, 'id="bpe-parts"')
    assert "same as `enc.encode(piece)`" in at.success[0].value


def test_vocab_token_pane_shows_stored_spelling():
    sp = engine.get_encoding("mistral-v1")
    at = run_view("views.vocab", **{state.TOKEN_ENC: "mistral-v1", state.TOKEN_ID: sp.encode_single_token("▁the"),
                                   "vocab_pane": "token"})
    frame = at.dataframe[0].value
    facts = dict(zip(frame["fact"], frame["value"]))
    assert facts["stored as"] == "▁the" and "SentencePiece's space" in facts["note"]


# ------------------------------------------------------------------ the picker
def test_default_selection_and_grouped_picker():
    at = run_view("views.tokenize")
    assert not at.checkbox  # the list is drawn only while "Browse by maker or model" is on
    at.toggle(key="picker_open").set_value(True).run()
    assert at.multiselect(key=state.ENCODINGS).value == ["gpt2", "cl100k_base", "o200k_base"]
    assert "r50k_base" not in at.multiselect(key=state.ENCODINGS).options
    labels = {cb.key: cb.label for cb in at.checkbox}
    assert labels[pick_key("gpt2")].startswith("**gpt2** = **r50k_base** — GPT-2")
    assert "GPT-4o" in labels[pick_key("o200k_base")] and "Llama 3, 3.1" in labels[pick_key("llama3")]
    makers = [m.value for m in at.sidebar.markdown if m.value.startswith("**") and m.value.endswith("**")]
    assert makers == ["**OpenAI**", "**Meta**", "**Alibaba**", "**Mistral**", "**DeepSeek**", "**Zhipu AI**", "**MiniMax**",
                      "**Anthropic**", "**Google**", "**Google Research**"]
    assert "pre-Claude-3" in labels[pick_key("claude-legacy")]
    assert any("only from Anthropic's API" in plain(c.value) for c in at.sidebar.caption)
    assert at.checkbox(key=pick_key("o200k_base")).value and not at.checkbox(key=pick_key("llama3")).value


def test_picker_search_by_model_and_toggle():
    at = run_view("views.tokenize", picker_open=True)
    at.text_input(key="picker_search").input("meta-llama/Llama-3.1-8B").run()
    assert [cb.key for cb in at.checkbox] == [pick_key("llama3")]
    assert any("meta-llama/Llama-3.1-8B uses it" in plain(c.value) for c in at.sidebar.caption)
    at.checkbox(key=pick_key("llama3")).check().run()
    assert not at.exception and at.session_state[state.ENCODINGS] == ["gpt2", "cl100k_base", "o200k_base", "llama3"]
    assert at.query_params["enc"] == ["gpt2,cl100k_base,o200k_base,llama3"] or at.query_params["enc"] == "gpt2,cl100k_base,o200k_base,llama3"
    at.text_input(key="picker_search").input("text-davinci-003").run()
    assert any("p50k_base" in plain(c.value) for c in at.sidebar.caption)


def test_picker_limits_and_aliases_in_links():
    at = AppTest.from_file(VIEW_APP, default_timeout=90)
    at.query_params["enc"] = "r50k_base,llama3,nope,gpt2"
    at.query_params["tenc"] = "r50k_base"
    at.run()
    assert not at.exception
    assert at.session_state[state.ENCODINGS] == ["gpt2", "llama3"] and at.session_state[state.TOKEN_ENC] == "gpt2"
    names = ["gpt2", "cl100k_base", "o200k_base", "llama3", "qwen2.5", "mistral-v1"]
    at = run_view("views.tokenize", **{state.ENCODINGS: names, "picker_open": True})
    assert at.checkbox(key=pick_key("deepseek-v4")).disabled and not at.checkbox(key=pick_key("gpt2")).disabled
    at.checkbox(key=pick_key("gpt2")).uncheck().run()
    assert at.session_state[state.ENCODINGS] == names[1:]


# ------------------------------------------------------------------ uploads
def test_upload_new_formats_through_the_view_helper():
    from playground.views.train import load_tokenizer

    sp = load_tokenizer("SentencePiece .model", ("mistral.model", read_data_file(*BUILTIN_MODELS["mistral-v3"])), None, None, [])
    assert isinstance(sp, engine.SentencePieceEncoding) and sp.name.startswith("mistral-")
    hf = load_tokenizer("tokenizer.json (Hugging Face)", ("tokenizer.json", read_data_file(*BUILTIN_FILES["deepseek-v4"].json)),
                        None, None, [])
    at = AppTest.from_file(VIEW_APP, default_timeout=90)
    at.session_state["_view"] = "views.tree"
    at.run()
    at.session_state[state.CUSTOM] = {sp.name: sp, hf.name: hf}
    at.session_state[state.ENCODINGS] = [sp.name, hf.name]
    at.session_state[state.TOKEN_ENC] = sp.name
    at.session_state[state.TOKEN_ID] = sp.encode_single_token("<0x0A>")
    at.session_state["picker_open"] = True
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    assert "byte-fallback token" in texts(at), texts(at)[-800:]
    labels = {cb.key: cb.label for cb in at.checkbox}
    assert labels[pick_key(hf.name)].endswith("— uploaded")
    with pytest.raises(ValueError, match="not valid JSON"):
        load_tokenizer("Tekken .json (Mistral)", ("tekken.json", b"{"), None, None, [])


def test_shared_encoding_selector_is_grouped_and_labelled_by_maker():
    """Merge tree / BPE steps / Vocabulary pick from every family, in maker order, each labelled with
    its maker and models (the value stays the encoding's name)."""
    from engine.sources.catalog import group_by_maker
    from playground.widgets import pickers

    at = AppTest.from_file(VIEW_APP, default_timeout=120)
    at.session_state["_view"] = "views.tree"
    at.run()
    assert not at.exception
    box = at.selectbox(key="tree_enc")
    names = [n for _, members in group_by_maker(state.known_encodings()) for n in members]
    assert box.options == [pickers.encoding_label(n, m) for m, members in group_by_maker(names) for n in members]
    assert box.options[names.index("llama3")] == "llama3 — Meta · Llama 3, 3.1, 3.2, 3.3"
    assert box.options[0].startswith("gpt2 = r50k_base — OpenAI")
    box.set_value("mistral-v1").run()
    assert not at.exception and at.session_state[state.TOKEN_ENC] == "mistral-v1"
