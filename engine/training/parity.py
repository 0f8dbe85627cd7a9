"""Parity-aware BPE: each merge serves the language that is worst compressed right now.

Foroutan, Meister, Paul, Niklaus, Ahmadi, Bosselut and Sennrich, "Parity-Aware Byte-Pair Encoding:
Improving Cross-lingual Fairness in Tokenization" (arXiv 2508.04796, 2025).  Plain BPE merges the pair
that is most frequent over the whole corpus, so the language with the most text gets the long tokens and
the others pay more tokens for the same sentence.  Parity-aware BPE keeps one corpus per language and a
parallel *dev* set (the same sentences in every language).  At each step it

1. picks the language whose dev text is longest in tokens now (the worst compressed one); on equal
   lengths the language given first;
2. takes the pair most frequent in *that language's* training words; on equal counts the pair whose
   strings are greatest (``max`` over ``(count, (left, right))``, as the authors' `learn_bpe` does);
3. merges it everywhere -- every language's training words and dev words -- left to right.

The reference is `tokenizers` 0.23.3's ``ParityBpeTrainer`` (variant ``"base"``, the Rust port of the
authors' Python), with a ``ByteLevel`` pre-tokenizer.  We follow it, and its tests hold us to it merge for
merge (``tests/engine/training/test_parity.py``), including what its source does not say and we measured:

* without a dev set the languages' *training* texts are measured instead (its docstring: the largest
  language then dominates and the result stays close to plain BPE);
* a language with no pair left, or whose best pair is below ``min_frequency``, is passed over for the
  next longest; training stops when no language is left;
* the first ``global_merges`` merges are plain BPE over all languages summed, the same tie-break.

Leaves out: the ``"window"`` variant, the ``ratio`` targets and ``total_symbols``.
Counts are kept per word and recounted only for the words a merge touches; each language (and the
sum over languages) has a lazy max-heap of pair counts, so finding the best pair does not scan every pair
(`_Corpus.best_reference` does, and the tests check that both agree).
"""
from __future__ import annotations

import heapq
import json
import time
from dataclasses import dataclass
from typing import Callable, Sequence

from ..tokenizer.gpt2_bytes import BYTE_TO_CHAR, byte_level_bpe_tree
from .byte_level import byte_level_words

Pair = tuple[str, str]


@dataclass(frozen=True)
class ParityMerge:
    """One merge: which language chose it and the pair's count there."""

    rank: int
    pair: Pair
    language: int  # index into the languages; -1 for a global (plain BPE) merge
    count: int


@dataclass(frozen=True)
class ParityResult:
    """The merges (as GPT-2 printable strings, as in a tokenizer.json) and the measured lengths before and after."""

    merges: tuple[ParityMerge, ...]
    alphabet: tuple[str, ...]  # the characters seen, sorted (tokenizers' initial vocabulary order)
    lengths_before: tuple[int, ...]  # tokens per language of the measured text (dev, else training) before any merge
    lengths_after: tuple[int, ...]  # ... and after the last merge
    stopped_early: bool
    seconds: float


def _pairs(word: tuple[str, ...]) -> list[Pair]:
    return list(zip(word, word[1:]))


def merge_word(word: tuple[str, ...], pair: Pair) -> tuple[str, ...]:
    """`word` with every occurrence of `pair` merged, left to right (``a a a`` -> ``aa a``)."""
    a, b = pair
    out: list[str] = []
    i = 0
    n = len(word)
    while i < n:
        if i + 1 < n and word[i] == a and word[i + 1] == b:
            out.append(a + b)
            i += 2
        else:
            out.append(word[i])
            i += 1
    return tuple(out)


class _Greatest:
    """A pair ordered so that heapq's min-heap pops the *greatest* strings first (the reference's tie-break)."""

    __slots__ = ("pair",)

    def __init__(self, pair: Pair) -> None:
        self.pair = pair

    def __lt__(self, other: _Greatest) -> bool:
        return self.pair > other.pair

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Greatest) and self.pair == other.pair


