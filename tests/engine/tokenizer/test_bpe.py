"""The three merge loops agree, and bpe_trace replays exactly what encode does."""
from __future__ import annotations

import functools
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import engine
from engine.tokenizer.bpe import LONG_PIECE, bytes_pair_rank, ids_pair_rank, merge_bytes, merge_heap, merge_reference, merge_small

ENCODINGS = ["gpt2", "cl100k_base", "o200k_base"]


@functools.lru_cache(maxsize=None)
def _ranks(name: str) -> dict[bytes, int]:
    return dict(engine.get_encoding(name).mergeable_ranks)


def _single_bytes(data: bytes) -> list[bytes]:
    return [data[i : i + 1] for i in range(len(data))]


@pytest.mark.parametrize("name", ENCODINGS)
@settings(max_examples=200, deadline=None)
@given(data=st.one_of(st.binary(min_size=1, max_size=80),
                      st.text(min_size=1, max_size=40).map(lambda s: s.encode("utf-8"))))
def test_small_heap_and_reference_agree(name, data):
    ranks = _ranks(name)
    rank_fn, combine = bytes_pair_rank(ranks)
    ref_events: list = []
    heap_events: list = []
    ref = merge_reference(_single_bytes(data), rank_fn, combine, ref_events)
    heap = merge_heap(_single_bytes(data), rank_fn, combine, heap_events)
    assert heap == ref
    assert heap_events == ref_events
    assert merge_small(data, ranks) == [ranks[p] for p in ref]


@pytest.mark.parametrize("name", ENCODINGS)
def test_long_pieces_take_the_heap_path_and_agree(name):
    ranks = _ranks(name)
    rng = random.Random(3)
    pieces = [b"a" * 3000, b"ab" * 900, bytes(rng.randrange(256) for _ in range(2000)),
              "".join(rng.choice("abcdefgh") for _ in range(1500)).encode()]
    rank_fn, combine = bytes_pair_rank(ranks)
    for data in pieces:
        assert len(data) > LONG_PIECE
        assert [ranks[p] for p in merge_heap(_single_bytes(data), rank_fn, combine)] == merge_small(data, ranks)


def test_pair_merges_heap_and_small_agree():
    from engine.tokenizer.bpe import merge_pairs_small

    merges = {(97, 97): 256, (256, 97): 257, (98, 97): 258, (256, 256): 259}
    rank_fn, combine = ids_pair_rank(merges)
    rng = random.Random(1)
    for _ in range(200):
        ids = [rng.choice([97, 98]) for _ in range(rng.randrange(1, 30))]
        assert merge_pairs_small(ids, merges) == merge_heap(ids, rank_fn, combine) == merge_reference(ids, rank_fn, combine)


@pytest.mark.parametrize("name", ENCODINGS)
@pytest.mark.parametrize("piece", ["hello", " unbelievable", "1234567", "    ", "😀", "自然言語処理", "a" * 2000,
                                   " SolidGoldMagikarp", "\n\n\n"])
def test_trace_final_ids_equal_encode(name, piece):
    enc = engine.get_encoding(name)
    trace = enc.bpe_trace(piece)
    final = trace.parts_at(len(trace.steps))
    assert b"".join(final) == piece.encode("utf-8")
    assert list(trace.final_ids) == enc.encode_ordinary(piece) or len(enc.pretokenize(piece)) > 1
    assert [enc.mergeable_ranks[p] for p in final] == list(trace.final_ids)
    assert trace.parts_at(0) == _single_bytes(piece.encode("utf-8"))


@pytest.mark.parametrize("name", ENCODINGS)
def test_trace_steps_describe_each_merge(name):
    enc = engine.get_encoding(name)
    trace = enc.bpe_trace(" tokenization")
    assert trace.steps, "a word should need merges"
    ranks = enc.mergeable_ranks
    for k, step in enumerate(trace.steps):
        before = trace.parts_at(k)
        after = trace.parts_at(k + 1)
        assert before[step.position] == step.left and before[step.position + 1] == step.right
        assert after[step.position] == step.merged
        assert ranks[step.merged] == step.rank
        assert len(after) == len(before) - 1
        # the merged pair had the lowest rank, leftmost on ties
        pair_ranks = [ranks.get(before[i] + before[i + 1]) for i in range(len(before) - 1)]
        best = min(r for r in pair_ranks if r is not None)
        assert step.rank == best and pair_ranks.index(best) == step.position


