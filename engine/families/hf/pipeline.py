"""The stages of a Hugging Face ``tokenizer.json`` that run before BPE, as `tokenizers` 0.23 runs them.

`Tokenizer.encode` (with ``add_special_tokens=False``) does, in order:

1. *added tokens, raw*: cut out every added token whose ``normalized`` flag is
   false, matching the original text (leftmost-longest, like its Aho-Corasick
   automaton), with the ``single_word`` / ``lstrip`` / ``rstrip`` rules;
2. *normalize* each remaining stretch separately (NFC / NFKC here), then cut
   out the added tokens whose ``normalized`` flag is true;
3. *pre-tokenize* each stretch: a sequence of `SplitStep`s (``Split`` and
   ``Digits``), each applied to every piece the previous one left, then
   ``ByteLevel`` (an optional leading space per piece, optionally GPT-2's
   split regex, then bytes -> printable characters);
4. the BPE model on each piece (`engine.families.hf.bpe`).

Traps this module handles:

* ``Split`` patterns run on Oniguruma, whose Unicode tables are older than the
  `regex` module's (17,811 code points, mostly assigned since, fall into
  another class).  `onig_view` swaps each for a stand-in of Oniguruma's
  category before matching -- one character for one, so offsets hold.  The
  table is generated from `tokenizers` itself by ``scripts/gen_onig_unicode.py``.
* Oniguruma's ``find_iter`` skips an empty match that ends where the previous
  match ended and then moves on one character, where Python retries at the
  same place; `onig_find_spans` does it Oniguruma's way.
* An empty piece is dropped after every stage, and ``add_prefix_space`` adds
  a space to *every* piece that does not start with one, not only the first.
* A file's ``Split`` pattern is a user's regex, and one such as ``(a|aa)+$``
  backtracks for minutes on 40 characters.  Like a user's tiktoken pattern
  (`engine.tokenizer.patterns.Splitter`), it runs under `engine.tokenizer.patterns.SPLIT_TIMEOUT`:
  one budget for the whole text (every step, every piece), passed down as a
  ``deadline`` and handed to each `regex` call as its ``timeout=``.  The
  built-in forms (GPT-2's split, ``Digits``) run in linear time and have none.
  The `regex` module counts ``timeout=`` in the process's CPU time, so the
  limit bounds the CPU a pattern burns; on a machine short of cores the wall
  time is longer (several times the limit when many processes share the cores).

`SplitStep.split` is the fast path (one C-level `regex.split` for the
``Isolated`` and ``Removed`` behaviours); `SplitStep.spans` is the plain reference, tested equal.
"""
from __future__ import annotations

import functools
import json
import re
import time
import unicodedata
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterable

import regex

from ...errors import SplitTimeoutError
from ...tokenizer import patterns
from ...tokenizer.patterns import unicode16_view
from ...tokenizer.special_tokens import literal_trie_pattern

DATA_DIR = Path(__file__).resolve().parent.parent.parent / "data"
BEHAVIORS = ("Removed", "Isolated", "MergedWithPrevious", "MergedWithNext", "Contiguous")
# GPT-2's split regex, which ByteLevel(use_regex=true) applies (tokenizers' byte_level.rs).
GPT2_SPLIT = r"'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"
Span = tuple[int, int]
MEMO_MAX_LEN = 64  # characters; longer pieces are split afresh
MEMO_MAX_ENTRIES = 50_000  # per step; the memo is emptied when full


@functools.cache  # built on first use, not at import, so that a server's first page does not wait for it
def _load_onig_fixes() -> tuple[dict[int, str], frozenset[str]]:
    payload = json.loads((DATA_DIR / "hf_onig_unicode_fixes.json").read_text())
    table: dict[int, str] = {}
    for first, last, category in payload["ranges"]:
        for cp in range(first, last + 1):
            table[cp] = payload["stand_ins"][category]
    return table, frozenset(map(chr, table))


def onig_view(text: str) -> str:
    """`text` with each character Oniguruma classifies differently replaced by a stand-in of its class."""
    if text.isascii():
        return text
    table, chars = _load_onig_fixes()
    if chars.isdisjoint(text):
        return text
    return text.translate(table)


