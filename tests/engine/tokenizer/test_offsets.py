"""pretokenize/tokenize return offsets consistent with the text and ids equal to encode's."""
from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import engine
from tests.conftest import case_text, load_cases

ENCODINGS = ["gpt2", "cl100k_base", "o200k_base"]
TEXT = st.text(alphabet=st.characters(codec="utf-8"), max_size=80) | st.sampled_from(
    ["Hello 世界 😀 こんにちは 안녕 👍🏽", "a<|endoftext|>b", "x\r\n\r\n  y\t\tz", "👨‍👩‍👧‍👦🇯🇵", "1234567.89"])


def check_offsets(enc: engine.Encoding, text: str, **kwargs) -> None:
    pieces = enc.pretokenize(text, **kwargs)
    tokens = enc.tokenize(text, **kwargs)
    data = text.encode("utf-8")
    assert "".join(p.text for p in pieces) == text
    pos = bpos = 0
    for i, p in enumerate(pieces):
        assert p.index == i and p.char_start == pos and p.text == text[p.char_start : p.char_end]
        assert p.byte_start == bpos and data[p.byte_start : p.byte_end] == p.text.encode("utf-8")
        pos, bpos = p.char_end, p.byte_end
    assert [t.id for t in tokens] == enc.encode(text, **kwargs)
    assert b"".join(t.bytes for t in tokens) == data
    bpos = 0
    for t in tokens:
        assert t.byte_start == bpos and data[t.byte_start : t.byte_end] == t.bytes
        bpos = t.byte_end
        covered = text[t.char_start : t.char_end].encode("utf-8")
        assert t.bytes in covered
        piece = pieces[t.piece_index]
        assert piece.byte_start <= t.byte_start and t.byte_end <= piece.byte_end
        assert t.partial == (covered != t.bytes)


@pytest.mark.parametrize("name", ENCODINGS)
@settings(max_examples=150, deadline=None)
@given(text=TEXT)
def test_offsets_are_consistent(name, text):
    check_offsets(engine.get_encoding(name), text, allowed_special="all")


@pytest.mark.parametrize("name", ENCODINGS)
def test_offsets_on_corpus(name):
    enc = engine.get_encoding(name)
    for case in load_cases():
        text = engine.text.repair_surrogates(case_text(case))
        check_offsets(enc, text, disallowed_special=())


def test_emoji_under_gpt2_is_split_and_marked_partial():
    enc = engine.get_encoding("gpt2")
    tokens = enc.tokenize("a😀")
    emoji = [t for t in tokens if t.char_start == 1]
    assert len(emoji) >= 2 and all(t.partial and t.char_end == 2 for t in emoji)
    assert b"".join(t.bytes for t in emoji) == "😀".encode()
    assert not any(t.is_valid_utf8 for t in emoji)


def test_special_tokens_are_pieces_of_their_own():
    enc = engine.get_encoding("cl100k_base")
    pieces = enc.pretokenize("hi<|endoftext|>there", allowed_special="all")
    assert [(p.text, p.special) for p in pieces] == [("hi", False), ("<|endoftext|>", True), ("there", False)]
    tokens = enc.tokenize("hi<|endoftext|>there", allowed_special="all")
    assert [t.special for t in tokens] == [False, True, False] and tokens[1].id == 100257
    with pytest.raises(ValueError, match="disallowed special token"):
        enc.pretokenize("<|endoftext|>")


def test_cl100k_groups_digits_and_gpt2_does_not():
    assert [p.text for p in engine.get_encoding("cl100k_base").pretokenize("1234567")] == ["123", "456", "7"]
    assert [p.text for p in engine.get_encoding("gpt2").pretokenize("1234567")] == ["1234567"]
