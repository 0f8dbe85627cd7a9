"""`get_encoding(name)`: each built-in encoding built once per process from shipped, hash-checked files."""
from __future__ import annotations

import threading

from .core import Encoding
from .families.hf_tokenizer_json import BUILTIN_FILES as HF_BUILTINS, load_builtin as load_hf_builtin
from .families.sentencepiece import BUILTIN_MODELS as SENTENCEPIECE_MODELS, builtin_sentencepiece
from .families.tiktoken_models import build_model_encoding
from .families.tiktoken_specs import MODEL_SPECS
from .load import parse_data_gym, parse_tiktoken_bpe, read_data_file
from .openai_public import SPECS, EncodingSpec

_ENCODINGS: dict[str, Encoding] = {}
_LOCK = threading.Lock()
_RANKS: dict[tuple[str, ...], dict[bytes, int]] = {}  # gpt2 and r50k_base share one table


def list_encodings() -> list[str]:
    """Names accepted by `get_encoding`."""
    return [*SPECS, *MODEL_SPECS, *SENTENCEPIECE_MODELS, *HF_BUILTINS]


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


def get_encoding(name: str) -> Encoding:
    """The built-in encoding `name` (shared, immutable, thread-safe)."""
    enc = _ENCODINGS.get(name)
    if enc is not None:
        return enc
    if name in HF_BUILTINS:  # Hugging Face tokenizer.json family (engine/families)
        with _LOCK:
            if name not in _ENCODINGS:
                _ENCODINGS[name] = load_hf_builtin(name)  # type: ignore[assignment]
        return _ENCODINGS[name]
    if name not in SPECS and name not in SENTENCEPIECE_MODELS and name not in MODEL_SPECS:
        raise ValueError(f"Unknown encoding {name!r}. Known encodings: {', '.join(list_encodings())}")
    with _LOCK:
        enc = _ENCODINGS.get(name)
        if enc is None and name in SENTENCEPIECE_MODELS:
            enc = _ENCODINGS[name] = builtin_sentencepiece(name)  # type: ignore[assignment]
        if enc is None and name in MODEL_SPECS:
            enc = _ENCODINGS[name] = build_model_encoding(MODEL_SPECS[name])
        if enc is None:
            spec = SPECS[name]
            enc = Encoding(spec.name, pat_str=spec.pat_str, mergeable_ranks=_load_ranks(spec),
                           special_tokens=spec.special_tokens, explicit_n_vocab=spec.explicit_n_vocab)
            _ENCODINGS[name] = enc
    return enc
