"""SentencePiece's Unigram segmentation (``unigram_model.cc``, ``Model::EncodeOptimized``), exactly.

A Unigram model gives every piece a score (a log-probability).  Each way of
cutting the normalized text into pieces is a path through a *lattice*; the path
with the highest total score wins.  Viterbi finds it in one pass from the left:
``best[e]`` is the best path ending at position ``e``, extended by every piece
that starts where a best path ends.  The traps, all as SentencePiece has them:

* **float32 totals.**  Scores are ``float`` and so are the running totals;
  every candidate total is rounded to float32 before it is compared, so two
  paths whose float64 sums differ may tie here (and the other way round).
  Long texts make the totals large and the rounding coarse, which is why the
  whole normalized text is one lattice: cutting it into words and adding the
  words' totals would not round the same way;
* **ties** keep the first candidate: start positions are visited left to
  right, pieces from one start shortest first, and a node is replaced only by
  a strictly higher total;
* **unknown**: where no piece of exactly one character starts (UNUSED pieces
  do not count), a one-character unknown node scored ``min(normal scores) - 10``
  is added, so every text has a path.  The caller turns unknown nodes into
  ``<0xXX>`` byte pieces (byte fallback) or joins runs of them into one ``<unk>``;
* **user-defined symbols** are in the lattice with the score
  ``bytes * max(normal scores) - 0.1``, high enough that they always win
  (``max`` starts from ``FLT_MIN``, the smallest positive float, so for all-negative
  scores the bonus is about ``-0.1``); that sum is made in float64 and compared
  with the float32 totals, as the C++ does;
* control, unknown and byte pieces are never in the lattice; UNUSED pieces are
  walked through but never chosen.

`viterbi` is the fast loop (a dict of every piece prefix stands in for the
trie: the scan from one start stops at the first prefix no piece has);
`viterbi_reference` builds the whole lattice as a list of nodes first and rounds
with `struct`, the obviously correct version, tested equal.  `lattice` gives
every node with its score and best total, the winning path marked, for the
playground to draw.
"""
from __future__ import annotations

import math
import struct
from array import array
from dataclasses import dataclass

from .model_proto import NORMAL, UNUSED, USER_DEFINED

__all__ = ["UnigramModel", "LatticeNode", "UNK_PENALTY"]

UNK_PENALTY = 10.0  # kUnkPenalty
FLT_MIN = 1.1754943508222875e-38
FLT_MAX = 3.4028234663852886e38
_F32 = struct.Struct("<f")


def f32(x: float) -> float:
    """`x` rounded to the nearest float32 (as a C ``float`` stores it)."""
    return _F32.unpack(_F32.pack(x))[0]


@dataclass(frozen=True)
class LatticeNode:
    """A candidate on the lattice: ``text[start:end]`` as piece `id` (`unknown`: the unknown node), its
    `score` and the best `total` of a path ending with it; `best` marks the nodes of the winning path.
    Offsets are characters of the normalized text."""

    start: int
    end: int
    id: int
    score: float
    total: float
    best: bool = False
    unknown: bool = False


