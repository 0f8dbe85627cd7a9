"""Token-budget chunking: cut a long text into pieces of at most N tokens each, on token boundaries.

    >>> import engine
    >>> enc = engine.get_encoding("cl100k_base")
    >>> [c.text for c in engine.chunk_text("One. Two three. Four.", enc, 4, prefer="sentence").chunks]
    ['One.', ' Two three.', ' Four.']

What a chunking promises (tested against `chunk_text_reference`):

* **Never more than N.**  Every chunk, encoded *on its own*, has at most
  `max_tokens` tokens (`Chunk.tokens` is that count), and it also holds at most
  `max_tokens` of the whole text's tokens.  Both matter: re-encoding a piece of
  text can give more tokens than the same stretch had inside the whole text
  (SentencePiece adds a ``▁`` at the start; a cut inside a regex piece changes
  how its start merges), so a cut is only accepted when both counts fit.
* **Nothing lost, nothing invented.**  The chunks' texts joined are exactly the
  text (as the encoder sees it: surrogate pairs joined, a lone surrogate is
  U+FFFD -- `repair_surrogates`), each chunk is ``text[char_start:char_end]``.
* **Cuts fall between tokens, and between characters.**  The candidates are the
  places between two consecutive tokens of the whole text.  When byte-level BPE
  spreads one character over several tokens (an emoji, a rare CJK character, a
  SentencePiece byte-fallback ``<0xE2>``...), the places inside that character
  are *not* candidates: those tokens stay together in one chunk.  So every
  chunk's text is a valid string whose tokens decode to it without a U+FFFD,
  and a character that alone needs more than N tokens cannot be placed: that
  raises `ChunkingError` saying how large N must at least be.
* **Preferred ends.**  With ``prefer="paragraph"`` a chunk ends at the farthest
  paragraph end (a blank line) that fits, else at the farthest sentence end,
  else as late as possible; ``"sentence"`` skips the paragraph step; ``"none"``
  always cuts as late as possible.  The end of the text counts as a paragraph
  end.  A preferred end is only taken when the chunk then holds at least
  `min_fill` of the budget (half by default): "Hello world!" is not made a
  3-token chunk of a 512-token budget because the next sentence is long.
  A place is a *sentence end* when the whitespace around it holds a line
  break, or it follows ``. ! ? …`` (and closing quotes or brackets) with
  whitespace around it or at the end, or it follows a CJK full stop
  (``。！？``) even with no space.  A *paragraph end* is whitespace holding
  two line breaks.  Tokenizers glue a space to the next word, so chunks usually
  start with the space (``' Two three.'``).

The cost: one ``tokenize`` of the whole text plus one ``encode`` per chunk
(more when a re-encoded chunk does not fit and the cut moves back).
"""
from __future__ import annotations

import bisect
import math
import re
from dataclasses import dataclass
from typing import Any

from ..text import repair_surrogates

PREFERENCES = ("none", "sentence", "paragraph")
_KIND_RANK = {"paragraph": 0, "sentence": 1, "token": 2}  # "end" is a paragraph end
_TERMINALS = ".!?…‼⁇⁈⁉։؟۔।॥።᙮。！？｡"
_CJK_TERMINALS = "。！？｡"
_CLOSERS = "\"')]}»’”›」』）］｝〕〉》】"
_WHITESPACE = re.compile(r"\s+")
_LINE_BREAK = re.compile(r"\r\n|[\n\r\x0b\x0c\x85\u2028\u2029]")


class ChunkingError(ValueError):
    """The text cannot be cut into chunks of the asked size; the message says the size that works."""


@dataclass(frozen=True)
class Chunk:
    """One chunk: ``text[char_start:char_end]``, the whole text's tokens ``token_start:token_end``."""

    index: int
    text: str
    char_start: int
    char_end: int
    byte_start: int  # UTF-8 offsets
    byte_end: int
    token_start: int
    token_end: int
    tokens: int  # the chunk encoded on its own (<= max_tokens)
    ends_at: str  # "paragraph", "sentence", "token" (a plain token boundary) or "end" (the text's end)


