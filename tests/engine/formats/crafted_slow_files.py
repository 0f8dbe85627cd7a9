"""Small crafted tokenizer files whose encoding cost grows with a length the file chooses (issue 33, item 1).

Each is a few kB, loads like a real file of its kind, and made every encode of a long text slow before
the load-time bounds: a character map whose trie loops, pieces and tokens of thousands of characters, a
huge ``max_input_chars_per_word``, a quarter of a million user-defined symbols.  `CRAFTED_SLOW` names them
with the text that costs the most; the tests (tests/engine/formats/test_charsmap.py,
tests/engine/formats/test_crafted_slow_files.py) load them and bench/bench_crafted_files.py times them.
Built in code, here, so the files are small and every byte is explained.
"""
from __future__ import annotations

import base64
import json
import struct
from typing import Callable

from tests.engine.families.gguf.test_gguf import write_gguf

LEAF = 1 << 31
HAS_LEAF = 1 << 8
SPACE = "\u2581"


def _unit(label: int = 0, offset: int = 0, has_leaf: bool = False) -> int:
    """A darts-clone unit: label in bits 0-7, "has a leaf" bit 8, offset in bits 10-31 (unshifted)."""
    assert offset < 1 << 21
    return label | (HAS_LEAF if has_leaf else 0) | (offset << 10)


def _offset(unit: int) -> int:
    return (unit >> 10) << ((unit & (1 << 9)) >> 6)


def fill_unused(units: list[int]) -> list[int]:
    """`units` with every unused (zero) unit but the root given a label no walk matches, as darts-clone's
    ``fix_block`` does: ``i ^ U`` for a base U of the block that no node has.  A zero unit has label 0 and
    offset 0, so it is the child by byte 0 of the node whose base is its own position -- and its own
    child by 0 again: a walk over NUL bytes that never ends."""
    bases = {_offset(units[0])} | {i ^ _offset(u) for i, u in enumerate(units) if u and not u >> 31}
    out = list(units)
    for low in range(0, len(units), 256):
        used = {b & 0xFF for b in bases if b & ~0xFF == low}
        free = next(x for x in range(256) if x not in used)
        for i in range(max(low, 1), min(low + 256, len(units))):
            if not out[i]:
                out[i] = (i ^ free) & 0xFF
    return out


def charsmap_blob(units: list[int], outputs: bytes) -> bytes:
    """``<trie size><units, little-endian><outputs>``, as `Normalizer::EncodePrecompiledCharsMap` writes it,
    the unused units filled (`fill_unused`)."""
    units = fill_unused(units)
    trie = struct.pack(f"<{len(units)}I", *units)
    return struct.pack("<I", len(trie)) + trie + outputs


def looping_charsmap(leaf_in_loop: bool = False, value: int = 0, outputs: bytes = b"a\x00") -> bytes:
    """A map with the one rule ``a -> a`` whose trie walk never ends on a run of ``a``.

    The root (unit 0, base 1) leads by ``a`` (0x61) to A = 1 ^ 0x61 = 0x60, which has a leaf (the rule
    ``a``) at its base 0x100.  A leads by ``a`` to B = 0x100 ^ 0x61 = 0x161, whose offset 0x61 makes its
    base 0x100 again: B's child by ``a`` is B itself.  So from every ``a`` the walk goes on to the end of
    the text, and normalizing n ``a`` walks n^2/2 bytes.  With `leaf_in_loop` B has a leaf too (the same
    rule), so every step of the loop is a match."""
    units = [0] * 512
    units[0] = _unit(offset=1)
    units[0x60] = _unit(0x61, 0x60 ^ 0x100, has_leaf=True)
    units[0x100] = LEAF | value
    units[0x161] = _unit(0x61, 0x61, has_leaf=leaf_in_loop)
    return charsmap_blob(units, outputs)


