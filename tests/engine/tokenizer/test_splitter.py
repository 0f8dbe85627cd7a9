"""The fast splitter (stdlib `re` with explicit per-text character sets) cuts exactly like the plain `regex` split."""
from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.conftest import CORPUS, case_text, load_cases
from engine.sources.openai_public import CL100K_PAT_STR, O200K_PAT_STR, R50K_PAT_STR
from engine.tokenizer.patterns import _FIX_TABLE, Splitter

PATTERNS = {"r50k": R50K_PAT_STR, "cl100k": CL100K_PAT_STR, "o200k": O200K_PAT_STR}
# astral characters whose class differs under Unicode 16.0 (tiktoken's tables)
_NEWER = [chr(cp) for cp, _ in sorted(_FIX_TABLE.items()) if cp > 0xFFFF][:3]
PIECES = st.sampled_from(["𝐀", "𝐚's", "𝟐", "\U0001e900", "𐑖𐑱", "\U0001d167", *_NEWER, "\n", "\n\n", " \n", "  ", " ", "\t", "\r\n", "a", "Ab", "ABC", "x1", "12345", "'s", "'LL",
                          "!", "/", "!/\n", "é", "中文", "\u0301", "😀", "ſ", "\u00a0", "\u3000", "\u2028", "\x1c", ".\n/x",
                          "lorem ipsum dolor sit amet, consectetur adipiscing elit\n" * 5, "x " * 120, "Word\n" * 60])
TEXT = st.lists(PIECES, max_size=60).map("".join)


@pytest.mark.parametrize("name", PATTERNS)
@settings(max_examples=500, deadline=None)
@given(text=TEXT)
def test_fast_split_equals_reference(name, text):
    splitter = Splitter(PATTERNS[name], trusted=True)
    assert splitter.split(text) == splitter.split_reference(text)


@pytest.mark.parametrize("name", PATTERNS)
def test_fast_split_on_corpus_and_prose(name):
    splitter = Splitter(PATTERNS[name], trusted=True)
    texts = [case_text(c) for c in load_cases()]
    texts = [t for t in texts if not any(0xD800 <= ord(ch) <= 0xDFFF for ch in t)]
    texts.append((CORPUS / "taylorswift.txt").read_text(encoding="utf-8"))
    texts.append("\n".join(texts))
    for text in texts:
        assert splitter.split(text) == splitter.split_reference(text)


@pytest.mark.parametrize("name", PATTERNS)
def test_fast_split_on_the_many_script_corpus(name):
    import gzip

    from tests.conftest import APP_DIR

    splitter = Splitter(PATTERNS[name], trusted=True)
    ui = gzip.decompress((APP_DIR / "bench" / "data" / "ui_strings.txt.gz").read_bytes()).decode("utf-8")
    assert splitter.split(ui) == splitter.split_reference(ui)
    for line in ui.split("\n")[:2000]:  # short texts, each with its own few scripts
        assert splitter.split(line) == splitter.split_reference(line)


def test_one_compiled_pattern_serves_every_text():
    """No compilation per text; astral letters, marks and digits go through stand-ins of their group."""
    from engine.tokenizer.patterns import _GROUP_STAND_INS, _class_of

    splitter = Splitter(O200K_PAT_STR, trusted=True)
    assert splitter.bmp is not None and splitter.bmp is Splitter(O200K_PAT_STR, trusted=True).bmp
    assert {group: _class_of(ch) for group, ch in _GROUP_STAND_INS.items()} == {g: g for g in _GROUP_STAND_INS}
    for text in ["Порядок страниц", "ok 😀 🇯🇵", "𝐀𝐁𝐂 1𝟐3 𐑖𐑱𐑝𐑾𐑯 a\U0001e900'S", "𝐀's 𝐚'LL 𝟏'd"]:
        assert splitter.split(text) == splitter.split_reference(text)


