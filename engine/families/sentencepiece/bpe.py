"""SentencePiece's BPE merge loop over Unicode characters, as in ``bpe_model.cc``.

SentencePiece BPE differs from tiktoken's byte-level BPE in three ways:

* the symbols are *characters* of the normalized text (``▁`` for a space),
  not bytes; bytes only appear afterwards, for characters the vocabulary
  lacks (byte fallback, done by the caller);
* a pair of adjacent symbols may merge when their concatenation is a piece
  of the vocabulary, and the pair whose piece has the **highest score** merges
  first (scores are ``-merge order`` in trained models).  Ties go to the
  leftmost pair -- ``bpe_model.cc`` orders its agenda by (score, then the
  smaller left index);
* pieces of type UNUSED may be formed by a merge and are then split back
  ("resegmentation") into the two symbols that made them, recursively --
  at most RESEGMENT_DEPTH levels down: the `sentencepiece` library keeps a
  piece reached deeper as it is (tests/engine/families/test_deep_files.py).

User-defined symbols are cut out by the caller before this loop: they are
frozen in ``bpe_model.cc`` (never merged with a neighbour), so the loop on
the text between them gives the same result.

Three implementations, tested equal:

* `merge_reference` -- the plain loop: find the best pair, merge, repeat;
* `merge_small` -- the same loop with scores of adjacent pairs kept in a
  list (fast for word-sized inputs);
* `merge_heap` -- a transliteration of ``Model::SampleEncode`` (priority queue
  with lazy deletion of stale pairs) for long inputs and for traces; it also
  reproduces the exact order in which ``bpe_model.cc`` records UNUSED pieces
  for resegmentation, so it is the only one used when a model has UNUSED pieces.
"""
from __future__ import annotations

import heapq
from typing import Callable, Mapping

from ... import deadline

NEG = float("-inf")
LONG_SYMBOLS = 96  # symbols; above this `merge_heap` beats `merge_small`
# Splits of one resegmentation, at most: sentencepiece 0.2.3 splits an UNUSED piece reached after 100 splits and
# keeps the one reached after 101 (a chain of UNUSED pieces ``ab``, ``abb`` ... measured against the library).
RESEGMENT_DEPTH = 100


def merge_reference(symbols: list[str], scores: Mapping[str, float]) -> list[str]:
    """The obvious loop: merge the highest-scoring adjacent pair (leftmost on a tie) until none is left."""
    parts = list(symbols)
    while True:
        best, where = NEG, -1
        for i in range(len(parts) - 1):
            score = scores.get(parts[i] + parts[i + 1], NEG)
            if score > best:
                best, where = score, i
        if where < 0:
            return parts
        parts[where : where + 2] = [parts[where] + parts[where + 1]]


def merge_small(symbols: list[str], scores: Mapping[str, float]) -> list[str]:
    """`merge_reference` keeping the score of every adjacent pair in a list (two lookups per merge)."""
    parts = list(symbols)
    get = scores.get
    pair = [get(a + b, NEG) for a, b in zip(parts, parts[1:])]
    while pair:
        best = max(pair)
        if best == NEG:
            break
        i = pair.index(best)  # leftmost of the best
        parts[i] += parts[i + 1]
        del parts[i + 1]
        del pair[i]
        if i < len(pair):
            pair[i] = get(parts[i] + parts[i + 1], NEG)
        if i:
            pair[i - 1] = get(parts[i - 1] + parts[i], NEG)
    return parts


def priorities(scores: Mapping[str, float]) -> dict[str, int]:
    """Scores as integer priorities (0 = highest score; equal scores share one), for `merge_heap`.

    The heap then orders pairs by one integer, ``priority * n + left``, instead of a
    (float, int) tuple: the same order, compared faster.
    """
    distinct = {score: k for k, score in enumerate(sorted(set(scores.values()), reverse=True))}
    return {piece: distinct[score] for piece, score in scores.items()}


