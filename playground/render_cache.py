"""Cached work of the token views that does not change with a click: grouping, diffing, markup, trees.

The engine calls go through playground/encodings.py's cached wrappers; what the
views derive from them (display units, the boundary diff, thousands of spans of
HTML, one token's merge tree) is cached here, keyed like those wrappers by
encoding name, text and options, so after a 2 MB paste switching a pane or the
layout only redraws.  Results are plain strings and small records.
"""
from __future__ import annotations

from dataclasses import dataclass

import streamlit as st

import engine
from playground import encodings, html
from playground.drawing import slug as _slug

MAX_IDS_LINKED = 5_000  # ids in the hover-linked list (the copyable list holds more)


@dataclass(frozen=True)
class TokenView:
    markup: str  # the drawn units
    ids_markup: str  # the linked ids list
    n_units: int
    n_split: int  # units that hold several tokens


@st.cache_data(max_entries=24, show_spinner=False)
def token_view(name: str, _enc: engine.Encoding, text: str, policy: str, show_ws: bool) -> TokenView:
    """Tokenize's drawing of `text` under one encoding (first DRAW_LIMIT characters)."""
    drawn = text[: encodings.DRAW_LIMIT]
    tokens = encodings.tokenize(name, _enc, text, policy)
    pieces = encodings.pretokenize(name, _enc, text, policy)
    ids = encodings.encode(name, _enc, text, policy)
    units = engine.group_tokens(tokens, drawn)
    idlist = f"ids-{_slug(name)}"
    markup = html.token_units(units, f"tokens-{_slug(name)}", show_ws=show_ws, pieces=pieces, encoding=name,
                              n_vocab=_enc.n_vocab, idlist=idlist)
    return TokenView(markup, html.id_list(ids, idlist, limit=MAX_IDS_LINKED), len(units),
                     sum(u.split for u in units))


@dataclass(frozen=True)
class CompareView:
    markups: dict[str, str]
    n_shared: int
    n_differing: int
    agreement: float
    n_disagreements: int
    disagreement_rows: list[dict[str, str]]


def _label(unit: engine.DisplayUnit) -> str:
    """A unit as plain text for the table: visible whitespace, the count when a character is split."""
    text = html.visible(unit.text)
    return f"{text} ({html.plural(len(unit.ids), 'token')})" if unit.split else text


@st.cache_data(max_entries=16, show_spinner=False)
def compare_view(names: tuple[str, ...], _encs: tuple[engine.Encoding, ...], text: str, policy: str,
                 show_ws: bool, max_rows: int) -> CompareView:
    """Compare's rows, cut counts and disagreement table for `names` on `text` (drawn part)."""
    drawn = text[: encodings.DRAW_LIMIT]
    units, pieces = {}, {}
    for name, enc in zip(names, _encs):
        tokens = encodings.tokenize(name, enc, text, policy)
        pieces[name] = encodings.pretokenize(name, enc, text, policy)
        units[name] = engine.group_tokens(tokens, drawn)
    diff = engine.unit_diff(units)
    shared = diff.shared_bytes()
    markups = {
        name: html.token_units(units[name], f"cmp-{_slug(name)}", show_ws=show_ws, pieces=pieces[name],
                               shared_cuts=shared, cls="tokens cmp", encoding=name, n_vocab=enc.n_vocab)
        for name, enc in zip(names, _encs)
    }
    found = engine.unit_disagreements(units, diff, drawn) if len(names) >= 2 else []
    rows = []
    for d in found[:max_rows]:
        row = {"chars": f"{d.char_start}–{d.char_end}", "text": html.visible(d.text)}
        for name in names:
            row[name] = " | ".join(_label(u) for u in d.parts[name])
        rows.append(row)
    return CompareView(markups, len(diff.shared), len(diff.differing), diff.agreement, len(found), rows)


@st.cache_data(max_entries=64, show_spinner=False)
def merge_tree(name: str, _enc: engine.Encoding, token_id: int) -> engine.MergeNode:
    """How `token_id` was built.  Rank-file encodings replay BPE on this token's bytes only
    (engine.merge_tree_of: milliseconds, no full merge recovery); tokenizers with explicit
    merges (trained, minbpe files) read their merges."""
    if _enc.uses_pair_merges:
        return _enc.merge_tree(token_id)
    if _enc.is_special_token(token_id):
        return _enc.merge_tree(token_id)  # raises the engine's explanation
    return engine.merge_tree_of(_enc.decode_single_token_bytes(token_id), _enc.mergeable_ranks)
