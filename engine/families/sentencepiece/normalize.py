"""SentencePiece's `Normalizer::Normalize` for models without a character map, with offsets.

What it does (``normalizer.cc``), in order:

* ``remove_extra_whitespaces``: drop leading spaces, squeeze runs of spaces
  to one, drop trailing ones (after escaping: also a trailing ``▁`` that was
  in the text);
* ``add_dummy_prefix``: put one ``▁`` in front (behind, with the trainer's
  ``treat_whitespace_as_suffix``), so ``"world"`` and ``"hello world"`` both
  contain ``▁world``.  The empty text stays empty: no dummy prefix;
* ``escape_whitespaces``: every space (U+0020 only) becomes ``▁`` (U+2581).
  A ``▁`` already in the text is kept, so it is the same symbol as a space.

Before these rules, each step of the scan takes the longest *user-defined
symbol* at that point whole and unchanged (SentencePiece's ``PrefixMatcher``),
or else the longest rule of the model's *precompiled character map*
(`engine.formats.charsmap`: NFKC-like rules, ``"ｶﾞ"`` -> ``"ガ"``), or else one
character; the whitespace rules then act on what the step produced (a rule
that gives ``" "``, as nmt_nfkc does for U+3000, is a space like any other).
`normalize` is that loop (``Normalizer::Normalize``); models with neither a
map nor user-defined symbols take a shorter path with the same result, and
`normalized_text` (a map, no user-defined symbols) gives only the text, a run of
copied characters at a time instead of one step per character: tested equal.

``norm_to_orig[k]`` is the index in the original text of normalized character
k, plus a final entry, so a normalized span ``[a, b)`` covers the original
``[norm_to_orig[a], norm_to_orig[b])``; the dummy prefix covers nothing.
(SentencePiece keeps byte offsets; characters are the same map for str.)
"""
from __future__ import annotations

import re

from ... import deadline
from ...formats.charsmap import PrecompiledCharsmap
from .model_proto import NormalizerSpec

SPACE = "\u2581"  # ▁


def normalize(text: str, spec: NormalizerSpec, treat_whitespace_as_suffix: bool = False,
              charsmap: PrecompiledCharsmap | None = None, user: re.Pattern | None = None) -> tuple[str, list[int]]:
    """The normalized text and ``norm_to_orig`` (one entry per normalized character, plus the end).

    `charsmap` is the model's parsed ``precompiled_charsmap``; `user` matches its user-defined
    symbols, longest first.
    """
    if charsmap is not None or user is not None:
        return normalize_by_steps(text, spec, treat_whitespace_as_suffix, charsmap, user)
    remove = spec.remove_extra_whitespaces
    space = SPACE if spec.escape_whitespaces else " "
    if not text:
        return "", [0]
    i = 0
    if remove:
        while i < len(text) and text[i] == " ":
            i += 1
        if i == len(text):
            return "", [i]
    out: list[str] = []
    n2o: list[int] = []
    if spec.add_dummy_prefix and not treat_whitespace_as_suffix:
        out.append(space)
        n2o.append(i)
    prev_space = remove
    for k in range(i, len(text)):
        c = text[k]
        if not (prev_space and c == " "):
            out.append(space if c == " " else c)
            n2o.append(k)
            prev_space = c == " "
        if not remove:
            prev_space = False
    consumed = len(text)
    if remove:
        while out and out[-1] == space:
            out.pop()
            consumed = n2o.pop()
    if spec.add_dummy_prefix and treat_whitespace_as_suffix:
        out.append(space)
        n2o.append(consumed)
    n2o.append(consumed)
    return "".join(out), n2o


