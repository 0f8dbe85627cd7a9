"""Tokenize's "Other ways to cut this text", cached: the lanes of `engine.explain.noncanonical` drawn as token
rows, and the count of one word's segmentations.

Each result is keyed (encoding, text digest, p, seed, whitespace markers) in a bounded shared memo
(`playground.cache.memo.shared`), so moving the slider back, or a rerun for another widget, only redraws.
The engine works under a time limit (`engine.deadline`): the lanes cut at most
`engine.explain.noncanonical.MAX_CHARS` characters, about 0.1-0.3 s for a built-in
(bench/bench_noncanonical.py), but an uploaded file's merge loop costs what the file makes it cost; past
the limit the engine stops with `engine.errors.TimeLimitError` (a ValueError the panel shows) and nothing is
remembered.
"""
from __future__ import annotations

from dataclasses import dataclass

import engine
from engine.deadline import time_limit
from engine.explain import noncanonical
from engine.explain.compare import group_tokens
from playground.cache import encodings, memo
from playground.cache.memo import text_key
from playground.render import html
from playground.render.tokens import token_units

TIME_LIMIT = 3.0  # seconds for all five lanes of one text; a built-in needs a tenth of it (the bench)
LANES = ("canonical", "dropout", "chars", "random", "digits")


@dataclass(frozen=True)
class DrawnLane:
    key: str  # a name of LANES
    count: int  # tokens
    markup: str  # the token row (playground.render.tokens.token_units)


@dataclass(frozen=True)
class CutsView:
    lanes: tuple[DrawnLane, ...]
    cut: bool  # the text was longer than MAX_CHARS: the lanes cover its start
    words: tuple[str, ...]  # the pieces whose segmentations can be counted, in order


def cuts(name: str, enc: engine.Encoding, text: str, p: float, seed: int, show_ws: bool) -> CutsView:
    """The lanes of `text` under `enc`, drawn (a `NotBpeError`, `TimeLimitError` or other ValueError passes)."""
    return _cuts(name, enc, text_key(text), text, p, seed, show_ws)


@memo.shared(max_entries=16, ttl=encodings.CACHE_TTL)
def _cuts(name: str, _enc: engine.Encoding, key: str, _text: str, p: float, seed: int, show_ws: bool) -> CutsView:
    with time_limit(TIME_LIMIT):
        found = noncanonical.other_cuts(_enc, _text, p, seed)
        words = tuple(noncanonical.words(_enc, _text))
    drawn = []
    for lane_key in LANES:
        lane = getattr(found, lane_key)
        units = group_tokens(lane.tokens, lane.text)
        markup = token_units(units, f"nc-{lane_key}-{html.slug(name)}", show_ws=show_ws, encoding=name,
                             n_vocab=_enc.n_vocab)
        drawn.append(DrawnLane(lane_key, len(lane.tokens), markup))
    return CutsView(tuple(drawn), found.cut, words)


def segmentation_count(name: str, enc: engine.Encoding, word: str) -> int:
    """How many ways `enc`'s vocabulary spells `word` (exact; a ValueError passes)."""
    return _count(name, enc, word)


@memo.shared(max_entries=64, ttl=encodings.CACHE_TTL)
def _count(name: str, _enc: engine.Encoding, word: str) -> int:
    with time_limit(TIME_LIMIT):
        return noncanonical.segmentation_count(_enc, word)
