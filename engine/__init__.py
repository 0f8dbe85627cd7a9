"""A pure-Python byte-level BPE engine with tiktoken's API and explainers for every stage.

    >>> import engine
    >>> enc = engine.get_encoding("cl100k_base")
    >>> enc.encode("hello world")
    [15339, 1917]

This file declares the public API and nothing else; each name lives in the
module named in the comment above its group.
"""
from __future__ import annotations

from .compare import (
    BoundaryDiff,
    Cut,
    Disagreement,
    DisplayUnit,
    EncodingStats,
    boundary_diff,
    delta_sentence,
    delta_sentences,
    disagreements,
    grapheme_ends,
    group_tokens,
    text_stats,
    token_cuts,
    unit_diff,
    unit_disagreements,
)
from .core import Encoding, UnknownTokenError, repair_surrogates
from .families.sentencepiece import SentencePieceEncoding, SentencePieceTrace, load_sentencepiece_model
from .limits import TokenizerTooLargeError
from .families.tekken_format import load_tekken
from .families.tiktoken_models import ModelEncoding
from .load import dump_data_gym, dump_tiktoken_bpe, parse_data_gym, parse_tiktoken_bpe
from .families.hf_encoding import HfEncoding
from .families.hf_tokenizer_json import load_tokenizer_json, parse_tokenizer_json
from .merges import MergeNode, merge_tree_of, recover_merges
from .minbpe_format import dump_minbpe_model, dump_minbpe_vocab, parse_minbpe_model
from .records import BpeTrace, MergeStep, Piece, Token
from .registry import get_encoding, list_encodings
from .scripts import (
    ScriptShare,
    attribute_tokens,
    classify,
    dominant_script,
    script_counts,
    script_of,
    script_runs,
    token_tax,
)
from .tokenizer_files import load_tokenizer
from .train import MergeInfo, TrainingReport, TrainingStoppedEarly, train_bpe
from .vocab import (
    Family,
    GlitchToken,
    RegexTimeoutError,
    TokenInfo,
    contained,
    containing,
    filter_tokens,
    glitch_sources,
    glitch_tokens,
    length_histogram,
    longest,
    readable,
    search_regex,
    search_substring,
    token_info,
    token_infos,
)

__all__ = [
    # registry.py, core.py, records.py: encodings and what they return
    "get_encoding", "list_encodings", "Encoding", "UnknownTokenError", "repair_surrogates",
    "Piece", "Token", "BpeTrace", "MergeStep",
    # families/: the open models' tokenizers (Llama 3/4, Qwen, Tekken) and the Tekken file loader
    "ModelEncoding", "load_tekken",
    # load.py and minbpe_format.py: file formats
    "parse_tiktoken_bpe", "dump_tiktoken_bpe", "parse_data_gym", "dump_data_gym",
    "parse_minbpe_model", "dump_minbpe_model", "dump_minbpe_vocab",
    # families/sentencepiece.py: SentencePiece BPE .model files (mistral-v1, mistral-v3, uploads)
    "SentencePieceEncoding", "SentencePieceTrace", "load_sentencepiece_model",
    # limits.py, tokenizer_files.py: a user's tokenizer files, checked and size-limited
    "load_tokenizer", "TokenizerTooLargeError",
    # families/: Hugging Face tokenizer.json byte-level BPE (deepseek-v4, uploads)
    "HfEncoding", "load_tokenizer_json", "parse_tokenizer_json",
    # merges.py: merges recovered from ranks, merge trees
    "recover_merges", "MergeNode", "merge_tree_of",
    # train.py: minbpe-exact training
    "train_bpe", "MergeInfo", "TrainingReport", "TrainingStoppedEarly",
    # compare.py: stats, boundary diff, display units
    "text_stats", "EncodingStats", "boundary_diff", "BoundaryDiff", "Cut", "token_cuts", "disagreements",
    "Disagreement", "group_tokens", "DisplayUnit", "delta_sentence", "delta_sentences",
    "grapheme_ends", "unit_diff", "unit_disagreements",
    # vocab.py: vocabulary explorer (facts, search, filters, families, glitch tokens)
    "token_info", "token_infos", "TokenInfo", "readable", "search_substring", "search_regex", "RegexTimeoutError",
    "filter_tokens", "longest", "length_histogram", "containing", "contained", "Family",
    "glitch_tokens", "glitch_sources", "GlitchToken",
    # scripts.py: Unicode scripts and the token tax
    "script_of", "script_runs", "classify", "script_counts", "dominant_script", "attribute_tokens",
    "token_tax", "ScriptShare",
]
