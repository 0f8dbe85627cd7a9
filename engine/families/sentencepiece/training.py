"""Train a SentencePiece Unigram model and get it as the object a loaded ``.model`` file becomes.

The algorithm is `engine.training.unigram` (sentencepiece 0.2.3's trainer, step by step); it
returns plain pieces and scores.  Here they get sentencepiece's layout -- ``<unk>`` 0, ``<s>`` 1,
``</s>`` 2, with byte fallback ``<0x00>``..``<0xFF>`` at 3..258, then the pieces best first -- and
a `ModelProto` with the identity normalizer the training used, so the result encodes, explains and
pickles like any uploaded Unigram model (`SentencePieceEncoding`), with its `UnigramReport` as
``enc.training``.

    >>> enc = train_unigram("the cat sat on the mat\\n" * 20, 30)
    >>> enc.pieces[:3], enc.n_vocab
    (('<unk>', '<s>', '</s>'), 30)
"""
from __future__ import annotations

import hashlib

from ...training.unigram import BYTE_PIECES, UNIGRAM_META, Progress, UnigramReport, learn_unigram
from ...training.unigram_seeds import DEFAULT_SEED_SIZE
from .encoding import SentencePieceEncoding
from .model_proto import BYTE, CONTROL, NORMAL, UNKNOWN, ModelProto, NormalizerSpec, TrainerSpec
from .normalize import normalize

__all__ = ["train_unigram", "build_unigram_encoding", "IDENTITY"]

# normalization_rule_name=identity: no character map; spaces escaped to ▁, squeezed, a ▁ in front.
IDENTITY = NormalizerSpec(name="identity")


def _normalize_line(line: str) -> str:
    return normalize(line, IDENTITY)[0]


def train_unigram(
    text: str,
    vocab_size: int,
    *,
    byte_fallback: bool = False,
    character_coverage: float = 0.9995,
    max_piece_length: int = 16,
    seed_size: int = DEFAULT_SEED_SIZE,
    progress: Progress | None = None,
    name: str | None = None,
) -> SentencePieceEncoding:
    """A Unigram `SentencePieceEncoding` of `vocab_size` ids learned from `text` as
    ``spm.SentencePieceTrainer.train(model_type="unigram", normalization_rule_name="identity",
    num_threads=1, byte_fallback=..., vocab_size=...)`` learns it from the text's lines.

    Raises `engine.training.unigram.UnigramVocabTooLarge` (a ValueError) when the text cannot fill
    `vocab_size`, naming the size it can, and ValueError for settings out of range.
    """
    pieces, report = learn_unigram(text, vocab_size, normalize=_normalize_line, byte_fallback=byte_fallback,
                                   character_coverage=character_coverage, max_piece_length=max_piece_length,
                                   seed_size=seed_size, progress=progress)
    return build_unigram_encoding(pieces, byte_fallback=byte_fallback, name=name, training=report)


def build_unigram_encoding(pieces: list[tuple[str, float]], *, byte_fallback: bool, name: str | None = None,
                           training: UnigramReport | None = None) -> SentencePieceEncoding:
    """`pieces` (best first) after sentencepiece's meta pieces, as a Unigram `SentencePieceEncoding`.

    Its default name holds a hash of its content, so two trainings name the same model alike."""
    table: list[tuple[str, float, int]] = [(UNIGRAM_META[0], 0.0, UNKNOWN)]
    table += [(m, 0.0, CONTROL) for m in UNIGRAM_META[1:]]
    if byte_fallback:
        table += [(p, 0.0, BYTE) for p in BYTE_PIECES]
    table += [(p, s, NORMAL) for p, s in pieces]
    model = ModelProto(tuple(table), TrainerSpec(model_type=1, vocab_size=len(table), byte_fallback=byte_fallback),
                       IDENTITY)
    if name is None:
        name = f"unigram-{len(table)}-{hashlib.sha256(repr(table).encode()).hexdigest()[:8]}"
    return SentencePieceEncoding(name, model, source=name, training=training)
