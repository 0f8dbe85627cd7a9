"""The BPE merge loop: turn one pre-tokenized piece into token ids.

The rule (tiktoken's `byte_pair_merge`): start from single bytes; while some
adjacent pair of parts concatenates to a known token, merge the pair with the
*lowest rank*, the *leftmost* one on a tie; stop when no pair is mergeable.

Three implementations, which the tests check agree:

* `merge_small` -- the hot path for ordinary pieces. It keeps a list of the
  rank of every adjacent pair and updates only the two neighbours of a merge,
  so each step is one C-speed `min` over a short list.  Quadratic in the piece
  length, which is fine below `LONG_PIECE` bytes.
* `merge_heap` -- for long pieces (a 100 kB run of one character, a base64
  blob): a heap of candidate pairs keyed by (rank, position) over a doubly
  linked list, with stale entries skipped.  O(n log n).  It can also record
  every merge, which is what `bpe_trace` shows.
* `merge_reference` -- the obvious version: rescan every pair each step.  Slow,
  only for tests.

Both built-in rank files and trained tokenizers fit one abstraction: a part is
a token, and `pair_rank(a, b)` says whether two adjacent parts merge and with
which rank.  With tiktoken's ranks a part is its bytes and the rank is that of
``a + b``; with minbpe's merges a part is its id and the rank is the id that
``merges[(a, b)]`` creates.  Either way the rank *is* the id of the new token.
"""
from __future__ import annotations

import heapq
from itertools import repeat
from operator import add
from typing import Callable, Hashable, Sequence

from .. import deadline

INF = 1 << 62
LONG_PIECE = 256  # bytes; above this `merge_heap` is faster than `merge_small`

_SINGLE_BYTES = tuple(bytes([b]) for b in range(256))
PairRank = Callable[[Hashable, Hashable], "int | None"]
Combine = Callable[[Hashable, Hashable], Hashable]
Event = tuple[int, int, int]  # (left node, right node, rank): node = byte offset where the part starts


def merge_small(piece: bytes, ranks: dict[bytes, int]) -> list[int]:
    """Ids for one piece (tiktoken ranks). Fast for short pieces."""
    return [ranks[p] for p in merge_bytes(piece, ranks)]


def merge_pairs_small(ids: Sequence[int], merges: dict[tuple[int, int], int]) -> list[int]:
    """Ids for one piece under minbpe's merges (pair of ids -> new id). Fast for short pieces."""
    get = merges.get
    parts = list(ids)
    pair_ranks = [get((parts[i], parts[i + 1]), INF) for i in range(len(parts) - 1)]
    while pair_ranks:
        best = min(pair_ranks)
        if best == INF:
            break
        i = pair_ranks.index(best)
        parts[i : i + 2] = [best]
        del pair_ranks[i]
        if i < len(pair_ranks):
            pair_ranks[i] = get((parts[i], parts[i + 1]), INF)
        if i > 0:
            pair_ranks[i - 1] = get((parts[i - 1], parts[i]), INF)
    return parts


def merge_heap(
    parts: Sequence[Hashable],
    pair_rank: PairRank,
    combine: Combine,
    events: list[Event] | None = None,
) -> list[Hashable]:
    """Merge with a heap over a linked list; O(n log n). Appends each merge to `events` if given.

    Heap entries are plain ints ``rank * (n + 1) + left_node``, so ordering is
    "lowest rank, then leftmost" (node numbers grow left to right) and every
    comparison is one int comparison.  `cur[i]` is the rank of the pair that
    starts at node i right now; an entry is stale unless node i is alive and
    ``cur[i]`` still equals its rank.  (An entry that matches is always a real
    current pair, so duplicates are harmless.)
    """
    n = len(parts)
    if n < 2:
        return list(parts)
    stride = n + 1
    tok = list(parts)
    nxt = list(range(1, n + 1))
    prv = list(range(-1, n - 1))
    alive = [True] * n
    cur: list[int | None] = [None] * n
    heap: list[int] = []
    for i in range(n - 1):
        r = pair_rank(tok[i], tok[i + 1])
        if r is not None:
            cur[i] = r
            heap.append(r * stride + i)
    heapq.heapify(heap)
    push, pop = heapq.heappush, heapq.heappop
    limit = deadline.current()  # a piece can be a whole text (a raw pattern): a caller's time limit
    while heap:
        if limit is not None:
            limit.check()
        r, i = divmod(pop(heap), stride)
        if not alive[i] or cur[i] != r:
            continue
        j = nxt[i]
        tok[i] = combine(tok[i], tok[j])
        alive[j] = False
        k = nxt[j]
        nxt[i] = k
        if events is not None:
            events.append((i, j, r))
        if k < n:
            prv[k] = i
            rk = pair_rank(tok[i], tok[k])
            cur[i] = rk
            if rk is not None:
                push(heap, rk * stride + i)
        else:
            cur[i] = None
        h = prv[i]
        if h >= 0:
            rh = pair_rank(tok[h], tok[i])
            cur[h] = rh
            if rh is not None:
                push(heap, rh * stride + h)
    out = []
    i = 0
    while i < n:
        out.append(tok[i])
        i = nxt[i]
    return out


