"""Merge trees of known tokens, their layout and SVG drawing, and BPE step replays (last step == encode)."""
from __future__ import annotations

import re

import pytest

import engine
from playground.render.tree import bpe_parts, layout_merge_tree, merge_tree_svg, text_em, tree_label
from tests.conftest import tree_boxes, tree_layout


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


# ----------------------------------------------------------- layout and SVG
def _overlap(a, b) -> bool:
    return a.x < b.x + b.w and b.x < a.x + a.w and a.y < b.y + b.h and b.y < a.y + a.h


def _check_layout(layout, tree) -> None:
    """Boxes inside the drawing and apart; leaves in byte order along one row (one column), each parent between its
    two children; every edge joins a box to its parent."""
    boxes = layout.boxes
    for box in boxes:
        assert 0 <= box.x and box.x + box.w <= layout.width + 0.01 and 0 <= box.y and box.y + box.h <= layout.height + 0.01
    for i, a in enumerate(boxes):
        for b in boxes[i + 1:]:
            assert not _overlap(a, b), (a.lines, b.lines)
    leaves = [b for b in boxes if b.kind != "merge"]
    assert b"".join(b.data for b in leaves) == tree.bytes  # read in order, the leaves spell the token
    along = (lambda b: b.y) if layout.left_right else (lambda b: b.x)
    assert [along(b) for b in leaves] == sorted(along(b) for b in leaves)
    for i, box in enumerate(boxes):
        kids = [b for b in boxes if b.parent == i]
        if box.kind == "merge":
            assert len(kids) == 2 and kids[0].data + kids[1].data == box.data
            centre = (lambda b: b.y + b.h / 2) if layout.left_right else (lambda b: b.x + b.w / 2)
            assert abs(centre(box) - (centre(kids[0]) + centre(kids[1])) / 2) < 0.01
            depth = (lambda b: b.x) if layout.left_right else (lambda b: b.y)
            assert all(depth(k) > depth(box) for k in kids)
        else:
            assert not kids


@pytest.mark.parametrize("left_right", [False, True], ids=["top-down", "left-right"])
@pytest.mark.parametrize("word", [" hello", " unbelievable", "日本", " SolidGoldMagikarp"])
def test_layout_keeps_boxes_apart_and_leaves_in_order(enc, word, left_right):
    for tid in enc.encode_ordinary(word):
        tree = enc.merge_tree(tid)
        layout = layout_merge_tree(tree, left_right=left_right)
        assert len(layout.boxes) == 2 * len(tree.leaves()) - 1
        _check_layout(layout, tree)


def test_svg_has_one_box_per_tree_node():
    enc = engine.get_encoding("cl100k_base")
    tree = enc.merge_tree(enc.encode_single_token(" hello"))
    boxes = tree_boxes(_boxed(merge_tree_svg(layout_merge_tree(tree))))
    assert len(boxes) == 2 * len(tree.leaves()) - 1
    assert boxes[0] == ("merge", f"␣hello\nid {tree.id}")
    assert ("leaf", "h\nbyte 0x68\nid 71") in boxes  # the leaf h: byte 0x68, id 71 in cl100k


def test_deep_subtrees_fold_into_one_box():
    enc = engine.get_encoding("o200k_base")
    tree = enc.merge_tree(engine.explain.vocab.longest(enc, 1)[0])
    layout = layout_merge_tree(tree, max_depth=2, left_right=True)
    _check_layout(layout, tree)
    boxes = tree_boxes(_boxed(merge_tree_svg(layout)))
    assert len(boxes) == 7 and [k for k, _ in boxes].count("folded") == 4
    assert boxes[2] == ("folded", "␣×32\nid 1213\n(+31 merges)")
    assert tree_layout(_boxed(merge_tree_svg(layout))) == "left-right"


def test_a_tree_thousands_of_merges_deep_is_laid_out_without_recursion():
    from engine.families.hf.load import load_tokenizer_json
    from tests.engine.formats.crafted_deep_files import chain_token, merge_chain

    enc = load_tokenizer_json(merge_chain(3_000, byte_level=True), name="deep-chain")
    (token_id,) = enc.encode(chain_token(3_000))
    tree = enc.merge_tree(token_id)
    layout = layout_merge_tree(tree)
    assert len(layout.boxes) == 5_999 and len(tree_boxes(_boxed(merge_tree_svg(layout)))) == 5_999
    # far too wide to read by scrolling: shown whole, shrunk to the column, so its shape (and root) are in view
    assert "min-width" not in merge_tree_svg(layout, fit="content")


