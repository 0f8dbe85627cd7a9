"""`engine.formats.charsmap` against ``sentencepiece``'s own normalizer, and on crafted blobs.

The oracle is ``sentencepiece.SentencePieceNormalizer`` loaded with a rule
name (its built-in ``nmt_nfkc``, ``nfkc``, ``nmt_nfkc_cf``, ``nfkc_cf`` maps)
with the whitespace rules off, so only the precompiled map acts; the blob we
parse is the very one it serializes.  Real models' maps are checked through the
SentencePiece family's tests (tests/engine/families/sentencepiece/).
"""
from __future__ import annotations

import functools
import struct
from array import array

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.families.sentencepiece.model_proto import _normalizer
from engine.formats.charsmap import MAX_CHARSMAP_BYTES, MAX_RULE_BYTES, CharsmapError, PrecompiledCharsmap, _offset
from tests.engine.formats.crafted_slow_files import (charsmap_blob, deep_charsmap, fill_unused, looping_charsmap,
                                                     out_of_range_charsmap)

spm = pytest.importorskip("sentencepiece")
RULES = ["nmt_nfkc", "nfkc", "nmt_nfkc_cf", "nfkc_cf"]


@functools.lru_cache(maxsize=None)
def reference(rule: str):
    return spm.SentencePieceNormalizer(rule_name=rule, add_dummy_prefix=False, escape_whitespaces=False,
                                       remove_extra_whitespaces=False)


@functools.lru_cache(maxsize=None)
def blob(rule: str) -> bytes:
    spec = _normalizer(reference(rule).serialized_normalizer_spec(), rule, "normalizer_spec")
    assert spec.name == rule and spec.precompiled_charsmap
    return spec.precompiled_charsmap


@functools.lru_cache(maxsize=None)
def charsmap(rule: str) -> PrecompiledCharsmap:
    return PrecompiledCharsmap.parse(blob(rule), rule)


def check(rule: str, text: str) -> None:
    expected, offsets = reference(rule).normalize(text, with_offsets=True)
    got, align = charsmap(rule).normalize(text)
    assert got == expected, text[:200]
    assert [s for s, _ in align] == offsets[:-1], text[:200]  # each output character starts where sentencepiece says
    assert all(0 <= s < e <= len(text) for s, e in align)


def _code_points(step: int = 1):
    return [chr(cp) for cp in range(0, 0x110000, step) if not 0xD800 <= cp < 0xE000]


@pytest.mark.heavy
@pytest.mark.parametrize("rule", [RULES[0], *(pytest.param(r, marks=pytest.mark.slow) for r in RULES[1:])])
def test_every_code_point_in_context(rule):
    """Each code point between two letters and after a space, a thousand per call."""
    chars = _code_points()
    for k in range(0, len(chars), 1000):
        check(rule, "".join(f"a{c}b {c}" for c in chars[k : k + 1000]))


@pytest.mark.parametrize("rule", RULES)
def test_sequences_and_offsets(rule):
    for text in ["ｶﾞｷﾞｸﾞ", "a①b②", "ﬁx ﬂ", "x\u0301y", "😀ａＢｃ", "Ǆǅǆ", "ℌ℡㍻", "가각\u1100\u1161", "\u3000\u00a0 x",
                 "A\u030a\u0301", "ﾊﾟﾋﾟ", "", "\x00a\x00", "İstanbul ΣΑΣ ß"]:
        check(rule, text)
    got, align = charsmap(rule).normalize("ｶﾞx")
    assert got == "ガx" and align == [(0, 2), (2, 3)]  # one output character covers both input characters
    got, align = charsmap(rule).normalize("ﬁ")
    assert got == "fi" and align == [(0, 1), (0, 1)]


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=60))
def test_hypothesis_text(text):
    check("nmt_nfkc", text)


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=st.sampled_from("ｶｷﾊﾞﾟ\u3099\u309aａA\u030a\u0301ﬁ①\u3000 e\u0308Ǆ가\u1100\u1161\u11a8"), max_size=30))
def test_hypothesis_combining_runs(text):
    for rule in RULES:
        check(rule, text)


def test_prefix_matches_and_longest():
    cm = charsmap("nmt_nfkc")
    data = "ｶﾞ!".encode()
    matches = cm.prefix_matches(data)
    assert [length for length, _ in matches] == [3, 6]  # "ｶ" alone, and "ｶﾞ"
    assert [cm.output(v) for _, v in matches] == ["カ", "ガ"]
    assert cm.longest_match(data) == (6, "ガ")
    assert cm.longest_match(b"abc") is None
    assert cm.is_inert("\U0001F600") and not cm.is_inert("ｶ") and not cm.is_inert("a")  # "a" starts "a\u0301"


