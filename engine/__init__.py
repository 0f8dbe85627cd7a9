"""A pure-Python byte-level BPE engine with tiktoken's API and explainers for every stage.

    >>> import engine
    >>> enc = engine.get_encoding("cl100k_base")
    >>> enc.encode("hello world")
    [15339, 1917]
"""
from __future__ import annotations

from .compare import (
    BoundaryDiff,
    Cut,
    DisplayUnit,
    EncodingStats,
    Disagreement,
    boundary_diff,
    delta_sentence,
    delta_sentences,
    disagreements,
    group_tokens,
    text_stats,
    token_cuts,
)
from .core import Encoding, UnknownTokenError, repair_surrogates
from .load import dump_data_gym, dump_tiktoken_bpe, parse_data_gym, parse_tiktoken_bpe
from .merges import MergeNode, recover_merges
from .records import BpeTrace, MergeStep, Piece, Token
from .registry import get_encoding, list_encodings
from .vocab import (
    Family, GlitchToken, RegexTimeoutError, TokenInfo, contained, containing, filter_tokens, glitch_sources,
    glitch_tokens, length_histogram, longest, readable, search_regex, search_substring, token_info, token_infos,
)
from .minbpe_format import dump_minbpe_model, dump_minbpe_vocab, parse_minbpe_model
from .train import MergeInfo, TrainingReport, TrainingStoppedEarly, train_bpe
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

__all__ = [
    # compare.py: stats, boundary diff, display units
    "BoundaryDiff",
    "Cut",
    "DisplayUnit",
    "EncodingStats",
    "Disagreement",
    "boundary_diff",
    "delta_sentence",
    "delta_sentences",
    "disagreements",
    "group_tokens",
    "text_stats",
    "token_cuts",
    "BpeTrace",
    "Encoding",
    "MergeNode",
    "MergeStep",
    "Piece",
    "Token",
    "UnknownTokenError",
    "dump_data_gym",
    "dump_tiktoken_bpe",
    "get_encoding",
    "list_encodings",
    "parse_data_gym",
    "parse_tiktoken_bpe",
    "recover_merges",
    "repair_surrogates",
    # scripts and the token tax
    "ScriptShare",
    "attribute_tokens",
    "classify",
    "dominant_script",
    "script_counts",
    "script_of",
    "script_runs",
    "token_tax",
    # train.py and minbpe_format.py: training and minbpe files
    "MergeInfo",
    "TrainingReport",
    "TrainingStoppedEarly",
    "dump_minbpe_model",
    "dump_minbpe_vocab",
    "parse_minbpe_model",
    "train_bpe",
    # vocab.py: vocabulary explorer (facts, search, filters, families, glitch tokens)
    "Family", "GlitchToken", "RegexTimeoutError", "TokenInfo", "contained", "containing", "filter_tokens",
    "glitch_sources", "glitch_tokens", "length_histogram", "longest", "readable", "search_regex",
    "search_substring", "token_info", "token_infos",
]
