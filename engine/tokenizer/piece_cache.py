"""The bounded piece -> ids memo that every tokenizer family keeps.

Real text repeats its pieces (words, spaces, punctuation), so each family remembers the ids of the
pieces it has already tokenized. One class for all of them, so the bound and the way it is kept are
the same everywhere: when an insert would pass `MAX_PIECES` the memo is emptied and refilled, which
costs one re-tokenization of the pieces still in use and never lets a long-running server grow.

It is a `dict` on purpose: the families' hot loops look pieces up with ``map(cache.get, pieces)``,
which stays at C speed only on a plain dict method.
"""
from __future__ import annotations

from itertools import compress, islice
from operator import not_
from typing import Callable

from ..deadline import current as current_limit

MAX_PIECES = 100_000  # read at each insert, so a test can shrink it

__all__ = ["PieceCache", "MAX_PIECES"]


class PieceCache(dict):
    """piece -> ids tuple (never empty), emptied when an insert would pass `MAX_PIECES`."""

    __slots__ = ()

    def remember(self, new: dict[str, tuple[int, ...]]) -> None:
        limit = MAX_PIECES
        if len(self) + len(new) > limit:
            self.clear()
            if len(new) > limit:
                new = dict(islice(new.items(), limit))
        self.update(new)

    def ids(self, piece: str, compute: Callable[[str], tuple[int, ...]]) -> tuple[int, ...]:
        """The remembered ids of `piece`, or `compute(piece)`, remembered."""
        found = self.get(piece)
        if found is None:
            found = compute(piece)
            self.remember({piece: found})
        return found

    def ids_of_all(self, pieces: list[str], compute: Callable[[str], tuple[int, ...]]) -> list[tuple[int, ...]]:
        """The ids of every piece, in order: remembered ones looked up at C speed, each new one computed once
        -- a caller's time limit (`engine.deadline`) checked before each -- and all remembered only once every
        one is done, so a stopped call leaves nothing half made."""
        found = list(map(self.get, pieces))
        if None in found:
            limit = current_limit()
            new = {}
            for piece in set(compress(pieces, map(not_, found))):
                if limit is not None:
                    limit.check()
                new[piece] = compute(piece)
            self.remember(new)
            found = list(map(new.get, pieces, found))
        return found
