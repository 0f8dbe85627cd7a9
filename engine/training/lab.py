"""The lab's trainers behind one call: what *Train your own* runs for each algorithm but minbpe's.

`train_lab` takes the algorithm's name and plain settings and returns a `LabResult`: the trained
tokenizer as a ``tokenizer.json`` text (the reference library's own format, so the file loads in
`tokenizers` too, and `engine.families.hf` runs it in every view), a one-line summary, and for
parity-aware BPE the per-language comparison with plain BPE.  It runs in a job process
(`playground.serving.job_tasks`), so everything it returns pickles.

*Plain BPE* beside parity-aware BPE is the same trainer with every merge global (``global_merges`` equal
to the number of merges): the most frequent pair over all languages summed, the same pre-tokenizer and
the same tie-break, so the only difference between the two columns is the parity rule.

*Plain BPE* beside SuperBPE is SuperBPE's own stage 1 run to the whole vocabulary (t = every merge): the same
pattern, the same tie-break, so the only difference is the lifted second stage.  Both are measured on text
they did not see: the last tenth of the user's text (`held_out`), cut at a space.

Unigram (`engine.training.unigram.train_unigram`) is another module's; `ALGORITHMS` lists what runs here.
"""
from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Callable, Sequence

from .parity import gini, parity_tokenizer_json, train_parity_merges
from .superbpe import PairEncoder, is_superword, superbpe_tokenizer_json, train_superbpe, transition_merges
from .wordpiece import train_wordpiece, wordpiece_tokenizer_json

PARITY = "Parity-aware BPE"  # a label of the Algorithm choice, capitalised as its neighbours
WORDPIECE = "WordPiece"
SUPERBPE = "SuperBPE"
ALGORITHMS = (PARITY, WORDPIECE, SUPERBPE)
HELD_OUT = 0.1  # the last tenth of the text measures bytes/token; the rest trains
MIN_SUPERBPE_CHARS = 200
SAMPLE_BYTES = 1200  # the held-out sample drawn in tokens
SEEN_CHARS = 200  # held-out text whose first this many characters occur in the training part is not held out

Progress = Callable[[int, int], None]


@dataclass(frozen=True)
class LanguageCost:
    """One language's measured text in tokens: bytes (before any merge), after plain BPE, after parity-aware BPE."""

    language: str
    bytes: int
    plain: int
    parity: int


@dataclass(frozen=True)
class ParityComparison:
    rows: tuple[LanguageCost, ...]
    gini_bytes: float
    gini_plain: float
    gini_parity: float

    @property
    def gini_drop(self) -> float:
        """How much of plain BPE's Gini parity-aware BPE removes (0.89 would be the paper's best, 89%)."""
        return 1 - self.gini_parity / self.gini_plain if self.gini_plain else 0.0


@dataclass(frozen=True)
class SuperBPEComparison:
    """Plain BPE and SuperBPE at one vocabulary size, measured on held-out text, and SuperBPE's superwords."""

    train_chars: int
    held_out_chars: int
    held_out_bytes: int
    plain_tokens: int
    super_tokens: int
    transition: int  # merges in stage 1
    stage2_merges: int
    skipped: int  # pairs stage 2 passed over (the fork's rules)
    superwords: tuple[tuple[int, bytes], ...]  # (id, bytes), in the order they were made
    sample: tuple[tuple[int, bytes, bool], ...]  # the held-out text's first tokens: (id, bytes, superword?)
    held_out_seen: bool = False  # the held-out text's start also occurs in the training part (a text that repeats)

    @property
    def plain_bytes_per_token(self) -> float:
        return self.held_out_bytes / self.plain_tokens if self.plain_tokens else 0.0

    @property
    def super_bytes_per_token(self) -> float:
        return self.held_out_bytes / self.super_tokens if self.super_tokens else 0.0


@dataclass(frozen=True)
class LabResult:
    algorithm: str
    name: str  # a name with a digest of the content, as trained BPE tokenizers get
    tokenizer_json: str
    vocab_size: int
    summary: str
    stopped_early: bool
    seconds: float
    parity: ParityComparison | None = None
    superbpe: SuperBPEComparison | None = None


def _name(prefix: str, vocab_size: int, data: str) -> str:
    return f"{prefix}-{vocab_size}-{hashlib.sha256(data.encode('utf-8')).hexdigest()[:8]}"


