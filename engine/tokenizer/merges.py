"""Recover the merge list from a rank file, and draw how a token was built.

A tiktoken rank file stores only ``token bytes -> rank``; the merges that
made each token are implicit.  For a token of rank r, its merge is what BPE
does to the token's own bytes when only merges of rank < r are allowed: that
must end in exactly two parts (minbpe's `recover_merges`).

Two traps:

* A token often has several two-way splits into known tokens (``b"hello"`` =
  ``b"he" + b"llo"`` = ``b"hell" + b"o"`` ...).  Only replaying BPE finds the
  split BPE actually takes; "any split into lower ranks" is wrong.
* cl100k/o200k's single-byte tokens are not in byte order (rank 0 is ``b"!"``),
  so a leaf's id is not its byte value.

`recover_merges` is the fast replay; `recover_merges_reference` is the plain
one built on `engine.tokenizer.bpe.merge_bytes`; the tests check they agree.

One token's tree needs none of the other merges: `merge_tree_of` replays BPE
on that token's bytes (ranks below its own), then on each of the two parts,
down to single bytes -- a few dozen short replays instead of 200,000.  It is
checked against the tree built from the full recovery.
"""
from __future__ import annotations

from itertools import repeat
from typing import Mapping

from ..records import MergeNode
from .bpe import INF, merge_bytes


def _split_of(token: bytes, rank: int, ranks: dict[bytes, int]) -> tuple[bytes, bytes]:
    parts = merge_bytes(token, ranks, max_rank=rank)
    if len(parts) != 2:
        raise ValueError(
            f"token {token!r} (rank {rank}) is not the merge of two lower-ranked tokens; "
            f"BPE with lower ranks leaves {len(parts)} parts, so this rank file cannot be produced by BPE"
        )
    return parts[0], parts[1]


def _split_point(token: bytes, rank: int, ranks: dict[bytes, int], unmergeable: dict[int, list[bytes]] | None) -> int | None:
    """Length of the left half of the merge that made `token` (raises if there is none, unless
    `unmergeable` collects such tokens: then it records the parts and returns None)."""
    if unmergeable is None:
        return len(_split_of(token, rank, ranks)[0])  # raises with the explanation
    parts = merge_bytes(token, ranks, max_rank=rank)
    if len(parts) != 2:
        unmergeable[rank] = parts
        return None
    return len(parts[0])


def _pair_slices(n: int) -> list[slice]:
    return [slice(i, i + 2) for i in range(n - 1)]


_PAIR_SLICES = [_pair_slices(n) for n in range(64)]


def recover_merges(
    mergeable_ranks: dict[bytes, int], unmergeable: dict[int, list[bytes]] | None = None
) -> dict[tuple[int, int], int]:
    """``{(left_id, right_id): merged_id}`` in rank order, recovered from tiktoken ranks.

    The same replay as `recover_merges_reference`, inlined for speed: it
    tracks part boundaries inside the token instead of building byte parts,
    and stops as soon as two parts are left.

    A token that BPE cannot build (lower ranks leave three or more parts; some
    open models' vocabularies have such tokens, which tiktoken emits only when
    a whole piece equals them) raises ValueError -- or, if `unmergeable` is
    given, is recorded there as ``rank -> parts`` and skipped.
    """
    get = mergeable_ranks.get
    by_rank: list[bytes | None] = [None] * len(mergeable_ranks)
    for token, rank in mergeable_ranks.items():
        if rank >= len(by_rank):
            raise ValueError(f"rank {rank} of {token!r} is outside 0..{len(by_rank) - 1}; ranks must be dense")
        by_rank[rank] = token
    merges: dict[tuple[int, int], int] = {}
    for rank, token in enumerate(by_rank):
        if token is None:
            raise ValueError(f"rank {rank} has no token (two tokens share a rank); ranks must be dense")
        n = len(token)
        if n <= 1:  # a single byte, or the empty token (whisper's rank 50256): made by no merge
            continue
        if n == 2:
            merges[(get(token[:1]), get(token[1:]))] = rank  # type: ignore[index]
            continue
        if n == 3:  # two candidate pairs: the lower-ranked one merges first (left on a tie)
            a = get(token[:2], INF)
            b = get(token[1:], INF)
            if min(a, b) >= rank:
                k = _split_point(token, rank, mergeable_ranks, unmergeable)
                if k is None:
                    continue
            else:
                k = 2 if a <= b else 1
            merges[(get(token[:k]), get(token[k:]))] = rank  # type: ignore[index]
            continue
        starts = list(range(n + 1))
        # Pairs of rank >= `rank` are never clamped: the loop stops when the lowest is not below it.
        pair_ranks = list(map(get, map(token.__getitem__, _PAIR_SLICES[n] if n < 64 else _pair_slices(n)), repeat(INF)))
        while len(pair_ranks) > 2:
            best = min(pair_ranks)
            if best >= rank:
                break
            i = pair_ranks.index(best)
            del starts[i + 1]
            del pair_ranks[i]
            if i < len(pair_ranks):
                pair_ranks[i] = get(token[starts[i] : starts[i + 2]], INF)
            if i:
                pair_ranks[i - 1] = get(token[starts[i - 1] : starts[i + 1]], INF)
        # Three parts left: the last merge joins the lower-ranked pair (the left one on a tie).
        if len(pair_ranks) != 2 or min(pair_ranks) >= rank:
            k = _split_point(token, rank, mergeable_ranks, unmergeable)
            if k is None:
                continue
        else:
            k = starts[2] if pair_ranks[0] <= pair_ranks[1] else starts[1]
        merges[(get(token[:k]), get(token[k:]))] = rank  # type: ignore[index]
    return merges


