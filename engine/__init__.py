"""A pure-Python byte-level BPE engine: a drop-in for tiktoken's API, plus explainers for every stage.

    >>> import engine as tiktoken            # code written for tiktoken 0.14 runs unchanged
    >>> enc = tiktoken.get_encoding("cl100k_base")
    >>> enc.encode("hello world")
    [15339, 1917]
    >>> tiktoken.encoding_for_model("gpt-4o").name
    'o200k_base'

This file declares the public API and nothing else.

**tiktoken's API** (same names, signatures, defaults and error types):
`Encoding` (``encode``, ``encode_ordinary``, ``encode_batch``, ``decode``,
``decode_with_offsets``, ``encode_with_unstable``, ``encode_to_numpy``, ...),
`get_encoding`, `list_encoding_names` (the encodings that keep tiktoken's promise
that every id is one byte string and back; `list_tokenizer_names` lists every
name `get_encoding` builds, the SentencePiece models too), `encoding_for_model`,
`encoding_name_for_model`, `load_tiktoken_bpe`,
`data_gym_to_mergeable_bpe_ranks`, `dump_tiktoken_bpe`.

**Errors** (`engine.errors`), each a subclass of what tiktoken raises:
`DisallowedSpecialTokenError` and `SplitTimeoutError` (ValueError),
`UnknownTokenError` and `UnknownModelError` (KeyError), `UnknownEncodingError`
(ValueError).

**Explainers** -- what the playground draws; plain data with character and
byte offsets:

- methods of `Encoding`: ``pretokenize`` -> `Piece`, ``tokenize`` -> `Token`,
  ``bpe_trace`` -> `BpeTrace` of `MergeStep`, ``merges``, ``merge_tree`` -> `MergeNode`;
- `train_bpe` (minbpe-exact training) -> an `Encoding` whose ``training`` is a `TrainingReport`;
- file formats: `parse_tiktoken_bpe` / `parse_data_gym` / `parse_minbpe_model` read
  bytes, `dump_*` write them; `render_token` prints a token as minbpe does;
- split patterns: `R50K_PAT_STR`, `CL100K_PAT_STR`, `O200K_PAT_STR`,
  `RAW_PAT_STR` (no split), `compile_pattern` (checks a user's pattern);
  `check_special_tokens` (checks a user's list); `is_valid_utf8`;
- the open models' families (`engine.families`): `ModelEncoding` (Llama 3/4, Qwen,
  Tekken), `SentencePieceEncoding` (Mistral v1/v3), `HfEncoding` (DeepSeek V4), each
  with the `Encoding` API; loaders for users' files: `load_tekken`,
  `load_sentencepiece_model`, `load_tokenizer_json`, and `load_tokenizer` (every
  format, size-limited and checked: `TokenizerTooLargeError`, `UnusableTokenizerError`,
  `JsonLimitError`; what a file is, from its content: `sniff` / `describe_json`, and
  `WrongFileKindError` / `UnsupportedModelError` saying it); `load_json_bounded` (any
  JSON a user hands the app: depth and size counted before `json.loads`);
- `catalog` (each built-in's maker and models, aliases), `search_encodings`
  (a model name or words -> encodings), `family_note` / `token_note` (how a
  family splits and merges; what a ``▁`` or ``<0x0A>`` token is);
- chat formats (`engine.chat`): `chat_tokens(messages, encoding)` -> `ChatTokens`, the
  exact token sequence of a conversation in the model's chat format (template and
  content runs, reply priming included); `Message`, `ChatFormatError`;
- the arena (`engine.explain.arena`): `rank_encodings` (many tokenizers on one text, ranked) and
  `language_matrix` (tokens per language sample and tokenizer, with the tax against English
  and against the best tokenizer); token-budget chunking (`engine.explain.chunking`): `chunk_text`
  cuts a text into chunks of at most N tokens on token boundaries -> `Chunking` of `Chunk`;
- the submodules `engine.explain.compare` (stats, boundary diff), `engine.explain.vocab`
  (vocabulary search, glitch tokens) and `engine.explain.unicode_scripts` (Unicode scripts,
  token tax).  Their functions are also importable from `engine` directly,
  as before.
"""
from __future__ import annotations

# ---- tiktoken's API
from .tokenizer.encoding import Encoding
from .formats.tiktoken_files import data_gym_to_mergeable_bpe_ranks, dump_tiktoken_bpe, load_tiktoken_bpe
from .sources.model_names import encoding_for_model, encoding_name_for_model
from .sources.registry import get_encoding, list_encoding_names, list_encodings, list_tokenizer_names

# ---- errors
from .errors import (
    DisallowedSpecialTokenError,
    SplitTimeoutError,
    UnknownEncodingError,
    UnknownModelError,
    UnknownTokenError,
)

