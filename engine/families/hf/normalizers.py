"""Hugging Face ``tokenizer.json`` normalizers, with each output character's span in the original text.

Follows `tokenizers` 0.23 (``tokenizers/src/normalizers/*.rs`` and the
`NormalizedString` of ``tokenizers/src/tokenizer/normalizer.rs``), and for the
Unicode forms the ``unicode-normalization-alignments`` crate it uses
(``src/decompose.rs``, ``src/recompose.rs``).

*Offsets are first-class.*  `AlignedText` is `NormalizedString` at character
level: the text plus, per character, the ``[start, end)`` span of the original
text it stands for.  Every edit goes through `AlignedText.transform_range`,
which takes the new characters each with a *change*: ``0`` replaces the next
old character (and takes its span), ``1`` is inserted (and takes the span of
the old character just before, or an empty span at the start), ``-n``
replaces the next old character and removes the ``n`` after it.  So ``"ﬁ"``
under NFKC gives ``f`` (0) and ``i`` (1), both pointing at the ligature, and
a ``Replace`` gives every character of its content the span of the match's
last character -- exactly the offsets `tokenizers` reports.

Traps:

* The Unicode forms' changes come from the crate's own iterators: a
  decomposition marks its first character 0 and the rest 1, then combining
  marks are sorted stably by class (the changes move with them), and a
  composition folds the pair's changes into ``a + b - 1``.  `_decompose` and
  `_recompose` replay those state machines.  Characters the crate's older
  Unicode does not know stay inert (`engine.families.hf.pipeline.normalize`).
* ``Lowercase`` is Rust's `char::to_lowercase`, one character at a time:
  ``"Σ"`` is always ``"σ"`` (Python's `str.lower` picks ``"ς"`` at a word end).
* "Whitespace" is Rust's `char::is_whitespace` (the White_Space property), not
  `str.isspace` (which also takes U+001C..U+001F).
* ``BertNormalizer``'s ``strip_accents: null`` follows ``lowercase``.
* A ``Replace`` regex is a file's pattern, run like a ``Split`` pattern (on
  Oniguruma's Unicode classes, under the split time limit: one crafted to
  backtrack raises `SplitTimeoutError` naming its JSON path).
* tokenizers' character tests come from tables of several ages (Rust's std,
  the `unicode_categories` crate, the normalization crate); each class here
  (`fixed_class`, `lower_char`) is Python's with the differences tokenizers
  reports for every code point, listed in ``engine/data/hf_stage_unicode_fixes.json``
  by ``scripts/gen_hf_stage_unicode.py``.
* ``Precompiled`` reads SentencePiece's charsmap with `engine.formats.charsmap`
  but applies it the way tokenizers does (per grapheme cluster, shortest rule).

Each normalizer has `normalize_str` (the fast path, plain string operations)
and `apply` (the reference: the same edit through `AlignedText`), tested equal;
the Unicode forms' `apply` runs only on the stretches that change, beside
`apply_whole`, the plain whole-text reference.
"""
from __future__ import annotations

import base64
import binascii
import functools
import json
import unicodedata
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable

import regex

from ... import deadline
from ...formats.charsmap import PrecompiledCharsmap
from ...formats.limits import check_pattern_size
from .pipeline import DATA_DIR, SplitStep, _load_normalization_fixes, compile_onig, normalize as unicode_normalize

Span = tuple[int, int]
Change = tuple[str, int]

# Rust's char::is_whitespace: the White_Space property.
WHITE_SPACE = frozenset("\t\n\x0b\x0c\r \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008"
                        "\u2009\u200a\u2028\u2029\u202f\u205f\u3000")


def _same(text: str) -> str:
    return text


