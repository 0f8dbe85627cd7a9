"""Train a byte-level BPE tokenizer: minbpe's exact merges, without minbpe's full recount.

minbpe's `train` (karpathy/minbpe, `basic.py` and `regex.py`) is the
definition we follow.  Each step it

1. counts every adjacent pair of ids in every chunk (overlaps count: ``aaa``
   has two ``(a, a)``), into a fresh dict, scanning the chunks in text order;
2. takes ``max(stats, key=stats.get)``: the highest count, and on a tie the
   pair that was *inserted first*, i.e. whose first occurrence in the current
   (already merged) text comes first;
3. replaces the pair left to right in every chunk (``aaa`` -> ``Z a``) by the
   new id ``256 + i``.

That recount makes minbpe about a minute on a 185 kB text at vocab 2048.  Here:

* **Unique chunks with multiplicities.** A chunk that occurs m times is stored
  once and its pairs count m times.  Unique chunks are laid out one after the
  other in order of first appearance, so a node's index *is* minbpe's scan order.
* **A linked list of nodes and an index pair -> positions.** A merge visits only
  the positions of the merged pair, and updates the counts of the pairs next to
  each one: ``(x, a) (a, b) (b, y)`` become ``(x, Z) (Z, y)``.
* **A heap keyed by (-count, first position).** The trap is the tie-break: when
  an occurrence disappears, a pair's first position can move right.  We then
  mark the pair *dirty*; its heap key is still a lower bound, so when a dirty
  pair reaches the top we recompute its first position (the minimum of its
  positions) and push it again.  Only pairs next to the merged one ever change,
  and all new pairs contain the new id.

Without a split pattern the whole text is one chunk (minbpe's BasicTokenizer).
Special tokens are cut out of the text before training and get the ids after
the merges (minbpe's trainer has no special tokens; it registers them later).
When no pair is left (every chunk is a single token) training stops early,
where minbpe would crash on ``max()`` of an empty dict: the result says so in
``enc.training`` and a `TrainingStoppedEarly` warning.

`engine.training.reference` is the slow, literal version; the tests check that
both agree with each other and with merges produced by minbpe itself.
"""
from __future__ import annotations

import hashlib
import heapq
import time
import warnings
from collections import Counter
from typing import Callable, Iterable, Sequence

import regex

from ..records import MergeInfo, TrainingReport
from ..text import repair_surrogates
from ..tokenizer.encoding import Encoding
from ..tokenizer.patterns import BUILTIN_PATTERNS, RAW_PAT_STR, Splitter, compile_pattern
from ..tokenizer.special_tokens import check_special_tokens

INF = 1 << 62


class TrainingStoppedEarly(UserWarning):
    """Training ran out of pairs before reaching the requested vocabulary size."""


Progress = Callable[[int, int, MergeInfo], None]


# --------------------------------------------------------------- shared parts
def check_vocab_size(vocab_size: int) -> int:
    if isinstance(vocab_size, bool) or not isinstance(vocab_size, int):
        raise ValueError(f"vocab_size must be an integer, got {vocab_size!r}")
    if vocab_size < 256:
        raise ValueError(f"vocab_size must be at least 256 (one token per byte), got {vocab_size}")
    return vocab_size


def training_chunks(text: str, pat_str: str | None, special_tokens: Sequence[str] = ()) -> list[bytes]:
    """The chunks (as UTF-8 bytes, in text order) whose pairs are counted.

    Special tokens are cut out first; then the split pattern (compiled like
    `Encoding` does, so training and encoding split alike) cuts each segment.
    Without a pattern each segment is one chunk.
    """
    text = repair_surrogates(text)
    if special_tokens:
        specials = regex.compile("|".join(regex.escape(t) for t in sorted(special_tokens, key=lambda t: (-len(t), t))))
        segments = [s for s in specials.split(text) if s]
    else:
        segments = [text] if text else []
    if pat_str is None:
        return [s.encode("utf-8") for s in segments]
    # The encoder's own splitter: built-in patterns take its fast paths, a user's pattern
    # runs with a time limit (ValueError instead of a hung server).
    splitter = Splitter(pat_str, trusted=pat_str in BUILTIN_PATTERNS)
    return [piece.encode("utf-8") for seg in segments for piece in splitter.split(seg)]