class _Corpus:
    """Words (tuples of symbols) with a count per language, and per-language pair counts kept current."""

    def __init__(self, per_language: Sequence[dict[str, int]]) -> None:
        self.n = len(per_language)
        index: dict[str, int] = {}
        self.words: list[tuple[str, ...]] = []
        self.freq: list[list[int]] = []
        for lang, words in enumerate(per_language):
            for w, c in words.items():
                if w not in index:
                    index[w] = len(self.words)
                    self.words.append(tuple(w))
                    self.freq.append([0] * self.n)
                self.freq[index[w]][lang] += c
        self.stats: dict[Pair, list[int]] = {}
        self.total: dict[Pair, int] = {}  # all languages summed (the global merges' count), kept beside
        self.where: dict[Pair, set[int]] = {}
        for i in range(len(self.words)):
            self._count(i, +1)
        # One lazy max-heap per language and one for the total: an entry (-count, _Greatest(pair)) is pushed
        # whenever a pair's count changes and is dropped when popped with a count that is no longer current.
        self.heaps: list[list[tuple[int, _Greatest]]] = [[] for _ in range(self.n + 1)]
        for p in self.stats:
            self._push(p)
        for heap in self.heaps:
            heapq.heapify(heap)

    def _count(self, i: int, sign: int) -> None:
        f = self.freq[i]
        langs = [(lang, sign * c) for lang, c in enumerate(f) if c]  # a word is seldom in many languages
        whole = sign * sum(f)
        for p in _pairs(self.words[i]):
            s = self.stats.get(p)
            if s is None:
                s = self.stats[p] = [0] * self.n
                self.where[p] = set()
                self.total[p] = 0
            for lang, c in langs:
                s[lang] += c
            self.total[p] += whole
            if sign > 0:
                self.where[p].add(i)
        if sign < 0:  # drop pairs no word holds any more
            for p in set(_pairs(self.words[i])):
                if not any(self.stats[p]):
                    del self.stats[p], self.where[p], self.total[p]
                else:
                    self.where[p].discard(i)

    def length(self) -> list[int]:
        """Tokens per language: each word's symbols times its count."""
        out = [0] * self.n
        for w, f in zip(self.words, self.freq):
            for lang in range(self.n):
                out[lang] += len(w) * f[lang]
        return out

    def _push(self, p: Pair, heap: Callable = list.append) -> None:
        """Put `p`'s current counts on the heaps (list.append while building, before heapify)."""
        key = _Greatest(p)
        for lang, c in enumerate(self.stats[p]):
            if c > 0:
                heap(self.heaps[lang], (-c, key))
        heap(self.heaps[self.n], (-self.total[p], key))

    def merge(self, pair: Pair, lengths: list[int]) -> None:
        """Merge `pair` in every word that holds it; `lengths` (tokens per language) goes down by as many."""
        touched: set[Pair] = set()
        for i in sorted(self.where.get(pair, ())):
            touched.update(_pairs(self.words[i]))
            self._count(i, -1)
            before = len(self.words[i])
            self.words[i] = merge_word(self.words[i], pair)
            self._count(i, +1)
            touched.update(_pairs(self.words[i]))
            saved = before - len(self.words[i])
            for lang, f in enumerate(self.freq[i]):
                lengths[lang] -= saved * f
        for p in touched:
            if p in self.stats:
                self._push(p, heapq.heappush)

    def best(self, lang: int | None) -> tuple[Pair, int] | None:
        """The pair with the highest count in `lang` (None: all languages summed), greatest strings on a tie."""
        heap = self.heaps[self.n if lang is None else lang]
        while heap:
            negc, key = heap[0]
            s = self.stats.get(key.pair)
            current = 0 if s is None else self.total[key.pair] if lang is None else s[lang]
            if current > 0 and current == -negc:
                return key.pair, current
            heapq.heappop(heap)  # stale: the pair's count changed (a newer entry holds it) or it is gone
        return None

    def best_reference(self, lang: int | None) -> tuple[Pair, int] | None:
        """`best` by scanning every pair: slow and obviously right (the tests check that both agree)."""
        best: tuple[int, Pair] | None = None
        counts = self.total.items() if lang is None else ((p, s[lang]) for p, s in self.stats.items())
        for p, c in counts:
            if c > 0 and (best is None or (c, p) > best):
                best = (c, p)
        return None if best is None else (best[1], best[0])