class AlignedText:
    """A text and, per character, the span of the original text it comes from (`NormalizedString`).

    `origin` is where this text starts in the original: an inserted character
    with nothing before it gets the empty span ``(origin, origin)``.
    """

    __slots__ = ("text", "align", "origin")

    def __init__(self, text: str, align: list[Span] | None = None, origin: int = 0) -> None:
        self.text = text
        self.align = [(origin + i, origin + i + 1) for i in range(len(text))] if align is None else align
        self.origin = origin

    def __repr__(self) -> str:
        return f"AlignedText({self.text!r}, {self.align!r})"

    def original_span(self, start: int = 0, end: int | None = None) -> Span:
        """The original span of characters ``[start, end)`` (tokenizers' `expand_alignments`:
        the first one's start to the last one's end)."""
        end = len(self.text) if end is None else end
        if start >= end:
            return (self.origin, self.origin) if not self.align else (self.align[min(start, len(self.align) - 1)][0],) * 2
        return self.align[start][0], self.align[end - 1][1]

    def transform_range(self, start: int, end: int, dest: Iterable[Change], initial_offset: int = 0) -> None:
        """Replace characters ``[start, end)`` by `dest`, (char, change) pairs as the module docstring says."""
        old = self.align
        offset = start + initial_offset
        chars: list[str] = []
        spans: list[Span] = []
        empty = (self.origin, self.origin)
        for ch, change in dest:
            if change > 0:
                spans.append(old[offset - 1] if offset >= 1 else empty)
            else:
                spans.append(old[offset])
                offset += 1 - change
            chars.append(ch)
        self.text = self.text[:start] + "".join(chars) + self.text[end:]
        self.align = old[:start] + spans + old[end:]

    def transform_segments(self, segments: list[tuple[int, int, list[Change]]]) -> None:
        """`transform_range` on several disjoint ranges (in order) in one pass."""
        if not segments:
            return
        old, text = self.align, self.text
        chars: list[str] = []
        spans: list[Span] = []
        empty = (self.origin, self.origin)
        last = 0
        for start, end, dest in segments:
            chars.append(text[last:start])
            spans.extend(old[last:start])
            offset = start
            for ch, change in dest:
                if change > 0:
                    spans.append(old[offset - 1] if offset >= 1 else empty)
                else:
                    spans.append(old[offset])
                    offset += 1 - change
                chars.append(ch)
            last = end
        chars.append(text[last:])
        spans.extend(old[last:])
        self.text = "".join(chars)
        self.align = spans

    def transform(self, dest: Iterable[Change], initial_offset: int = 0) -> None:
        self.transform_range(0, len(self.text), dest, initial_offset)

    def filter(self, keep: Callable[[str], bool]) -> None:
        """Drop the characters `keep` refuses; a kept character absorbs the removed ones after it."""
        if all(map(keep, self.text)):
            return
        out: list[Change] = []
        removed = removed_start = 0
        last: str | None = None
        for ch in self.text:
            if keep(ch):
                if last is None:
                    removed_start = removed
                else:
                    out.append((last, -removed))
                last, removed = ch, 0
            else:
                removed += 1
        if last is not None:
            out.append((last, -removed))
        else:
            removed_start = removed
        self.transform(out, removed_start)

    def map(self, fn: Callable[[str], str]) -> None:
        """One character for one: every span stays (the transform with changes all 0)."""
        self.text = "".join(map(fn, self.text))

    def lowercase(self) -> None:
        low = lowercase_str(self.text)
        if len(low) == len(self.text):  # one for one (a lowercase is never shorter): the spans stay
            self.text = low
            return
        self.transform([(c, int(i > 0)) for ch in self.text for i, c in enumerate(lower_char(ch))])

    def prepend(self, s: str) -> None:
        if self.text and s:
            first = self.text[0]
            dest = [(c, int(i != 0)) for i, c in enumerate(s)] + [(first, 1)]
            self.transform_range(0, 1, dest)

    def append(self, s: str) -> None:
        if self.text:
            self.transform_range(len(self.text) - 1, len(self.text), [(self.text[-1], 0)] + [(c, 1) for c in s])
        else:
            self.transform([(c, 1) for c in s])

    def strip(self, left: bool, right: bool) -> None:
        text = self.text
        lead = 0
        if left:
            while lead < len(text) and text[lead] in WHITE_SPACE:
                lead += 1
        trail = 0
        if right:
            while trail < len(text) - lead and text[len(text) - 1 - trail] in WHITE_SPACE:
                trail += 1
        if right and lead == len(text):
            trail = len(text)
        if lead or trail:
            kept = text[lead:len(text) - trail] if trail < len(text) - lead else ""
            self.transform([(c, 0) for c in kept], lead)

    def replace_spans(self, spans: Iterable[Span], content: str) -> None:
        """Replace each (start, end) match by `content`: every new character takes the span of the match's last one."""
        text, old = self.text, self.align
        chars: list[str] = []
        aligns: list[Span] = []
        last = 0
        empty = (self.origin, self.origin)
        for s, e in spans:
            chars.append(text[last:s])
            aligns.extend(old[last:s])
            if content:
                chars.append(content)
                aligns.extend([old[e - 1] if e >= 1 else empty] * len(content))
            last = e
        chars.append(text[last:])
        aligns.extend(old[last:])
        self.text = "".join(chars)
        self.align = aligns