@dataclass(frozen=True)
class Chunking:
    """A text cut into `chunks`; `total_tokens` is the whole text's count (the chunks' may differ a little)."""

    encoding: str
    max_tokens: int
    prefer: str
    chunks: tuple[Chunk, ...]
    total_tokens: int
    chars: int

    @property
    def chunk_tokens(self) -> int:
        return sum(c.tokens for c in self.chunks)


def _check(max_tokens: int, prefer: str, min_fill: float) -> int:
    """Check the options; returns the fewest tokens a chunk needs for a preferred end to count."""
    if not isinstance(max_tokens, int) or isinstance(max_tokens, bool) or max_tokens < 1:
        raise ChunkingError(f"max_tokens must be a whole number of at least 1, not {max_tokens!r}.")
    if prefer not in PREFERENCES:
        raise ChunkingError(f"prefer must be one of {', '.join(map(repr, PREFERENCES))}, not {prefer!r}.")
    if not isinstance(min_fill, (int, float)) or not 0 <= min_fill <= 1:
        raise ChunkingError(f"min_fill must be a number from 0 to 1 (a share of max_tokens), not {min_fill!r}.")
    return math.ceil(min_fill * max_tokens)


def _cuts(tokens: list[Any]) -> list[tuple[int, int]]:
    """``(token index, char position)`` of each place between tokens that shares no character."""
    return [(k, tokens[k].char_start) for k in range(1, len(tokens))
            if tokens[k - 1].char_end <= tokens[k].char_start]


class _Kinds:
    """What kind of place each character position is, from the whitespace runs found once."""

    def __init__(self, text: str) -> None:
        self.text = text
        runs = [(m.start(), m.end()) for m in _WHITESPACE.finditer(text)]
        self.starts = [a for a, _ in runs]
        self.runs = runs

    def __call__(self, c: int) -> str:
        text = self.text
        if c >= len(text):
            return "end"
        i = bisect.bisect_right(self.starts, c) - 1
        a, b = self.runs[i] if i >= 0 and self.runs[i][1] >= c else (c, c)
        breaks = len(_LINE_BREAK.findall(text, a, b)) if b > a else 0
        if breaks >= 2:
            return "paragraph"
        if breaks:
            return "sentence"
        j = a
        while j > 0 and text[j - 1] in _CLOSERS:
            j -= 1
        if j > 0 and text[j - 1] in _TERMINALS and (b > a or text[j - 1] in _CJK_TERMINALS):
            return "sentence"
        return "token"


def _order(kind: str, prefer: str, filled: bool) -> int:
    """Lower is tried first: the preferred kinds, then the rest (each farthest first).

    `filled`: the chunk would hold at least `min_fill` of the budget (else a preferred end is not preferred).
    """
    if kind != "end" and not filled:
        kind = "token"
    rank = _KIND_RANK["paragraph" if kind == "end" else kind]
    if prefer == "none":
        return 0
    if prefer == "sentence":
        return 0 if rank <= 1 else 1  # a paragraph end is also a sentence end
    return rank


def _too_small(enc: Any, tokens: list[Any], k: int, max_tokens: int) -> ChunkingError:
    start = tokens[k].char_start
    end = k
    while end + 1 < len(tokens) and tokens[end].char_end > tokens[end + 1].char_start:
        end += 1
    need = end + 1 - k
    return ChunkingError(
        f"The text at character {start:,} cannot fit in {max_tokens} token{'s' if max_tokens != 1 else ''}: "
        f"{enc.name} needs {max(need, max_tokens + 1)} tokens before the next place it can be cut "
        f"(a character split over several byte tokens is never cut). Choose a budget of at least "
        f"{max(need, max_tokens + 1)} tokens.")


def _build(enc: Any, text: str, max_tokens: int, prefer: str, tokens: list[Any],
           spans: list[tuple[int, int, int, int, int, str]]) -> Chunking:
    """Chunk records from ``(char_start, char_end, token_start, token_end, tokens, kind)`` spans."""
    chunks = []
    byte = 0
    for index, (cs, ce, ts, te, n, kind) in enumerate(spans):
        piece = text[cs:ce]
        size = len(piece.encode("utf-8"))
        chunks.append(Chunk(index, piece, cs, ce, byte, byte + size, ts, te, n, kind))
        byte += size
    return Chunking(enc.name, max_tokens, prefer, tuple(chunks), len(tokens), len(text))


