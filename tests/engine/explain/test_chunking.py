"""engine.explain.chunking: chunks of at most N tokens; fast path = reference on Hypothesis text for every family."""
from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import engine
from engine.explain.chunking import Chunking, ChunkingError, chunk_text, chunk_text_reference

FAMILIES = ("cl100k_base", "gpt2", "llama3", "mistral-v3", "deepseek-v4")  # regex BPE, Meta's, SentencePiece, HF
BYTE_LEVEL = ("cl100k_base", "gpt2", "llama3", "deepseek-v4")
TEXTS = st.text(st.sampled_from(list("ab .!?\n\n 。日é👋🏽\u0301xyz")), max_size=24)
TEXT = ("Tokenizers cut text into tokens. Each chunk must fit a budget!\n\n"
        "A second paragraph: 日本語の文章です。もう一つ。 And emoji 👋🏽🇯🇵 at the end… "
        "Does it work? Yes.\nA new line.\n\n\nThird paragraph.")


@pytest.fixture(scope="module", params=FAMILIES)
def enc(request):
    return engine.get_encoding(request.param)


def _outcome(fn, *args, **kwargs):
    try:
        return fn(*args, **kwargs)
    except ChunkingError as error:
        return str(error)


def check_promises(result: Chunking, enc, text: str, n: int) -> None:
    assert "".join(c.text for c in result.chunks) == text
    pos = byte = tok = 0
    for i, c in enumerate(result.chunks):
        assert (c.index, c.char_start, c.byte_start, c.token_start) == (i, pos, byte, tok)
        assert c.text == text[c.char_start:c.char_end] and c.text
        assert c.tokens == len(enc.encode(c.text)) <= n
        assert c.token_end - c.token_start <= n
        pos, byte, tok = c.char_end, c.byte_end, c.token_end
    assert (pos, byte) == (len(text), len(text.encode("utf-8")))
    if result.chunks:
        assert tok == result.total_tokens == len(enc.encode(text))
        assert result.chunks[-1].ends_at == "end"


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=TEXTS, n=st.integers(1, 6), prefer=st.sampled_from(["none", "sentence", "paragraph"]),
       min_fill=st.sampled_from([0, 0.5, 1.0]))
def test_fast_equals_reference(enc, text, n, prefer, min_fill):
    fast = _outcome(chunk_text, text, enc, n, prefer=prefer, min_fill=min_fill)
    assert fast == _outcome(chunk_text_reference, text, enc, n, prefer=prefer, min_fill=min_fill)
    if isinstance(fast, Chunking):
        check_promises(fast, enc, text, n)


@pytest.mark.parametrize("prefer", ["none", "sentence", "paragraph"])
@pytest.mark.parametrize("n", [6, 9, 20, 1000])  # a SentencePiece emoji alone: ▁ + 4 byte tokens
def test_promises_on_a_real_text(enc, n, prefer):
    check_promises(chunk_text(TEXT, enc, n, prefer=prefer), enc, TEXT, n)


def test_reference_on_a_real_text(enc):
    for prefer in ("none", "paragraph"):
        assert chunk_text(TEXT, enc, 12, prefer=prefer) == chunk_text_reference(TEXT, enc, 12, prefer=prefer)


@pytest.mark.parametrize("name", BYTE_LEVEL)
def test_split_characters_stay_together(name):
    """A character spread over several byte tokens is never cut: each chunk's tokens decode to its text."""
    enc = engine.get_encoding(name)
    text = "👋🏽🇯🇵🤷‍♀️ 𝔘𝔫𝔦𝔠𝔬𝔡𝔢 漢字" * 3
    ids = enc.encode(text)
    result = chunk_text(text, enc, 6)
    for c in result.chunks:
        assert enc.decode_bytes(ids[c.token_start:c.token_end]) == c.text.encode("utf-8")
        assert enc.decode(enc.encode(c.text)) == c.text


def test_preferences_pick_paragraph_then_sentence_ends():
    enc = engine.get_encoding("cl100k_base")
    text = "One two. Three four five.\n\nSix seven eight nine ten eleven."
    assert [c.text for c in chunk_text(text, enc, 12, prefer="paragraph").chunks] == [
        "One two. Three four five.\n\n", "Six seven eight nine ten eleven."]
    assert [c.ends_at for c in chunk_text(text, enc, 12, prefer="paragraph").chunks] == ["paragraph", "end"]
    assert [c.text for c in chunk_text(text, enc, 5, prefer="sentence").chunks][:2] == ["One two.", " Three four five.\n\n"]
    none = chunk_text(text, enc, 5, prefer="none")
    assert [c.token_end - c.token_start for c in none.chunks] == [5, 5, 4]  # as full as possible, the rest last
    assert chunk_text("日本語です。次の文。", enc, 6, prefer="sentence").chunks[0].text == "日本語です。"


def test_min_fill_keeps_short_sentences_from_making_tiny_chunks():
    enc = engine.get_encoding("cl100k_base")
    text = "Hello world! Tokenizers cut text into pieces and this sentence goes on and on for a while."
    assert chunk_text(text, enc, 12, prefer="sentence", min_fill=0).chunks[0].text == "Hello world!"
    first = chunk_text(text, enc, 12, prefer="sentence").chunks[0]  # 3 tokens < half of 12: cut late instead
    assert (first.token_end, first.ends_at) == (12, "token")
    with pytest.raises(ChunkingError, match="from 0 to 1"):
        chunk_text(text, enc, 12, min_fill=2)


def test_sentencepiece_chunk_counts_re_encoded():
    """A SentencePiece chunk re-encoded gets a ``▁`` at its start; the count includes it and still fits."""
    enc = engine.get_encoding("mistral-v3")
    result = chunk_text("a b c d e f g h", enc, 3)
    for c in result.chunks:
        assert c.tokens == len(enc.encode(c.text)) <= 3


def test_errors_say_the_fix():
    enc = engine.get_encoding("cl100k_base")
    with pytest.raises(ChunkingError, match="at least 2 tokens"):
        chunk_text("Hi 👋", enc, 1)
    with pytest.raises(ChunkingError, match="at least 1"):
        chunk_text("Hi", enc, 0)
    with pytest.raises(ChunkingError, match="'none', 'sentence', 'paragraph'"):
        chunk_text("Hi", enc, 3, prefer="word")
    with pytest.raises(ValueError, match="disallowed special token"):
        chunk_text("<|endoftext|>", enc, 3)
    assert chunk_text("<|endoftext|>", enc, 1, allowed_special="all").chunks[0].tokens == 1


def test_empty_and_surrogates():
    enc = engine.get_encoding("cl100k_base")
    assert chunk_text("", enc, 3).chunks == ()
    result = chunk_text("a\ud83d\ude00b\ud800", enc, 2)  # a pair becomes one character; a lone one U+FFFD
    assert "".join(c.text for c in result.chunks) == "a😀b\ufffd"


@pytest.mark.slow
def test_long_text_every_family():
    text = (TEXT + "\n\n") * 200
    for name in FAMILIES:
        enc = engine.get_encoding(name)
        check_promises(chunk_text(text, enc, 100, prefer="paragraph"), enc, text, 100)
