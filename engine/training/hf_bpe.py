"""Hugging Face's `BpeTrainer` merge loop, step for step: the trainer under its WordPiece trainer.

`tokenizers` (``tokenizers/src/models/bpe/trainer.rs``) trains on *words* with counts, not on a text:

1. ids: the special tokens first, then every character seen, sorted by code point; then, as the words are
   walked, each character not at a word's start gets its ``continuing_subword_prefix`` form (``##a``)
   and an id the first time it is met.  **The walk is over a hash map**, so these ids -- and through the
   tie-break below, which pairs win -- change from run to run (even on one thread).  We walk the words
   in order of first appearance, or in the order `symbol_order` gives (to replay one run of the reference);
2. a max-heap of pairs keyed by ``(count, smallest pair of ids)``: on equal counts the pair of *smaller
   ids* wins, the opposite of minbpe's "first seen";
3. pop the top; if its count is stale, push it back with the current count; otherwise merge it in the
   words the entry lists, and push one new entry per pair that gained occurrences, listing only the words
   where it gained them.  The merged token is ``left + right`` with the prefix taken off ``right``; if that
   string already has an id (``a`` + ``bc`` after ``ab`` + ``c``), the id is reused and the vocabulary
   does not grow;
4. stop when the vocabulary (specials, alphabet, prefixed characters, merges) reaches ``vocab_size``, the
   heap is empty, or the top count is below ``min_frequency``.

We keep step 3's quirks (an entry lists only *its* words; the merged pair's count is not zeroed), since
they decide what the reference does when a token string is made twice.

Leaves out: ``limit_alphabet``, ``initial_alphabet``, ``end_of_word_suffix`` and ``max_token_length``.
"""
from __future__ import annotations

import heapq
from dataclasses import dataclass
from typing import Callable, Mapping, Sequence

Pair = tuple[int, int]


@dataclass(frozen=True)
class HfBpeResult:
    """The vocabulary (strings in id order) and the merges as (left, right) strings."""

    vocab: tuple[str, ...]
    merges: tuple[tuple[str, str], ...]
    counts: tuple[int, ...]  # each merge's count when it was made
    stopped_early: bool


def _merge_word(word: list[int], a: int, b: int, new: int) -> list[tuple[Pair, int]]:
    """Merge (a, b) -> new in `word` in place, left to right; the pair-count changes, as the reference lists them."""
    changes: list[tuple[Pair, int]] = []
    i = 0
    while i < len(word):
        if word[i] == a and i + 1 < len(word) and word[i + 1] == b:
            if i > 0:
                changes.append(((word[i - 1], a), -1))
                changes.append(((word[i - 1], new), 1))
            word[i:i + 2] = [new]
            if i < len(word) - 1:
                changes.append(((b, word[i + 1]), -1))
                changes.append(((new, word[i + 1]), 1))
        i += 1
    return changes


def train_hf_bpe(
    word_counts: Mapping[str, int],
    vocab_size: int,
    *,
    special_tokens: Sequence[str] = (),
    min_frequency: int = 0,
    continuing_subword_prefix: str | None = None,
    symbol_order: Sequence[str] | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> HfBpeResult:
    """Run tokenizers' `BpeTrainer` on `word_counts` (word -> count).

    `symbol_order`, if given, lists prefixed characters (``##a``) in the order their ids are handed out
    (the order one run of the reference took); characters it leaves out follow in first-appearance order.
    """
    w2id: dict[str, int] = {}
    id2w: list[str] = []

    def add(s: str) -> int:
        if s not in w2id:
            w2id[s] = len(id2w)
            id2w.append(s)
        return w2id[s]

    for tok in special_tokens:
        add(tok)
    for ch in sorted({c for w in word_counts for c in w}):
        add(ch)
    prefix = continuing_subword_prefix
    if prefix is not None:
        for s in symbol_order or ():
            add(s)
    words: list[list[int]] = []
    counts: list[int] = []
    for w, c in word_counts.items():
        ids = [add(ch if i == 0 or prefix is None else prefix + ch) for i, ch in enumerate(w)]
        words.append(ids)
        counts.append(c)

    pair_counts: dict[Pair, int] = {}
    where: dict[Pair, set[int]] = {}
    for i, ids in enumerate(words):
        for p in zip(ids, ids[1:]):
            pair_counts[p] = pair_counts.get(p, 0) + counts[i]
            where.setdefault(p, set()).add(i)
    # heapq is a min-heap: (-count, pair) pops the highest count, then the smallest pair of ids
    # (a sequence number keeps two entries of one pair apart: the earlier pushed pops first)
    heap = [(-pair_counts[p], p, k, pos) for k, (p, pos) in enumerate(where.items()) if pair_counts[p] > 0]
    pushed = len(heap)
    heapq.heapify(heap)

    merges: list[tuple[str, str]] = []
    merge_counts: list[int] = []
    while len(w2id) < vocab_size and heap:
        negc, pair, _, pos = heapq.heappop(heap)
        current = pair_counts[pair]
        if -negc != current:
            heapq.heappush(heap, (-current, pair, pushed, pos))
            pushed += 1
            continue
        if current < 1 or min_frequency > current:
            break
        left, right = id2w[pair[0]], id2w[pair[1]]
        if prefix is not None and right.startswith(prefix):
            right = right[len(prefix):]
        new_id = add(left + right)
        merges.append((id2w[pair[0]], id2w[pair[1]]))
        merge_counts.append(current)
        gained: dict[Pair, set[int]] = {}
        for i in pos:
            for p, change in _merge_word(words[i], pair[0], pair[1], new_id):
                pair_counts[p] = pair_counts.get(p, 0) + change * counts[i]
                if change > 0:
                    gained.setdefault(p, set()).add(i)
        for p, gpos in gained.items():
            if pair_counts[p] > 0:
                heapq.heappush(heap, (-pair_counts[p], p, pushed, gpos))
                pushed += 1
        if progress is not None:
            progress(len(w2id), vocab_size)
    return HfBpeResult(tuple(id2w), tuple(merges), tuple(merge_counts), len(w2id) < vocab_size)
