"""Fertility and parity: tokens per word, cost relative to English, and how unequal a tokenizer is over languages.

    >>> import engine
    >>> from engine.explain.fertility import count_words
    >>> count_words("The most probable reason is that a temporary file could not be created.")
    WordCount(units=13, unit='words')
    >>> count_words("最可能的原因是无法创建临时文件。")
    WordCount(units=15, unit='characters')

*Fertility* is tokens per word (Rust et al. 2021 and the papers after it): 1.0 means every word is one
token; 3.0 means a word costs three.  It needs a word count, and "word" is the trap:

- **Scripts written with spaces** (Latin, Cyrillic, Arabic, Devanagari, ...): a word is a maximal run
  of ``\\w`` in the `regex` module's Unicode sense -- letters, combining marks, digits, the connector
  ``_`` and the joiners ZWJ/ZWNJ.  So a Hindi word keeps its vowel signs, a Persian word written with
  a zero-width non-joiner ("محتمل‌ترین") is one word, and punctuation is no word.  An apostrophe
  splits: French "qu’un" is two words ("qu", "un"), as a reader of French would count them.
- **Scripts written without spaces between words** (`NO_SPACE_SCRIPTS`: Chinese, Japanese, Thai, Lao,
  Khmer, Burmese, Tibetan): there is no word boundary in the text to count, and a dictionary
  segmenter would be one more model whose mistakes we would report as the tokenizer's.  The unit is
  the **character** as a reader sees it (an extended grapheme cluster, ``\\X``) holding a letter or
  digit: Thai "ที่" is one, spaces and punctuation are none.  Such a language's fertility is *tokens
  per character*, and the result says so (`WordCount.unit`); never compare it with a tokens-per-word
  number.  Which rule a text gets is decided by its dominant script
  (`engine.explain.unicode_scripts.dominant_script`), so the user's own sentences are counted the same way.

Because the translations say the same thing, **cost relative to English** needs no words at all: a
language's tokens over English's with the same tokenizer (`LanguageCell.vs_english`).  The **Gini
coefficient** over the languages' token counts (`engine.training.parity.gini`, the one the
parity-aware trainer reports) sums a tokenizer's inequality up in one number: 0 when every language
costs the same, toward 1 when one language holds all the tokens.

Leaves out: whether fewer tokens make a better model (they do not by themselves), and any
published number this module could not cite: `PUBLISHED` holds only figures with their paper.
"""
from __future__ import annotations

from dataclasses import dataclass
from statistics import fmean, median
from typing import Collection

import regex

from engine.training.parity import gini

from .arena import LanguageMatrix
from .unicode_scripts import dominant_script

# Scripts whose writers put no space between words (Unicode script names as `dominant_script` gives them).
NO_SPACE_SCRIPTS = frozenset({"Han", "Hiragana", "Katakana", "Thai", "Lao", "Khmer", "Myanmar", "Tibetan"})
WORDS, CHARACTERS = "words", "characters"
_WORD = regex.compile(r"\w+")
_CLUSTER = regex.compile(r"\X")  # one extended grapheme cluster: a character as a reader sees it
_HAS_WORD_CHAR = regex.compile(r"\w")
WORD_METHOD = ("words: maximal runs of letters, marks and digits (\\w of the regex module, Unicode); "
               "characters (grapheme clusters holding a letter or digit) for scripts written without spaces: "
               + ", ".join(sorted(NO_SPACE_SCRIPTS)))


@dataclass(frozen=True)
class WordCount:
    """How many words a text has, and whether they are words or (for a script without spaces) characters."""

    units: int
    unit: str  # WORDS or CHARACTERS


def count_words(text: str) -> WordCount:
    """The text's words (``\\w+`` runs), or its characters if its dominant script is written without spaces."""
    if dominant_script(text) in NO_SPACE_SCRIPTS:
        return WordCount(sum(1 for g in _CLUSTER.findall(text) if _HAS_WORD_CHAR.search(g)), CHARACTERS)
    return WordCount(len(_WORD.findall(text)), WORDS)


@dataclass(frozen=True)
class FertilityCell:
    """One language encoded by one tokenizer: its tokens per word (or per character) and its cost vs English."""

    code: str
    language: str
    encoding: str
    tokens: int
    units: int  # words, or characters for a script without spaces
    unit: str  # WORDS or CHARACTERS
    vs_english: float  # tokens / English's tokens with the same tokenizer (the same content)
    unknown: int = 0  # unknown tokens (<unk>, [UNK]) among them: text lost, so the count is too low

    @property
    def fertility(self) -> float:
        """Tokens per word (per character when `unit` is CHARACTERS); 0.0 for a text with no word."""
        return self.tokens / self.units if self.units else 0.0


@dataclass(frozen=True)
class ParityRow:
    """One tokenizer over the parallel languages: how much it costs and how unequally."""

    encoding: str
    languages: int  # how many languages the row is over
    gini: float  # Gini coefficient of the languages' token counts (0 = every language costs the same)
    median_vs_english: float  # the middle language's cost relative to English (English itself not counted)
    mean_vs_english: float  # the languages' mean cost relative to English (English itself not counted)
    worst_vs_english: float  # the costliest language's
    worst_language: str
    spread: float  # the costliest language's tokens over the cheapest's
    median_fertility: float  # tokens per word, over the languages counted in words only (0.0 if none)
    unknown: int = 0  # unknown tokens over those languages: lost text makes every number above too low


