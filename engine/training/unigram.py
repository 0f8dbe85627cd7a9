"""Train a SentencePiece Unigram model: sentencepiece's own steps, its float32 arithmetic included.

A Unigram model scores every piece with a log-probability; a text is cut into the pieces whose
scores sum highest (`engine.families.sentencepiece.unigram`).  Training finds the pieces and their
scores.  We follow ``sentencepiece`` 0.2.3's trainer (``unigram_model_trainer.cc``,
``trainer_interface.cc``) run single-threaded, step by step:

1. **Sentences.**  Each line of the text is a sentence; empty lines, lines over
   ``max_sentence_length`` bytes and lines holding U+2585 are skipped.  Each is normalized
   by the caller's normalizer (the identity rules: spaces become ``▁``, runs squeezed, a ``▁`` in front);
   a meta piece written in the text (``<s>``; ``<0x41>`` with byte fallback) becomes a mark never kept.
2. **Required characters.**  Characters sorted by count; the most frequent ones until
   ``character_coverage`` of all occurrences is reached are kept, the others become U+2585
   (an unknown character, never part of a piece).
3. **Seeds** (`engine.training.unigram_seeds`): every character and every repeated substring
   (over the UTF-8 bytes, as 0.2.3; whole characters only).
   Scores become log-probabilities (``log(count) - log(sum)``).
4. **Words.**  Sentences are cut before each ``▁``; EM runs on distinct words with their counts.
5. **EM, then prune, until the vocabulary is at most 1.1 × vocab_size** (0.2.3 prunes after the last
   EM rounds too, then drops pieces their own text never encodes to).  Two EM rounds: the
   E-step runs forward-backward on each word's lattice for each piece's expected count; the
   M-step drops pieces expected less than 0.5 times and sets
   ``score = digamma(count) - digamma(total)`` -- a Bayesian EM whose prior favours sparse
   vocabularies (it pulls rare pieces down harder than ``log(count / total)`` would).  Pruning
   then keeps the 75% of pieces whose removal would cost the corpus' likelihood most, the loss
   estimated from each piece's second-best segmentation.
6. **Finalize.**  Every required character is kept (at the lowest score if EM dropped it), then
   the best-scoring pieces up to ``vocab_size`` minus the meta pieces (``<unk>``, ``<s>``,
   ``</s>``, and 256 ``<0xXX>`` byte pieces with ``byte_fallback``).

The traps, as the C++ has them:

* **float32.**  Scores, expected counts and their sums are C ``float``; each operation here is
  rounded to float32 (`_f32`) where the C++ stores or adds a float.  Logs and exps run in double.
* **Order.**  Ties are broken by a piece's place in the vocabulary list (pruning) or by its text
  (words, characters, the final list).  The list's order is the seeds' order, then the order each
  step keeps.
* **The unknown node.**  Where no one-character piece starts, the lattice gets a node scored
  ``min score - 10`` whose id is 0 -- the trainer's model has no ``<unk>`` of its own, so its
  expected count lands on the first piece of the list, as in the C++.

Our source is sentencepiece's 2025-02 C++ (the snapshot we could read); where 0.2.3 behaves otherwise
(seeding, the loop's end, unreachable pieces, meta pieces in the text) we matched its results and logs.
Not followed: sentencepiece's multi-threaded sums (``num_threads > 1`` changes float rounding),
NFKC normalization (we train with the ``identity`` rule; there is no NFKC table in the engine),
user-defined and control symbols, sampling of input sentences.  The tests hold the result to
sentencepiece's on several corpora and say how equal it is; the README has the figures.

This module returns plain data (pieces, scores, a report); `engine.families.sentencepiece.training`
turns them into the `SentencePieceEncoding` a loaded ``.model`` becomes (the training floor sits
below the families).
"""
from __future__ import annotations

import math
import re
import time
from dataclasses import dataclass
from typing import Callable

