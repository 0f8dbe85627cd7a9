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
  the whole normalized text is one lattice.  Words are still memoized, where that
  is provably the same (see `UnigramModel._solve`): no piece crosses a word start,
  and a word whose every choice wins by more than the float32 error at the
  current total comes from the memo; a word with a near-tie is run in float32
  from the library's exact total there;
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

`viterbi` memoizes words and makes the nodes as it goes (a dict of every piece
prefix stands in for the trie: the scan from one start stops at the first prefix
no piece has);
`viterbi_reference` builds the whole lattice first and rounds with `struct`, the
plain version, tested equal.  `lattice` gives every node with its score and
best total, the winning path marked, for the playground to draw.
"""
from __future__ import annotations

import math
import re
import struct
from array import array
from dataclasses import dataclass
from itertools import chain
from typing import Callable

from ...tokenizer.piece_cache import PieceCache
from .model_proto import NORMAL, UNUSED, USER_DEFINED

__all__ = ["UnigramModel", "LatticeNode", "UNK_PENALTY"]

UNK_PENALTY = 10.0  # kUnkPenalty
FLT_MIN = 1.1754943508222875e-38
FLT_MAX = 3.4028234663852886e38
_F32 = struct.Struct("<f")


def _ulp(x: float) -> float:
    """The float32 step between neighbours of magnitude up to `x` (at most twice a value's rounding)."""
    return math.ldexp(1.0, math.frexp(x)[1] - 24) if x > 0 else math.ldexp(1.0, -149)


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
        # Largest node score in magnitude: bounds how far the totals move within one word.
        self.maxabs = max([abs(self.unk_score), *(abs(self._piece_score(i)) for i in self.scores)])
        # Words start at each ``▁``; a piece holding ``▁`` past its first character would cross a word
        # start, and then the text is one lattice (no word memo).
        self._words = None if any("▁" in p[1:] for p in in_trie) else re.compile("▁[^▁]*|[^▁]+")
        self._memo = PieceCache()  # word -> `_solve`'s (path, node scores, smallest gap)
        self._spans = PieceCache()  # (span, start total) -> `_run`'s result: a rerun of a text finds its near-ties

    def _piece_score(self, i: int) -> float:
        """A node's score (float32, as ``Lattice::Node::score``): the piece's, or the user-defined bonus."""
        length = self.user.get(i)
        if length is not None:
            return f32(f32(length * self.max_score) - 0.1)
        return self.scores[i]

    # ------------------------------------------------------------------ fast
    def viterbi(self, text: str, start_total: float = 0.0) -> list[tuple[int, int, int]]:
        """The best path: ``(start, end, id)`` per node, left to right; `unk_id` marks an unknown node
        (one character).  The empty text has no nodes.  `start_total` is BOS's total (0 for a text; the
        tests start from large totals, where float32 rounding is coarse, to stress the word memo)."""
        if self._words is None:
            return self._run(text, 0, len(text), start_total)[0]
        out: list[tuple[int, int, int]] = []
        for pos, entry, path in self._walk(text, start_total):
            out.extend([(pos + s, pos + e, i) for s, e, i in entry[0]] if path is None else path)
        return out

    def ids(self, text: str, unknown: Callable[[str], list[int]]) -> list[int]:
        """The ids of the best path, an unknown node's character as ``unknown(char)`` gives them.  The
        memo keeps a word's ids too, so one model serves one `unknown` (its encoding's)."""
        if self._words is None:
            path = self._run(text, 0, len(text), 0.0)[0]
            return list(chain.from_iterable(unknown(text[s:e]) if i == self.unk_id else (i,) for s, e, i in path))
        out: list[int] = []
        unk_id = self.unk_id
        for pos, entry, path in self._walk(text, 0.0):
            if path is None:
                word_ids = entry[4]
                if word_ids is None:
                    word = text[pos:pos + entry[5]]
                    word_ids = entry[4] = tuple(chain.from_iterable(
                        unknown(word[s:e]) if i == unk_id else (i,) for s, e, i in entry[0]))
                out.extend(word_ids)
            else:
                out.extend(chain.from_iterable(unknown(text[s:e]) if i == unk_id else (i,) for s, e, i in path))
        return out

    def _walk(self, text: str, start_total: float) -> list[tuple[int, list | None, list | None]]:
        """`viterbi` word by word (see `_solve`): ``(offset, memo entry, None)`` for a memoized word,
        ``(offset, None, path)`` for a span run as one float32 lattice."""
        words = self._words.findall(text)  # type: ignore[union-attr]
        memo, spans, maxabs = self._memo, self._spans, self.maxabs
        # The library's totals are float32 sums; `approx` (float64) is within len(text) half-steps of them.
        slack = 1.0 + len(text) * 2.0 ** -23
        approx = start_total
        exact, exact_at = start_total, 0  # the library's total after items[:exact_at], caught up on need
        rnd = array("f", b"\x00\x00\x00\x00")
        items: list[tuple[int, list | None, list | None]] = []
        step, next_pow = 0.0, 0.0
        pos, k, count = 0, 0, len(words)
        while k < count:
            word = words[k]
            entry = memo.get(word)
            if entry is None:
                entry = self._solve(word)
                memo.remember({word: entry})
            size = entry[5]
            bound = abs(approx) * slack + (size + 1) * maxabs
            if bound >= next_pow:  # the float32 step only changes at powers of two
                step, next_pow = _ulp(bound), math.ldexp(1.0, math.frexp(bound)[1])
            if entry[2] > step:
                items.append((pos, entry, None))
                approx += entry[3]
                pos += size
                k += 1
                continue
            # A near-tie: this word, and the next ones while its end is one too, as one lattice from the
            # library's total here.
            for _, done, _ in items[exact_at:]:
                for score in done[1]:  # type: ignore[index]
                    rnd[0] = exact + score
                    exact = rnd[0]
            end, k = pos + size, k + 1
            while True:
                key = (text[pos:end], exact)  # the span's lattice depends on its text and its start total only
                found = spans.get(key)
                if found is None:
                    found = self._run(key[0], 0, end - pos, exact)
                    spans.remember({key: found})
                path, end_total, end_gap = found
                if k >= count or end_gap > 2 * _ulp(abs(end_total) + 2 * maxabs):
                    break
                end += len(words[k])
                k += 1
            if pos:
                path = [(pos + s, pos + e, i) for s, e, i in path]
            items.append((pos, None, path))
            exact = approx = end_total
            exact_at = len(items)
            pos = end
        return items

    def _nodes_from(self, text: str, s: int, n: int):
        """The nodes starting at `s` as ``PopulateNodes`` adds them: ``(end, id, score)``, shortest first,
        the unknown node last where no one-character piece starts there."""
        get, scores, user, unused = self.table.get, self.scores, self.user, self.unused
        single = False
        e = s + 1
        while e <= n:
            i = get(text[s:e])
            if i is None:
                break
            if i >= 0 and i not in unused:
                yield e, i, (self._piece_score(i) if i in user else scores[i])
                single = single or e == s + 1
            e += 1
        if not single:
            yield s + 1, self.unk_id, self.unk_score

    def _solve(self, word: str) -> list:
        """One word's lattice alone, in float64 from total 0, as a memo entry: ``[best path, the path's
        node scores, tolerance, path score, ids (filled by `ids`), length]``.  The tolerance is the
        smallest gap between the best and the next candidate of any choice (a node's predecessor, and the
        best node at the word's end) over ``length + 2``: the float32 step the totals may have for the
        word to be taken from the memo.  (A path has at most `length` nodes, each rounding moves a total
        by at most half a step, so two candidates' error differs by at most ``length`` steps, and reals
        more than one step apart round to distinct floats in the same order.)

        Why a word can be memoized at all: no piece holds ``▁`` past its first character (`_words` is
        None otherwise), so no node crosses the start of a word and every path passes each word start.
        The library's totals are float32 sums from the text's start; from a word start at total T they
        differ from T + (float64 sum) by at most half a float32 step per node.  Where every choice wins
        by more than those errors (`_walk` checks the gap against the step size at T), the
        library makes the same choices as this float64 run, strictly (so its first-of-ties rule never
        applies) — and the best node at the word's end wins strictly, so the next word starts from it
        alone.  Elsewhere `_walk` runs the float32 lattice over the word from the library's T."""
        n = len(word)
        n_start, n_id, n_prev, n_total, n_score = [-1], [-1], [-1], [0.0], [0.0]
        ends: list[list[int]] = [[] for _ in range(n + 1)]
        ends[0].append(0)
        gap = math.inf
        get, scores, user, unused, unk_id, unk_score = (self.table.get, self.scores, self.user, self.unused,
                                                        self.unk_id, self.unk_score)
        for s in range(n):
            here = ends[s]
            nodes = []  # `_nodes_from`, inline: this loop is the memo's cold cost
            e = s + 1
            while e <= n:
                i = get(word[s:e])
                if i is None:
                    break
                if i >= 0 and i not in unused:
                    nodes.append((e, i, self._piece_score(i) if i in user else scores[i]))
                e += 1
            if not nodes or nodes[0][0] != s + 1:
                nodes.append((s + 1, unk_id, unk_score))
            for e, i, score in nodes:
                if len(here) == 1:
                    best = here[0]
                    best_total = n_total[best] + score
                else:
                    best, best_total, second = -1, 0.0, -math.inf
                    for node in here:
                        total = n_total[node] + score
                        if best < 0 or total > best_total:
                            if best >= 0:
                                second = best_total
                            best, best_total = node, total
                        elif total > second:
                            second = total
                    if best_total - second < gap:
                        gap = best_total - second
                n_start.append(s)
                n_id.append(i)
                n_prev.append(best)
                n_total.append(best_total)
                n_score.append(score)
                ends[e].append(len(n_id) - 1)
        best, best_total, second = -1, 0.0, -math.inf
        for node in ends[n]:
            if best < 0 or n_total[node] > best_total:
                if best >= 0:
                    second = best_total
                best, best_total = node, n_total[node]
            elif n_total[node] > second:
                second = n_total[node]
        gap = min(gap, best_total - second)
        path: list[tuple[int, int, int]] = []
        node_scores: list[float] = []
        end = n
        while best > 0:
            path.append((n_start[best], end, n_id[best]))
            node_scores.append(n_score[best])
            end = n_start[best]
            best = n_prev[best]
        return [tuple(path[::-1]), tuple(node_scores[::-1]), gap / (n + 2), math.fsum(node_scores), None, n]

    def _run(self, text: str, lo: int, hi: int, start_total: float) -> tuple[list[tuple[int, int, int]], float, float]:
        """``Lattice::Viterbi`` in float32 over ``text[lo:hi]`` from BOS at `start_total`: the best path
        (offsets in `text`), the best total at `hi`, and by how much it beats the next node ending there."""
        n = hi - lo
        if not n:
            return [], start_total, math.inf
        sub = text[lo:hi]
        rnd = array("f", b"\x00\x00\x00\x00")  # assigning to a float32 array rounds, as C++ ``float``
        # nodes as parallel lists; ends[p]: the nodes ending at p, in the order they were made
        n_start, n_id, n_prev, n_total = [-1], [-1], [-1], [start_total]  # node 0 is BOS
        ends: list[list[int]] = [[] for _ in range(n + 1)]
        ends[0].append(0)
        for s in range(n):
            here = ends[s]
            for e, i, score in self._nodes_from(sub, s, n):
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
        best, best_total, second = -1, 0.0, -math.inf  # EOS (score 0): the first of the best nodes ending at n
        for node in ends[n]:
            if best < 0 or n_total[node] > best_total:
                if best >= 0:
                    second = best_total
                best, best_total = node, n_total[node]
            elif n_total[node] > second:
                second = n_total[node]
        end_gap = best_total - second
        out: list[tuple[int, int, int]] = []
        end = n
        while best > 0:
            out.append((lo + n_start[best], lo + end, n_id[best]))
            end = n_start[best]
            best = n_prev[best]
        out.reverse()
        return out, best_total, end_gap

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

    def _backtrace(self, text: str, start_total: float = 0.0
                   ) -> tuple[list[tuple[int, int, int, float]], list[float], list[int]]:
        """``Lattice::Viterbi``: every node's best total and predecessor (-1: BOS at `start_total`), plus
        EOS's choice last."""
        nodes = self.nodes(text)
        ending: list[list[int]] = [[] for _ in range(len(text) + 1)]
        totals: list[float] = []
        prevs: list[int] = []
        for k, (s, e, _, score) in enumerate(nodes):
            candidates = [(start_total, -1)] if s == 0 else [(totals[j], j) for j in ending[s]]
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

    def viterbi_reference(self, text: str, start_total: float = 0.0) -> list[tuple[int, int, int]]:
        """`viterbi` the plain way: the whole lattice first, then ``Lattice::Viterbi`` over it."""
        if not text:
            return []
        nodes, _, prevs = self._backtrace(text, start_total)
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