def deep_charsmap(depth: int, outputs: bytes = b"a\x00") -> bytes:
    """A map whose trie has no loop but a chain of `depth` ``a`` nodes (the rule ``a`` at the first; no
    other leaf): a finite walk, as long as the file likes."""
    units = [0] * (256 * (depth + 2))
    units[0] = _unit(offset=256)  # the root's base: 256; node k (depth k) sits in block k + 1
    for k in range(1, depth + 1):
        node = 256 * k ^ 0x61
        base = 256 * (k + 1)
        units[node] = _unit(0x61, node ^ base, has_leaf=k == 1)
        if k == 1:
            units[base] = LEAF | 0  # the rule's leaf at base ^ 0; its child by "a" is base ^ 0x61
    return charsmap_blob(units, outputs)


def one_rule_charsmap(key: bytes, value: int, outputs: bytes) -> bytes:
    """A map with the one rule `key` -> ``outputs[value:]`` (up to its NUL): node k of the key's walk in
    block k + 1, the leaf after the last byte."""
    units = [0] * (256 * (len(key) + 2))
    units[0] = _unit(offset=256)
    for k, byte in enumerate(key, 1):
        node = 256 * k ^ byte
        base = 256 * (k + 1)
        units[node] = _unit(byte, node ^ base, has_leaf=k == len(key))
    units[256 * (len(key) + 1)] = LEAF | value
    return charsmap_blob(units, outputs)


def out_of_range_charsmap() -> bytes:
    """A map with the one rule ``Ω`` (CE A9, in no probe text an upload is tried on) whose output offset (99)
    lies past its 5 bytes of outputs."""
    return one_rule_charsmap("Ω".encode(), 99, b"a\x00YZ\x00")


# ------------------------------------------------------------------ SentencePiece .model (protobuf, by hand)
def _varint(value: int) -> bytes:
    out = bytearray()
    value &= (1 << 64) - 1
    while True:
        byte, value = value & 0x7F, value >> 7
        out.append(byte | (0x80 if value else 0))
        if not value:
            return bytes(out)


def _field(number: int, payload: bytes | int | float) -> bytes:
    if isinstance(payload, bytes):
        return _varint(number << 3 | 2) + _varint(len(payload)) + payload
    if isinstance(payload, float):
        return _varint(number << 3 | 5) + struct.pack("<f", payload)
    return _varint(number << 3) + _varint(payload)


def sentencepiece_model(pieces: list[tuple[str, float, int]], *, unigram: bool, charsmap: bytes = b"",
                        byte_fallback: bool = False) -> bytes:
    """A ``ModelProto``: pieces ``(text, score, type)`` (1 normal, 2 unknown, 3 control, 4 user-defined), a
    trainer spec (model type, unk/bos/eos ids) and a normalizer spec with the `charsmap`."""
    out = bytearray()
    for text, score, kind in pieces:
        out += _field(1, _field(1, text.encode("utf-8")) + _field(2, float(score)) + _field(3, kind))
    trainer = _field(3, 1 if unigram else 2) + _field(4, len(pieces)) + _field(35, int(byte_fallback))
    trainer += _field(40, 0) + _field(41, 1) + _field(42, 2)
    out += _field(2, trainer)
    out += _field(3, _field(1, b"crafted") + (_field(2, charsmap) if charsmap else b""))
    return bytes(out)


BASE_PIECES = [("<unk>", 0.0, 2), ("<s>", 0.0, 3), ("</s>", 0.0, 3), (SPACE, -1.0, 1), ("a", -2.0, 1), ("b", -2.0, 1)]


def sp_looping_charsmap() -> bytes:
    return sentencepiece_model(BASE_PIECES, unigram=False, charsmap=looping_charsmap())


def sp_unigram_long_piece(length: int = 4096) -> bytes:
    return sentencepiece_model([*BASE_PIECES, ("a" * length, -3.0, 1)], unigram=True)


def sp_user_defined(count: int = 250_000) -> bytes:
    """`count` user-defined symbols ``a`` + 6 base-36 digits: every ``a`` of a text starts all of them."""
    digits = "0123456789abcdefghijklmnopqrstuvwxyz"
    user = []
    for i in range(count):
        name = ""
        for _ in range(6):
            i, d = divmod(i, 36)
            name += digits[d]
        user.append(("a" + name, 0.0, 4))
    return sentencepiece_model([*BASE_PIECES, *user], unigram=False)


