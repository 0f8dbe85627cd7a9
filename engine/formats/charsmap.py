"""SentencePiece's ``precompiled_charsmap``: normalization rules as a double-array trie plus their outputs.

A SentencePiece model (``normalizer_spec.precompiled_charsmap``) and a Hugging
Face ``Precompiled`` normalizer carry the same blob, written by
``Normalizer::EncodePrecompiledCharsMap`` in google/sentencepiece's
``normalizer.cc``::

    <trie size: uint32 little-endian> <darts-clone double array, trie size bytes> <outputs>

*The trie* maps input byte strings (``"ｶ"``, ``"A\\u030a"``, ``"①"`` ...) to an
offset into *outputs*, a run of NUL-terminated UTF-8 strings (``"カ"``, ``"Å"``,
``"1"``).  It is darts-clone's double array (``third_party/darts_clone/darts.h``):
an array of 32-bit units; from node ``pos``, byte ``c`` leads to
``child = pos ^ offset(unit[pos]) ^ c``, which exists when ``label(unit[child]) == c``;
a node whose unit has the leaf bit stores a key's value in
``unit[child ^ offset(unit[child])]``.  Unit layout (darts-clone's
``DoubleArrayUnit``): bits 0-7 the label (bit 31 set on a leaf unit, so a leaf
never matches a label), bit 8 "has a leaf", bit 9 "offset is shifted by 8",
bits 10-31 the offset; a leaf unit's value is bits 0-30.

*Normalizing* (``Normalizer::NormalizePrefix``): at each position the rule with
the **longest** input that is a prefix of the remaining text wins (among the
first 32 prefix matches, ``kMaxTrieResultsSize``), its output replaces it, and
the scan goes on after it; where no rule matches, one character is copied.
`normalize` does that and returns, for each output character, the original
character span it came from (offsets stay first-class: ``"ｶﾞ"`` becomes ``"ガ"``
covering both input characters).  `segments` tries the longest rule only where one
can start (a character that is a rule's whole input, or the first of two that begin one:
`PrecompiledCharsmap._rule_starts`), one regex search apart; `segments_reference` tries
it at every character.  The whitespace rules of a SentencePiece model
(dummy prefix, extra spaces) are not part of the map: they are applied around
it by `engine.families.sentencepiece.normalize`.

*Hugging Face's* ``Precompiled`` normalizer (the ``spm_precompiled`` crate) reads
the same blob but applies it differently (per grapheme cluster, taking the
first, i.e. shortest, prefix match); `prefix_matches` and `output` are the
primitives both ways are built from.

*Crafted blobs.*  The C++ code trusts the blob; here the whole trie is walked once
when it is parsed (`PrecompiledCharsmap.parse`, `_check_trie`), from the root
through every child a text could reach, and refused with a `CharsmapError` naming
the bytes walked if

* a walk *loops*: a node leads back to a node on the walk that reached it.  A
  double array is a graph, not a tree: a child is wherever ``base ^ c`` points, so
  a crafted unit can point back at its own parent (``a`` -> A -> B -> B -> ...);
  then from every ``a`` the walk goes on to the end of the text and normalizing
  n ``a`` walks n^2/2 bytes.  darts-clone builds its array from a finite, sorted
  list of rules (it shares the common endings of rules, a DAWG, so two nodes may
  have the same children: that is no loop), so a real map never loops;
* a walk is longer than `MAX_RULE_BYTES`: every step of the scan walks at most
  this far, so normalizing costs at most text length x this (sentencepiece's own
  maps are 12 bytes deep);
* a node's 256 child slots are not all inside the array, or a rule's output
  offset lies outside the outputs, has no terminating NUL or is not UTF-8:
  found at load, not when a text first hits that rule.

The trie size past the blob and the blob's size (`MAX_CHARSMAP_BYTES`) are
checked first; the lookups still check every index (a map built in code,
not parsed, is not walked first), so a bad index is never an `IndexError` or a
read of unrelated memory.
"""
from __future__ import annotations

import hashlib
import re
import struct
import sys
from array import array
from dataclasses import dataclass, field
from typing import NamedTuple

from .. import deadline

__all__ = ["CharsmapError", "PrecompiledCharsmap", "MAX_CHARSMAP_BYTES", "MAX_TRIE_RESULTS", "Span"]

Span = tuple[int, int]

