"""Train your own's Algorithm choice: parity-aware BPE (the per-language table) and WordPiece, in AppTest."""
from __future__ import annotations

import json

from streamlit.testing.v1 import AppTest

from tests.conftest import plain, run_view


def train_app(**session) -> AppTest:
    return run_view("views.train", timeout=90, **session)


def choose(at: AppTest, algorithm: str) -> AppTest:
    at.segmented_control(key="train_algorithm").set_value(algorithm).run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def test_the_choice_names_each_reference_and_keeps_byte_level_bpe_as_it_was():
    at = train_app()
    assert at.segmented_control(key="train_algorithm").value == "Byte-level BPE"
    assert "minbpe" in at.caption[0].value
    assert at.button(key="train_go")  # the view's own form
    choose(at, "Parity-aware BPE")
    assert "ParityBpeTrainer" in at.caption[0].value
    assert not [b for b in at.button if b.key == "train_go"]
    choose(at, "WordPiece")
    assert "WordPieceTrainer" in at.caption[0].value


def test_parity_table_and_its_tokenizer_in_every_view():
    at = choose(train_app(), "Parity-aware BPE")
    assert at.segmented_control(key="lab_source").value == "The Arena's translations"
    assert len(at.multiselect(key="lab_languages").value) == 32
    at.number_input(key="lab_vocab").set_value(400)
    at.button(key="lab_go").click().run()
    assert not at.exception, [e.value for e in at.exception]
    message = plain(at.success[0].value)
    assert "learned 144 merges on 32 languages" in message
    name = message.split("**")[1]
    assert name.startswith("parity-bpe-400-")
    metrics = {m.label: m.value for m in at.metric}
    assert float(metrics["Gini, parity-aware"]) < float(metrics["Gini, plain BPE"])
    assert metrics["Gini fell by"].endswith("%")
    table = at.dataframe[0].value
    assert list(table.columns) == ["language", "bytes", "plain BPE", "parity-aware", "change"]
    assert len(table) == 32 and table.iloc[0]["language"] == "English"
    assert (table["parity-aware"] <= table["bytes"]).all() and table["parity-aware"].sum() < table["bytes"].sum()
    assert "Foroutan" in " ".join(c.value for c in at.caption)

    at.button(key="lab_use").click().run()
    assert not at.exception, [e.value for e in at.exception]
    assert name in at.session_state["encodings"]
    for view in ("views.tokenize", "views.compare", "views.vocab"):
        at.session_state["_view"] = view
        at.run()
        assert not at.exception, (view, [e.value for e in at.exception])


def test_parity_on_own_texts_needs_two_filled_languages():
    at = choose(train_app(), "Parity-aware BPE")
    at.segmented_control(key="lab_source").set_value("My own texts").run()
    assert at.button(key="lab_go").disabled
    at.text_area(key="lab_own_text_0").set_value("the cat sat on the mat " * 5)
    at.text_area(key="lab_own_text_1").set_value("le chat était assis sur le tapis " * 5)
    at.text_input(key="lab_own_name_1").set_value("French").run()
    at.number_input(key="lab_vocab").set_value(280)
    at.button(key="lab_go").click().run()
    assert not at.exception, [e.value for e in at.exception]
    table = at.dataframe[0].value
    assert list(table["language"]) == ["Language 1", "French"]


def test_wordpiece_trains_on_the_text_box_and_is_usable():
    at = choose(train_app(), "WordPiece")
    assert at.text_area(key="train_text").value.startswith("Byte pair encoding")
    at.number_input(key="lab_vocab").set_value(300)
    at.button(key="lab_go").click().run()
    assert not at.exception, [e.value for e in at.exception]
    # the sample text has fewer than 300 pieces to make: the result says it stopped early, in a warning
    message = plain(at.warning[0].value)
    assert "stopped early: no pair left" in message
    name = message.split("**")[1]
    assert name.startswith("wordpiece-201-")
    tokens = list(at.dataframe[0].value["token"])
    assert tokens[0] == "[UNK]" and any(t.startswith("##") for t in tokens)
    at.button(key="lab_use").click().run()
    assert not at.exception, [e.value for e in at.exception]
    assert name in at.session_state["encodings"]
    at.session_state["_view"] = "views.tokenize"
    at.run()
    assert not at.exception, [e.value for e in at.exception]


def test_a_share_link_opens_the_chosen_algorithm_and_settings():
    query = {"v.train_algorithm": json.dumps("Parity-aware BPE"), "v.lab_source": json.dumps("My own texts"),
             "v.lab_vocab": json.dumps(300)}
    at = run_view("views.train", query=query, _net=True)
    assert at.segmented_control(key="train_algorithm").value == "Parity-aware BPE"
    assert at.segmented_control(key="lab_source").value == "My own texts"
    assert at.number_input(key="lab_vocab").value == 300
