"""Which writing system each character belongs to, and what each script costs in tokens.

A byte-level BPE vocabulary is learnt from a corpus that is mostly English,
so text in other scripts is split into more, shorter tokens: the "token tax".
This module measures it for any text and any `Encoding`:

    >>> import engine
    >>> enc = engine.get_encoding("o200k_base")
    >>> [(s.script, s.chars, s.tokens) for s in engine.token_tax(enc, "hi мир")]
    [('Latin', 2, Fraction(1, 1)), ('Cyrillic', 3, Fraction(6, 7)), ('Common', 1, Fraction(1, 7))]

Scripts come from the Unicode Script property (``\\p{Script=...}`` of the
`regex` module).  The traps, and the choices made here:

- ``Common`` holds characters shared by many scripts: digits, punctuation,
  spaces, symbols and emoji.  It stays its own bucket.
- ``Inherited`` characters (combining accents, the zero-width joiner inside
  emoji, variation selectors) take the script of the character before them,
  as Unicode's script-run rule (UAX #24) says; at the start of the text they
  count as ``Common``.
- Scripts outside `SCRIPTS` (and unassigned code points) go to ``Other``.

Attribution rule (sum-preserving): a token is worth exactly 1, shared among
the scripts of the *bytes* it covers in proportion to how many of its bytes
each script owns.  " мир" in o200k_base is one token of 7 bytes: 1 space byte
(Common) and 6 Cyrillic bytes, so Common gets 1/7 and Cyrillic 6/7.  A
character split over several tokens gives each of them its bytes, so nothing
is counted twice.  Shares are exact `Fraction`s: the per-script token counts
always add up to the number of tokens.
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from typing import Any, Iterable, Sequence

import regex

from ..api import EncodingAPI
from ..records import Token
from ..text import repair_surrogates

COMMON = "Common"
OTHER = "Other"
# Scripts with their own bucket, roughly by number of writers; `regex` knows them by these names.
SCRIPTS: tuple[str, ...] = (
    "Latin", "Cyrillic", "Greek", "Armenian", "Georgian", "Hebrew", "Arabic", "Syriac", "Thaana",
    "Devanagari", "Bengali", "Gurmukhi", "Gujarati", "Oriya", "Tamil", "Telugu", "Kannada", "Malayalam",
    "Sinhala", "Thai", "Lao", "Tibetan", "Myanmar", "Khmer", "Ethiopic", "Mongolian", "Cherokee",
    "Han", "Hiragana", "Katakana", "Hangul", "Bopomofo", "Yi", "Tifinagh", "Canadian_Aboriginal",
)
_INHERITED = "Inherited"

# One alternation, tried left to right at each position: a run of one script, else one stray character.
_RUNS = regex.compile(
    "|".join(f"(?P<{name}>\\p{{Script={name}}}+)" for name in (*SCRIPTS, COMMON, _INHERITED))
    + f"|(?P<{OTHER}>.)",
    regex.DOTALL,
)


@lru_cache(maxsize=4096)
def script_of(char: str) -> str:
    """The bucket of one character on its own: a name in `SCRIPTS`, "Common", "Inherited" or "Other".

    >>> script_of("я"), script_of("7"), script_of("\\u0301"), script_of("ᚠ")
    ('Cyrillic', 'Common', 'Inherited', 'Other')
    """
    if len(char) != 1:
        raise ValueError(f"script_of() takes one character, got {len(char)}: {char!r}")
    match = _RUNS.match(char)
    return match.lastgroup  # type: ignore[union-attr, return-value]


def script_runs(text: str) -> list[tuple[str, int, int]]:
    """Maximal runs of one script as (script, char_start, char_end), Inherited resolved.

    >>> script_runs("He\u0301llo, мир")
    [('Latin', 0, 6), ('Common', 6, 8), ('Cyrillic', 8, 11)]
    """
    runs: list[list[Any]] = []
    for match in _RUNS.finditer(text):
        script = match.lastgroup
        if script == _INHERITED:
            script = runs[-1][0] if runs else COMMON
        if runs and runs[-1][0] == script and runs[-1][2] == match.start():
            runs[-1][2] = match.end()
        else:
            runs.append([script, match.start(), match.end()])
    return [(s, a, b) for s, a, b in runs]


def classify(text: str) -> list[str]:
    """The script of every character of `text` (Inherited resolved), one entry per character."""
    out: list[str] = []
    for script, start, end in script_runs(text):
        out.extend([script] * (end - start))
    return out


def script_counts(text: str) -> Counter[str]:
    """Characters per script."""
    counts: Counter[str] = Counter()
    for script, start, end in script_runs(text):
        counts[script] += end - start
    return counts


def dominant_script(text: str) -> str:
    """The script with the most characters, not counting Common (Common if there is nothing else)."""
    counts = script_counts(text)
    counts.pop(COMMON, None)
    return counts.most_common(1)[0][0] if counts else COMMON


@dataclass(frozen=True)
class ScriptShare:
    """One script's part of a text: its characters, UTF-8 bytes, and the tokens attributed to it."""

    script: str
    chars: int
    bytes: int
    tokens: Fraction

    @property
    def tokens_per_char(self) -> float:
        return float(self.tokens) / self.chars if self.chars else 0.0

    @property
    def chars_per_token(self) -> float:
        return self.chars / float(self.tokens) if self.tokens else 0.0


def attribute_tokens(text: str, tokens: Sequence[Token]) -> list[ScriptShare]:
    """Share `tokens` (from ``enc.tokenize(text)``) among the scripts of `text` by bytes.

    Only the characters the tokens cover are counted (so a prefix of the
    tokens describes a prefix of the text).  Rows are sorted by tokens, most first.
    """
    text = repair_surrogates(text)
    covered_end = max((t.char_end for t in tokens), default=0)
    # For every byte (UTF-8 offsets, as in Token): its script and the index of its script run.
    byte_script: list[str] = []
    byte_run: list[int] = []
    chars: Counter[str] = Counter()
    nbytes: Counter[str] = Counter()
    for i, (script, start, end) in enumerate(script_runs(text[:covered_end])):
        n = len(text[start:end].encode("utf-8", "surrogatepass"))
        byte_script.extend([script] * n)
        byte_run.extend([i] * n)
        chars[script] += end - start
        nbytes[script] += n
    whole: Counter[str] = Counter()  # tokens inside one run: the common case, counted as integers
    shares: dict[str, Fraction] = {script: Fraction(0) for script in chars}
    for token in tokens:
        first, last = token.byte_start, token.byte_end - 1  # tokens are never empty
        if byte_run[first] == byte_run[last]:
            whole[byte_script[first]] += 1
            continue
        width = token.byte_end - token.byte_start
        for script, n in Counter(byte_script[first:last + 1]).items():
            shares[script] += Fraction(n, width)
    for script, n in whole.items():
        shares[script] += n
    rows = [ScriptShare(s, chars[s], nbytes[s], shares[s]) for s in chars]
    return sorted(rows, key=lambda r: (-r.tokens, -r.chars, r.script))


def token_tax(enc: EncodingAPI, text: str, **encode_kwargs: Any) -> list[ScriptShare]:
    """Per script of `text`: characters, bytes and tokens of `enc` (see the module docstring).

    `encode_kwargs` are ``allowed_special``/``disallowed_special`` as for ``enc.encode``.
    """
    return attribute_tokens(text, enc.tokenize(text, **encode_kwargs))


def total_tokens(shares: Iterable[ScriptShare]) -> Fraction:
    """Sum of the shares: the number of tokens attributed (an integer by construction)."""
    return sum((s.tokens for s in shares), Fraction(0))
