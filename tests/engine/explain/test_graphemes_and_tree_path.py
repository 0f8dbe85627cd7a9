"""Grapheme-whole display units (engine.explain.compare) and one token's merge tree without the full recovery (engine.tokenizer.merges)."""
from __future__ import annotations

import random

import pytest
import regex
from hypothesis import given, settings
from hypothesis import strategies as st

import engine
from engine.explain.compare import group_tokens_reference
from tests.conftest import case_text, load_cases

NAMES = ("gpt2", "cl100k_base", "o200k_base")
HARD = "Hi 👨‍👩‍👧 👋🏽 🇯🇵🇫🇷 नमस्ते दुनिया · مرحبا بالعالم · e\u0301 \r\n 한국어 ゙"


@pytest.fixture(scope="module")
def encs():
    return {name: engine.get_encoding(name) for name in NAMES}


def toks(enc, text):
    return enc.tokenize(text, allowed_special=set(), disallowed_special=())


def bounds(text: str) -> set[int]:
    return {0} | {m.end() for m in regex.finditer(r"\X", text)}


@pytest.mark.parametrize("name", NAMES)
def test_every_unit_is_whole_graphemes(encs, name):
    units = engine.explain.compare.group_tokens(toks(encs[name], HARD), HARD)
    for u in units:
        assert u.char_start in bounds(HARD) and u.char_end in bounds(HARD), u.text
    assert "".join(u.text for u in units) == HARD
    texts = [u.text.strip() for u in units]
    assert "🇯🇵" in texts and "🇫🇷" in texts and "👋🏽" in texts  # two flags side by side: two units


def test_family_emoji_is_one_unit_with_every_id(encs):
    text = "👨‍👩‍👧"
    units = engine.explain.compare.group_tokens(toks(encs["gpt2"], text), text)
    assert [u.text for u in units] == [text]
    assert units[0].ids == tuple(encs["gpt2"].encode(text)) and len(units[0].ids) > 3


@pytest.mark.parametrize("name", NAMES)
def test_fast_grouping_matches_the_reference_on_the_corpus(encs, name):
    for case in load_cases():
        text = engine.text.repair_surrogates(case_text(case))
        tokens = toks(encs[name], text)
        assert engine.explain.compare.group_tokens(tokens, text) == group_tokens_reference(tokens, text), case["id"]


@settings(max_examples=80, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("a ́‍👩👧🇯🇵🏽नमस्ेمرحباक्ष\n")), max_size=30))
def test_grouping_matches_the_reference_on_random_mixes(text):
    tokens = toks(engine.get_encoding("gpt2"), text)
    assert engine.explain.compare.group_tokens(tokens, text) == group_tokens_reference(tokens, text)


def test_tree_of_one_token_equals_the_tree_from_all_merges():
    enc = engine.get_encoding("gpt2")
    ranks = enc.mergeable_ranks
    rng = random.Random(11)
    longest = max(ranks, key=len)
    for token_id in rng.sample(range(len(ranks)), 300) + [ranks[longest], 0, 256, 257]:
        data = enc.decode_single_token_bytes(token_id)
        assert engine.tokenizer.merges.merge_tree_of(data, ranks) == enc.merge_tree(token_id), token_id


@pytest.mark.slow
@pytest.mark.parametrize("name", ["cl100k_base", "o200k_base"])
def test_tree_of_one_token_equals_full_recovery_for_permuted_bytes(name):
    enc = engine.get_encoding(name)
    ranks = enc.mergeable_ranks
    rng = random.Random(13)
    for token_id in rng.sample(range(len(ranks)), 300):
        assert engine.tokenizer.merges.merge_tree_of(enc.decode_single_token_bytes(token_id), ranks) == enc.merge_tree(token_id)


def test_tree_of_bytes_that_are_no_token_is_a_key_error():
    with pytest.raises(KeyError):
        engine.tokenizer.merges.merge_tree_of(b"\xff\xfe not a token at all", engine.get_encoding("gpt2").mergeable_ranks)
