"""Merge trees of known tokens, their DOT drawing, and BPE step replays (last step == encode)."""
from __future__ import annotations

import re

import pytest

import engine
from playground.render.tree import bpe_parts, dot_escape, merge_tree_dot


@pytest.fixture(scope="module", params=["gpt2", "cl100k_base", "o200k_base"])
def enc(request):
    return engine.get_encoding(request.param)


def _check_tree(enc: engine.Encoding, node: engine.MergeNode, merges: dict, ranks) -> None:
    """Every inner node is a recovered merge of its children; every leaf is one byte with its own rank."""
    for n in node.walk():
        assert enc.decode_single_token_bytes(n.id) == n.bytes
        if n.is_leaf:
            assert len(n.bytes) == 1 and ranks[n.bytes] == n.id
        else:
            assert merges[(n.left.id, n.right.id)] == n.id
            assert n.left.bytes + n.right.bytes == n.bytes
            assert n.left.id < n.id and n.right.id < n.id  # children were learned first


@pytest.mark.parametrize("word", ["hello", " hello", " unbelievable", "1234", " SolidGoldMagikarp", "日本"])
def test_known_trees_against_recovered_merges(enc, word):
    merges, ranks = enc.merges, enc.mergeable_ranks
    for tid in enc.encode_ordinary(word):
        tree = enc.merge_tree(tid)
        _check_tree(enc, tree, merges, ranks)
        assert b"".join(leaf.bytes for leaf in tree.leaves()) == enc.decode_single_token_bytes(tid)
        assert tree.n_merges == len(tree.leaves()) - 1


def test_gpt2_hello_leaves_and_ids():
    gpt2 = engine.get_encoding("gpt2")
    tree = gpt2.merge_tree(gpt2.encode_single_token("hello"))
    assert [leaf.bytes for leaf in tree.leaves()] == [b"h", b"e", b"l", b"l", b"o"]
    assert [leaf.id for leaf in tree.leaves()] == [71, 68, 75, 75, 78]  # GPT-2's byte order, not ASCII
    assert (tree.left.bytes, tree.right.bytes) == (b"hell", b"o")
    assert (tree.depth, tree.n_merges) == (3, 4)


@pytest.mark.parametrize("name", ["cl100k_base", "o200k_base"])
def test_permuted_single_byte_leaf_ids(name):
    enc = engine.get_encoding(name)
    tree = enc.merge_tree(enc.encode_single_token(" hello"))
    for leaf in tree.leaves():
        assert leaf.id == enc.mergeable_ranks[bytes([leaf.bytes[0]])]
    assert any(leaf.id != leaf.bytes[0] for leaf in tree.leaves())  # ids are not byte values


def test_special_and_unknown_ids_have_no_tree():
    enc = engine.get_encoding("o200k_base")
    with pytest.raises(ValueError, match="special token"):
        enc.merge_tree(enc.eot_token)
    with pytest.raises(engine.UnknownTokenError):
        enc.merge_tree(200_005)  # between the ordinary and the special ids


def test_longest_o200k_token_tree():
    enc = engine.get_encoding("o200k_base")
    tid = engine.explain.vocab.longest(enc, 1)[0]
    tree = enc.merge_tree(tid)
    _check_tree(enc, tree, enc.merges, enc.mergeable_ranks)
    assert tree.n_merges == len(enc.decode_single_token_bytes(tid)) - 1


# ------------------------------------------------------------------------ DOT
def _nodes(dot: str) -> list[str]:
    return re.findall(r'^\s+(n\d+) \[label="((?:[^"\\]|\\.)*)"', dot, re.M)


def test_dot_has_one_node_per_tree_node():
    enc = engine.get_encoding("cl100k_base")
    tree = enc.merge_tree(enc.encode_single_token(" hello"))
    dot = merge_tree_dot(tree)
    nodes = _nodes(dot)
    assert len(nodes) == 2 * len(tree.leaves()) - 1
    assert nodes[0][1] == f"␣hello\\nid {tree.id}"
    assert "byte 0x68\\nid 71" in dot  # the leaf h: byte 0x68, id 71 in cl100k
    assert dot.count(" -> ") - dot.count("[style=invis]") >= len(nodes) - 1
    assert dot.startswith("digraph") and dot.rstrip().endswith("}")