from ..text import repair_surrogates
from .unigram_lattice import f32 as _f32, lattice as _lattice, marginals as _marginals, viterbi as _viterbi
from .unigram_seeds import DEFAULT_SEED_SIZE, UNK_CHAR, WS as SPACE, seed_pieces

__all__ = ["learn_unigram", "UnigramReport", "UnigramRound", "UnigramVocabTooLarge", "UNIGRAM_META", "BYTE_PIECES"]

UNK_PENALTY = 10.0  # kUnkPenalty
MIN_EXPECTED = 0.5  # kExpectedFrequencyThreshold
SUB_ITERATIONS = 2  # num_sub_iterations
SHRINKING = 0.75  # shrinking_factor
MAX_SENTENCE_BYTES = 4192  # max_sentence_length
MIN_SCORE_DELTA = 0.0001  # kMinScorePenaltyDelta
UNIGRAM_META = ("<unk>", "<s>", "</s>")  # ids 0, 1, 2: sentencepiece's default meta pieces
# What a meta piece written in the text becomes.  sentencepiece's 2025-02 source used a tab; 0.2.3 keeps a real
# tab as a piece but not this mark (matched on its results), so the mark is a character of its own here.
META_MARK = "\U0010fffe"
BYTE_PIECES = tuple(f"<0x{b:02X}>" for b in range(256))  # ids 3..258 with byte fallback
_META = re.compile("|".join(re.escape(m) for m in sorted(UNIGRAM_META, key=len, reverse=True)))
_META_BYTES = re.compile("|".join(re.escape(m) for m in sorted(UNIGRAM_META + BYTE_PIECES, key=len, reverse=True)))

def digamma(x: float) -> float:
    """sentencepiece's ``Digamma`` (recurrence up to 7, then the asymptotic series), in double."""
    result = 0.0
    while x < 7:
        result -= 1 / x
        x += 1
    x -= 1.0 / 2.0
    xx = 1.0 / x
    xx2 = xx * xx
    xx4 = xx2 * xx2
    result += (math.log(x) + (1.0 / 24.0) * xx2 - (7.0 / 960.0) * xx4 + (31.0 / 8064.0) * xx4 * xx2
               - (127.0 / 30720.0) * xx4 * xx4)
    return result


class UnigramVocabTooLarge(ValueError):
    """The text has fewer distinct pieces than the vocabulary asks for (or more required characters)."""


@dataclass(frozen=True)
class UnigramRound:
    """The vocabulary after one step: ``what`` is "seed", "EM" or "prune"."""

    what: str
    size: int
    objective: float | None = None  # the E-step's negative log-likelihood per sentence (EM steps)


@dataclass(frozen=True)
class UnigramReport:
    """What `train_unigram` did; the trained encoding's declared field ``enc.training``."""

    requested_vocab_size: int
    byte_fallback: bool
    character_coverage: float
    rounds: tuple[UnigramRound, ...]
    n_sentences: int
    n_skipped_lines: int
    n_words: int
    n_required_chars: int
    message: str
    seconds: float


Progress = Callable[["UnigramRound"], None]


# ------------------------------------------------------------------ the trainer's model
class _Model:
    """The pieces being trained, in list order, with what a lattice needs."""

    def __init__(self, pieces: list[tuple[str, float]]) -> None:
        self.pieces = pieces
        self.index = {p: i for i, (p, _) in enumerate(pieces)}
        self.scores = [s for _, s in pieces]
        self.min_score = min(self.scores)
        self.max_len = max(len(p) for p, _ in pieces)
        self.unk_score = _f32(self.min_score - UNK_PENALTY)
        self.prefixes = frozenset(p[:k] for p, _ in pieces for k in range(1, len(p) + 1))

    def lattice(self, word: str):
        return _lattice(word, self.index, self.scores, self.unk_score, self.max_len, self.prefixes)


