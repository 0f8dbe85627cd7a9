"""engine.explain.families.tokenize_text and each family's tokenize_with_pieces: a text's tokens, the pieces they
came from and the tokens' family notes in one call, equal to tokenize, pretokenize and token_note called apart."""
from __future__ import annotations

import pytest

import engine
from engine.explain import families
from tests.conftest import CORPUS

TEXT = (CORPUS / "taylorswift.txt").read_text(encoding="utf-8")[:6_000]
TEXTS = [
    TEXT,
    "Cafe\u0301 n\u0303 ﬁ Ⅻ — decomposed and compatibility characters",  # normalizers map offsets
    "x" * 26_000 + " then words",  # past Llama's 25,000-character run: cut into slices
    "Family 👨‍👩‍👧 नमस्ते مرحبا 世界 😀 <|endoftext|> <s> </s> \t\n  end",
    "",
]
NAMES = ["gpt2", "cl100k_base", "llama3", "qwen2.5", "mistral-tekken", "mistral-v1", "deepseek-v4"]
POLICIES = [{"allowed_special": set(), "disallowed_special": ()}, {"allowed_special": "all"}]


@pytest.mark.parametrize("name", NAMES)
def test_tokens_with_pieces_equal_the_two_calls(name):
    enc = engine.get_encoding(name)
    for text in TEXTS:
        for kw in POLICIES:
            tokens, pieces = enc.tokenize_with_pieces(text, **kw)
            assert pieces == enc.pretokenize(text, **kw), (name, text[:30])
            assert tokens == enc.tokenize(text, **kw), (name, text[:30])


@pytest.mark.parametrize("name", NAMES)
def test_tokenize_text_carries_every_note_as_data(name):
    enc = engine.get_encoding(name)
    for text in TEXTS[:2] + TEXTS[3:]:
        got = families.tokenize_text(enc, text, allowed_special="all")
        assert got.tokens == tuple(enc.tokenize(text, allowed_special="all"))
        assert got.pieces == tuple(enc.pretokenize(text, allowed_special="all"))
        if not families.has_token_notes(enc):
            assert got.notes is None
            continue
        expected = {t.id: families.token_note(enc, t.id) for t in got.tokens}
        assert got.notes == {i: note for i, note in expected.items() if note is not None}


def test_a_byte_fallback_note_names_its_stored_piece():
    """The stored piece (``<0x0A>``) is a field of the note, so a drawing never parses it out of the sentence."""
    enc = engine.get_encoding("mistral-v1")
    got = families.tokenize_text(enc, "a\U0001F9E9b")
    notes = [got.notes[t.id] for t in got.tokens if t.id in got.notes and got.notes[t.id].kind == "byte"]
    assert [n.stored for n in notes] == ["<0xF0>", "<0x9F>", "<0xA7>", "<0xA9>"]
    assert all(n.text.startswith(f"byte fallback {n.stored}:") for n in notes)
