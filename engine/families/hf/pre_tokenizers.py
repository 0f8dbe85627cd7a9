"""Hugging Face ``tokenizer.json`` pre-tokenizers: pieces with their spans, as `tokenizers` 0.23 cuts them.

Follows ``tokenizers/src/pre_tokenizers/*.rs`` over `PreTokenizedString`
(``tokenizers/src/tokenizer/pre_tokenizer.rs``) and the match rules of
``tokenizers/src/tokenizer/pattern.rs``.

A piece (`Piece`) is an `AlignedText` (its characters, each with the span of
the input it stands for) plus the piece's own span of the input, fixed when it
was cut (tokenizers' ``offsets_original``).  A pre-tokenizer maps the list of
pieces to a new list; every cut goes through `cut` (the matches, then the
split behaviour), and an empty piece is dropped after every step.  The spans
are what ``pre_tokenize_str`` reports: a piece's text may differ from the
input (ByteLevel's byte characters, Metaspace's ``▁``, an added prefix) but
its span is the input it came from -- a prefix added to a piece shares the
span of the piece's first character.

The match rules (pattern.rs):

* a character predicate (whitespace, punctuation, numeric, one delimiter)
  matches *each* such character on its own: ``"!!"`` under ``Punctuation``
  is two pieces;
* a ``Split`` regex runs on Oniguruma's Unicode classes with its iteration
  rules (`engine.families.hf.pipeline.SplitStep`), under the split time
  limit; ``invert`` swaps matches and gaps; a ``String`` pattern is a literal;
* ``Whitespace`` is Rust's `regex` ``\\w+|[^\\w\\s]+``, its matches kept.

Behaviours (``Removed``, ``Isolated``, ``MergedWithPrevious``,
``MergedWithNext``, ``Contiguous``) are `apply_behavior`.

The reference is `apply` over `Piece`s (`PreTokenizer.pre_tokenize_reference`).
The fast paths, each tested equal to it and to tokenizers: `split_str` (the
pieces' texts alone, one regex or `str` call per step), `cut_spans` (the spans
of a pre-tokenizer that only cuts, so `pre_tokenize` needs no `Piece`s), and
list-based `pre_tokenize_aligned` for ByteLevel and Metaspace.  Punctuation,
digits and scripts are tokenizers' own classes for every code point
(`engine.families.hf.normalizers.fixed_class`, ``engine/data/hf_stage_unicode_fixes.json``).
"""
from __future__ import annotations

import functools
import time
from dataclasses import dataclass
from typing import Any, Callable

import regex

from ...tokenizer.gpt2_bytes import BYTE_TO_CHAR
from ...tokenizer import patterns
from ...tokenizer.patterns import unicode16_view
from .normalizers import (RAW_NUMERIC, RAW_PUNCTUATION, WHITE_SPACE, AlignedText, _matcher, _same, fixed_class,
                          pattern_matcher, stage_fixes)
from .pipeline import BEHAVIORS, GPT2_SPLIT, SplitStep, compile_onig

Span = tuple[int, int]
Match = tuple[int, int, bool]


@dataclass
class Piece:
    """A piece of the input: its text with per-character spans, and its own span (fixed when it was cut)."""

    text: AlignedText
    start: int
    end: int

    @classmethod
    def whole(cls, text: str) -> "Piece":
        return cls(AlignedText(text), 0, len(text))

    def cut(self, a: int, b: int) -> "Piece":
        """Characters ``[a, b)`` as a new piece (tokenizers' `slice`): its span is its first character's
        start to its last one's end."""
        align = self.text.align[a:b]
        start, end = (align[0][0], align[-1][1]) if align else (self.start, self.start)
        return Piece(AlignedText(self.text.text[a:b], align, start), start, end)

    def as_tuple(self) -> tuple[str, int, int]:
        return self.text.text, self.start, self.end


def apply_behavior(matches: list[Match], behavior: str) -> list[Span]:
    """The spans to keep from (start, end, is_match) runs under a split behaviour (normalizer.rs `split`)."""
    keep: list[list] = []  # [start, end, removed]
    previous = False
    if behavior == "MergedWithNext":
        for s, e, hit in reversed(matches):
            if hit and not previous and keep:
                keep[-1][0] = s
            else:
                keep.append([s, e, False])
            previous = hit
        keep.reverse()
    else:
        for s, e, hit in matches:
            if behavior == "Removed":
                keep.append([s, e, hit])
            elif behavior == "Contiguous" and hit == previous and keep:
                keep[-1][1] = e
            elif behavior == "MergedWithPrevious" and hit and not previous and keep:
                keep[-1][1] = e
            else:
                keep.append([s, e, False])
            previous = hit
    return [(s, e) for s, e, removed in keep if not removed]


