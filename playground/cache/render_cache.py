"""The token views' one cached pipeline: ids, tokens with their pieces and notes, the drawings.

A token view (Tokenize, Compare, the pickers, BPE steps) asks this module, and only this module,
for what it draws:

    view -> render_cache (one memo per result, keyed (name, text digest, options))
         -> playground.cache.encodings (one engine call, inline or in a job, failures remembered)
         -> engine (`encode`; `engine.explain.families.tokenize_text`: tokens, pieces and notes in one call)
         -> playground.render.tokens (pure builders: data in, escaped markup out)
         -> the component (playground.widgets.page.draw)

so after a 2 MB paste switching a pane or the layout only redraws.  Every text is named by one
digest (`memo.text_key`); the engine's result is held once, here.

These are shared caches (`playground.cache.memo.shared`: bounded in entries and in bytes --
IDS_BYTES and its neighbours --, expiring, without `st.cache_resource`'s per-call signature lookup)
of *frozen* results (tuples, frozen dataclasses, strings) that no view mutates: `st.cache_data`
pickles every result it stores and unpickles a copy on every hit, a cost that grows with the token
records and comes on each rerun.
"""
from __future__ import annotations

from dataclasses import dataclass

import streamlit as st

import engine
from engine.explain import algorithms
from playground.cache import encodings, memo
from playground.cache.memo import text_key
from playground.render import html
from playground.render.tokens import id_list, token_units

MAX_IDS_LINKED = 5_000  # ids in the hover-linked list (the copyable list holds more)
# Characters drawn span by span (every unit is a span with its tooltip: about 250 bytes of HTML).
# Beyond this the browser spends seconds on each redraw; counts, the table and the downloads
# still cover the first encodings.DRAW_LIMIT characters, and the counts the whole text.
# The browser's cost grows with the drawn characters on every redraw of the pane (parsing, sanitising
# and laying out the spans); this bound keeps a redraw after a big paste short (README, "What keeps the
# playground quick").
DRAWN_CHARS = 5_000
# Characters tokenized past DRAWN_CHARS for the drawing, so it never ends inside a cut-off piece.
DRAWN_MARGIN = 2_000

# The caches hold at most these estimated bytes each (playground.cache.memo): a 2 MB paste has ~18 MB of
# ids per encoding, and ~23 MB of token records plus ~15 MB of pieces for its first DRAW_LIMIT characters,
# so 16 entries of each would grow a server by ~1 GB over a dozen pastes.  Each holds a page of the three
# default encodings on such a paste (estimates run high: token records weigh about 3x what tracemalloc finds).
IDS_BYTES = 64_000_000
TOKENIZED_BYTES = 192_000_000  # token records, their pieces and notes
DRAWN_BYTES = 32_000_000  # drawings, small results


@memo.shared(max_entries=16, ttl=encodings.CACHE_TTL, max_bytes=IDS_BYTES)
def _ids(name: str, _enc: engine.Encoding, key: str, _text: str, policy: str) -> tuple[int, ...]:
    return tuple(encodings.encode(name, _enc, _text, policy))


def ids(name: str, enc: engine.Encoding, text: str, policy: str) -> tuple[int, ...]:
    """All ids of `text` (ValueError under the 'refuse' policy is raised, not cached)."""
    return _ids(name, enc, text_key(text), text, policy)


@memo.shared(max_entries=16, ttl=encodings.CACHE_TTL, max_bytes=TOKENIZED_BYTES)
def _tokenized(name: str, _enc: engine.Encoding, key: str, _text: str,
               policy: str) -> engine.explain.families.TokenizedText:
    return encodings.tokenize_text(name, _enc, _text, policy)


def tokenized(name: str, enc: engine.Encoding, text: str, policy: str) -> engine.explain.families.TokenizedText:
    """Tokens, pieces and notes of the first DRAW_LIMIT characters, from one engine call."""
    return _tokenized(name, enc, text_key(text), text, policy)


def tokens(name: str, enc: engine.Encoding, text: str, policy: str) -> tuple[engine.Token, ...]:
    """Token records of the first DRAW_LIMIT characters."""
    return tokenized(name, enc, text, policy).tokens


