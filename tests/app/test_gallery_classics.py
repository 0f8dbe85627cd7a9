"""The classic demos in AppTest: each sentence and panel carries the engine's numbers for the three encodings."""
from __future__ import annotations

import pytest
import tiktoken

from tests.conftest import run_view

import engine
from engine.explain.classics import utf_sizes
from playground.views.gallery.classics import KEYS
from playground.views.gallery.demos import DEMOS

NAMES = ["gpt2", "cl100k_base", "o200k_base"]


def gallery(demo: str):
    return run_view("views.gallery", timeout=90, gallery_demo=demo)


def finding(at) -> str:
    return next(m.value for m in at.markdown if m.value.startswith("**Measured now:**"))


@pytest.mark.parametrize("demo", KEYS)
def test_classic_renders_with_counts_and_panel(demo):
    at = gallery(demo)
    table = at.dataframe[0].value
    for name in NAMES:
        enc = engine.get_encoding(name)
        assert list(table[name]) == [len(enc.encode_ordinary(s.text)) for s in DEMOS[demo].samples]
    assert all(f"**{n}**" in finding(at) for n in NAMES)
    if demo != "yaml":
        assert len(at.dataframe) == 2  # the counts, then the classic's own panel


def test_strawberry_is_one_token_in_a_sentence():
    at = gallery("letters")
    text = finding(at)
    for name in NAMES:
        sid = engine.get_encoding(name).encode_single_token(" strawberry")
        assert f"is one id ({sid}) with all 3 inside" in text
    panel = at.dataframe[1].value
    assert set(panel[panel["Example"] == "strawberry"]["In the text"]) == {3}
    miss = panel[panel["Example"].str.startswith("Mississippi")]
    assert set(miss["Letter"]) == {"s"} and set(miss["In the text"]) == {4}


@pytest.mark.heavy
def test_trailing_space_panel_is_tiktokens_encode_with_unstable():
    at = gallery("trailing")
    panel = at.dataframe[1].value
    for name in NAMES:
        ours = engine.get_encoding(name)
        theirs = tiktoken.Encoding(name, pat_str=ours.pat_str, mergeable_ranks=dict(ours.mergeable_ranks),
                                   special_tokens=dict(ours.special_tokens))
        stable, completions = theirs.encode_with_unstable("Once upon a ")
        row = panel[panel["Encoding"] == name].iloc[0]
        assert row["Stable ids"] == " ".join(map(str, stable)) and row["Possible continuations"] == len(completions)
        assert "␣the" in row["e.g."]


def test_utf_panel_counts_code_points():
    at = gallery("utf")
    panel = at.dataframe[1].value
    emoji = panel[panel["Example"] == "Emoji"].iloc[0]
    sizes = utf_sizes("👍🏽🎉")
    assert emoji["Characters (code points)"] == 3 == sizes.code_points
    assert emoji["UTF-16 units (JavaScript length)"] == 6 and emoji["UTF-8 bytes"] == 12 and emoji["UTF-32 bytes"] == 12
