"""Training, one merge at a time: what minbpe's loop sees at every step, for a teaching view.

`training_steps` runs karpathy/minbpe's training loop (``basic.py`` /
``regex.py``) literally, like `engine.training.reference`, and keeps a record
of every step instead of only its result:

* **the pair counts** -- every adjacent pair of ids in every chunk, overlaps
  included (``aaa`` has two ``(a, a)``), listed by count and, within a count,
  in the order minbpe's dict first saw them (scanning the chunks in text order);
* **the winner** -- ``max(stats, key=stats.get)``: the highest count, and on a
  tie the pair seen *first*, because Python's `max` keeps the first maximal key
  of a dict that iterates in insertion order;
* **the ties** -- the other pairs with the winner's count, which lost only
  because they were seen later;
* **the tokens** -- every chunk's ids after the merge, so the text can be
  redrawn, and their number (tokens per byte falls as merges are learned).

The slow recount is the point here (each step shows what a recount sees), so
the text and the number of merges are small: `MAX_STEP_TEXT_BYTES`,
`MAX_STEP_MERGES`.  The fast trainer (`engine.training.trainer.train_bpe`)
learns the same merges; the tests check both, at every step.
"""
from __future__ import annotations

from dataclasses import dataclass

from ..tokenizer.patterns import compile_pattern
from .reference import get_stats, merge
from .trainer import training_chunks

MAX_STEP_TEXT_BYTES = 4_000  # a recount per step of a text this long stays well under a second for 200 merges
MAX_STEP_MERGES = 200

PRESETS = {
    "aaabdaaabac": "aaabdaaabac",  # the example of Wikipedia's "Byte pair encoding" article
    "nursery rhyme": (
        "Hickory, dickory, dock.\nThe mouse ran up the clock.\nThe clock struck one,\nThe mouse ran down,\n"
        "Hickory, dickory, dock.\n"
    ),
    "two scripts": (
        "The cat sat on the mat, and the cat sat on the hat. "
        "Кошка сидела на коврике, и кошка сидела на шляпе. "
        "The mat and the hat: кошка, коврик, шляпа."
    ),
}


@dataclass(frozen=True)
class PairCount:
    """One adjacent pair of ids and how often it occurs at this step (overlapping occurrences included)."""

    pair: tuple[int, int]
    count: int


@dataclass(frozen=True)
class TrainingStep:
    """Step `rank` of minbpe's loop: what it counted, what it merged, and the text's tokens afterwards."""

    rank: int  # 0-based; the new token's id is 256 + rank
    pairs: tuple[PairCount, ...]  # the top pairs, by count, ties in minbpe's order (first seen first)
    n_pairs: int  # distinct pairs counted at this step (`pairs` may show fewer)
    winner: tuple[int, int]
    count: int
    ties: tuple[tuple[int, int], ...]  # the other pairs with the winner's count, in the order minbpe saw them
    new_bytes: bytes
    replaced: int  # occurrences replaced (fewer than `count` in a run like ``aaa``)
    tokens: tuple[tuple[int, ...], ...]  # every chunk's ids after this merge
    n_tokens: int

    @property
    def new_id(self) -> int:
        return 256 + self.rank


@dataclass(frozen=True)
class TrainingWalk:
    """Every step of a training run on a small text."""

    pat_str: str | None
    initial: tuple[tuple[int, ...], ...]  # the chunks' bytes before any merge
    n_bytes: int
    steps: tuple[TrainingStep, ...]
    stopped_early: bool  # no pair was left before the requested number of merges

    def token_bytes(self, token_id: int) -> bytes:
        """The bytes of a byte (id < 256) or of a token learned in this walk."""
        if token_id < 256:
            return bytes([token_id])
        return self.steps[token_id - 256].new_bytes

    def tokens_after(self, k: int) -> tuple[tuple[int, ...], ...]:
        """The chunks' ids after `k` merges (k = 0: the bytes)."""
        return self.initial if k == 0 else self.steps[k - 1].tokens

    def tokens_per_byte(self) -> list[float]:
        """Tokens per byte of text after 0, 1, …, all merges (1.0 before any merge)."""
        counts = [self.n_bytes] + [s.n_tokens for s in self.steps]
        return [c / self.n_bytes if self.n_bytes else 1.0 for c in counts]


def training_steps(text: str, n_merges: int, *, pat_str: str | None = None, top: int = 12) -> TrainingWalk:
    """Run up to `n_merges` steps of minbpe's training on `text` and record each one.

    ``pat_str=None`` trains on the raw bytes (minbpe's BasicTokenizer); a split
    pattern trains on its pieces (RegexTokenizer), with pairs never crossing a piece.
    `top` bounds how many pairs each step lists (all are counted).

        >>> walk = training_steps("aaabdaaabac", 3)
        >>> [s.new_bytes for s in walk.steps]
        [b'aa', b'aaa', b'aaab']
    """
    if isinstance(n_merges, bool) or not isinstance(n_merges, int) or n_merges < 0:
        raise ValueError(f"the number of merges must be a whole number, 0 or more; got {n_merges!r}")
    if n_merges > MAX_STEP_MERGES:
        raise ValueError(f"step-by-step training shows at most {MAX_STEP_MERGES} merges; asked for {n_merges}. "
                         "Train a bigger vocabulary with the trainer above instead.")
    n_bytes = len(text.encode("utf-8", "surrogatepass"))
    if n_bytes > MAX_STEP_TEXT_BYTES:
        raise ValueError(f"step-by-step training takes at most {MAX_STEP_TEXT_BYTES:,} bytes of text; this one has "
                         f"{n_bytes:,}. Use a shorter text, or train on it with the trainer above.")
    if pat_str is not None:
        compile_pattern(pat_str)  # ValueError for a bad pattern
    ids = [list(chunk) for chunk in training_chunks(text, pat_str)]
    initial = tuple(tuple(c) for c in ids)
    vocab = [bytes([b]) for b in range(256)]
    steps: list[TrainingStep] = []
    for rank in range(n_merges):
        stats: dict[tuple[int, int], int] = {}
        for chunk in ids:
            get_stats(chunk, stats)
        if not stats:
            break
        winner = max(stats, key=stats.get)
        best = stats[winner]
        ranked = sorted(stats.items(), key=lambda kv: -kv[1])  # stable: first-seen order within a count
        before = sum(map(len, ids))
        ids = [merge(chunk, winner, 256 + rank) for chunk in ids]
        after = sum(map(len, ids))
        vocab.append(vocab[winner[0]] + vocab[winner[1]])
        steps.append(TrainingStep(
            rank=rank,
            pairs=tuple(PairCount(p, c) for p, c in ranked[:top]),
            n_pairs=len(stats),
            winner=winner,
            count=best,
            ties=tuple(p for p, c in stats.items() if c == best and p != winner),
            new_bytes=vocab[-1],
            replaced=before - after,
            tokens=tuple(tuple(c) for c in ids),
            n_tokens=after,
        ))
    return TrainingWalk(pat_str, initial, sum(map(len, initial)), tuple(steps), len(steps) < n_merges)