def char_matches(text: str, pred: Callable[[str], bool]) -> list[Match]:
    """pattern.rs for a character predicate: each matching character is a match of its own."""
    if not text:
        return [(0, 0, False)]
    out: list[Match] = []
    last = 0
    for i, ch in enumerate(text):
        if pred(ch):
            if last < i:
                out.append((last, i, False))
            out.append((i, i + 1, True))
            last = i + 1
    if last < len(text):
        out.append((last, len(text), False))
    return out


def regex_matches(rx: regex.Pattern, text: str) -> list[Match]:
    """pattern.rs for Rust's `regex` (no empty matches in the built-in patterns that use it)."""
    if not text:
        return [(0, 0, False)]
    out: list[Match] = []
    prev = 0
    for m in rx.finditer(unicode16_view(text)):
        s, e = m.span()
        if prev != s:
            out.append((prev, s, False))
        out.append((s, e, True))
        prev = e
    if prev != len(text):
        out.append((prev, len(text), False))
    return out


def _pieces_at(text: str, align: list[Span], origin: int, bounds: list[Span]) -> list[Piece]:
    """Pieces ``text[a:b]`` for each (a, b) in `bounds`, with their characters' spans from `align`."""
    out = []
    for a, b in bounds:
        sub = align[a:b]
        out.append(Piece(AlignedText(text[a:b], sub, sub[0][0]), sub[0][0], sub[-1][1]))
    return out


def _bounds(parts: list[str]) -> list[Span]:
    """The (start, end) of consecutive `parts` that cover a text."""
    out, pos = [], 0
    for part in parts:
        out.append((pos, pos + len(part)))
        pos += len(part)
    return out


def cut(piece: Piece, matches: list[Match], behavior: str) -> list[Piece]:
    return [piece.cut(a, b) for a, b in apply_behavior(matches, behavior) if b > a]


def is_rust_whitespace(ch: str) -> bool:
    return ch in WHITE_SPACE


# tokenizers' `is_punc` (ASCII punctuation, symbols such as ``$+<=>^`|~`` included, or category P of the
# `unicode_categories` crate) and Rust's `char::is_numeric`, with tokenizers' own differences.
is_punctuation = _matcher("punctuation", RAW_PUNCTUATION)
is_numeric = _matcher("numeric", RAW_NUMERIC)


def _class_body(name: str, raw: str) -> str:
    """The fixed class `name` as a `regex` V1 class, for the fast paths' patterns."""
    return fixed_class(name, raw).pattern


_WS_CLASS = "[" + "".join(f"\\U{ord(c):08x}" for c in sorted(WHITE_SPACE)) + "]"


@functools.cache
def _fast(kind: str) -> regex.Pattern:
    """The fast paths' patterns, each one `findall` giving the same pieces as the reference."""
    punct = _class_body("punctuation", RAW_PUNCTUATION)
    numeric = _class_body("numeric", RAW_NUMERIC)
    body = {
        "whitespace_split": f"[^{_WS_CLASS[1:-1]}]+",
        "bert": f"{punct}|[^[{_WS_CLASS[1:-1]}]||{punct}]+",
        "punct": f"{punct}|(?:(?!{punct}).)+",
        "digit": f"{numeric}|(?:(?!{numeric}).)+",
        "digits": f"{numeric}+|(?:(?!{numeric}).)+",
    }[kind]
    return regex.compile(body, regex.V1 | regex.DOTALL)


