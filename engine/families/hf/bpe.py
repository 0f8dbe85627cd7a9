"""The BPE model of a Hugging Face ``tokenizer.json``: merges are listed pairs of tokens.

Where tiktoken merges any adjacent pair whose *concatenation* is a token
(rank = id), a ``tokenizer.json`` lists its merges: ``"Ġ t"`` (or
``["Ġ", "t"]``) means "the tokens Ġ and t, side by side, become the token Ġt".
Two traps:

* The *rank* of a merge is its position in the ``merges`` list, which is not
  the id of the token it makes.  Each step merges the adjacent pair with the
  lowest rank, the leftmost on a tie (tokenizers' `Word::merge_all` heap).
* A pair that is not listed never merges, even when its concatenation is in
  the vocabulary; and a token that no merge makes is never produced (unless
  ``ignore_merges`` lets a whole piece that is a token through).

A part is a token id; a pair is keyed by one int, ``left * KEY + right``.
`merge_small` is the hot path; long pieces use `merge_ids_heap` (the
algorithm of `engine.tokenizer.bpe.merge_heap` with the pair lookups inlined, 2x faster
on a 100,000-byte piece).  The tests check both, and `engine.tokenizer.bpe.merge_heap`,
against `engine.tokenizer.bpe.merge_reference` with `BpeModel.functions`.

*Merge tree* here means: a token's two children are the pair of the first
listed merge that makes it, recursively, down to single-byte tokens.  A token
that no merge makes (the single bytes, and e.g. special tokens that also sit
in the vocabulary) is a leaf holding all its bytes.
"""
from __future__ import annotations

from typing import Sequence

import heapq

from ... import deadline
from ...tokenizer.bpe import INF, LONG_PIECE, Combine, PairRank

KEY = 1 << 21  # > every id (ids of tokenizer.json files stay below 2 million)
# Bytes that never occur in UTF-8 (overlong lead bytes, and leads past U+10FFFF): text cannot hold them, so a
# vocabulary without their tokens (DeepSeek V2's) still encodes every text.
NOT_IN_UTF8 = frozenset([0xC0, 0xC1, *range(0xF5, 0x100)])


class BpeModel:
    """Listed merges over token ids.

    `pair_rank` maps ``left * KEY + right`` to the merge's rank; `merged_id[rank]`
    is the token that merge makes; `byte_ids[b]` is the id of the token for byte
    `b` (its GPT-2 printable character), or None when the vocabulary lacks it.
    """

    def __init__(
        self,
        pair_rank: dict[int, int],
        merged_id: list[int],
        byte_ids: Sequence[int | None],
        *,
        unk_id: int | None = None,
        fuse_unk: bool = False,
        byte_fallback_ids: Sequence[int | None] | None = None,
        ignore_merges: bool = False,
    ) -> None:
        self.pair_rank = pair_rank
        self.merged_id = merged_id
        self.byte_ids = list(byte_ids)
        self.unk_id = unk_id
        self.fuse_unk = fuse_unk
        self.byte_fallback_ids = byte_fallback_ids
        self.ignore_merges = ignore_merges
        # every byte UTF-8 text can hold has a token: `initial_ids` maps bytes straight to ids
        self.complete = all(i is not None for b, i in enumerate(self.byte_ids) if b not in NOT_IN_UTF8)

    def same_merges(self, other: BpeModel) -> bool:
        """Whether `other` turns every byte string into the same ids: same byte tokens, fallbacks,
        flags and merges (the merge table, the bulk, compared last)."""
        return (self.unk_id == other.unk_id and self.fuse_unk == other.fuse_unk
                and self.ignore_merges == other.ignore_merges and self.byte_ids == other.byte_ids
                and self.byte_fallback_ids == other.byte_fallback_ids
                and self.merged_id == other.merged_id and self.pair_rank == other.pair_rank)

    def initial_ids(self, data: bytes) -> list[int]:
        """One id per byte; for a byte with no token, tokenizers' rule for a character not in the vocabulary.

        That rule: with ``byte_fallback``, the ``<0xXX>`` tokens of the
        character's UTF-8 (the *printable* character's, two bytes for most);
        else the unknown token (runs fused if ``fuse_unk``); else nothing.
        """
        if self.complete:
            return list(map(self.byte_ids.__getitem__, data))
        from ...tokenizer.gpt2_bytes import BYTE_TO_CHAR

        out: list[int] = []
        last_unk = False
        for b in data:
            tid = self.byte_ids[b]
            if tid is not None:
                out.append(tid)
                last_unk = False
                continue
            if self.byte_fallback_ids is not None:
                fallback = [self.byte_fallback_ids[x] for x in BYTE_TO_CHAR[b].encode("utf-8")]
                if None not in fallback:
                    out.extend(fallback)  # type: ignore[arg-type]
                    last_unk = False
                    continue
            if self.unk_id is not None:
                if not (self.fuse_unk and last_unk):
                    out.append(self.unk_id)
                last_unk = True
        return out

    def functions(self) -> tuple[PairRank, Combine]:
        """`pair_rank`/`combine` for `engine.tokenizer.bpe.merge_heap` and `merge_reference` (a part is an id)."""
        get, merged = self.pair_rank.get, self.merged_id
        return (lambda a, b: get(a * KEY + b)), (lambda a, b: merged[get(a * KEY + b)])

    def merge(self, ids: list[int]) -> list[int]:
        """Apply the merges to a piece's initial ids."""
        if len(ids) > LONG_PIECE:
            return merge_ids_heap(ids, self.pair_rank, self.merged_id)
        return merge_small(ids, self.pair_rank, self.merged_id)

    def parents(self) -> dict[int, tuple[int, int]]:
        """``{made_id: (left_id, right_id)}`` from the first listed merge that makes each token."""
        by_rank = sorted((rank, key) for key, rank in self.pair_rank.items())
        out: dict[int, tuple[int, int]] = {}
        for rank, key in by_rank:
            made = self.merged_id[rank]
            if made not in out:
                out[made] = divmod(key, KEY)  # type: ignore[assignment]
        return out


