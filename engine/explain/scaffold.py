r"""Scaffold tokens: tokens a BPE vocabulary keeps only as steps towards longer tokens.

BPE learns a merge because the pair was frequent *while training*; later merges
often swallow the result, so the token is in the vocabulary but is rarely the
final token of any text.  Sun, Yang, Lin and Zhang call these "intermediate
merge residues" (LiteToken, arXiv:2602.04706, 2026) and find 5-10% of the
vocabularies of Qwen, DeepSeek, Llama 3, Gemma 3 and o200k to be such tokens
on C4.  They count, per token `t` over a corpus::

    F1(t)  how often t is *emitted*: an id of the corpus's encoding
    F2(t)  how often t is an *intermediate*: built by a merge while encoding,
           then merged again into a longer token

and rank tokens by F1 / (F1 + F2).  Here, precisely:

* ``emitted[t]``: occurrences of `t` in ``encode_ordinary`` of every text.
* ``inside[t]``: for every emitted occurrence of a token `e`, the number of
  *inner* nodes of `e`'s merge tree (`Encoding.merge_tree`) whose id is `t`,
  summed.  An inner node is neither the root (that is `e` itself, counted in
  ``emitted``) nor a leaf (a single byte or starting character: the alphabet,
  which no merge made and none could remove).  A token met twice in one tree
  counts twice.  This is F2: the merges BPE does inside one emitted token's
  span are exactly that token's tree (a merge never crosses the boundary of
  a final token, and the pairs inside the span merge in rank order whatever
  lies outside it).
* a **scaffold** token is one with ``emitted == 0`` and ``inside >= 1`` over
  the corpus: the corpus needed it as a step and never as a result.  The
  paper's own cut is a low F1/(F1+F2) ratio plus a filter on the token's
  neighbours; zero emissions is the plain, checkable end of that scale.

Two shares are given: of the whole vocabulary (what the paper reports; a small
corpus reaches only part of the vocabulary, so it is far below 5-10%) and of the
tokens the corpus reached at all (emitted or inside), which a small corpus can
measure.

A token with no tree (Llama 3's tokens that only a whole piece equal to them
makes; a WordPiece or Unigram model merges nothing) has no inner nodes.  Trees
are built once per *distinct* emitted token (`scaffold_counts`);
`scaffold_counts_reference` rebuilds the tree for every occurrence and walks it
recursively: slow, obviously right, and the tests check the two agree.
"""
from __future__ import annotations

import hashlib
import json
from collections import Counter
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Iterable, Mapping

from ..api import EncodingAPI
from ..records import MergeNode
from ..tokenizer.merges import merge_tree_of
from .algorithms import algorithm_of
from .arena import language_samples

BUILTIN_CORPUS = "languages.json"  # the label of `builtin_corpus()`
SUMMARY_FILE = Path(__file__).parent.parent / "data" / "scaffold_builtin.json"  # scripts/gen_reachability.py


class NoMergeTreesError(ValueError):
    """The encoding's model merges nothing (WordPiece, Unigram, WordLevel), so no token can be scaffolding."""

    def __init__(self, name: str, algorithm: str) -> None:
        self.name = name
        self.algorithm = algorithm
        super().__init__(
            f"{name} is a {algorithm} tokenizer: it builds no token by merging two others, so no token is "
            "scaffolding; pick a BPE encoding (gpt2, cl100k_base, o200k_base, llama3, ...)"
        )


@dataclass(frozen=True)
class TokenUse:
    """One token over one corpus: times emitted, times an inner node of an emitted token's merge tree."""

    token_id: int
    emitted: int
    inside: int

    @property
    def scaffold(self) -> bool:
        return self.emitted == 0 and self.inside > 0


@dataclass(frozen=True)
class ScaffoldCounts:
    """Emitted and inner-node counts of every token an encoding reached on a corpus (`scaffold_counts`)."""

    encoding: str
    corpus: str  # what was counted: BUILTIN_CORPUS, or a caller's label ("your text")
    vocab_size: int  # ordinary (mergeable) tokens of the encoding
    tokens: int  # ids emitted in all
    emitted: Mapping[int, int] = field(repr=False)
    inside: Mapping[int, int] = field(repr=False)

    def use(self, token_id: int) -> TokenUse:
        return TokenUse(token_id, self.emitted.get(token_id, 0), self.inside.get(token_id, 0))

    @property
    def scaffold(self) -> tuple[int, ...]:
        """Ids never emitted but inside at least one emitted token's tree, most-used first (then by id)."""
        ids = [t for t, n in self.inside.items() if n and not self.emitted.get(t)]
        return tuple(sorted(ids, key=lambda t: (-self.inside[t], t)))

    @property
    def reached(self) -> int:
        """Distinct tokens the corpus emitted or built inside another."""
        return len(set(self.emitted) | {t for t, n in self.inside.items() if n})

    @property
    def share(self) -> float:
        """Scaffold tokens as a share of the whole vocabulary (the paper's measure, on its corpus)."""
        return len(self.scaffold) / self.vocab_size if self.vocab_size else 0.0

    @property
    def share_of_reached(self) -> float:
        """Scaffold tokens as a share of the tokens this corpus reached."""
        reached = self.reached
        return len(self.scaffold) / reached if reached else 0.0


def builtin_corpus() -> tuple[str, ...]:
    """The multilingual corpus: the Arena's one sentence in every language of ``engine/data/languages.json``."""
    return tuple(sample.text for sample in language_samples())


