"""SuperBPE: byte-level BPE whose late merges may cross whitespace, making *superwords* (`` by the way``).

Liu, Hayase, Hofmann, Oh, Smith and Choi, "SuperBPE: Space Travel for Language Models" (COLM 2025,
arXiv 2503.13423).  Plain BPE never merges across a space because its pre-tokenizer cuts the text at
words first.  SuperBPE trains in two stages with one merge list:

1. **Stage 1, merges 0 .. t-1**: plain BPE on the pieces of `STAGE1_PATTERN`, the pattern the authors
   train with (PythonNut/superbpe @ bbd0976, ``scripts/train_tokenizer.sh`` line 4: o200k's pattern
   without its contraction suffixes).  We use theirs, not cl100k or o200k, because stage 2's pattern is
   written to go with it (the same ``\\p{N}{1,3}`` digits, the same punctuation runs).
2. **Stage 2**: the text is cut again, by `STAGE2_PATTERN` (``scripts/extend_tokenizer.sh`` line 5) used
   as a ``Split`` with behaviour ``isolated`` (``utils.py`` lines 57-68): each match -- 1 to 3 digits, a run
   of 2+ punctuation characters, spaces that end a line -- is a piece, and so is all the text *between*
   matches, words, single spaces and single punctuation together.  That is where superwords grow.  The t
   stage-1 merges are replayed on the new pieces, in order, each applied everywhere (the fork
   alisawuffles/tokenizers-superbpe @ 757f2a5, ``tokenizers/src/models/bpe/trainer.rs`` line 558,
   ``do_train_extend``'s "Inherit all the existing merges"), then training resumes: the most frequent pair,
   except that the fork never makes a token holding ``": "`` nor one of more than four space-separated
   words (trainer.rs lines 724-735).  A merge whose bytes are already a token keeps that token's id
   (trainer.rs line 746), so the vocabulary grows by one per *new* token and training stops when it
   reaches ``vocab_size`` (line 689).

Where we differ from the fork, on purpose:

* **Ties.** The fork's heap breaks a count tie by the smaller pair of ids (``impl Ord for Merge``, line 29)
  with ids from hash-map order; we keep minbpe's rule in both stages, as `engine.training.trainer` states
  it: the pair whose first occurrence in the current (already merged) text comes first.  So stage 1 *is*
  ``train_bpe(text, 256 + t, pat_str=STAGE1_PATTERN)``, merge for merge, and the tests hold us to it.
* **Inherited merges the stage-2 pieces lack.** The fork drops them from the list (line 586); we keep all t,
  so stage 1 stays the plain BPE it was.  With one corpus for both stages this only happens when a stage-2
  cut falls inside a stage-1 piece.

*Superword*: a token with two or more space-separated parts that hold something other than whitespace
(`is_superword`); stage 1 cannot make one, because no stage-1 piece holds a space after its first byte.

The fast trainer keeps the unique chunks as one linked list of nodes with a pair -> positions index and a
heap keyed by (-count, first position), exactly like `engine.training.trainer` (whose docstring explains the
first-position trap); `train_superbpe_reference` recounts every pair of every chunk at every step.  Encoding
(`SuperBPEEncoder`) merges by pair rank, as the reference's `tokenizers` BPE model does, not by the rank of
the merged bytes as tiktoken does.
"""
from __future__ import annotations

import heapq
import json
import time
from collections import Counter
from dataclasses import dataclass
from typing import Callable, Iterable, Sequence

import regex

from ..records import MergeInfo
from ..text import repair_surrogates
from ..tokenizer.gpt2_bytes import BYTE_TO_CHAR, byte_level_bpe_tree
from .reference import get_stats, merge as merge_ids

STAGE1_PATTERN = (r"[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+"
                  r"|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*"
                  r"|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+")
STAGE2_PATTERN = r"\p{N}{1,3}| ?[^\s\p{L}\p{N}]{2,}[\r\n/]*| +(?!\S)"
_STAGE1 = regex.compile(STAGE1_PATTERN)
_STAGE2 = regex.compile(STAGE2_PATTERN)
MAX_WORDS = 4  # the fork's cap on words per token (trainer.rs line 732)

Progress = Callable[[int, int], None]
Pair = tuple[int, int]


# ------------------------------------------------------------------ pieces and rules
def stage1_pieces(text: str) -> list[str]:
    """`text` cut by the stage-1 pattern (words, numbers, punctuation, whitespace), in order."""
    return _STAGE1.findall(repair_surrogates(text))