# ------------------------------------------------------------------ crafted blobs
def _units(*units: int) -> bytes:
    return struct.pack(f"<{len(units)}I", *units)


def _blob(trie: bytes, outputs: bytes) -> bytes:
    return struct.pack("<I", len(trie)) + trie + outputs


def _one_rule_units(byte: int, value: int, size: int = 512) -> list[int]:
    """A hand-built double array with a single rule: `byte` -> outputs[value:]."""
    units = [0] * size
    units[0] = 1 << 10  # root: offset 1, so byte c goes to unit 1 ^ c
    child = 1 ^ byte
    units[child] = byte | (1 << 8) | (256 << 10)  # label c, has a leaf, offset 256: the leaf is unit child ^ 256
    if child ^ 256 < size:
        units[child ^ 256] = (1 << 31) | value
    return units


def _one_rule(byte: int, value: int, outputs: bytes, size: int = 512) -> bytes:
    """`_one_rule_units` as a blob, its unused units filled as darts-clone fills them (no walk matches them)."""
    return charsmap_blob(_one_rule_units(byte, value, size), outputs)


def _unchecked(units: list[int], outputs: bytes) -> PrecompiledCharsmap:
    """A map built in code, not parsed: its trie was never walked at load."""
    return PrecompiledCharsmap(array("I", units), outputs, "crafted.model")


def test_hand_built_rule():
    cm = PrecompiledCharsmap.parse(_one_rule(ord("x"), 2, b"a\x00YZ\x00"))
    assert cm.normalize("axbx") == ("aYZbYZ", [(0, 1), (1, 2), (1, 2), (2, 3), (3, 4), (3, 4)])


@pytest.mark.parametrize("data, message", [
    (b"", "only 0 bytes"),
    (b"\x04\x00\x00\x00", "only 4 bytes"),
    (struct.pack("<I", 1000) + b"\x00" * 8, "claims 1,000 bytes"),
    (struct.pack("<I", 6) + b"\x00" * 8, "multiple of 4"),
    (b"\x00" * (MAX_CHARSMAP_BYTES + 1), "the limit is"),
    # found by walking the trie at load (before: only when a text hit the rule)
    (_one_rule(ord("x"), 99, b"a\x00YZ\x00"), "offset 99 lies outside"),
    (_one_rule(ord("x"), 2, b"a\x00YZ"), "no terminating NUL"),
    (_one_rule(ord("x"), 0, b"\xff\xfe\x00"), "not UTF-8"),
    (_one_rule(ord("x"), 0, b"Y\x00", size=300), r"after the bytes 78 \(b'x'\) has its children at units 256..511, "
                                                  "outside the 300-unit array"),  # its leaf would be unit 377
    (_blob(_units(4000 << 10, 0), b"Y\x00"), "at the root has its children at units 3,840..4,095, outside the 2-unit"),
    (out_of_range_charsmap(), "offset 99 lies outside the 5 bytes"),
])
def test_refused_on_parse(data, message):
    with pytest.raises(CharsmapError, match=message) as err:
        PrecompiledCharsmap.parse(data, "crafted.model")
    assert str(err.value).startswith("crafted.model: precompiled_charsmap: ")


@pytest.mark.parametrize("units, outputs, message", [
    (_one_rule_units(ord("x"), 99), b"a\x00YZ\x00", "offset 99 lies outside"),
    (_one_rule_units(ord("x"), 0, size=300), b"Y\x00", "outside the 300-unit array"),  # the leaf is unit 377
    ([4000 << 10, 0], b"Y\x00", "outside the 2-unit array"),  # the root points far away
])
def test_a_map_built_in_code_is_still_checked_on_use(units, outputs, message):
    """A map that was not parsed (so not walked at load) still never reads outside itself."""
    with pytest.raises(CharsmapError, match=message) as err:
        _unchecked(units, outputs).normalize("axb")
    assert "crafted.model" in str(err.value)
    assert isinstance(err.value, ValueError)


