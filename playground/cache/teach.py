"""Cached engine calls of the teaching pages (Tokenizer diff, the classic demos of Why counts differ): bounded, shared by every session.

Kept apart from playground/cache/encodings.py so the token views' wrappers read as they are.
Keys begin with the first encoding's name, as `memo.forget` expects; a session's own tokenizer
keeps its name for its content while the server runs, so a key never names two vocabularies.
"""
from __future__ import annotations

import engine
from engine.explain import classics, diff
from playground.cache import memo
from playground.cache.encodings import engine_call


@memo.shared(max_entries=8)
def vocab_diff(name_a: str, _a: engine.Encoding, name_b: str, _b: engine.Encoding) -> diff.VocabDiff:
    """`engine.explain.diff.vocab_diff` of two encodings (about a second for two 200k vocabularies)."""
    return diff.vocab_diff(_a, _b)


@memo.shared(max_entries=32)
def reversal(name: str, _enc: engine.Encoding, text: str) -> classics.Reversal:
    """`engine.explain.classics.reverse_tokens`: a text reversed by its letters and by its ids."""
    return engine_call("reversal", name, _enc, text, chars=len(text), label=f"Reversing a text with {name}")


@memo.shared(max_entries=32)
def trailing_space(name: str, _enc: engine.Encoding, prompt: str) -> classics.TrailingSpace | None:
    """`engine.explain.classics.trailing_space` (up to a second for o200k: every token that starts with a space).
    Inline for any tokenizer: its cost is the vocabulary's (one scan), not the prompt's, a short demo text."""
    return classics.trailing_space(_enc, prompt)