def merge_heap(
    symbols: list[str],
    priority: Mapping[str, int],
    *,
    frozen: list[bool] | None = None,
    unused: Callable[[str], bool] | None = None,
    events: list[tuple[int, int, str]] | None = None,
) -> list[str]:
    """``Model::SampleEncode`` (no dropout): a priority queue of pairs, stale entries skipped.

    `priority` is `priorities(scores)`: lower merges first, ties to the left.

    Returns the final symbols after resegmenting UNUSED pieces.  `frozen[i]`
    marks symbols that never merge (user-defined symbols).  When `events` is
    a list, each merge appends ``(left_index, right_index, merged_piece)``,
    indices being positions in `symbols` (a merged symbol keeps its left index).
    """
    n = len(symbols)
    piece = list(symbols)
    prev = list(range(-1, n - 1))
    nxt = list(range(1, n + 1))
    if n:
        nxt[-1] = -1
    freeze = frozen or [False] * n
    rev_merge: dict[str, tuple[str, str]] = {}
    get = priority.get
    push, pop = heapq.heappush, heapq.heappop
    stride = n + 1  # key = priority * stride + left: (score desc, left asc) as one int

    # Initial pairs, then the loop: MaybeAddNewSymbolPair inlined (same pairs, same order of rev_merge updates).
    agenda: list[tuple[int, int, int]] = []
    for i in range(1, n):
        if not (freeze[i - 1] or freeze[i]):
            merged = piece[i - 1] + piece[i]
            rank = get(merged)
            if rank is not None:
                agenda.append((rank * stride + i - 1, i, len(merged)))
                if unused is not None and unused(merged):
                    rev_merge[merged] = (piece[i - 1], piece[i])
    heapq.heapify(agenda)
    limit = deadline.current()  # a chunk can be a whole text without spaces: a caller's time limit
    while agenda:
        if limit is not None:
            limit.check()
        key, right, size = pop(agenda)
        left = key % stride
        a, b = piece[left], piece[right]
        if not a or not b or len(a) + len(b) != size:
            continue  # stale: one side was merged away or grew since this pair was queued
        a = piece[left] = a + b
        piece[right] = ""
        after = nxt[left] = nxt[right]
        if after >= 0:
            prev[after] = left
        if events is not None:
            events.append((left, right, a))
        # maybe_add(prev[left], left) and maybe_add(left, after), inlined: this loop is the hot path
        before = prev[left]
        if before >= 0 and not freeze[before] and not freeze[left]:
            merged = piece[before] + a
            rank = get(merged)
            if rank is not None:
                push(agenda, (rank * stride + before, left, len(merged)))
                if unused is not None and unused(merged):
                    rev_merge[merged] = (piece[before], a)
        if after >= 0 and not freeze[left] and not freeze[after]:
            merged = a + piece[after]
            rank = get(merged)
            if rank is not None:
                push(agenda, (rank * stride + left, after, len(merged)))
                if unused is not None and unused(merged):
                    rev_merge[merged] = (a, piece[after])

    out: list[str] = []

    def resegment(w: str) -> None:
        """bpe_model.cc's recursion, on a stack (a file may chain thousands of UNUSED pieces), as deep as
        sentencepiece goes: a piece reached below RESEGMENT_DEPTH splits is kept as it is."""
        stack = [(w, 0)]
        while stack:
            w, depth = stack.pop()
            split = rev_merge.get(w) if unused is not None and depth <= RESEGMENT_DEPTH and unused(w) else None
            if split is None:
                out.append(w)
            else:
                stack += ((split[1], depth + 1), (split[0], depth + 1))

    i = 0 if n else -1
    while i != -1:
        resegment(piece[i])
        i = nxt[i]
    return out


def merge(symbols: list[str], scores: Mapping[str, float], priority: Callable[[], Mapping[str, int]]) -> list[str]:
    """The fast choice for a model without UNUSED pieces: the list loop, or the heap for long inputs.

    `priority()` returns `priorities(scores)` (built on first need by the caller).
    """
    if len(symbols) <= LONG_SYMBOLS:
        return merge_small(symbols, scores)
    return merge_heap(symbols, priority())