@pytest.mark.parametrize("leaf_in_loop", [False, True])
def test_a_trie_that_loops_is_refused_at_load(leaf_in_loop):
    """Issue 33: a 2 kB map whose node for "aa" leads back to itself made every "a" of a text walk to its
    end (n^2/2 bytes: 8,000 "a" took 9 s); it is refused when parsed, naming the bytes of the loop."""
    data = looping_charsmap(leaf_in_loop)
    with pytest.raises(CharsmapError, match=r"the trie loops: after the bytes 61 61 \(b'aa'\) the walk is back"):
        PrecompiledCharsmap.parse(data, "loop.model")
    # the same units, not walked at load: the plain walk goes on past any bound, and with a leaf in the loop
    # every "a" of the text is one more match, up to the end
    cm = _unchecked(list(struct.unpack(f"<{(len(data) - 6) // 4}I", data[4:-2])), b"a\x00")
    assert cm._trie_depth_reference() is None
    assert len(cm.prefix_matches(b"a" * 50, 0, None)) == (50 if leaf_in_loop else 1)


def test_a_nul_walk_through_unused_units_is_a_loop():
    """A unit left zero (label 0, offset 0) is the child by byte 0 of the node whose base is its position,
    and its own child by 0 again: darts-clone gives unused units a label no walk matches, a hand-built
    array that does not loops on NUL bytes."""
    with pytest.raises(CharsmapError, match=r"loops: after the bytes 00 "):
        PrecompiledCharsmap.parse(_blob(_units(*_one_rule_units(ord("x"), 0)), b"Y\x00"))
    assert PrecompiledCharsmap.parse(_one_rule(ord("x"), 0, b"Y\x00")).normalize("\x00x\x00") == ("\x00Y\x00", [
        (0, 1), (1, 2), (2, 3)])


def test_walks_are_bounded_by_the_longest_rule():
    """A chain of `MAX_RULE_BYTES` nodes loads; one more byte is refused (before: any depth loaded, and a
    text walked as deep as the chain from every position)."""
    cm = PrecompiledCharsmap.parse(deep_charsmap(MAX_RULE_BYTES))
    assert cm._check_trie() == cm._trie_depth_reference() == MAX_RULE_BYTES
    assert cm.normalize("a" * 300 + "b")[0] == "a" * 300 + "b"
    with pytest.raises(CharsmapError, match=rf"a rule's input can be longer than {MAX_RULE_BYTES} bytes \(the walk "
                                            r"61 61 61 .* \.\.\. goes on\)"):
        PrecompiledCharsmap.parse(deep_charsmap(MAX_RULE_BYTES + 1), "deep.model")


@pytest.mark.parametrize("rule", [RULES[0], *(pytest.param(r, marks=pytest.mark.slow) for r in RULES[1:])])
def test_real_maps_walked_at_load(rule):
    """sentencepiece's own maps load: no loop, 12 bytes deep (far below `MAX_RULE_BYTES`), every output
    there; the walk's children equal the plain ones (all 256 bytes tried at each node; the depth is checked
    against the plain walk on random arrays below).  Their
    nodes share children (darts-clone builds a DAWG: rules with a common ending share it), which is no loop."""
    cm = charsmap(rule)
    assert cm._check_trie() == 12
    seen, stack, shared = set(), [_offset(cm.units[0])], 0
    while stack:
        base = stack.pop()
        if base in seen:
            shared += 1
            continue
        seen.add(base)
        kids = cm._children(base)
        assert kids == cm._children_reference(base), base
        stack.extend(i ^ _offset(cm.units[i]) for i in kids)
    assert shared > 5_000 and len(seen) > 15_000  # 10,694 shared and 18,994 bases in nmt_nfkc


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 511), st.sampled_from(b"ab\x00\xc3"), st.integers(0, 511), st.booleans()),
                max_size=40))
def test_walk_at_load_equals_the_plain_walk(nodes):
    """On random 512-unit arrays (every base inside them), the walk at load refuses exactly the arrays whose
    plain walk goes on past `MAX_RULE_BYTES` (a loop does), and finds the same depth."""
    units = [0] * 512
    units[0] = 1 << 10
    for position, label, base, leaf in nodes:
        if position:
            units[position] = label | (leaf << 8) | ((position ^ base) << 10)
    units = fill_unused(units)
    for position, _, base, leaf in nodes:  # leaves last: a leaf unit is nobody's child
        if position and leaf and base:
            units[base] = (1 << 31) | 0
    cm = _unchecked(units, b"Y\x00")
    expected = cm._trie_depth_reference()
    try:
        got = cm._check_trie()
    except CharsmapError as err:
        assert expected is None, err
    else:
        assert got == expected