# ------------------------------------------------------------------ tokenizer.json
def _root(model: dict, pre_tokenizer: dict | None = None, decoder: dict | None = None) -> bytes:
    return json.dumps({"version": "1.0", "truncation": None, "padding": None, "added_tokens": [], "normalizer": None,
                       "pre_tokenizer": pre_tokenizer, "post_processor": None, "decoder": decoder,
                       "model": model}).encode()


def hf_unigram_long_piece(length: int = 4096) -> bytes:
    """A Unigram tokenizer.json with one `length`-character piece and no pre-tokenizer: the whole text is one
    lattice."""
    return _root({"type": "Unigram", "unk_id": 0, "byte_fallback": False,
                  "vocab": [["<unk>", 0.0], ["a", -1.0], ["b", -1.0], ["a" * length, -2.0]]})


def hf_unigram_with_charsmap(charsmap: bytes) -> bytes:
    """A Unigram tokenizer.json whose normalizer is ``Precompiled`` with `charsmap` (base64, as tokenizers
    writes it)."""
    root = json.loads(hf_unigram_long_piece(2))
    root["normalizer"] = {"type": "Precompiled", "precompiled_charsmap": base64.b64encode(charsmap).decode()}
    return json.dumps(root).encode()


def wordpiece_long_token(length: int = 4092, max_chars: int = 10**9, prefix: str = "##") -> bytes:
    """A WordPiece tokenizer.json with a `length`-character ``##`` token that never matches a run of ``a``
    (it ends in ``b``) and words of up to `max_chars` characters."""
    vocab = {"[UNK]": 0, "a": 1, prefix + "a": 2, prefix + "a" * (length - len(prefix) - 1) + "b": 3}
    return _root({"type": "WordPiece", "unk_token": "[UNK]", "continuing_subword_prefix": prefix,
                  "max_input_chars_per_word": max_chars, "vocab": vocab},
                 {"type": "BertPreTokenizer"}, {"type": "WordPiece", "prefix": "##", "cleanup": True})


# ------------------------------------------------------------------ GGUF
def gguf_t5(charsmap: bytes) -> bytes:
    """A vocab-only GGUF of kind ``t5`` (SentencePiece Unigram) with `charsmap` as its precompiled map."""
    tokens = ["<pad>", "</s>", "<unk>", SPACE, "a", "b"]
    return write_gguf([
        ("general.architecture", "string", "t5"),
        ("tokenizer.ggml.model", "string", "t5"),
        ("tokenizer.ggml.tokens", "array[string]", tokens),
        ("tokenizer.ggml.scores", "array[f32]", [0.0, 0.0, 0.0, -1.0, -2.0, -2.0]),
        ("tokenizer.ggml.token_type", "array[i32]", [3, 3, 2, 1, 1, 1]),
        ("tokenizer.ggml.unknown_token_id", "u32", 2),
        ("tokenizer.ggml.precompiled_charsmap", "array[u8]", list(charsmap)),
    ])


def sp_unigram_all_prefixes(length: int = 256) -> bytes:
    """A Unigram ``.model`` with every run ``a`` .. ``a`` * `length`: `length` nodes at every place of a run."""
    return sentencepiece_model([*BASE_PIECES, *(("a" * k, -1.0 - k / 1000, 1) for k in range(2, length + 1))],
                               unigram=True)


