"""The public spelling of stream tokens: markers as named atoms, bytes as ``⟨0xNN⟩`` (ported from ctok 1.3.0's
``notation.py``).

    ⟨bow⟩ ⟨eow⟩ ⟨shift⟩ ⟨caps⟩   structural markers, fused into a piece or standing alone
    ⟨pad⟩                        one token of the message frame
    ⟨0xNN⟩                       one raw byte (a chunk of a character no piece covers, or an escaped bracket)

    >>> parse_marked("⟨bow⟩the⟨eow⟩") == BOW_G + "the" + EOW_G
    True
    >>> render_marked(parse_marked("⟨shift⟩⟨bow⟩hi⟨eow⟩"))
    '⟨shift⟩⟨bow⟩hi⟨eow⟩'
"""
from __future__ import annotations

import re
from typing import Iterator

from .markers import ATOM_TO_GLYPH, BOW_G, ESCAPED_MARKER_LITERALS, GLYPH_TO_ATOM, L, R

_ATOM_RE = re.compile(f"{L}(?:bow|eow|shift|caps|pad|0x[0-9A-Fa-f]{{2}}){R}" "|.", re.DOTALL)
_BYTE_ATOM_RE = re.compile(f"{L}0x([0-9A-Fa-f]{{2}}){R}")

__all__ = ["BOW_G", "escape_bytes", "escape_text", "render_bytes", "render_marked", "parse_marked"]


def escape_bytes(bs: bytes) -> str:
    return "".join(f"{L}0x{b:02X}{R}" for b in bs)


def escape_text(s: str) -> str:
    """Literal text in public form: a bracket character is written as bytes, so it can never form an atom."""
    if L not in s and R not in s:
        return s
    return "".join(escape_bytes(c.encode()) if c in (L, R) else c for c in s)


def render_bytes(bs: bytes) -> str:
    """A byte chunk: its text if it decodes, else ``⟨0xNN⟩`` atoms."""
    try:
        return escape_text(bs.decode())
    except UnicodeDecodeError:
        return escape_bytes(bs)


def render_marked(marked: str) -> str:
    """An internal marked string in public form: glyphs become named atoms, text is escaped."""
    out = []
    for ch in marked:
        if ch in ESCAPED_MARKER_LITERALS:
            out.append(escape_bytes(ESCAPED_MARKER_LITERALS[ch].encode()))
        else:
            out.append(GLYPH_TO_ATOM.get(ch, escape_text(ch)))
    return "".join(out)


def _atoms(public: str) -> Iterator[tuple[str, object]]:
    for m in _ATOM_RE.finditer(public):
        tok = m.group(0)
        if len(tok) == 1:
            yield ("char", tok)
            continue
        glyph = ATOM_TO_GLYPH.get(tok)
        if glyph is not None:
            yield ("marker", glyph)
            continue
        byte = _BYTE_ATOM_RE.fullmatch(tok)
        yield ("byte", int(byte.group(1), 16)) if byte else ("marker", tok)


def parse_marked(public: str) -> str:
    """`render_marked`'s inverse for the vocabulary files' keys: atoms back to glyphs, byte runs back to text."""
    parts: list[str] = []
    buf = bytearray()
    for kind, value in _atoms(public):
        if kind == "byte":
            buf.append(value)  # type: ignore[arg-type]
            continue
        if buf:
            parts.append(bytes(buf).decode("utf-8"))
            buf.clear()
        parts.append(value)  # type: ignore[arg-type]
    if buf:
        parts.append(bytes(buf).decode("utf-8"))
    return "".join(parts)