def _to_log_prob(pieces: list[tuple[str, int]]) -> list[tuple[str, float]]:
    total = 0.0
    for _, c in pieces:
        total = _f32(total + _f32(c))
    logsum = _f32(math.log(total))
    return [(p, _f32(math.log(_f32(c)) - logsum)) for p, c in pieces]


def _em_step(model: _Model, words: list[tuple[str, int]]) -> tuple[list[tuple[str, float]], float]:
    expected = [0.0] * len(model.pieces)
    all_freq = sum(f for _, f in words)
    objective = 0.0
    for word, freq in words:
        z = _marginals(word, _f32(freq), model.lattice(word), expected)
        objective = _f32(objective - _f32(z / all_freq))
    kept = []
    total = 0.0
    for (piece, _), freq in zip(model.pieces, expected):
        if freq < MIN_EXPECTED:
            continue
        kept.append((piece, freq))
        total = _f32(total + freq)
    logsum = _f32(digamma(total))
    return [(p, _f32(digamma(f) - logsum)) for p, f in kept], objective


def _prune(model: _Model, words: list[tuple[str, int]], desired: int) -> list[tuple[str, float]]:
    pieces = model.pieces
    size = len(pieces)
    always_keep = [True] * size
    alternatives: list[list[int]] = [[] for _ in range(size)]
    for i, (piece, _) in enumerate(pieces):
        lattice = model.lattice(piece)
        n = len(piece)
        whole = [node for node in lattice[0][0] if lattice[3][node] == i and node in lattice[1][n]]
        if not whole or len(lattice[3]) == 3:  # a single character: no second-best path
            continue
        best = _viterbi(n, lattice)
        if len(best) >= 2:
            always_keep[i] = False  # its own best segmentation splits it: safe to drop
        else:
            alternatives[i] = [lattice[3][node] for node in _viterbi(n, lattice, skip=whole[0])]
    freq = [0.0] * size
    inverted: list[list[int]] = [[] for _ in range(size)]
    vsum = 0.0
    for s, (word, count) in enumerate(words):
        lattice = model.lattice(word)
        vsum = _f32(vsum + count)
        for node in _viterbi(len(word), lattice):
            i = lattice[3][node]
            freq[i] = _f32(freq[i] + count)
            inverted[i].append(s)
    total = _f32(sum_in_double(freq))  # std::accumulate from 0.0: a double sum, stored as float
    logsum = _f32(math.log(total))
    kept: list[tuple[str, float]] = []
    candidates: list[tuple[float, int]] = []
    for i in range(size):
        if freq[i] == 0 or not always_keep[i]:
            continue
        if not alternatives[i]:
            kept.append(pieces[i])
            continue
        f = 0.0
        for s in inverted[i]:
            f = _f32(f + words[s][1])
        f = _f32(f / vsum)
        logprob_sp = _f32(math.log(freq[i]) - logsum)
        logsum_alt = _f32(math.log(_f32(total + _f32(freq[i] * (len(alternatives[i]) - 1)))))
        logprob_alt = 0.0
        for a in alternatives[i]:
            logprob_alt = _f32(logprob_alt + (math.log(_f32(freq[a] + freq[i])) - logsum_alt))
        candidates.append((-_f32(f * _f32(logprob_sp - logprob_alt)), i))
    pruned_size = max(desired, int(SHRINKING * size))
    candidates.sort()
    for _, i in candidates:
        if len(kept) == pruned_size:
            break
        kept.append(pieces[i])
    return kept


def _prune_unreachable(model: _Model) -> list[tuple[str, float]]:
    """The pieces that encoding their own text gives back (sentencepiece 0.2.3's
    ``PruneUnreachableSentencePieces``): a piece whose best segmentation splits it is never emitted."""
    kept = []
    for i, (piece, score) in enumerate(model.pieces):
        lattice = model.lattice(piece)
        path = _viterbi(len(piece), lattice)
        if len(path) == 1 and lattice[3][path[0]] == i:
            kept.append((piece, score))
    return kept


