"""GPT-2's byte <-> printable-character table (from openai/gpt-2 `src/encoder.py`).

GPT-2's `encoder.json` and `vocab.bpe` store tokens as *text*: every byte is
shown as one printable Unicode character so that files stay readable.
Bytes that are already printable Latin-1 map to themselves; the 68 others
(controls, space, 0x7F-0xA0, 0xAD) are shifted to U+0100 onwards, which is
why a leading space shows as ``Ġ`` (U+0120) and a newline as ``Ċ`` (U+010A).

Example: ``decode_printable("Ġhello") == b" hello"``.
"""
from __future__ import annotations

import re


def _byte_to_char_table() -> dict[int, str]:
    printable = (
        list(range(ord("!"), ord("~") + 1))
        + list(range(ord("¡"), ord("¬") + 1))
        + list(range(ord("®"), ord("ÿ") + 1))
    )
    table = {b: chr(b) for b in printable}
    shift = 0
    for b in range(256):
        if b not in table:
            table[b] = chr(256 + shift)
            shift += 1
    return table


BYTE_TO_CHAR: dict[int, str] = _byte_to_char_table()
CHAR_TO_BYTE: dict[str, int] = {c: b for b, c in BYTE_TO_CHAR.items()}


def encode_printable(data: bytes) -> str:
    """Bytes -> GPT-2's printable form, e.g. b" hi" -> "Ġhi"."""
    return "".join(BYTE_TO_CHAR[b] for b in data)


# decode_printable at C speed: one check for characters outside the table, then str.translate
TO_LATIN1 = str.maketrans({c: chr(b) for c, b in CHAR_TO_BYTE.items()})
_OUTSIDE = re.compile("[^" + re.escape("".join(CHAR_TO_BYTE)) + "]")
# the same, letting the separators of a vocab.bpe file through (space, tab, line ends)
OUTSIDE_TABLE_OR_SPACE = re.compile("[^" + re.escape("".join(CHAR_TO_BYTE)) + " \t\r\n\f\v]")


def decode_printable(text: str) -> bytes:
    """GPT-2's printable form -> bytes. Raises KeyError on a character outside the table."""
    outside = _OUTSIDE.search(text)
    if outside:
        raise KeyError(outside.group())
    return text.translate(TO_LATIN1).encode("latin-1")


def decode_printable_reference(text: str) -> bytes:
    """The same, one character at a time (the slow reference the tests compare with)."""
    return bytes(CHAR_TO_BYTE[c] for c in text)


def byte_level_bpe_tree(vocab: dict[str, int], merges: list, added_tokens: list[dict] | None = None) -> dict:
    """A byte-level BPE ``tokenizer.json`` tree as `tokenizers` writes GPT-2's: the ByteLevel pre-tokenizer and
    decoder around a BPE model of `vocab` (printable form -> id) and `merges`.  One place for the trees the file
    formats build (GPT-2's vocab.json + merges.txt) and the trainers export (parity-aware BPE)."""
    return {
        "version": "1.0", "truncation": None, "padding": None, "added_tokens": added_tokens or [],
        "normalizer": None,
        "pre_tokenizer": {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True, "use_regex": True},
        "post_processor": None,
        "decoder": {"type": "ByteLevel", "add_prefix_space": True, "trim_offsets": True, "use_regex": True},
        "model": {"type": "BPE", "dropout": None, "unk_token": None, "continuing_subword_prefix": None,
                  "end_of_word_suffix": None, "fuse_unk": False, "byte_fallback": False, "ignore_merges": False,
                  "vocab": vocab, "merges": merges},
    }
