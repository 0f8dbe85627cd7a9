"""Merges recovered from rank files, and merge trees."""
from __future__ import annotations

import gzip

import pytest

import engine
from engine.tokenizer.gpt2_bytes import decode_printable
from engine.formats.tiktoken_files import DATA_DIR
from engine.tokenizer.merges import recover_merges, recover_merges_reference


def test_gpt2_recovered_merges_equal_vocab_bpe_line_for_line():
    enc = engine.get_encoding("gpt2")
    ranks = enc.mergeable_ranks
    lines = gzip.decompress((DATA_DIR / "gpt2_vocab.bpe.gz").read_bytes()).decode("utf-8").split("\n")[1:]
    expected = []
    for line in lines:
        if line.strip():
            left, right = line.split()
            expected.append((ranks[decode_printable(left)], ranks[decode_printable(right)]))
    recovered = list(enc.merges)
    assert len(expected) == len(recovered) == 50_000
    assert recovered == expected
    assert list(enc.merges.values()) == list(range(256, 50_256))


@pytest.mark.parametrize("name", ["gpt2", "cl100k_base"])
def test_fast_recovery_equals_reference(name):
    ranks = dict(engine.get_encoding(name).mergeable_ranks)
    assert recover_merges(ranks) == recover_merges_reference(ranks)


@pytest.mark.slow
def test_fast_recovery_equals_reference_o200k():
    ranks = dict(engine.get_encoding("o200k_base").mergeable_ranks)
    assert recover_merges(ranks) == recover_merges_reference(ranks)


def test_merges_in_rank_order_and_complete():
    enc = engine.get_encoding("cl100k_base")
    merges = enc.merges
    assert list(merges.values()) == sorted(merges.values())
    assert len(merges) == len(enc.mergeable_ranks) - 256
    for (a, b), c in list(merges.items())[:2000]:
        assert a < c and b < c
        assert enc.decode_single_token_bytes(a) + enc.decode_single_token_bytes(b) == enc.decode_single_token_bytes(c)


def test_tree_of_hello_in_gpt2():
    enc = engine.get_encoding("gpt2")
    tree = enc.merge_tree(enc.encode_single_token("hello"))
    assert tree.bytes == b"hello"
    leaves = tree.leaves()
    assert [leaf.bytes for leaf in leaves] == [b"h", b"e", b"l", b"l", b"o"]
    assert [leaf.id for leaf in leaves] == [enc.mergeable_ranks[bytes([c])] for c in b"hello"]
    assert tree.n_merges == 4
    for node in tree.walk():
        if not node.is_leaf:
            assert enc.merges[(node.left.id, node.right.id)] == node.id
            assert node.left.id < node.id and node.right.id < node.id


@pytest.mark.parametrize("name", ["cl100k_base", "o200k_base"])
def test_single_byte_leaves_are_permuted_ids(name):
    enc = engine.get_encoding(name)
    tree = enc.merge_tree(enc.encode_single_token(" the"))
    for leaf in tree.leaves():
        assert leaf.id == enc.mergeable_ranks[leaf.bytes]
    # rank 0 is b"!" in cl100k/o200k: a leaf's id is not its byte value
    assert enc.mergeable_ranks[b"!"] == 0 and enc.mergeable_ranks[b" "] != 32


def test_tree_depth_and_errors():
    enc = engine.get_encoding("o200k_base")
    leaf = enc.merge_tree(enc.mergeable_ranks[b"a"])
    assert leaf.is_leaf and leaf.depth == 0 and leaf.n_merges == 0
    with pytest.raises(ValueError, match="special token"):
        enc.merge_tree(enc.eot_token)
    with pytest.raises(KeyError, match="unknown token id 300000"):
        enc.merge_tree(300_000)


@pytest.mark.parametrize("extra", [
    {b"abc": 256},                          # 3 bytes, no two-byte part
    {b"ab": 256, b"abcd": 257},             # 4 bytes: BPE stops at ab|c|d
    {b"cd": 256, b"ab": 257, b"abcde": 258},  # 5 bytes: ab|cd|e
])
def test_ranks_that_bpe_cannot_produce_are_rejected(extra):
    ranks = {bytes([b]): b for b in range(256)} | extra
    with pytest.raises(ValueError, match="cannot be produced by BPE"):
        recover_merges(ranks)
    with pytest.raises(ValueError, match="cannot be produced by BPE"):
        recover_merges_reference(ranks)


def test_three_part_ending_picks_the_lower_pair():
    ranks = {bytes([b]): b for b in range(256)} | {b"bc": 256, b"ab": 257, b"abc": 258, b"abcd": 259}
    # abcd: bc (256) merges first -> a|bc|d; then no pair a+bc? "abc" is 258 < 259 -> abc|d
    assert recover_merges(ranks) == recover_merges_reference(ranks)
    assert recover_merges(ranks)[(258, ord("d"))] == 259