def sum_in_double(values: list[float]) -> float:
    """``std::accumulate(..., 0.0)``: a left-to-right sum in double."""
    total = 0.0
    for v in values:
        total += v
    return total


# ------------------------------------------------------------------ sentences
def _sentences(text: str, normalize: Callable[[str], str], coverage: float,
               byte_fallback: bool) -> tuple[list[tuple[str, int]], dict[str, int], int]:
    """Normalized sentences (one per line, rare characters as U+2585), the required characters
    with their counts, and the number of lines skipped.

    A meta piece written in the text (``<s>``, or ``<0x41>`` with byte fallback) becomes a tab, which
    no piece may hold: the trainer's ``PrefixMatcher`` keeps them out of the vocabulary that way."""
    meta = _META_BYTES if byte_fallback else _META
    sentences: list[tuple[str, int]] = []
    skipped = 0
    for line in text.split("\n"):
        if not line:
            continue
        if len(line.encode("utf-8")) > MAX_SENTENCE_BYTES or UNK_CHAR in line:
            skipped += 1
            continue
        normalized = normalize(line)
        normalized = meta.sub(META_MARK, normalized)
        if normalized:
            sentences.append((normalized, 1))
    counts: dict[str, int] = {}
    for sentence, freq in sentences:
        for c in sentence:
            if c != "\x00":
                counts[c] = counts.get(c, 0) + freq
    all_count = sum(counts.values())
    required: dict[str, int] = {}
    accumulated = 0
    limit = _f32(coverage)
    for c, count in sorted(counts.items(), key=lambda kv: (-kv[1], ord(kv[0]))):
        if _f32(accumulated / all_count) >= limit:
            break
        accumulated += count
        if c != META_MARK:  # counted for the coverage, never kept: it becomes U+2585 below
            required[c] = count
    out = [("".join(c if c in required else UNK_CHAR for c in s), f) for s, f in sentences]
    return out, required, skipped


def _words(sentences: list[tuple[str, int]]) -> list[tuple[str, int]]:
    """Words (each ``▁`` starts one) with their counts, most frequent first, then by UTF-8 bytes."""
    counts: dict[str, int] = {}
    for sentence, freq in sentences:
        start = 0
        for k in range(1, len(sentence) + 1):
            if k == len(sentence) or sentence[k] == SPACE:
                word = sentence[start:k]
                counts[word] = counts.get(word, 0) + freq
                start = k
    return sorted(counts.items(), key=lambda kv: (-kv[1], kv[0].encode("utf-8")))