class PreTokenizer:
    """A pre-tokenizer: `apply` maps pieces to pieces (the reference)."""

    limited = False  # whether it runs a file's regex, under the split time limit

    def apply(self, pieces: list[Piece], deadline: float | None = None) -> list[Piece]:
        raise NotImplementedError

    def deadline(self) -> float | None:
        return time.monotonic() + patterns.SPLIT_TIMEOUT if self.limited else None

    def pre_tokenize(self, text: str, deadline: float | None = None) -> list[tuple[str, int, int]]:
        """(piece text, start, end) per piece, spans in `text` (tokenizers' ``pre_tokenize_str``)."""
        spans = self.cut_spans(text, self.deadline() if deadline is None else deadline)
        if spans is not None:
            return [(text[a:b], a, b) for a, b in spans]
        return [p.as_tuple() for p in self.pre_tokenize_aligned(AlignedText(text), deadline)]

    def pre_tokenize_aligned(self, text: AlignedText, deadline: float | None = None) -> list[Piece]:
        """The pieces of an already normalized text whose spans point into the original text."""
        if not text.text:
            return []
        deadline = self.deadline() if deadline is None else deadline
        spans = self.cut_spans(text.text, deadline)
        if spans is not None:  # the fast path of a pre-tokenizer that only cuts
            whole = Piece(text, text.align[0][0], text.align[-1][1])
            return [whole.cut(a, b) for a, b in spans]
        return self.pre_tokenize_reference(text, deadline)

    def pre_tokenize_reference(self, text: AlignedText, deadline: float | None = None) -> list[Piece]:
        """`pre_tokenize_aligned` through `apply` alone (the reference the fast paths are tested against)."""
        if not text.text:
            return []
        deadline = self.deadline() if deadline is None else deadline
        own = AlignedText(text.text, list(text.align), text.origin)  # the steps edit pieces in place; not the caller's
        return self.apply([Piece(own, text.align[0][0], text.align[-1][1])], deadline)

    def cut_spans(self, text: str, deadline: float | None = None) -> list[Span] | None:
        """For a pre-tokenizer that only cuts (the pieces' texts are slices of `text`): the non-empty pieces'
        spans, fast; None for one that changes the text (ByteLevel, Metaspace)."""
        return None

    def split_str(self, text: str, deadline: float | None = None, at_start: bool = True) -> list[str]:
        """The pieces' texts (fast path where a subclass has one).  `at_start`: whether `text` begins the
        input (false for a stretch after an added token), which only ``Metaspace(prepend_scheme="first")``
        looks at."""
        if at_start:
            return [t for t, _, _ in self.pre_tokenize(text, deadline)]
        return [p.text.text for p in self.pre_tokenize_aligned(AlignedText(text, None, 1), deadline)]


def _each(pieces: list[Piece], fn: Callable[[Piece], list[Piece]]) -> list[Piece]:
    out: list[Piece] = []
    for p in pieces:
        out.extend(q for q in fn(p) if q.text.text)
    return out


@dataclass(frozen=True)
class Split(PreTokenizer):
    """``Split``: a string or Oniguruma regex, a behaviour, ``invert`` (``pre_tokenizers/split.rs``)."""

    step: SplitStep  # its `invert` is the pre-tokenizer's

    @property
    def limited(self) -> bool:  # type: ignore[override]
        return self.step.where is not None

    def apply(self, pieces: list[Piece], deadline: float | None = None) -> list[Piece]:
        return _each(pieces, lambda p: cut(p, self.step.matches(p.text.text, deadline), self.step.behavior))

    def split_str(self, text: str, deadline: float | None = None, at_start: bool = True) -> list[str]:
        return self.step.split(text, self.deadline() if deadline is None else deadline) if text else []

    def cut_spans(self, text: str, deadline: float | None = None) -> list[Span] | None:
        return self.step.spans(text, self.deadline() if deadline is None else deadline) if text else []


def _predicate_splitter(pred: Callable[[str], bool], behavior: str) -> Callable[[Piece], list[Piece]]:
    return lambda p: cut(p, char_matches(p.text.text, pred), behavior)


@dataclass(frozen=True)
class Digits(PreTokenizer):
    """``Digits``: numeric characters one by one (Isolated) or in runs (Contiguous)."""

    individual_digits: bool = False

    def apply(self, pieces: list[Piece], deadline: float | None = None) -> list[Piece]:
        return _each(pieces, _predicate_splitter(is_numeric, "Isolated" if self.individual_digits else "Contiguous"))

    def split_str(self, text: str, deadline: float | None = None, at_start: bool = True) -> list[str]:
        return _fast("digit" if self.individual_digits else "digits").findall(text)

    def cut_spans(self, text: str, deadline: float | None = None) -> list[Span] | None:
        return [m.span() for m in _fast("digit" if self.individual_digits else "digits").finditer(text)]


