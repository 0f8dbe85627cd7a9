"""SentencePiece's Unigram segmentation (``unigram_model.cc``: ``Lattice::Viterbi``), exactly.

A Unigram model gives every piece a score (a log-probability).  Each way of
cutting the normalized text into pieces is a path through a *lattice*; the path
with the highest total score wins.  Viterbi finds it in one pass from the left:
every node (a piece at a position) takes as its predecessor the best of the
nodes that end where it starts.  The traps, all as the tested ``sentencepiece``
has them:

* **float32 totals**: a node's total is ``float(predecessor total + its score)``,
  rounded to float32 for *each* candidate predecessor before they are compared.
  Long texts make totals large and the rounding coarse (near -400,000 a float32
  step is 1/32), so the winner of a near-tie depends on every earlier rounding:
  the whole normalized text is one lattice, never cut into words;
* **ties** keep the first candidate: predecessors in the order they were added
  (by start position, then shortest first), replaced only by a strictly higher
  total; the winning path is read back from the end.  (This is not the same as
  ``EncodeOptimized``'s forward relaxation in float64 or float32: on runs like
  ``ZZZZ...`` and on a 185k-character book only this order matches the library);
* **unknown**: where no piece of exactly one character starts (UNUSED pieces
  do not count), a one-character unknown node scored ``min(normal scores) - 10``
  is added, so every text has a path.  The caller turns unknown nodes into
  ``<0xXX>`` byte pieces (byte fallback) or joins runs of them into one ``<unk>``;
* **user-defined symbols** are in the lattice with the score
  ``bytes * max(normal scores) - 0.1``, high enough that they always win
  (``max`` starts from ``FLT_MIN``, the smallest positive float, so for all-negative
  scores the bonus is about ``-0.1``);
* control, unknown and byte pieces are never in the lattice; UNUSED pieces are
  walked through but never chosen.

Known difference: on one 185k-character English text, past 115k characters
(totals near -430,000) a near-tie goes ``k|est`` here and ``ke|st`` in
``sentencepiece`` 0.2.3; float64 totals fix that text but break runs like
``ZZZZ...``, which float32 matches.  Every other test text agrees.

`viterbi` makes the nodes as it goes (a dict of every piece prefix stands in for
the trie: the scan from one start stops at the first prefix no piece has);
`viterbi_reference` builds the whole lattice first and rounds with `struct`, the
plain version, tested equal.  `lattice` gives every node with its score and
best total, the winning path marked, for the playground to draw.
"""
from __future__ import annotations

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
        self.scores: dict[int, float] = {}
        self.user: dict[int, int] = {}  # user-defined id -> its length in UTF-8 bytes
        self.unused: set[int] = set()
        in_trie: dict[str, int] = {}
        for i, (piece, score, kind) in enumerate(pieces):
            if kind not in (NORMAL, USER_DEFINED, UNUSED):
                continue
            in_trie.setdefault(piece, i)  # the first of duplicates, as model_interface.cc keeps it
            self.scores[i] = score
            if kind == USER_DEFINED:
                self.user[i] = len(piece.encode("utf-8"))
            elif kind == UNUSED:
                self.unused.add(i)
        table = dict.fromkeys({p[:k] for p in in_trie for k in range(1, len(p))}, -1)
        table.update(in_trie)
        self.table = table

    def _piece_score(self, i: int) -> float:
        """A node's score (float32, as ``Lattice::Node::score``): the piece's, or the user-defined bonus."""
        length = self.user.get(i)
        if length is not None:
            return f32(f32(length * self.max_score) - 0.1)
        return self.scores[i]

    # ------------------------------------------------------------------ fast
    def viterbi(self, text: str) -> list[tuple[int, int, int]]:
        """The best path: ``(start, end, id)`` per node, left to right; `unk_id` marks an unknown node
        (one character).  The empty text has no nodes."""
        n = len(text)
        if not n:
            return []
        get, scores, user, unused = self.table.get, self.scores, self.user, self.unused
        unk_id, unk_score = self.unk_id, self.unk_score
        rnd = array("f", b"\x00\x00\x00\x00")  # assigning to a float32 array rounds, as C++ ``float``
        # nodes as parallel lists; ends[p]: the nodes ending at p, in the order they were made
        n_start, n_id, n_prev, n_total = [-1], [-1], [-1], [0.0]  # node 0 is BOS
        ends: list[list[int]] = [[] for _ in range(n + 1)]
        ends[0].append(0)
        for s in range(n):
            here = ends[s]
            single = False
            e = s + 1
            while True:
                i = get(text[s:e]) if e <= n else None
                if i is None:
                    if single:
                        break
                    i, e, single = unk_id, s + 1, True  # the unknown node: after the pieces from s
                    score = unk_score
                elif i < 0 or i in unused:
                    e += 1
                    continue
                else:
                    score = self._piece_score(i) if i in user else scores[i]
                    single = single or e == s + 1
                best, best_total = -1, 0.0
                for node in here:
                    rnd[0] = n_total[node] + score
                    total = rnd[0]
                    if best < 0 or total > best_total:
                        best, best_total = node, total
                n_start.append(s)
                n_id.append(i)
                n_prev.append(best)
                n_total.append(best_total)
                ends[e].append(len(n_id) - 1)
                if i == unk_id and e == s + 1 and score is unk_score:
                    break
                e += 1
        best, best_total = -1, 0.0  # EOS (score 0): the first of the best nodes ending at n
        for node in ends[n]:
            if best < 0 or n_total[node] > best_total:
                best, best_total = node, n_total[node]
        out: list[tuple[int, int, int]] = []
        end = n
        while best > 0:
            out.append((n_start[best], end, n_id[best]))
            end = n_start[best]
            best = n_prev[best]
        out.reverse()
        return out

    # ------------------------------------------------------------------ reference
    def nodes(self, text: str) -> list[tuple[int, int, int, float]]:
        """Every node of the lattice, ``(start, end, id, score)``, in the order ``PopulateNodes`` adds them:
        by start, shortest first, the unknown node last (`unk_id`)."""
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

    def _backtrace(self, text: str) -> tuple[list[tuple[int, int, int, float]], list[float], list[int]]:
        """``Lattice::Viterbi``: every node's best total and predecessor (-1: BOS), plus EOS's choice last."""
        nodes = self.nodes(text)
        ending: list[list[int]] = [[] for _ in range(len(text) + 1)]
        totals: list[float] = []
        prevs: list[int] = []
        for k, (s, e, _, score) in enumerate(nodes):
            candidates = [(0.0, -1)] if s == 0 else [(totals[j], j) for j in ending[s]]
            best = None
            for total, j in candidates:
                t = f32(total + score)
                if best is None or t > best[0]:
                    best = (t, j)
            assert best is not None  # every position is reached: unknown nodes fill the gaps
            totals.append(best[0])
            prevs.append(best[1])
            ending[e].append(k)
        last = None
        for j in ending[len(text)]:
            if last is None or totals[j] > totals[last]:
                last = j
        prevs.append(-1 if last is None else last)
        return nodes, totals, prevs

    def viterbi_reference(self, text: str) -> list[tuple[int, int, int]]:
        """`viterbi` the plain way: the whole lattice first, then ``Lattice::Viterbi`` over it."""
        if not text:
            return []
        nodes, _, prevs = self._backtrace(text)
        out = []
        k = prevs[-1]
        while k >= 0:
            s, e, i, _ = nodes[k]
            out.append((s, e, i))
            k = prevs[k]
        return out[::-1]

    def lattice(self, text: str) -> list[LatticeNode]:
        """Every node with its score and the best total of a path ending with it; the winning path marked."""
        if not text:
            return []
        nodes, totals, _ = self._backtrace(text)
        path = set(self.viterbi(text))
        return [LatticeNode(s, e, i, score, totals[k], (s, e, i) in path, i == self.unk_id)
                for k, (s, e, i, score) in enumerate(nodes)]