def stage2_pieces(text: str) -> list[str]:
    """`text` cut as the stage-2 ``Split(behavior="isolated")`` cuts it: every match and every gap between.

        >>> stage2_pieces("By the way, 2024... ok  ")
        ['By the way, ', '202', '4', '...', ' ok', '  ']
    """
    text = repair_surrogates(text)
    out, at = [], 0
    for m in _STAGE2.finditer(text):  # the pattern cannot match empty
        if m.start() > at:
            out.append(text[at:m.start()])
        out.append(m.group())
        at = m.end()
    if at < len(text):
        out.append(text[at:])
    return out


def is_superword(token: bytes) -> bool:
    """Two or more space-separated parts with something besides whitespace: ``b" by the"`` yes, ``b" the"`` no."""
    return sum(1 for part in token.split(b" ") if part.strip()) >= 2


def allowed_in_stage2(token: bytes) -> bool:
    """The fork's two rules (trainer.rs lines 724-735): no ``": "`` inside, at most four words (split on spaces)."""
    return b": " not in token and sum(1 for part in token.split(b" ") if part) <= MAX_WORDS


def transition_merges(vocab_size: int, fraction: float) -> int:
    """The transition point t as a number of stage-1 merges: `fraction` of the vocabulary, less the 256 bytes."""
    if not 0 <= fraction <= 1:
        raise ValueError(f"the transition is a fraction of the vocabulary between 0 and 1, got {fraction!r}")
    return max(0, round(vocab_size * fraction) - 256)


# ------------------------------------------------------------------ the result
@dataclass(frozen=True)
class SuperBPEResult:
    """The merge list (stage 1, then stage 2), where stage 2 starts, and every token's bytes by id."""

    merges: tuple[MergeInfo, ...]
    transition: int  # t: merges made in stage 1
    vocab: tuple[bytes, ...]  # id -> bytes; ids 0-255 are the bytes
    vocab_size: int  # asked for
    skipped: int  # distinct pairs stage 2 passed over when they came up (the fork's ": " and four-word rules)
    seconds: float

    @property
    def stopped_early(self) -> bool:
        return len(self.vocab) < self.vocab_size

    @property
    def superwords(self) -> tuple[int, ...]:
        """The ids of the superword tokens, in the order they were made."""
        return tuple(i for i in range(256, len(self.vocab)) if is_superword(self.vocab[i]))


def _check(vocab_size: int, transition: int) -> None:
    if isinstance(vocab_size, bool) or not isinstance(vocab_size, int) or vocab_size <= 256:
        raise ValueError(f"vocab_size must be more than 256 (the bytes) to learn any merge, got {vocab_size!r}")
    if isinstance(transition, bool) or not isinstance(transition, int) or not 0 <= transition <= vocab_size - 256:
        raise ValueError(f"the transition t is a number of stage-1 merges from 0 to vocab_size - 256 = "
                         f"{vocab_size - 256}, got {transition!r}")