# ------------------------------------------------------------------ the trainer
def learn_unigram(
    text: str,
    vocab_size: int,
    *,
    normalize: Callable[[str], str],
    byte_fallback: bool = False,
    character_coverage: float = 0.9995,
    max_piece_length: int = 16,
    seed_size: int = DEFAULT_SEED_SIZE,
    progress: Progress | None = None,
) -> tuple[list[tuple[str, float]], UnigramReport]:
    """The pieces (with scores, best first) of a Unigram model of `vocab_size` entries learned from
    `text`, and the report, as ``spm.SentencePieceTrainer.train(model_type="unigram", num_threads=1,
    ...)`` learns them; `vocab_size` counts the meta pieces ``<unk> <s> </s>`` (and, with
    `byte_fallback`, 256 byte pieces), which are not in the list.  `normalize` is the model's
    normalizer for one line (`engine.families.sentencepiece.training` gives the identity rules).
    ``progress(round)`` is called after each step.

    Raises `UnigramVocabTooLarge` when the text cannot fill `vocab_size`, naming the largest size
    it can, and `ValueError` for settings out of range.
    """
    started = time.perf_counter()
    meta = len(UNIGRAM_META) + (256 if byte_fallback else 0)
    if isinstance(vocab_size, bool) or not isinstance(vocab_size, int) or vocab_size <= meta:
        raise ValueError(f"vocab_size must be an integer above {meta} (the meta pieces{' and 256 byte pieces' if byte_fallback else ''}), got {vocab_size!r}")
    if not 0.98 <= character_coverage <= 1.0:  # sentencepiece 0.2.3 refuses other values too
        raise ValueError(f"character_coverage must be from 0.98 to 1.0, got {character_coverage!r}; "
                         "sentencepiece's default is 0.9995")
    if not 1 <= max_piece_length <= 64:
        raise ValueError(f"max_piece_length must be 1 to 64, got {max_piece_length!r}; sentencepiece uses 16")
    sentences, required, skipped = _sentences(repair_surrogates(text), normalize, character_coverage, byte_fallback)
    if not sentences:
        raise ValueError("the text has no line to train on: every line is empty, longer than "
                         f"{MAX_SENTENCE_BYTES:,} bytes or holds U+2585; add text or break long lines")
    if len(required) + meta > vocab_size:
        raise UnigramVocabTooLarge(
            f"vocab_size {vocab_size} is smaller than the {len(required)} required characters plus {meta} meta pieces; "
            f"use at least {len(required) + meta}, or a lower character coverage")
    rounds: list[UnigramRound] = []

    def step(r: UnigramRound) -> None:
        rounds.append(r)
        if progress is not None:
            progress(r)

    model = _Model(_to_log_prob(seed_pieces(sentences, max_piece_length, seed_size)))
    step(UnigramRound("seed", len(model.pieces)))
    words = _words(sentences)
    desired = int(vocab_size * 1.1)
    while True:
        for _ in range(SUB_ITERATIONS):
            pieces, objective = _em_step(model, words)
            model = _Model(pieces)
            step(UnigramRound("EM", len(pieces), objective))
        model = _Model(_prune(model, words, desired))
        step(UnigramRound("prune", len(model.pieces)))
        if len(model.pieces) <= desired:  # 0.2.3 prunes once more after the last EM round, then stops
            break
    reachable = _prune_unreachable(model)
    if len(reachable) < len(model.pieces):
        model = _Model(reachable)
        step(UnigramRound("unreachable", len(reachable)))
    final = _finalize(model, required, vocab_size - meta)
    if len(final) + meta < vocab_size:
        raise UnigramVocabTooLarge(
            f"this text gives only {len(final) + meta} pieces (meta pieces included), fewer than vocab_size "
            f"{vocab_size}; use vocab_size {len(final) + meta} or less, or a longer text")
    message = (f"{len(final):,} pieces learned in {sum(r.what == 'EM' for r in rounds)} EM rounds from "
               f"{rounds[0].size:,} seeds, plus {meta} meta pieces")
    if skipped:
        message += f"; {skipped:,} lines skipped (longer than {MAX_SENTENCE_BYTES:,} bytes or holding U+2585)"
    report = UnigramReport(vocab_size, byte_fallback, character_coverage, tuple(rounds), len(sentences), skipped,
                           len(words), len(required), message, time.perf_counter() - started)
    return final, report


def _finalize(model: _Model, required: dict[str, int], size: int) -> list[tuple[str, float]]:
    """Required characters (a missing one at the lowest score, a little more per character), then the
    best pieces, sorted by score (then by UTF-8 bytes)."""
    scores = dict(model.pieces)
    final: dict[str, float] = {}
    penalty = 0.0
    delta = _f32(MIN_SCORE_DELTA)
    for c, _ in sorted(required.items(), key=lambda kv: (-kv[1], ord(kv[0]))):
        if c in scores:
            final[c] = scores[c]
        else:
            final[c] = _f32(model.min_score + penalty)
            penalty = _f32(penalty + delta)
    for piece, score in sorted(model.pieces, key=lambda ps: (-ps[1], ps[0].encode("utf-8"))):
        if piece in final:
            continue
        if len(final) == size:
            break
        final[piece] = score
    return sorted(final.items(), key=lambda ps: (-ps[1], ps[0].encode("utf-8")))