# Real maps are small (nmt_nfkc about 240 kB, nfkc_cf a little more); a larger one is a crafted file.
MAX_CHARSMAP_BYTES = 8_000_000
MAX_TRIE_RESULTS = 32  # Normalizer::kMaxTrieResultsSize: later (longer) prefix matches are not seen
# sha256 of blobs whose whole trie `_check_trie` walked and found sound (a blob's bytes decide the result; a
# refused one is not kept, so it is refused again, with its message, every time).
_SOUND: dict[bytes, None] = {}

# The longest walk the trie may allow, in UTF-8 bytes: the longest rule input, or the longest prefix of one.
# Each step of the scan walks at most this far, so it bounds the cost of a text at its length x this.
# sentencepiece's four maps (nmt_nfkc, nfkc, nmt_nfkc_cf, nfkc_cf, the maps of T5, ALBERT, XLM-R ...) are 12
# bytes deep.  A rule set of one's own (``normalization_rule_tsv``) may hold longer sequences -- an emoji
# ZWJ sequence of ten code points is 35 bytes -- so the limit leaves room for 64 four-byte characters.
MAX_RULE_BYTES = 256
_LEAF_FLAG = 1 << 31
_LOW_BYTES = bytes(range(256))


class CharsmapError(ValueError):
    """A ``precompiled_charsmap`` that is malformed: truncated, too big, with an index outside itself, or a
    trie whose walks loop or run past `MAX_RULE_BYTES`."""

    def __init__(self, source: str, what: str,
                 note: str = "SentencePiece's own normalizer refuses or misreads it too") -> None:
        self.source, self.what = source, what
        super().__init__(
            f"{source}: precompiled_charsmap: {what}. The normalization rules are corrupt or crafted; "
            f"use the model's original file ({note})")


def _label(unit: int) -> int:
    return unit & (_LEAF_FLAG | 0xFF)


def _offset(unit: int) -> int:
    return (unit >> 10) << ((unit & (1 << 9)) >> 6)


class RuleStarts(NamedTuple):
    """Where a rule of a map can start (`PrecompiledCharsmap._rule_starts`)."""

    pattern: re.Pattern  # finds each character that is in `first` or second in one of `pairs` (and more)
    first: frozenset[str]  # characters that are a rule's whole input
    pairs: frozenset[str]  # the first two characters of each longer rule's input