@dataclass(frozen=True)
class Punctuation(PreTokenizer):
    behavior: str = "Isolated"

    def apply(self, pieces: list[Piece], deadline: float | None = None) -> list[Piece]:
        return _each(pieces, _predicate_splitter(is_punctuation, self.behavior))

    def split_str(self, text: str, deadline: float | None = None, at_start: bool = True) -> list[str]:
        if self.behavior != "Isolated":
            return super().split_str(text, deadline, at_start)
        return _fast("punct").findall(text)

    def cut_spans(self, text: str, deadline: float | None = None) -> list[Span] | None:
        if self.behavior != "Isolated":
            return [(p.start, p.end) for p in self.apply([Piece.whole(text)])] if text else []
        return [m.span() for m in _fast("punct").finditer(text)]


@dataclass(frozen=True)
class CharDelimiterSplit(PreTokenizer):
    delimiter: str

    def apply(self, pieces: list[Piece], deadline: float | None = None) -> list[Piece]:
        return _each(pieces, _predicate_splitter(lambda ch: ch == self.delimiter, "Removed"))

    def split_str(self, text: str, deadline: float | None = None, at_start: bool = True) -> list[str]:
        return [p for p in text.split(self.delimiter) if p]

    def cut_spans(self, text: str, deadline: float | None = None) -> list[Span] | None:
        out, pos = [], 0
        for part in text.split(self.delimiter):
            if part:
                out.append((pos, pos + len(part)))
            pos += len(part) + 1
        return out


@dataclass(frozen=True)
class WhitespaceSplit(PreTokenizer):
    def apply(self, pieces: list[Piece], deadline: float | None = None) -> list[Piece]:
        return _each(pieces, _predicate_splitter(is_rust_whitespace, "Removed"))

    def split_str(self, text: str, deadline: float | None = None, at_start: bool = True) -> list[str]:
        return _fast("whitespace_split").findall(text)

    def cut_spans(self, text: str, deadline: float | None = None) -> list[Span] | None:
        return [m.span() for m in _fast("whitespace_split").finditer(text)]


@dataclass(frozen=True)
class BertPreTokenizer(PreTokenizer):
    """Whitespace removed, then each punctuation character isolated (``pre_tokenizers/bert.rs``)."""

    def apply(self, pieces: list[Piece], deadline: float | None = None) -> list[Piece]:
        pieces = _each(pieces, _predicate_splitter(is_rust_whitespace, "Removed"))
        return _each(pieces, _predicate_splitter(is_punctuation, "Isolated"))

    def split_str(self, text: str, deadline: float | None = None, at_start: bool = True) -> list[str]:
        return _fast("bert").findall(text)

    def cut_spans(self, text: str, deadline: float | None = None) -> list[Span] | None:
        return [m.span() for m in _fast("bert").finditer(text)]


# Rust regex's Unicode \w and \s (Unicode 16, through unicode16_view).
_WORDS = regex.compile(r"[\p{Alphabetic}\p{M}\p{Nd}\p{Pc}\p{Join_Control}]+"
                       r"|[^\p{Alphabetic}\p{M}\p{Nd}\p{Pc}\p{Join_Control}\p{White_Space}]+")


@dataclass(frozen=True)
class Whitespace(PreTokenizer):
    """``Whitespace``: the matches of ``\\w+|[^\\w\\s]+`` kept, everything else removed."""

    def apply(self, pieces: list[Piece], deadline: float | None = None) -> list[Piece]:
        return _each(pieces, lambda p: cut(p, [(s, e, not hit) for s, e, hit in regex_matches(_WORDS, p.text.text)],
                                           "Removed"))

    def split_str(self, text: str, deadline: float | None = None, at_start: bool = True) -> list[str]:
        view = unicode16_view(text)
        if view is text:
            return _WORDS.findall(text)
        return [text[m.start():m.end()] for m in _WORDS.finditer(view)]

    def cut_spans(self, text: str, deadline: float | None = None) -> list[Span] | None:
        return [m.span() for m in _WORDS.finditer(unicode16_view(text))]


@functools.cache
def _gpt2_step() -> SplitStep:
    return SplitStep(compile_onig(GPT2_SPLIT, "ByteLevel"), "Isolated")


# str.translate over the Latin-1 view of the UTF-8 bytes: code point b -> GPT-2's character for byte b.
_LATIN1_TO_BYTE_CHARS = {b: BYTE_TO_CHAR[b] for b in range(256)}


def byte_level_text(text: str) -> str:
    """Each UTF-8 byte of `text` as GPT-2's printable character."""
    return text.encode("utf-8").decode("latin-1").translate(_LATIN1_TO_BYTE_CHARS)



