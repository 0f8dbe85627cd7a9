"""Helpers that ask Hugging Face `tokenizers` for what the engine's stages must reproduce.

`hf_alignment` runs a `tokenizers` normalizer on a `PreTokenizedString`, cuts
the result into single characters and reads each one's span in the original
text (``get_splits("original", "char")``): the per-character alignment our
`AlignedText` keeps.
"""
from __future__ import annotations

import json

from hypothesis import strategies as st

import tokenizers
from engine.families.hf.tokenizer_json import _Where


def hf_alignment(normalizer, text: str) -> tuple[str, list[tuple[int, int]]]:
    pts = tokenizers.PreTokenizedString(text)
    pts.normalize(lambda ns: normalizer.normalize(ns))
    normalized = "".join(s for s, _, _ in pts.get_splits("original", "char"))
    pts.split(lambda i, ns: [ns[j:j + 1] for j in range(len(ns.normalized))])
    return normalized, [offsets for _, offsets, _ in pts.get_splits("original", "char")]


def where() -> _Where:
    return _Where("test.json")


def hf_normalizer(node: dict):
    """A `tokenizers` normalizer from its tokenizer.json node."""
    return _from_json("normalizer", node)


def _from_json(part: str, node: dict):
    doc = {"version": "1.0", "truncation": None, "padding": None, "added_tokens": [], "normalizer": None,
           "pre_tokenizer": None, "post_processor": None, "decoder": None,
           "model": {"type": "WordLevel", "vocab": {"[UNK]": 0}, "unk_token": "[UNK]"}}
    doc[part] = node
    tok = tokenizers.Tokenizer.from_str(json.dumps(doc))
    return getattr(tok, part)


def hf_pre_tokenizer(node: dict):
    return _from_json("pre_tokenizer", node)


def hf_decoder(node: dict):
    return _from_json("decoder", node)


# Text that exercises normalization: compatibility forms, case, accents (precomposed and combining,
# in scrambled order), CJK, Hangul, emoji with modifiers and joiners, and runs of every kind of space.
SPICE = ("ﬁ", "ﬀ", "Å", "Å", "é", "é", "ẹ́", "e\u0301\u0323", "Σ", "ΣΑΣ", "İ", "ß", "ǅ", "½", "①", "㍿", "ｶﾞ",
         "中文", "日本語", "한국어", "가", "\u1100\u1161\u11a8", "😀", "👍🏽", "👨‍👩‍👧", "🇫🇷", "\u0300", "\u0345",
         " ", "  ", "\t", "\n", "\r\n", "\u00a0", "\u3000", "\u2009", "\x1c", "\x00", "\ufffd", "\u200b", "\u200d",
         "Hello", "WORLD", "naïve", "Ǆ", "x²", "…", "ﷺ", "\U0001d400", "123", "٣", "'s", "!!", "a-b", "▁")

spicy_text = st.lists(st.one_of(st.sampled_from(SPICE), st.text(max_size=4)), max_size=12).map("".join)


def code_point_chunks(last: int, size: int = 4096, sep: str = "a") -> list[str]:
    """Every code point up to `last` (no surrogates), each after `sep`, in texts of `size` code points."""
    cps = [c for c in range(last + 1) if not 0xD800 <= c <= 0xDFFF]
    return ["".join(sep + chr(c) for c in cps[k:k + size]) + sep for k in range(0, len(cps), size)]