def pieces(name: str, enc: engine.Encoding, text: str, policy: str) -> tuple[engine.Piece, ...]:
    """The pieces of the first DRAW_LIMIT characters (the same call as `tokens`)."""
    return tokenized(name, enc, text, policy).pieces


@memo.shared(max_entries=16, ttl=encodings.CACHE_TTL)
def _stats(name: str, key: str, _text: str, n_tokens: int) -> engine.explain.compare.EncodingStats:
    return engine.explain.compare.text_stats(name, _text, n_tokens)


def stats(name: str, text: str, n_tokens: int) -> engine.explain.compare.EncodingStats:
    """engine.explain.compare.text_stats, once per text (it encodes the whole text to count its bytes)."""
    return _stats(name, text_key(text), text, n_tokens)


def drawn_units(units: list[engine.explain.compare.DisplayUnit]) -> list[engine.explain.compare.DisplayUnit]:
    """The units that start in the first DRAWN_CHARS characters."""
    lo, hi = 0, len(units)
    while lo < hi:
        mid = (lo + hi) // 2
        if units[mid].char_start < DRAWN_CHARS:
            lo = mid + 1
        else:
            hi = mid
    return units[:lo]


@dataclass(frozen=True)
class Drawn:
    """The tokens, pieces and notes of the start of a text, enough to draw its first DRAWN_CHARS characters."""
    tokens: tuple[engine.Token, ...]
    pieces: tuple[engine.Piece, ...]
    text: str  # the prefix of the text they cover
    notes: dict[int, engine.explain.families.TokenNote] | None = None  # by id; None: the family has none


def drawn(name: str, enc: engine.Encoding, text: str, policy: str) -> Drawn:
    """Tokens for the drawing: a long text's first DRAWN_CHARS + DRAWN_MARGIN characters are tokenized
    alone (milliseconds) instead of its first DRAW_LIMIT (half a second for 100,000 characters).

    The prefix's last piece may be cut off, so its tokens are dropped; what is kept is checked
    against the whole text's ids (which are at hand: the counts need them), so a split pattern
    that looks far ahead can never draw a wrong token -- then the full records are used.
    """
    return _drawn(name, enc, text_key(text), text, policy)


@memo.shared(max_entries=16, ttl=encodings.CACHE_TTL, max_bytes=DRAWN_BYTES)
def _drawn(name: str, _enc: engine.Encoding, key: str, _text: str, policy: str) -> Drawn:
    text = _text
    if len(text) > DRAWN_CHARS + DRAWN_MARGIN:
        start = encodings.tokenize_text(name, _enc, text[: DRAWN_CHARS + DRAWN_MARGIN], policy)
        last = start.pieces[-1].index if start.pieces else 0
        kept = tuple(t for t in start.tokens if t.piece_index < last)
        all_ids = ids(name, _enc, text, policy)
        if (kept and kept[-1].char_end >= DRAWN_CHARS and len(all_ids) >= len(kept)
                and all(t.id == i for t, i in zip(kept, all_ids))):
            return Drawn(kept, start.pieces[:last], text[: kept[-1].char_end], start.notes)
    whole = tokenized(name, _enc, text, policy)
    return Drawn(whole.tokens, whole.pieces, text[: encodings.DRAW_LIMIT], whole.notes)


@dataclass(frozen=True)
class TokenView:
    markup: str  # the drawn units
    ids_markup: str  # the linked ids list
    n_units: int
    n_split: int  # units that hold several tokens


def token_view(name: str, enc: engine.Encoding, text: str, policy: str, show_ws: bool) -> TokenView:
    """Tokenize's drawing of `text` under one encoding (first DRAWN_CHARS characters)."""
    return _token_view(name, enc, text_key(text), text, policy, show_ws)