def fertility_cells(matrix: LanguageMatrix) -> list[FertilityCell]:
    """One record per (language, tokenizer), in the matrix's order: rows by language, then tokenizer."""
    words = [count_words(s.text) for s in matrix.languages]
    return [FertilityCell(c.code, c.language, c.encoding, c.tokens, w.units, w.unit, c.vs_english, c.unknown)
            for c, w in zip(matrix.cells(), (w for w in words for _ in matrix.encodings))]


def parity_rows(matrix: LanguageMatrix, codes: Collection[str] | None = None) -> list[ParityRow]:
    """Per tokenizer (in the matrix's order), its parity over the languages whose code is in `codes`.

    `codes` picks the rows that say the same thing (the shipped translations): a Gini over texts of
    different content would measure the texts, not the tokenizer.  None takes every row.
    """
    keep = [i for i, s in enumerate(matrix.languages) if codes is None or s.code in codes]
    cells = fertility_cells(matrix)
    width = len(matrix.encodings)
    rows = []
    for column, name in enumerate(matrix.encodings):
        mine = [cells[i * width + column] for i in keep]
        if not mine:
            continue
        tokens = [c.tokens for c in mine]
        # English over English is 1 by definition: a median or mean "relative to English" is over the others
        others = [c for i, c in zip(keep, mine) if i != matrix.reference] or mine
        worst = max(others, key=lambda c: c.vs_english)  # the first on ties
        in_words = [c.fertility for c in mine if c.unit == WORDS and c.units]
        rows.append(ParityRow(name, len(mine), gini(tokens), median(c.vs_english for c in others),
                              fmean(c.vs_english for c in others), worst.vs_english, worst.language,
                              max(tokens) / min(tokens) if min(tokens) else float("inf"),
                              median(in_words) if in_words else 0.0, sum(c.unknown for c in mine)))
    return rows


# ------------------------------------------------------------ published numbers
@dataclass(frozen=True)
class Baseline:
    """A published figure, with the paper that measured it: printed beside the live number it compares with."""

    finding: str  # what the paper measured, in one line, with its number
    figure: float  # the number itself (for the comparison beside it)
    measure: str  # the live measure beside it: one of MEASURES
    tokenizers: tuple[str, ...]  # the tokenizers the paper measured that we have too (empty: any)
    languages: str  # which languages the paper measured: said beside our number, which is over other languages
    paper: str
    authors: str
    year: int
    venue: str
    url: str


# how each published figure is compared: our number over the translations, for the tokenizers chosen
MEASURES = ("worst_vs_english", "median_vs_english_non_latin", "median_vs_english", "mean_vs_english")

# Each figure is quoted from the paper's abstract (read 2026-11-29), never estimated.
PUBLISHED: tuple[Baseline, ...] = (
    Baseline("the same text translated into another language can need up to 15 times the tokens (FLORES-200)",
             15.0, "worst_vs_english", (), "FLORES-200's languages",
             "Language Model Tokenizers Introduce Unfairness Between Languages",
             "Petrov, La Malfa, Torr, Bibi", 2023, "NeurIPS", "https://arxiv.org/abs/2305.15425"),
    Baseline("every African language measured costs more tokens than English: a median of 1.88× with o200k_base "
             "(up to 8.92× for N’Ko)", 1.88, "median_vs_english", ("o200k_base",),
             "20 African languages (FLORES-200+)",
             "The African Language Tax: Quantifying the Cost, Latency, and Context Penalty of Tokenizing African "
             "Languages in Frontier LLMs", "Somide", 2026, "arXiv", "https://arxiv.org/abs/2606.24460"),
    Baseline("Gemma 4's tokenizer lowers the mean premium over African languages from 3.31× (cl100k_base) to 2.38×",
             3.31, "mean_vs_english", ("cl100k_base", "gemma4"), "African languages (FLORES-200+)",
             "The African Language Tax: Quantifying the Cost, Latency, and Context Penalty of Tokenizing African "
             "Languages in Frontier LLMs", "Somide", 2026, "arXiv", "https://arxiv.org/abs/2606.24460"),
    Baseline("non-Latin, morphologically complex languages often cost 3–5× English in tokens "
             "(cl100k_base, FLORES-200, 200+ languages)", 3.0, "median_vs_english_non_latin", ("cl100k_base",),
             "200+ languages of FLORES-200",
             "Tokenization Disparities as Infrastructure Bias: How Subword Systems Create Inequities in LLM "
             "Access and Efficiency", "Teklehaymanot, Nejdl", 2025, "arXiv", "https://arxiv.org/abs/2510.12389"),
)


def non_latin_median(matrix: LanguageMatrix, encoding: str, codes: Collection[str] | None = None) -> float:
    """`encoding`'s median cost relative to English over the languages not written in Latin script."""
    column = matrix.encodings.index(encoding)
    width = len(matrix.encodings)
    cells = matrix.cells()
    values = [cells[i * width + column].vs_english for i, s in enumerate(matrix.languages)
              if (codes is None or s.code in codes) and dominant_script(s.text) != "Latin"]
    return median(values) if values else 0.0
