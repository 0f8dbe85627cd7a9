"""engine/explain/unicode_scripts.py (script of each character, the token tax), languages.json, and the gallery's
demo texts checked against tiktoken built offline from the same ranks."""
from __future__ import annotations

import functools
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import engine
from engine.explain.unicode_scripts import COMMON, OTHER, SCRIPTS, attribute_tokens, total_tokens
from playground.views.gallery.demos import DEMOS, GLITCH_TOKENS, languages

tiktoken = pytest.importorskip("tiktoken")
NAMES = ("gpt2", "cl100k_base", "o200k_base")


@functools.lru_cache(maxsize=None)
def enc(name: str) -> engine.Encoding:
    return engine.get_encoding(name)


@functools.lru_cache(maxsize=None)
def oracle(name: str):
    """tiktoken's Rust BPE on our ranks (tiktoken.get_encoding would need the network)."""
    e = enc(name)
    return tiktoken.Encoding(name, pat_str=e.pat_str, mergeable_ranks=dict(e.mergeable_ranks),
                             special_tokens=dict(e.special_tokens))


# ------------------------------------------------------------ classification
@pytest.mark.parametrize("char, script", [
    ("a", "Latin"), ("É", "Latin"), ("ж", "Cyrillic"), ("λ", "Greek"), ("ب", "Arabic"), ("ש", "Hebrew"),
    ("ह", "Devanagari"), ("অ", "Bengali"), ("த", "Tamil"), ("త", "Telugu"), ("ก", "Thai"), ("中", "Han"),
    ("ひ", "Hiragana"), ("カ", "Katakana"), ("한", "Hangul"), ("Ա", "Armenian"), ("ქ", "Georgian"),
    ("ሀ", "Ethiopic"), ("ਪ", "Gurmukhi"), ("ក", "Khmer"), ("မ", "Myanmar"),
    ("7", COMMON), (" ", COMMON), ("\n", COMMON), ("!", COMMON), ("😀", COMMON), ("。", COMMON),
    ("ᚠ", OTHER),  # Runic: not a bucket of its own
    ("\U000e0100", "Inherited"),  # a variation selector on its own
])
def test_script_of(char, script):
    assert engine.explain.unicode_scripts.script_of(char) == script


def test_script_of_wants_one_character():
    with pytest.raises(ValueError, match="one character"):
        engine.explain.unicode_scripts.script_of("ab")


def test_inherited_takes_the_previous_script():
    assert engine.explain.unicode_scripts.classify("e\u0301") == ["Latin", "Latin"]            # combining acute
    assert engine.explain.unicode_scripts.classify("\u0301a") == [COMMON, "Latin"]              # nothing before it
    assert engine.explain.unicode_scripts.classify("👍\u200d") == [COMMON, COMMON]              # ZWJ after an emoji
    assert engine.explain.unicode_scripts.script_runs("Hi, мир!") == [("Latin", 0, 2), (COMMON, 2, 4), ("Cyrillic", 4, 7), (COMMON, 7, 8)]


def test_counts_and_dominant_script():
    assert engine.explain.unicode_scripts.script_counts("日本語のテキスト") == {"Han": 3, "Hiragana": 1, "Katakana": 4}
    assert engine.explain.unicode_scripts.dominant_script("123 мир, hi") == "Cyrillic"
    assert engine.explain.unicode_scripts.dominant_script("123 !") == COMMON


def test_every_bucket_is_a_real_script_name():
    for name in SCRIPTS:  # a misspelt name would make the pattern fail to compile at import
        assert name.replace("_", "").isalpha()


@given(st.text(max_size=200))
def test_classify_covers_every_character(text):
    runs = engine.explain.unicode_scripts.script_runs(text)
    assert sum(end - start for _, start, end in runs) == len(text)
    assert all(a[2] == b[1] and a[0] != b[0] for a, b in zip(runs, runs[1:]))
    assert len(engine.explain.unicode_scripts.classify(text)) == len(text)


# ------------------------------------------------------------ the token tax
def test_tax_of_a_mixed_token_is_shared_by_bytes():
    rows = engine.token_tax(enc("o200k_base"), "hi мир")  # tokens: "hi", " мир" (1 space byte + 6 bytes)
    assert [(r.script, r.chars, r.bytes, r.tokens) for r in rows] == [
        ("Latin", 2, 2, Fraction(1)), ("Cyrillic", 3, 6, Fraction(6, 7)), (COMMON, 1, 1, Fraction(1, 7))]
    assert rows[1].tokens_per_char == pytest.approx(2 / 7)