@dataclass(frozen=True)
class ByteLevel(PreTokenizer):
    """``ByteLevel`` (``pre_tokenizers/byte_level.rs``): per piece, a space in front if it has none
    (``add_prefix_space``), GPT-2's split (``use_regex``), then every UTF-8 byte as a printable character,
    the bytes of one character all with that character's span.  ``trim_offsets`` only changes the
    offsets of a finished encoding (the post-processor's job), not the pieces."""

    add_prefix_space: bool = True
    trim_offsets: bool = True
    use_regex: bool = True

    def apply(self, pieces: list[Piece], deadline: float | None = None) -> list[Piece]:
        def one(p: Piece) -> list[Piece]:
            if self.add_prefix_space and not p.text.text.startswith(" "):
                p.text.prepend(" ")
            if self.use_regex:
                return cut(p, _gpt2_step().matches(p.text.text), "Isolated")
            return [p]

        out = _each(pieces, one)
        for p in out:
            p.text.transform([(c, int(i > 0)) for ch in p.text.text
                              for i, c in enumerate(byte_level_text(ch))])
        return out

    def pre_tokenize_aligned(self, text: AlignedText, deadline: float | None = None) -> list[Piece]:
        """`apply` on one text by list operations: the prefix takes the first character's span (what
        `AlignedText.prepend` gives), the GPT-2 split covers the text, each byte takes its character's span."""
        t, align = text.text, text.align
        if not t:
            return []
        if self.add_prefix_space and not t.startswith(" "):
            t, align = " " + t, [align[0]] + align
        parts = _gpt2_step().split(t) if self.use_regex else [t]
        out = []
        for (a, b), part in zip(_bounds(parts), parts):
            sub = align[a:b]
            if not part.isascii():
                sub = [span for ch, span in zip(part, sub) for _ in range(len(ch.encode("utf-8")))]
            out.append(Piece(AlignedText(byte_level_text(part), sub, sub[0][0]), sub[0][0], sub[-1][1]))
        return out

    def split_str(self, text: str, deadline: float | None = None, at_start: bool = True) -> list[str]:
        if not text:
            return []
        if self.add_prefix_space and not text.startswith(" "):
            text = " " + text
        parts = _gpt2_step().split(text) if self.use_regex else [text]
        return [byte_level_text(p) for p in parts]


@dataclass(frozen=True)
class Metaspace(PreTokenizer):
    """``Metaspace`` (``pre_tokenizers/metaspace.rs``): each space becomes `replacement`, then
    `replacement` goes in front per `prepend_scheme` (``always``; ``first``: only the piece that starts
    the input; ``never``), then with ``split`` each piece is cut before every `replacement`."""

    replacement: str = "\u2581"
    prepend_scheme: str = "always"
    split: bool = True

    def apply(self, pieces: list[Piece], deadline: float | None = None) -> list[Piece]:
        rep = self.replacement

        def one(p: Piece) -> list[Piece]:
            t = p.text
            t.replace_spans([(i, i + 1) for i, ch in enumerate(t.text) if ch == " "], rep)
            if not t.text.startswith(rep) and (self.prepend_scheme == "always"
                                               or (self.prepend_scheme == "first" and p.start == 0)):
                t.prepend(rep)
            if self.split:
                return cut(p, char_matches(t.text, lambda ch: ch == rep), "MergedWithNext")
            return [p]

        return _each(pieces, one)

    def pre_tokenize_aligned(self, text: AlignedText, deadline: float | None = None) -> list[Piece]:
        """`apply` on one text by list operations: each space becomes `replacement` in place (its span
        stays), a prefix takes the first character's span, and the cuts fall before each `replacement`."""
        t, align = text.text, text.align
        if not t:
            return []
        rep = self.replacement
        t = t.replace(" ", rep)
        if not t.startswith(rep) and (self.prepend_scheme == "always"
                                      or (self.prepend_scheme == "first" and align[0][0] == 0)):
            t, align = rep + t, [align[0]] + align
        if not self.split:
            return _pieces_at(t, align, text.origin, [(0, len(t))])
        starts = [i for i, ch in enumerate(t) if ch == rep and i]
        return _pieces_at(t, align, text.origin, list(zip([0, *starts], [*starts, len(t)])))

    def split_str(self, text: str, deadline: float | None = None, at_start: bool = True) -> list[str]:
        if not text:
            return []
        rep = self.replacement
        text = text.replace(" ", rep)
        if not text.startswith(rep) and (self.prepend_scheme == "always" or (self.prepend_scheme == "first" and at_start)):
            text = rep + text
        if not self.split:
            return [text]
        parts = text.split(rep)
        out = [parts[0]] if parts[0] else []
        out.extend(rep + p for p in parts[1:])
        return out


