"""Our ids equal tiktoken's (the oracle, built from our shipped ranks) on generated text."""
from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import engine
from engine.tokenizer.patterns import DATA_DIR
from tests.oracles.oracle import reference

ENCODINGS = ["gpt2", "cl100k_base", "o200k_base"]

# Text that stresses the split patterns: letters of many scripts and cases, digits, marks,
# apostrophes, whitespace of every kind, newlines, punctuation and the special-token look-alikes.
ALPHABET = st.one_of(
    st.characters(codec="utf-8"),
    st.sampled_from(list(" \t\n\r\x0b\x0c\u00a0\u2028\u3000'’sStTdDmMlLvVrReE0123456789/<|>_-.,!?")),
    st.sampled_from(["<|endoftext|>", "<|fim_prefix|>", "'ll", "'VE", " ", "  ", "\n\n", "\r\n", "👍🏽", "ʕ", "ſ"]),
)
TEXT = st.lists(ALPHABET, max_size=60).map("".join)


@pytest.mark.parametrize("name", ENCODINGS)
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=TEXT)
def test_generated_text_matches_tiktoken(name, text):
    ours, theirs = engine.get_encoding(name), reference(name)
    assert ours.encode_ordinary(text) == theirs.encode_ordinary(text)
    assert ours.encode(text, allowed_special="all") == theirs.encode(text, allowed_special="all")


@pytest.mark.parametrize("name", ENCODINGS)
@settings(max_examples=100, deadline=None)
@given(text=st.text(alphabet=st.characters(codec="utf-8", exclude_categories=["Cs"]), max_size=40),
       surrogates=st.lists(st.integers(0xD800, 0xDFFF), max_size=3))
def test_surrogates_match_tiktoken(name, text, surrogates):
    text = text + "".join(map(chr, surrogates)) + text[:3]
    assert engine.get_encoding(name).encode(text) == reference(name).encode(text)


def _contexts(chars: list[str]) -> str:
    # each character alone, after a letter, before a letter, after a space, twice, next to a digit and an apostrophe
    return "".join(f"{c} a{c}b {c}{c}'s 1{c}2\n" for c in chars)


def _unicode16_code_points() -> list[int]:
    ranges = json.loads((DATA_DIR / "unicode16_fixes.json").read_text())["ranges"]
    return [cp for first, last, _ in ranges for cp in range(first, last + 1)]


@pytest.mark.parametrize("name", ENCODINGS)
def test_code_points_newer_than_unicode16_match_tiktoken(name):
    """Characters whose class changed after Unicode 16.0 split as in tiktoken (Rust, Unicode 16)."""
    ours, theirs = engine.get_encoding(name), reference(name)
    cps = _unicode16_code_points()
    for i in range(0, len(cps), 2000):
        text = _contexts([chr(c) for c in cps[i : i + 2000]])
        assert ours.encode_ordinary(text) == theirs.encode_ordinary(text), f"block starting U+{cps[i]:04X}"


@pytest.mark.parametrize("name", ENCODINGS)
def test_every_bmp_character_in_context_matches_tiktoken(name):
    ours, theirs = engine.get_encoding(name), reference(name)
    cps = [c for c in range(0x10000) if not 0xD800 <= c <= 0xDFFF]
    for i in range(0, len(cps), 4096):
        text = _contexts([chr(c) for c in cps[i : i + 4096]])
        assert ours.encode_ordinary(text) == theirs.encode_ordinary(text), f"block starting U+{cps[i]:04X}"


@pytest.mark.slow
@pytest.mark.parametrize("name", ENCODINGS)
def test_every_code_point_in_context_matches_tiktoken(name):
    ours, theirs = engine.get_encoding(name), reference(name)
    cps = [c for c in range(0x10000, 0x110000)]
    for i in range(0, len(cps), 8192):
        text = _contexts([chr(c) for c in cps[i : i + 8192]])
        assert ours.encode_ordinary(text) == theirs.encode_ordinary(text), f"block starting U+{cps[i]:04X}"


@pytest.mark.parametrize("name", ENCODINGS)
@pytest.mark.parametrize("text", [
    "a" * 10_000, " " * 10_000, "\n" * 5_000, "1" * 10_000, "😀" * 3_000, "ab" * 5_000,
    "a" * 100_000, "x" + " " * 20_000 + "y",
])
def test_pathological_runs_match_tiktoken(name, text):
    assert engine.get_encoding(name).encode_ordinary(text) == reference(name).encode_ordinary(text)


@pytest.mark.parametrize("name", ENCODINGS)
def test_long_base64_blob_matches_tiktoken(name):
    import base64
    import random

    rng = random.Random(7)
    blob = base64.b64encode(bytes(rng.randrange(256) for _ in range(75_000))).decode()
    assert engine.get_encoding(name).encode_ordinary(blob) == reference(name).encode_ordinary(blob)


@pytest.mark.slow
@pytest.mark.parametrize("name", ENCODINGS)
def test_one_million_repeated_characters(name):
    text = "a" * 1_000_000
    assert engine.get_encoding(name).encode_ordinary(text) == reference(name).encode_ordinary(text)


@settings(max_examples=400, deadline=None)
@given(text=st.lists(st.sampled_from(["\u0301", "\u0903", "A", "b", "ǅ", "ʰ", "中", " ", "'", "s", "1", "!", "\n", "é", "É"]),
                     max_size=30).map("".join))
def test_fast_form_of_o200k_pattern_splits_identically(text):
    import regex

    from engine.sources.openai_public import O200K_PAT_STR
    from engine.tokenizer.patterns import to_python_syntax

    slow = regex.compile(to_python_syntax(O200K_PAT_STR, fast=False))
    fast = regex.compile(to_python_syntax(O200K_PAT_STR))
    assert fast.pattern != slow.pattern
    assert fast.findall(text) == slow.findall(text)
