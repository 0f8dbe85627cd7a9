"""SentencePiece's Unigram segmentation (``unigram_model.cc``: ``Model::EncodeOptimized``), exactly.

A Unigram model gives every piece a score (a log-probability).  Each way of
cutting the normalized text into pieces is a path through a *lattice*; the path
with the highest total score wins.  ``sentencepiece`` 0.2.3's ``encode`` runs
``EncodeOptimized``: one pass from the left keeping ``best[p]``, the best total
of a path ending at position ``p``; at each start ``s`` every piece ``[s, e)``
offers ``best[s] + score`` to ``best[e]``.  The traps, all as that library has them:

* **float32**: totals are C ``float``; each offer is rounded to float32 before
  it is compared, and the first of equal offers stays (starts are visited left
  to right, pieces from one start shortest first, the unknown node last);
* **score reset**: when ``|best[s]|`` passes 100,000 (``kScoreResetThreshold``)
  at the start ``s``, that total is subtracted (in float32) from ``best[s]`` and
  from every ``best[e]`` already set beyond it, so totals stay small and float32
  steps fine (at most 1/128).  Which near-ties go which way depends on where the
  resets fall: the text behaves as one pass, not as separate sentences;
* **unknown**: where no piece of exactly one character starts (UNUSED pieces
  do not count), a one-character unknown node scored ``min(normal scores) - 10``
  is offered.  The caller turns unknown nodes into ``<0xXX>`` byte pieces (byte
  fallback) or joins runs of them into one ``<unk>``;
* **user-defined symbols** score ``float(0.1 * (UTF-8 bytes - 1))``: never
  below a normal piece's log-probability, and longer symbols first;
* control, unknown and byte pieces are never offered; UNUSED pieces are walked
  through but never chosen.

(``sentencepiece`` 0.2.1 ran the same pass without the reset, comparing offers
in float64 and scoring user-defined symbols ``bytes * max score - 0.1``; on long
texts its near-ties differ from 0.2.3's.  This module follows 0.2.3, the
library the tests run.)

**Words.**  When no piece holds ``▁`` past its first character, the text is a
chain of *words* (``▁`` and what follows up to the next ``▁``; when the pieces
that do hold one, such as a user-defined ``▁▁``, have only ``▁`` before it, a
word starts at the first ``▁`` of each run instead), and the pass over
the text is the pass over each word in turn, each from the float32 total where
the previous word ended (proof in `UnigramModel._solve`).  A word's path from
total 0 in float64 is memoized; it is the library's path from any total T
wherever every choice in the word wins by more than float32 rounding can move at
T's magnitude, and no reset falls inside the word.  Other words are run in
float32 from the library's exact total there (kept by `_walk`).

`viterbi` is that fast walk; `viterbi_reference` is the plain whole-text pass
(every node listed first, rounding with `struct`), tested equal.  `lattice`
gives every node with its score and the total it offers, the winning path
marked, for the playground to draw.
"""
from __future__ import annotations

import math
import re
import struct
from array import array
from dataclasses import dataclass
from functools import reduce
from bisect import bisect_right
from itertools import accumulate, chain, compress, repeat
from operator import attrgetter, getitem, iadd, itemgetter, le, not_
from typing import Callable

from ... import deadline
from ...tokenizer.piece_cache import PieceCache
from .model_proto import NORMAL, UNUSED, USER_DEFINED

__all__ = ["UnigramModel", "LatticeNode", "UNK_PENALTY"]

UNK_PENALTY = 10.0  # kUnkPenalty
RESET = 100_000.0  # kScoreResetThreshold: a total past it in magnitude is rebased to 0
FLT_MAX = 3.4028234663852886e38
_F32 = struct.Struct("<f")
# Prefixes of the pieces kept in `UnigramModel.table` (trained pieces have at most 16 characters by default).
PREFIX_CHARS = 16


def _ulp(x: float) -> float:
    """The float32 step between neighbours of magnitude up to `x` (at most twice a value's rounding)."""
    return math.ldexp(1.0, math.frexp(x)[1] - 24) if x > 0 else math.ldexp(1.0, -149)


def f32(x: float) -> float:
    """`x` rounded to the nearest float32 (as a C ``float`` stores it)."""
    return _F32.unpack(_F32.pack(x))[0]