def build_encoding(
    merges: Sequence[tuple[int, int]],
    *,
    pat_str: str | None,
    special_tokens: Sequence[str] | dict[str, int] = (),
    name: str | None = None,
    training: TrainingReport | None = None,
) -> Encoding:
    """An `Encoding` with minbpe's ids: byte b is id b, merge i is id 256 + i.

    Special tokens given as a list get the ids right after the merges.
    Raises ValueError if two merges make the same bytes (an `Encoding` maps
    each token's bytes to one id).
    """
    vocab = [bytes([b]) for b in range(256)]
    ranks = {tok: i for i, tok in enumerate(vocab)}
    merge_ids: dict[tuple[int, int], int] = {}
    for a, b in merges:
        tok = vocab[a] + vocab[b]
        new_id = len(vocab)
        if tok in ranks:
            raise ValueError(f"merge {new_id} ({a}, {b}) makes {tok!r} again (already id {ranks[tok]})")
        vocab.append(tok)
        ranks[tok] = new_id
        merge_ids[(a, b)] = new_id
    if isinstance(special_tokens, dict):
        specials = dict(special_tokens)
    else:
        specials = {tok: len(vocab) + k for k, tok in enumerate(special_tokens)}
    pattern = RAW_PAT_STR if pat_str is None else pat_str
    if name is None:
        digest = hashlib.sha256(repr((pattern, list(merges), sorted(specials.items()))).encode()).hexdigest()[:8]
        name = f"trained-{len(vocab)}-{digest}"
    return Encoding(name, pat_str=pattern, mergeable_ranks=ranks, special_tokens=specials, merges=merge_ids,
                    training=training)


def finish(
    merges: list[MergeInfo],
    *,
    vocab_size: int,
    pat_str: str | None,
    specials: list[str],
    name: str | None,
    n_chunks: int,
    n_unique: int,
    n_bytes: int,
    started: float,
) -> Encoding:
    """Build the `Encoding` with its `TrainingReport`, warn if training stopped early."""
    stopped = 256 + len(merges) < vocab_size
    if stopped:
        message = (
            f"stopped after {len(merges)} of {vocab_size - 256} merges: no pair of adjacent tokens is left "
            f"(every {'chunk' if pat_str is not None else 'text segment'} is a single token). "
            "Use a longer text or a smaller vocabulary size."
        )
        warnings.warn(message, TrainingStoppedEarly, stacklevel=3)
    else:
        message = f"learned {len(merges)} merges: vocabulary of {256 + len(merges)} tokens"
    report = TrainingReport(
        vocab_size, pat_str, tuple(merges), stopped, message, n_chunks, n_unique, n_bytes, time.perf_counter() - started
    )
    return build_encoding([m.pair for m in merges], pat_str=pat_str, special_tokens=specials, name=name, training=report)