def test_dot_folds_deep_subtrees():
    enc = engine.get_encoding("o200k_base")
    tree = enc.merge_tree(engine.explain.vocab.longest(enc, 1)[0])
    dot = merge_tree_dot(tree, max_depth=2, left_right=True)
    assert "rankdir=LR" in dot and "dashed" in dot and "merges)" in dot
    assert len(_nodes(dot)) <= 7


def test_invalid_utf8_nodes_show_hex():
    enc = engine.get_encoding("cl100k_base")
    tid = enc.mergeable_ranks["日".encode()[:2]]
    dot = merge_tree_dot(enc.merge_tree(tid))
    assert "<e6 97>" in dot and "byte 0xe6" in dot


@pytest.mark.parametrize("text, escaped", [
    ('say "hi"', 'say \\"hi\\"'),
    ("back\\slash", "back\\\\slash"),
    ("a\nb", "a\\nb"),
    ("\\N\\G\\l", "\\\\N\\\\G\\\\l"),
    ("bell\x07", "bell<07>"),
    ("}]; evil -> x [label=\"", '}]; evil -> x [label=\\"'),
])
def test_dot_escape(text, escaped):
    assert dot_escape(text) == escaped


def test_tree_label_of_a_quote_token_stays_inside_its_string():
    enc = engine.get_encoding("gpt2")
    for token in ['"', '\\', '\\"', ' "\\', '\\":']:
        dot = merge_tree_dot(enc.merge_tree(enc.encode_single_token(token)))
        assert len(_nodes(dot)) == 2 * len(token.encode()) - 1, dot


# ------------------------------------------------------------------ BPE steps
@pytest.mark.parametrize("piece", ["hello", " unbelievable", " SolidGoldMagikarp", "   ", "12345", " 日本語", "👍🏽", "a" * 300])
def test_last_step_equals_encode(enc, piece):
    trace = enc.bpe_trace(piece)
    assert list(trace.final_ids) == enc.encode_ordinary(piece)
    parts = trace.parts_at(len(trace.steps))
    assert b"".join(parts) == piece.encode()
    assert trace.parts_at(0) == [bytes([b]) for b in piece.encode()]


def test_each_step_merges_the_lowest_ranked_pair():
    enc = engine.get_encoding("cl100k_base")
    trace = enc.bpe_trace(" unbelievable")
    ranks = enc.mergeable_ranks
    for k, step in enumerate(trace.steps):
        parts = trace.parts_at(k)
        pair_ranks = [ranks.get(a + b) for a, b in zip(parts, parts[1:])]
        best = min(r for r in pair_ranks if r is not None)
        assert step.rank == best == pair_ranks[step.position]
        assert (parts[step.position], parts[step.position + 1]) == (step.left, step.right)
    final = trace.parts_at(len(trace.steps))
    assert all(ranks.get(a + b) is None for a, b in zip(final, final[1:]))


def test_long_piece_replays_without_materialising_every_step():
    enc = engine.get_encoding("o200k_base")
    trace = enc.bpe_trace("a" * 5000)
    assert len(trace.steps) > 1000
    middle = trace.parts_at(len(trace.steps) // 2)
    assert b"".join(middle) == b"a" * 5000
    assert [enc.mergeable_ranks[p] for p in trace.parts_at(len(trace.steps))] == enc.encode_ordinary("a" * 5000)


def test_bpe_parts_html_escapes_and_marks_the_pair():
    parts = [b"<", b"script", b">", b"\xe6\x97"]
    out = bpe_parts(parts, [1, None, 3, 4], merge_at=1, pair_ranks=[None, 7, 9])
    assert "<script" not in out and "&lt;" in out and "&lt;e6 97&gt;" in out
    assert out.count('class="part merge"') == 2
    assert 'class="gap best">7<' in out