def token_tree(enc: EncodingAPI, token_id: int) -> MergeNode | None:
    """`token_id`'s merge tree, or None for a token no merge makes (a special token, a whole-piece-only token).

    A rank-file encoding replays BPE on the token's own bytes (`merge_tree_of`, milliseconds) rather than
    recovering all its merges (seconds for 200,000 tokens); the others read their listed merges."""
    if enc.is_special_token(token_id):
        return None
    try:
        if enc.uses_pair_merges or enc.family != "tiktoken":
            return enc.merge_tree(token_id)
        return merge_tree_of(enc.decode_single_token_bytes(token_id), enc.mergeable_ranks)
    except ValueError:  # BPE cannot build it from lower ranks: emitted only as a whole piece
        return None


def inner_ids(tree: MergeNode | None) -> Counter[int]:
    """Ids of `tree`'s inner nodes (not the root, not the leaves), with multiplicity.

    >>> import engine
    >>> gpt2 = engine.get_encoding("gpt2")  # "hello" = "hell" + "o", "hell" = "he" + "ll"
    >>> sorted(gpt2.decode([t]) for t in inner_ids(token_tree(gpt2, gpt2.encode_single_token("hello"))))
    ['he', 'hell', 'll']
    """
    found: Counter[int] = Counter()
    if tree is None or tree.is_leaf:
        return found
    stack = [tree.left, tree.right]  # explicit stack: a tree can be thousands of merges deep
    while stack:
        node = stack.pop()
        if not node.is_leaf:
            found[node.id] += 1
            stack += (node.left, node.right)
    return found


def _check(enc: EncodingAPI) -> None:
    algorithm = algorithm_of(enc)
    if algorithm != "bpe":
        raise NoMergeTreesError(enc.name, algorithm)


def scaffold_counts(enc: EncodingAPI, texts: Iterable[str], *, corpus: str = BUILTIN_CORPUS) -> ScaffoldCounts:
    """Per token, times emitted and times inside an emitted token's merge tree, over `texts` (module docstring).

    Each distinct emitted token's tree is walked once and weighted by how often the token was emitted.
    Raises `NoMergeTreesError` for a model that merges nothing."""
    _check(enc)
    emitted: Counter[int] = Counter()
    for text in texts:
        emitted.update(enc.encode_ordinary(text))
    inside: Counter[int] = Counter()
    for token_id, times in emitted.items():
        for inner, k in inner_ids(token_tree(enc, token_id)).items():
            inside[inner] += k * times
    return ScaffoldCounts(enc.name, corpus, len(enc.mergeable_ranks), sum(emitted.values()), dict(emitted), dict(inside))


def scaffold_counts_reference(enc: EncodingAPI, texts: Iterable[str], *, corpus: str = BUILTIN_CORPUS) -> ScaffoldCounts:
    """`scaffold_counts` the slow way: every occurrence's tree rebuilt from the encoding's full merge list
    (`merge_tree`, not the per-token replay) and walked recursively.  For tests."""
    _check(enc)
    emitted: dict[int, int] = {}  # plain dicts and a recursive walk: nothing shared with the fast path
    inside: dict[int, int] = {}

    def walk(node: MergeNode, is_root: bool) -> None:
        if node.is_leaf:
            return
        if not is_root:
            inside[node.id] = inside.get(node.id, 0) + 1
        walk(node.left, False)
        walk(node.right, False)

    n = 0
    for text in texts:
        for token_id in enc.encode_ordinary(text):
            n += 1
            emitted[token_id] = emitted.get(token_id, 0) + 1
            try:
                tree = enc.merge_tree(token_id)
            except ValueError:  # no merge makes it
                continue
            walk(tree, True)
    return ScaffoldCounts(enc.name, corpus, len(enc.mergeable_ranks), n, emitted, inside)


# ---------------------------------------------------- the built-ins, precomputed over the built-in corpus
@dataclass(frozen=True)
class ScaffoldSummary:
    """The numbers a chart of all built-ins needs, without loading any vocabulary (`stored_summaries`)."""

    encoding: str
    vocab_size: int
    tokens: int
    reached: int
    scaffold: int

    @property
    def share(self) -> float:
        return self.scaffold / self.vocab_size if self.vocab_size else 0.0

    @property
    def share_of_reached(self) -> float:
        return self.scaffold / self.reached if self.reached else 0.0


def summary_of(counts: ScaffoldCounts) -> ScaffoldSummary:
    return ScaffoldSummary(counts.encoding, counts.vocab_size, counts.tokens, counts.reached, len(counts.scaffold))


def corpus_digest(texts: Iterable[str]) -> str:
    """What the stored summaries were counted on: a changed ``languages.json`` makes them stale."""
    return hashlib.sha256("\x00".join(texts).encode("utf-8")).hexdigest()[:16]


@lru_cache(maxsize=1)
def _summaries() -> dict:
    return json.loads(SUMMARY_FILE.read_text(encoding="utf-8"))


def stored_summaries() -> dict[str, ScaffoldSummary | None]:
    """Per built-in, its scaffold numbers over `builtin_corpus` (None for a model that merges nothing).

    Computing them needs every vocabulary loaded (seconds); the file holds them.  Raises ValueError naming
    the script to run when ``languages.json`` changed since they were counted."""
    doc = _summaries()
    if doc["corpus_digest"] != corpus_digest(builtin_corpus()):
        raise ValueError(f"{SUMMARY_FILE.name} was counted on another languages.json: run "
                         "`python scripts/gen_reachability.py` to count it again")
    return {name: None if entry is None else ScaffoldSummary(name, **entry) for name, entry in doc["encodings"].items()}
