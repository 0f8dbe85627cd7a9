r"""Comparing encodings on one text: counts, where they cut, and what to draw.

Everything here is plain data in, plain data out, so the playground only has
to draw it.  Three ideas:

* **Stats.** Tokens, characters and UTF-8 bytes of a text under one encoding,
  and the two ratios people quote: bytes per token (compression) and
  characters per token.
* **Boundary diff.** Two encodings of the same text both end at byte 0 and at
  the last byte; in between each one *cuts* the text at the start of every
  token.  A cut that every encoding makes is *shared*; a cut only some make is
  where they disagree.  Cuts are given as byte offsets (exact: byte-level BPE
  may cut inside a character) and as character offsets (the character the cut
  falls in or before).
* **Display units.** Byte-level BPE may split one character over several
  tokens (``'😀'`` is ``[47249, 222]`` in gpt2).  Decoding those tokens one by
  one gives ``'�'``; instead we group consecutive tokens that share a
  character into one unit drawn once, carrying all their ids.  Given the
  text, units go further: they end only where a *user-perceived character*
  ends (an extended grapheme cluster, regex ``\X``), so 👨‍👩‍👧, 🇯🇵, 👋🏽 and
  a Devanagari letter with its vowel sign are each drawn -- and compared --
  as one thing, never as parts that a browser would draw on dotted circles.

    >>> from engine import get_encoding
    >>> enc = get_encoding("gpt2")
    >>> [(u.text, u.ids) for u in group_tokens(enc.tokenize("hi 😀"))]
    [('hi', (5303,)), (' 😀', (30325, 222))]
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Mapping, Sequence

import regex

from ..records import Token
from ..text import repair_surrogates


@dataclass(frozen=True)
class EncodingStats:
    """How one encoding measures one text."""

    name: str
    tokens: int
    chars: int
    bytes: int

    @property
    def bytes_per_token(self) -> float:
        return self.bytes / self.tokens if self.tokens else 0.0

    @property
    def chars_per_token(self) -> float:
        return self.chars / self.tokens if self.tokens else 0.0


def text_stats(name: str, text: str, n_tokens: int) -> EncodingStats:
    """Stats for `text` encoded to `n_tokens` tokens (characters are code points, as `len`)."""
    return EncodingStats(name, n_tokens, len(text), len(repair_surrogates(text).encode("utf-8")))


# ------------------------------------------------------------------ display units
@dataclass(frozen=True)
class DisplayUnit:
    """Whole characters ``char_start:char_end`` covered by one or more consecutive tokens.

    `split` is true when a character is shared by several tokens (then `ids`
    has them all); a unit of one ordinary token has exactly one id.
    """

    index: int
    tokens: tuple[Token, ...]

    @property
    def ids(self) -> tuple[int, ...]:
        return tuple(t.id for t in self.tokens)

    @property
    def bytes(self) -> bytes:
        return b"".join(t.bytes for t in self.tokens)

    @property
    def text(self) -> str:
        return self.bytes.decode("utf-8", errors="replace")

    @property
    def split(self) -> bool:
        return len(self.tokens) > 1

    @property
    def special(self) -> bool:
        return any(t.special for t in self.tokens)

    @property
    def byte_start(self) -> int:
        return self.tokens[0].byte_start

    @property
    def byte_end(self) -> int:
        return self.tokens[-1].byte_end

    @property
    def char_start(self) -> int:
        return self.tokens[0].char_start

    @property
    def char_end(self) -> int:
        return self.tokens[-1].char_end


_GRAPHEME = regex.compile(r"\X")


@lru_cache(maxsize=8)
def grapheme_ends(text: str) -> frozenset[int]:
    r"""Character offsets where an extended grapheme cluster of `text` ends (``\X``).

    >>> sorted(grapheme_ends("a🇯🇵"))
    [1, 3]
    """
    return frozenset(m.end() for m in _GRAPHEME.finditer(text))


def group_tokens(tokens: Sequence[Token], text: str | None = None) -> list[DisplayUnit]:
    """Group consecutive tokens so every unit is whole characters -- whole graphemes given `text`.

    A token ending inside a character shares that character with the next
    token (``next.char_start < this.char_end``); the chain continues until a
    token ends on a character boundary.  With `text` (the string the tokens
    were made from) it continues until a token ends where a grapheme cluster
    of `text` ends, so a flag or a letter with its combining marks is one unit.
    """
    ends = grapheme_ends(text) if text is not None else None
    units: list[DisplayUnit] = []
    run: list[Token] = []
    for tok in tokens:
        if run and tok.char_start >= run[-1].char_end and (ends is None or run[-1].char_end in ends):
            units.append(DisplayUnit(len(units), tuple(run)))
            run = []
        run.append(tok)
    if run:
        units.append(DisplayUnit(len(units), tuple(run)))
    return units


def group_tokens_reference(tokens: Sequence[Token], text: str) -> list[DisplayUnit]:
    """The plain definition, for tests: close a unit at every token end that is a grapheme end
    of `text` and not overlapped by the next token."""
    bounds = {0, len(text)} | {m.end() for m in regex.finditer(r"\X", text)}
    units: list[DisplayUnit] = []
    start = 0
    for i, tok in enumerate(tokens):
        nxt = tokens[i + 1] if i + 1 < len(tokens) else None
        if nxt is None or (tok.char_end in bounds and nxt.char_start >= tok.char_end):
            units.append(DisplayUnit(len(units), tuple(tokens[start : i + 1])))
            start = i + 1
    return units


# ------------------------------------------------------------------ boundary diff
@dataclass(frozen=True)
class Cut:
    """A boundary between two drawn units: the byte (and character) offset where a unit starts.

    Cuts are taken between display units, so given the text every cut falls
    between two grapheme clusters (a cut byte-level BPE makes inside 😀 or
    inside 🇯🇵 is not a place where the *text* is cut).  `by` names the
    encodings that cut here.
    """

    byte: int
    char: int
    by: tuple[str, ...]


@dataclass(frozen=True)
class BoundaryDiff:
    encodings: tuple[str, ...]
    cuts: tuple[Cut, ...]

    @property
    def shared(self) -> tuple[Cut, ...]:
        """Cuts every encoding makes."""
        return tuple(c for c in self.cuts if len(c.by) == len(self.encodings))

    @property
    def differing(self) -> tuple[Cut, ...]:
        """Cuts only some encodings make."""
        return tuple(c for c in self.cuts if len(c.by) < len(self.encodings))

    def shared_bytes(self) -> frozenset[int]:
        return frozenset(c.byte for c in self.shared)

    @property
    def agreement(self) -> float:
        """Shared cuts as a fraction of all cuts (1.0 when nobody cuts)."""
        return len(self.shared) / len(self.cuts) if self.cuts else 1.0


def token_cuts(tokens: Sequence[Token]) -> dict[int, tuple[int, bool]]:
    """``{byte offset: (char offset, inside a character)}`` for every token start but the first."""
    cuts: dict[int, tuple[int, bool]] = {}
    for prev, tok in zip(tokens, tokens[1:]):
        cuts[tok.byte_start] = (tok.char_start, tok.char_start < prev.char_end)
    return cuts


def _check_same_text(token_lists: Mapping[str, Sequence[Token]]) -> None:
    lengths = {name: (toks[-1].byte_end if toks else 0) for name, toks in token_lists.items()}
    if len(set(lengths.values())) > 1:
        detail = ", ".join(f"{n}: {b} bytes" for n, b in lengths.items())
        raise ValueError(f"token lists cover different texts ({detail}); tokenize the same text with each encoding")


def boundary_diff(token_lists: Mapping[str, Sequence[Token]], text: str | None = None) -> BoundaryDiff:
    """Where 2–4 tokenizations of the *same* text cut it, and which encodings cut there.

    A cut is the start of a display unit (`group_tokens`): with `text`, only
    grapheme boundaries count.  Raises ValueError if the lists do not cover
    the same number of bytes (they were not made from the same text).
    """
    _check_same_text(token_lists)
    return unit_diff({name: group_tokens(toks, text) for name, toks in token_lists.items()})


def unit_diff(unit_lists: Mapping[str, Sequence[DisplayUnit]]) -> BoundaryDiff:
    """`boundary_diff` for units already grouped (the playground groups once and draws them too)."""
    names = tuple(unit_lists)
    where: dict[int, int] = {}
    by: dict[int, list[str]] = {}
    for name in names:
        for unit in unit_lists[name][1:]:
            where.setdefault(unit.byte_start, unit.char_start)
            by.setdefault(unit.byte_start, []).append(name)
    cuts = tuple(Cut(b, where[b], tuple(by[b])) for b in sorted(by))
    return BoundaryDiff(names, cuts)


# ------------------------------------------------------------------ deltas in words
def delta_sentence(other: EncodingStats, base: EncodingStats) -> str:
    """How many tokens `other` needs relative to `base`, in words.

    >>> delta_sentence(EncodingStats("cl100k_base", 77, 400, 400), EncodingStats("gpt2", 100, 400, 400))
    'cl100k_base uses 23% fewer tokens than gpt2 here (77 vs 100).'
    """
    counts = f"({other.tokens:,} vs {base.tokens:,})"
    if other.tokens == base.tokens:
        return f"{other.name} uses as many tokens as {base.name} here {counts}."
    if base.tokens == 0:
        return f"{other.name} uses {other.tokens:,} tokens where {base.name} uses none."
    change = (other.tokens - base.tokens) / base.tokens
    pct = round(abs(change) * 100)
    word = "fewer" if change < 0 else "more"
    amount = f"{pct}%" if pct >= 1 else "slightly"
    return f"{other.name} uses {amount} {word} tokens than {base.name} here {counts}."


def delta_sentences(stats: Sequence[EncodingStats]) -> list[str]:
    """Each encoding after the first compared with the first."""
    return [delta_sentence(s, stats[0]) for s in stats[1:]]


# ------------------------------------------------------------------ where they disagree
@dataclass(frozen=True)
class Disagreement:
    """A stretch between two shared cuts inside which the encodings cut differently.

    `parts` maps each encoding to the display units it uses for bytes
    ``byte_start:byte_end``; `text` is that stretch of the text (whole graphemes).
    """

    byte_start: int
    byte_end: int
    char_start: int
    char_end: int
    text: str
    parts: dict[str, tuple[DisplayUnit, ...]]


def disagreements(token_lists: Mapping[str, Sequence[Token]], diff: BoundaryDiff | None = None,
                  text: str | None = None) -> list[Disagreement]:
    """Every stretch between neighbouring shared cuts that holds a cut not all encodings make."""
    _check_same_text(token_lists)
    return unit_disagreements({name: group_tokens(toks, text) for name, toks in token_lists.items()}, diff, text)


def unit_disagreements(unit_lists: Mapping[str, Sequence[DisplayUnit]], diff: BoundaryDiff | None = None,
                       text: str | None = None) -> list[Disagreement]:
    """`disagreements` for units already grouped."""
    diff = diff or unit_diff(unit_lists)
    names = diff.encodings
    if not names or not unit_lists[names[0]]:
        return []
    end = unit_lists[names[0]][-1].byte_end
    fences = [0, *(c.byte for c in diff.shared), end]
    differing = sorted(c.byte for c in diff.differing)
    out: list[Disagreement] = []
    cursors = dict.fromkeys(names, 0)
    k = 0
    for lo, hi in zip(fences, fences[1:]):
        while k < len(differing) and differing[k] <= lo:
            k += 1
        inside = k < len(differing) and differing[k] < hi
        parts = {}
        for name in names:
            units, i = unit_lists[name], cursors[name]
            j = i
            while j < len(units) and units[j].byte_start < hi:
                j += 1
            parts[name] = tuple(units[i:j])
            cursors[name] = j
        if inside:
            first = parts[names[0]]
            a, b = first[0].char_start, first[-1].char_end
            whole = text[a:b] if text is not None else b"".join(u.bytes for u in first).decode("utf-8", "replace")
            out.append(Disagreement(lo, hi, a, b, whole, parts))
    return out
