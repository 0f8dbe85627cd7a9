"""The models of a Hugging Face ``tokenizer.json`` that are not byte-level BPE, as `tokenizers` 0.23 runs them.

Each model turns one pre-tokenized piece (a `str`, normalized) into tokens and offers the same three calls:

* ``ids(piece) -> tuple[int, ...]`` -- the hot path (the encoding caches it per piece);
* ``tokenize(piece) -> list[ModelToken]`` -- ids with character offsets into the piece (the explainers);
* ``steps(piece)`` -- how the model decided: WordPiece's longest-match attempts, Unigram's best path
  through its lattice, BPE's merges (each model's own record).

`wordpiece` (BERT), `wordlevel` (one id per whole piece), `unigram` (SentencePiece's Viterbi over piece
scores) and `bpe` (merges over *characters*, with byte fallback, ``##``-style prefixes and ``</w>``-style
suffixes; the byte-level case keeps its own fast model in `engine.families.hf.bpe`).  `model_from_json`
reads the ``model`` node of a file into one of them.
"""
from __future__ import annotations

from .base import ModelToken, byte_fallback_name
from .bpe import CharBpe
from .unigram import Unigram
from .wordlevel import WordLevel
from .wordpiece import WordPiece
from .read import model_from_json

__all__ = ["ModelToken", "byte_fallback_name", "CharBpe", "Unigram", "WordLevel", "WordPiece", "model_from_json"]