# ------------------------------------------------- character classes
# tokenizers tests characters with tables of several ages (Rust's std, the `unicode_categories` and
# `unicode-normalization-alignments` crates, sentencepiece's scripts).  Each class here is the `regex`
# module's (or `unicodedata`'s) with the differences `tokenizers` itself reports, found for every code
# point by scripts/gen_hf_stage_unicode.py and read on first use.
@functools.cache
def stage_fixes() -> dict:
    path = DATA_DIR / "hf_stage_unicode_fixes.json"
    return json.loads(path.read_text()) if path.exists() else {}


def _ranges_class(ranges: list[list[int]]) -> str:
    return "".join(f"\\U{a:08x}-\\U{b:08x}" for a, b in ranges)


@functools.cache
def fixed_class(name: str, raw: str) -> regex.Pattern:
    """`raw` (a `regex` class body) with the characters `tokenizers` adds or refuses for class `name`."""
    fix = stage_fixes().get(name, {})
    body = f"[{raw}]"
    if fix.get("true"):
        body = f"[{body}||[{_ranges_class(fix['true'])}]]"
    if fix.get("false"):
        body = f"[{body}--[{_ranges_class(fix['false'])}]]"
    return regex.compile(body, regex.V1)


# The raw classes, before tokenizers' differences (the generator compares against these).
RAW_PUNCTUATION = r"\p{P}!-/:-@\[-`{-~"  # Rust's is_ascii_punctuation takes the ASCII symbols too
RAW_NUMERIC = r"\p{N}"
RAW_COMBINING_MARK = r"\p{M}"
RAW_NONSPACING_MARK = r"\p{Mn}"
RAW_CONTROL = r"[\p{Cc}\p{Cf}\p{Co}\p{Cs}]--[\t\n\r]"  # BERT: categories C* but not Cn; tab, LF, CR are whitespace


def _matcher(name: str, raw: str) -> Callable[[str], bool]:
    @functools.lru_cache(maxsize=8192)
    def test(ch: str) -> bool:
        return fixed_class(name, raw).match(ch) is not None
    test.__name__ = f"is_{name}"
    return test


is_combining_mark = _matcher("combining_mark", RAW_COMBINING_MARK)
is_nonspacing_mark = _matcher("nonspacing_mark", RAW_NONSPACING_MARK)
is_control = _matcher("bert_control", RAW_CONTROL)


@functools.cache
def _lower_fixes() -> dict[str, str]:
    return {chr(int(cp)): low for cp, low in stage_fixes().get("lowercase", {}).items()}


def raw_lower(ch: str) -> str:
    return "\u03c3" if ch == "\u03a3" else ch.lower()


@functools.lru_cache(maxsize=4096)
def lower_char(ch: str) -> str:
    """Rust's `char::to_lowercase` (no context: capital sigma is always the medial form)."""
    fixed = _lower_fixes().get(ch)
    return raw_lower(ch) if fixed is None else fixed


def lowercase_str(text: str) -> str:
    fixes = _lower_fixes()
    if not fixes.keys().isdisjoint(text):
        return "".join(map(lower_char, text))
    return text.replace("\u03a3", "\u03c3").lower() if "\u03a3" in text else text.lower()


# ------------------------------------------------------------ Unicode forms
@functools.lru_cache(maxsize=8192)
def _decomposition(ch: str, compat: bool) -> str:
    if ch in _load_normalization_fixes():
        return ch
    return unicodedata.normalize("NFKD" if compat else "NFD", ch)


def _ccc(ch: str) -> int:
    return 0 if ch in _load_normalization_fixes() else unicodedata.combining(ch)