# ------------------------------------------------------------------ patterns
# Oniguruma (Ruby syntax) and `regex` read most patterns alike.  These differ, so we refuse
# them rather than guess: Ruby's (?m) is Python's (?s); \h is a hex digit; \z, \Z, \G, \K,
# \R, \X, \O and absent operators (?~...) have other or no meanings in `regex`.
_UNSUPPORTED_SYNTAX = regex.compile(r"(?<!\\)(?:\\\\)*(\\[hHzZGKRXO]|\(\?[a-zA-Z-]*m|\(\?~)")


def compile_onig(pattern: str, where: str) -> regex.Pattern:
    """Compile an Oniguruma pattern from a tokenizer.json for the `regex` module.

    ``^`` and ``$`` are line anchors in Ruby syntax, hence MULTILINE.
    """
    bad = _UNSUPPORTED_SYNTAX.search(pattern)
    if bad is not None:
        raise ValueError(f"{where}: pattern uses {bad.group(1)!r}, Oniguruma syntax this engine does not translate; "
                         "rewrite the pattern without it")
    try:
        return regex.compile(pattern, regex.MULTILINE)
    except (regex.error, TypeError) as exc:
        raise ValueError(f"{where}: invalid regex {pattern[:80]!r} ({exc}); fix the pattern") from None


def time_left(deadline: float | None) -> float | None:
    """Seconds until `deadline` (a `time.monotonic()` value) for a `regex` call's ``timeout=``; None
    without a deadline; TimeoutError (the `regex` module's own) once it has passed."""
    if deadline is None:
        return None
    left = deadline - time.monotonic()
    if left <= 0:
        raise TimeoutError("regex time limit reached")
    return left


def onig_find_spans(rx: regex.Pattern, text: str, start: int = 0, deadline: float | None = None) -> list[Span]:
    """Every match of `rx` in `text`, as Oniguruma's iterator (rust-onig `find_iter`) reports them
    (TimeoutError past `deadline`)."""
    spans: list[Span] = []
    pos, last_end, n = start, -1, len(text)
    while pos <= n:
        m = rx.search(text, pos, timeout=time_left(deadline))
        if m is None:
            break
        s, e = m.span()
        if s == e and e == last_end:  # an empty match right after the last match: skip one character
            pos += 1
            continue
        spans.append((s, e))
        pos = last_end = e
    return spans