# ---- explainers: records, merges, training, file formats, patterns
from . import chat
from .explain import compare, unicode_scripts, vocab
from .chat import ChatFormatError, ChatTokens, Message, chat_tokens
from .text import repair_surrogates
from .formats.tiktoken_files import dump_data_gym, parse_data_gym, parse_tiktoken_bpe
from .tokenizer.merges import MergeNode, merge_tree_of, recover_merges
from .formats.minbpe import dump_minbpe_model, dump_minbpe_vocab, parse_minbpe_model, render_token
from .tokenizer.patterns import CL100K_PAT_STR, O200K_PAT_STR, R50K_PAT_STR, RAW_PAT_STR, compile_pattern
from .records import BpeTrace, MergeStep, Piece, Token
from .records import MergeInfo, TrainingReport
from .tokenizer.special_tokens import check_special_tokens
from .training.trainer import TrainingStoppedEarly, train_bpe
from .text import is_valid_utf8
from .explain.vocab import RegexTimeoutError

# ---- the open models' families, and a user's tokenizer files
from .families.hf.encoding import HfEncoding
from .families.hf.encoding import load_tokenizer_json
from .families.hf.tokenizer_json import parse_tokenizer_json
from .families.sentencepiece.encoding import SentencePieceEncoding, SentencePieceTrace, load_sentencepiece_model
from .families.tiktoken_models.tekken import load_tekken
from .families.tiktoken_models.encoding import ModelEncoding
from .errors import JsonLimitError, UnsupportedModelError, WrongFileKindError
from .formats.file_kinds import FileKind, describe_json, sniff
from .formats.json_limits import load_json_bounded, scan_json
from .formats.limits import TokenizerTooLargeError
from .sources.uploads import UnusableTokenizerError, load_tokenizer

# ---- which encodings exist (maker, models), and how each family splits and merges
from .sources.catalog import CatalogEntry, canonical_name, catalog, search_encodings
from .explain.families import FamilyNote, Stage, family_note, token_note

# ---- the arena and token-budget chunking
from .explain import arena, chunking
from .explain.arena import ArenaEntry, LanguageCell, LanguageMatrix, language_matrix, rank_encodings
from .explain.chunking import Chunk, Chunking, ChunkingError, chunk_text

# ---- compare / vocab / scripts helpers, importable from `engine` as before (documented in their modules)
from .explain.compare import (
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
from .explain.unicode_scripts import (
    ScriptShare,
    attribute_tokens,
    classify,
    dominant_script,
    script_counts,
    script_of,
    script_runs,
    token_tax,
)
from .explain.vocab import (
    Family,
    GlitchToken,
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
    # tiktoken's API
    "Encoding", "get_encoding", "list_encoding_names", "encoding_for_model", "encoding_name_for_model",
    "load_tiktoken_bpe", "data_gym_to_mergeable_bpe_ranks", "dump_tiktoken_bpe",
    # errors
    "DisallowedSpecialTokenError", "SplitTimeoutError", "UnknownTokenError", "UnknownModelError",
    "UnknownEncodingError", "RegexTimeoutError",
    # explainers and what they return
    "Piece", "Token", "BpeTrace", "MergeStep", "MergeNode", "recover_merges", "merge_tree_of", "repair_surrogates",
    "train_bpe", "TrainingReport", "MergeInfo", "TrainingStoppedEarly",
    # file formats (bytes in, bytes out)
    "parse_tiktoken_bpe", "parse_data_gym", "dump_data_gym",
    "parse_minbpe_model", "dump_minbpe_model", "dump_minbpe_vocab", "render_token",
    # split patterns and input checks
    "R50K_PAT_STR", "CL100K_PAT_STR", "O200K_PAT_STR", "RAW_PAT_STR", "compile_pattern",
    "check_special_tokens", "is_valid_utf8",
    # the open models' families and users' tokenizer files
    "ModelEncoding", "SentencePieceEncoding", "SentencePieceTrace", "HfEncoding",
    "load_tekken", "load_sentencepiece_model", "load_tokenizer_json", "parse_tokenizer_json",
    "load_tokenizer", "TokenizerTooLargeError", "UnusableTokenizerError",
    "JsonLimitError", "UnsupportedModelError", "WrongFileKindError", "FileKind", "sniff", "describe_json",
    "load_json_bounded", "scan_json",
    # the catalog of built-in encodings and the families' explainers
    "CatalogEntry", "catalog", "canonical_name", "search_encodings", "FamilyNote", "Stage", "family_note", "token_note",
    # helper submodules
    "compare", "vocab", "unicode_scripts",
    # chat formats
    "chat", "chat_tokens", "ChatTokens", "Message", "ChatFormatError",
    # the arena and token-budget chunking
    "arena", "chunking", "ArenaEntry", "LanguageCell", "LanguageMatrix", "language_matrix", "rank_encodings",
    "Chunk", "Chunking", "ChunkingError", "chunk_text",
    # every built-in name (list_encoding_names keeps tiktoken's contract), and its earlier name
    "list_tokenizer_names", "list_encodings",
]
