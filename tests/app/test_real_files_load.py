"""Real files the upload refused (issue 33 item 6), through the Train page and the pages after it.

(a) OpenAI whisper's ``multilingual.tiktoken`` (rank 50256 is the empty token, ``=``): uploaded, and its empty
token explained on Merge tree instead of drawn.  (b) afaanoromo-tokenizer's Unigram ``tokenizer.json`` without
``unk_id``: uploaded, and a text holding a character it has no entry for fails on each page with a message
naming the character, as `tokenizers` fails it, while the page keeps working."""
from __future__ import annotations

import pytest

import engine
from playground import state
from playground.views import train as train_view
from tests import reference_packages as rp
from tests.conftest import drawn_ok, run_view, view_app

WHISPER = ("openai-whisper", "openai_whisper-20250625/whisper/assets/multilingual.tiktoken")
AFAAN = ("afaanoromo-tokenizer", "afaanoromo_tokenizer/unigram_tokenizer.json")




def _upload(kind: str, filename: str, data: bytes):
    at = run_view("views.train", timeout=120, _net=True)
    at.segmented_control(key=train_view.U_KIND).set_value(kind).run()
    at.file_uploader(key=f"{train_view.U_FILE}_{train_view.UPLOAD_KINDS.index(kind)}").set_value(
        (filename, data, "application/octet-stream")).run()
    if kind == "tiktoken rank file":
        at.selectbox(key=train_view.U_PATTERN).set_value("gpt2").run()  # whisper splits with GPT-2's pattern
    at.button(key=train_view.U_GO).click().run()
    return at


def test_whispers_rank_file_uploads():
    at = _upload("tiktoken rank file", "multilingual.tiktoken", rp.member(*WHISPER))
    messages = drawn_ok(at)  # refused before: "line 50257: bad base64 '='"
    assert any("Loaded" in m and "multilingual" in m for m in messages), messages
    (enc,) = at.session_state[state.CUSTOM].values()
    assert enc.decode_single_token_bytes(50256) == b""


@pytest.fixture(scope="module")
def whisper():
    return engine.load_tokenizer("tiktoken", ("multilingual.tiktoken", rp.member(*WHISPER)),
                                 pat_str=engine.get_encoding("gpt2").pat_str)


@pytest.mark.parametrize(("view", "extra"), [("views.tree", {}), ("views.vocab", {state.VOCAB_PANE: "token"}),
                                             ("views.steps", {}), ("views.tokenize", {"tok_decode": "50256 15496"})])
def test_the_empty_token_on_the_token_pages(whisper, view, extra):
    """Merge tree crashed on its first leaf byte (IndexError); it now says what the token is."""
    at = view_app(view, _net=True, **{state.CUSTOM: {whisper.name: whisper}, state.ENCODINGS: [whisper.name],
                                      state.TOKEN_ENC: whisper.name, state.TOKEN_ID: 50256, **extra})
    at.run()
    messages = drawn_ok(at)
    if view == "views.tree":
        assert any("empty token" in m and "decodes to nothing" in m for m in messages), messages


def test_afaanoromos_unigram_file_uploads():
    at = _upload(train_view.DETECT, "unigram_tokenizer.json", rp.member(*AFAAN))
    messages = drawn_ok(at)  # refused before: "the tokenizer fails on a test text ('\x00' (U+0000) has no entry ..."
    assert any("Loaded" in m and "unigram_tokenizer" in m for m in messages), messages


@pytest.fixture(scope="module")
def afaan():
    return engine.load_tokenizer("tokenizer.json", ("unigram_tokenizer.json", rp.member(*AFAAN)))


PAGES = ["views.tokenize", "views.compare", "views.chunks", "views.arena", "views.gallery", "views.tree",
         "views.steps", "views.vocab", "views.pipeline"]


@pytest.mark.parametrize("view", PAGES)
def test_a_text_it_cannot_spell_is_named_on_every_page(afaan, view):
    """The fixed texts of Arena's languages and the Gallery's demos hold commas and other scripts, which the
    file has no entry for: those pages broke ("Something went wrong") once such a file was accepted."""
    at = view_app(view, _net=True, **{state.CUSTOM: {afaan.name: afaan}, state.ENCODINGS: [afaan.name, "gpt2"],
                                      state.TOKEN_ENC: afaan.name, state.TEXT: "Akkam 日本 jirta",
                                      state.PIPE_ENCODING: afaan.name, state.CHUNK_ENCODING: afaan.name})
    at.run()
    messages = drawn_ok(at)
    if view != "views.vocab":  # the vocabulary needs no text
        named = [m for m in messages if afaan.name in m and "has no entry" in m]
        assert named and ("'日' (U+65E5)" in named[0] or "(U+002C)" in named[0]), messages


def test_arena_leaves_it_out_of_the_languages_it_cannot_spell_and_ranks_the_text_it_can(afaan):
    """Arena's 32-language heatmap raised on the first sentence with a comma, after ranking the user's text."""
    at = view_app("views.arena", _net=True, **{state.CUSTOM: {afaan.name: afaan},
                                               state.ENCODINGS: [afaan.name, "gpt2"], state.TEXT: "akkam jirta"})
    at.run()
    messages = drawn_ok(at)
    told = [m for m in messages if "left out of the languages" in m]
    assert told and afaan.name in told[0] and "(U+002C)" in told[0], messages
    assert len(at.get("vega_lite_chart")) == 2  # the ranking's bars (it is in them) and the others' heatmap
    assert afaan.name in at.get("vega_lite_chart")[0].proto.spec


@pytest.mark.parametrize(("section", "demo"), [("yours", None), ("demos", "special"), ("demos", "numbers")])
def test_the_gallery_names_what_it_left_out(afaan, section, demo):
    """The Gallery's demos and its token tax: the file is left out where it cannot spell the text, with why."""
    session = {state.CUSTOM: {afaan.name: afaan}, state.ENCODINGS: [afaan.name, "gpt2"], state.TEXT: "akkam, jirta",
               state.GALLERY_SECTION: section}
    if demo:
        session[state.GALLERY_DEMO] = demo
    at = view_app("views.gallery", _net=True, **session)
    at.run()
    messages = drawn_ok(at)
    assert any(afaan.name in m and "has no entry" in m for m in messages), messages
