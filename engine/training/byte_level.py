"""Hugging Face's byte-level pre-tokenizer, as its trainers see text: words made of GPT-2's printable bytes.

`tokenizers.pre_tokenizers.ByteLevel(add_prefix_space=False)` cuts a text with GPT-2's split pattern and
shows every UTF-8 byte of a piece as one printable character (`engine.tokenizer.gpt2_bytes`), so a leading
space reads ``Ġ``.  Its trainers count these *words*: each distinct piece once, with how often it occurred.

    >>> byte_level_words("hello world hello")
    {'hello': 2, 'Ġworld': 1}

The pattern is the one `tokenizers` compiles (GPT-2's ``encoder.py``, ``\\s+(?!\\S)|\\s+`` at the end),
written here rather than reused from `engine.tokenizer.patterns` so that the trainer splits exactly as the
reference does, whatever tiktoken's variant of it does at the edges.
"""
from __future__ import annotations

from collections import Counter
from typing import Iterable

import regex

from ..tokenizer.gpt2_bytes import BYTE_TO_CHAR
from ..text import repair_surrogates

HF_BYTE_LEVEL_PATTERN = r"""'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"""
_SPLIT = regex.compile(HF_BYTE_LEVEL_PATTERN)
# bytes -> printable characters at C speed: latin-1 maps byte b to chr(b), then one translate table
_PRINTABLE = str.maketrans({chr(b): c for b, c in BYTE_TO_CHAR.items()})


def byte_level_pieces(text: str) -> list[str]:
    """The pieces of `text` in order, each as GPT-2's printable bytes."""
    text = repair_surrogates(text)
    return [m.group().encode("utf-8").decode("latin-1").translate(_PRINTABLE) for m in _SPLIT.finditer(text)]


def byte_level_words(texts: str | Iterable[str]) -> dict[str, int]:
    """Each distinct piece of `texts` (one text, or several) with its count, in order of first appearance."""
    if isinstance(texts, str):
        texts = [texts]
    counts: Counter[str] = Counter()
    for text in texts:
        counts.update(byte_level_pieces(text))
    return dict(counts)