def sp_unigram_long_distinct(count: int = 500, length: int = 256) -> bytes:
    """A Unigram ``.model`` with `count` pieces of `length` characters that differ in their first four (a name in
    base 36, then ``x``), and for every other name a shorter one of 40: no two share a prefix longer than four, so
    a table of every prefix of every piece holds ``count * length**2 / 2`` characters."""
    digits = "0123456789abcdefghijklmnopqrstuvwxyz"
    pieces = [(ch, -2.0, 1) for ch in digits if ch not in "ab"]  # "a", "b": in BASE_PIECES
    for i in range(count):
        name = "".join(digits[i // 36 ** k % 36] for k in range(4))
        pieces.append((name + "x" * (length - 4), -3.0, 1))
        if i % 2 == 0:
            pieces.append((name + "x" * 36, -2.5, 1))
    return sentencepiece_model([*BASE_PIECES, *pieces], unigram=True)


def hf_unigram_all_prefixes(length: int = 256) -> bytes:
    root = json.loads(hf_unigram_long_piece(2))
    root["model"]["vocab"][3:] = [["a" * k, -1.0 - k / 1000] for k in range(2, length + 1)]
    return json.dumps(root).encode()


def sp_bpe_all_prefixes(length: int = 256) -> bytes:
    """A BPE ``.model`` with every run ``a`` .. ``a`` * `length` as a piece: a run of ``a`` merges into pieces of
    `length`, each merge one heap step, and a text without spaces is one chunk."""
    return sentencepiece_model([*BASE_PIECES, *(("a" * k, -1.0 - k / 1000, 1) for k in range(2, length + 1))],
                               unigram=False)


def hf_bpe_chain(length: int = 256) -> bytes:
    """A character BPE tokenizer.json without a pre-tokenizer, with the merges ``a`` + ``a``, ``aa`` + ``a``, ...
    (up to `length`): the whole text is one piece, and ``a`` * n takes n / 2 merges of ``a`` + ``a`` (the
    lowest rank, everywhere first), each of which the plain merge loop pays with a scan of the piece."""
    vocab = {"[UNK]": 0, "a": 1, **{"a" * k: k for k in range(2, length + 1)}}
    merges = [["a" * (k - 1), "a"] for k in range(2, length + 1)]
    return _root({"type": "BPE", "dropout": None, "unk_token": "[UNK]", "continuing_subword_prefix": None,
                  "end_of_word_suffix": None, "fuse_unk": False, "byte_fallback": False, "vocab": vocab,
                  "merges": merges})


# name -> (file name, builder, the text that costs the most: a function of its length)
CRAFTED_SLOW: dict[str, tuple[str, Callable[[], bytes], Callable[[int], str]]] = {
    "sp_looping_charsmap": ("loop.model", sp_looping_charsmap, lambda n: "a" * n),
    "sp_unigram_4096_piece": ("long.model", sp_unigram_long_piece, lambda n: "a" * n),
    "hf_unigram_4096_piece": ("unigram.json", hf_unigram_long_piece, lambda n: "a" * n),
    "wordpiece_4092_token": ("wordpiece.json", wordpiece_long_token, lambda n: "a" * n),
    "gguf_t5_looping_charsmap": ("loop.gguf", lambda: gguf_t5(looping_charsmap()), lambda n: "a" * n),
    "sp_250k_user_defined": ("user.model", sp_user_defined, lambda n: "a" * n),
}

# The worst files within the bounds (they load): what a text can cost now.
AT_THE_BOUNDS: dict[str, tuple[str, Callable[[], bytes], Callable[[int], str]]] = {
    "sp_charsmap_256_deep": ("deep.model", lambda: sentencepiece_model(BASE_PIECES, unigram=True,
                                                                       charsmap=deep_charsmap(256)), lambda n: "a" * n),
    "sp_unigram_256_prefixes": ("prefixes.model", sp_unigram_all_prefixes, lambda n: "a" * n),
    "hf_unigram_256_prefixes": ("prefixes.json", hf_unigram_all_prefixes, lambda n: "a" * n),
    "wordpiece_256_token": ("wordpiece.json", lambda: wordpiece_long_token(256), lambda n: "a" * n),
    "sp_unigram_500_distinct_256": ("distinct.model", sp_unigram_long_distinct,
                                    lambda n: ("0000" + "x" * 300) * (n // 304 + 1)),
    "sp_bpe_256_prefixes": ("bpe.model", sp_bpe_all_prefixes, lambda n: "a" * n),
    "hf_bpe_256_chain": ("bpe.json", hf_bpe_chain, lambda n: "a" * n),
}
