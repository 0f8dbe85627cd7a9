"""Comparing encodings on one text: counts, where they cut, and what to draw.

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
  character into one unit drawn once, carrying all their ids.

    >>> from engine import get_encoding
    >>> enc = get_encoding("gpt2")
    >>> [(u.text, u.ids) for u in group_tokens(enc.tokenize("hi 😀"))]
    [('hi', (5303,)), (' 😀', (30325, 222))]
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping, Sequence

from .core import repair_surrogates
from .records import Token


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


def group_tokens(tokens: Sequence[Token]) -> list[DisplayUnit]:
    """Group consecutive tokens whose characters overlap, so every unit is whole characters.

    A token ending inside a character shares that character with the next
    token (``next.char_start < this.char_end``); the chain continues until a
    token ends on a character boundary.
    """
    units: list[DisplayUnit] = []
    run: list[Token] = []
    for tok in tokens:
        if run and tok.char_start >= run[-1].char_end:
            units.append(DisplayUnit(len(units), tuple(run)))
            run = []
        run.append(tok)
    if run:
        units.append(DisplayUnit(len(units), tuple(run)))
    return units


# ------------------------------------------------------------------ boundary diff
@dataclass(frozen=True)
class Cut:
    """A token boundary inside the text: the byte offset where a token starts.

    `char` is the index of the character the cut is in front of, or inside of
    when `inside_char` (byte-level BPE cutting a character apart).
    `by` names the encodings that cut here.
    """

    byte: int
    char: int
    inside_char: bool
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


def boundary_diff(token_lists: Mapping[str, Sequence[Token]]) -> BoundaryDiff:
    """Where 2–4 tokenizations of the *same* text cut, and which encodings cut there.

    Raises ValueError if the lists do not cover the same number of bytes
    (they were not made from the same text).
    """
    names = tuple(token_lists)
    lengths = {name: (toks[-1].byte_end if toks else 0) for name, toks in token_lists.items()}
    if len(set(lengths.values())) > 1:
        detail = ", ".join(f"{n}: {b} bytes" for n, b in lengths.items())
        raise ValueError(f"token lists cover different texts ({detail}); tokenize the same text with each encoding")
    where: dict[int, tuple[int, bool]] = {}
    by: dict[int, list[str]] = {}
    for name in names:
        for byte, pos in token_cuts(token_lists[name]).items():
            where.setdefault(byte, pos)
            by.setdefault(byte, []).append(name)
    cuts = tuple(Cut(b, where[b][0], where[b][1], tuple(by[b])) for b in sorted(by))
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

    `parts` maps each encoding to the tokens it uses for bytes ``byte_start:byte_end``.
    """

    byte_start: int
    byte_end: int
    char_start: int
    char_end: int
    parts: dict[str, tuple[Token, ...]]


def disagreements(token_lists: Mapping[str, Sequence[Token]], diff: BoundaryDiff | None = None) -> list[Disagreement]:
    """Every stretch between neighbouring shared cuts that holds a cut not all encodings make."""
    diff = diff or boundary_diff(token_lists)
    names = diff.encodings
    if not names or not token_lists[names[0]]:
        return []
    first = token_lists[names[0]]
    end = first[-1].byte_end
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
            toks, i = token_lists[name], cursors[name]
            j = i
            while j < len(toks) and toks[j].byte_start < hi:
                j += 1
            parts[name] = tuple(toks[i:j])
            cursors[name] = j
        if inside:
            a, b = parts[names[0]][0], parts[names[0]][-1]
            out.append(Disagreement(lo, hi, a.char_start, b.char_end, parts))
    return out
