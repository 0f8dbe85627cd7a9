"""The lab's trainers behind one call: what *Train your own* runs for each algorithm but minbpe's.

`train_lab` takes the algorithm's name and plain settings and returns a `LabResult`: the trained
tokenizer as a ``tokenizer.json`` text (the reference library's own format, so the file loads in
`tokenizers` too, and `engine.families.hf` runs it in every view), a one-line summary, and for
parity-aware BPE the per-language comparison with plain BPE.  It runs in a job process
(`playground.serving.job_tasks`), so everything it returns pickles.

*Plain BPE* beside parity-aware BPE is the same trainer with every merge global (``global_merges`` equal
to the number of merges): the most frequent pair over all languages summed, the same pre-tokenizer and
the same tie-break, so the only difference between the two columns is the parity rule.

Unigram (`engine.training.unigram.train_unigram`) is another module's; `ALGORITHMS` lists what runs here.
"""
from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Callable, Sequence

from .parity import gini, parity_tokenizer_json, train_parity_merges
from .wordpiece import train_wordpiece, wordpiece_tokenizer_json

PARITY = "parity-aware BPE"
WORDPIECE = "WordPiece"
ALGORITHMS = (PARITY, WORDPIECE)

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
class LabResult:
    algorithm: str
    name: str  # a name with a digest of the content, as trained BPE tokenizers get
    tokenizer_json: str
    vocab_size: int
    summary: str
    stopped_early: bool
    seconds: float
    parity: ParityComparison | None = None


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