def test_user_patterns_run_on_regex_with_a_time_limit():
    splitter = Splitter(r"\p{L}+|\p{N}+|\s+|[^\s\p{L}\p{N}]+")
    assert splitter.ascii is None and splitter.timeout is not None
    for text in ["hello world 42!", "héllo\nwörld 42", "abc\ndef"]:
        assert splitter.split(text) == splitter.split_reference(text)
    assert Splitter(R50K_PAT_STR, trusted=True).ascii is not None
    assert Splitter(r"\X|\p{Greek}+", trusted=True).ascii is None  # no explicit form: regex


def test_catastrophic_user_pattern_gives_a_message(monkeypatch):
    from engine.tokenizer import patterns

    monkeypatch.setattr(patterns, "SPLIT_TIMEOUT", 0.2)
    splitter = Splitter(r"(a|a)+b|\s+|.")
    splitter.timeout = 0.2
    with pytest.raises(ValueError, match="split pattern took more than"):
        splitter.split("a" * 40 + "!")


@pytest.mark.parametrize("name", PATTERNS)
def test_fast_split_on_every_bmp_character(name):
    splitter = Splitter(PATTERNS[name], trusted=True)
    chars = [chr(c) for c in range(128, 0x10000) if not 0xD800 <= c <= 0xDFFF]
    for i in range(0, len(chars), 4096):
        text = "".join(f"{c} a{c}b {c}{c}'s 1{c}2\n" for c in chars[i : i + 4096])
        reference = splitter.split_reference(text)
        assert splitter.split(text) == reference
        # the same characters inside long ASCII stretches
        padded = ("lorem ipsum dolor sit amet " * 8 + "\n").join(text[k : k + 64] for k in range(0, len(text), 64))
        assert splitter.split(padded) == splitter.split_reference(padded)


def test_only_long_s_folds_to_a_contraction_letter_in_re():
    """The explicit `re` form relies on this: in Unicode mode `re`'s (?i) matches U+017F as "s"
    (as Rust's regex does) and no other non-ASCII character as a contraction letter."""
    import re

    folds = re.compile(r"(?i)[sdmtlvre]")
    assert [c for c in range(128, 0x110000) if not 0xD800 <= c <= 0xDFFF and folds.fullmatch(chr(c))] == [0x17F]


@pytest.mark.parametrize("name", PATTERNS)
def test_explicit_form_handles_long_s_and_astral_characters(name):
    splitter = Splitter(PATTERNS[name], trusted=True)
    for text in ["it'ſ ok 'ſ 'S", "😀 a😀b 🇯🇵 x'ſ 𝐀𝐁𝐂 1𝟐3", "".join(chr(0x1F300 + i) + " a" for i in range(100))]:
        assert splitter.split(text) == splitter.split_reference(text)
    emoji = "".join(chr(0x1F300 + i * 3) for i in range(100))
    scattered = "".join(chr(0x20000 + 7 * i) + " x" for i in range(100))  # rare CJK letters
    for text in (emoji, scattered, "".join(chr(0x1D400 + i) + chr(0x1D7CE + i % 50) for i in range(1000))):
        assert splitter.split(text) == splitter.split_reference(text)
    assert splitter.split(scattered) == splitter.split_reference(scattered)


def test_user_pattern_with_capturing_groups_splits_by_whole_matches():
    splitter = Splitter(r"(\p{L})+|(\s)+|.")
    assert splitter.split("héllo  wörld!") == ["héllo", "  ", "wörld", "!"]


def test_threads_share_a_splitter():
    import threading

    splitter = Splitter(O200K_PAT_STR, trusted=True)
    texts = [f"{chr(0x400 + i)}{chr(0x600 + i)} word {i} {chr(0x900 + i)}" * 20 for i in range(80)]
    expected = [splitter.split_reference(t) for t in texts]
    errors: list[BaseException] = []

    def work(offset: int) -> None:
        try:
            for k in range(len(texts)):
                i = (k + offset) % len(texts)
                assert splitter.split(texts[i]) == expected[i]
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(n * 7,)) for n in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
