"""Small crafted tokenizer files whose structure is deep where real files are shallow.

Each loads within the engine's size limits (engine/formats/limits.py) and in Hugging Face's `tokenizers`,
and each once hit a walk that recursed one Python frame per level:

* an added token of thousands of characters: the added-token trie was turned into a pattern one
  frame per character (`literal_trie_pattern`);
* added tokens that are each other's prefixes (``B``, ``BB``, ``BBB``, ...): one nested group per
  token in that pattern, past what `re` compiles;
* a vocabulary whose tokens are each other's prefixes, each made by the merge before it
  (``a b``, ``ab b``, ``abb b``, ...): a merge tree as deep as its longest token, built, walked and
  pickled one frame per level; in a SentencePiece model whose such pieces are UNUSED, the
  resegmentation that splits them back one frame per piece.

Built in code, here, so the files are small and every byte is explained.  The tests:
tests/engine/families/test_deep_files.py (the engine, against `tokenizers` and `sentencepiece`) and
tests/app/test_deep_files.py (the Merge tree view).
"""
from __future__ import annotations

import json

from engine.tokenizer.gpt2_bytes import encode_printable
from tests.engine.formats.crafted_slow_files import BASE_PIECES, sentencepiece_model

LETTERS = {chr(c): i for i, c in enumerate(range(ord("a"), ord("z") + 1))}


def tokenizer_json(vocab: dict[str, int], merges: list[list[str]], added: list[str] = (),
                   byte_level: bool = False) -> bytes:
    """A BPE tokenizer.json: `vocab`, `merges`, and `added` as ordinary (not special) added tokens after the vocab."""
    byte_level_step = {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True, "use_regex": False}
    return json.dumps({
        "version": "1.0", "truncation": None, "padding": None,
        "added_tokens": [{"id": len(vocab) + i, "content": text, "single_word": False, "lstrip": False,
                          "rstrip": False, "normalized": False, "special": False} for i, text in enumerate(added)],
        "normalizer": None,
        "pre_tokenizer": byte_level_step if byte_level else None,
        "post_processor": None,
        "decoder": byte_level_step if byte_level else None,
        "model": {"type": "BPE", "dropout": None, "unk_token": None, "continuing_subword_prefix": None,
                  "end_of_word_suffix": None, "fuse_unk": False, "byte_fallback": False, "ignore_merges": False,
                  "vocab": vocab, "merges": merges},
    }).encode()


def long_added_token(length: int = 4_096) -> bytes:
    """Letters a-z and one added token of `length` x ``x`` (the limit per added token is 4,096 characters)."""
    return tokenizer_json(dict(LETTERS), [], added=["x" * length])


def added_prefix_chain(length: int = 600) -> bytes:
    """Letters a-z and the added tokens ``B``, ``BB``, ... up to `length` x ``B``: each a prefix of the next."""
    return tokenizer_json(dict(LETTERS), [], added=["B" * k for k in range(1, length + 1)])


def chain_token(length: int = 1_500) -> str:
    """The longest token of `merge_chain` and `rank_chain`: ``a`` and `length` - 1 x ``b``."""
    return "a" + "b" * (length - 1)


def merge_chain(length: int = 1_500, byte_level: bool = False) -> bytes:
    """A BPE whose merges are ``a b``, ``ab b``, ``abb b``, ... up to `chain_token` (`length` characters): BPE
    makes it from its text, and its merge tree is `length` - 1 merges deep.  `byte_level`: the 256 byte tokens and a ByteLevel pre-tokenizer and decoder
    (GPT-2's kind: the engine's byte-level family); otherwise letters a-z (a character-level BPE)."""
    vocab = {encode_printable(bytes([b])): b for b in range(256)} if byte_level else dict(LETTERS)
    merges = []
    for k in range(2, length + 1):
        vocab[chain_token(k)] = len(vocab)
        merges.append([chain_token(k - 1), "b"])
    return tokenizer_json(vocab, merges, byte_level=byte_level)


def rank_chain(length: int = 1_500) -> dict[bytes, int]:
    """tiktoken-style ranks: the 256 bytes, then ``ab``, ``abb``, ... up to `chain_token` (each made from the one
    before and ``b``: no ``bb`` is a token)."""
    ranks = {bytes([b]): b for b in range(256)}
    for k in range(2, length + 1):
        ranks[chain_token(k).encode()] = len(ranks)
    return ranks


UNUSED = 5  # SentencePiece's piece type: formed by a merge, then split back into the two pieces that made it


def sp_unused_chain(length: int = 1_500) -> bytes:
    """A SentencePiece BPE ``.model`` whose pieces ``ab``, ``abb`` ... up to `chain_token` are UNUSED, each scored to
    merge after the one before: `chain_token` is merged whole, then split back one piece at a time."""
    chain = [(chain_token(k), -3.0 - k / 10_000, UNUSED) for k in range(2, length + 1)]
    return sentencepiece_model([*BASE_PIECES, *chain], unigram=False)
