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

A precompiled character map (NFKC-like rules) is never applied here:
`engine.families.sentencepiece.model_proto.check_runnable` refuses such models.

``norm_to_orig[k]`` is the index in the original text of normalized character
k, plus a final entry, so a normalized span ``[a, b)`` covers the original
``[norm_to_orig[a], norm_to_orig[b])``; the dummy prefix covers nothing.
(SentencePiece keeps byte offsets; characters are the same map for str.)
"""
from __future__ import annotations

from .model_proto import NormalizerSpec

SPACE = "\u2581"  # ▁


def normalize(text: str, spec: NormalizerSpec, treat_whitespace_as_suffix: bool = False) -> tuple[str, list[int]]:
    """The normalized text and ``norm_to_orig`` (one entry per normalized character, plus the end)."""
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
