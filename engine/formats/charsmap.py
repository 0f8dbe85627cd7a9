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
covering both input characters).  The whitespace rules of a SentencePiece model
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

__all__ = ["CharsmapError", "PrecompiledCharsmap", "MAX_CHARSMAP_BYTES", "MAX_TRIE_RESULTS", "Span"]

Span = tuple[int, int]

# Real maps are small (nmt_nfkc about 240 kB, nfkc_cf a little more); a larger one is a crafted file.
MAX_CHARSMAP_BYTES = 8_000_000
MAX_SKIPPABLE = 20_000  # non-ASCII characters the scan's pattern skips (a character class that size compiles fast)
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


@dataclass(frozen=True, eq=False)
class PrecompiledCharsmap:
    """A parsed charsmap: the double array's units and the outputs, checked on use (see the module doc)."""

    units: array = field(repr=False)
    outputs: bytes = field(repr=False)
    source: str = "<precompiled_charsmap>"
    _cache: dict = field(default_factory=dict, repr=False)  # output offset -> text; distinct offsets < len(outputs)
    _inert: dict = field(default_factory=dict, repr=False)  # character -> True if no rule starts with it
    _pairs: dict = field(default_factory=dict, repr=False)  # two characters -> True if no rule matches at the first
    _skip: list = field(default_factory=list, repr=False)  # [pattern, quiet ASCII class, live lead bytes, skippable]

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

    def _pair_dies(self, pair: str) -> bool:
        """True if no rule can match at the first of two characters: no rule ends within the first, and
        the trie has no path on through the second's first byte.  (NFKC-like maps hold rules that start
        with common letters, ``a`` + a combining accent, so `is_inert` alone skips little of real text.)"""
        known = self._pairs.get(pair)
        if known is None:
            data = pair.encode("utf-8", "surrogatepass")
            first = len(pair[0].encode("utf-8", "surrogatepass"))
            known = self._walk_dies(data[: first + 1])
            if len(self._pairs) < 1 << 16:  # bounded: distinct pairs of the texts seen
                self._pairs[pair] = known
        return known

    def _looked_at(self) -> re.Pattern:
        """Runs of the characters `segments` must look at: each ASCII character that a rule matches at
        when an ASCII character follows (none in the NFKC-like maps: their ASCII rules go on with
        combining marks), and every non-ASCII one not yet known to be *skippable*.  An ASCII character
        before a looked-at non-ASCII one is looked at from there.

        A non-ASCII character is skippable when no rule starts with it (`is_inert`) and no rule that
        starts with a quiet ASCII character (one not looked at) goes on into it: the trie has no path
        from any quiet ASCII character through its first byte.  Then no rule can start at it or run
        through it from the character before, so skipping it as a copied character is what the
        character-by-character scan does.  (A looked-at character before it gets the full scan.)
        `segments` learns skippable characters as it meets them (bounded), and the pattern is rebuilt."""
        if not self._skip:
            quiet = []
            for c in range(128):
                try:
                    if all(self._walk_dies(bytes((c, d))) for d in range(128)):
                        quiet.append(chr(c))
                except CharsmapError:  # a crafted trie: look at that character, where the scan reports it
                    pass
            live = set()  # first bytes of a UTF-8 sequence that a path from a quiet ASCII character reaches
            for c in quiet:
                for lead in range(0xC2, 0xF5):
                    try:
                        if not self._walk_dies(bytes((ord(c), lead))):
                            live.add(lead)
                    except CharsmapError:
                        live.add(lead)
            quiet_class = "".join(map(re.escape, quiet))
            self._skip.extend([None, quiet_class, frozenset(live), set()])
            self._skip[0] = re.compile("[^" + quiet_class + "]+" if quiet else "(?s:.+)")
        return self._skip[0]

    def _learn_skippable(self, chars: set[str]) -> None:
        """Add non-ASCII characters `is_inert` said yes to, whose first byte no quiet ASCII path reaches,
        to the pattern's skipped class (at most `MAX_SKIPPABLE`: the distinct characters of the texts seen)."""
        _, quiet_class, live, known = self._skip
        new = {c for c in chars if c not in known and c.encode("utf-8", "surrogatepass")[0] not in live}
        if not new or not quiet_class or len(known) + len(new) > MAX_SKIPPABLE:
            return
        known |= new
        self._skip[0] = re.compile("[^" + quiet_class + "".join(map(re.escape, sorted(known))) + "]+")

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
        UTF-8 bytes)."""
        out: list[tuple[str, int, int, bool]] = []
        inert, pair_dies = self.is_inert, self._pair_dies
        inert_get, pair_get = self._inert.get, self._pairs.get  # the learned answers, without a call
        find = self._looked_at().search
        inert_met: set[str] = set()  # non-ASCII characters no rule starts with, met on the way
        data: bytes | None = None
        at_char = at_byte = 0  # a character index and its byte offset, moved forward as the scan goes
        k, n = 0, len(text)
        copy_from = 0
        while k < n:
            m = find(text, k)
            if m is None:
                break
            first, last = m.start(), m.end() - 1  # a run of characters to look at, one by one
            # an ASCII character before a non-ASCII one may start a rule through it
            k = first - 1 if first > k and text[first] >= "\x80" else first
            while k <= last:
                quiet = inert_get(text[k])
                if quiet is None:
                    quiet = inert(text[k])
                if quiet and text[k] >= "\x80":
                    inert_met.add(text[k])
                if not quiet and k + 1 < n:
                    quiet = pair_get(text[k:k + 2])
                    if quiet is None:
                        quiet = pair_dies(text[k:k + 2])
                if quiet:
                    k += 1
                    continue
                if data is None:
                    data = text.encode("utf-8", "surrogatepass")
                at_byte += len(text[at_char:k].encode("utf-8", "surrogatepass"))
                at_char = k
                found = self.longest_match(data, at_byte)
                if found is None:
                    k += 1
                    continue
                length, replacement = found
                end, stop = k, at_byte + length
                while at_byte < stop:  # a rule ends on a character boundary in every real map; a crafted
                    at_byte += len(text[end].encode("utf-8", "surrogatepass"))  # one ending inside a
                    end += 1  # character consumes that whole character
                at_char = end
                if copy_from < k:
                    out.append((text[copy_from:k], copy_from, k, False))
                out.append((replacement, k, end, True))
                k = copy_from = end
        if copy_from < n:
            out.append((text[copy_from:n], copy_from, n, False))
        if inert_met:
            self._learn_skippable(inert_met)
        return out

