"""AppTest of the gallery view: every demo renders, its numbers are the engine's, buttons set state."""
from __future__ import annotations

import json

import pytest
from streamlit.testing.v1 import AppTest

from tests.conftest import plain, run_view

import engine
from playground.cache import encodings
from playground.views.gallery.demos import DEMOS, languages

NAMES = ["gpt2", "cl100k_base", "o200k_base"]


def gallery(**state) -> AppTest:
    return run_view("views.gallery", timeout=60, **state)


def tokens(name: str, text: str, **kwargs) -> int:
    return len(engine.get_encoding(name).encode(text, **kwargs))


@pytest.mark.parametrize("demo", [k for k in DEMOS if k != "special"])
def test_each_demo_renders_with_engine_counts(demo):
    at = gallery(gallery_demo=demo)
    table = at.dataframe[0].value
    assert list(table["Example"]) == [s.label for s in DEMOS[demo].samples]
    for name in NAMES:
        assert list(table[name]) == [tokens(name, s.text, disallowed_special=()) for s in DEMOS[demo].samples]
    assert any(m.value.startswith("**Measured now:**") for m in at.markdown)
    assert at.button(key=f"gallery_open_tok_{demo}") and at.button(key=f"gallery_open_cmp_{demo}")


def test_languages_demo_ratio_and_provenance():
    at = gallery(gallery_demo="languages")
    table = at.dataframe[0].value
    entries = languages()["languages"]
    assert len(table) == len(entries) >= 15
    hindi = next(i for i, e in enumerate(entries) if e["code"] == "hi")
    for name in NAMES:
        en, hi = tokens(name, entries[0]["text"]), tokens(name, entries[hindi]["text"])
        assert table[f"{name} ×EN"][hindi] == round(hi / en, 2)
        assert f"Hindi {hi} ({hi / en:.1f}×)" in next(m.value for m in at.markdown if "Measured now" in m.value)
    assert all("gtk30" in s for s in table["Source"])
    assert any("libgtk-3-common" in c.value for c in at.caption)


def test_whitespace_demo_shows_ids():
    at = gallery(gallery_demo="whitespace")
    table = at.dataframe[0].value
    gpt2 = engine.get_encoding("gpt2")
    for sample, ids in zip(DEMOS["whitespace"].samples, table["gpt2 ids"]):
        assert ids == " ".join(map(str, gpt2.encode(sample.text)))


def test_special_demo_shows_tiktoken_refusal():
    at = gallery(gallery_demo="special")
    table = at.dataframe[0].value
    text = DEMOS["special"].samples[0].text
    row = table[(table["Encoding"] == "gpt2") & (table["Example"] == text)]
    as_text, as_special, refused = list(row["Tokens"])
    assert as_text == tokens("gpt2", text, disallowed_special=())
    assert as_special == tokens("gpt2", text, allowed_special="all") == 3
    assert refused != refused  # NaN: no count when refused
    assert any("disallowed special token '<|endoftext|>'" in c.value for c in at.code)


def test_open_buttons_set_text_and_encodings():
    at = gallery(gallery_demo="numbers")
    at.selectbox(key="gallery_pick_numbers").set_value(4).run()
    at.button(key="gallery_open_cmp_numbers").click().run()
    assert not at.exception
    assert at.session_state["text"] == DEMOS["numbers"].samples[4].text
    assert at.session_state["encodings"] == NAMES

    at = gallery(gallery_demo="special")
    at.button(key="gallery_open_tok_special").click().run()
    assert at.session_state["text"] == DEMOS["special"].samples[0].text
    assert at.session_state["special_policy"] == "special"


def test_custom_tokenizer_joins_the_demos():
    gpt2 = engine.get_encoding("gpt2")
    mine = engine.Encoding("my_bytes", pat_str=gpt2.pat_str, special_tokens={},
                           mergeable_ranks={bytes([i]): i for i in range(256)})
    at = gallery(gallery_demo="code", custom_encodings={"my_bytes": mine})
    table = at.dataframe[0].value
    assert list(table["my_bytes"]) == [len(s.text.encode("utf-8")) for s in DEMOS["code"].samples]


def test_your_text_tax_and_budget():
    text = "Hello world, привет мир! नमस्ते 2026"
    at = gallery(gallery_section="yours", text=text, special_policy="text")
    tax, budget = at.dataframe[0].value, at.dataframe[1].value
    assert set(tax["Script"]) == {"Latin", "Cyrillic", "Devanagari", "Common"}
    assert tax["Chars"].sum() == len(text)
    for name in NAMES:
        assert tax[f"{name} tokens"].sum() == pytest.approx(tokens(name, text))
    assert list(budget["Tokens"]) == [tokens(n, text) for n in NAMES]
    # thousands separators, as the chart writes them (the table showed 7534 beside the chart's 7,534)
    formats = json.loads(at.dataframe[1].proto.columns)
    assert formats["Tokens"]["type_config"]["format"] == "localized" == formats["Copies that fit"]["type_config"]["format"]
    # a 10-token context and a price of 2 per million tokens
    at.number_input(key="gallery_context").set_value(10).run()
    at.number_input(key="gallery_price").set_value(2.0).run()
    budget = at.dataframe[1].value
    for name, share, cost in zip(NAMES, budget["Share of context %"], budget["Cost"]):
        assert share == round(100 * tokens(name, text) / 10, 2)
        assert cost == pytest.approx(tokens(name, text) * 2 / 1_000_000)
    at.pills(key="gallery_context_preset").set_value("200k").run()
    assert at.number_input(key="gallery_context").value == 200_000


def test_your_text_is_the_live_box():
    """The gallery's box is Tokenize's live box (no Ctrl+Enter), labelled for this page; the text it
    reports is the app's text (the browser test types into it)."""
    import json

    at = gallery(gallery_section="yours", text="Ελληνικά κείμενα")
    assert not at.text_area  # the old box committed only on Ctrl+Enter
    live = [c.proto for c in at.get("bidi_component") if c.proto.id.endswith("-live_text")]
    assert len(live) == 1 and json.loads(live[0].json)["label"] == "Your text"
    assert set(at.dataframe[0].value["Script"]) == {"Greek", "Common"}


def test_refused_special_tokens_say_the_fix():
    at = gallery(gallery_section="yours", text="a<|endoftext|>b", special_policy="refuse")
    assert at.error and "sidebar" in plain(at.error[0].value) and "disallowed special token" in plain(at.error[0].value)


def test_long_text_is_capped_with_a_note(monkeypatch):
    """The cap at a small DRAW_LIMIT: the same code path as 100,000 characters, without drawing them (24 s -> 2 s;
    texts past INLINE_CHARS go to jobs, which test_budget_chunks and the job tests cover)."""
    monkeypatch.setattr(encodings, "DRAW_LIMIT", 2_000)
    text = "Привет, мир! " * 200  # 2,600 characters: over the 2,000 drawn
    at = gallery(gallery_section="yours", text=text, special_policy="text")
    assert any("first 2,000 characters" in i.value for i in at.info)
    assert at.dataframe[0].value["Chars"].sum() == 2_000
    assert list(at.dataframe[1].value["Tokens"]) == [tokens(n, text) for n in NAMES]
