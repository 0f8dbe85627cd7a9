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

*Crafted blobs.*  The C++ code trusts the blob; here every index is checked:
a trie size past the blob, a node or value index outside the array, an output
offset outside the outputs or a string with no terminating NUL, an output that
is not UTF-8 -- each raises `CharsmapError` naming the byte offset, never an
`IndexError` or a read of unrelated memory.  The blob is limited to
`MAX_CHARSMAP_BYTES`, and a walk is bounded by the input's length.
"""
from __future__ import annotations

import re
import struct
import sys
from array import array
from dataclasses import dataclass, field
from operator import xor
from typing import NamedTuple

__all__ = ["CharsmapError", "PrecompiledCharsmap", "MAX_CHARSMAP_BYTES", "MAX_TRIE_RESULTS", "Span"]

Span = tuple[int, int]

# Real maps are small (nmt_nfkc about 240 kB, nfkc_cf a little more); a larger one is a crafted file.
MAX_CHARSMAP_BYTES = 8_000_000
MAX_TRIE_RESULTS = 32  # Normalizer::kMaxTrieResultsSize: later (longer) prefix matches are not seen
_LEAF_FLAG = 1 << 31


class CharsmapError(ValueError):
    """A ``precompiled_charsmap`` that is malformed: truncated, too big, or with an index outside itself."""

    def __init__(self, source: str, what: str) -> None:
        super().__init__(
            f"{source}: precompiled_charsmap: {what}. The normalization rules are corrupt or crafted; "
            "use the model's original file (SentencePiece's own normalizer refuses or misreads it too)")


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

    @classmethod
    def parse(cls, blob: bytes, source: str = "<precompiled_charsmap>") -> "PrecompiledCharsmap":
        """Split a blob into trie and outputs (``DecodePrecompiledCharsMap``); nothing is trusted yet."""
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
        return cls(units, blob[4 + size :], source)

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
        if text is not None:
            return text
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
        self._cache[value] = text
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
        nothing else; surrogates pass), with children found through an index of the units by
        ``position ^ label`` (a child of the node with offset ``o`` by byte ``c`` sits at ``o ^ c``).
        None (the plain scan) for a crafted array: a rule ending inside a character, a node walked through
        whose 256 children's slots are not all inside the array (darts-clone always builds them so; a walk
        from an untried position could leave it, which must be reported), or more nodes walked than the
        array holds (nodes shared between paths)."""
        units, n = self.units, len(self.units)
        if not n:
            return RuleStarts(re.compile("(?!)"), frozenset(), frozenset())  # no rules
        children: dict[int, list[int]] = {}
        for i, key in enumerate(map(xor, range(n), [u & (_LEAF_FLAG | 0xFF) for u in units])):
            if key < n:  # a leaf unit's label has bit 31: it is no node's child
                children.setdefault(key, []).append(i)
        first: set[str] = set()
        pairs: set[str] = set()
        stack: list[tuple[int, bytes, str]] = [(_offset(units[0]), b"", "")]  # node, character so far, the one before
        budget = n
        while stack:
            node, part, before = stack.pop()
            budget -= 1
            if budget < 0 or (node | 0xFF) >= n:
                return None
            for i in children.get(node, ()):
                c, unit = i ^ node, units[i]
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
        for m in starts.pattern.finditer(text):
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
        while k < len(text):
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