# ------------------------------------------------------------------ the fast trainer
class _Pairs:
    """Unique chunks as one linked list of nodes (in order of first appearance, so a node's index is the
    scan order), pair counts, pair -> positions, and a lazy heap of (-count, first position, pair)."""

    def __init__(self, chunks: Iterable[bytes]) -> None:
        self.tok: list[int] = []
        self.nxt: list[int] = []
        self.prv: list[int] = []
        self.weight: list[int] = []
        for chunk, mult in Counter(chunks).items():
            n = len(chunk)
            if n < 2:
                continue
            base = len(self.tok)
            self.tok.extend(chunk)
            self.weight.extend([mult] * n)
            self.nxt.extend(range(base + 1, base + n))
            self.nxt.append(-1)
            self.prv.append(-1)
            self.prv.extend(range(base, base + n - 1))
        self.count: dict[Pair, int] = {}
        self.where: dict[Pair, set[int]] = {}
        self.first: dict[Pair, int] = {}
        for i, j in enumerate(self.nxt):
            if j >= 0:
                self._add((self.tok[i], self.tok[j]), i, self.weight[i])
        self.dirty: set[Pair] = set()  # pairs whose `first` may be too small (a lower bound)
        self.banned: set[Pair] = set()  # pairs stage 2 never merges
        self.heap = [(-c, self.first[p], p) for p, c in self.count.items()]
        heapq.heapify(self.heap)

    def _add(self, pair: Pair, pos: int, w: int) -> None:
        if pair in self.count:
            self.count[pair] += w
            self.where[pair].add(pos)
            if pos < self.first[pair]:
                self.first[pair] = pos
        else:
            self.count[pair] = w
            self.where[pair] = {pos}
            self.first[pair] = pos

    def _stale(self, entry: tuple[int, int, Pair]) -> bool:
        negc, f, pair = entry
        return (pair in self.banned or self.count.get(pair) != -negc
                or (pair not in self.dirty and self.first[pair] != f))

    def best(self, allowed: Callable[[Pair], bool]) -> Pair | None:
        """The most frequent allowed pair, the one seen first on a tie; a pair found not allowed is banned."""
        heap = self.heap
        while heap:
            entry = heap[0]
            if self._stale(entry):
                heapq.heappop(heap)
                continue
            negc, _, pair = entry
            if pair in self.dirty:  # recompute the true first position, then let it compete again
                self.dirty.discard(pair)
                self.first[pair] = min(self.where[pair])
                heapq.heapreplace(heap, (negc, self.first[pair], pair))
                continue
            if not allowed(pair):
                self.banned.add(pair)
                heapq.heappop(heap)
                continue
            return pair
        return None

    def runner_up(self, allowed: Callable[[Pair], bool]) -> int | None:
        """The count of the best allowed pair after the one `best` just left on top (whose entry goes: the
        merge about to be made drops its count anyway) -- to tell whether that merge won a tie.  It looks down
        the heap exactly as `best` does, so the pairs it passes over are the reference's."""
        heapq.heappop(self.heap)
        pair = self.best(allowed)
        return None if pair is None else self.count[pair]

    def apply(self, pair: Pair, new_id: int) -> tuple[int, int]:
        """Merge `pair` into `new_id` everywhere, left to right; (its count before, tokens saved)."""
        best_count = self.count.pop(pair, 0)
        if not best_count:
            return 0, 0
        positions = sorted(self.where.pop(pair))
        del self.first[pair]
        self.dirty.discard(pair)
        tok, nxt, prv = self.tok, self.nxt, self.prv
        a, b = pair
        changed: set[Pair] = set()
        replaced = 0

        def remove(p: Pair, pos: int, w: int) -> None:
            if p == pair:  # an overlapping occurrence of the pair being merged
                return
            c = self.count[p] - w
            if c:
                self.count[p] = c
                self.where[p].discard(pos)
                if self.first[p] == pos:
                    self.dirty.add(p)
                changed.add(p)
            else:
                del self.count[p], self.where[p], self.first[p]
                self.dirty.discard(p)
                changed.discard(p)

        for i in positions:
            j = nxt[i]
            if tok[i] != a or j < 0 or tok[j] != b:
                continue  # consumed by an overlapping occurrence just before
            w = self.weight[i]
            replaced += w
            h, k = prv[i], nxt[j]
            if h >= 0:
                remove((tok[h], a), h, w)
            if k >= 0:
                remove((b, tok[k]), j, w)
            tok[i] = new_id
            tok[j] = -1
            nxt[i] = k
            if k >= 0:
                prv[k] = i
            if h >= 0:
                self._add((tok[h], new_id), h, w)
                changed.add((tok[h], new_id))
            if k >= 0:
                self._add((new_id, tok[k]), i, w)
                changed.add((new_id, tok[k]))
        for p in changed:
            heapq.heappush(self.heap, (-self.count[p], self.first[p], p))
        return best_count, replaced


class _Vocab:
    """Token bytes by id, and the id of each token's bytes: a merge that makes known bytes reuses their id."""

    def __init__(self) -> None:
        self.tokens = [bytes([b]) for b in range(256)]
        self.ids = {t: i for i, t in enumerate(self.tokens)}

    def make(self, pair: Pair) -> int:
        data = self.tokens[pair[0]] + self.tokens[pair[1]]
        found = self.ids.get(data)
        if found is not None:
            return found
        self.ids[data] = len(self.tokens)
        self.tokens.append(data)
        return len(self.tokens) - 1


def _greedy(pairs: _Pairs, vocab: _Vocab, merges: list[MergeInfo], *, until_vocab: int, max_merges: int,
            allowed: Callable[[Pair], bool], step: Callable[[], None]) -> None:
    """Merge the best allowed pair until the vocabulary holds `until_vocab` tokens (or `max_merges` are made)."""
    made = 0
    while len(vocab.tokens) < until_vocab and made < max_merges:
        pair = pairs.best(allowed)
        if pair is None:
            return
        count = pairs.count[pair]
        tied = pairs.runner_up(allowed) == count  # before the merge changes any count
        new_id = vocab.make(pair)
        _, replaced = pairs.apply(pair, new_id)
        merges.append(MergeInfo(len(merges), pair, new_id, vocab.tokens[new_id], count, tied, replaced))
        made += 1
        step()