@functools.lru_cache(maxsize=8192)
def _compose(a: str, b: str) -> str | None:
    """The primary composite of the pair, or None (the crate's `compose`)."""
    fixes = _load_normalization_fixes()
    if a in fixes or b in fixes:
        return None
    c = unicodedata.normalize("NFC", a + b)
    return c if len(c) == 1 else None


def _decompose(text: str, compat: bool) -> list[tuple[int, str, int]]:
    """The crate's `Decompositions`: (class, char, change), non-starters sorted stably by class."""
    buf: list[tuple[int, str, int]] = []
    ready = 0
    for ch in text:
        for i, d in enumerate(_decomposition(ch, compat)):
            cls = _ccc(d)
            if cls == 0:
                buf[ready:] = sorted(buf[ready:], key=lambda k: k[0])
                ready = len(buf)
            buf.append((cls, d, 0 if i == 0 else 1))
    buf[ready:] = sorted(buf[ready:], key=lambda k: k[0])
    return buf


def _recompose(items: list[tuple[int, str, int]]) -> list[Change]:
    """The crate's `Recompositions` state machine over decomposed (class, char, change)."""
    out: list[Change] = []
    composee: Change | None = None
    last_ccc: int | None = None
    buffer: list[Change] = []
    for cls, ch, change in items:
        if composee is None:
            if cls != 0:
                out.append((ch, change))
            else:
                composee = (ch, change)
            continue
        if last_ccc is not None and last_ccc >= cls:  # `ch` is blocked from the composee
            if cls == 0:
                out.append(composee)
                out.extend(buffer)
                buffer.clear()
                composee, last_ccc = (ch, change), None
            else:
                buffer.append((ch, change))
                last_ccc = cls
            continue
        made = _compose(composee[0], ch)
        if made is not None:
            composee = (made, composee[1] + change - 1)
        elif last_ccc is None and cls == 0:
            out.append(composee)
            composee = (ch, change)
        else:
            buffer.append((ch, change))
            last_ccc = cls
    if composee is not None:
        out.append(composee)
    out.extend(buffer)
    return out


def unicode_changes(form: str, text: str) -> list[Change]:
    """(char, change) for `text` under `form`, as the crate's iterators yield them."""
    items = _decompose(text, form in ("NFKD", "NFKC"))
    if form in ("NFD", "NFKD"):
        return [(ch, change) for _, ch, change in items]
    return _recompose(items)


_NON_ASCII_RUN = regex.compile(r"[\x00-\x7f]?[^\x00-\x7f]+")


# -------------------------------------------------------------- normalizers
class Normalizer:
    """A normalizer: `apply` edits an `AlignedText` (the reference); `normalize_str` is the fast path."""

    limited = False  # whether it runs a file's regex (a Replace), under the split time limit

    def apply(self, s: AlignedText) -> None:
        raise NotImplementedError

    def normalize_str(self, text: str) -> str:
        s = AlignedText(text)
        self.apply(s)
        return s.text

    def normalize(self, text: str) -> tuple[str, list[Span]]:
        """The normalized text and, per character of it, its span in `text`."""
        s = AlignedText(text)
        self.apply(s)
        return s.text, s.align


@dataclass(frozen=True)
class UnicodeForm(Normalizer):
    """NFC, NFD, NFKC or NFKD (tokenizers' ``normalizers/unicode.rs``)."""

    form: str

    def apply_whole(self, s: AlignedText) -> None:
        """The plain reference for `apply`: the crate's iterators over the whole text."""
        if s.text.isascii() or self.normalize_str(s.text) == s.text:
            return  # each character then comes back as itself (change 0): the spans stay
        s.transform(unicode_changes(self.form, s.text))

    def apply(self, s: AlignedText) -> None:
        """`apply_whole`, run only on the stretches that change.  An ASCII character is a safe cut: it is a
        starter, never decomposes and is never the second of a composing pair, so the crate's iterators
        start afresh there; a stretch is a run of non-ASCII characters with the one character before it
        (it may compose with what follows)."""
        text = s.text
        if text.isascii():
            return
        segments = []
        for m in _NON_ASCII_RUN.finditer(text):
            piece = m.group()
            if self.normalize_str(piece) != piece:
                segments.append((m.start(), m.end(), unicode_changes(self.form, piece)))
        s.transform_segments(segments)

    def normalize_str(self, text: str) -> str:
        return unicode_normalize(self.form, text)


