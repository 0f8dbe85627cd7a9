"""Claude 3+ counts equal ctok 1.3.0's own `token_count(text, version)`, run under Python 3.12 (the oracle).

Every family (v3, v4.7, v4.8) on the corpus, on one sentence in many languages, on Hypothesis text and on
hand-picked edge cases; each test sends its texts to ctok in one batch.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from engine.families.claude import get_claude
from engine.formats.tiktoken_files import DATA_DIR

CORPUS = Path(__file__).resolve().parents[3] / "data" / "corpus"
VERSIONS = {"claude-3": "3.0", "claude-4.7": "4.7", "claude-4.8": "4.8"}
FAMILIES = pytest.mark.parametrize("name", list(VERSIONS))


def assert_counts(ctok, name: str, texts: list[str]) -> None:
    enc = get_claude(name)
    expected = ctok.counts(texts, VERSIONS[name])
    wrong = [(t, ours, theirs) for t, ours, theirs in zip(texts, (enc.count_tokens(t) for t in texts), expected)
             if ours != theirs]
    assert not wrong, f"{len(wrong)} of {len(texts)} counts differ from ctok; first: {wrong[0]!r}"


def corpus_texts() -> list[str]:
    cases = [json.loads(line)["text"] for line in (CORPUS / "cases.jsonl").read_text(encoding="utf-8").split("\n")
             if line.strip()]
    swift = (CORPUS / "taylorswift.txt").read_text(encoding="utf-8")
    paragraphs = [p for p in swift.split("\n\n") if p.strip()]
    return cases + paragraphs[:300] + [swift[:10_000]]


def language_texts() -> list[str]:
    langs = json.loads((DATA_DIR / "languages.json").read_text(encoding="utf-8"))["languages"]
    texts = [lang["text"] for lang in langs]
    # the same sentences joined (scripts meeting at a space or a newline) and in ALL CAPS / Title Case
    return texts + [" ".join(texts), "\n".join(texts)] + [t.upper() for t in texts] + [t.title() for t in texts]


# What the stream rules turn on: cased letters (Σ, İ, ẞ, ϴ), contractions, curly and low quotes, digits of
# several scripts, combining marks (Alphabetic or not, stray, Syriac), variation selectors, CJK and kana,
# Hangul, emoji, odd spaces, controls, private use, the noncharacters the engine uses as markers, the
# brackets of the public notation, and code points whose properties changed in Unicode 15.0.
EDGE_ALPHABET = list("aAbBzZ  \n\t'’‘“”„\".,;:!?()[]{}=<>-_/\\#@$%&*+0123456789٣۴१๓ΣσςİiIẞßϴθ"
                     "éèÉÊ\u0301\u0300\u0308\u0327\u0711\u0730\u073F\u0CF3\u0ECE\ufe0f\ufe00"
                     "文字中国あいうアイウーヶ々〆。、？！（）한국어😀👍🏽\u200d\u3000\u00a0\u2009\x00\x01\x7f\x85"
                     "\ue000\uf8ff\ufdd0\ufdd1\ufdd3⟨⟩—«»•€…→Ⅻⓐ①½²"
                     "\u10fc\ua7f2\uab69\U0001e08f\U0001e4ec\U00011f41\U0001d2c0\U00031350")


@pytest.mark.heavy
@FAMILIES
def test_corpus_counts_equal_ctok(ctok, name: str) -> None:
    assert_counts(ctok, name, corpus_texts())


@FAMILIES
def test_many_languages_counts_equal_ctok(ctok, name: str) -> None:
    assert_counts(ctok, name, language_texts())


EDGE_CASES = [
    "", " ", "  ", "a", " a", "  a", "\n", "a\n", "a" + "\n" * 28, "a" + "\n" * 29, "\n" * 45, "hello, world",
    "NASA likes tokenizers", "it's", "it'll", "x'S", "'First", "a 'b", "ŞİRKET", "İstanbul", "ΣΑΣ ΣΟΦΟΣ",
    "STRAẞE", "ϴ Θϴ", "“quoted” ‘single’ „low“", "१२३ ٣٤٥ 123", "a\u0301b", "\u0301abc", "\u0CF3 ಕ\u0CF3",
    "\u0ECE\u0ECE", "ꟲꟳ ჼ ꭩ", "x\U0001e08f\u0301y", "⚖️ ok", "文字？ 1", "1？。 1", "\ufdd0\ufdd1 ⟨bow⟩",
    "\ud800 lone", "tab\tsep", "\x00\x01 a", "\ue000a\ue001b", "GaN WiFi QQ", "ⅫⅫ ⓐⓑ",
    # Unicode 15.0 made U+0ECE and U+0CF3 marks (3.11 reads them unassigned): a mark blocks ⟨caps⟩
    "ABCD\u0ECE", "WORD\u0CF3 x", "1\U0001e08f\u0301\U0001e08f",
]


@FAMILIES
def test_edge_cases_equal_ctok(ctok, name: str) -> None:
    assert_counts(ctok, name, EDGE_CASES)


@FAMILIES
@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                  HealthCheck.too_slow])
@given(texts=st.lists(st.text(st.one_of(st.sampled_from(EDGE_ALPHABET), st.characters(codec="utf-8")), max_size=40),
                      min_size=40, max_size=40))
def test_hypothesis_counts_equal_ctok(ctok, name: str, texts: list[str]) -> None:
    assert_counts(ctok, name, texts)


@FAMILIES
@settings(max_examples=4, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                  HealthCheck.too_slow])
@given(texts=st.lists(st.text(st.characters(), max_size=60), min_size=40, max_size=40))
def test_hypothesis_any_str_equal_ctok(ctok, name: str, texts: list[str]) -> None:
    """Any str at all, lone surrogates included: ctok's count is total, and so is ours."""
    assert_counts(ctok, name, texts)
