"""A bare vocabulary file -> the ``tokenizer.json`` it stands for: BERT's ``vocab.txt`` (WordPiece) and
GPT-2/RoBERTa's ``vocab.json`` + ``merges.txt`` (byte-level BPE).

Models published before ``tokenizer.json`` existed ship only these files, and transformers builds
the tokenizer from them with fixed settings (``convert_slow_tokenizer.py``: ``BertConverter`` and
``GPT2Converter``/``RobertaConverter``).  We build the same JSON tree, so the file goes through the
one ``tokenizer.json`` loader (`engine.families.hf`) and is as exact as it:

* ``vocab.txt``: one token per line, the line number is the id.  BertNormalizer (clean text, Chinese
  characters spaced, lowercase and accent stripping for an *uncased* vocabulary), BertPreTokenizer,
  WordPiece with ``##`` and ``[UNK]``, the WordPiece decoder, ``[CLS] … [SEP]`` when special tokens are
  added.  Whether the vocabulary is uncased is read from it: no token (bracketed specials aside)
  holds an upper-case letter -- what ``do_lower_case`` says for BERT's own uncased and cased files.
* ``vocab.json`` (token -> id) + ``merges.txt`` (``#version`` line, then "left right" lines): a
  byte-level BPE (ByteLevel pre-tokenizer and decoder, GPT-2's split).  Tokens written as ``<…>`` that
  no merge makes (``<|endoftext|>``, ``<s>``, ``<pad>``) are its special tokens.  A vocabulary that is
  not in GPT-2's byte alphabet (an old ``</w>``-suffixed BPE) is refused: its text rules are not in
  these two files.

Sizes are counted on the bytes (`engine.formats.limits`) before any list or dict is built.
"""
from __future__ import annotations

import re
from typing import Any

from ..tokenizer.gpt2_bytes import CHAR_TO_BYTE, byte_level_bpe_tree
from .json_limits import load_json_bounded
from .limits import MAX_MERGES, MAX_TOKEN_BYTES, TokenBudget, check_count, check_line_length, count_lines
from .tiktoken_files import check_merge_lines

MAX_VOCAB_LINE = MAX_TOKEN_BYTES + 64  # one token a line, room for stray blanks
MERGES_TXT_REAL = "the most in a real file are Gemma 3's 514,906"
BERT_SPECIALS = ("[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]")
_BRACKETED = re.compile(r"\[[^\[\]\s]+\]|<[^<>\s]+>")
_ANGLED_SPECIAL = re.compile(r"<\|?[A-Za-z_][A-Za-z0-9_.-]*\|?>")


def _text(data: bytes, source: str) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise ValueError(f"{source}, line {line}: not UTF-8 ({exc.reason}); a vocabulary file is UTF-8 text") from None


def is_uncased(tokens: list[str]) -> bool:
    """True when no token but the bracketed specials holds a letter that lower-casing changes."""
    return not any(tok.lower() != tok for tok in tokens if not _BRACKETED.fullmatch(tok))


def check_vocab_lines(data: bytes, source: str = "vocab.txt") -> int:
    """A vocab.txt's lines counted and its longest measured on the bytes, before it is decoded: the count."""
    n_lines = count_lines(data)
    check_count(n_lines, "vocabulary lines", source)
    check_line_length(data, MAX_VOCAB_LINE, source, f"a token of the most bytes allowed ({MAX_TOKEN_BYTES:,}) needs")
    return n_lines


def wordpiece_root(data: bytes, source: str = "vocab.txt") -> dict[str, Any]:
    """The tokenizer.json tree transformers builds for a BERT ``vocab.txt`` (BertConverter)."""
    check_vocab_lines(data, source)
    tokens = _text(data, source).splitlines()
    while tokens and tokens[-1] == "":
        tokens.pop()
    budget = TokenBudget(source)
    vocab: dict[str, int] = {}
    for i, tok in enumerate(tokens):
        budget.add(len(tok.encode("utf-8")), f"line {i + 1}")
        vocab[tok] = i  # a repeated line: the later id wins, as in transformers' load_vocab
    unk = "[UNK]" if "[UNK]" in vocab else "<unk>" if "<unk>" in vocab else None
    if unk is None:
        raise ValueError(f"{source}: no [UNK] token; a WordPiece vocabulary needs one for words it cannot spell "
                         "(BERT's vocab.txt has it on line 101)")
    lowercase = is_uncased(tokens)
    specials = [tok for tok in BERT_SPECIALS if tok in vocab]
    root: dict[str, Any] = {
        "version": "1.0",
        "added_tokens": [{"id": vocab[tok], "content": tok, "single_word": False, "lstrip": False, "rstrip": False,
                          "normalized": False, "special": True} for tok in specials],
        "normalizer": {"type": "BertNormalizer", "clean_text": True, "handle_chinese_chars": True,
                       "strip_accents": None, "lowercase": lowercase},
        "pre_tokenizer": {"type": "BertPreTokenizer"},
        "post_processor": None,
        "decoder": {"type": "WordPiece", "prefix": "##", "cleanup": True},
        "model": {"type": "WordPiece", "unk_token": unk, "continuing_subword_prefix": "##",
                  "max_input_chars_per_word": 100, "vocab": vocab},
    }
    if "[CLS]" in vocab and "[SEP]" in vocab:
        root["post_processor"] = {"type": "BertProcessing", "sep": ["[SEP]", vocab["[SEP]"]],
                                  "cls": ["[CLS]", vocab["[CLS]"]]}
    return root


def byte_level_bpe_root(vocab_json: bytes, merges_txt: bytes, vocab_source: str = "vocab.json",
                        merges_source: str = "merges.txt") -> dict[str, Any]:
    """The tokenizer.json tree transformers builds for GPT-2/RoBERTa's ``vocab.json`` + ``merges.txt``."""
    check_merge_lines(merges_txt, merges_source, MAX_MERGES, real=MERGES_TXT_REAL)
    vocab = load_json_bounded(vocab_json, name=vocab_source)
    if not isinstance(vocab, dict) or not all(type(v) is int and v >= 0 for v in vocab.values()):
        raise ValueError(f"{vocab_source}: expected a JSON object mapping each token to its id (a non-negative integer)")
    check_count(len(vocab), "vocabulary entries", vocab_source)
    lines = _text(merges_txt, merges_source).splitlines()
    if lines and lines[0].startswith("#version"):
        lines = lines[1:]
    merges = [line for line in lines if line.strip()]
    for n, line in enumerate(merges, 1):
        if len(line.split(" ")) != 2:
            raise ValueError(f"{merges_source}, merge {n}: {line[:60]!r} is not two tokens separated by one space")
    budget = TokenBudget(vocab_source)
    made = {line.replace(" ", "") for line in merges}
    specials: list[str] = []
    for tok in vocab:
        budget.add(len(tok.encode("utf-8")), f"token {tok[:40]!r}")
        if _ANGLED_SPECIAL.fullmatch(tok) and tok not in made:
            specials.append(tok)
    outside = next((tok for tok in vocab if tok not in specials and any(c not in CHAR_TO_BYTE for c in tok)), None)
    if outside is not None:
        raise ValueError(
            f"{vocab_source}: token {outside[:40]!r} is not written in GPT-2's byte alphabet, so this is not a "
            "byte-level BPE and its text rules (lower-casing, word-end marks) are not in these two files; "
            "upload the model's tokenizer.json instead")
    return byte_level_bpe_tree(vocab, merges, [
        {"id": vocab[tok], "content": tok, "single_word": False, "lstrip": False, "rstrip": False,
         "normalized": False, "special": True} for tok in specials])