@dataclass(frozen=True)
class Lowercase(Normalizer):
    def apply(self, s: AlignedText) -> None:
        s.lowercase()

    def normalize_str(self, text: str) -> str:
        return lowercase_str(text)


@dataclass(frozen=True)
class Strip(Normalizer):
    """``Strip``: White_Space at the left and/or right (tokenizers' ``normalizers/strip.rs``)."""

    left: bool = True
    right: bool = True

    def apply(self, s: AlignedText) -> None:
        s.strip(self.left, self.right)

    def normalize_str(self, text: str) -> str:
        chars = "".join(WHITE_SPACE)
        if self.left:
            text = text.lstrip(chars)
        if self.right:
            text = text.rstrip(chars)
        return text


@dataclass(frozen=True)
class StripAccents(Normalizer):
    """``StripAccents``: drop combining marks (Mn, Mc, Me) -- usually after NFD, which exposes them."""

    def apply(self, s: AlignedText) -> None:
        s.filter(lambda ch: not is_combining_mark(ch))

    def normalize_str(self, text: str) -> str:
        return text if text.isascii() else fixed_class("combining_mark", RAW_COMBINING_MARK).sub("", text)


@dataclass(frozen=True)
class Replace(Normalizer):
    """``Replace``: every match of a string (`literal`) or an Oniguruma regex becomes `content`."""

    matcher: SplitStep
    content: str
    literal: str | None = None  # a ``String`` pattern's text: `str.replace` finds the same matches

    @property
    def limited(self) -> bool:  # type: ignore[override]
        return self.matcher.where is not None

    def spans(self, text: str, deadline: float | None = None) -> list[Span]:
        return [(a, b) for a, b, hit in self.matcher.matches(text, deadline) if hit]

    def apply(self, s: AlignedText, deadline: float | None = None) -> None:
        s.replace_spans(self.spans(s.text, deadline), self.content)

    def normalize_str(self, text: str, deadline: float | None = None) -> str:
        if self.literal is not None:  # (tokenizers finds no match, not even an empty one, in empty text)
            return text.replace(self.literal, self.content) if text else text
        out, last = [], 0
        for a, b in self.spans(text, deadline):
            out += (text[last:a], self.content)
            last = b
        out.append(text[last:])
        return "".join(out)


def string_replace(literal: str, content: str) -> Replace:
    """A ``Replace`` with a ``String`` pattern: a literal, found left to right without overlaps."""
    return Replace(SplitStep(regex.compile(regex.escape(literal)), "Isolated", False, _same), content, literal)


@dataclass(frozen=True)
class Prepend(Normalizer):
    """``Prepend``: `prefix` before any non-empty text; its characters take the first character's span."""

    prefix: str

    def apply(self, s: AlignedText) -> None:
        s.prepend(self.prefix)

    def normalize_str(self, text: str) -> str:
        return self.prefix + text if text else text


_TO_SPACE = {ord(ch): " " for ch in WHITE_SPACE}


def is_chinese_char(ch: str) -> bool:
    cp = ord(ch)
    return (0x4E00 <= cp <= 0x9FFF or 0x3400 <= cp <= 0x4DBF or 0x20000 <= cp <= 0x2A6DF or 0x2A700 <= cp <= 0x2B73F
            or 0x2B740 <= cp <= 0x2B81F or 0x2B920 <= cp <= 0x2CEAF or 0xF900 <= cp <= 0xFAFF or 0x2F800 <= cp <= 0x2FA1F)


_CJK = regex.compile("([\u4e00-\u9fff\u3400-\u4dbf\U00020000-\U0002a6df\U0002a700-\U0002b73f\U0002b740-\U0002b81f"
                     "\U0002b920-\U0002ceaf\uf900-\ufaff\U0002f800-\U0002fa1f])")