def train_parity_merges(
    train_texts: Sequence[Sequence[str] | str],
    num_merges: int,
    *,
    dev_texts: Sequence[Sequence[str] | str] | None = None,
    global_merges: int = 0,
    min_frequency: int = 0,
    progress: Callable[[int, int, ParityMerge], None] | None = None,
) -> ParityResult:
    """Learn `num_merges` parity-aware merges from one training text (or list of lines) per language.

    `dev_texts`, if given, holds the same sentences in every language, in the same order as `train_texts`.
    """
    started = time.perf_counter()
    if isinstance(num_merges, bool) or not isinstance(num_merges, int) or num_merges < 0:
        raise ValueError(f"num_merges must be a whole number of merges (0 or more), got {num_merges!r}")
    if len(train_texts) < 1:
        raise ValueError("give at least one language's training text")
    if dev_texts is not None and len(dev_texts) != len(train_texts):
        raise ValueError(f"give one dev text per language: {len(train_texts)} training texts but "
                         f"{len(dev_texts)} dev texts")
    train = _Corpus([byte_level_words(t) for t in train_texts])
    # Without a dev set the training texts themselves are measured (tokenizers' ParityBpeTrainer does so).
    dev = _Corpus([byte_level_words(t) for t in dev_texts]) if dev_texts is not None else None
    alphabet = tuple(sorted({ch for w in train.words for ch in w}))
    lengths = (dev or train).length()
    before = tuple(lengths)

    merges: list[ParityMerge] = []
    for rank in range(num_merges):
        lang, found = -1, None
        if rank < global_merges:
            found = train.best(None)
        else:
            # Longest first; on equal lengths the language given first.  A language whose best pair is
            # below min_frequency (or that has no pair left) is passed over for the next longest.
            for cand in sorted(range(train.n), key=lambda k: (-lengths[k], k)):
                best = train.best(cand)
                if best is not None and best[1] >= min_frequency:
                    lang, found = cand, best
                    break
        if found is None or found[1] < min_frequency:
            break
        pair, count = found
        train_lengths = lengths if dev is None else [0] * train.n  # only the measured corpus's lengths matter
        train.merge(pair, train_lengths)
        if dev is not None:
            dev.merge(pair, lengths)
        info = ParityMerge(rank, pair, lang, count)
        merges.append(info)
        if progress is not None:
            progress(rank + 1, num_merges, info)
    return ParityResult(tuple(merges), alphabet, before, tuple(lengths), len(merges) < num_merges,
                        time.perf_counter() - started)


def gini(values: Sequence[float]) -> float:
    """The Gini coefficient of `values` (0: all equal; toward 1: one holds everything).

    Mean absolute difference over all ordered pairs, divided by twice the mean:

        >>> gini([1, 1, 1]), round(gini([0, 0, 3]), 3)
        (0.0, 0.667)
    """
    n = len(values)
    total = sum(values)
    if n == 0 or total == 0:
        return 0.0
    diff = sum(abs(x - y) for x in values for y in values)
    return diff / (2 * n * total)


def parity_tokenizer_json(result: ParityResult) -> str:
    """The ``tokenizer.json`` of the merges: byte-level BPE as `tokenizers` writes it, every byte in the vocabulary.

    The reference's own file holds only the bytes it saw; ours holds all 256 (sorted by code point, then one
    id per merge result) so that any text encodes.  A merge whose result was already made keeps that id.
    """
    vocab: dict[str, int] = {}
    for ch in sorted(BYTE_TO_CHAR.values()):
        vocab[ch] = len(vocab)
    for m in result.merges:
        vocab.setdefault(m.pair[0] + m.pair[1], len(vocab))
    return json.dumps(byte_level_bpe_tree(vocab, [list(m.pair) for m in result.merges]), ensure_ascii=False)
