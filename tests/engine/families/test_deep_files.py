"""Files deep where real ones are shallow (tests/engine/formats/crafted_deep_files.py) load, encode as their makers'
libraries do (`tokenizers`, `sentencepiece`) and explain their tokens, without a RecursionError: a 4,096-character
added token, 600 added tokens that are each other's prefixes, a merge tree 1,499 merges deep, 1,499 UNUSED pieces
split back one by one."""
from __future__ import annotations

import pickle
import re

import pytest

import sentencepiece
import tokenizers

import engine
from engine.families.hf.load import load_tokenizer_json
from engine.families.sentencepiece.bpe import RESEGMENT_DEPTH
from engine.families.sentencepiece.encoding import load_sentencepiece_model
from engine.tokenizer.merges import merge_tree_of
from engine.tokenizer.special_tokens import literal_trie_pattern
from tests.engine.formats.crafted_deep_files import (added_prefix_chain, chain_token, long_added_token, merge_chain,
                                                     rank_chain, sp_unused_chain)


def _both(data: bytes):
    return load_tokenizer_json(data, name="deep"), tokenizers.Tokenizer.from_str(data.decode())


def _same_ids(ours, hf, text: str) -> list[int]:
    ids = ours.encode(text, allowed_special="all")
    assert ids == hf.encode(text, add_special_tokens=False).ids
    return ids


def test_a_4096_character_added_token():
    ours, hf = _both(long_added_token(4_096))
    token = "x" * 4_096
    ids = _same_ids(ours, hf, "ab" + token + "x" + token[:-1] + "c")
    assert ids[2] == 26 and ours.decode([26]) == token


def test_600_added_tokens_each_a_prefix_of_the_next():
    ours, hf = _both(added_prefix_chain(600))
    assert _same_ids(ours, hf, "B" * 600) == [26 + 599]
    _same_ids(ours, hf, "aB" + "B" * 1_000 + "cBBBd" + "B" * 599 + "e")


def test_the_trie_pattern_stays_shallow_and_leftmost_longest():
    """The trie is folded without recursion, and deeply nested groups become one alternation, longest first: the same
    matches as the plain alternation, in a pattern nested under 100 groups deep (`re` failed near 450 nested groups,
    the `regex` module under 200, and a Streamlit script starts its walk a hundred frames down)."""
    words = ["B" * k for k in range(1, 300)] + ["BBc", "B" * 150 + "d", "x" * 3_000]
    pattern = literal_trie_pattern(words)
    depth = deepest = 0
    for ch in pattern.replace("\\(", "").replace("\\)", ""):
        depth += (ch == "(") - (ch == ")")
        deepest = max(deepest, depth)
    assert deepest < 100
    flat = re.compile("|".join(re.escape(w) for w in sorted(words, key=len, reverse=True)))
    text = "B" * 400 + "c" + "B" * 150 + "dBBcx" + "x" * 3_001 + "B" * 149 + "d"
    assert [m.span() for m in re.compile(pattern).finditer(text)] == [m.span() for m in flat.finditer(text)]


@pytest.mark.parametrize("byte_level", [False, True], ids=["characters", "byte-level"])
def test_a_merge_tree_1499_merges_deep(byte_level):
    ours, hf = _both(merge_chain(1_500, byte_level=byte_level))
    (token_id,) = _same_ids(ours, hf, chain_token(1_500))
    tree = ours.merge_tree(token_id)
    assert (tree.depth, tree.n_merges, len(tree.leaves())) == (1_499, 1_499, 1_500)
    assert b"".join(leaf.bytes for leaf in tree.leaves()) == chain_token(1_500).encode()
    assert [node.bytes for node in tree.walk()][:3] == [chain_token(1_500).encode(), chain_token(1_499).encode(),
                                                         chain_token(1_498).encode()]
    again = pickle.loads(pickle.dumps(tree))  # st.cache_data pickles what it keeps
    assert again == tree and hash(again) == hash(tree)


# Recovering a chain's merges replays BPE on every prefix (cubic in its length: 1,500 took 21 s in a full run):
# 1,050 is already past Python's recursion limit of 1,000, which is what a recursive walk would hit.
@pytest.mark.heavy
@pytest.mark.parametrize("length", [1_050, pytest.param(1_500, marks=pytest.mark.slow)])
def test_a_rank_file_tree_1499_merges_deep(length):
    ranks = rank_chain(length)
    enc = engine.Encoding("deep-ranks", pat_str=r"\S+|\s+", mergeable_ranks=ranks, special_tokens={})
    token = chain_token(length).encode()
    assert enc.encode_ordinary(chain_token(length)) == [ranks[token]]
    for tree in (merge_tree_of(token, ranks), enc.merge_tree(ranks[token])):
        assert (tree.depth, tree.n_merges) == (length - 1, length - 1)
        assert (tree.left.bytes, tree.right.bytes) == (token[:-1], b"b")


def test_1499_unused_pieces_are_split_back_as_sentencepiece_does():
    """sentencepiece splits the merged piece back RESEGMENT_DEPTH levels and keeps what it reaches there: the piece of
    1,399 characters and 101 "b" (a recursion one frame per level before)."""
    data = sp_unused_chain(1_500)
    ours, sp = load_sentencepiece_model(data, name="deep"), sentencepiece.SentencePieceProcessor(model_proto=data)
    for text in (chain_token(1_500), chain_token(RESEGMENT_DEPTH + 2), chain_token(RESEGMENT_DEPTH + 3),
                 "ab " * 50 + chain_token(700) + " " + chain_token(1_200)):
        assert ours.encode(text) == sp.encode(text)
    ids = ours.encode(chain_token(1_500))
    assert [ours.decode([i]) for i in ids[1:3]] == [chain_token(1_500 - RESEGMENT_DEPTH - 1), "b"]