def train_superbpe(text: str, vocab_size: int, transition: int, *, progress: Progress | None = None) -> SuperBPEResult:
    """Learn a SuperBPE vocabulary of `vocab_size` tokens (256 bytes + merges) with `transition` stage-1 merges.

    ``progress(done, total)`` is called after each merge (stage 1's t, then stage 2's up to the vocabulary).
    """
    started = time.perf_counter()
    _check(vocab_size, transition)
    total = vocab_size - 256
    done = [0]

    def step() -> None:
        done[0] += 1
        if progress is not None:
            progress(min(done[0], total), total)

    vocab = _Vocab()
    merges: list[MergeInfo] = []
    stage1 = _Pairs(p.encode("utf-8") for p in stage1_pieces(text))
    _greedy(stage1, vocab, merges, until_vocab=vocab_size, max_merges=transition, allowed=lambda p: True, step=step)
    t = len(merges)  # fewer than asked only if stage 1 ran out of pairs: stage 2 still may find some
    skipped = 0
    if len(vocab.tokens) < vocab_size:
        stage2 = _Pairs(p.encode("utf-8") for p in stage2_pieces(text))
        for m in merges:  # replay stage 1 on the stage-2 pieces, in order, each merge everywhere
            stage2.apply(m.pair, m.new_id)

        def allowed(pair: Pair) -> bool:
            return allowed_in_stage2(vocab.tokens[pair[0]] + vocab.tokens[pair[1]])

        _greedy(stage2, vocab, merges, until_vocab=vocab_size, max_merges=1 << 62, allowed=allowed, step=step)
        skipped = len(stage2.banned)
    return SuperBPEResult(tuple(merges), t, tuple(vocab.tokens), vocab_size, skipped, time.perf_counter() - started)


# ------------------------------------------------------------------ the slow reference
def train_superbpe_reference(text: str, vocab_size: int, transition: int) -> SuperBPEResult:
    """`train_superbpe` the obvious way: every step recounts every pair of every chunk (in text order) and
    takes Python's ``max`` (the first maximal pair in insertion order, i.e. the one seen first)."""
    started = time.perf_counter()
    _check(vocab_size, transition)
    vocab = _Vocab()
    merges: list[MergeInfo] = []
    banned: set[Pair] = set()

    def allowed(pair: Pair) -> bool:
        return allowed_in_stage2(vocab.tokens[pair[0]] + vocab.tokens[pair[1]])

    def run(chunks: list[list[int]], limit: int, stage2: bool) -> list[list[int]]:
        while len(vocab.tokens) < vocab_size and len(merges) < limit:
            stats: dict[Pair, int] = {}
            for ids in chunks:
                get_stats(ids, stats)
            # Most frequent first, seen first on a tie (a stable sort keeps insertion order).  Stage 2 passes
            # over the pairs its rules forbid; those met before the runner-up count as skipped, as in the fast
            # trainer, which only looks that far down its heap.
            ranked = [p for p in sorted(stats, key=lambda p: -stats[p]) if p not in banned]
            picked: list[Pair] = []
            for p in ranked:
                if stage2 and not allowed(p):
                    banned.add(p)
                    continue
                picked.append(p)
                if len(picked) == 2:
                    break
            if not picked:
                break
            pair = picked[0]
            top = stats[pair]
            new_id = vocab.make(pair)
            before = sum(map(len, chunks))
            chunks = [merge_ids(ids, pair, new_id) for ids in chunks]
            tied = len(picked) == 2 and stats[picked[1]] == top
            merges.append(MergeInfo(len(merges), pair, new_id, vocab.tokens[new_id], top, tied,
                                    before - sum(map(len, chunks))))
        return chunks

    run([list(p.encode("utf-8")) for p in stage1_pieces(text)], transition, False)
    t = len(merges)
    if len(vocab.tokens) < vocab_size:
        chunks = [list(p.encode("utf-8")) for p in stage2_pieces(text)]
        for m in merges:
            chunks = [merge_ids(ids, m.pair, m.new_id) for ids in chunks]
        run(chunks, 1 << 62, True)
    return SuperBPEResult(tuple(merges), t, tuple(vocab.tokens), vocab_size, len(banned),
                          time.perf_counter() - started)


# ------------------------------------------------------------------ encoding and the file
CACHE_MAX_PIECES = 4096  # pieces remembered per encoder (stage-2 pieces are long: whole clauses)