@functools.cache
def _script_fixes() -> dict[int, str]:
    """Code point -> class where UnicodeScripts' table (sentencepiece's, of an older Unicode) differs from
    the `regex` module's script ("Any" for what it lacks), from scripts/gen_hf_stage_unicode.py."""
    return {cp: name for first, last, name in stage_fixes().get("scripts", []) for cp in range(first, last + 1)}


@functools.lru_cache(maxsize=65536)
def script_of(ch: str) -> str:
    """The script UnicodeScripts sees for `ch` (tokenizers' ``fixed_script``): Hiragana, Katakana and
    U+30FC count as Han; the space, and what the table lacks, are "Any", which never starts a piece."""
    cp = ord(ch)
    if cp == 0x30FC:
        return "HAN"
    if ch == " ":
        return "Any"
    script = _script_fixes().get(cp)
    if script is None:
        script = _regex_script_of(ch)
    return "HAN" if script in ("HIRAGANA", "KATAKANA") else script


def _regex_script_of(ch: str) -> str:
    m = _script_regex().match(ch)
    return "Any" if m is None else m.lastgroup


@functools.cache
def _script_regex() -> regex.Pattern:
    """One alternative per Unicode script the `regex` module knows, named after it (Unknown left out: "Any").
    The names are read from the module's own tables (its full names, upper case without spaces)."""
    from regex import _regex_core

    values = _regex_core.PROPERTIES["SCRIPT"][1]
    names: dict[int, str] = {}
    for name, value in values.items():  # the full name comes before the aliases
        if value:
            names.setdefault(value, name)
    return regex.compile("|".join(f"(?P<{name}>\\p{{Script={name}}})" for name in sorted(names.values())))


@dataclass(frozen=True)
class UnicodeScripts(PreTokenizer):
    """``UnicodeScripts``: a new piece wherever the script changes (ignoring "Any" characters)."""

    def apply(self, pieces: list[Piece], deadline: float | None = None) -> list[Piece]:
        return _each(pieces, lambda p: [p.cut(a, b) for a, b in self.cut_spans(p.text.text)])

    def cut_spans(self, text: str, deadline: float | None = None) -> list[Span]:
        cuts = []
        last = None
        for i, ch in enumerate(text):
            script = script_of(ch)
            if script != "Any" and last != "Any" and last != script:
                cuts.append(i)
            if script != "Any":
                last = script
        cuts.append(len(text))
        return [(a, b) for a, b in zip(cuts, cuts[1:]) if b > a]


@dataclass(frozen=True)
class Sequence(PreTokenizer):
    pretokenizers: tuple[PreTokenizer, ...]

    @property
    def limited(self) -> bool:  # type: ignore[override]
        return any(p.limited for p in self.pretokenizers)

    def apply(self, pieces: list[Piece], deadline: float | None = None) -> list[Piece]:
        for p in self.pretokenizers:
            pieces = p.apply(pieces, deadline)
        return pieces

    def cut_spans(self, text: str, deadline: float | None = None) -> list[Span] | None:
        spans = [(0, len(text))] if text else []
        for p in self.pretokenizers:
            if p.cut_spans("", deadline) is None:
                return None
            spans = [(s + a, s + b) for s, e in spans for a, b in p.cut_spans(text[s:e], deadline)]
        return spans

    def split_str(self, text: str, deadline: float | None = None, at_start: bool = True) -> list[str]:
        """Each step's fast path on each piece -- exact because every step cuts a piece alone, except that
        ``Metaspace(prepend_scheme="first")`` must know which piece starts the input: the first one, as
        long as no earlier step has removed text from the start (then the reference runs)."""
        deadline = self.deadline() if deadline is None else deadline
        parts = [text] if text else []
        for i, p in enumerate(self.pretokenizers):
            if isinstance(p, Metaspace) and p.prepend_scheme == "first":
                if not all(map(_keeps_start, self.pretokenizers[:i])):
                    return super().split_str(text, deadline, at_start)
                parts = [q for k, part in enumerate(parts) for q in p.split_str(part, deadline, at_start and k == 0) if q]
                continue
            parts = [q for part in parts for q in p.split_str(part, deadline) if q]
        return parts


