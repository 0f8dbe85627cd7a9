"""engine.tokenizer.special_tokens: the shared allowed/disallowed check, against its plain reference and on every family."""
from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import engine
from engine.tokenizer.special_tokens import SpecialTokens, first_disallowed, special_regex

TOKENS = ["<a>", "<ab>", "<abc>", "b>", "<|x|>", "x"]


def reference(text: str, disallowed: frozenset[str]) -> str | None:
    """The plain search: one pattern of the disallowed tokens, leftmost then longest."""
    hit = special_regex(disallowed).search(text)
    return hit.group() if hit is not None else None


@settings(max_examples=300, deadline=None)
@given(
    text=st.lists(st.sampled_from(TOKENS + ["a", "b", "<", ">", " "]), max_size=12).map("".join),
    every=st.sets(st.sampled_from(TOKENS), min_size=1),
    allowed=st.sets(st.sampled_from(TOKENS)),
    extra=st.sets(st.sampled_from(["ab", "c", "<x"]), max_size=2),
    long_text=st.booleans(),
)
def test_first_disallowed_equals_the_plain_search(text, every, allowed, extra, long_text):
    every = frozenset(every)
    disallowed = (every - allowed) | frozenset(extra)
    if long_text:  # past the substring-search limit: the pattern of the disallowed tokens is used
        text = "." * 1_000_000 + text
    if disallowed:
        assert first_disallowed(text, disallowed, every, special_regex) == reference(text, disallowed)


class _Specials(SpecialTokens):
    def __init__(self, special: dict[str, int]) -> None:
        self._special = special
        self._special_ids = frozenset(special.values())


def test_mixin_api():
    enc = _Specials({"<a>": 5, "<ab>": 6})
    assert dict(enc.special_tokens) == {"<a>": 5, "<ab>": 6}
    with pytest.raises(TypeError):
        enc.special_tokens["<c>"] = 7  # type: ignore[index]  # read-only
    assert enc.special_tokens_set == {"<a>", "<ab>"}
    assert enc.is_special_token(6) and not enc.is_special_token(7)
    assert enc._allowed("x<ab>", "all", "all") == {"<a>", "<ab>"}
    assert enc._allowed("x<a>", {"<a>", "<c>"}, "all") == {"<a>"}  # only real special tokens come back
    with pytest.raises(engine.DisallowedSpecialTokenError) as info:
        enc._allowed("x<a> <ab>", {"<a>"}, "all")  # an allowed token does not hide a later disallowed one
    assert info.value.token == "<ab>"
    assert enc._allowed("x<ab>", frozenset(), ()) == frozenset()


@pytest.mark.parametrize("name", ["cl100k_base", "llama3", "mistral-v3", "deepseek-v4"])
def test_every_family_refuses_and_allows_alike(name):
    enc = engine.get_encoding(name)
    token = sorted(enc.special_tokens)[0]
    with pytest.raises(engine.DisallowedSpecialTokenError, match="allowed_special") as info:
        enc.encode("hi " + token)
    assert info.value.token == token
    assert enc.encode(token, allowed_special={token}) == [enc.special_tokens[token]]
    assert enc.encode(token, disallowed_special=()) == enc.encode_ordinary(token)
    assert enc.special_tokens_set == set(enc.special_tokens)
    assert enc.is_special_token(enc.special_tokens[token])