@dataclass(frozen=True)
class LatticeNode:
    """A candidate on the lattice: ``text[start:end]`` as piece `id` (`unknown`: the unknown node), its
    `score` and the `total` it offers (float32 of the best total at `start` plus `score`, after any score
    reset); `best` marks the nodes of the winning path.  Offsets are characters of the normalized text."""

    start: int
    end: int
    id: int
    score: float
    total: float
    best: bool = False
    unknown: bool = False


# A memo entry: a word's path from total 0 and what the walk needs to take it from the memo.
PATH, SCORES, ROOM, SUM, IDS, SIZE, WORD, FALL, RISE, MOVE, STEPS = range(11)
_ROOM, _IDS, _MOVE, _STEPS = map(itemgetter, (ROOM, IDS, MOVE, STEPS))
_REAL, _IMAG = attrgetter("real"), attrgetter("imag")
# Half the float32 step below 2**17 > RESET (one rounding's largest error there), plus far more than
# float64's own rounding adds to `approx` per word.
_EPS = math.ldexp(1.0, -8) + math.ldexp(1.0, -24)
_BINADES_UP_TO = math.ldexp(1.0, 17)  # totals below it round by at most `_EPS`
_STRETCH = 4096  # words walked with one set of running sums (`UnigramModel._stretch`)
_HEAVY = math.ldexp(1.0, 24)  # a stretch's words weigh less (their FALL + RISE), or it is halved


def fold(total: float, scores) -> float:
    """`total` plus each of `scores` in turn, rounded to float32 each time (C++ ``float`` arithmetic)."""
    rnd = array("f", b"\x00\x00\x00\x00")
    for score in scores:
        rnd[0] = total + score
        total = rnd[0]
    return total


_HALF = "half"  # `_integer_steps` of a word holding an exact half-step


def _integer_steps(scores, q: float) -> int | str:
    """``sum(round(score / q))`` for `scores` (exact: q is a power of two), or `_HALF` if one of them is an
    exact half-multiple of q (its rounding would depend on the total it is added to)."""
    out = 0
    for score in scores:
        v = score / q
        r = round(v)
        if abs(v - r) == 0.5:
            return _HALF
        out += r
    return out