def _keeps_start(p: PreTokenizer) -> bool:
    """Whether the first piece after `p` still starts where the input starts (`p` removes nothing)."""
    if isinstance(p, Split):
        return p.step.behavior != "Removed"
    if isinstance(p, Punctuation):
        return p.behavior != "Removed"
    return isinstance(p, (Digits, ByteLevel, Metaspace, UnicodeScripts))


# ------------------------------------------------------------------ builder
KINDS = ("ByteLevel", "Split", "Digits", "Metaspace", "Whitespace", "WhitespaceSplit", "BertPreTokenizer",
         "Punctuation", "CharDelimiterSplit", "UnicodeScripts", "Sequence")
PREPEND_SCHEMES = ("always", "first", "never")


def _behavior(node: Any, where: Any, path: str, default: str | None = None) -> str:
    behavior = where.get(node, "behavior", path, str, ... if default is None else default)
    if behavior not in BEHAVIORS:
        raise where.fail(f"{path}.behavior", f"unknown behavior {behavior!r}", f"use one of {', '.join(BEHAVIORS)}")
    return behavior


def _one_char(node: Any, key: str, where: Any, path: str, default: str) -> str:
    value = where.get(node, key, path, str, default)
    if len(value) != 1:
        raise where.fail(f"{path}.{key}", f"{value!r} is not one character", "give exactly one character")
    return value


def pre_tokenizer_from_json(node: Any, where: Any, path: str = "$.pre_tokenizer") -> PreTokenizer | None:
    """The pre-tokenizer a tokenizer.json describes at `path` (None for null); anything unknown is refused
    naming its JSON path (`where` is `tokenizer_json._Where`)."""
    if node is None:
        return None
    kind = where.get(node, "type", path, str)
    if kind == "Sequence":
        items = where.get(node, "pretokenizers", path, list)
        return Sequence(tuple(p for i, item in enumerate(items)
                              if (p := pre_tokenizer_from_json(item, where, f"{path}.pretokenizers[{i}]")) is not None))
    if kind == "ByteLevel":
        return ByteLevel(where.get(node, "add_prefix_space", path, bool, True), where.get(node, "trim_offsets", path, bool, True),
                         where.get(node, "use_regex", path, bool, True))
    if kind == "Split":
        matcher = pattern_matcher(where.get(node, "pattern", path, dict), where, f"{path}.pattern")
        behavior = _behavior(node, where, path)
        invert = where.get(node, "invert", path, bool, False)
        if isinstance(matcher, str):
            step = SplitStep(regex.compile(regex.escape(matcher)), behavior, invert, _same)
        else:
            step = SplitStep(matcher.rx, behavior, invert, matcher.view, matcher.where)
        return Split(step)
    if kind == "Digits":
        return Digits(where.get(node, "individual_digits", path, bool, False))
    if kind == "Metaspace":
        replacement = _one_char(node, "replacement", where, path, "\u2581")
        scheme = where.get(node, "prepend_scheme", path, str, "always")
        if scheme not in PREPEND_SCHEMES:
            raise where.fail(f"{path}.prepend_scheme", f"unknown scheme {scheme!r}", f"use one of {', '.join(PREPEND_SCHEMES)}")
        if where.get(node, "add_prefix_space", path, (bool, type(None)), None) is False and scheme != "never":
            raise where.fail(f"{path}.add_prefix_space", f"false does not match prepend_scheme {scheme!r} "
                             "(tokenizers refuses the file too)", 'set prepend_scheme to "never" or drop add_prefix_space')
        return Metaspace(replacement, scheme, where.get(node, "split", path, (bool, type(None)), True) is not False)
    if kind == "Whitespace":
        return Whitespace()
    if kind == "WhitespaceSplit":
        return WhitespaceSplit()
    if kind == "BertPreTokenizer":
        return BertPreTokenizer()
    if kind == "Punctuation":
        return Punctuation(_behavior(node, where, path, "Isolated"))
    if kind == "CharDelimiterSplit":
        return CharDelimiterSplit(_one_char(node, "delimiter", where, path, ...))
    if kind == "UnicodeScripts":
        return UnicodeScripts()
    raise where.fail(f"{path}.type", f"pre-tokenizer {kind!r} is not known to this engine",
                     f"use one of {', '.join(KINDS)}, or a tokenizer without it")
