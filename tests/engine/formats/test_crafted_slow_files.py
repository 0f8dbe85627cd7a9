"""Crafted files that made every encode slow are refused at load, or made cheap (issue 33, item 1(a)).

Each file (tests/engine/formats/crafted_slow_files.py) goes through the loaders an upload goes through
(`engine.sources.uploads.load_files`).  Before the load-time bounds all of them loaded, and 8,000 "a" took
9 to 205 s (bench/bench_crafted_files.py).  Where a file stays within a bound it loads, and the maker's
library gives the same ids; real files stay far below each bound.
"""
from __future__ import annotations

import re

import pytest

from engine.sources.uploads import load_files
from tests.engine.formats import crafted_slow_files as crafted

spm = pytest.importorskip("sentencepiece")


def refusal(filename: str, data: bytes) -> ValueError:
    with pytest.raises(ValueError) as err:
        load_files([(filename, data)])
    return err.value


# ------------------------------------------------------------------ character maps
@pytest.mark.parametrize("filename, build", [
    ("loop.model", crafted.sp_looping_charsmap),
    ("loop.gguf", lambda: crafted.gguf_t5(crafted.looping_charsmap())),
    ("loop.json", lambda: crafted.hf_unigram_with_charsmap(crafted.looping_charsmap(leaf_in_loop=True))),
])
def test_a_charsmap_whose_trie_loops_is_refused_at_load(filename, build):
    """Before: loaded, and n "a" walked n^2/2 bytes (8,000 "a": 9 s; the GGUF t5 11 s)."""
    err = refusal(filename, build())
    assert re.search(r"precompiled_charsmap: the trie loops: after the bytes 61 61 \(b'aa'\)", str(err)), err
    assert filename in str(err)


def test_sentencepiece_runs_the_looping_map_by_walking_to_the_end():
    """The maker's library loads the looping map and its answer is the same as a plain "a -> a" rule's: the
    loop is only a cost (its C++ walks it; the engine would walk it in Python)."""
    looping = spm.SentencePieceProcessor(model_proto=crafted.sp_looping_charsmap())
    plain = spm.SentencePieceProcessor(model_proto=crafted.sentencepiece_model(
        crafted.BASE_PIECES, unigram=False, charsmap=crafted.deep_charsmap(1)))
    assert looping.encode("a" * 300) == plain.encode("a" * 300) == [3] + [4] * 300


def test_a_rule_output_out_of_range_is_refused_at_load():
    """Before: loaded, and failed only when a text held an "Ω" (the one rule)."""
    data = crafted.sentencepiece_model(crafted.BASE_PIECES, unigram=True, charsmap=crafted.out_of_range_charsmap())
    err = refusal("range.model", data)
    assert str(err).startswith("range.model: precompiled_charsmap: a rule's output offset 99 lies outside the 5 bytes")
    good = crafted.one_rule_charsmap("Ω".encode(), 2, b"a\x00Y\x00")
    enc = load_files([("rule.model", crafted.sentencepiece_model(crafted.BASE_PIECES, unigram=True, charsmap=good))])
    assert enc.normalize("aΩ")[0] == "\u2581aY"


def test_a_deep_charsmap_within_the_bound_loads_and_runs():
    enc = load_files([("deep.model", crafted.sentencepiece_model(crafted.BASE_PIECES, unigram=True,
                                                                  charsmap=crafted.deep_charsmap(256)))])
    assert enc.encode_ordinary("a" * 500) == [3] + [4] * 500
    assert "longer than 256 bytes" in str(refusal("deep.model", crafted.sentencepiece_model(
        crafted.BASE_PIECES, unigram=True, charsmap=crafted.deep_charsmap(257))))