def chunk_text(text: str, enc: Any, max_tokens: int, *, prefer: str = "none", min_fill: float = 0.5,
               **encode_kwargs: Any) -> Chunking:
    """Cut `text` into chunks of at most `max_tokens` tokens of `enc` (see the module docstring).

    `encode_kwargs` are ``allowed_special``/``disallowed_special`` as for ``enc.encode``; they
    apply to the whole text and to each chunk re-encoded.  Raises `ChunkingError` (a ValueError)
    for a bad `max_tokens`/`prefer`, or when a character alone needs more than `max_tokens`.
    """
    fill = _check(max_tokens, prefer, min_fill)
    text = repair_surrogates(text)
    tokens = enc.tokenize(text, **encode_kwargs)
    if not text:
        return Chunking(enc.name, max_tokens, prefer, (), 0, 0)
    cuts = _cuts(tokens) + [(len(tokens), len(text))]
    kind_of = _Kinds(text)
    spans = []
    s_tok, s_char, first = 0, 0, 0  # `first`: the first cut after the current start
    while s_char < len(text):
        while first < len(cuts) and (cuts[first][1] <= s_char):
            first += 1
        last = first  # one past the last cut within budget
        while last < len(cuts) and cuts[last][0] - s_tok <= max_tokens:
            last += 1
        window = [(_order(kind_of(c), prefer, k - s_tok >= fill), -c, -k, c) for k, c in cuts[first:last]]
        for _, _, k, c in sorted(window):
            k = -k
            n = len(enc.encode(text[s_char:c], **encode_kwargs))
            if n <= max_tokens:
                spans.append((s_char, c, s_tok, k, n, kind_of(c)))
                s_tok, s_char = k, c
                break
        else:
            raise _too_small(enc, tokens, s_tok, max_tokens)
    return _build(enc, text, max_tokens, prefer, tokens, spans)


# ------------------------------------------------------------ the reference
def _kind_reference(text: str, c: int) -> str:
    """The kind of place `c` is, straight from the definition (slicing; slow)."""
    if c >= len(text):
        return "end"
    before, after = text[:c], text[c:]
    run = before[len(before.rstrip()):] + after[:len(after) - len(after.lstrip())]
    breaks = len(_LINE_BREAK.findall(run))
    if breaks >= 2:
        return "paragraph"
    if breaks:
        return "sentence"
    stem = before.rstrip().rstrip(_CLOSERS)
    if stem and stem[-1] in _TERMINALS and (run or stem[-1] in _CJK_TERMINALS):
        return "sentence"
    return "token"


def chunk_text_reference(text: str, enc: Any, max_tokens: int, *, prefer: str = "none", min_fill: float = 0.5,
                         **encode_kwargs: Any) -> Chunking:
    """`chunk_text` the obvious way: at each start, try every character position as the end."""
    _check(max_tokens, prefer, min_fill)
    text = repair_surrogates(text)
    tokens = enc.tokenize(text, **encode_kwargs)
    spans = []
    s_char = s_tok = 0
    while s_char < len(text):
        best = None
        for c in range(s_char + 1, len(text) + 1):
            if any(t.char_start < c < t.char_end for t in tokens):
                continue  # inside a character (or a token)
            if c < len(text) and not any(t.char_start == c for t in tokens):
                continue  # no token starts here
            k = len(tokens) if c == len(text) else sum(1 for t in tokens if t.char_end <= c)
            if k - s_tok > max_tokens:
                continue
            n = len(enc.encode(text[s_char:c], **encode_kwargs))
            if n > max_tokens:
                continue
            key = (_order(_kind_reference(text, c), prefer, k - s_tok >= min_fill * max_tokens), -c)
            if best is None or key < best[0]:
                best = (key, c, k, n)
        if best is None:
            raise _too_small(enc, tokens, s_tok, max_tokens)
        _, c, k, n = best
        spans.append((s_char, c, s_tok, k, n, _kind_reference(text, c)))
        s_char, s_tok = c, k
    return _build(enc, text, max_tokens, prefer, tokens, spans)