@dataclass(frozen=True)
class SplitStep:
    """One ``Split`` (or ``Digits``) pre-tokenizer: cut each piece at the pattern's matches.

    `view` maps text to what the pattern engine sees (Oniguruma's Unicode
    classes for Split, Rust's for Digits' ``char::is_numeric``).  `where`
    names a file's pattern (file and JSON path): such a step runs under the
    split time limit, and its `SplitTimeoutError` names it.  ``deadline``
    arguments are `time.monotonic()` values shared by a whole text's steps.
    """

    rx: regex.Pattern
    behavior: str
    invert: bool = False
    view: Callable[[str], str] = onig_view
    where: str | None = None  # None: a built-in pattern (linear time, no limit)

    def __post_init__(self) -> None:  # the pattern in one capturing group, for `_split_parts`
        object.__setattr__(self, "_wrapped", regex.compile("((?:" + self.rx.pattern + "))", self.rx.flags))

    def signature(self) -> tuple:
        """What this step is, as plain data: a compiled `regex` pattern has no value equality
        (two compilations of one pattern differ), so the pattern is compared by its text and flags."""
        return (self.rx.pattern, self.rx.flags, self.behavior, self.invert, self.view)

    def deadline(self, deadline: float | None = None) -> float | None:
        """`deadline`, or a fresh one for a file's pattern called alone; None for a built-in pattern."""
        if self.where is None:
            return None
        return time.monotonic() + patterns.SPLIT_TIMEOUT if deadline is None else deadline

    def too_slow(self) -> SplitTimeoutError:
        return SplitTimeoutError(patterns.SPLIT_TIMEOUT, f"{self.where} {self.rx.pattern[:80]!r}")

    def matches(self, text: str, deadline: float | None = None) -> list[tuple[int, int, bool]]:
        """(start, end, is_match) covering `text`, as tokenizers' `Pattern::find_matches`."""
        if not text:
            return [(0, 0, False)]
        out: list[tuple[int, int, bool]] = []
        prev = 0
        try:
            found = onig_find_spans(self.rx, self.view(text), deadline=self.deadline(deadline))
        except TimeoutError:
            raise self.too_slow() from None
        for s, e in found:
            if prev != s:
                out.append((prev, s, self.invert))
            out.append((s, e, not self.invert))
            prev = e
        if prev != len(text):
            out.append((prev, len(text), self.invert))
        return out

    def spans(self, text: str, deadline: float | None = None) -> list[Span]:
        """The reference: the non-empty pieces of `text` after this step, as spans."""
        keep: list[list] = []  # [start, end, removed]
        behavior = self.behavior
        previous = False
        matches = self.matches(text, deadline)
        if behavior == "MergedWithNext":
            for s, e, is_match in reversed(matches):
                if is_match and not previous and keep:
                    keep[-1][0] = s
                else:
                    keep.append([s, e, False])
                previous = is_match
            keep.reverse()
        else:
            for s, e, is_match in matches:
                if behavior == "Isolated":
                    keep.append([s, e, False])
                elif behavior == "Removed":
                    keep.append([s, e, is_match])
                elif behavior == "Contiguous" and is_match == previous and keep:
                    keep[-1][1] = e
                elif behavior == "MergedWithPrevious" and is_match and not previous and keep:
                    keep[-1][1] = e
                else:
                    keep.append([s, e, False])
                previous = is_match
        return [(s, e) for s, e, removed in keep if not removed and e > s]

    def split(self, text: str, deadline: float | None = None) -> list[str]:
        """The pieces of `text` after this step: one `regex.split` for Isolated and Removed (which keeps the
        gaps, or with ``invert`` the matches -- MiniMax's Split), the reference otherwise."""
        deadline = self.deadline(deadline)
        if self.behavior in ("Isolated", "Removed"):
            view = self.view(text)
            try:
                found = _split_parts(self._wrapped, view, deadline)
            except TimeoutError:
                raise self.too_slow() from None
            if found is not None:
                gaps, matches = found
                parts = [None] * (len(gaps) + len(matches))
                parts[0::2], parts[1::2] = gaps, matches
                if view is not text:
                    pos = 0
                    for i, p in enumerate(parts):  # same lengths, so slice the original text
                        parts[i] = text[pos : pos + len(p)]
                        pos += len(p)
                if self.behavior == "Removed":
                    parts = parts[1::2] if self.invert else parts[0::2]
                return list(filter(None, parts))
        return [text[s:e] for s, e in self.spans(text, deadline)]


def _split_parts(wrapped: regex.Pattern, text: str, deadline: float | None = None) -> tuple[list[str], list[str]] | None:
    """(gaps, matches) of one `regex.split`, ``len(gaps) == len(matches) + 1`` -- or None if a match was empty.

    `wrapped` is the pattern in one capturing group, so `split` returns
    ``[gap, whole match, (inner groups...), gap, ...]``.
    """
    parts = wrapped.split(text, timeout=time_left(deadline))
    stride = wrapped.groups + 1
    matches = parts[1::stride]
    if "" in matches:
        return None  # an empty match: Oniguruma's iteration differs from Python's, use the reference
    return parts[0::stride], matches


def digits_step(individual_digits: bool) -> SplitStep:
    """tokenizers' ``Digits``: Rust's `char::is_numeric` (categories Nd, Nl, No), as runs or one by one."""
    rx = regex.compile(r"\p{N}" if individual_digits else r"\p{N}+")
    return SplitStep(rx, "Isolated", False, unicode16_view)


