"""Text helpers that import nothing: what every family does to a str or bytes before BPE.

Python's str may hold lone surrogates (U+D800..U+DFFF), which UTF-8 cannot encode;
tiktoken's Rust boundary joins pairs and turns a lone one into U+FFFD, and so do we,
once, here.  Any module of the engine may import this one.
"""
from __future__ import annotations

__all__ = ["repair_surrogates", "is_valid_utf8"]


def repair_surrogates(text: str) -> str:
    """What tiktoken encodes for a str holding surrogates: pairs joined, lone ones -> U+FFFD."""
    try:
        text.encode("utf-8")
        return text
    except UnicodeEncodeError:
        return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")


def is_valid_utf8(data: bytes) -> bool:
    """True when `data` decodes as UTF-8 (a token may hold part of a character)."""
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True
