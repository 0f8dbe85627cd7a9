"""A hostile split pattern: an uploaded tokenizer.json's Split pattern runs under the split time limit and
the error says what happened (the playground's side: tests/app/test_hostile_regex.py).

The attack: a ``Split`` pre-tokenizer holding ``(a|aa)+$`` (exponential backtracking), then 38 ``a``
and ``!`` typed in Compare.  Before: the split ran with no time limit, holding a script turn.
"""
from __future__ import annotations

import json

import pytest

import engine
import engine.tokenizer.patterns
from engine.tokenizer.gpt2_bytes import BYTE_TO_CHAR

HOSTILE = "(a|aa)+$"
TEXT = "a" * 38 + "!"


def tokenizer_json(*splits: str) -> bytes:
    """A byte-level BPE tokenizer.json whose pre-tokenizer is the `splits` patterns (Isolated), then ByteLevel."""
    steps = [{"type": "Split", "pattern": {"Regex": p}, "behavior": "Isolated", "invert": False} for p in splits]
    doc = {
        "version": "1.0", "truncation": None, "padding": None, "added_tokens": [], "normalizer": None,
        "pre_tokenizer": {"type": "Sequence", "pretokenizers": [
            *steps, {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True, "use_regex": False}]},
        "post_processor": None,
        "decoder": {"type": "ByteLevel", "add_prefix_space": True, "trim_offsets": True, "use_regex": True},
        "model": {"type": "BPE", "dropout": None, "unk_token": None, "continuing_subword_prefix": None,
                  "end_of_word_suffix": None, "fuse_unk": False, "byte_fallback": False, "ignore_merges": False,
                  "vocab": {**{BYTE_TO_CHAR[b]: b for b in range(256)}, "aa": 256}, "merges": [["a", "a"]]},
    }
    return json.dumps(doc).encode()


def hostile() -> engine.HfEncoding:
    return engine.families.hf.load.load_tokenizer_json(tokenizer_json(HOSTILE), name="hostile", source="hostile.json")


@pytest.fixture
def short_limit(monkeypatch):
    monkeypatch.setattr(engine.tokenizer.patterns, "SPLIT_TIMEOUT", 0.5)
    return 0.5


@pytest.mark.parametrize("call", ["encode", "encode_ordinary", "tokenize", "pretokenize"])
def test_uploaded_split_stops_at_the_limit_with_a_message_that_says_what_to_do(short_limit, call):
    enc = hostile()
    with pytest.raises(engine.SplitTimeoutError) as info:  # unlimited, 38 a's take minutes and raise nothing
        getattr(enc, call)(TEXT)
    message = str(info.value)
    assert isinstance(info.value, ValueError) and info.value.seconds == short_limit
    assert "hostile.json" in message and "$.pre_tokenizer.pretokenizers[0]" in message and HOSTILE in message
    assert "single repeat" in message  # the fix


def test_one_budget_for_the_whole_text(short_limit):
    """Many pieces, each under the limit alone, share one budget: a per-call limit would let 20 x 0.3 s run."""
    enc = engine.families.hf.load.load_tokenizer_json(tokenizer_json(r"\s+", HOSTILE), name="hostile2", source="two.json")
    text = " ".join("a" * 27 + f"!{i}" for i in range(20))  # distinct pieces: no memo hit
    with pytest.raises(engine.SplitTimeoutError, match="pretokenizers\\[1\\]"):  # a per-piece limit raises nothing
        enc.encode(text)


def test_a_benign_uploaded_pattern_splits_as_before():
    pattern = r"\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+|\s+"
    enc = engine.families.hf.load.load_tokenizer_json(tokenizer_json(pattern), name="benign", source="benign.json")
    tokenizers = pytest.importorskip("tokenizers")
    theirs = tokenizers.Tokenizer.from_str(tokenizer_json(pattern).decode())
    for text in ["Hello world, 12345!", "a" * 38 + "!", "déjà vu\n\n  x", ""]:
        assert enc.encode(text) == theirs.encode(text).ids, text


def test_split_time_limit_says_which_encodings_run_a_users_pattern(short_limit):
    assert hostile().split_time_limit == short_limit
    custom = engine.Encoding("typed", pat_str=HOSTILE, mergeable_ranks={bytes([b]): b for b in range(256)},
                             special_tokens={})
    assert custom.split_time_limit == short_limit
    for name in ["gpt2", "cl100k_base", "llama3", "mistral-tekken", "mistral-v1", "deepseek-v4"]:
        assert engine.get_encoding(name).split_time_limit is None, name