def merge_reference(
    parts: Sequence[Hashable],
    pair_rank: PairRank,
    combine: Combine,
    events: list[Event] | None = None,
) -> list[Hashable]:
    """The textbook loop: rescan all pairs, merge the lowest-ranked leftmost one. O(n^2). Tests only."""
    tok = list(parts)
    starts = list(range(len(tok)))  # node number (byte offset) of each part
    while len(tok) > 1:
        best = None
        for i in range(len(tok) - 1):
            r = pair_rank(tok[i], tok[i + 1])
            if r is not None and (best is None or r < best[0]):
                best = (r, i)
        if best is None:
            break
        r, i = best
        if events is not None:
            events.append((starts[i], starts[i + 1], r))
        tok[i : i + 2] = [combine(tok[i], tok[i + 1])]
        del starts[i + 1]
    return tok


def bytes_pair_rank(ranks: dict[bytes, int]) -> tuple[PairRank, Combine]:
    """`pair_rank`/`combine` for tiktoken ranks, where a part is its bytes."""
    get = ranks.get
    return (lambda a, b: get(a + b)), (lambda a, b: a + b)


def ids_pair_rank(merges: dict[tuple[int, int], int]) -> tuple[PairRank, Combine]:
    """`pair_rank`/`combine` for minbpe merges, where a part is its id."""
    get = merges.get
    return (lambda a, b: get((a, b))), (lambda a, b: merges[(a, b)])


def merge_bytes(piece: bytes, ranks: dict[bytes, int], max_rank: int | None = None) -> list[bytes]:
    """Parts of `piece` after BPE, using only merges of rank < `max_rank` (all if None).

    It keeps the rank of every adjacent pair in a list and, after a merge,
    updates only the two neighbours, so each step is one C-speed `min`.
    Every operation in the loop counts: on many-script text it is most of a
    cold encode (valgrind: ~10,000 CPU instructions per merge, piece set-up
    included, a fifth of them comparisons in `min` and `index`).
    With `max_rank` this is minbpe's `bpe(..., max_rank=...)`, which recovers
    the merge that made a token: replay BPE with only lower ranks allowed.
    Example: ``merge_bytes(b"hello", ranks)`` -> ``[b"hello"]`` for GPT-2.
    """
    get = ranks.get
    limit = INF if max_rank is None else max_rank
    parts = list(map(_SINGLE_BYTES.__getitem__, piece))
    pair_ranks = list(map(get, map(add, parts, parts[1:]), repeat(INF)))
    pairs = len(pair_ranks)
    while pairs:
        best = min(pair_ranks)
        if best >= limit:  # nothing mergeable (INF), or only merges at or above max_rank
            break
        i = pair_ranks.index(best)  # leftmost of the lowest rank
        merged = parts[i] = parts[i] + parts.pop(i + 1)
        del pair_ranks[i]
        pairs -= 1
        if i < pairs:
            pair_ranks[i] = get(merged + parts[i + 1], INF)
        if i:
            pair_ranks[i - 1] = get(parts[i - 1] + merged, INF)
    return parts