@dataclass(frozen=True)
class BertNormalizer(Normalizer):
    """``BertNormalizer`` (tokenizers' ``normalizers/bert.rs``): clean text, space out CJK, strip accents, lowercase."""

    clean_text: bool = True
    handle_chinese_chars: bool = True
    strip_accents: bool | None = None
    lowercase: bool = True

    @property
    def strips_accents(self) -> bool:
        return self.lowercase if self.strip_accents is None else self.strip_accents

    def apply(self, s: AlignedText) -> None:
        if self.clean_text:
            s.filter(lambda ch: not (ch == "\x00" or ch == "\ufffd" or is_control(ch)))
            s.map(lambda ch: " " if ch in WHITE_SPACE else ch)
        if self.handle_chinese_chars:
            s.transform([c for ch in s.text for c in (((" ", 0), (ch, 1), (" ", 1)) if is_chinese_char(ch) else ((ch, 0),))])
        if self.strips_accents:
            UnicodeForm("NFD").apply(s)
            s.filter(lambda ch: not is_nonspacing_mark(ch))
        if self.lowercase:
            s.lowercase()

    def normalize_str(self, text: str) -> str:
        if self.clean_text:
            text = fixed_class("bert_control", RAW_CONTROL).sub("", text.replace("\x00", "").replace("\ufffd", ""))
            text = text.translate(_TO_SPACE)
        if self.handle_chinese_chars:
            text = _CJK.sub(r" \1 ", text)
        if self.strips_accents:
            text = unicode_normalize("NFD", text)
            if not text.isascii():
                text = fixed_class("nonspacing_mark", RAW_NONSPACING_MARK).sub("", text)
        if self.lowercase:
            text = lowercase_str(text)
        return text


_GRAPHEME = regex.compile(r"\X")


@dataclass(frozen=True, eq=False)
class Precompiled(Normalizer):
    """``Precompiled``: SentencePiece's charsmap as tokenizers applies it (``normalizers/precompiled.rs``
    over the ``spm_precompiled`` crate), which is not SentencePiece's own way.

    Per extended grapheme cluster: one shorter than 6 UTF-8 bytes is looked up
    whole, and the *shortest* rule that is a prefix of it replaces the whole
    cluster; otherwise (or with no rule) each character is looked up alone.
    The changes of a replacement are 0 for each new character, the surplus
    ones marked inserted, or the last one absorbing the shortfall -- also
    when that last one belongs to the replacement before (tokenizers' `replace`).
    """

    charsmap: PrecompiledCharsmap
    _hot_chars: dict = field(default_factory=dict, repr=False, compare=False)

    def _rule(self, chunk: str) -> str | None:
        found = self.charsmap.prefix_matches(chunk.encode("utf-8"), 0, 1)
        return self.charsmap.output(found[0][1]) if found else None

    def _cluster(self, cluster: str, out: list[Change], whole_text: bool = True) -> bool:
        """Append one cluster's (char, change) to `out`; True if a rule applied.  With `whole_text` false
        (a cluster alone) a shortfall that the character before the cluster would absorb raises
        `_NeedsWholeText`."""

        def replace(old: str, new: str) -> None:
            diff = len(new) - len(old)
            if diff < 0 and not new and not out and not whole_text:
                raise _NeedsWholeText
            out.extend((c, 0) for c in new)
            if diff > 0:
                for k in range(len(out) - diff, len(out)):
                    out[k] = (out[k][0], 1)
            elif diff < 0 and out:
                out[-1] = (out[-1][0], out[-1][1] + diff)

        if len(cluster.encode("utf-8")) < 6:
            new = self._rule(cluster)
            if new is not None:
                replace(cluster, new)
                return True
        modified = False
        for ch in cluster:
            new = self._rule(ch)
            if new is None:
                out.append((ch, 0))
            else:
                modified = True
                replace(ch, new)
        return modified

    def changes(self, text: str) -> list[Change] | None:
        """The reference: (char, change) for the whole text, cluster by cluster, or None when no rule applies."""
        out: list[Change] = []
        modified = False
        limit = deadline.current()  # every cluster of a text may be touched: a caller's time limit
        for cluster in _GRAPHEME.findall(text):
            if limit is not None:
                limit.check()
            modified = self._cluster(cluster, out) or modified
        return out if modified else None

    def _hot(self, ch: str) -> bool:
        """Whether a cluster holding `ch` may change: `ch` has a rule of its own, or it can join a cluster of
        several characters (whose whole may match a rule), or it is a CR that a rule may start with."""
        known = self._hot_chars.get(ch)
        if known is None:
            known = (self._rule(ch) is not None or _JOINS.match(ch) is not None
                     or (ch == "\r" and not self.charsmap.is_inert(ch)))
            if len(self._hot_chars) < 1 << 16:  # bounded: the distinct characters of the texts seen
                self._hot_chars[ch] = known
        return known

    def touched_clusters(self, text: str) -> list[Span]:
        """The clusters a rule may change: those holding a `_hot` character (every other cluster is one
        character without a rule of its own), found without cutting the whole text into clusters."""
        hot = [c for c in set(text) if self._hot(c)]
        if not hot:
            return []
        out: list[Span] = []
        done = 0
        limit = deadline.current()
        for m in regex.finditer("[" + "".join(map(regex.escape, hot)) + "]", text):
            if limit is not None:
                limit.check()
            p = m.start()
            if p < done:
                continue
            q = p
            while q > done and not _cluster_starts_at(text, q):
                q -= 1
            while True:
                e = _GRAPHEME.match(text, q).end()
                if e > p:
                    break
                q = e
            out.append((q, e))
            done = e
        return out

    def apply(self, s: AlignedText) -> None:
        text = s.text
        segments = []
        limit = deadline.current()
        try:
            for a, b in self.touched_clusters(text):
                if limit is not None:
                    limit.check()
                local: list[Change] = []
                if self._cluster(text[a:b], local, whole_text=False):
                    segments.append((a, b, local))
        except _NeedsWholeText:
            self.apply_whole(s)
            return
        s.transform_segments(segments)

    def apply_whole(self, s: AlignedText) -> None:
        """The plain reference for `apply`: `changes` over the whole text."""
        changes = self.changes(s.text)
        if changes is not None:
            s.transform(changes)

    def normalize_str(self, text: str) -> str:
        out: list[str] = []
        last = 0
        limit = deadline.current()
        for a, b in self.touched_clusters(text):
            if limit is not None:
                limit.check()
            local: list[Change] = []
            self._cluster(text[a:b], local)
            out += (text[last:a], "".join(c for c, _ in local))
            last = b
        if not out:
            return text
        out.append(text[last:])
        return "".join(out)