def test_trace_of_long_piece_is_linear_in_memory():
    enc = engine.get_encoding("cl100k_base")
    trace = enc.bpe_trace("a" * 100_000)
    assert list(trace.final_ids) == enc.encode_ordinary("a" * 100_000)
    assert len(trace.parts_at(50)) == 100_000 - 50


@pytest.mark.parametrize("name", ENCODINGS)
def test_batch_bpe_of_many_script_pieces_equals_the_reference(name):
    """`Encoding._bpe_many` (whole-token hits in C, the merge loop for the rest) against the
    textbook loop, on every distinct piece of the many-script bench corpus and long pieces."""
    import gzip
    from pathlib import Path

    enc = engine.get_encoding(name)
    ranks = _ranks(name)
    ui = gzip.decompress((Path(__file__).resolve().parents[3] / "bench" / "data" / "ui_strings.txt.gz").read_bytes())
    pieces = sorted(set(enc._split(ui.decode("utf-8"))))
    pieces += ["a" * (LONG_PIECE + 5), "ab" * LONG_PIECE]
    got = enc._bpe_many(pieces)
    assert list(got) and set(got) == set(pieces)
    rank_fn, combine = bytes_pair_rank(ranks)
    for piece in pieces:
        data = piece.encode("utf-8")
        expected = (ranks[data],) if data in ranks else tuple(ranks[p] for p in merge_reference(_single_bytes(data), rank_fn, combine))
        assert got[piece] == expected, piece


# One character from each of many scripts and code point classes (letters, marks, digits, symbols,
# astral, private use, unassigned), so random strings of them stress every UTF-8 length and the
# byte-level tokens that cross character boundaries.
_MANY_SCRIPTS = ("aZ0 _'\n\t" "éßñ" "пЖё" "αΩ" "עש" "عربي" "हिंदी" "বাং" "ਪੰ" "தமி" "ไทย" "ລາວ" "ქა" "Հայ"
                 "ጠ" "한국" "日本語中文" "ｱｲ" "\u0301\u20dd" "½²" "€₹" "😀👍🏽" "𝐀𐐷" "\ue000" "\u0378" "\U000e0001")


@pytest.mark.parametrize("name", ENCODINGS)
@settings(max_examples=150, deadline=None)
@given(text=st.lists(st.tuples(st.sampled_from(_MANY_SCRIPTS), st.integers(1, 12)), min_size=1, max_size=12)
       .map(lambda runs: "".join(rng_char(s, k) for s, k in runs)),
       cut=st.integers(0, 300_000))
def test_merge_bytes_equals_the_reference_on_many_scripts_and_runs(name, text, cut):
    """`merge_bytes` (the hot loop) against the textbook loop, with all merges and with only the
    ranks below a cut (the `max_rank` replay merge recovery uses)."""
    ranks = _ranks(name)
    data = text.encode("utf-8")
    assert merge_bytes(data, ranks) == merge_reference(_single_bytes(data), *bytes_pair_rank(ranks))
    rank_fn, combine = bytes_pair_rank(ranks)

    def rank_below_cut(a: bytes, b: bytes) -> int | None:
        rank = rank_fn(a, b)
        return rank if rank is not None and rank < cut else None

    assert merge_bytes(data, ranks, max_rank=cut) == merge_reference(_single_bytes(data), rank_below_cut, combine)


def rng_char(scripts: str, k: int) -> str:
    """`k` characters of `scripts`, cycling (so runs of one character and of short cycles appear)."""
    return "".join(scripts[i % len(scripts)] for i in range(k)) if k % 3 else scripts[0] * k