@dataclass(frozen=True, eq=False)
class PrecompiledCharsmap:
    """A parsed charsmap: the double array's units and the outputs, checked on use (see the module doc)."""

    units: array = field(repr=False)
    outputs: bytes = field(repr=False)
    source: str = "<precompiled_charsmap>"
    _cache: dict = field(default_factory=dict, repr=False)  # output offset -> text; distinct offsets < len(outputs)
    _inert: dict = field(default_factory=dict, repr=False)  # character -> True if no rule starts with it
    _live: list = field(default_factory=list, repr=False)  # [`_rule_starts`]: built on first use
    _keys: list = field(default_factory=list, repr=False)  # [`_child_keys`]: built on first use

    @classmethod
    def parse(cls, blob: bytes, source: str = "<precompiled_charsmap>") -> "PrecompiledCharsmap":
        """Split a blob into trie and outputs (``DecodePrecompiledCharsMap``) and walk the whole trie once
        (`_check_trie`): a map whose walks loop, run past `MAX_RULE_BYTES`, leave the array, or reach an
        output that is not there is refused here, before any text."""
        blob = bytes(blob)
        if len(blob) > MAX_CHARSMAP_BYTES:
            raise CharsmapError(source, f"{len(blob):,} bytes; the limit is {MAX_CHARSMAP_BYTES:,} "
                                        "(real maps are a few hundred kB)")
        if len(blob) <= 4:
            raise CharsmapError(source, f"only {len(blob)} bytes; it needs a 4-byte trie size and the trie")
        (size,) = struct.unpack_from("<I", blob)
        if size > len(blob) - 4:  # normalizer.cc compares with the whole blob and may read 3 bytes past it
            raise CharsmapError(source, f"the trie claims {size:,} bytes but only {len(blob) - 4:,} follow the size")
        if size % 4 or size == 0:
            raise CharsmapError(source, f"the trie size {size:,} is not a positive multiple of 4 (32-bit units)")
        units = array("I")
        units.frombytes(blob[4 : 4 + size])
        if sys.byteorder == "big":
            units.byteswap()
        charsmap = cls(units, blob[4 + size :], source)
        digest = hashlib.sha256(blob).digest()
        if digest not in _SOUND:  # the walk takes ~45 ms on a real map; the same blob is loaded again and again
            charsmap._check_trie()
            if len(_SOUND) >= 64:  # bounded: forget the oldest
                del _SOUND[next(iter(_SOUND))]
            _SOUND[digest] = None
        return charsmap

    # ------------------------------------------------------------------ the whole trie, at load
    def _child_keys(self) -> bytes:
        """Per unit, ``label ^ (position & 0xFF)``: a unit at position i is the child by byte c of a node
        with base b when ``i == b ^ c`` and its label is c, that is when i lies in b's block of 256 units
        and its key is ``b & 0xFF``.  Built with two big-integer XORs (C speed, even for 2 million units)."""
        if not self._keys:
            n = len(self.units)
            labels = array("I", self.units)
            if sys.byteorder == "big":
                labels.byteswap()
            low = labels.tobytes()[0::4]  # the low byte of each little-endian unit: its label
            positions = (_LOW_BYTES * (n // 256 + 1))[:n]
            keys = (int.from_bytes(low, "little") ^ int.from_bytes(positions, "little")).to_bytes(n, "little")
            self._keys.append(keys)
        return self._keys[0]

    def _children(self, base: int) -> list[int]:
        """The positions of the children of the node with `base` (bytes.find over its block's keys; a leaf
        unit, bit 31 set, is nobody's child); `_children_reference` tries all 256 bytes.  The block must
        lie inside the array (`_check_trie` makes sure before asking)."""
        keys, units = self._child_keys(), self.units
        low = base & ~0xFF
        block = keys[low : low + 256]
        want = base & 0xFF
        out = []
        j = block.find(want)
        while j >= 0:
            if not units[low + j] >> 31:
                out.append(low + j)
            j = block.find(want, j + 1)
        return out

    def _children_reference(self, base: int) -> list[int]:
        """`_children` the plain way: every byte c, child ``base ^ c`` if its label is c (sorted positions)."""
        units, n = self.units, len(self.units)
        return sorted(base ^ c for c in range(256) if base ^ c < n and _label(units[base ^ c]) == c)

    def _check_trie(self) -> int:
        """Walk every node a text can reach, depth first, and return the longest walk in bytes; refuse
        (`CharsmapError`, naming the bytes walked) a loop, a walk past `MAX_RULE_BYTES`, a node whose
        children's block leaves the array, and a rule output that is not there (see the module doc).

        Nodes are told apart by their *base* (position ^ offset): two nodes with one base have the same
        children, as darts-clone shares the common endings of rules; so a base is walked below once, and a
        walk that comes back to a base already on it can go round for ever.  Memory stays a few bytes per
        unit (an array of depths, a bitmap of the outputs checked), however the array is crafted.
        `_trie_depth_reference` is the plain recursion."""
        units, n = self.units, len(self.units)
        root = _offset(units[0])
        self._check_block(root, [])
        longest = array("i", [-1]) * n  # base -> the longest walk below it, in bytes, once walked
        checked = bytearray(len(self.outputs))  # output offsets found good
        on_walk = {root}
        labels: list[int] = []  # the bytes of the walk to the top frame
        frames = [[root, self._children(root), 0, 0]]  # base, children, next child, longest walk below so far
        while frames:
            frame = frames[-1]
            base, kids, k = frame[0], frame[1], frame[2]
            if k == len(kids):
                frames.pop()
                on_walk.discard(base)
                longest[base] = frame[3]
                if frames:
                    frames[-1][3] = max(frames[-1][3], frame[3] + 1)
                    labels.pop()
                continue
            frame[2] = k + 1
            i = kids[k]
            unit = units[i]
            child = i ^ _offset(unit)
            if child in on_walk:
                raise CharsmapError(self.source, f"the trie loops: after the bytes {_hex(labels, i ^ base)} the walk "
                                                 "is back at a node it passed, so a text repeating them is walked to "
                                                 "its end from every position",
                                    "sentencepiece's builder never writes a loop")
            if (child | 0xFF) >= n:
                self._check_block(child, [*labels, (i ^ base) & 0xFF])
            if (unit >> 8) & 1:
                value = units[child] & (_LEAF_FLAG - 1)
                if value >= len(checked) or not checked[value]:
                    self._output_text(value)
                    checked[value] = 1
            below = longest[child]
            if len(labels) + 1 + max(below, 0) > MAX_RULE_BYTES:
                walk = [*labels, (i ^ base) & 0xFF][:16]
                raise CharsmapError(self.source, f"a rule's input can be longer than {MAX_RULE_BYTES} bytes (the walk "
                                                 f"{_hex(walk)} ... goes on)", "sentencepiece's own maps are 12 bytes deep")
            if below >= 0:
                frame[3] = max(frame[3], below + 1)
                continue
            labels.append((i ^ base) & 0xFF)
            on_walk.add(child)
            frames.append([child, self._children(child), 0, 0])
        return longest[root]

    def _check_block(self, base: int, walk: list[int]) -> None:
        if (base | 0xFF) >= len(self.units):
            where = f"after the bytes {_hex(walk)}" if walk else "at the root"
            raise CharsmapError(self.source, f"a trie node {where} has its children at units {base & ~0xFF:,}.."
                                             f"{base | 0xFF:,}, outside the {len(self.units):,}-unit array")

    def _trie_depth_reference(self, limit: int = MAX_RULE_BYTES) -> int | None:
        """The longest walk from the root, by recursion over `_children_reference` (a walk's depth below a
        base remembered); None if a walk passes `limit` bytes, as a loop's does.  For tests."""
        units = self.units
        memo: dict[int, int] = {}

        def below(base: int, depth: int) -> int | None:
            if depth > limit:
                return None
            if base not in memo:
                deepest = 0
                for i in self._children_reference(base):
                    d = below(i ^ _offset(units[i]), depth + 1)
                    if d is None:
                        return None
                    deepest = max(deepest, d + 1)
                memo[base] = deepest
            return memo[base] if depth + memo[base] <= limit else None

        return below(_offset(units[0]), 0)

    # ------------------------------------------------------------------ the trie
    def _unit(self, pos: int, key_at: int) -> int:
        if pos >= len(self.units):
            raise CharsmapError(self.source, f"a trie node (unit {pos:,}, reached at input byte {key_at}) lies "
                                             f"outside the {len(self.units):,}-unit array")
        return self.units[pos]

    def prefix_matches(self, data: bytes, start: int = 0, limit: int | None = MAX_TRIE_RESULTS) -> list[tuple[int, int]]:
        """``(length, output offset)`` of every rule whose input is a prefix of ``data[start:]``, shortest first.

        darts-clone's ``commonPrefixSearch``; like SentencePiece, only the
        first `limit` matches are returned (None: all).
        """
        units, n = self.units, len(self.units)
        out: list[tuple[int, int]] = []
        if not n:
            return out
        pos = _offset(units[0])
        for i in range(start, len(data)):
            c = data[i]
            pos ^= c
            unit = units[pos] if pos < n else self._unit(pos, i)
            if _label(unit) != c:
                return out
            pos ^= _offset(unit)
            if (unit >> 8) & 1:
                leaf = units[pos] if pos < n else self._unit(pos, i)
                if limit is None or len(out) < limit:
                    out.append((i + 1 - start, leaf & (_LEAF_FLAG - 1)))
        return out

    def longest_match(self, data: bytes, start: int = 0) -> tuple[int, str] | None:
        """SentencePiece's choice at `start`: ``(input length in bytes, output text)`` of the longest rule, or None."""
        matches = self.prefix_matches(data, start)
        if not matches:
            return None
        length, value = max(matches, key=lambda m: m[0])  # lengths grow, so this is the last one
        return length, self.output(value)

    def output(self, value: int) -> str:
        """The output string at offset `value` of the outputs (up to its NUL)."""
        text = self._cache.get(value)
        if text is None:
            text = self._cache[value] = self._output_text(value)
        return text

    def _output_text(self, value: int) -> str:
        """`output`, not cached: `CharsmapError` for an offset outside the outputs, no NUL, or not UTF-8."""
        outputs = self.outputs
        if value >= len(outputs):
            raise CharsmapError(self.source, f"a rule's output offset {value:,} lies outside the "
                                             f"{len(outputs):,} bytes of outputs")
        end = outputs.find(b"\x00", value)
        if end < 0:
            raise CharsmapError(self.source, f"the output at offset {value:,} has no terminating NUL byte")
        try:
            text = outputs[value:end].decode("utf-8")
        except UnicodeDecodeError as err:
            raise CharsmapError(self.source, f"the output at offset {value:,} is not UTF-8 "
                                             f"({err.reason} at byte {value + err.start})") from None
        return text

    def is_inert(self, char: str) -> bool:
        """True if no rule's input starts with `char` (it is always copied as it is)."""
        known = self._inert.get(char)
        if known is None:
            known = self._walk_dies(char.encode("utf-8", "surrogatepass"))
            if len(self._inert) < 1 << 16:  # bounded: distinct characters of the texts seen
                self._inert[char] = known
        return known

    def _starts(self) -> RuleStarts | None:
        """`_rule_starts`, built once (two threads may both build it: the same value)."""
        if not self._live:
            self._live.append(self._rule_starts())
        return self._live[0]

    def _rule_starts(self) -> RuleStarts | None:
        """Where a rule can start: the characters that are a rule's whole input (*first*), the pairs of
        characters that begin a longer one (*pairs*), and a pattern finding both kinds of character.

        Why it is enough: a rule matches at character k when the trie walk from k reaches a leaf.  In a
        map whose rules end on character boundaries, that leaf is at the end of text[k] (then text[k] is a
        first character), or the walk went through all of text[k] and all of text[k+1] (``text[k:k+2]`` is
        a pair).  So the scan searches the characters that are a first character or the second of a pair,
        and tries the character before one (if it makes a pair with it) and the character itself (if it is
        a first one); every other position is a copied character, as in `segments_reference`.

        The trie is walked two characters deep from the root, over valid UTF-8 only (a str's encoding holds
        nothing else; surrogates pass), with children found by `_children` (a child of the node with base
        ``b`` by byte ``c`` sits at ``b ^ c``: one search of the block's keys, no index of all the units).
        None (the plain scan) for a crafted array: a rule ending inside a character, a node walked through
        whose 256 children's slots are not all inside the array (darts-clone always builds them so; a walk
        from an untried position could leave it, which must be reported), or more nodes walked than the
        array holds (nodes shared between paths).  A parsed map was refused for the last two already
        (`_check_trie`); a map built in code was not."""
        units, n = self.units, len(self.units)
        if not n:
            return RuleStarts(re.compile("(?!)"), frozenset(), frozenset())  # no rules
        first: set[str] = set()
        pairs: set[str] = set()
        stack: list[tuple[int, bytes, str]] = [(_offset(units[0]), b"", "")]  # node, character so far, the one before
        budget = n
        while stack:
            node, part, before = stack.pop()
            budget -= 1
            if budget < 0 or (node | 0xFF) >= n:
                return None
            for i in self._children(node):
                c, unit = (i ^ node) & 0xFF, units[i]
                if part and not 0x80 <= c < 0xC0 or not part and not (c < 0x80 or 0xC2 <= c < 0xF5):
                    continue  # not where a byte of a character's UTF-8 can be: no text walks here
                got = part + bytes((c,))
                leaf = (unit >> 8) & 1
                if len(got) < _utf8_size(got[0]):
                    if leaf:  # a rule ending inside a character
                        return None
                    stack.append((i ^ _offset(unit), got, before))
                    continue
                try:
                    char = got.decode("utf-8", "surrogatepass")
                except UnicodeDecodeError:
                    continue  # overlong or past U+10FFFF: no character encodes to it
                if before:
                    pairs.add(before + char)
                    continue
                if leaf:
                    first.add(char)
                stack.append((i ^ _offset(unit), b"", char))
        # Python's re tests a class of code points up to U+FFFF with a table but a long list of ranges past
        # it one by one: the pattern takes every character past U+FFFF, the sets tell.
        chars = sorted(map(ord, first | {p[1] for p in pairs}))
        pattern = re.compile(_char_class([c for c in chars if c <= 0xFFFF], bool(chars) and chars[-1] > 0xFFFF))
        return RuleStarts(pattern, frozenset(first), frozenset(pairs))

    def _walk_dies(self, data: bytes) -> bool:
        """True if the trie has no path through all of `data` and no rule ends inside it."""
        units, n = self.units, len(self.units)
        if not n:
            return True
        pos = _offset(units[0])
        for i, c in enumerate(data):
            pos ^= c
            unit = units[pos] if pos < n else self._unit(pos, i)
            if _label(unit) != c:
                return True
            pos ^= _offset(unit)
            if (unit >> 8) & 1 and i + 1 < len(data):
                return False  # a (crafted) rule ending inside the character: let the full scan handle it
        return False

    # ------------------------------------------------------------------ normalizing
    def normalize(self, text: str) -> tuple[str, list[Span]]:
        """The rules applied to `text` (longest match first, as SentencePiece) and, per output
        character, the ``[start, end)`` of `text` it came from.

        Only the map: no dummy prefix, no whitespace rules.  A rule's output
        characters all point at the whole input the rule consumed.
        """
        pieces: list[str] = []
        align: list[Span] = []
        for out, start, end, rule in self.segments(text):
            pieces.append(out)
            if rule:
                align.extend([(start, end)] * len(out))
            else:
                align.extend(zip(range(start, end), range(start + 1, end + 1)))
        return "".join(pieces), align

    def segments(self, text: str) -> list[tuple[str, int, int, bool]]:
        """``(output, char start, char end, rule)`` for each step of the scan: a rule applied (`rule`
        true), or a run of characters copied unchanged (``NormalizePrefix`` in a loop, over `text`'s
        UTF-8 bytes).  The longest rule is tried only where one can start (`_rule_starts`);
        `segments_reference` tries it at every character."""
        starts = self._starts()
        if starts is None:
            return self.segments_reference(text)
        first, pairs = starts.first, starts.pairs
        out: list[tuple[str, int, int, bool]] = []
        data: bytes | None = None
        at_char = at_byte = 0  # a character index and its byte offset, moved forward as the scan goes
        copy_from = 0  # the first character no rule has consumed
        limit = deadline.current()  # each rule tried may walk MAX_RULE_BYTES: a caller's time limit is checked
        for m in starts.pattern.finditer(text):
            if limit is not None:
                limit.check()
            p = m.start()
            for k in (p - 1, p):
                if k < copy_from or (text[k:p + 1] not in pairs if k < p else text[p] not in first):
                    continue
                if data is None:
                    data = text.encode("utf-8", "surrogatepass")
                at_byte += len(text[at_char:k].encode("utf-8", "surrogatepass"))
                at_char = k
                found = self.longest_match(data, at_byte)
                if found is None:
                    continue
                end = self._rule_end(text, k, found[0])
                if copy_from < k:
                    out.append((text[copy_from:k], copy_from, k, False))
                out.append((found[1], k, end, True))
                copy_from = end
        if copy_from < len(text):
            out.append((text[copy_from:], copy_from, len(text), False))
        return out

    def segments_reference(self, text: str) -> list[tuple[str, int, int, bool]]:
        """`segments` the plain way: the longest rule tried at every character."""
        out: list[tuple[str, int, int, bool]] = []
        data = text.encode("utf-8", "surrogatepass")
        k = copy_from = at_byte = 0
        limit = deadline.current()
        while k < len(text):
            if limit is not None:
                limit.check()
            found = self.longest_match(data, at_byte)
            if found is None:
                at_byte += len(text[k].encode("utf-8", "surrogatepass"))
                k += 1
                continue
            end = self._rule_end(text, k, found[0])
            if copy_from < k:
                out.append((text[copy_from:k], copy_from, k, False))
            out.append((found[1], k, end, True))
            at_byte += len(text[k:end].encode("utf-8", "surrogatepass"))
            k = copy_from = end
        if copy_from < len(text):
            out.append((text[copy_from:], copy_from, len(text), False))
        return out

    @staticmethod
    def _rule_end(text: str, k: int, length: int) -> int:
        """The character after a rule of `length` bytes at character `k`.  A rule ends on a character
        boundary in every real map; a crafted one ending inside a character consumes that whole character."""
        end, size = k, 0
        while size < length:
            size += len(text[end].encode("utf-8", "surrogatepass"))
            end += 1
        return end


def _hex(walk: list[int], last: int | None = None) -> str:
    """Bytes of a walk (and a `last` one), as the text would hold them: ``61 61 (b'aa')``."""
    walk = walk if last is None else [*walk, last & 0xFF]
    return " ".join(f"{b:02x}" for b in walk) + f" ({bytes(walk)!r})"


def _utf8_size(lead: int) -> int:
    """Bytes of the UTF-8 character starting with byte `lead`."""
    return 1 if lead < 0x80 else 2 if lead < 0xE0 else 3 if lead < 0xF0 else 4


def _char_class(chars: list[int], past_bmp: bool) -> str:
    """A regex character class of the sorted code points `chars` in ranges, and every one past U+FFFF if
    `past_bmp`; a pattern matching nothing if that is none."""
    merged: list[list[int]] = []
    for c in chars:
        if merged and c == merged[-1][1] + 1:
            merged[-1][1] = c
        else:
            merged.append([c, c])
    if past_bmp:
        merged.append([0x10000, 0x10FFFF])
    if not merged:
        return "(?!)"
    return "[" + "".join(f"\\U{low:08x}" if low == high else f"\\U{low:08x}-\\U{high:08x}"
                         for low, high in merged) + "]"
