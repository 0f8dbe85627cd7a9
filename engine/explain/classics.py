"""The classic "why does the model do that" demos, measured: letters inside tokens, reversing, a trailing
space, the bytes of one text in UTF-8, UTF-16 and UTF-32.

Each function takes an encoding and a text and returns plain data; nothing is
quoted from elsewhere.  The points they make:

* **Letters are inside tokens.**  " strawberry" is a few ids; the model never
  sees its letters one by one, so "how many r's" asks about something hidden
  inside the ids (`letters_per_token`).
* **Reversing text is not reversing tokens.**  The reversed text is cut into
  other, usually more and rarer, tokens; reversing the id sequence instead gives
  the pieces in the other order, not the letters (`reverse_tokens`).
* **A trailing space is a token of its own.**  In training text the space is
  glued to the next word (" time" is one token), so a prompt that ends in a
  space ends on a token the model rarely saw there.  tiktoken's
  ``encode_with_unstable`` knows it: it holds back the last piece and lists every
  token sequence that could continue it (`trailing_space`).
* **Characters are code points.**  One text has one number of code points,
  but its UTF-8, UTF-16 and UTF-32 byte counts differ, and JavaScript's
  ``length`` counts UTF-16 units (`utf_sizes`).
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from ..api import EncodingAPI

COMPLETIONS_SHOWN = 12
_WORD = re.compile(rb" [A-Za-z]{3,}")


def letters_per_token(tokens: list[bytes], letter: str) -> list[int]:
    """How many times `letter` (any case) occurs in each token's bytes: [b" str", b"aw", b"berry"], "r" -> [1, 0, 2]."""
    needle = letter.lower().encode("utf-8")
    if not needle:
        raise ValueError("name a letter to count, e.g. r")
    return [t.lower().count(needle) for t in tokens]


@dataclass(frozen=True)
class Reversal:
    ids: tuple[int, ...]  # the text's tokens
    reversed_text: str  # the text's code points in reverse order
    reversed_text_ids: tuple[int, ...]  # how that reversed text is tokenized
    reversed_ids_text: str  # what the text's ids, in reverse order, decode to
    shared: int  # ids that occur in both tokenizations (as sets)


def reverse_tokens(enc: EncodingAPI, text: str) -> Reversal:
    """Reverse `text` two ways: its characters (then tokenize), and its token ids (then decode)."""
    ids = tuple(enc.encode_ordinary(text))
    back = text[::-1]
    back_ids = tuple(enc.encode_ordinary(back))
    return Reversal(ids, back, back_ids, enc.decode(list(ids[::-1])), len(set(ids) & set(back_ids)))


@dataclass(frozen=True)
class TrailingSpace:
    ids: tuple[int, ...]  # the prompt without the space
    ids_with_space: tuple[int, ...]  # the prompt with one space at the end
    stable: tuple[int, ...]  # encode_with_unstable: the ids that no continuation can change
    n_completions: int  # token sequences that may continue the held-back end
    completions: tuple[bytes, ...]  # a few one-token ones that are a space and a word, the lowest ids (learned first) first


def trailing_space(enc: EncodingAPI, prompt: str) -> TrailingSpace | None:
    """`prompt` with and without a space at the end, and what ``encode_with_unstable`` holds back.
    None for a family without ``encode_with_unstable`` (tiktoken-style byte-level BPE has it)."""
    unstable = getattr(enc, "encode_with_unstable", None)
    if unstable is None:
        return None
    spaced = prompt + " "
    stable, completions = unstable(spaced)
    # Thousands of sequences continue a space; the readable examples are single tokens " word",
    # and the lowest ids are the ones the trainer learned first (the most frequent).
    words = sorted((c[0] for c in completions if len(c) == 1 and _WORD.fullmatch(enc.decode_bytes(c))))
    shown = [enc.decode_bytes([i]) for i in words[:COMPLETIONS_SHOWN]]
    return TrailingSpace(tuple(enc.encode_ordinary(prompt)), tuple(enc.encode_ordinary(spaced)), tuple(stable),
                         len(completions), tuple(shown))


@dataclass(frozen=True)
class UtfSizes:
    code_points: int  # Python's len(): the one character count this app shows everywhere
    utf16_units: int  # JavaScript's .length
    utf8_bytes: int
    utf16_bytes: int  # without a byte-order mark
    utf32_bytes: int


def utf_sizes(text: str) -> UtfSizes:
    """The sizes of `text` as code points, UTF-16 units and bytes in each encoding form."""
    utf16 = len(text.encode("utf-16-le", "surrogatepass"))
    return UtfSizes(len(text), utf16 // 2, len(text.encode("utf-8", "surrogatepass")), utf16,
                    len(text.encode("utf-32-le", "surrogatepass")))
