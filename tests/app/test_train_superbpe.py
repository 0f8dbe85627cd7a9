"""Train your own, SuperBPE: the form, plain BPE vs SuperBPE on held-out text, the superwords, and "use it"."""
from __future__ import annotations

import json

from streamlit.testing.v1 import AppTest

from tests.conftest import page_messages, plain, run_view

from engine.training import lab
from playground.views.train import SAMPLE_TEXT

TEXT = SAMPLE_TEXT * 3  # 4,356 characters: full vocabulary at 400, superwords in the held-out tenth


def superbpe_app(text: str) -> AppTest:
    at = run_view("views.train", timeout=90, train_text=text)
    at.segmented_control(key="train_algorithm").set_value("SuperBPE").run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def test_superbpe_compares_with_plain_bpe_on_held_out_text_and_is_usable():
    at = superbpe_app(TEXT)
    assert "Liu et al" in at.caption[0].value and "tokenizers-superbpe" in at.caption[0].value
    assert at.slider(key="lab_transition").value == 80
    at.number_input(key="lab_vocab").set_value(400)
    at.slider(key="lab_transition").set_value(70).run()
    assert "Stage 1: 24 merges" in " ".join(c.value for c in at.caption)  # 70% of 400 = 280 tokens: 24 merges
    at.button(key="lab_go").click().run()
    assert not at.exception, [e.value for e in at.exception]
    message = plain(at.success[0].value)
    assert "(24 in stage 1" in message, message
    name = message.split("**")[1]
    assert name.startswith("superbpe-")
    metrics = {m.label: m.value for m in at.metric}
    expected = lab.train_superbpe_lab(TEXT, 400, 0.7).superbpe  # the page shows the engine's numbers
    assert metrics["Plain BPE"] == f"{expected.plain_bytes_per_token:.2f}"
    assert metrics["SuperBPE"] == f"{expected.super_bytes_per_token:.2f}"
    # the sample text repeats itself: the page says its held-out tenth is not really held out
    assert any("numbers are in-sample" in m for m in page_messages(at))
    assert int(metrics["Superwords"]) > 0 and metrics["Transition t"] == "24"
    assert any("held-out last tenth" in c.value for c in at.caption)
    sample = [m.value for m in at.markdown if m.value.startswith("<div class=\"gchips tsteps-text superbpe-sample")]
    assert sample and 'class="tok superword"' in sample[0]
    words = at.dataframe[0].value
    assert list(words.columns) == ["id", "superword", "bytes"] and len(words) == int(metrics["Superwords"])

    at.button(key="lab_use").click().run()
    assert not at.exception, [e.value for e in at.exception]
    assert name in at.session_state["encodings"]
    at.session_state["_view"] = "views.tokenize"
    at.run()
    assert not at.exception, [e.value for e in at.exception]


def test_a_text_too_short_to_hold_out_says_so():
    at = superbpe_app("the cat sat on the mat")
    at.button(key="lab_go").click().run()
    assert not at.exception, [e.value for e in at.exception]
    assert any("give at least 200 characters" in m for m in page_messages(at)), page_messages(at)


def test_a_share_link_opens_superbpe_with_its_transition():
    query = {"v.train_algorithm": json.dumps("SuperBPE"), "v.lab_transition": json.dumps(90)}
    at = run_view("views.train", query=query, _net=True)
    assert at.segmented_control(key="train_algorithm").value == "SuperBPE"
    assert at.slider(key="lab_transition").value == 90