def train_parity(
    languages: Sequence[str],
    texts: Sequence[str],
    vocab_size: int,
    *,
    progress: Progress | None = None,
) -> LabResult:
    """Parity-aware BPE of `vocab_size` tokens (256 bytes + merges) on one text per language, each text
    its own dev set, and plain BPE at the same size for the comparison."""
    if len(languages) != len(texts):
        raise ValueError(f"give one name per language: {len(languages)} names for {len(texts)} texts")
    if len(texts) < 2:
        raise ValueError("parity needs at least two languages: add a second language's text")
    empty = [lang for lang, text in zip(languages, texts) if not text.strip()]
    if empty:
        raise ValueError(f"no text for {', '.join(empty)}: give each language some text, or remove it")
    if isinstance(vocab_size, bool) or not isinstance(vocab_size, int) or vocab_size <= 256:
        raise ValueError(f"vocab_size must be more than 256 (the bytes) to learn any merge, got {vocab_size!r}")
    merges = vocab_size - 256
    per_language = [[t] for t in texts]
    step = (lambda i, total, _info: progress(i, 2 * total)) if progress else None
    parity = train_parity_merges(per_language, merges, dev_texts=per_language, progress=step)
    step = (lambda i, total, _info: progress(total + i, 2 * total)) if progress else None
    plain = train_parity_merges(per_language, merges, dev_texts=per_language, global_merges=merges, progress=step)
    rows = tuple(LanguageCost(lang, b, p, q) for lang, b, p, q in
                 zip(languages, parity.lengths_before, plain.lengths_after, parity.lengths_after))
    comparison = ParityComparison(rows, gini(parity.lengths_before), gini(plain.lengths_after),
                                  gini(parity.lengths_after))
    data = parity_tokenizer_json(parity)
    learned = len(parity.merges)
    summary = (f"learned {learned} merges on {len(texts)} languages: vocabulary of {256 + learned} tokens"
               + (" (stopped early: no pair left)" if parity.stopped_early else ""))
    return LabResult(PARITY, _name("parity-bpe", 256 + learned, data), data, 256 + learned, summary,
                     parity.stopped_early, parity.seconds + plain.seconds, comparison)


def train_wordpiece_lab(text: str, vocab_size: int, *, progress: Progress | None = None) -> LabResult:
    """WordPiece of at most `vocab_size` entries, ``[UNK]`` its one special token."""
    result = train_wordpiece(text, vocab_size, progress=progress)
    data = wordpiece_tokenizer_json(result)
    n = len(result.vocab)
    summary = (f"learned {len(result.merges)} merges: vocabulary of {n} entries "
               f"({len(result.special_tokens)} special)"
               + (" (stopped early: no pair left)" if result.stopped_early else ""))
    return LabResult(WORDPIECE, _name("wordpiece", n, data), data, n, summary, result.stopped_early,
                     result.seconds)


def held_out(text: str, fraction: float = HELD_OUT) -> tuple[str, str]:
    """(training text, held-out text): the held-out part is the last `fraction` of the characters, moved on to
    the next space so no word is cut (both keep their own side of it).

        >>> held_out("one two three four five six seven eight nine ten", 0.2)
        ('one two three four five six seven eight', ' nine ten')
    """
    cut = len(text) - max(1, int(len(text) * fraction))
    space = text.find(" ", cut)
    cut = space if space > 0 else cut
    return text[:cut], text[cut:]


def train_superbpe_lab(text: str, vocab_size: int, fraction: float, *, progress: Progress | None = None) -> LabResult:
    """SuperBPE of `vocab_size` tokens with its transition at `fraction` of the vocabulary, and plain BPE at the
    same size (SuperBPE's stage 1 run to the end), both trained on all but the held-out tenth of `text`."""
    if len(text.strip()) < MIN_SUPERBPE_CHARS:
        raise ValueError(f"give at least {MIN_SUPERBPE_CHARS} characters: a tenth of the text is held out to "
                         "measure bytes per token")
    if isinstance(vocab_size, bool) or not isinstance(vocab_size, int) or vocab_size <= 256:
        raise ValueError(f"vocab_size must be more than 256 (the bytes) to learn any merge, got {vocab_size!r}")
    train, rest = held_out(text)
    t = transition_merges(vocab_size, fraction)
    merges = vocab_size - 256
    step = (lambda i, total: progress(i, 2 * total)) if progress else None
    plain = train_superbpe(train, vocab_size, merges, progress=step)
    step = (lambda i, total: progress(total + i, 2 * total)) if progress else None
    result = train_superbpe(train, vocab_size, t, progress=step)

    encoder = PairEncoder.for_result(result)
    tokens = encoder.encode_with_offsets(rest)
    plain_tokens = len(PairEncoder.for_result(plain, stage1=True).encode(rest))
    sample = []
    for i, start, _end in tokens:
        if start >= SAMPLE_BYTES:
            break
        sample.append((i, result.vocab[i], is_superword(result.vocab[i])))
    comparison = SuperBPEComparison(
        len(train), len(rest), len(rest.encode("utf-8")), plain_tokens, len(tokens), result.transition,
        len(result.merges) - result.transition, result.skipped,
        tuple((i, result.vocab[i]) for i in result.superwords), tuple(sample),
        bool(rest.strip()) and rest.strip()[:SEEN_CHARS] in train)
    data = superbpe_tokenizer_json(result)
    n = len(result.vocab)
    summary = (f"learned {len(result.merges)} merges ({result.transition} in stage 1, "
               f"{len(result.merges) - result.transition} in stage 2): vocabulary of {n} tokens, "
               f"{len(comparison.superwords)} superwords"
               + (" (stopped early: no pair left)" if result.stopped_early else ""))
    return LabResult(SUPERBPE, _name("superbpe", n, data), data, n, summary, result.stopped_early,
                     plain.seconds + result.seconds, superbpe=comparison)
