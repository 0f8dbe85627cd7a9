"""Cutting long texts into chunks (`Splitter.chunks`) never changes the pieces, and the encoder's
chunk cache gives tiktoken's ids on first sight, on a rerun and after an edit."""
from __future__ import annotations

import gzip

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.conftest import APP_DIR, CORPUS
from engine.sources.openai_public import CL100K_PAT_STR, O200K_PAT_STR, R50K_PAT_STR
from engine.tokenizer.patterns import Splitter, _chunk_cut

PATTERNS = {"r50k": R50K_PAT_STR, "cl100k": CL100K_PAT_STR, "o200k": O200K_PAT_STR}
# Spaces, line breaks and "/" next to every kind of character the patterns tell apart.
ATOMS = st.sampled_from([" ", "  ", "\n", "\n\n", "\r\n", "\r", "\t", "\x0b", "\u00a0", "\u3000", "\u2028", "/", "//",
                         "a", "Ab", "ABC", "x1", "123", "12345", "'s", "'S", "'ll", "!", ".", "?!", "é", "ſ", "\u0301",
                         "中文", "ไทย", "😀", "𝐀", "\x1c", "-", "#", "\u0378", "\U000e0001"])
TEXT = st.lists(ATOMS, min_size=1, max_size=40).map("".join)


def every_cut(text: str) -> list[int]:
    """Every place `_chunk_cut` allows (not only the ones `chunks` picks)."""
    return [m.start() if m.group() == " " else m.end() for m in _chunk_cut().finditer(text)]


@pytest.mark.parametrize("name", PATTERNS)
@settings(max_examples=400, deadline=None)
@given(text=TEXT)
def test_every_cut_keeps_the_pieces(name, text):
    splitter = Splitter(PATTERNS[name], trusted=True)
    whole = splitter.split_reference(text)
    for cut in every_cut(text):
        assert splitter.split_reference(text[:cut]) + splitter.split_reference(text[cut:]) == whole, (text, cut)


@pytest.mark.parametrize("name", PATTERNS)
def test_every_cut_in_every_short_string(name):
    """Exhaustively: every string of up to 5 characters from an alphabet of the characters that
    decide the cuts (Hypothesis rarely builds the three-character traps such as ".\n/")."""
    from itertools import product

    splitter = Splitter(PATTERNS[name], trusted=True)
    alphabet = " \n/a.1'\u00a0\r"
    for n in range(2, 6):
        for chars in product(alphabet, repeat=n):
            text = "".join(chars)
            cuts = every_cut(text)
            if cuts:
                whole = splitter.split_reference(text)
                for cut in cuts:
                    assert splitter.split_reference(text[:cut]) + splitter.split_reference(text[cut:]) == whole, (text, cut)


def corpora() -> list[str]:
    ui = gzip.decompress((APP_DIR / "bench" / "data" / "ui_strings.txt.gz").read_bytes()).decode("utf-8")
    code = "\n".join(p.read_text(encoding="utf-8") for p in sorted((APP_DIR / "engine").rglob("*.py")))
    return [ui, code, (CORPUS / "taylorswift.txt").read_text(encoding="utf-8")]


@pytest.mark.parametrize("name", PATTERNS)
def test_chunks_of_the_corpora_split_like_the_whole(name):
    splitter = Splitter(PATTERNS[name], trusted=True)
    for text in corpora():
        chunks = splitter.chunks(text, 1000)
        assert "".join(chunks) == text and len(chunks) > 20
        assert [p for chunk in chunks for p in splitter.split_reference(chunk)] == splitter.split_reference(text)


def test_chunks_only_for_patterns_whose_cuts_are_proven():
    assert Splitter(r"\p{L}+|\s+|.", trusted=False).chunks("a b " * 1000, 10) is None
    assert Splitter(O200K_PAT_STR, trusted=True).chunks("a" * 5000, 1000) == ["a" * 5000]  # nowhere to cut


@pytest.mark.parametrize("name", ["gpt2", "cl100k_base", "o200k_base"])
def test_chunk_cache_gives_tiktokens_ids_first_time_rerun_and_after_an_edit(name):
    import engine
    from tests.oracles.oracle import reference

    enc = engine.get_encoding(name)
    ref = reference(name)
    ui, code, prose = corpora()
    text = ui[:30_000] + code[:30_000] + prose[:30_000]
    enc.clear_cache()
    expected = ref.encode_ordinary(text)
    assert enc.encode_ordinary(text) == expected
    assert len(enc._chunks) > 20
    assert enc.encode_ordinary(text) == expected  # from the chunk cache
    edited = text[:45_000] + " inserted wörds 😀\n\n  " + text[45_000:]
    assert enc.encode_ordinary(edited) == ref.encode_ordinary(edited)
    twice = text + "<|endoftext|>" + text  # (the engine's sources hold special-token text too)
    assert enc.encode(twice, allowed_special="all") == ref.encode(twice, allowed_special="all")


@pytest.mark.parametrize("name", ["cl100k_base", "o200k_base"])
def test_small_caches_give_tiktokens_ids_and_stay_bounded(name, monkeypatch):
    """The same as above with every bound tiny: the chunk cache (chunks and characters) and the
    piece cache (emptied again and again); each run still equals tiktoken."""
    import engine
    import engine.tokenizer.encoding as core
    import engine.tokenizer.piece_cache as piece_cache
    from tests.oracles.oracle import reference

    monkeypatch.setattr(core, "CACHE_MAX_CHUNK_CHARS", 20_000)
    monkeypatch.setattr(core, "CACHE_MAX_CHUNKS", 15)
    monkeypatch.setattr(piece_cache, "MAX_PIECES", 700)
    enc = engine.get_encoding(name)
    ref = reference(name)
    ui, code, prose = corpora()
    text = ui[:30_000] + code[:30_000] + prose[:30_000]
    expected = ref.encode_ordinary(text)
    try:
        enc.clear_cache()
        for _ in range(2):
            assert enc.encode_ordinary(text) == expected
            assert 0 < len(enc._chunks) <= 15 and len(enc._cache) <= 700
            assert enc._chunk_chars == sum(map(len, enc._chunks)) <= 20_000
    finally:
        enc.clear_cache()  # a shared encoding: leave no entries made under the tiny bounds


def test_a_two_megabyte_text_stays_in_the_chunk_cache():
    """The bound is in characters: 1.5 MB of text (1,500 chunks) is all remembered, so the
    second run is look-ups only."""
    import engine
    from engine.tokenizer.encoding import CACHE_MAX_CHUNK_CHARS

    enc = engine.get_encoding("cl100k_base")
    text = ("word " * 200 + "\n") * 1_500
    text = "".join(f"{i} {text[i * 1001:(i + 1) * 1001]}" for i in range(1_500))
    assert len(text) < CACHE_MAX_CHUNK_CHARS
    enc.clear_cache()
    first = enc.encode_ordinary(text)
    chunks = enc._splitter.chunks(text, 1_000)
    assert all(chunk in enc._chunks for chunk in chunks)
    assert enc.encode_ordinary(text) == first
    enc.clear_cache()