def test_tax_of_a_split_character_is_not_counted_twice():
    text = "😀"  # gpt2: 4 bytes -> 2 tokens, both covering the one character
    toks = enc("gpt2").tokenize(text)
    assert len(toks) > 1 and all(t.partial for t in toks)
    (row,) = attribute_tokens(text, toks)
    assert (row.script, row.chars, row.bytes, row.tokens) == (COMMON, 1, 4, len(toks))


@pytest.mark.parametrize("name", NAMES)
@settings(max_examples=60, deadline=None)
@given(text=st.text(max_size=120))
def test_tax_is_sum_preserving(name, text):
    rows = engine.token_tax(enc(name), text, disallowed_special=())
    assert total_tokens(rows) == len(enc(name).encode(text, disallowed_special=()))
    assert sum(r.chars for r in rows) == len(text)
    assert sum(r.bytes for r in rows) == len(text.encode("utf-8"))


@pytest.mark.parametrize("name", NAMES)
def test_tax_of_every_language_sentence_adds_up(name):
    for entry in languages()["languages"]:
        rows = engine.token_tax(enc(name), entry["text"])
        assert total_tokens(rows) == len(oracle(name).encode(entry["text"]))


def test_special_tokens_are_attributed_too():
    text = "a<|endoftext|>b"
    rows = engine.token_tax(enc("gpt2"), text, allowed_special="all")
    assert total_tokens(rows) == 3
    with pytest.raises(ValueError, match="disallowed special token"):
        engine.token_tax(enc("gpt2"), text)


# ------------------------------------------------------------ languages.json
def test_languages_file_has_real_translations_with_provenance():
    doc = languages()
    entries = doc["languages"]
    assert len(entries) >= 15
    assert entries[0]["code"] == "en" and entries[0]["text"] == doc["msgid"]
    assert len({e["text"] for e in entries}) == len(entries)
    scripts = set()
    for e in entries:
        assert e["language"] and e["code"] and e["text"].strip()
        assert e["source"]["msgid"] == doc["msgid"] and e["source"]["package"] and e["source"]["domain"]
        if e["code"] != "en":
            assert e["source"]["file"].endswith(f"/LC_MESSAGES/{e['source']['domain']}.mo")
        declared = set(e["script"].split("+"))
        assert set(engine.explain.unicode_scripts.script_counts(e["text"])) - {COMMON} <= declared, e["language"]
        scripts |= declared
    wanted = {"Latin", "Cyrillic", "Greek", "Arabic", "Hebrew", "Devanagari", "Bengali", "Tamil", "Thai",
              "Han", "Hiragana", "Katakana", "Hangul"}
    assert wanted <= scripts


# ------------------------------------------------------------ demos vs tiktoken
@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("demo", [k for k in DEMOS if k != "special"])
def test_demo_ids_match_tiktoken(demo, name):
    for sample in DEMOS[demo].samples:
        ours = [t.id for t in enc(name).tokenize(sample.text, disallowed_special=())]
        assert ours == oracle(name).encode(sample.text, disallowed_special=()), (demo, sample.label)


def test_glitch_tokens_are_single_tokens_in_gpt2_only():
    for text, _ in GLITCH_TOKENS:
        assert len(oracle("gpt2").encode(text)) == 1, text
        assert enc("gpt2").encode(text) == oracle("gpt2").encode(text)
    assert len(oracle("cl100k_base").encode(" SolidGoldMagikarp")) > 1


def test_numbers_split_in_digit_groups_after_gpt2():
    pieces = {n: [p.text for p in enc(n).pretokenize("1234567890")] for n in NAMES}
    assert pieces["gpt2"] == ["1234567890"]
    assert pieces["cl100k_base"] == pieces["o200k_base"] == ["123", "456", "789", "0"]


@pytest.mark.parametrize("name", NAMES)
def test_special_demo_matches_tiktoken(name):
    for sample in DEMOS["special"].samples:
        text = sample.text
        assert enc(name).encode(text, allowed_special="all") == oracle(name).encode(text, allowed_special="all")
        assert enc(name).encode(text, disallowed_special=()) == oracle(name).encode(text, disallowed_special=())
        with pytest.raises(ValueError) as ours:
            enc(name).encode(text)
        with pytest.raises(ValueError) as theirs:
            oracle(name).encode(text)
        assert str(ours.value) == str(theirs.value)


def test_hello_spellings_have_different_ids():
    for name in NAMES:
        ids = [tuple(oracle(name).encode(s)) for s in ("hello", " hello", "Hello", "HELLO")]
        assert len(set(ids)) == 4
        assert [tuple(enc(name).encode(s)) for s in ("hello", " hello", "Hello", "HELLO")] == ids


def test_import_engine_does_not_pull_in_the_ui():
    import subprocess
    import sys
    code = "import sys, engine, engine.explain.unicode_scripts; print(any(m in sys.modules for m in ('streamlit', 'pandas', 'altair')))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
