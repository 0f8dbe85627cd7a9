"""engine.explain.arena: ranking many tokenizers on one text (fast = reference), aliases, the language matrix."""
from __future__ import annotations

import pytest
from hypothesis import given, settings, strategies as st

import engine
from engine.explain.arena import (
    distinct_encodings,
    language_matrix,
    language_samples,
    rank_counts,
    rank_counts_reference,
    rank_encodings,
)

NAMES = ("gpt2", "cl100k_base", "o200k_base", "llama3", "mistral-v3", "deepseek-v4")


@pytest.fixture(scope="module")
def encs():
    return [engine.get_encoding(n) for n in NAMES]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.integers(0, 6), max_size=9), st.text(max_size=20))
def test_rank_counts_equals_reference(counts, text):
    pairs = [(f"t{i}", n) for i, n in enumerate(counts)]
    assert rank_counts(pairs, text) == rank_counts_reference(pairs, text)


def test_ties_share_a_rank_and_the_next_skips():
    ranked = rank_counts([("a", 5), ("b", 3), ("c", 5), ("d", 3), ("e", 9)], "hello")
    assert [(e.name, e.rank) for e in ranked] == [("b", 1), ("d", 1), ("a", 3), ("c", 3), ("e", 5)]
    assert [e.ratio for e in ranked] == [1.0, 1.0, 5 / 3, 5 / 3, 3.0]


def test_entry_numbers(encs):
    text = "Привет, мир! 👋🏽 naïve"
    ranked = rank_encodings(text, encs, allowed_special=set(), disallowed_special=())
    assert sorted(e.name for e in ranked) == sorted(NAMES)
    by = {e.name: e for e in ranked}
    for enc in encs:
        e = by[enc.name]
        assert e.tokens == len(enc.encode(text))
        assert e.chars == len(text) and e.bytes == len(text.encode("utf-8"))
        assert e.chars_per_token == pytest.approx(len(text) / e.tokens)
        assert e.bytes_per_token == pytest.approx(e.bytes / e.tokens)
    assert ranked[0].ratio == 1.0 and ranked[0].rank == 1
    assert [e.tokens for e in ranked] == sorted(e.tokens for e in ranked)
    assert by["gpt2"].rank == len(NAMES)  # GPT-2 spends the most on Cyrillic and emoji


def test_empty_text_ranks_everyone_first(encs):
    ranked = rank_encodings("", encs)
    assert {(e.rank, e.ratio, e.chars_per_token) for e in ranked} == {(1, 1.0, 0.0)}


def test_special_policy_is_passed_on():
    enc = engine.get_encoding("cl100k_base")
    with pytest.raises(ValueError, match="disallowed special token"):
        rank_encodings("<|endoftext|>", [enc])
    assert rank_encodings("<|endoftext|>", [enc], allowed_special="all")[0].tokens == 1


def test_r50k_is_counted_once():
    encs = [engine.get_encoding(n) for n in engine.list_tokenizer_names()]
    kept, aliases = distinct_encodings(encs)
    assert aliases == {"r50k_base": "gpt2"}
    assert [e.name for e in kept] == [n for n in engine.list_tokenizer_names() if n != "r50k_base"]


def test_language_matrix(encs):
    samples = language_samples()
    assert samples[0].code == "en" and len(samples) >= 30
    matrix = language_matrix(encs)
    assert matrix.encodings == NAMES and len(matrix.tokens) == len(samples)
    cells = {(c.code, c.encoding): c for c in matrix.cells()}
    assert len(cells) == len(samples) * len(NAMES)
    for enc in encs:
        for s in samples[:: 7]:
            assert cells[(s.code, enc.name)].tokens == len(enc.encode_ordinary(s.text))
        assert cells[("en", enc.name)].vs_english == 1.0
        assert cells[("ta", enc.name)].vs_english == cells[("ta", enc.name)].tokens / cells[("en", enc.name)].tokens
    for s in samples:
        row = [cells[(s.code, n)] for n in NAMES]
        assert min(c.vs_best for c in row) == 1.0
    worst = {c.encoding: c for c in matrix.worst()}
    assert worst["gpt2"].code not in ("en", "de", "fr")
    assert worst["gpt2"].vs_english == max(cells[(s.code, "gpt2")].vs_english for s in samples)


def test_language_matrix_reference_must_exist(encs):
    with pytest.raises(ValueError, match="as `reference`"):
        language_matrix(encs[:1], reference="xx")