def test_real_blob_truncated_is_refused_or_safe():
    """Every cut of a real blob either parses and normalizes without crashing, or is refused by name."""
    data = blob("nmt_nfkc")
    for cut in (5, 100, 4 + 4 * 1000, len(data) // 2, len(data) - 60803 + 10, len(data) - 1):
        try:
            cm = PrecompiledCharsmap.parse(data[:cut], "cut.model")
            cm.normalize("ｶﾞｷﾞ ①ﬁ Ａ x\u0301 가")
        except CharsmapError:
            pass


def _segments_plain(cm: PrecompiledCharsmap, text: str) -> list[tuple[str, int, int, bool]]:
    """`segments` the plain way: the longest rule tried at every character."""
    out, data, byte_at = [], text.encode("utf-8"), [0]
    for c in text:
        byte_at.append(byte_at[-1] + len(c.encode("utf-8")))
    k = copy_from = 0
    while k < len(text):
        found = cm.longest_match(data, byte_at[k])
        if found is None:
            k += 1
            continue
        end = k + 1
        while byte_at[end] < byte_at[k] + found[0]:
            end += 1
        if copy_from < k:
            out.append((text[copy_from:k], copy_from, k, False))
        out.append((found[1], k, end, True))
        k = copy_from = end
    if copy_from < len(text):
        out.append((text[copy_from:], copy_from, len(text), False))
    return out


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=st.sampled_from("abAe \u0301\u0308\u030aｶﾊﾞﾟ\u3099ﬁ①\u3000Ǆ가\u1100\u1161x😀য়\u09bc\u0930\u093cಿ\u0cd5"),
               max_size=40))
def test_segments_try_only_where_a_rule_can_start(text):
    """`segments` tries the longest rule only at a first or second character of a rule and the one before;
    it gives what trying every character gives."""
    for rule in RULES:
        cm = charsmap(rule)
        assert cm.segments(text) == cm.segments_reference(text) == _segments_plain(cm, text)


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=60))
def test_segments_any_text(text):
    cm = charsmap("nmt_nfkc")
    assert cm.segments(text) == _segments_plain(cm, text)


def test_where_rules_start():
    """A rule's whole input is a first character, a longer one's start a pair; plain letters are neither."""
    starts = PrecompiledCharsmap.parse(blob("nmt_nfkc"))._rule_starts()
    assert starts is not None
    assert {"ｶ", "\u00a0", "①", "ﬁ", "\u3000", "\u09df", "\U0001d400", "\U0002f800"} <= starts.first
    assert {"ｶﾞ", "a\u0301", "\u0928\u093c", "\u1100\u1161", "\u0d46\u0d3e"} <= starts.pairs
    assert not {"a", "П", "吾", " ", "😀", "\u0930", "\u0d3e"} & starts.first
    assert not {"ab", "a ", "\u0d15\u0d3e"} & starts.pairs  # U+0D3E follows only U+0D46 in a rule
    for c in "ｶ\u0301\u093c\u0d3e😀":  # the pattern finds both kinds, and every character past U+FFFF
        assert starts.pattern.fullmatch(c)
    for c in "abAПриπ吾輩 .\u0930":
        assert not starts.pattern.fullmatch(c), repr(c)


def test_crafted_arrays_take_the_plain_scan():
    """A rule ending inside a character, or an array whose walks could leave it (built in code: a parsed one
    is refused at load), is scanned the plain way (which reports the walk that leaves it)."""
    units = [0] * 512
    units[0] = 1 << 10
    child = 1 ^ 0xC3  # "é" is C3 A9: a rule for the lone byte C3
    units[child] = 0xC3 | (1 << 8) | (256 << 10)
    units[child ^ 256] = (1 << 31) | 0
    cm = PrecompiledCharsmap.parse(charsmap_blob(units, b"Y\x00"))
    assert cm._rule_starts() is None
    assert cm.segments("aéb") == [("a", 0, 1, False), ("Y", 1, 2, True), ("b", 2, 3, False)]
    cut = _unchecked(_one_rule_units(ord("x"), 0, size=300), b"Y\x00")
    assert cut._rule_starts() is None
    with pytest.raises(CharsmapError, match="outside the 300-unit array"):
        cut.segments("ab x")
    hand = PrecompiledCharsmap.parse(_one_rule(ord("x"), 2, b"a\x00YZ\x00"))
    starts = hand._rule_starts()
    assert starts is not None and starts.first == {"x"} and not starts.pairs
    assert hand.segments("a\x00xb") == hand.segments_reference("a\x00xb") == [("a\x00", 0, 2, False),
                                                                             ("YZ", 2, 3, True), ("b", 3, 4, False)]
