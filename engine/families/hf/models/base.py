"""What every model of `engine.families.hf.models` returns: tokens with character offsets into their piece."""
from __future__ import annotations

from typing import NamedTuple

__all__ = ["ModelToken", "byte_fallback_name", "UnknownTokenMissingError"]


class ModelToken(NamedTuple):
    """One token of a piece: its id and the characters of the piece it stands for, ``piece[start:end]``.

    A byte-fallback token (``<0xE3>``) stands for one UTF-8 byte of a character: it carries that
    character's span and ``byte`` (the byte's index within the character's UTF-8, else -1).
    """

    id: int
    start: int
    end: int
    byte: int = -1


def byte_fallback_name(b: int) -> str:
    """The vocabulary entry a byte falls back to: ``<0x0A>`` (tokenizers writes ``<{b:#04X}>``)."""
    return f"<0x{b:02X}>"


class UnknownTokenMissingError(ValueError):
    """The model needs its unknown token for this text, and the file's vocabulary has none
    (tokenizers fails the same text with MissingUnkToken)."""
