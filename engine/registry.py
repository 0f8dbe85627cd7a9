"""`get_encoding(name)`: each built-in encoding built once per process from shipped, hash-checked files.

A built-in encoding pickles as its name (`is_registered`), so a copy in
another process is that process's own ``get_encoding(name)``.
"""
from __future__ import annotations

import threading

from .core import Encoding
from .errors import UnknownEncodingError
from .load import parse_data_gym, parse_tiktoken_bpe, read_data_file
from .openai_public import SPECS, EncodingSpec

_ENCODINGS: dict[str, Encoding] = {}
_LOCK = threading.Lock()
_RANKS: dict[tuple[str, ...], dict[bytes, int]] = {}  # gpt2 and r50k_base share one table


def list_encoding_names() -> list[str]:
    """Names accepted by `get_encoding` (tiktoken's name)."""
    return list(SPECS)


list_encodings = list_encoding_names  # the engine's earlier name, kept for callers


def is_registered(enc: Encoding) -> bool:
    """True if `enc` is the object `get_encoding(enc.name)` returns (so its name identifies it)."""
    return _ENCODINGS.get(enc.name) is enc


def _load_ranks(spec: EncodingSpec) -> dict[bytes, int]:
    key = tuple(f for f, _ in spec.files)
    if key not in _RANKS:
        if spec.format == "data_gym":
            (bpe_file, bpe_hash), (json_file, json_hash) = spec.files
            _RANKS[key] = parse_data_gym(
                read_data_file(bpe_file, bpe_hash), read_data_file(json_file, json_hash),
                vocab_source=bpe_file, encoder_source=json_file,
            )
        else:
            (file, sha) = spec.files[0]
            _RANKS[key] = parse_tiktoken_bpe(read_data_file(file, sha), source=file)
    return _RANKS[key]


def get_encoding(encoding_name: str) -> Encoding:
    """The built-in encoding `encoding_name` (shared, immutable, thread-safe).

    `UnknownEncodingError` (a ValueError, as in tiktoken) for other names.
    """
    name = encoding_name
    if not isinstance(name, str):
        raise UnknownEncodingError(name, list(SPECS))
    enc = _ENCODINGS.get(name)
    if enc is not None:
        return enc
    if name not in SPECS:
        raise UnknownEncodingError(name, list(SPECS))
    with _LOCK:
        enc = _ENCODINGS.get(name)
        if enc is None:
            spec = SPECS[name]
            enc = Encoding(spec.name, pat_str=spec.pat_str, mergeable_ranks=_load_ranks(spec),
                           special_tokens=spec.special_tokens, explicit_n_vocab=spec.explicit_n_vocab)
            _ENCODINGS[name] = enc
    return enc