class _NeedsWholeText(Exception):
    """A rule's empty output at the start of a cluster: tokenizers folds the shortfall into the character
    before, which a cluster-by-cluster pass does not see."""


_PREPEND = regex.compile(r"\p{Grapheme_Cluster_Break=Prepend}")
# Characters that can share a grapheme cluster with a neighbour (UAX #29: everything but Other and controls).
_JOINS = regex.compile(r"[\p{GCB=Extend}\p{GCB=ZWJ}\p{GCB=SpacingMark}\p{GCB=Prepend}\p{GCB=Regional_Indicator}"
                       r"\p{GCB=L}\p{GCB=V}\p{GCB=T}\p{GCB=LV}\p{GCB=LVT}]")


def _cluster_starts_at(text: str, q: int) -> bool:
    """A sure grapheme cluster boundary before ``text[q]`` (q > 0): an ASCII character starts a cluster,
    unless it is LF after CR, or a non-control after a Prepend character (UAX #29 GB3, GB5, GB9b)."""
    c = text[q]
    if ord(c) >= 0x80:
        return False
    prev = text[q - 1]
    if c < " " or c == "\x7f":
        return not (c == "\n" and prev == "\r")
    return _PREPEND.match(prev) is None


@dataclass(frozen=True)
class Sequence(Normalizer):
    normalizers: tuple[Normalizer, ...]

    @property
    def limited(self) -> bool:  # type: ignore[override]
        return any(n.limited for n in self.normalizers)

    def apply(self, s: AlignedText) -> None:
        for n in self.normalizers:
            n.apply(s)

    def normalize_str(self, text: str) -> str:
        for n in self.normalizers:
            text = n.normalize_str(text)
        return text


# ------------------------------------------------------------------ builder
# A Replace content, a Prepend or a decoder's strings is inserted once per match or token, and a model's
# continuing_subword_prefix once per candidate WordPiece tries, so a crafted file with a long one would blow
# a short text up (a 100,000-character prefix was read); real ones are one to a few characters ("##").
MAX_STAGE_STRING = 1_000