def test_a_wide_tree_scrolls_rather_than_shrink_its_labels_past_min_scale():
    enc = engine.get_encoding("o200k_base")
    layout = layout_merge_tree(enc.merge_tree(enc.encode_single_token(" unbelievable")))
    for fit in ("content", "stretch"):
        assert f"min-width:{layout.width * 0.6:.0f}px" in merge_tree_svg(layout, fit=fit)
    assert "min-width" not in merge_tree_svg(layout, fit="natural")


def test_invalid_utf8_nodes_show_hex():
    enc = engine.get_encoding("cl100k_base")
    tid = enc.mergeable_ranks["日".encode()[:2]]
    labels = [text for _, text in tree_boxes(_boxed(merge_tree_svg(layout_merge_tree(enc.merge_tree(tid)))))]
    assert labels[0] == f"<e6 97>\nid {tid}" and "<e6>\nbyte 0xe6\nid 162" in labels


@pytest.mark.parametrize("token", ['"', "\\", '\\"', ' "\\', '\\":', "<", "&", "</", " <", "'>", "&&"])
def test_markup_in_a_label_stays_text(token):
    """Every label is escaped: the drawing parses as XML and says what the token is, character for character."""
    enc = engine.get_encoding("gpt2")
    tree = enc.merge_tree(enc.encode_single_token(token))
    boxes = tree_boxes(_boxed(merge_tree_svg(layout_merge_tree(tree))))
    assert len(boxes) == 2 * len(token.encode()) - 1
    assert boxes[0][1].split("\n")[0] == token.replace(" ", "␣")


def test_characters_xml_cannot_hold_are_named():
    """U+FFFF is a valid UTF-8 token in byte-level vocabularies; XML 1.0 has no such character, so a downloaded
    .svg holding it raw would not open."""
    assert tree_label("\uffff".encode(), 7).split("\n")[0] == "‹U+FFFF›"
    assert tree_label("\u200d".encode(), 8).split("\n")[0] == "‹ZWJ›"  # a lone joiner is named, not blank


@pytest.mark.parametrize("line, em", [("hello", 3.0), ("日本", 2.0), ("e\u0301", 0.6), ("", 0.0), ("␣×32", 2.4)])
def test_label_widths_in_ems(line, em):
    assert text_em(line) == pytest.approx(em)


def test_presentation_size_scales_the_whole_drawing():
    enc = engine.get_encoding("gpt2")
    tree = enc.merge_tree(enc.encode_single_token("hello"))
    small, big = layout_merge_tree(tree, font_px=14), layout_merge_tree(tree, font_px=21)
    assert big.width == pytest.approx(small.width * 1.5, abs=3) and big.height == pytest.approx(small.height * 1.5, abs=3)
    assert 'font-size="21"' in merge_tree_svg(big, fit="natural") and 'max-width:none' in merge_tree_svg(big, fit="natural")


def _boxed(svg: str) -> str:
    return f"<div>{svg}</div>"


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


@pytest.mark.parametrize("token_id", [0, 5, 72056, 199_997])
def test_boxes_take_the_tokenize_pages_colour_made_opaque(token_id):
    """A box is `token_color` (hsla, 45% opaque) laid over white: the same colour the reader saw on Tokenize, but an
    edge passing behind it stays hidden."""
    import colorsys
    import re as re_

    from playground.render.html import solid_token_color, token_color

    hue, sat, light, alpha = map(float, re_.fullmatch(r"hsla\(([\d.]+), (\d+)%, (\d+)%, ([\d.]+)\)",
                                                      token_color(token_id)).groups())
    rgb = colorsys.hls_to_rgb(hue / 360, light / 100, sat / 100)
    want = [round(255 * (alpha * c + 1 - alpha)) for c in rgb]
    got = solid_token_color(token_id)
    assert [int(got[i:i + 2], 16) for i in (1, 3, 5)] == pytest.approx(want, abs=1)