# ----------------------------------------------------------- the fast trainer
def train_bpe(
    text: str,
    vocab_size: int,
    *,
    pat_str: str | None = None,
    special_tokens: Iterable[str] | None = None,
    progress: Progress | None = None,
    name: str | None = None,
) -> Encoding:
    """Learn ``vocab_size - 256`` merges from `text`, exactly as minbpe would.

    ``pat_str=None`` trains on raw bytes (minbpe's BasicTokenizer); a split
    pattern in tiktoken's syntax (e.g. ``engine.sources.openai_public.CL100K_PAT_STR``)
    trains on its pieces (RegexTokenizer).  ``progress(i, total, info)`` is
    called after merge i (1-based).  The result's ``training`` attribute is a
    `TrainingReport` with every merge's count and whether it won a tie.

        >>> enc = train_bpe("aaabdaaabac", 259)
        >>> enc.merges
        {(97, 97): 256, (256, 97): 257, (257, 98): 258}
    """
    started = time.perf_counter()
    vocab_size = check_vocab_size(vocab_size)
    specials = check_special_tokens(special_tokens)
    if pat_str is not None:
        compile_pattern(pat_str)  # ValueError for a bad pattern, before any work
    chunks = training_chunks(text, pat_str, specials)
    unique = Counter(chunks)  # insertion order = first appearance = minbpe's scan order

    # Nodes: every byte of every unique chunk (of 2+ bytes), chunk after chunk.
    tok: list[int] = []
    nxt: list[int] = []
    prv: list[int] = []
    weight: list[int] = []
    for chunk, mult in unique.items():
        n = len(chunk)
        if n < 2:
            continue
        base = len(tok)
        tok.extend(chunk)
        weight.extend([mult] * n)
        nxt.extend(range(base + 1, base + n))
        nxt.append(-1)
        prv.append(-1)
        prv.extend(range(base, base + n - 1))
    length = [1] * len(tok)  # bytes in the token starting at each node (for MergeInfo only)

    count: dict[tuple[int, int], int] = {}
    where: dict[tuple[int, int], set[int]] = {}
    first: dict[tuple[int, int], int] = {}
    for i, j in enumerate(nxt):
        if j < 0:
            continue
        pair = (tok[i], tok[j])
        if pair in count:
            count[pair] += weight[i]
            where[pair].add(i)
        else:
            count[pair] = weight[i]
            where[pair] = {i}
            first[pair] = i  # nodes are visited in scan order
    dirty: set[tuple[int, int]] = set()  # pairs whose `first` may be too small (a lower bound)
    heap = [(-c, first[p], p) for p, c in count.items()]
    heapq.heapify(heap)

    def stale(entry: tuple[int, int, tuple[int, int]]) -> bool:
        negc, f, pair = entry
        return count.get(pair) != -negc or (pair not in dirty and first[pair] != f)

    def pop_best() -> tuple[int, int] | None:
        while heap:
            entry = heap[0]
            if stale(entry):
                heapq.heappop(heap)
                continue
            negc, _, pair = entry
            if pair in dirty:  # recompute the true first position, then let it compete again
                dirty.discard(pair)
                first[pair] = min(where[pair])
                heapq.heapreplace(heap, (negc, first[pair], pair))
                continue
            heapq.heappop(heap)
            return pair
        return None

    vocab = [bytes([b]) for b in range(256)]
    merges: list[MergeInfo] = []
    total = vocab_size - 256
    for rank in range(total):
        best = pop_best()
        if best is None:
            break
        best_count = count.pop(best)
        positions = sorted(where.pop(best))
        del first[best]
        while heap and stale(heap[0]):
            heapq.heappop(heap)
        tied = bool(heap) and -heap[0][0] == best_count  # another pair has the top count
        new_id = 256 + rank
        a, b = best
        changed: set[tuple[int, int]] = set()
        replaced = 0

        def remove(pair: tuple[int, int], pos: int, w: int) -> None:
            if pair == best:  # an overlapping occurrence of the pair being merged
                return
            c = count[pair] - w
            if c:
                count[pair] = c
                where[pair].discard(pos)
                if first[pair] == pos:
                    dirty.add(pair)
                changed.add(pair)
            else:
                del count[pair], where[pair], first[pair]
                dirty.discard(pair)
                changed.discard(pair)

        def add(pair: tuple[int, int], pos: int, w: int) -> None:
            if pair in count:
                count[pair] += w
                where[pair].add(pos)
                if pos < first[pair]:
                    first[pair] = pos
            else:
                count[pair] = w
                where[pair] = {pos}
                first[pair] = pos
            changed.add(pair)

        for i in positions:  # left to right, like minbpe's `merge`
            j = nxt[i]
            if tok[i] != a or j < 0 or tok[j] != b:
                continue  # consumed by an overlapping occurrence just before
            w = weight[i]
            replaced += w
            h = prv[i]
            k = nxt[j]
            if h >= 0:
                remove((tok[h], a), h, w)
            if k >= 0:
                remove((b, tok[k]), j, w)
            tok[i] = new_id
            tok[j] = -1
            length[i] += length[j]
            nxt[i] = k
            if k >= 0:
                prv[k] = i
            if h >= 0:
                add((tok[h], new_id), h, w)
            if k >= 0:
                add((new_id, tok[k]), i, w)
        for pair in changed:
            heapq.heappush(heap, (-count[pair], first[pair], pair))

        vocab.append(vocab[a] + vocab[b])
        info = MergeInfo(rank, best, new_id, vocab[new_id], best_count, tied, replaced)
        merges.append(info)
        if progress is not None:
            progress(rank + 1, total, info)

    return finish(merges, vocab_size=vocab_size, pat_str=pat_str, specials=specials, name=name,
                  n_chunks=len(chunks), n_unique=len(unique), n_bytes=sum(map(len, chunks)), started=started)
