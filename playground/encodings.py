"""Every `st.cache_*` wrapper around the engine, and the session's own tokenizers.

Built-in encodings are shared by all users (`st.cache_resource`, immutable).
Trained or uploaded tokenizers live in this user's session state only, under
a unique name, so two users never see each other's tokenizers.  Derived
results are cached with `st.cache_data(max_entries=...)` keyed by that name.
"""
from __future__ import annotations

from typing import Any

import streamlit as st

import engine
from playground import state

DRAW_LIMIT = 100_000  # characters drawn token by token; counts always cover the whole text




@st.cache_resource(show_spinner="Loading vocabulary…")
def builtin(name: str) -> engine.Encoding:
    return engine.get_encoding(name)


def resolve(name: str) -> engine.Encoding:
    """The encoding called `name`: a built-in, or one of this session's own."""
    custom = st.session_state.get(state.CUSTOM, {})
    if name in custom:
        return custom[name]
    return builtin(name)


def add_custom(enc: engine.Encoding) -> str:
    """Register a trained/uploaded tokenizer for this session only; returns its name."""
    st.session_state.setdefault(state.CUSTOM, {})[enc.name] = enc
    return enc.name


def policy_kwargs(policy: str) -> dict[str, Any]:
    """encode() keyword arguments for a special-token policy of the sidebar."""
    if policy == "special":
        return {"allowed_special": "all"}
    if policy == "text":
        return {"allowed_special": set(), "disallowed_special": ()}
    return {}  # tiktoken's default: refuse special-token text with a ValueError


@st.cache_data(max_entries=64, show_spinner=False)
def encode(name: str, _enc: engine.Encoding, text: str, policy: str) -> list[int]:
    """All ids of `text` (however long). Raises ValueError under the 'refuse' policy."""
    return _enc.encode(text, **policy_kwargs(policy))


@st.cache_data(max_entries=64, show_spinner=False)
def tokenize(name: str, _enc: engine.Encoding, text: str, policy: str) -> list[engine.Token]:
    """Token records for the first DRAW_LIMIT characters of `text`."""
    return _enc.tokenize(text[:DRAW_LIMIT], **policy_kwargs(policy))


@st.cache_data(max_entries=64, show_spinner=False)
def pretokenize(name: str, _enc: engine.Encoding, text: str, policy: str) -> list[engine.Piece]:
    return _enc.pretokenize(text[:DRAW_LIMIT], **policy_kwargs(policy))


# --- Gallery ---
@st.cache_data(max_entries=48, show_spinner=False)
def tokenize_many(name: str, _enc: engine.Encoding, texts: tuple[str, ...], policy: str) -> list[list[engine.Token]]:
    """Token records of several short texts (one gallery demo) as one cache entry."""
    return [_enc.tokenize(text, **policy_kwargs(policy)) for text in texts]


@st.cache_data(max_entries=16, show_spinner=False)
def token_tax(name: str, _enc: engine.Encoding, text: str, policy: str) -> list[engine.ScriptShare]:
    """Tokens per script of the first DRAW_LIMIT characters of `text` (engine.token_tax)."""
    return engine.attribute_tokens(text[:DRAW_LIMIT], tokenize(name, _enc, text, policy))


# --- Merge tree / steps / vocabulary ---
@st.cache_data(max_entries=64, show_spinner=False)
def merge_tree(name: str, _enc: engine.Encoding, token_id: int) -> engine.MergeNode:
    """How `token_id` was built (the first call per encoding recovers all merges: ~2 s for o200k)."""
    return _enc.merge_tree(token_id)


@st.cache_resource(max_entries=16, show_spinner=False)
def bpe_trace(name: str, _enc: engine.Encoding, piece: str) -> engine.BpeTrace:
    """Every merge step on `piece`.  A resource (the trace is frozen, never mutated) so moving
    the step slider does not unpickle 100,000 steps on every rerun."""
    return _enc.bpe_trace(piece)


@st.cache_data(max_entries=8, show_spinner="Reading every token of the vocabulary…")
def vocab_table(name: str, _enc: engine.Encoding):
    """One row per ordinary token (a pandas DataFrame indexed by id) for the vocabulary explorer."""
    import pandas as pd

    infos = engine.token_infos(_enc)
    glitch = engine.glitch_tokens(_enc)
    return pd.DataFrame(
        {
            "id": [i.id for i in infos],
            "token": [engine.readable(i.bytes, space="␣") for i in infos],
            "bytes": [i.bytes.hex(" ") for i in infos],
            "length": [i.length for i in infos],
            "leading space": [i.leading_space for i in infos],
            "valid UTF-8": [i.valid_utf8 for i in infos],
            "glitch": [i.id in glitch for i in infos],
        },
        index=[i.id for i in infos],
    )


@st.cache_data(max_entries=32, show_spinner="Searching the vocabulary…")
def vocab_search(name: str, _enc: engine.Encoding, query: str, mode: str, ignore_case: bool) -> list[int]:
    """Ids matching a substring or regex (ValueError / engine.RegexTimeoutError are not cached)."""
    if mode == "regex":
        return engine.search_regex(_enc, query, ignore_case=ignore_case)
    return engine.search_substring(_enc, query, ignore_case=ignore_case)


@st.cache_data(max_entries=32, show_spinner=False)
def vocab_filter(name: str, _enc: engine.Encoding, which: str) -> list[int]:
    """Ids for a quick filter: 'longest' (top 200, longest first) or an engine.filter_tokens name."""
    if which == "longest":
        return engine.longest(_enc, 200)
    if which == "glitch":
        return sorted(engine.glitch_tokens(_enc))
    return engine.filter_tokens(_enc, which)


@st.cache_data(max_entries=8, show_spinner=False)
def length_histogram(name: str, _enc: engine.Encoding) -> list[tuple[int, int]]:
    return engine.length_histogram(_enc)
