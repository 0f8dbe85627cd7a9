"""`get_encoding(name)`: each built-in encoding built once per process from shipped, hash-checked files.

Five kinds of built-in, one table of names:

* OpenAI's (`engine.sources.openai_public.SPECS`): ranks + pattern + special tokens;
* the open models' tiktoken-style vocabularies with their own rules
  (`engine.families.tiktoken_models.specs.MODEL_SPECS`: Llama 3/4, Qwen, Tekken);
* SentencePiece BPE models (`engine.families.sentencepiece.encoding`: Mistral v1/v3);
* Hugging Face ``tokenizer.json`` files (`engine.families.hf.builtins`: DeepSeek V3/V4, GLM-5,
  MiniMax M3, Claude's legacy tokenizer), BERT's ``vocab.txt`` (WordPiece on the general pipeline), and
  Gemma 3's, installed at set-up time because its terms do not let the repository ship it.

A built-in encoding pickles as its name (`is_registered`), so a copy in
another process is that process's own ``get_encoding(name)``.
"""
from __future__ import annotations

import threading

from ..errors import UnknownEncodingError
from ..families.hf.builtins import (BUILTIN_FILES as HF_BUILTINS, INSTALLED_BUILTINS, VOCAB_TXT_BUILTINS, installed_names,
                                   parsed_base, load_builtin as load_hf_builtin, load_installed, load_vocab_txt_builtin)
from ..families.sentencepiece.encoding import BUILTIN_MODELS as SENTENCEPIECE_MODELS, builtin_sentencepiece
from ..families.tiktoken_models.encoding import build_model_encoding
from ..families.tiktoken_models.specs import MODEL_SPECS
from ..formats.rank_cache import shipped_ranks
from ..formats.tiktoken_files import parse_data_gym, parse_tiktoken_bpe
from ..pickling import set_registry
from ..tokenizer.encoding import Encoding
from .openai_public import SPECS, EncodingSpec

_ENCODINGS: dict[str, Encoding] = {}
_LOCK = threading.Lock()
_RANKS: dict[tuple[str, ...], dict[bytes, int]] = {}  # gpt2 and r50k_base share one table


def list_encoding_names() -> list[str]:
    """tiktoken's promise: encodings whose every id is one byte string and back.

    For each name, ``encode_single_token(decode_single_token_bytes(t)) == t`` for
    every id (tiktoken's own `test_simple` checks it).  The SentencePiece models
    break it by design -- a byte-fallback piece such as ``<0x41>`` decodes to the
    same byte as the piece ``A`` -- so they are left out here; `get_encoding`
    still builds them and `list_tokenizer_names` lists them.
    """
    return _qwen_beside_qwen([*SPECS, *MODEL_SPECS, *HF_BUILTINS, *VOCAB_TXT_BUILTINS])


def list_tokenizer_names() -> list[str]:
    """Every name `get_encoding` accepts: OpenAI's first, then the open models' (SentencePiece included);
    a name installed at set-up time (Gemma 3: `scripts/install_gemma.py`) only once it is installed."""
    return _qwen_beside_qwen([*SPECS, *MODEL_SPECS, *SENTENCEPIECE_MODELS, *HF_BUILTINS, *VOCAB_TXT_BUILTINS,
                              *installed_names()])


def _qwen_beside_qwen(names: list[str]) -> list[str]:
    """qwen3.6 is a tokenizer.json built-in (Qwen's own file: engine.families.hf.builtins) but is listed beside
    qwen2.5, a rank file, as users look for it."""
    names.remove("qwen3.6")
    names.insert(names.index("qwen2.5") + 1, "qwen3.6")
    return names


def is_registered(enc: Encoding) -> bool:
    """True if `enc` is the object `get_encoding(enc.name)` returns (so its name identifies it)."""
    return _ENCODINGS.get(enc.name) is enc


def _load_ranks(spec: EncodingSpec) -> dict[bytes, int]:
    key = tuple(f for f, _ in spec.files)
    if key not in _RANKS:
        if spec.format == "data_gym":
            # encoder.json is not cross-checked here (it would add to every cold start): both files are
            # sha256-checked, and tests/engine/formats/test_load.py runs the cross-check on these very files
            (bpe_file, bpe_hash), _encoder_json = spec.files
            _RANKS[key] = shipped_ranks(bpe_file, bpe_hash, lambda data: parse_data_gym(data, vocab_source=bpe_file))
        else:
            (file, sha) = spec.files[0]
            _RANKS[key] = shipped_ranks(file, sha, lambda data: parse_tiktoken_bpe(data, source=file))
    return _RANKS[key]


def _build(name: str, base: Encoding | None = None) -> Encoding:
    if name in SPECS:
        spec = SPECS[name]
        return Encoding(spec.name, pat_str=spec.pat_str, mergeable_ranks=_load_ranks(spec),
                        special_tokens=spec.special_tokens, explicit_n_vocab=spec.explicit_n_vocab)
    if name in MODEL_SPECS:
        return build_model_encoding(MODEL_SPECS[name])
    if name in SENTENCEPIECE_MODELS:
        return builtin_sentencepiece(name)  # type: ignore[return-value]
    if name in VOCAB_TXT_BUILTINS:
        return load_vocab_txt_builtin(name)  # type: ignore[no-any-return]
    if name in INSTALLED_BUILTINS:
        return load_installed(name)  # type: ignore[no-any-return]
    return load_hf_builtin(name, base=base)  # type: ignore[arg-type, return-value]


def is_loaded(encoding_name: str) -> bool:
    """True if `get_encoding(encoding_name)` answers at once: that built-in was built already."""
    return encoding_name in _ENCODINGS


def get_encoding(encoding_name: str) -> Encoding:
    """The built-in encoding `encoding_name` (shared, immutable, thread-safe).

    `UnknownEncodingError` (a ValueError, as in tiktoken) for other names.
    """
    name = encoding_name
    enc = _ENCODINGS.get(name) if isinstance(name, str) else None
    if enc is not None:
        return enc
    known = list_tokenizer_names()
    if isinstance(name, str) and name in INSTALLED_BUILTINS and name not in known:
        load_installed(name)  # raises NotInstalledError, which says how to install it
    if not isinstance(name, str) or name not in known:
        raise UnknownEncodingError(name, known)
    # a tokenizer.json built-in sharing another's vocabulary reuses it, loaded first (outside the lock)
    shared = parsed_base(name) if name in HF_BUILTINS else None
    base = get_encoding(shared) if shared else None
    with _LOCK:
        enc = _ENCODINGS.get(name)
        if enc is None:
            enc = _ENCODINGS[name] = _build(name, base)
    return enc


set_registry(is_registered, get_encoding)  # built-ins pickle by name from now on