@dataclass(frozen=True)
class PreTokenizer:
    """Split steps, then ByteLevel's optional leading space (per piece) and optional GPT-2 split."""

    steps: tuple[SplitStep, ...]
    add_prefix_space: bool = False
    byte_level_split: SplitStep | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "_memos", [{} for _ in self.steps])

    @property
    def limited(self) -> bool:
        """Whether a step runs a file's pattern, under the split time limit."""
        return any(step.where is not None for step in self.steps)

    def deadline(self) -> float | None:
        """A fresh deadline for one text (`time.monotonic()` + SPLIT_TIMEOUT); None if no step needs one."""
        return time.monotonic() + patterns.SPLIT_TIMEOUT if self.limited else None

    def signature(self) -> tuple:
        """What this pre-tokenizer is, as plain data (`SplitStep.signature` for each step)."""
        last = self.byte_level_split
        return (tuple(s.signature() for s in self.steps), self.add_prefix_space,
                None if last is None else last.signature())

    def split(self, text: str, deadline: float | None = None) -> list[str]:
        """The pieces BPE runs on (fast path); `deadline` (default: a fresh one) covers every step.

        A step's result for a short piece is memoized (bounded): after a digit
        split, say, the same short pieces come back thousands of times.
        """
        if deadline is None:
            deadline = self.deadline()
        pieces = [text] if text else []
        for step, memo in zip(self.steps, self._memos):  # type: ignore[attr-defined]
            if len(pieces) == 1:
                pieces = step.split(pieces[0], deadline)
                continue
            nxt: list[str] = []
            get = memo.get
            for piece in pieces:
                parts = get(piece)
                if parts is None:
                    parts = step.split(piece, deadline)
                    if len(piece) <= MEMO_MAX_LEN:
                        if len(memo) >= MEMO_MAX_ENTRIES:
                            memo.clear()
                        memo[piece] = parts
                nxt += parts
            pieces = nxt
        if self.add_prefix_space:
            pieces = [p if p.startswith(" ") else " " + p for p in pieces]
        if self.byte_level_split is not None:
            nxt = []
            for piece in pieces:
                nxt.extend(self.byte_level_split.split(piece))
            pieces = nxt
        return pieces

    def spans(self, text: str, deadline: float | None = None) -> list[tuple[int, int, bool]]:
        """Reference and explainer: (start, end, prefixed) per piece; a prefixed piece is ``" " + text[start:end]``."""
        if deadline is None:
            deadline = self.deadline()
        pieces: list[Span] = [(0, len(text))] if text else []
        for step in self.steps:
            pieces = [(s + a, s + b) for s, e in pieces for a, b in step.spans(text[s:e], deadline)]
        out = []
        for s, e in pieces:
            prefixed = self.add_prefix_space and not text.startswith(" ", s)
            if self.byte_level_split is None:
                out.append((s, e, prefixed))
                continue
            piece = (" " if prefixed else "") + text[s:e]
            shift = s - 1 if prefixed else s
            for a, b in self.byte_level_split.spans(piece):
                if prefixed and a == 0:
                    out.append((s, shift + b, True))
                else:
                    out.append((shift + a, shift + b, False))
        return out


# ---------------------------------------------------------------- normalizers
@functools.cache
def _load_normalization_fixes() -> frozenset[str]:
    payload = json.loads((DATA_DIR / "hf_normalization_fixes.json").read_text())
    return frozenset(chr(cp) for first, last in payload["unassigned"] for cp in range(first, last + 1))


# _load_normalization_fixes(): the characters tokenizers' normalization crate does not know (its
# Unicode is older than unicodedata's): to it they are inert starters.  Generated by
# scripts/gen_hf_normalization.py; read on first use.


def normalize(form: str, text: str) -> str:
    """`unicodedata.normalize` as tokenizers' crate does it: its unassigned characters left inert.

    Each such character is swapped for a private-use character absent from
    the text (also inert: class 0, no decomposition, never composed) and
    swapped back afterwards.
    """
    if text.isascii():
        return text
    hidden = _load_normalization_fixes().intersection(text)
    if not hidden:
        return text if unicodedata.is_normalized(form, text) else unicodedata.normalize(form, text)
    present = set(text)
    free = (chr(cp) for cp in range(0xF0000, 0x10FFFE) if chr(cp) not in present)
    swap = {ch: next(free) for ch in sorted(hidden)}
    back = {ord(v): k for k, v in swap.items()}
    out = unicodedata.normalize(form, text.translate({ord(k): v for k, v in swap.items()}))
    return out.translate(back)


