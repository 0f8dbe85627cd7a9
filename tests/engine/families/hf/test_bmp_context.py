"""The every-BMP-code-point helper covers each code point once per text, in every context, and names the first
code point whose ids differ."""
from __future__ import annotations

import pytest

from tests.engine.families.hf.bmp_context import (CODE_POINTS, SEGMENT, SEGMENT_LEN, assert_every_bmp_code_point,
                                                  bmp_texts)


def by_code_point(text: str) -> list[int]:
    """A toy tokenizer: one id per character, with character offsets."""
    return [ord(c) for c in text]


def reference(texts):
    return [([ord(c) for c in t], [(i, i + 1) for i in range(len(t))]) for t in texts]


def test_every_code_point_once_in_every_context():
    pairs = bmp_texts()
    assert 5 <= len(pairs) <= 10
    assert [c for block, _ in pairs for c in block] == CODE_POINTS and len(CODE_POINTS) == 0x10000 - 2048
    text = pairs[3][1]
    c = chr(pairs[3][0][5])
    for around in ("a{c}b", " {c}{c}1", "{c}\n !", "中{c}'s"):  # the contexts the per-context slow tests used
        assert around.format(c=c) in text
    assert len(text) == len(pairs[3][0]) * SEGMENT_LEN and SEGMENT.count("{c}") == 5


def test_equal_ids_pass():
    assert_every_bmp_code_point("toy", by_code_point, reference, CODE_POINTS[:20_000])


def test_the_first_differing_code_point_is_named():
    def broken(text: str) -> list[int]:
        return [0 if c in "\u0b95\u4e01" else ord(c) for c in text]  # wrong on two code points

    with pytest.raises(AssertionError, match=r"toy: ids differ .* segment of U\+0B95 .a\u0b95b "):
        assert_every_bmp_code_point("toy", broken, reference, CODE_POINTS[:20_000])


def test_a_missing_token_at_the_end_is_named():
    with pytest.raises(AssertionError, match=r"U\+FFFF"):
        assert_every_bmp_code_point("toy", lambda t: by_code_point(t)[:-1] if "\uffff" in t else by_code_point(t),
                                    reference, CODE_POINTS[-9_000:])
