"""engine/explain/compare.py: stats, display units, boundary diff, disagreements and deltas in words."""
from __future__ import annotations

import subprocess
import sys

import pytest
import regex
from hypothesis import given, settings
from hypothesis import strategies as st

import engine
from engine.explain.compare import EncodingStats, boundary_diff, delta_sentence, delta_sentences, group_tokens, text_stats
from tests.conftest import case_text, load_cases

NAMES = ("gpt2", "cl100k_base", "o200k_base")


@pytest.fixture(scope="module")
def encs():
    return {name: engine.get_encoding(name) for name in NAMES}


def toks(enc, text):
    return enc.tokenize(text, allowed_special=set(), disallowed_special=())


# ------------------------------------------------------------------ stats
def test_stats_count_tokens_chars_and_utf8_bytes():
    s = text_stats("gpt2", "héllo 😀", 5)
    assert (s.tokens, s.chars, s.bytes) == (5, 7, 11)
    assert s.bytes_per_token == pytest.approx(11 / 5)
    assert s.chars_per_token == pytest.approx(7 / 5)


def test_stats_of_empty_text_have_zero_ratios():
    s = text_stats("gpt2", "", 0)
    assert (s.tokens, s.chars, s.bytes, s.bytes_per_token, s.chars_per_token) == (0, 0, 0, 0.0, 0.0)


def test_stats_survive_lone_surrogates():
    assert text_stats("gpt2", "a\ud800b", 3).bytes == len("a\ufffdb".encode())


# ------------------------------------------------------------------ display units
def test_emoji_split_by_gpt2_is_one_unit_with_all_ids(encs):
    units = group_tokens(toks(encs["gpt2"], "😀"))
    assert len(units) == 1
    assert units[0].text == "😀"
    assert units[0].ids == tuple(encs["gpt2"].encode("😀")) and len(units[0].ids) == 2
    assert units[0].split


def test_cjk_under_gpt2_and_cl100k(encs):
    gpt2 = group_tokens(toks(encs["gpt2"], "世界"))
    assert [u.text for u in gpt2] == ["世", "界"]
    assert all(u.split for u in gpt2)
    cl = group_tokens(toks(encs["cl100k_base"], "世界"))
    assert [u.text for u in cl] == ["世", "界"]
    assert [u.split for u in cl] == [True, False]  # cl100k_base has 界 as one token, 世 as two


def test_whole_tokens_stay_one_unit_each(encs):
    tokens = toks(encs["cl100k_base"], "hello world")
    units = group_tokens(tokens)
    assert [u.ids for u in units] == [(t.id,) for t in tokens]
    assert [(u.char_start, u.char_end, u.byte_start, u.byte_end) for u in units] == [(0, 5, 0, 5), (5, 11, 5, 11)]


def test_group_of_nothing_is_nothing():
    assert group_tokens([]) == []


@pytest.mark.parametrize("name", NAMES)
def test_units_rebuild_every_corpus_text_without_replacement_chars(encs, name):
    enc = encs[name]
    for case in load_cases():
        text = engine.text.repair_surrogates(case_text(case))
        units = group_tokens(toks(enc, text))
        assert "".join(u.text for u in units) == text, case["id"]
        assert sum(len(u.ids) for u in units) == len(case[name]), case["id"]
        for u in units:
            assert "\ufffd" not in u.text or "\ufffd" in text[u.char_start:u.char_end], case["id"]


# ------------------------------------------------------------------ boundary diff
def test_digit_groups_share_one_cut(encs):
    diff = boundary_diff({n: toks(encs[n], "1234567") for n in ("gpt2", "cl100k_base")})
    # gpt2: 123|45|67   cl100k_base: 123|456|7
    assert [(c.byte, c.char, c.by) for c in diff.shared] == [(3, 3, ("gpt2", "cl100k_base"))]
    assert [(c.byte, c.by) for c in diff.differing] == [(5, ("gpt2",)), (6, ("cl100k_base",))]
    assert diff.agreement == pytest.approx(1 / 3)
    assert diff.shared_bytes() == {3}


def test_a_cut_inside_a_character_is_not_a_cut_of_the_text(encs):
    # 'é😀' -> gpt2 [é][\xf0\x9f\x98][\x80]: one cut at byte 2 (before 😀); byte 5 is inside 😀
    diff = boundary_diff({n: toks(encs[n], "é😀") for n in ("gpt2", "cl100k_base")})
    assert [(c.byte, c.char) for c in diff.cuts] == [(2, 1)]
    assert len(diff.shared) == 1 and not diff.differing