class UnigramModel:
    """The lattice side of a SentencePiece Unigram model: pieces, node scores, the prefix table, the memo."""

    def __init__(self, pieces: tuple[tuple[str, float, int], ...], unk_id: int) -> None:
        self.unk_id = unk_id
        normal = [score for _, score, kind in pieces if kind == NORMAL]
        self.min_score = min(normal, default=FLT_MAX)
        self.unk_score = f32(self.min_score - UNK_PENALTY)
        # Node scores (float32) of the pieces offered: normal ones and user-defined symbols
        # (``GetUserDefinedScore``; ``EncodeOptimized`` passes the length in UTF-8 bytes).
        self.node_scores: dict[int, float] = {}
        self.user: set[int] = set()
        in_trie: dict[str, int] = {}
        for i, (piece, score, kind) in enumerate(pieces):
            if kind not in (NORMAL, USER_DEFINED, UNUSED):
                continue
            in_trie.setdefault(piece, i)  # the first of duplicates, as model_interface.cc keeps it
            if kind == USER_DEFINED:
                self.user.add(i)
                self.node_scores[i] = f32(0.1 * (len(piece.encode("utf-8")) - 1))
            elif kind == NORMAL:
                self.node_scores[i] = score
        # text -> id of an offered piece; -1 for a proper prefix of a piece (up to PREFIX_CHARS characters) or
        # an UNUSED piece (the scan walks on through both, as through the trie, and offers neither).
        # Prefixes past PREFIX_CHARS are not kept: every prefix of a 256-character piece would hold 32,000
        # characters, the table would grow with the square of the pieces' length.  A scan that walks past
        # PREFIX_CHARS walks on to `longest`'s length for its first PREFIX_CHARS characters instead.
        table = dict.fromkeys({p[:k] for p in in_trie for k in range(1, min(len(p), PREFIX_CHARS + 1))}, -1)
        table.update({p: (i if i in self.node_scores else -1) for p, i in in_trie.items()})
        self.table = table
        self.longest: dict[str, int] = {}  # the first PREFIX_CHARS characters of a longer piece -> the longest one's length
        for p in in_trie:
            if len(p) > PREFIX_CHARS and len(p) > self.longest.get(p[:PREFIX_CHARS], 0):
                self.longest[p[:PREFIX_CHARS]] = len(p)
        # Largest node score in magnitude: bounds how far totals move within one word.
        self.maxabs = max([abs(self.unk_score), *map(abs, self.node_scores.values())])
        # Words start at a ``▁`` no piece can cross.  A piece crossing position b holds text[b] = ``▁``
        # past its first character, right after text[b-1]; so with no such piece every ``▁`` starts a word,
        # and when only ``▁`` comes before those (``▁▁``), every ``▁`` after another character does.
        # Otherwise the text is one pass (no word memo).
        before = {p[j - 1] for p in in_trie for j in range(1, len(p)) if p[j] == "▁"}
        self._words = (re.compile("▁[^▁]*|[^▁]+") if not before else
                       re.compile("▁+[^▁]*|[^▁]+") if before == {"▁"} else None)
        # Where every ``▁`` starts a word, a text that starts with one is cut by ``str.split`` (no regex
        # step per word) and its words are looked up by what follows their ``▁``.
        self._split = not before
        self._memo = PieceCache()  # word -> `_solve`'s entry
        self._tails = PieceCache()  # what follows a word's ``▁`` -> `_solve`'s entry of the word
        self._spans = PieceCache()  # (word, exact start total) -> `_relax` of it: a rerun finds its near-ties

    def clear(self) -> None:
        """Forget every memoized word (to measure cold speed)."""
        self._memo.clear()
        self._tails.clear()
        self._spans.clear()

    # ------------------------------------------------------------------ fast
    def viterbi(self, text: str, start_total: float = 0.0) -> list[tuple[int, int, int]]:
        """The best path: ``(start, end, id)`` per node, left to right; `unk_id` marks an unknown node
        (one character).  The empty text has no nodes.  `start_total` is the total before the text (0 for
        a text; the tests start from totals near the reset threshold, where float32 steps are coarse)."""
        if self._words is None:
            return self._relax(text, start_total)[0]
        out: list[tuple[int, int, int]] = []
        pos = 0
        for item in self._walk(text, start_total):
            out.extend([(pos + s, pos + e, i) for s, e, i in item[PATH]])
            pos += item[SIZE]
        return out

    def ids(self, text: str, unknown: Callable[[str], list[int]],
            join: Callable[[list[int]], list[int]] | None = None) -> list[int]:
        """The ids of the best path, an unknown node's character as ``unknown(char)`` gives them, then
        `join` (if given) over them: the caller's rule for runs of unknown ids.  The memo keeps a word's
        ids too, so one model serves one `unknown` and one `join` (its encoding's).

        `join` runs on each word's ids alone where the model offers ``▁`` by itself: then every word
        after the first starts with a known node, so no run of unknown nodes spans two words."""
        unk_id = self.unk_id
        if self._words is None:
            path = self._relax(text, 0.0)[0]
            out = list(chain.from_iterable(unknown(text[s:e]) if i == unk_id else (i,) for s, e, i in path))
            return join(out) if join is not None else out
        per_word = join is not None and self.table.get("▁", -1) >= 0
        items = self._walk(text, 0.0)
        try:  # every word's ids known: ``list += tuple`` extends in C, one call a word (None raises)
            out = reduce(iadd, map(_IDS, items), [])
        except TypeError:
            for item in items:
                if item[IDS] is None:
                    word = item[WORD]
                    word_ids = list(chain.from_iterable(
                        unknown(word[s:e]) if i == unk_id else (i,) for s, e, i in item[PATH]))
                    item[IDS] = tuple(join(word_ids) if per_word else word_ids)  # type: ignore[misc]
            out = reduce(iadd, map(_IDS, items), [])
        return join(out) if join is not None and not per_word else out

    def _walk(self, text: str, start_total: float) -> list[list]:
        """`viterbi` word by word: one item per word, a memo entry (`_solve`) where the memo is provably
        the library's path, else the word's float32 pass from the library's exact total there."""
        return self._walk_to_end(text, start_total, False)[0]

    def _walk_to_end(self, text: str, start_total: float, catch_up: bool) -> tuple[list[list], float]:
        """`_walk`'s items and, if `catch_up`, the library's total after the text (its float32 pass's,
        `_relax`'s second value: tested equal).  The words go in stretches of at most `_STRETCH`
        (`_stretch`), the exact total caught up between them."""
        if self._split and text.startswith("▁"):
            memo, keys, solve = self._tails, text.split("▁"), self._solve_tail
            del keys[0]  # the empty text before the first ``▁``
        else:
            memo, keys, solve = self._memo, self._words.findall(text), self._solve  # type: ignore[union-attr]
        entries = list(map(memo.get, keys))
        if None in entries:
            new = {w: solve(w) for w in set(compress(keys, map(not_, entries)))}
            memo.remember(new)
            entries = list(map(new.get, keys, entries))
        items = list(entries)
        total, start, count = start_total, 0, len(entries)
        while start < count:
            stop = min(count, start + _STRETCH)
            while True:
                end_total = self._stretch(items, start, stop, total, catch_up or stop < count)
                if end_total is not None:
                    break
                stop = start + (stop - start) // 2  # words too heavy for one stretch's float64 sums
            total, start = end_total, stop
        return items, total

    def _stretch(self, items: list[list], start: int, stop: int, total: float, catch_up: bool) -> float | None:
        """Walk ``items[start:stop]`` (memo entries) from the library's exact `total`, putting a word's
        float32 pass in place of each entry the memo cannot be trusted for; the exact total after them
        if `catch_up` (else the total as it is).  None if the stretch's words weigh `_HEAVY` or more.

        The running sum of the words' `MOVE` (``complex(FALL, RISE)``: one sum keeps both, in float64,
        from 0 at `start`) gives the rest: a word's path score is its `RISE` minus its `FALL` (each
        holds ``length * _EPS``), and its `RISE` is at least ``length * _EPS``.  Let `exact` be the
        library's total before word `exact_at` and ``fall + rise*1j = moves[j] - moves[exact_at]``:
        ``approx = exact + rise - fall`` follows the library's total before word j; each node since
        `exact_at` rounds it by at most `_EPS` and a word has at most as many nodes as characters, so
        `rise` bounds how far the two can be apart.  A memo entry is taken when the total's magnitude, so bounded, stays
        below its `ROOM` (see `_solve`); otherwise the exact total is caught up (`_catch_up_run`:
        float32 along the memoized paths, where no reset falls) and the word is run.  Words are checked
        a block at a time: `bound` is the largest that magnitude can get in the block while its words
        follow their memoized paths (each moves it by at most its `FALL` plus its `RISE`), and only
        the words whose `ROOM` is below it are checked one by one; the rest are taken as they are.
        After a word is run, the next block starts right after it.

        With the stretch's words weighing below ``_HEAVY = 2**24`` in all, every float64 value here is
        below 2**24 in magnitude and each operation on it rounds by at most 2**-29: ``approx`` and
        `rise` are off by far less than the 2**-24 a node that `_EPS` (and so `FALL` and `RISE`)
        holds beyond the library's own rounding.  A heavier word is a stretch alone: its sums are its
        own `FALL` and `RISE`, whose roundings are as small next to its length."""
        part = items[start:stop]
        moves = list(accumulate(map(_MOVE, part), initial=0j))
        if moves[-1].real + moves[-1].imag >= _HEAVY and len(part) > 1:
            return None
        spans = self._spans
        exact, exact_at = total, 0
        i, n, block = 0, len(part), 64
        while i < n:
            end = min(n, i + block)
            moved, ahead = moves[i] - moves[exact_at], moves[end] - moves[i]
            bound = abs(exact + moved.imag - moved.real) + moved.imag + ahead.real + ahead.imag
            risky = list(compress(range(i, end), map(le, map(_ROOM, part[i:end]), repeat(bound))))
            block = 64 if risky else min(2 * block, 1024)
            for j in risky:
                moved = moves[j] - moves[exact_at]
                if abs(exact + moved.imag - moved.real) + moved.imag < part[j][ROOM]:
                    continue
                exact = self._catch_up_run(exact, part, moves, exact_at, j)
                word = part[j][WORD]
                key = (word, exact)  # a word's pass depends on its text and its start total only
                found = spans.get(key)
                if found is None:
                    path, end_total = self._relax(word, exact)
                    found = [path, (), -math.inf, end_total, None, len(word), word, 0.0, 0.0, 0j, {}]
                    spans.remember({key: found})
                items[start + j] = found
                exact, exact_at = found[SUM], j + 1
                i = j + 1
                break  # `bound` holds along memoized paths only: bound the rest from here
            else:
                i = end
        if catch_up:
            exact = self._catch_up_run(exact, part, moves, exact_at, n)
        return exact

    def _catch_up(self, total: float, entries: list[list]) -> float:
        """The library's float32 total after the memoized `entries` from `total` (no reset falls inside
        them, and they weigh below `_HEAVY`): `_catch_up_run` over all of them.  `fold` is the plain
        way, node by node."""
        moves = list(accumulate(map(_MOVE, entries), initial=0j))
        return self._catch_up_run(total, entries, moves, 0, len(entries))

    def _catch_up_run(self, total: float, entries: list[list], moves: list[complex], i: int, n: int) -> float:
        """The library's float32 total after ``entries[i:n]`` from `total`; `moves` is the running sum
        of the entries' `MOVE` (``complex(FALL, RISE)``, from 0 before ``entries[0]``).

        Faster than node by node where the totals stay in one binade: float32 numbers of magnitude in
        ``[2**k, 2**(k+1)]`` are the multiples of ``q = 2**(k-23)``, so from a total ``T = m*q`` a node
        adds exactly ``q * round(score / q)`` (round to nearest; an exact half would round to even and
        depend on m, so a word with one is folded node by node).  While every total of a run of words
        stays in that binade, the run adds ``q`` times the sum of its words' integers, kept in each
        word's entry (`STEPS`: binade k -> integer).  Each node moves the total by its score and a rounding of at most `_EPS` (``q / 2``
        for k < 17), so over a run the total falls by at most the run's `FALL` and rises by at most its
        `RISE`: the run stays in the binade when the falls fit between the total and the binade's lower
        end, the rises between it and the upper end (the other way round for a negative total).  Scores
        of normal pieces are log-probabilities, never above 0: a run's rises are only its roundings, and
        a binade takes a few runs, not one per doubling of the distance to its edges."""
        while i < n:
            a = abs(total)
            if 1.0 <= a < _BINADES_UP_TO:
                k = math.frexp(a)[1] - 1  # a in [2**k, 2**(k+1))
                below, above = a - math.ldexp(1.0, k), math.ldexp(1.0, k + 1) - a  # room in magnitude
                down, up = (above, below) if total < 0 else (below, above)  # room below and above the total
                j = min(bisect_right(moves, moves[i].real + down, i, n + 1, key=_REAL),
                        bisect_right(moves, moves[i].imag + up, i, n + 1, key=_IMAG)) - 1
                if j > i:
                    try:  # every word's integer known and none a half (a str: the sum raises): one pass
                        total += math.ldexp(sum(map(getitem, map(_STEPS, entries[i:j]), repeat(k))), k - 23)
                        i = j
                        continue
                    except (KeyError, TypeError):
                        run = list(map(_STEPS, entries[i:j]))
                    q = math.ldexp(1.0, k - 23)
                    for t, steps in enumerate(run):
                        if k not in steps:
                            steps[k] = _integer_steps(entries[i + t][SCORES], q)
                    ns = list(map(getitem, run, repeat(k)))
                    if _HALF in ns:  # a word with an exact half: up to it here, itself node by node
                        j = i + ns.index(_HALF)
                        ns = ns[: j - i]
                    total += math.ldexp(sum(ns), k - 23)
                    i = j
                    if i == n:
                        break
                    if ns:
                        continue
            total = fold(total, entries[i][SCORES])
            i += 1
        return total

    def _solve_tail(self, tail: str) -> list:
        """`_solve` of the word ``"▁" + tail``."""
        return self._solve("▁" + tail)

    def _solve(self, word: str) -> list:
        """One word's pass alone, in float64 from total 0, as a memo entry: ``[path, the path's node
        scores, ROOM, path score, ids (filled by `ids`), length, word, FALL, RISE, MOVE (both as one
        complex number), STEPS (filled by `_catch_up_run`)]``.

        Why the text is a chain of words: no piece can cross a word start (`_words` is None otherwise:
        see its comment) and unknown nodes are one character, so a node ``[s, e)`` with ``s < b < e`` for
        a word start ``b`` cannot exist: ``best[e]`` for ``e > b`` is made from ``best[p]``, ``p >= b``
        only, and a reset at ``p >= b`` touches only ``best[p:]``.  So the pass from ``b`` on is the pass
        over the rest of the text from the one float32 number ``best[b]``.

        Why a word can come from the memo: let T be the library's total at the word's start and g the
        smallest margin, in this float64 run, between the best offer at a position and the next one
        (over every position of the word, not only the path's).  Each float32 rounding moves a total by
        at most half a step, and a total at position p has gone through at most p roundings, so every
        library offer is within ``(length + 1)`` half-steps of T plus this run's offer.  If
        ``g > (length + 2) * step``, every position keeps this run's winner strictly (so the library's
        first-of-equals rule never applies): the library's path is this path.  The step is the float32
        spacing at the largest magnitude a total can reach in the word, ``|T| + (length + 1) * maxabs``,
        and no reset falls inside while that stays at most `RESET`.  `ROOM` is the largest ``|T|`` (plus
        the walk's bound on its error) for which both hold."""
        n = len(word)
        get, node_scores, unk_id, unk_score = self.table.get, self.node_scores, self.unk_id, self.unk_score
        longest = self.longest.get
        best = [0.0] * (n + 1)
        second = [-math.inf] * (n + 1)
        frm = [-1] * (n + 1)
        ids = [0] * (n + 1)
        frm[0] = 0
        limit = deadline.current()  # a file's pieces make each position cost up to their length: a caller's limit
        for s in range(n):  # the offers as `nodes` lists them, inline: this loop is the memo's cold cost
            if limit is not None:
                limit.check()
            here = best[s]
            single = False
            e = s + 1
            while e <= n:
                i = get(word[s:e])
                if i is None:
                    if e - s <= PREFIX_CHARS or e - s > longest(word[s:s + PREFIX_CHARS], 0):
                        break
                    i = -1  # past the prefixes kept, short of the longest piece that starts so: walk on
                if i >= 0:
                    c = here + node_scores[i]
                    if frm[e] < 0:
                        best[e], frm[e], ids[e] = c, s, i
                    elif c > best[e]:
                        second[e] = best[e]
                        best[e], frm[e], ids[e] = c, s, i
                    elif c > second[e]:
                        second[e] = c
                    if e == s + 1:
                        single = True
                e += 1
            if not single:
                c = here + unk_score
                e = s + 1
                if frm[e] < 0:
                    best[e], frm[e], ids[e] = c, s, unk_id
                elif c > best[e]:
                    second[e] = best[e]
                    best[e], frm[e], ids[e] = c, s, unk_id
                elif c > second[e]:
                    second[e] = c
        gap = min(map(float.__sub__, best, second))
        path: list[tuple[int, int, int]] = []
        scores: list[float] = []
        e = n
        while e > 0:
            s = frm[e]
            path.append((s, e, ids[e]))
            scores.append(unk_score if ids[e] == unk_id else node_scores[ids[e]])
            e = s
        path.reverse()
        scores.reverse()
        tolerance = gap / (n + 2)
        room = -math.inf
        if tolerance > 0:
            # the largest power of two 2**k whose float32 step below it (2**(k-24)) is under the tolerance
            k = math.frexp(tolerance)[1] + 23
            if math.ldexp(1.0, k - 24) >= tolerance:
                k -= 1
            room = min(math.ldexp(1.0, min(k, 1000)), RESET) - (n + 1) * self.maxabs
        # FALL and RISE: how far the total can fall and rise over this word, each with the roundings' bound
        fall = -sum([x for x in scores if x < 0]) + n * _EPS
        rise = sum([x for x in scores if x > 0]) + n * _EPS
        return [tuple(path), tuple(scores), room, sum(scores), None, n, word, fall, rise, complex(fall, rise), {}]

    def _relax(self, text: str, start_total: float) -> tuple[list[tuple[int, int, int]], float]:
        """``EncodeOptimized`` in float32 over `text` from the total `start_total`: the best path and the
        best total at the end (after the resets on the way)."""
        n = len(text)
        if not n:
            return [], start_total
        get, scores, unk_id, unk_score = self.table.get, self.node_scores, self.unk_id, self.unk_score
        longest = self.longest.get
        rnd = array("f", b"\x00\x00\x00\x00")  # assigning to a float32 array rounds, as C++ ``float``
        best = [0.0] * (n + 1)
        best[0] = start_total
        frm = [-1] * (n + 1)
        frm[0] = 0
        ids = [0] * (n + 1)
        frontier = 0
        limit = deadline.current()  # as in `_solve`
        for s in range(n):
            if limit is not None:
                limit.check()
            here = best[s]
            if here < -RESET or here > RESET:  # rebase every total set from here on
                for p in range(s, frontier + 1):
                    if frm[p] >= 0:
                        rnd[0] = best[p] - here
                        best[p] = rnd[0]
                here = 0.0
            single = False
            e = s + 1
            while e <= n:
                i = get(text[s:e])
                if i is None:
                    if e - s <= PREFIX_CHARS or e - s > longest(text[s:s + PREFIX_CHARS], 0):
                        break
                    i = -1  # past the prefixes kept, short of the longest piece that starts so: walk on
                if i >= 0:
                    rnd[0] = scores[i] + here
                    c = rnd[0]
                    if frm[e] < 0 or c > best[e]:
                        best[e], frm[e], ids[e] = c, s, i
                    if e == s + 1:
                        single = True
                    if e > frontier:
                        frontier = e
                e += 1
            if not single:
                rnd[0] = unk_score + here
                c = rnd[0]
                e = s + 1
                if frm[e] < 0 or c > best[e]:
                    best[e], frm[e], ids[e] = c, s, unk_id
                if e > frontier:
                    frontier = e
        out: list[tuple[int, int, int]] = []
        e = n
        while e > 0:
            s = frm[e]
            out.append((s, e, ids[e]))
            e = s
        out.reverse()
        return out, best[n]

    # ------------------------------------------------------------------ reference
    def nodes(self, text: str) -> list[tuple[int, int, int, float]]:
        """Every node of the lattice, ``(start, end, id, score)``, in the order ``EncodeOptimized`` offers
        them: by start, shortest first, the unknown node last (`unk_id`)."""
        out: list[tuple[int, int, int, float]] = []
        for s in range(len(text)):
            single = False
            for e in range(s + 1, len(text) + 1):
                i = self.table.get(text[s:e])
                if i is None:
                    if e - s <= PREFIX_CHARS or e - s > self.longest.get(text[s:s + PREFIX_CHARS], 0):
                        break
                    continue  # past the prefixes kept, short of the longest piece that starts so
                if i >= 0:
                    out.append((s, e, i, self.node_scores[i]))
                    single = single or e == s + 1
            if not single:
                out.append((s, s + 1, self.unk_id, self.unk_score))
        return out

    def _pass(self, text: str, start_total: float = 0.0
              ) -> tuple[list[tuple[int, int, int, float]], list[float], list[tuple[float, int, int] | None]]:
        """``EncodeOptimized`` the plain way over the whole text: every node, the total each one offers,
        and per position the best ``(total, start, id)``."""
        nodes = self.nodes(text)
        best: list[tuple[float, int, int] | None] = [None] * (len(text) + 1)
        best[0] = (start_total, -1, -1)
        offered: list[float] = []
        k = 0
        for s in range(len(text)):
            here = best[s][0]  # type: ignore[index]  # every position is reached: unknown nodes fill gaps
            if abs(here) > RESET:
                for p in range(s, len(text) + 1):
                    if best[p] is not None:
                        total, start, i = best[p]  # type: ignore[misc]
                        best[p] = (f32(total - here), start, i)
                here = best[s][0]  # type: ignore[index]
            while k < len(nodes) and nodes[k][0] == s:
                _, e, i, score = nodes[k]
                k += 1
                total = f32(score + here)
                offered.append(total)
                if best[e] is None or total > best[e][0]:  # type: ignore[index]
                    best[e] = (total, s, i)
        return nodes, offered, best

    def viterbi_reference(self, text: str, start_total: float = 0.0) -> list[tuple[int, int, int]]:
        """`viterbi` the plain way: the whole lattice first, then ``EncodeOptimized``'s pass over it."""
        if not text:
            return []
        _, _, best = self._pass(text, start_total)
        out = []
        e = len(text)
        while e > 0:
            _, s, i = best[e]  # type: ignore[misc]
            out.append((s, e, i))
            e = s
        return out[::-1]

    def lattice(self, text: str) -> list[LatticeNode]:
        """Every node with its score and the total it offers; the winning path marked."""
        if not text:
            return []
        nodes, offered, _ = self._pass(text)
        path = set(self.viterbi(text))
        return [LatticeNode(s, e, i, score, offered[k], (s, e, i) in path, i == self.unk_id)
                for k, (s, e, i, score) in enumerate(nodes)]
