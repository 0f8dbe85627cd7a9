"""Text helpers that import nothing: what every family does to a str or bytes before BPE.

Python's str may hold lone surrogates (U+D800..U+DFFF), which UTF-8 cannot encode;
tiktoken's Rust boundary joins pairs and turns a lone one into U+FFFD, and so do we,
once, here.  Any module of the engine may import this one.
"""
from __future__ import annotations

import re
from typing import Any

__all__ = ["repair_surrogates", "lone_surrogates", "first_surrogate", "repair_surrogates_in", "is_valid_utf8"]

_SURROGATE = re.compile("[\ud800-\udfff]")


def repair_surrogates(text: str) -> str:
    """What tiktoken encodes for a str holding surrogates: pairs joined, lone ones -> U+FFFD."""
    try:
        text.encode("utf-8")
        return text
    except UnicodeEncodeError:
        return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")


def lone_surrogates(text: str) -> int:
    """How many U+FFFD `repair_surrogates` puts in `text`: its surrogates that are not half of a pair.

    >>> lone_surrogates("a\\ud800b\\ud83d\\ude00")  # one lone high half; the pair is an emoji
    1
    """
    repaired = repair_surrogates(text)
    return 0 if repaired is text else repaired.count("\ufffd") - text.count("\ufffd")


def first_surrogate(text: str) -> int | None:
    """The index of the first surrogate code point in `text`, or None when UTF-8 can hold all of it."""
    found = _SURROGATE.search(text)
    return None if found is None else found.start()


def repair_surrogates_in(value: Any) -> tuple[Any, int]:
    """`value`, parsed JSON, with every str in it (keys too) through `repair_surrogates`, and the number of
    lone surrogates that became U+FFFD.  JSON's ``"\\ud800"`` escape reads as a lone surrogate, which a
    str may hold but UTF-8 cannot: a file holding one must not carry it into text that is written out again."""
    if isinstance(value, str):
        return repair_surrogates(value), lone_surrogates(value)
    if isinstance(value, list):
        pairs = [repair_surrogates_in(v) for v in value]
        return [v for v, _ in pairs], sum(n for _, n in pairs)
    if isinstance(value, dict):
        out, total = {}, 0
        for key, item in value.items():
            (key, n_key), (item, n_item) = repair_surrogates_in(key), repair_surrogates_in(item)
            out[key] = item
            total += n_key + n_item
        return out, total
    return value, 0


def is_valid_utf8(data: bytes) -> bool:
    """True when `data` decodes as UTF-8 (a token may hold part of a character)."""
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True
