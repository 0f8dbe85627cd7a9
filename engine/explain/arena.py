"""The arena: many tokenizers against one text, and against the same sentence in many languages.

    >>> import engine
    >>> encs = [engine.get_encoding(n) for n in ("gpt2", "cl100k_base", "o200k_base")]
    >>> [(e.name, e.tokens, e.rank) for e in engine.explain.arena.rank_encodings("Привет, мир!", encs)]
    [('o200k_base', 5, 1), ('cl100k_base', 7, 2), ('gpt2', 13, 3)]

Fewer tokens for the same text means more text per context window and a
smaller bill, so the tokenizers are ranked by their token count: rank 1 needs
the fewest.  Ties share a rank and the next rank skips ("competition
ranking": 1, 1, 3), so a rank always says how many tokenizers did strictly
better.  `ratio` is tokens / the best count (1.0 for the winner).

The language matrix encodes one sentence in every language of
``engine/data/languages.json`` (GTK's translators' translations of one
message) with every tokenizer.  Because the rows say the same thing, their
counts compare directly: `LanguageCell.vs_english` is a language's tokens
over English's with the same tokenizer (the "token tax" a speaker pays), and
`LanguageCell.vs_best` is a tokenizer's tokens over the best tokenizer's for
that language (which tokenizer serves a language worst).

Leaves out: timing (a benchmark's job: ``bench/bench_arena.py``) and
anything about quality of the tokens -- only counts.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any, Iterable, Mapping, Sequence

from .compare import text_stats
from .lossless import count_unknown

LANGUAGES_FILE = Path(__file__).resolve().parent.parent / "data" / "languages.json"


# ------------------------------------------------------------------ one text
@dataclass(frozen=True)
class ArenaEntry:
    """One tokenizer on one text: its count, its rank (1 = fewest tokens) and its ratio to the best."""

    name: str
    tokens: int
    chars: int  # code points, as len()
    bytes: int  # UTF-8 bytes
    rank: int
    ratio: float  # tokens / fewest tokens of any tokenizer (1.0 for the best; 1.0 for all on an empty text)
    unknown: int = 0  # how many of the tokens are unknown tokens (<unk>, [UNK]): text the tokenizer lost

    @property
    def chars_per_token(self) -> float:
        return self.chars / self.tokens if self.tokens else 0.0

    @property
    def bytes_per_token(self) -> float:
        return self.bytes / self.tokens if self.tokens else 0.0


def _ratio(tokens: int, best: int) -> float:
    return tokens / best if best else (1.0 if tokens == 0 else float("inf"))


def rank_counts(counts: Sequence[tuple[str, int]], text: str,
                unknown: Mapping[str, int] | None = None) -> list[ArenaEntry]:
    """Rank ``(name, tokens)`` pairs measured on `text`: fewest tokens first, ties in the given order.
    `unknown` gives, by name, how many of those tokens are unknown tokens (absent: none).

    Sorting once, a tokenizer's rank is 1 + the position of the first entry with its count.
    """
    unknown = unknown or {}
    if not counts:
        return []
    stats = text_stats("", text, 0)
    order = sorted(range(len(counts)), key=lambda i: (counts[i][1], i))
    best = counts[order[0]][1]
    out: list[ArenaEntry] = []
    rank = 0
    for position, i in enumerate(order):
        name, tokens = counts[i]
        if position == 0 or tokens != counts[order[position - 1]][1]:
            rank = position + 1
        out.append(ArenaEntry(name, tokens, stats.chars, stats.bytes, rank, _ratio(tokens, best),
                              unknown.get(name, 0)))
    return out


def rank_counts_reference(counts: Sequence[tuple[str, int]], text: str) -> list[ArenaEntry]:
    """The definition, slowly: rank = 1 + how many did strictly better; order by (tokens, input order)."""
    stats = text_stats("", text, 0)
    best = min((t for _, t in counts), default=0)
    entries = [
        ArenaEntry(name, tokens, stats.chars, stats.bytes,
                   1 + sum(1 for _, other in counts if other < tokens), _ratio(tokens, best))
        for name, tokens in counts
    ]
    position = {id(e): i for i, e in enumerate(entries)}
    return sorted(entries, key=lambda e: (e.tokens, position[id(e)]))


def rank_encodings(text: str, encodings: Iterable[Any], **encode_kwargs: Any) -> list[ArenaEntry]:
    """Encode `text` with each encoding (``encode_kwargs`` as for ``enc.encode``) and rank them."""
    counts, unknown = [], {}
    for enc in encodings:
        ids = enc.encode(text, **encode_kwargs)
        counts.append((enc.name, len(ids)))
        unknown[enc.name] = count_unknown(enc, ids)
    return rank_counts(counts, text, unknown)


def distinct_encodings(encodings: Iterable[Any]) -> tuple[list[Any], dict[str, str]]:
    """Drop encodings that tokenize exactly like an earlier one (``r50k_base`` is ``gpt2``).

    Returns the kept encodings in order and ``{dropped name: the kept name it equals}``.  Each
    family says itself what makes two of its encodings the same (``enc.same_tokenizer(other)``:
    a tiktoken-style encoding's pattern, special tokens, model rules and ranks; a SentencePiece
    model; a ``tokenizer.json``'s whole pipeline), and encodings of two families never are.
    """
    kept: list[Any] = []
    aliases: dict[str, str] = {}
    for enc in encodings:
        for other in kept:
            if enc.n_vocab == other.n_vocab and enc.same_tokenizer(other):
                aliases[enc.name] = other.name
                break
        else:
            kept.append(enc)
    return kept, aliases


# ------------------------------------------------------------- the languages
@dataclass(frozen=True)
class LanguageSample:
    code: str  # "en", "zh-Hans", ...
    language: str  # "English"
    script: str  # "Latin", "Han+Hiragana+Katakana"
    text: str


@dataclass(frozen=True)
class LanguageCell:
    """One language encoded by one tokenizer."""

    code: str
    language: str
    script: str
    encoding: str
    tokens: int
    chars: int
    vs_english: float  # tokens / English's tokens with the same tokenizer
    vs_best: float  # tokens / the fewest any tokenizer needs for this language
    unknown: int = 0  # unknown tokens (<unk>, [UNK]) among them: this tokenizer lost part of the sentence


@dataclass(frozen=True)
class LanguageMatrix:
    """Tokens per language (rows, in the file's order) and tokenizer (columns, in the given order)."""

    languages: tuple[LanguageSample, ...]
    encodings: tuple[str, ...]
    tokens: tuple[tuple[int, ...], ...]  # tokens[row][column]
    reference: int  # the row every `vs_english` divides by
    unknown: tuple[tuple[int, ...], ...] = ()  # unknown tokens among tokens[row][column] (empty: none counted)

    def cells(self) -> list[LanguageCell]:
        """One record per (language, tokenizer): plain data for a table or a heatmap."""
        out = []
        ref = self.tokens[self.reference] if self.languages else ()
        lost = self.unknown or tuple((0,) * len(self.encodings) for _ in self.languages)
        for sample, row, lost_row in zip(self.languages, self.tokens, lost):
            best = min(row, default=0)
            for name, n, base, unk in zip(self.encodings, row, ref, lost_row):
                out.append(LanguageCell(sample.code, sample.language, sample.script, name, n, len(sample.text),
                                        _ratio(n, base), _ratio(n, best), unk))
        return out

    def worst(self) -> list[LanguageCell]:
        """Per tokenizer, the language it taxes most (highest `vs_english`; the first on ties)."""
        by_encoding: dict[str, LanguageCell] = {}
        for cell in self.cells():
            if cell.encoding not in by_encoding or cell.vs_english > by_encoding[cell.encoding].vs_english:
                by_encoding[cell.encoding] = cell
        return [by_encoding[name] for name in self.encodings if name in by_encoding]


@lru_cache(maxsize=1)
def language_samples() -> tuple[LanguageSample, ...]:
    """The sentences of ``engine/data/languages.json`` (English first), read once."""
    doc = json.loads(LANGUAGES_FILE.read_text(encoding="utf-8"))
    return tuple(LanguageSample(e["code"], e["language"], e["script"], e["text"]) for e in doc["languages"])


def join_columns(matrices: Sequence[LanguageMatrix]) -> LanguageMatrix:
    """`language_matrix`es of the same samples side by side, in order: as if counted in one call (a caller
    may count each tokenizer's column apart, e.g. one in another process)."""
    if not matrices:
        return LanguageMatrix((), (), (), 0, ())
    first = matrices[0]
    rows = range(len(first.languages))
    return LanguageMatrix(first.languages, tuple(n for m in matrices for n in m.encodings),
                          tuple(tuple(c for m in matrices for c in m.tokens[r]) for r in rows), first.reference,
                          tuple(tuple(c for m in matrices for c in m.unknown[r]) for r in rows))


def language_matrix(encodings: Sequence[Any], samples: Sequence[LanguageSample] | None = None,
                    *, reference: str = "en") -> LanguageMatrix:
    """Count the tokens of every sample with every encoding (ordinary text: no special tokens).

    `reference` is the language code `vs_english` divides by; `ValueError` if no sample has it.
    """
    samples = tuple(language_samples() if samples is None else samples)
    codes = [s.code for s in samples]
    if samples and reference not in codes:
        raise ValueError(f"No language sample has the code {reference!r}; pass one of {', '.join(codes)} "
                         "as `reference`.")
    ids = [[enc.encode_ordinary(s.text) for enc in encodings] for s in samples]
    tokens = tuple(tuple(len(i) for i in row) for row in ids)
    unknown = tuple(tuple(count_unknown(enc, i) for enc, i in zip(encodings, row)) for row in ids)
    return LanguageMatrix(samples, tuple(enc.name for enc in encodings), tokens,
                          codes.index(reference) if samples else 0, unknown)
