"""The classic demos' measurements: letters in tokens, reversal, trailing space (tiktoken's unstable end), UTF sizes."""
from __future__ import annotations

import pytest
import tiktoken
from hypothesis import given
from hypothesis import strategies as st

import engine
from engine.explain.classics import letters_per_token, reverse_tokens, trailing_space, utf_sizes


@pytest.mark.parametrize("name", ["gpt2", "cl100k_base", "o200k_base"])
def test_strawberry_letters_add_up(name):
    enc = engine.get_encoding(name)
    tokens = enc.decode_tokens_bytes(enc.encode_ordinary("strawberry"))
    counts = letters_per_token(tokens, "r")
    assert sum(counts) == 3 and len(counts) == len(tokens) == 3
    in_a_sentence = enc.decode_tokens_bytes(enc.encode_ordinary(" strawberry"))
    assert letters_per_token(in_a_sentence, "r") == [3]  # one id holds all three r's
    assert letters_per_token([b"Rr", b"x"], "R") == [2, 0]
    with pytest.raises(ValueError, match="letter"):
        letters_per_token(tokens, "")


def test_reversal_is_not_reversed_tokens():
    enc = engine.get_encoding("cl100k_base")
    r = reverse_tokens(enc, "tokenization")
    assert r.reversed_text == "noitazinekot"
    assert enc.decode(list(r.reversed_text_ids)) == "noitazinekot"
    assert r.reversed_ids_text == enc.decode(enc.encode_ordinary("tokenization")[::-1])
    assert r.reversed_ids_text != r.reversed_text
    assert len(r.reversed_text_ids) > len(r.ids)


@pytest.mark.parametrize("name", ["gpt2", "cl100k_base", "o200k_base"])
def test_trailing_space_equals_tiktoken(name):
    ours = engine.get_encoding(name)
    theirs = tiktoken.Encoding(name, pat_str=ours.pat_str, mergeable_ranks=dict(ours.mergeable_ranks),
                               special_tokens=dict(ours.special_tokens))
    t = trailing_space(ours, "Once upon a")
    stable, completions = theirs.encode_with_unstable("Once upon a ")
    assert list(t.stable) == stable and t.n_completions == len(completions)
    assert t.ids_with_space[-1] == ours.encode_single_token(" ")  # the lone space is the last token
    assert t.ids == tuple(theirs.encode_ordinary("Once upon a"))
    assert b" time" in {theirs.decode_bytes(c) for c in completions}
    assert all(c.startswith(b" ") for c in t.completions)


def test_trailing_space_needs_encode_with_unstable():
    class NoUnstable:
        pass
    assert trailing_space(NoUnstable(), "x") is None


@given(st.text())
def test_utf_sizes(text):
    s = utf_sizes(text)
    assert s.code_points == len(text)
    assert s.utf32_bytes == 4 * len(text)
    assert s.utf16_bytes == 2 * s.utf16_units
    assert s.utf16_units == len(text) + sum(ord(c) > 0xFFFF for c in text)


def test_utf_sizes_of_an_emoji():
    s = utf_sizes("👍🏽")
    assert (s.code_points, s.utf16_units, s.utf8_bytes, s.utf16_bytes, s.utf32_bytes) == (2, 4, 8, 8, 8)
