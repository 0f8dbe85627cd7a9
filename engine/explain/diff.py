"""Two vocabularies side by side: what they share, what each adds, which tokens were learned earlier or later.

A byte-level BPE vocabulary is ``token bytes -> id`` (`mergeable_ranks`),
and the id of a merged token *is* its merge rank: the order in which its
trainer learned it, roughly from the most to the least frequent.  So comparing
two tokenizers at the vocabulary level is set arithmetic on the token bytes,
plus a comparison of order for the tokens both have:

* **shared / only in A / only in B** -- ``A & B``, ``A - B``, ``B - A`` on the
  ordinary tokens' bytes (special tokens are compared apart, by their text);
* **same id** -- shared tokens whose id is equal (GPT-2 -> cl100k_base: 259 of
  43,066, as GPT-2 and cl100k order their single bytes differently);
* **rank changes** -- for the shared tokens made by a merge (2+ bytes), each
  one's place among the shared tokens in A's order and in B's; a token that
  moved a long way was learned much earlier or later, a sign of a different
  training mix (code, other languages).  Absolute ids are not compared: a
  bigger vocabulary shifts every id.  Nearly every place changes a little, so
  the summary is Spearman's rank correlation of the two orders (1: the same
  order) and the tokens that moved by more than a tenth of the list;
* **length histograms** -- token lengths in bytes, per group.

Pure and deterministic: samples are the first tokens by id (the earliest
learned), then the largest moves.  The tests check every count against set
arithmetic on the two vocabularies.
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from ..api import EncodingAPI

SAMPLES = 40  # tokens listed per group
MOVES = 40  # largest rank changes listed
LONG = 16  # lengths from this many bytes share one histogram bar


@dataclass(frozen=True)
class TokenSample:
    """One token of a group: its bytes and its id in A and/or B (None where it is absent)."""

    bytes: bytes
    id_a: int | None
    id_b: int | None


@dataclass(frozen=True)
class RankMove:
    """A shared merged token's place among the shared tokens, in A's order and in B's."""

    bytes: bytes
    id_a: int
    id_b: int
    place_a: int
    place_b: int

    @property
    def shift(self) -> int:
        """Places moved: negative = learned earlier in B (relative to the other shared tokens)."""
        return self.place_b - self.place_a


@dataclass(frozen=True)
class VocabDiff:
    """The vocabulary-level difference of tokenizers A and B."""

    name_a: str
    name_b: str
    n_a: int  # ordinary tokens in A
    n_b: int
    shared: int
    only_a: int
    only_b: int
    same_id: int  # shared tokens with the same id in A and B
    merged_shared: int  # shared tokens of 2+ bytes (made by a merge in both)
    moved: int  # of those, how many sit at another place among the shared tokens
    moved_far: int  # of those, how many moved by more than a tenth of `merged_shared` places
    spearman: float  # rank correlation of the shared merged tokens' order in A and in B (1.0: same order)
    samples_shared: tuple[TokenSample, ...]
    samples_only_a: tuple[TokenSample, ...]
    samples_only_b: tuple[TokenSample, ...]
    moves: tuple[RankMove, ...]  # the largest moves, largest first
    lengths: dict[str, tuple[tuple[int, int], ...]]  # group -> ((length in bytes, tokens), ...); LONG means LONG+
    specials_shared: tuple[str, ...]
    specials_only_a: tuple[str, ...]
    specials_only_b: tuple[str, ...]


def _histogram(lengths: Counter) -> tuple[tuple[int, int], ...]:
    folded: Counter = Counter()
    for n, c in lengths.items():
        folded[min(n, LONG)] += c
    return tuple(sorted(folded.items()))


def vocab_diff(a: EncodingAPI, b: EncodingAPI, *, samples: int = SAMPLES, moves: int = MOVES) -> VocabDiff:
    """Compare the vocabularies of `a` and `b` (any family: each one's ``mergeable_ranks``)."""
    ranks_a, ranks_b = a.mergeable_ranks, b.mergeable_ranks
    keys_a, keys_b = set(ranks_a), set(ranks_b)
    shared = keys_a & keys_b
    only_a = keys_a - keys_b
    only_b = keys_b - keys_a

    def by_id(keys: set[bytes], ranks) -> list[bytes]:
        return sorted(keys, key=lambda t: (ranks[t], t))

    shared_in_a = by_id(shared, ranks_a)
    merged_a = [t for t in shared_in_a if len(t) > 1]
    place_a = {t: i for i, t in enumerate(merged_a)}
    merged_b = sorted(merged_a, key=lambda t: (ranks_b[t], t))
    place_b = {t: i for i, t in enumerate(merged_b)}
    all_moves = [RankMove(t, ranks_a[t], ranks_b[t], place_a[t], place_b[t]) for t in merged_a if place_a[t] != place_b[t]]
    biggest = sorted(all_moves, key=lambda m: (-abs(m.shift), m.place_a))[:moves]

    n = len(merged_a)
    far = n // 10
    spearman = 1.0 if n < 2 else 1 - 6 * sum(m.shift ** 2 for m in all_moves) / (n * (n * n - 1))
    specials_a, specials_b = set(a.special_tokens), set(b.special_tokens)
    return VocabDiff(
        name_a=a.name,
        name_b=b.name,
        n_a=len(keys_a),
        n_b=len(keys_b),
        shared=len(shared),
        only_a=len(only_a),
        only_b=len(only_b),
        same_id=sum(1 for t in shared if ranks_a[t] == ranks_b[t]),
        merged_shared=len(merged_a),
        moved=len(all_moves),
        moved_far=sum(1 for m in all_moves if abs(m.shift) > far),
        spearman=spearman,
        samples_shared=tuple(TokenSample(t, ranks_a[t], ranks_b[t]) for t in merged_a[:samples]),
        samples_only_a=tuple(TokenSample(t, ranks_a[t], None) for t in by_id(only_a, ranks_a)[:samples]),
        samples_only_b=tuple(TokenSample(t, None, ranks_b[t]) for t in by_id(only_b, ranks_b)[:samples]),
        moves=tuple(biggest),
        lengths={
            "shared": _histogram(Counter(map(len, shared))),
            "only_a": _histogram(Counter(map(len, only_a))),
            "only_b": _histogram(Counter(map(len, only_b))),
        },
        specials_shared=tuple(sorted(specials_a & specials_b)),
        specials_only_a=tuple(sorted(specials_a - specials_b)),
        specials_only_b=tuple(sorted(specials_b - specials_a)),
    )
