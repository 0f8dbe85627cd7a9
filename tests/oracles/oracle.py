"""tiktoken 0.14 as a test oracle, built offline from the ranks we ship.

`tiktoken.get_encoding` downloads its files and fails here; building
`tiktoken.Encoding` from our own ranks checks our BPE and pattern handling
against tiktoken's Rust implementation on exactly the same data.
"""
from __future__ import annotations

import functools

import pytest

import engine
from engine.sources.openai_public import SPECS

tiktoken = pytest.importorskip("tiktoken")


@functools.lru_cache(maxsize=None)
def reference(name: str):
    enc = engine.get_encoding(name)
    spec = SPECS[name]
    return tiktoken.Encoding(
        name,
        pat_str=spec.pat_str,
        mergeable_ranks=dict(enc.mergeable_ranks),
        special_tokens=dict(spec.special_tokens),
        explicit_n_vocab=spec.explicit_n_vocab,
    )
