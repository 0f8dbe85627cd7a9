"""A pure-Python byte-level BPE engine: a drop-in for tiktoken's API, plus explainers for every stage.

    >>> import engine as tiktoken            # code written for tiktoken 0.14 runs unchanged
    >>> enc = tiktoken.get_encoding("cl100k_base")
    >>> enc.encode("hello world")
    [15339, 1917]
    >>> tiktoken.encoding_for_model("gpt-4o").name
    'o200k_base'

This file declares the public API and nothing else; a name here is a promise.

**tiktoken's API** (same names, signatures, defaults and error types): `Encoding` (``encode``,
``encode_ordinary``, ``encode_batch``, ``decode``, ``decode_with_offsets``,
``encode_with_unstable``, ``encode_to_numpy``, ...), `get_encoding`, `list_encoding_names` (the
encodings that keep tiktoken's promise that every id is one byte string and back),
`encoding_for_model`, `encoding_name_for_model`; `list_tokenizer_names` lists every name
`get_encoding` builds, the SentencePiece models too.

**Errors** (`engine.errors`), each a subclass of what tiktoken or Python raises, and each saying the fix.

**The family contract**: `EncodingAPI` (`engine.api`), kept by `Encoding` and by the open models'
families `ModelEncoding` (Llama 3/4, Qwen, Tekken), `SentencePieceEncoding` (Mistral v1/v3) and
`HfEncoding` (a ``tokenizer.json``; DeepSeek V4): ``pretokenize`` -> `Piece`, ``tokenize`` ->
`Token`, ``bpe_trace`` -> `BpeTrace` of `MergeStep`, ``merges``, ``merge_tree`` -> `MergeNode`.

**One entry point per explainer** (plain data with character and byte offsets; the rest of each
is reached as a submodule, listed in its docstring):

- `train_bpe` -> an `Encoding` whose ``training`` is a `TrainingReport` of `MergeInfo` (`engine.training`);
- `load_tokenizer`: a user's tokenizer file of any format, size-limited and checked (`engine.sources.uploads`;
  the formats themselves are in `engine.formats` and each family's folder);
- `search_encodings`: a model name or words -> encodings (`engine.sources.catalog`);
- `family_note`: how an encoding splits and merges (`engine.explain.families`);
- `chat_tokens`: the exact tokens of a conversation in a model's chat format (`engine.chat`);
- `rank_encodings` / `language_matrix`: many tokenizers on one text / one sentence in many
  languages (`engine.explain.arena`);
- `chunk_text`: a text cut into chunks of at most N tokens (`engine.explain.chunking`);
- `token_tax`: tokens per writing system (`engine.explain.unicode_scripts`);
- comparison and vocabulary helpers: `engine.explain.compare`, `engine.explain.vocab`;
  split patterns and tiktoken's file helpers: `engine.tokenizer.patterns`,
  `engine.formats.tiktoken_files`; text helpers: `engine.text`.
"""
from __future__ import annotations

# ---- tiktoken's API
from .tokenizer.encoding import Encoding
from .sources.model_names import encoding_for_model, encoding_name_for_model
from .sources.registry import get_encoding, list_encoding_names, list_tokenizer_names

# ---- errors
from .chat import ChatFormatError
from .errors import (
    DisallowedSpecialTokenError,
    JsonLimitError,
    SplitTimeoutError,
    UnknownEncodingError,
    UnknownModelError,
    UnknownTokenError,
    UnsupportedModelError,
    WrongFileKindError,
)
from .explain.chunking import ChunkingError
from .explain.vocab import RegexTimeoutError
from .formats.limits import TokenizerTooLargeError
from .sources.uploads import UnusableTokenizerError
from .training.trainer import TrainingStoppedEarly

# ---- the family contract, the families, and the records they return
from .api import EncodingAPI
from .families.hf.encoding import HfEncoding
from .families.sentencepiece.encoding import SentencePieceEncoding
from .families.tiktoken_models.encoding import ModelEncoding
from .records import BpeTrace, MergeInfo, MergeNode, MergeStep, Piece, Token, TrainingReport

# ---- one entry point per explainer (the rest: `engine.explain.*`, `engine.chat`, ...)
from . import chat, explain
from .chat import chat_tokens
from .explain.arena import language_matrix, rank_encodings
from .explain.chunking import chunk_text
from .explain.families import family_note
from .explain.unicode_scripts import token_tax
from .sources.catalog import search_encodings
from .sources.uploads import load_tokenizer
from .training.trainer import train_bpe

__all__ = [
    # tiktoken's API
    "Encoding", "get_encoding", "list_encoding_names", "encoding_for_model", "encoding_name_for_model",
    "list_tokenizer_names",
    # errors
    "DisallowedSpecialTokenError", "SplitTimeoutError", "UnknownTokenError", "UnknownModelError",
    "UnknownEncodingError", "RegexTimeoutError", "TokenizerTooLargeError", "UnusableTokenizerError",
    "JsonLimitError", "UnsupportedModelError", "WrongFileKindError", "ChunkingError", "ChatFormatError",
    "TrainingStoppedEarly",
    # the family contract, the families, and the records they return
    "EncodingAPI", "ModelEncoding", "SentencePieceEncoding", "HfEncoding",
    "Piece", "Token", "BpeTrace", "MergeStep", "MergeNode", "TrainingReport", "MergeInfo",
    # one entry point per explainer
    "train_bpe", "load_tokenizer", "search_encodings", "family_note", "chat_tokens",
    "rank_encodings", "language_matrix", "chunk_text", "token_tax",
]
