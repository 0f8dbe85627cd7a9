"""The slow, obviously correct trainer: minbpe's loop, line for line.

Each step recounts every pair of every chunk into a fresh dict (in text
order), takes ``max(stats, key=stats.get)`` -- Python's `max` returns the
*first* maximal key, and a dict iterates in insertion order, so a tie goes to
the pair seen first -- and replaces it left to right everywhere.  O(merges x
text length): fine for tests, about a minute for 185 kB at vocab 2048.

Differences from minbpe, shared with the fast `engine.training.trainer`: special tokens
are cut out of the text first, and training stops early (instead of crashing)
when no pair is left.  The tests check `train_bpe_reference` and
`engine.train_bpe` return the same merges.
"""
from __future__ import annotations

import time
from typing import Iterable

from ..records import MergeInfo
from ..tokenizer.encoding import Encoding
from ..tokenizer.patterns import compile_pattern
from ..tokenizer.special_tokens import check_special_tokens
from .trainer import Progress, check_vocab_size, finish, training_chunks


def get_stats(ids: list[int], counts: dict[tuple[int, int], int]) -> None:
    """Add the count of every adjacent pair to `counts`: [1, 2, 3, 1, 2] -> (1, 2): 2, (2, 3): 1, (3, 1): 1."""
    for pair in zip(ids, ids[1:]):
        counts[pair] = counts.get(pair, 0) + 1


def merge(ids: list[int], pair: tuple[int, int], idx: int) -> list[int]:
    """Replace every occurrence of `pair`, left to right: [1, 1, 1] with (1, 1) -> [idx, 1]."""
    out = []
    i = 0
    while i < len(ids):
        if i < len(ids) - 1 and ids[i] == pair[0] and ids[i + 1] == pair[1]:
            out.append(idx)
            i += 2
        else:
            out.append(ids[i])
            i += 1
    return out


def train_bpe_reference(
    text: str,
    vocab_size: int,
    *,
    pat_str: str | None = None,
    special_tokens: Iterable[str] | None = None,
    progress: Progress | None = None,
    name: str | None = None,
) -> Encoding:
    """Same contract as `engine.train_bpe`, computed the slow way."""
    started = time.perf_counter()
    vocab_size = check_vocab_size(vocab_size)
    specials = check_special_tokens(special_tokens)
    if pat_str is not None:
        compile_pattern(pat_str)
    chunks = training_chunks(text, pat_str, specials)
    ids = [list(chunk) for chunk in chunks]
    vocab = [bytes([b]) for b in range(256)]
    merges: list[MergeInfo] = []
    total = vocab_size - 256
    for rank in range(total):
        stats: dict[tuple[int, int], int] = {}
        for chunk_ids in ids:
            get_stats(chunk_ids, stats)
        if not stats:
            break  # every chunk is one token: nothing left to merge
        pair = max(stats, key=stats.get)
        top = stats[pair]
        tied = sum(1 for c in stats.values() if c == top) > 1
        new_id = 256 + rank
        before = sum(map(len, ids))
        ids = [merge(chunk_ids, pair, new_id) for chunk_ids in ids]
        replaced = before - sum(map(len, ids))
        vocab.append(vocab[pair[0]] + vocab[pair[1]])
        info = MergeInfo(rank, pair, new_id, vocab[new_id], top, tied, replaced)
        merges.append(info)
        if progress is not None:
            progress(rank + 1, total, info)
    return finish(merges, vocab_size=vocab_size, pat_str=pat_str, specials=specials, name=name,
                  n_chunks=len(chunks), n_unique=len(set(chunks)), n_bytes=sum(map(len, chunks)), started=started)
