"""Cached engine calls of the teaching pages (Tokenizer diff): bounded, shared by every session.

Kept apart from playground/cache/encodings.py so the token views' wrappers read as they are.
Keys begin with the first encoding's name, as `memo.forget` expects; a session's own tokenizer
keeps its name for its content while the server runs, so a key never names two vocabularies.
"""
from __future__ import annotations

import engine
from engine.explain.diff import VocabDiff
from playground.cache import memo


@memo.shared(max_entries=8)
def vocab_diff(name_a: str, _a: engine.Encoding, name_b: str, _b: engine.Encoding) -> VocabDiff:
    """`engine.explain.diff.vocab_diff` of two encodings (about a second for two 200k vocabularies)."""
    return engine.explain.diff.vocab_diff(_a, _b)
