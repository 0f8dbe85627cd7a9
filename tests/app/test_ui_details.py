"""Details of Tokenize and the sidebar, without a browser: the big button acts on the pinned token,
one character count, the space marker the help names is the one drawn, the README's drawing limit
is the app's, the sidebar's Encodings box finds an encoding by model name.

Their browser halves (the pin itself, the text box's counter, tokens kept whole in narrow columns,
Arabic's face, the Back button) are in tests/browser/test_ui_details.py.
"""
from __future__ import annotations

import re
from pathlib import Path

import pytest

import engine
from tests.conftest import run_view
from playground import state
from playground.cache import render_cache
from playground.render import html
from playground.render.gallery import gallery_chip_text

README = Path(__file__).resolve().parents[2] / "README.md"
SGM = " SolidGoldMagikarp"


# ------------------------------------------------------------------ item 7
def test_open_merge_tree_opens_the_pinned_token():
    """Pinning ␣SolidGoldMagikarp chooses it (token_links sets the shared token); the "Explain a token"
    box then shows it and "Open its merge tree →" opens it, not the box's first token "The"."""
    enc = engine.get_encoding("gpt2")
    sgm = enc.encode(SGM)[0]
    at = run_view("views.tokenize", **{state.TEXT: "The" + SGM + " is here", state.ENCODINGS: ["gpt2"]})
    assert at.selectbox(key="tok_pick").value == enc.encode("The")[0]  # nothing chosen yet: the first token
    # what the pin does on the server (token_links._opened on a "pin" event): the shared chosen token
    at.session_state[state.TOKEN_ENC] = "gpt2"
    at.session_state[state.TOKEN_ID] = sgm
    at.run()
    assert at.selectbox(key="tok_pick").value == sgm
    at.button(key="tok_open_tree").click().run()
    assert at.session_state[state.TOKEN_ID] == sgm
    assert at.session_state[state.TOKEN_ENC] == "gpt2"


def test_a_pin_event_chooses_the_token():
    """The component's "pin" trigger (token_links.js) sets the shared token, and nothing else."""
    from playground.components import token_links

    calls = []
    session: dict = {token_links.KEY: {"pin": {"id": 43453, "enc": "gpt2"}}}
    token_links.pinned(session, lambda enc, tid: calls.append((enc, tid)))
    assert calls == [("gpt2", 43453)]
    for bad in ({"pin": {"id": "x", "enc": "gpt2"}}, {"pin": None}, {"open": {"page": "tree"}}, None):
        calls.clear()
        token_links.pinned({token_links.KEY: bad}, lambda enc, tid: calls.append((enc, tid)))
        assert calls == []


# ------------------------------------------------------------------ item 9
def test_characters_metric_says_what_it_counts():
    text = "Wave 👋🏽 and 𝔘𝔫𝔦 🇯🇵"
    at = run_view("views.tokenize", **{state.TEXT: text, state.ENCODINGS: ["gpt2"]})
    chars = next(m for m in at.metric if m.label == "Characters")
    assert chars.value == f"{len(text):,}"  # code points (len of a Python str)
    assert "code point" in (chars.help or "")


# ------------------------------------------------------------------ item 12
def test_space_marker_in_help_is_the_drawn_one():
    """The help texts name ␣ (html.SPACE), the glyph the token views draw; none names ·."""
    at = run_view("views.tokenize", **{state.TEXT: "a b", state.ENCODINGS: ["gpt2"]})
    help_text = at.toggle(key=state.SHOW_WS).help
    assert html.SPACE in help_text and "·" not in help_text
    assert html.SPACE in html.show_whitespace(" ")

    from playground.views import gallery as gallery_view

    assert gallery_view._shown("a b") == f"a{html.SPACE}b"
    source = (Path(gallery_view.__file__)).read_text(encoding="utf-8")
    assert "· is a space" not in source and "{html.SPACE} is a space" in source  # the caption's f-string
    assert html.SPACE in gallery_chip_text(b" a")


def test_no_help_text_names_the_dot_as_a_space():
    playground = Path(html.__file__).parents[1]
    offenders = []
    for path in playground.rglob("*.py"):
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if re.search(r"·[^\"']{0,12}\b(is a |for |as )?space|space[^\"']{0,12}·|replace\(\" \", \"·\"\)", line):
                offenders.append(f"{path.name}:{n}: {line.strip()}")
    assert offenders == []


# ------------------------------------------------------------------ item 13 (parts)
def test_readme_states_the_drawing_limit_the_app_uses():
    row = next(line for line in README.read_text(encoding="utf-8").splitlines()
               if line.startswith("| the text box (Tokenize, Compare)"))
    assert f"tokens drawn for the first {render_cache.DRAWN_CHARS:,}" in row, row


def test_long_text_says_how_much_is_drawn():
    text = "strawberry " * 1_000  # 11,000 characters
    at = run_view("views.tokenize", **{state.TEXT: text, state.ENCODINGS: ["gpt2"]})
    assert any(f"first {render_cache.DRAWN_CHARS:,} of {len(text):,}" in i.value for i in at.info)


def matches(query: str, label: str) -> bool:
    """The box's filter (Streamlit's "fuzzy" mode): the query's characters in order, any case."""
    rest = iter(label.lower())
    return all(ch in rest for ch in query.lower())


@pytest.mark.parametrize("model, name", [("gpt-4o", "o200k_base"), ("Llama 3.1", "llama3"), ("gpt-oss", "o200k_harmony")])
def test_encodings_box_finds_a_model_name(model, name):
    """Typing "gpt-4o" in the sidebar's Encodings box filters its options by their labels: each label
    names the models that use the encoding."""
    at = run_view("views.tokenize", **{state.TEXT: "a", state.ENCODINGS: ["gpt2"]})
    box = at.multiselect(key=state.ENCODINGS)
    label = next(o for o in box.options if o.split(" ")[0] == name)
    assert matches(model, label), label
    assert model.lower() not in name.lower()  # found by the model, not by the encoding's name
    box.select(name).run()
    assert name in at.session_state[state.ENCODINGS]