@memo.shared(max_entries=16, ttl=encodings.CACHE_TTL, max_bytes=DRAWN_BYTES)
def _token_view(name: str, _enc: engine.Encoding, key: str, _text: str, policy: str, show_ws: bool) -> TokenView:
    text = _text
    start = drawn(name, _enc, text, policy)
    units = drawn_units(engine.explain.compare.group_tokens(start.tokens, start.text))
    idlist = f"ids-{html.slug(name)}"
    markup = token_units(units, f"tokens-{html.slug(name)}", show_ws=show_ws,
                         pieces=start.pieces, encoding=name, n_vocab=_enc.n_vocab, idlist=idlist,
                         notes=start.notes, source=text, explain=_explain(_enc))
    all_ids = ids(name, _enc, text, policy)
    return TokenView(markup, id_list(all_ids, idlist, limit=MAX_IDS_LINKED),
                     len(units), sum(u.split for u in units))


def _explain(enc: engine.Encoding) -> str | None:
    """The name of what explains a token of `enc` when it is not a merge tree (the tooltip's link says it)."""
    algorithm = algorithms.algorithm_of(enc)
    return None if algorithm == "bpe" else algorithms.EXPLANATION[algorithm]


@dataclass(frozen=True)
class CompareView:
    markups: dict[str, str]
    n_shared: int
    n_differing: int
    agreement: float
    n_disagreements: int
    disagreement_rows: list[dict[str, str]]


def _label(unit: engine.explain.compare.DisplayUnit) -> str:
    """A unit as plain text for the table: visible whitespace, the count when a character is split."""
    text = html.visible(unit.text)
    return f"{text} ({html.plural(len(unit.ids), 'token')})" if unit.split else text


def compare_view(names: tuple[str, ...], encs: tuple[engine.Encoding, ...], text: str, policy: str,
                 show_ws: bool, max_rows: int) -> CompareView:
    """Compare's rows, cut counts and disagreement table for `names` on `text` (drawn part)."""
    return _compare_view(names, encs, text_key(text), text, policy, show_ws, max_rows)


@memo.shared(max_entries=8, ttl=encodings.CACHE_TTL, max_bytes=DRAWN_BYTES)
def _compare_view(names: tuple[str, ...], _encs: tuple[engine.Encoding, ...], key: str, _text: str, policy: str,
                  show_ws: bool, max_rows: int) -> CompareView:
    text = _text
    drawn = text[: encodings.DRAW_LIMIT]
    units, found = {}, {}
    for name, enc in zip(names, _encs):
        found[name] = tokenized(name, enc, text, policy)
        units[name] = engine.explain.compare.group_tokens(found[name].tokens, drawn)
    diff = engine.explain.compare.unit_diff(units)
    shared = diff.shared_bytes()
    markups = {
        name: token_units(drawn_units(units[name]), f"cmp-{html.slug(name)}", show_ws=show_ws,
                          pieces=found[name].pieces, shared_cuts=shared, cls="tokens cmp", encoding=name,
                          n_vocab=enc.n_vocab, notes=found[name].notes, source=text, explain=_explain(enc))
        for name, enc in zip(names, _encs)
    }
    disagreements = engine.explain.compare.unit_disagreements(units, diff, drawn) if len(names) >= 2 else []
    rows = []
    for d in disagreements[:max_rows]:
        row = {"chars": f"{d.char_start}–{d.char_end}", "text": html.visible(d.text)}
        for name in names:
            row[name] = " | ".join(_label(u) for u in d.parts[name])
        rows.append(row)
    return CompareView(markups, len(diff.shared), len(diff.differing), diff.agreement, len(disagreements), rows)


@st.cache_data(max_entries=64, show_spinner=False)
def merge_tree(name: str, _enc: engine.Encoding, token_id: int) -> engine.MergeNode:
    """How `token_id` was built.  Rank-file encodings replay BPE on this token's bytes only
    (engine.tokenizer.merges.merge_tree_of: milliseconds, no full merge recovery); tokenizers with explicit
    merges (trained, minbpe files) read their merges."""
    if _enc.uses_pair_merges:
        return _enc.merge_tree(token_id)
    if _enc.is_special_token(token_id):
        return _enc.merge_tree(token_id)  # raises the engine's explanation
    return engine.tokenizer.merges.merge_tree_of(_enc.decode_single_token_bytes(token_id), _enc.mergeable_ranks)
