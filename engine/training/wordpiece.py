"""WordPiece training as Hugging Face `tokenizers` does it: BPE merges over words, ``##`` inside a word.

BERT's WordPiece (Schuster & Nakajima 2012; Devlin et al. 2019) *encodes* by longest match from the
left: ``unaffable`` -> ``un ##aff ##able``.  Its original trainer (Google's, likelihood-driven) was never
released.  `tokenizers`' ``WordPieceTrainer`` (``tokenizers/src/models/wordpiece/trainer.rs``), our
reference, is its ``BpeTrainer`` with ``continuing_subword_prefix="##"``: every character after a word's
first is the symbol ``##c``, a merge of ``he`` + ``##l`` makes ``hel``, of ``##l`` + ``##o`` makes
``##lo``, and the vocabulary is every symbol and merge result, merges forgotten
(`engine.training.hf_bpe` has the merge loop and its tie-break).

The words here come from ``BertPreTokenizer``: split on Unicode white space, and every punctuation
character (ASCII punctuation or a Unicode ``P*`` category) a word of its own.  No normalizer (no
lower-casing, no accent stripping): the reference is trained without one in the tests.

**The reference is not deterministic.**  Its ``##c`` ids come from walking a hash map, so on equal counts
(the smaller pair of ids wins) different runs pick different pairs and end with different vocabularies.
Ours walks the words in order of first appearance, which is one of the orders the reference can take; the
tests measure the reference's own spread (entries that differ between two of its runs) and hold us within
it, and replaying a run's order of ``##c`` ids (`symbol_order`) gives that run's vocabulary exactly.
"""
from __future__ import annotations

import json
import time
from collections import Counter
from dataclasses import dataclass
from typing import Callable, Iterable, Sequence

import regex

from ..text import repair_surrogates
from .hf_bpe import train_hf_bpe

PREFIX = "##"
# Rust's char::is_ascii_punctuation, spelled out, or any Unicode punctuation (BertPreTokenizer's is_bert_punc)
_PUNCT = r"!-/:-@\[-`{-~\p{P}"
_BERT_WORDS = regex.compile(rf"[{_PUNCT}]|[^{_PUNCT}\p{{White_Space}}]+")


@dataclass(frozen=True)
class WordPieceResult:
    vocab: tuple[str, ...]  # in id order: special tokens, characters, ##characters, merge results
    special_tokens: tuple[str, ...]
    unk_token: str
    merges: tuple[tuple[str, str], ...]  # the merges that built it (not part of a WordPiece model)
    stopped_early: bool
    seconds: float


def bert_words(texts: str | Iterable[str]) -> dict[str, int]:
    """BertPreTokenizer's words of `texts` with their counts, in order of first appearance.

        >>> bert_words("Hello, world! Hello")
        {'Hello': 2, ',': 1, 'world': 1, '!': 1}
    """
    if isinstance(texts, str):
        texts = [texts]
    counts: Counter[str] = Counter()
    for text in texts:
        counts.update(_BERT_WORDS.findall(repair_surrogates(text)))
    return dict(counts)


def train_wordpiece(
    texts: str | Iterable[str],
    vocab_size: int,
    *,
    special_tokens: Sequence[str] = ("[UNK]",),
    unk_token: str = "[UNK]",
    min_frequency: int = 0,
    symbol_order: Sequence[str] | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> WordPieceResult:
    """Learn a WordPiece vocabulary of at most `vocab_size` entries (special tokens included)."""
    started = time.perf_counter()
    if isinstance(vocab_size, bool) or not isinstance(vocab_size, int) or vocab_size < 1:
        raise ValueError(f"vocab_size must be a positive whole number, got {vocab_size!r}")
    specials = list(dict.fromkeys(special_tokens))
    if unk_token not in specials:
        raise ValueError(f"the unknown token {unk_token!r} must be one of the special tokens {specials!r}: "
                         "WordPiece writes it for a word it cannot spell")
    words = bert_words(texts)
    if not words:
        raise ValueError("the training text has no words (only white space): give some text to learn from")
    result = train_hf_bpe(words, vocab_size, special_tokens=specials, min_frequency=min_frequency,
                          continuing_subword_prefix=PREFIX, symbol_order=symbol_order, progress=progress)
    return WordPieceResult(result.vocab, tuple(specials), unk_token, result.merges, result.stopped_early,
                           time.perf_counter() - started)


def wordpiece_tokenizer_json(result: WordPieceResult) -> str:
    """The ``tokenizer.json`` that `tokenizers` writes for this vocabulary (BertPreTokenizer, WordPiece decoder)."""
    root = {
        "version": "1.0", "truncation": None, "padding": None,
        "added_tokens": [{"id": result.vocab.index(t), "content": t, "single_word": False, "lstrip": False,
                          "rstrip": False, "normalized": False, "special": True} for t in result.special_tokens],
        "normalizer": None,
        "pre_tokenizer": {"type": "BertPreTokenizer"},
        "post_processor": None,
        "decoder": {"type": "WordPiece", "prefix": PREFIX, "cleanup": True},
        "model": {"type": "WordPiece", "unk_token": result.unk_token, "continuing_subword_prefix": PREFIX,
                  "max_input_chars_per_word": 100, "vocab": {t: i for i, t in enumerate(result.vocab)}},
    }
    return json.dumps(root, ensure_ascii=False)