class PairEncoder:
    """Encode with a merge list as `tokenizers`' BPE model does: cut the text into pieces, then in each piece
    merge the adjacent pair of lowest merge rank (the leftmost on a tie) until none is in the list.

    `for_result` builds SuperBPE's (stage-2 pieces, every merge); ``stage1=True`` gives plain BPE on the
    stage-1 pieces with the merges made before the transition, or all of them for a plain-BPE result.
    """

    def __init__(self, merges: Sequence[MergeInfo], vocab: Sequence[bytes], split: Callable[[str], list[str]]) -> None:
        self.vocab = tuple(vocab)
        self.split = split
        self.ranks: dict[Pair, tuple[int, int]] = {}
        for m in merges:
            self.ranks.setdefault(m.pair, (m.rank, m.new_id))
        self._cache: dict[bytes, tuple[int, ...]] = {}

    @classmethod
    def for_result(cls, result: SuperBPEResult, *, stage1: bool = False) -> PairEncoder:
        if stage1:
            return cls(result.merges[:result.transition], result.vocab, stage1_pieces)
        return cls(result.merges, result.vocab, stage2_pieces)

    def encode_piece(self, piece: bytes) -> tuple[int, ...]:
        """One piece's ids: a heap of (rank, position) over a linked list, stale entries skipped."""
        found = self._cache.get(piece)
        if found is not None:
            return found
        ids = list(piece)
        n = len(ids)
        nxt = list(range(1, n)) + [-1]
        prv = list(range(-1, n - 1))
        alive = [True] * n
        ranks = self.ranks
        heap = [(ranks[(ids[i], ids[i + 1])][0], i) for i in range(n - 1) if (ids[i], ids[i + 1]) in ranks]
        heapq.heapify(heap)
        while heap:
            rank, i = heapq.heappop(heap)
            j = nxt[i] if alive[i] else -1
            if j < 0 or ranks.get((ids[i], ids[j]), (-1,))[0] != rank:
                continue  # this pair changed since it was pushed
            ids[i] = ranks[(ids[i], ids[j])][1]
            alive[j] = False
            k = nxt[i] = nxt[j]
            if k >= 0:
                prv[k] = i
            for left, right in ((prv[i], i), (i, k)):
                if left >= 0 and right >= 0 and (ids[left], ids[right]) in ranks:
                    heapq.heappush(heap, (ranks[(ids[left], ids[right])][0], left))
        out = tuple(ids[i] for i in range(n) if alive[i])
        if len(self._cache) >= CACHE_MAX_PIECES:
            self._cache.clear()
        self._cache[piece] = out
        return out

    def encode_piece_reference(self, piece: bytes) -> tuple[int, ...]:
        """minbpe's encode loop: take the present pair of lowest rank, merge it everywhere, again."""
        ids = list(piece)
        while len(ids) >= 2:
            stats: dict[Pair, int] = {}
            get_stats(ids, stats)
            pair = min(stats, key=lambda p: self.ranks.get(p, (1 << 62,))[0])
            if pair not in self.ranks:
                break
            ids = merge_ids(ids, pair, self.ranks[pair][1])
        return tuple(ids)

    def encode(self, text: str) -> list[int]:
        return [i for piece in self.split(text) for i in self.encode_piece(piece.encode("utf-8"))]

    def encode_with_offsets(self, text: str) -> list[tuple[int, int, int]]:
        """(id, start byte, end byte) of every token, offsets into `text`'s UTF-8 bytes."""
        out, at = [], 0
        for piece in self.split(text):
            for i in self.encode_piece(piece.encode("utf-8")):
                end = at + len(self.vocab[i])
                out.append((i, at, end))
                at = end
        return out

    def decode_bytes(self, ids: Iterable[int]) -> bytes:
        return b"".join(self.vocab[i] for i in ids)


def _printable(data: bytes) -> str:
    return "".join(BYTE_TO_CHAR[b] for b in data)


def superbpe_tokenizer_json(result: SuperBPEResult) -> str:
    """The ``tokenizer.json`` the fork's training script writes (``utils.py`` lines 53-70): a BPE model with the
    stage-2 ``Split`` (isolated) then ``ByteLevel`` without its own regex, and a ByteLevel decoder.  Ids are
    ours (byte b is id b), every byte is in the vocabulary, so any text encodes."""
    vocab = {_printable(tok): i for i, tok in enumerate(result.vocab)}
    tree = byte_level_bpe_tree(vocab, [[_printable(result.vocab[a]), _printable(result.vocab[b])]
                                       for a, b in (m.pair for m in result.merges)])
    tree["pre_tokenizer"] = {"type": "Sequence", "pretokenizers": [
        {"type": "Split", "pattern": {"Regex": STAGE2_PATTERN}, "behavior": "Isolated", "invert": False},
        {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True, "use_regex": False},
    ]}
    return json.dumps(tree, ensure_ascii=False)