def merge_small(ids: list[int], pair_rank: dict[int, int], merged_id: list[int]) -> list[int]:
    """The merge loop for short pieces: a list of pair ranks, two neighbours updated per merge."""
    get = pair_rank.get
    parts = ids
    ranks = [get(a * KEY + b, INF) for a, b in zip(parts, parts[1:])]
    while ranks:
        best = min(ranks)
        if best == INF:
            break
        i = ranks.index(best)  # leftmost of the lowest rank
        new = merged_id[best]
        parts[i : i + 2] = [new]
        del ranks[i]
        if i < len(ranks):
            ranks[i] = get(new * KEY + parts[i + 1], INF)
        if i:
            ranks[i - 1] = get(parts[i - 1] * KEY + new, INF)
    return parts


def merge_ids_heap(ids: list[int], pair_rank: dict[int, int], merged_id: list[int]) -> list[int]:
    """`engine.tokenizer.bpe.merge_heap` for listed merges, lookups inlined: O(n log n) for long pieces."""
    tok, nxt = merge_nodes_heap(ids, pair_rank, merged_id)
    out = []
    i = 0
    while i < len(ids):
        out.append(tok[i])
        i = nxt[i]
    return out


def merge_nodes_heap(ids: list[int], pair_rank: dict[int, int], merged_id: list[int]) -> tuple[list[int], list[int]]:
    """The merges of `merge_ids_heap` as nodes: from node 0, each node i left holds the id ``tok[i]`` made of
    ``ids[i:nxt[i]]``, and the next node is ``nxt[i]`` (``len(ids)`` after the last), so a caller knows which of
    the first parts each token covers (`engine.families.hf.models.bpe.CharBpe.tokenize`'s offsets).

    Heap entries are ``rank * stride + node``: lowest rank first, leftmost on a
    tie.  `cur[i]` is the rank of the pair starting at node i now; an entry
    whose rank no longer matches is stale and skipped.
    """
    n = len(ids)
    if n < 2:
        return list(ids), list(range(1, n + 1))
    get = pair_rank.get
    stride = n + 1
    tok = list(ids)
    nxt = list(range(1, n + 1))
    prv = list(range(-1, n - 1))
    cur: list[int | None] = [get(a * KEY + b) for a, b in zip(tok, tok[1:])]
    cur.append(None)
    heap = [r * stride + i for i, r in enumerate(cur) if r is not None]
    heapq.heapify(heap)
    push, pop = heapq.heappush, heapq.heappop
    limit = deadline.current()  # a piece can be a whole text (no pre-tokenizer): a caller's time limit
    while heap:
        if limit is not None:
            limit.check()
        r, i = divmod(pop(heap), stride)
        if cur[i] != r:
            continue
        j = nxt[i]
        new = tok[i] = merged_id[r]
        cur[j] = None  # node j is gone
        k = nxt[j]
        nxt[i] = k
        if k < n:
            prv[k] = i
            rk = cur[i] = get(new * KEY + tok[k])
            if rk is not None:
                push(heap, rk * stride + i)
        else:
            cur[i] = None
        h = prv[i]
        if h >= 0:
            rh = cur[h] = get(tok[h] * KEY + new)
            if rh is not None:
                push(heap, rh * stride + h)
    return tok, nxt
