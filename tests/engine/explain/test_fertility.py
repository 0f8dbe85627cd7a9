"""engine.explain.fertility: words by the stated method, tokens per word, parity rows, the one Gini, sourced baselines."""
from __future__ import annotations

import doctest
from statistics import median

import pytest

import engine
from engine.explain import fertility
from engine.explain.arena import LanguageMatrix, LanguageSample, language_matrix, language_samples
from engine.explain.fertility import CHARACTERS, WORDS, WordCount, count_words, fertility_cells, parity_rows
from engine.training import parity


@pytest.mark.parametrize("text, expected", [
    ("The most probable reason is that a temporary file could not be created.", WordCount(13, WORDS)),
    ("La raison la plus probable est qu’un fichier", WordCount(9, WORDS)),  # the apostrophe splits qu’un
    ("محتمل‌ترین دلیل", WordCount(2, WORDS)),  # a zero-width non-joiner stays inside its word
    ("सर्वाधिक संभव कारण", WordCount(3, WORDS)),  # vowel signs (marks) stay inside their word
    ("temp_file 42 times", WordCount(3, WORDS)),
    ("最可能的原因是无法创建临时文件。", WordCount(15, CHARACTERS)),  # punctuation is no character
    ("ที่ ดี", WordCount(2, CHARACTERS)),  # one grapheme cluster each, the space none
    ("作業用のファイル", WordCount(8, CHARACTERS)),  # Japanese: Han, Hiragana, Katakana
    ("", WordCount(0, WORDS)),
    ("?!", WordCount(0, WORDS)),
])
def test_count_words_by_the_stated_method(text, expected):
    assert count_words(text) == expected


def test_the_shipped_languages_get_the_unit_their_script_needs():
    units = {s.code: count_words(s.text).unit for s in language_samples()}
    assert {c for c, u in units.items() if u == CHARACTERS} == {"th", "km", "my", "zh-Hans", "zh-Hant", "ja"}
    assert units["en"] == units["ko"] == units["hi"] == WORDS  # Korean is written with spaces


def test_fertility_uses_the_parity_trainers_gini():
    assert fertility.gini is parity.gini  # one Gini in the codebase


def test_gini_hand_computed():
    # |differences| over ordered pairs of (1, 2, 3, 4): 2 × (1+2+3+1+2+1) = 20; 20 / (2 × 4 × 10) = 0.25
    assert parity.gini([1, 2, 3, 4]) == pytest.approx(0.25)
    assert parity.gini([5, 5, 5]) == 0.0


def _matrix(rows: list[tuple[str, str, list[int]]], encodings=("a", "b"), unknown=None) -> LanguageMatrix:
    samples = tuple(LanguageSample(code, code, "Latin", text) for code, text, _ in rows)
    return LanguageMatrix(samples, encodings, tuple(tuple(t) for _, _, t in rows), 0,
                          unknown or tuple((0,) * len(encodings) for _ in rows))


def test_unknown_tokens_are_summed_per_tokenizer():
    m = _matrix([("en", "one two", [2, 4]), ("xx", "one", [4, 4]), ("yy", "two", [3, 3])],
                unknown=((0, 0), (1, 0), (2, 0)))
    assert [r.unknown for r in parity_rows(m)] == [3, 0]
    assert [r.unknown for r in parity_rows(m, {"en", "xx"})] == [1, 0]
    assert [c.unknown for c in fertility_cells(m)] == [0, 0, 1, 0, 2, 0]


def test_parity_rows_by_hand():
    m = _matrix([("en", "one two", [2, 4]), ("xx", "one two three four", [4, 4]), ("zh", "最可能", [6, 4]),
                 ("yours-1", "mine", [100, 1])])
    a, b = parity_rows(m, codes={"en", "xx", "zh"})  # the own sentence is left out
    assert a.encoding == "a" and a.languages == 3
    # |differences| over ordered pairs of (2, 4, 6): 2 × (2 + 4 + 2) = 16; 16 / (2 × 3 × 12)
    assert a.gini == pytest.approx(16 / 72) and a.gini == parity.gini([2, 4, 6])
    # relative to English over the other languages: (2.0, 3.0), English's own 1.0 not counted
    assert a.median_vs_english == 2.5 and a.mean_vs_english == 2.5
    assert a.worst_vs_english == 3.0 and a.worst_language == "zh"
    assert a.spread == 3.0
    assert a.median_fertility == pytest.approx(median([2 / 2, 4 / 4]))  # "zh" is in characters: left out of the median
    assert b.gini == 0.0 and b.worst_vs_english == 1.0 and b.worst_language == "xx"  # a tie: the first
    assert len(parity_rows(m)) == 2 and parity_rows(m)[0].languages == 4  # None: every row


def test_fertility_cells_follow_the_matrix():
    m = _matrix([("en", "one two", [2, 4]), ("zh", "最可能", [6, 3])])
    cells = fertility_cells(m)
    assert [(c.code, c.encoding, c.tokens, c.units, c.unit) for c in cells] == [
        ("en", "a", 2, 2, WORDS), ("en", "b", 4, 2, WORDS), ("zh", "a", 6, 3, CHARACTERS), ("zh", "b", 3, 3, CHARACTERS)]
    assert [c.fertility for c in cells] == [1.0, 2.0, 2.0, 1.0]
    assert [c.vs_english for c in cells] == [1.0, 1.0, 3.0, 0.75]


@pytest.fixture(scope="module")
def real():
    return language_matrix([engine.get_encoding(n) for n in ("gpt2", "o200k_base")])


def test_parity_rows_agree_with_the_cells_on_real_tokenizers(real):
    """The rows, recomputed the slow way from `LanguageMatrix.cells()` and the word counts."""
    for row in parity_rows(real):
        mine = [c for c in real.cells() if c.encoding == row.encoding]
        assert row.gini == parity.gini([c.tokens for c in mine])
        others = [c for c in mine if c.code != "en"]
        assert row.median_vs_english == median(c.vs_english for c in others)
        assert row.mean_vs_english == pytest.approx(sum(c.vs_english for c in others) / len(others))
        assert row.worst_vs_english == max(c.vs_english for c in mine)
        words = {s.code: count_words(s.text) for s in real.languages}
        assert row.median_fertility == median(c.tokens / words[c.code].units for c in mine
                                              if words[c.code].unit == WORDS)
    gpt2, o200k = parity_rows(real)
    assert o200k.gini < gpt2.gini  # the larger, multilingual vocabulary is the more equal one


def test_non_latin_median(real):
    cells = [c for c in real.cells() if c.encoding == "o200k_base" and c.script != "Latin"]
    assert fertility.non_latin_median(real, "o200k_base") == median(c.vs_english for c in cells)


def test_published_baselines_are_sourced():
    assert fertility.PUBLISHED
    for b in fertility.PUBLISHED:
        assert b.url.startswith("https://arxiv.org/abs/") and b.paper and b.authors and 2000 < b.year < 2030
        assert b.measure in fertility.MEASURES and b.languages
        assert f"{b.figure:g}" in b.finding  # the number printed is the paper's, in its own words
        assert all(name in engine.list_tokenizer_names() for name in b.tokenizers)


def test_doctests():
    assert doctest.testmod(fertility).failed == 0