@dataclass(frozen=True)
class Normalizer:
    """A sequence of Unicode normalization forms ("NFC", "NFKC"); empty = leave text alone."""

    forms: tuple[str, ...] = ()

    def __call__(self, text: str) -> str:
        for form in self.forms:
            text = normalize(form, text)
        return text

    def with_alignment(self, text: str) -> tuple[str, list[Span]]:
        """The normalized text and, per output character, the span of `text` it came from.

        Normalization only acts inside a starter and the marks after it, so
        each such cluster is normalized on its own and its output characters
        all point at the whole cluster.  Where that does not reproduce the
        whole-text result (Hangul jamo composing across starters, for one),
        the stretch falls back to one span for everything.
        """
        out = self(text)
        if out == text:
            return out, [(i, i + 1) for i in range(len(text))]
        starts = [i for i, ch in enumerate(text) if i == 0 or unicodedata.combining(ch) == 0]
        starts.append(len(text))
        pieces, align = [], []
        for s, e in zip(starts, starts[1:]):
            piece = self(text[s:e])
            pieces.append(piece)
            align.extend([(s, e)] * len(piece))
        if "".join(pieces) != out:
            return out, [(0, len(text))] * len(out)
        return out, align


# ---------------------------------------------------------------- added tokens
@dataclass(frozen=True)
class AddedToken:
    """An entry of ``added_tokens`` with its flags (tokenizers' `AddedToken`)."""

    id: int
    content: str
    special: bool = False
    normalized: bool = False
    lstrip: bool = False
    rstrip: bool = False
    single_word: bool = False


# tokenizers uses Rust's `regex` crate for these checks (Unicode 16 tables, `$` = end of text).
_STARTS_WITH_WORD = regex.compile(r"\w")
_ENDS_WITH_WORD = regex.compile(r"\w\Z")
_SPACES_AT_END = regex.compile(r"\s*\Z")
_SPACES_AT_START = regex.compile(r"\s*")


def added_token_regex(contents: Iterable[str]) -> re.Pattern | None:
    """Leftmost-longest matching of literal tokens, or None for no tokens."""
    contents = [c for c in set(contents) if c]
    if not contents:
        return None
    return re.compile(literal_trie_pattern(contents))


def remembered_regex(cache: dict, lock, tokens: frozenset[str], limit: int) -> re.Pattern | None:
    """`added_token_regex(tokens)`, kept in `cache` (emptied past `limit` sets, under `lock`): both tokenizer.json
    encodings check a text for disallowed specials with one regex per set of tokens."""
    found = cache.get(tokens)
    if found is None:
        found = added_token_regex(tokens)
        with lock:
            if len(cache) >= limit:
                cache.clear()
            cache[tokens] = found
    return found


def find_added(text: str, rx: re.Pattern | None, by_content: dict[str, AddedToken]) -> list[tuple[int, int, int | None]]:
    """Split `text` into (start, end, added token id or None), as tokenizers' `find_matches`."""
    if rx is None or not text:
        return [(0, len(text), None)] if text else []
    out: list[tuple[int, int, int | None]] = []
    offset = 0
    for m in rx.finditer(text):
        start, stop = m.span()
        token = by_content[m.group()]
        if token.single_word:
            start_space = start == 0 or _ENDS_WITH_WORD.search(unicode16_view(text[max(0, start - 1):start])) is None
            stop_space = stop == len(text) or _STARTS_WITH_WORD.match(unicode16_view(text[stop:stop + 1])) is None
            if not (start_space and stop_space):
                continue
        if token.lstrip:
            start = max(_SPACES_AT_END.search(unicode16_view(text[:start])).start(), offset)
        if token.rstrip:
            stop += _SPACES_AT_START.match(unicode16_view(text), stop).end() - stop
        if offset < start:
            out.append((offset, start, None))
        out.append((start, stop, token.id))
        offset = stop
    if offset != len(text):
        out.append((offset, len(text), None))
    return out