def test_with_the_text_cuts_fall_between_graphemes(encs):
    text = "a🇯🇵b👋🏽 नमस्ते"
    ends = {m.end() for m in regex.finditer(r"\X", text)}
    diff = boundary_diff({n: toks(encs[n], text) for n in NAMES}, text)
    assert diff.cuts and all(c.char in ends for c in diff.cuts)
    for d in engine.explain.compare.disagreements({n: toks(encs[n], text) for n in NAMES}, diff, text):
        assert "\ufffd" not in d.text and d.text == text[d.char_start:d.char_end]


def test_boundary_diff_of_three_encodings(encs):
    text = "Numbers: 1234567 and 😀"
    diff = boundary_diff({n: toks(encs[n], text) for n in NAMES})
    assert diff.encodings == NAMES
    assert all(len(c.by) == 3 for c in diff.shared)
    assert all(1 <= len(c.by) < 3 for c in diff.differing)
    assert [c.byte for c in diff.cuts] == sorted({c.byte for c in diff.cuts})


def test_boundary_diff_refuses_different_texts(encs):
    with pytest.raises(ValueError, match="different texts"):
        boundary_diff({"gpt2": toks(encs["gpt2"], "abc"), "cl100k_base": toks(encs["cl100k_base"], "abcd")})


def test_empty_text_has_no_cuts(encs):
    diff = boundary_diff({n: [] for n in ("gpt2", "cl100k_base")})
    assert diff.cuts == () and diff.agreement == 1.0
    assert engine.explain.compare.disagreements({n: [] for n in ("gpt2", "cl100k_base")}) == []


@settings(max_examples=60, deadline=None)
@given(st.text(max_size=60))
def test_an_encoding_agrees_with_itself_and_cuts_cover_token_starts(text):
    enc = engine.get_encoding("cl100k_base")
    tokens = toks(enc, text)
    diff = boundary_diff({"a": tokens, "b": tokens})
    assert not diff.differing
    assert [c.byte for c in diff.shared] == [u.byte_start for u in group_tokens(tokens)[1:]]


def test_disagreements_list_the_stretches_cut_differently(encs):
    text = "Numbers: 1234567 and 😀"
    lists = {n: toks(encs[n], text) for n in ("gpt2", "cl100k_base")}
    found = engine.explain.compare.disagreements(lists)
    shown = [(d.text, {n: [u.bytes for u in d.parts[n]] for n in lists}) for d in found]
    assert shown == [
        (" 123", {"gpt2": [b" 123"], "cl100k_base": [b" ", b"123"]}),
        ("4567", {"gpt2": [b"45", b"67"], "cl100k_base": [b"456", b"7"]}),
    ]  # " 😀" is one unit in both: gpt2's cut inside 😀 is not a cut of the text


# ------------------------------------------------------------------ deltas
def _s(name, tokens):
    return EncodingStats(name, tokens, 100, 100)


@pytest.mark.parametrize("other, base, sentence", [
    (77, 100, "cl100k_base uses 23% fewer tokens than gpt2 here (77 vs 100)."),
    (115, 100, "cl100k_base uses 15% more tokens than gpt2 here (115 vs 100)."),
    (100, 100, "cl100k_base uses as many tokens as gpt2 here (100 vs 100)."),
    (1001, 1000, "cl100k_base uses slightly more tokens than gpt2 here (1,001 vs 1,000)."),
    (3, 0, "cl100k_base uses 3 tokens where gpt2 uses none."),
])
def test_delta_sentence(other, base, sentence):
    assert delta_sentence(_s("cl100k_base", other), _s("gpt2", base)) == sentence


def test_delta_sentences_compare_each_with_the_first():
    got = delta_sentences([_s("gpt2", 100), _s("cl100k_base", 80), _s("o200k_base", 75)])
    assert got == ["cl100k_base uses 20% fewer tokens than gpt2 here (80 vs 100).",
                   "o200k_base uses 25% fewer tokens than gpt2 here (75 vs 100)."]


def test_importing_engine_compare_pulls_in_no_ui_library():
    code = "import sys, engine.explain.compare; print(sorted(m for m in ('streamlit', 'pandas', 'altair') if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"