class UnigramModel:
    """The lattice side of a SentencePiece Unigram model: pieces, scores, the prefix table."""

    def __init__(self, pieces: tuple[tuple[str, float, int], ...], unk_id: int) -> None:
        self.unk_id = unk_id
        normal = [score for _, score, kind in pieces if kind == NORMAL]
        self.min_score = min(normal, default=FLT_MAX)
        self.max_score = max(max(normal, default=FLT_MIN), FLT_MIN)
        self.unk_score = f32(self.min_score - UNK_PENALTY)
        # piece text -> id for pieces in the trie (normal, user-defined, unused); every proper prefix -> -1
        table: dict[str, int] = {}
        self.scores: dict[int, float] = {}
        self.user: dict[int, int] = {}  # user-defined id -> its length in UTF-8 bytes
        self.unused: set[int] = set()
        for i, (piece, score, kind) in enumerate(pieces):
            if kind not in (NORMAL, USER_DEFINED, UNUSED):
                continue
            for k in range(1, len(piece)):
                table.setdefault(piece[:k], -1)
            table[piece] = i
            self.scores[i] = score
            if kind == USER_DEFINED:
                self.user[i] = len(piece.encode("utf-8"))
            elif kind == UNUSED:
                self.unused.add(i)
        self.table = table

    def _piece_score(self, i: int) -> float:
        """The score a piece adds to a path (the user-defined bonus made in float64, as in C++)."""
        length = self.user.get(i)
        if length is not None:
            return f32(length * self.max_score) - 0.1
        return self.scores[i]

    # ------------------------------------------------------------------ fast
    def viterbi(self, text: str) -> list[tuple[int, int, int]]:
        """The best path: ``(start, end, id)`` per node, left to right; `unk_id` marks an unknown node
        (one character).  The empty text has no nodes."""
        n = len(text)
        if not n:
            return []
        table, scores, user, unused = self.table, self.scores, self.user, self.unused
        get = table.get
        unk_id, unk_score = self.unk_id, self.unk_score
        total = array("f", bytes(4 * (n + 1)))  # float32 storage: assigning rounds, as C++ ``float``
        start_at = [-1] * (n + 1)
        ids = [0] * (n + 1)
        tmp = array("f", b"\x00\x00\x00\x00")
        for s in range(n):
            here = total[s]
            single = False
            e = s + 1
            while e <= n:
                i = get(text[s:e])
                if i is None:
                    break
                if i >= 0 and i not in unused:
                    if i in user:
                        cand = self._piece_score(i) + here  # float64, compared as such
                    else:
                        tmp[0] = scores[i] + here
                        cand = tmp[0]
                    if start_at[e] < 0 or cand > total[e]:
                        total[e] = cand
                        start_at[e] = s
                        ids[e] = i
                    if e == s + 1:
                        single = True
                e += 1
            if not single:
                tmp[0] = unk_score + here
                cand = tmp[0]
                if start_at[s + 1] < 0 or cand > total[s + 1]:
                    total[s + 1] = cand
                    start_at[s + 1] = s
                    ids[s + 1] = unk_id
        out: list[tuple[int, int, int]] = []
        e = n
        while e > 0:
            s = start_at[e]
            out.append((s, e, ids[e]))
            e = s
        out.reverse()
        return out

    # ------------------------------------------------------------------ reference
    def nodes(self, text: str) -> list[tuple[int, int, int, float]]:
        """Every node of the lattice, ``(start, end, id, score)``, by start then length (`unk_id`: unknown)."""
        out: list[tuple[int, int, int, float]] = []
        for s in range(len(text)):
            single = False
            for e in range(s + 1, len(text) + 1):
                i = self.table.get(text[s:e])
                if i is None:
                    break
                if i >= 0 and i not in self.unused:
                    out.append((s, e, i, self._piece_score(i)))
                    single = single or e == s + 1
            if not single:
                out.append((s, s + 1, self.unk_id, self.unk_score))
        return out

    def viterbi_reference(self, text: str) -> list[tuple[int, int, int]]:
        """`viterbi` the plain way: all nodes first, then best totals in start order (float32 via struct)."""
        n = len(text)
        best: list[tuple[float, int, int] | None] = [None] * (n + 1)  # (total, start, id) ending at each position
        best[0] = (0.0, -1, -1)
        for s, e, i, score in self.nodes(text):
            here = best[s][0]  # type: ignore[index]
            cand = score + here if i in self.user else f32(score + here)
            if best[e] is None or cand > best[e][0]:  # type: ignore[index]
                best[e] = (f32(cand), s, i)
        out = []
        e = n
        while e > 0:
            _, s, i = best[e]  # type: ignore[misc]
            out.append((s, e, i))
            e = s
        return out[::-1]

    def lattice(self, text: str) -> list[LatticeNode]:
        """Every node with its score and the best total of a path ending with it; the winning path marked."""
        path = set(self.viterbi(text))
        totals = self._totals(text)
        return [LatticeNode(s, e, i, score, score + totals[s] if i in self.user else f32(score + totals[s]),
                            (s, e, i) in path, i == self.unk_id)
                for s, e, i, score in self.nodes(text)]

    def _totals(self, text: str) -> list[float]:
        """The best total of a path ending at each position (float32 values)."""
        totals = [0.0] * (len(text) + 1)
        seen = [False] * (len(text) + 1)
        seen[0] = True
        for s, e, i, score in self.nodes(text):
            cand = score + totals[s] if i in self.user else f32(score + totals[s])
            if not seen[e] or cand > totals[e]:
                totals[e], seen[e] = f32(cand), True
        return totals


def check_scores(pieces: tuple[tuple[str, float, int], ...], source: str) -> None:
    """Refuse a Unigram model with a score that is not a finite number (NaN or infinite): no path could
    be compared with another, and SentencePiece's result would depend on the order of comparisons."""
    for i, (piece, score, kind) in enumerate(pieces):
        if kind in (NORMAL, USER_DEFINED) and not math.isfinite(score):
            raise ValueError(f"{source}: pieces[{i}] {piece!r} has the score {score}; a Unigram model needs finite "
                             "scores (log-probabilities). Re-train or re-export the model")
