"""Crafted tokenizer files that are small enough to upload but cost the server much memory to parse (issue 33,
item 2).  Each is built here in code (a fraction of a second to a few seconds), never checked in:

* `gguf_unused_strings`: a 39 MB GGUF whose tokenizer is tiny but whose header holds 3.9 million two-byte
  strings under a key no tokenizer reads (a header is the model's metadata: any key may be there);
* `sp_big_charsmap`: a SentencePiece ``.model`` whose ``precompiled_charsmap`` is a 7.9 MB double array
  (2 million units) holding one rule;
* `sp_user_defined` (crafted_slow_files): 250,000 user-defined pieces;
* `hf_million_vocab`: a ``tokenizer.json`` whose vocabulary has 1.24 million entries (just under the JSON
  value limit, four times the token limit);
* `tiktoken_one_line`: a 39 MB rank file of one line (a 29 MB token in base64).

`BIG_FILES` names them with the upload kind the Train page would pick (`engine.sources.uploads.KINDS`, or
"detected" for "Any tokenizer file").  tests/engine/sources/test_upload_memory.py loads each under tracemalloc;
bench/bench_upload_memory.py uploads them to a served app.
"""
from __future__ import annotations

import base64
import json
import struct
from typing import Callable

from tests.engine.formats.crafted_slow_files import (
    BASE_PIECES, LEAF, _unit, sentencepiece_model, sp_user_defined,
)

SPACE = "\u2581"


def _gguf_string(text: bytes) -> bytes:
    return struct.pack("<Q", len(text)) + text


def _gguf_kv(key: str, kind: str, value) -> bytes:
    """One key-value of a GGUF header (the few types these files use)."""
    out = _gguf_string(key.encode())
    if kind == "string":
        return out + struct.pack("<I", 8) + _gguf_string(value.encode())
    if kind == "u32":
        return out + struct.pack("<II", 4, value)
    if kind == "array[string]":
        return out + struct.pack("<IIQ", 9, 8, len(value)) + b"".join(_gguf_string(v.encode()) for v in value)
    if kind == "array[f32]":
        return out + struct.pack("<IIQ", 9, 6, len(value)) + struct.pack(f"<{len(value)}f", *value)
    if kind == "array[i32]":
        return out + struct.pack("<IIQ", 9, 5, len(value)) + struct.pack(f"<{len(value)}i", *value)
    raise ValueError(kind)


def small_llama_gguf_items() -> list[bytes]:
    """A SentencePiece-BPE (``llama``) tokenizer of 262 tokens: <unk>, <s>, </s>, the 256 byte tokens, ▁, a, b."""
    tokens = ["<unk>", "<s>", "</s>", *(f"<0x{b:02X}>" for b in range(256)), SPACE, "a", "b"]
    types = [2, 3, 3, *[6] * 256, 1, 1, 1]
    scores = [0.0, 0.0, 0.0, *[0.0] * 256, -1.0, -2.0, -2.0]
    return [
        _gguf_kv("general.architecture", "string", "llama"),
        _gguf_kv("tokenizer.ggml.model", "string", "llama"),
        _gguf_kv("tokenizer.ggml.tokens", "array[string]", tokens),
        _gguf_kv("tokenizer.ggml.scores", "array[f32]", scores),
        _gguf_kv("tokenizer.ggml.token_type", "array[i32]", types),
        _gguf_kv("tokenizer.ggml.unknown_token_id", "u32", 0),
    ]


def gguf_unused_strings(count: int = 3_900_000, key: str = "general.crafted.unused") -> bytes:
    """A GGUF whose small tokenizer loads, with `count` two-byte strings under `key` (10 bytes each in the file:
    39 MB for 3.9 million), which no tokenizer reads."""
    items = small_llama_gguf_items()
    unused = _gguf_string(key.encode()) + struct.pack("<IIQ", 9, 8, count) + (struct.pack("<Q", 2) + b"xy") * count
    items.insert(1, unused)  # before the tokenizer's keys, as a model's metadata comes first
    return b"GGUF" + struct.pack("<IQQ", 3, 0, len(items)) + b"".join(items)


def big_charsmap(units_count: int = 1_970_000) -> bytes:
    """A ``precompiled_charsmap`` of `units_count` units (7.9 MB for the default) holding the one rule
    ``a`` -> ``b``: the root's children in block 1, the rule's leaf in block 2, every other unit zero but for a
    label no walk matches (a zero unit would be the child by byte 0 of the node based at its own position)."""
    units = [0] * units_count
    units[0] = _unit(offset=256)  # the root's base is 256: its child by "a" sits at 256 ^ 0x61
    node = 256 ^ 0x61
    units[node] = _unit(0x61, node ^ 512, has_leaf=True)  # "a": base 512, its leaf at 512
    units[512] = LEAF | 0  # output offset 0: "b"
    # Every other unit gets a label that is not its position's low byte: both bases (256, 512) have low byte 0,
    # so a unit at i is their child by byte c only when i & 0xFF == c == its label -- never, for these.
    for i in range(1, units_count):
        if not units[i]:
            label = (i & 0xFF) ^ 0x80
            units[i] = label or 1
    trie = struct.pack(f"<{units_count}I", *units)
    return struct.pack("<I", len(trie)) + trie + b"b\x00"


def sp_big_charsmap(units_count: int = 1_970_000) -> bytes:
    """A SentencePiece Unigram ``.model`` whose normalizer holds `big_charsmap` (7.9 MB)."""
    return sentencepiece_model(BASE_PIECES, unigram=True, charsmap=big_charsmap(units_count))


def hf_million_vocab(count: int = 1_240_000) -> bytes:
    """A WordLevel ``tokenizer.json`` with `count` vocabulary entries (``"t<n>": n``): 2 JSON values each, so
    1.24 million stay under the 2.5 million values the JSON scan lets through."""
    vocab = {f"t{i}": i for i in range(count)}
    vocab["[UNK]"] = count
    return json.dumps({"version": "1.0", "truncation": None, "padding": None, "added_tokens": [],
                       "normalizer": None, "pre_tokenizer": {"type": "Whitespace"}, "post_processor": None,
                       "decoder": None, "model": {"type": "WordLevel", "vocab": vocab, "unk_token": "[UNK]"}},
                      separators=(",", ":")).encode()


def tiktoken_one_line(size: int = 39_000_000) -> bytes:
    """A tiktoken rank file of one line: a token of ``size * 3 // 4`` bytes in base64, rank 0."""
    token = b"\x00" * (size // 4 * 3)
    return base64.b64encode(token) + b" 0\n"


# name -> (file name, the Train page's kind for it, builder)
BIG_FILES: dict[str, tuple[str, str, Callable[[], bytes]]] = {
    "gguf_39mb_unused_strings": ("model-header.gguf", "detected", gguf_unused_strings),
    "sp_7.9mb_charsmap": ("charsmap.model", "sentencepiece", sp_big_charsmap),
    "sp_250k_user_defined": ("user.model", "sentencepiece", sp_user_defined),
    "hf_1.24m_vocab": ("tokenizer.json", "tokenizer.json", hf_million_vocab),
    "tiktoken_39mb_line": ("one-line.tiktoken", "tiktoken", tiktoken_one_line),
}