def recover_merges_reference(mergeable_ranks: dict[bytes, int]) -> dict[tuple[int, int], int]:
    """The plain algorithm: replay BPE for every token. Slow; for tests."""
    merges = {}
    for token, rank in sorted(mergeable_ranks.items(), key=lambda kv: kv[1]):
        if len(token) <= 1:  # a single byte, or the empty token: made by no merge
            continue
        left, right = _split_of(token, rank, mergeable_ranks)
        merges[(mergeable_ranks[left], mergeable_ranks[right])] = rank
    return merges


def build_merge_tree(token_id: int, parents: Mapping[int, tuple[int, int]], token_bytes,
                     node_bytes=None) -> MergeNode:
    """Tree for `token_id` from ``parents = {merged_id: (left_id, right_id)}``.

    A node's bytes are its leaves' joined, or ``node_bytes(id)`` when given (a character-level BPE whose
    continuation prefix the merge drops).  Built bottom-up from an explicit stack: a file may make a
    token thousands of merges deep.  A token met again below itself (a cycle, which only a crafted list
    of merges could make) is drawn as a leaf there.
    """
    built: dict[int, MergeNode] = {}
    pending: set[int] = set()  # tokens on the path from the root, waiting for their parts
    stack: list[tuple[int, bool]] = [(token_id, False)]
    while stack:
        tid, parts_done = stack.pop()
        pair = parents.get(tid)
        if parts_done:
            pending.discard(tid)
            left, right = built[pair[0]], built[pair[1]]  # type: ignore[index]
            data = left.bytes + right.bytes if node_bytes is None else node_bytes(tid)
            built[tid] = MergeNode(tid, data, left, right)
        elif tid in built:
            continue
        elif pair is None or tid in pending:
            built.setdefault(tid, MergeNode(tid, token_bytes(tid)))
        else:
            pending.add(tid)
            stack += ((tid, True), (pair[1], False), (pair[0], False))
    return built[token_id]


def merge_tree_of(token: bytes, mergeable_ranks: Mapping[bytes, int]) -> MergeNode:
    """How `token` was built, recovering only the merges on its own tree.

    The token of rank r splits where BPE, allowed only ranks < r, leaves two
    parts (`_split_of`); each part is a lower-ranked token and splits the
    same way.  Raises KeyError for bytes that are not a token, ValueError for
    a rank file BPE cannot produce.

    >>> from engine import get_encoding
    >>> ranks = get_encoding("gpt2").mergeable_ranks
    >>> tree = merge_tree_of(b"hello", ranks)
    >>> tree.left.bytes, tree.right.bytes
    (b'hell', b'o')
    """
    built: dict[bytes, MergeNode] = {}  # a part that occurs twice is split once
    stack: list[tuple[bytes, tuple[bytes, bytes] | None]] = [(token, None)]  # bottom-up, without recursion
    while stack:
        data, parts = stack.pop()
        if parts is not None:
            built[data] = MergeNode(mergeable_ranks[data], data, built[parts[0]], built[parts[1]])
        elif data in built:
            continue
        elif len(data) <= 1:  # a leaf: a single byte, or the empty token (made by no merge, never emitted)
            built[data] = MergeNode(mergeable_ranks[data], data)
        else:
            left, right = _split_of(data, mergeable_ranks[data], mergeable_ranks)  # type: ignore[arg-type]
            stack += ((data, (left, right)), (right, None), (left, None))
    return built[token]