def _steps(text: str, charsmap: PrecompiledCharsmap | None, user: re.Pattern | None) -> list[tuple[str, int]]:
    """``NormalizePrefix`` along the text: (what the step gives, characters it consumes)."""
    out: list[tuple[str, int]] = []
    if charsmap is not None and user is None:  # runs the map has no rule for come back whole
        for piece, start, end, rule in charsmap.segments(text):
            if rule:
                out.append((piece, end - start))
            else:
                out.extend((c, 1) for c in piece)
        return out
    data = b""
    byte_at: list[int] = []
    k, n = 0, len(text)
    limit = deadline.current()  # a rule tried at each character may walk the map's whole depth
    while k < n:
        if limit is not None:
            limit.check()
        m = user.match(text, k) if user is not None else None
        if m is not None:
            out.append((m.group(), m.end() - k))
            k = m.end()
            continue
        if charsmap is not None and not charsmap.is_inert(text[k]):
            if not data:
                data = text.encode("utf-8")
                byte_at = [0]
                for c in text:
                    byte_at.append(byte_at[-1] + len(c.encode("utf-8")))
            found = charsmap.longest_match(data, byte_at[k])
            if found is not None:
                end = k + 1
                while byte_at[end] < byte_at[k] + found[0]:
                    end += 1
                out.append((found[1], end - k))
                k = end
                continue
        out.append((text[k], 1))
        k += 1
    return out


def normalize_by_steps(text: str, spec: NormalizerSpec, treat_whitespace_as_suffix: bool = False,
                       charsmap: PrecompiledCharsmap | None = None, user: re.Pattern | None = None
                       ) -> tuple[str, list[int]]:
    """``Normalizer::Normalize`` step by step (see the module docstring); `normalize`'s result."""
    if not text:
        return "", [0]
    remove = spec.remove_extra_whitespaces
    space = SPACE if spec.escape_whitespaces else " "
    steps = _steps(text, charsmap, user)
    consumed, k = 0, 0
    if remove:
        while k < len(steps) and steps[k][0] == " ":
            consumed += steps[k][1]
            k += 1
        if k == len(steps):
            return "", [consumed]
    out: list[str] = []
    n2o: list[int] = []
    if spec.add_dummy_prefix and not treat_whitespace_as_suffix:
        out.append(space)
        n2o.append(consumed)
    prev_space = remove
    for piece, length in steps[k:]:
        if prev_space:
            piece = piece.lstrip(" ")
        if piece:
            for c in piece:
                out.append(space if c == " " else c)
                n2o.append(consumed)
            prev_space = piece.endswith(" ")
        consumed += length
        if not remove:
            prev_space = False
    if remove:
        while out and out[-1] == space:
            out.pop()
            consumed = n2o.pop()
    if spec.add_dummy_prefix and treat_whitespace_as_suffix:
        out.append(space)
        n2o.append(consumed)
    n2o.append(consumed)
    return "".join(out), n2o


def _squeeze_spaces(piece: str) -> str:
    """Each run of spaces in `piece` as one space (``str.replace`` halves every run: a few C passes,
    where a regex would step through the whole text)."""
    while "  " in piece:
        piece = piece.replace("  ", " ")
    return piece


def normalized_text(text: str, spec: NormalizerSpec, treat_whitespace_as_suffix: bool,
                    charsmap: PrecompiledCharsmap) -> str:
    """`normalize_by_steps`' text (no offsets) for a model with a character map and no user-defined
    symbols: the whitespace rules applied to each run of copied characters at once."""
    if not text:
        return ""
    remove = spec.remove_extra_whitespaces
    space = SPACE if spec.escape_whitespaces else " "
    parts: list[str] = []
    prev_space = remove
    only_spaces = True  # every step gave exactly " " (the steps of a copied run are its characters)
    for piece, _, _, rule in charsmap.segments(text):
        if only_spaces:
            only_spaces = piece == " " if rule else not piece.strip(" ")
        if remove:
            if not rule:
                piece = _squeeze_spaces(piece)
            if prev_space:
                piece = piece.lstrip(" ")
            if piece:
                parts.append(piece)
                prev_space = piece.endswith(" ")
        else:
            parts.append(piece)
    if remove and only_spaces:
        return ""
    body = "".join(parts)
    if space != " ":
        body = body.replace(" ", space)
    prefix = space if spec.add_dummy_prefix and not treat_whitespace_as_suffix else ""
    out = prefix + body
    if remove:
        out = out.rstrip(space)
    if spec.add_dummy_prefix and treat_whitespace_as_suffix:
        out += space
    return out