def stage_string(node: Any, key: str, where: Any, path: str, default: Any = ..., kind: type | tuple = str) -> Any:
    """A string field of a stage, refused past `MAX_STAGE_STRING` characters with its JSON path (`kind` may
    allow null too: ``(str, type(None))``)."""
    value = where.get(node, key, path, kind, default)
    if isinstance(value, str) and len(value) > MAX_STAGE_STRING:
        raise where.fail(f"{path}.{key}", f"{len(value):,} characters; the limit is {MAX_STAGE_STRING:,} "
                         "(real ones have a few)", "use a shorter string")
    return value


UNICODE_FORMS = ("NFC", "NFD", "NFKC", "NFKD")
KINDS = (*UNICODE_FORMS, "Lowercase", "Strip", "StripAccents", "Replace", "Prepend", "BertNormalizer",
         "Precompiled", "Sequence")


def normalizer_from_json(node: Any, where: Any, path: str = "$.normalizer") -> Normalizer | None:
    """The normalizer a tokenizer.json describes at `path` (None for null).

    `where` is `tokenizer_json._Where`: its `fail` and `get` name the file and
    the JSON path of anything wrong or unknown.
    """
    if node is None:
        return None
    kind = where.get(node, "type", path, str)
    if kind in UNICODE_FORMS:
        return UnicodeForm(kind)
    if kind == "Sequence":
        items = where.get(node, "normalizers", path, list)
        return Sequence(tuple(n for i, item in enumerate(items)
                              if (n := normalizer_from_json(item, where, f"{path}.normalizers[{i}]")) is not None))
    if kind == "Lowercase":
        return Lowercase()
    if kind == "Strip":
        return Strip(where.get(node, "strip_left", path, bool, False), where.get(node, "strip_right", path, bool, False))
    if kind == "StripAccents":
        return StripAccents()
    if kind == "Prepend":
        return Prepend(stage_string(node, "prepend", where, path))
    if kind == "BertNormalizer":
        return BertNormalizer(where.get(node, "clean_text", path, bool, True),
                              where.get(node, "handle_chinese_chars", path, bool, True),
                              where.get(node, "strip_accents", path, (bool, type(None)), None),
                              where.get(node, "lowercase", path, bool, True))
    if kind == "Replace":
        pattern = where.get(node, "pattern", path, dict)
        content = stage_string(node, "content", where, path)
        matcher = pattern_matcher(pattern, where, f"{path}.pattern")
        if isinstance(matcher, str):
            return string_replace(matcher, content)
        return Replace(matcher, content)
    if kind == "Precompiled":
        return precompiled_from_json(node, where, path)
    raise where.fail(f"{path}.type", f"normalizer {kind!r} is not known to this engine",
                     f"use one of {', '.join(KINDS)}, or a tokenizer without it")


def pattern_matcher(pattern: dict, where: Any, path: str) -> SplitStep | str:
    """A tokenizer.json ``{"String": ...}`` (returned as the literal) or ``{"Regex": ...}`` (a time-limited step)."""
    if set(pattern) == {"String"} and isinstance(pattern["String"], str):
        check_pattern_size(pattern["String"], where.source, f"{path}.String")
        return pattern["String"]
    if set(pattern) == {"Regex"} and isinstance(pattern["Regex"], str):
        field = f"{where.source}: {path}.Regex"
        check_pattern_size(pattern["Regex"], where.source, f"{path}.Regex")
        rx = compile_onig(pattern["Regex"], field)
        return SplitStep(rx, "Isolated", False, where=None if getattr(where, "trusted", False) else field)
    raise where.fail(path, 'expected {"String": "..."} or {"Regex": "..."}', "fix the pattern")


def precompiled_from_json(node: Any, where: Any, path: str) -> Normalizer:
    blob = where.get(node, "precompiled_charsmap", path, str)
    try:
        data = base64.b64decode(blob, validate=True)
    except (binascii.Error, ValueError):
        raise where.fail(f"{path}.precompiled_charsmap", "not base64", "write the charsmap as base64") from None
    # A CharsmapError (now, or from a later lookup that finds an index outside the blob) names the file,
    # the JSON path and what is wrong.
    return Precompiled(PrecompiledCharsmap.parse(data, f"{where.source}: {path}"))
