"""The Encoding facade: tiktoken's names and semantics, errors that say the fix, thread safety."""
from __future__ import annotations

import subprocess
import sys
import threading
from pathlib import Path

import pytest

import engine
from engine.sources.openai_public import SPECS
from tests.oracles.oracle import reference

ROOT = Path(__file__).resolve().parents[2]


def test_registry_lists_and_builds_once():
    assert engine.list_tokenizer_names()[:5] == ["gpt2", "r50k_base", "cl100k_base", "o200k_base", "o200k_harmony"]  # OpenAI first, then the open models
    assert engine.get_encoding("cl100k_base") is engine.get_encoding("cl100k_base")
    gpt2, r50k = engine.get_encoding("gpt2"), engine.get_encoding("r50k_base")
    assert dict(gpt2.mergeable_ranks) == dict(r50k.mergeable_ranks) and gpt2.pat_str == r50k.pat_str


def test_unknown_encoding_lists_known_ones():
    with pytest.raises(ValueError, match="Known encodings: gpt2, r50k_base, cl100k_base, o200k_base, o200k_harmony"):
        engine.get_encoding("p50k_edit")


@pytest.mark.parametrize("name,n_vocab,max_token,eot", [
    ("gpt2", 50257, 50256, 50256),
    ("r50k_base", 50257, 50256, 50256),
    ("cl100k_base", 100277, 100276, 100257),
    ("o200k_base", 200019, 200018, 199999),
])
def test_sizes_and_specials_match_tiktoken(name, n_vocab, max_token, eot):
    enc = engine.get_encoding(name)
    ref = reference(name if name != "r50k_base" else "gpt2")
    assert (enc.n_vocab, enc.max_token_value, enc.eot_token) == (n_vocab, max_token, eot)
    assert (ref.n_vocab, ref.max_token_value, ref.eot_token) == (n_vocab, max_token, eot)
    assert enc.special_tokens_set == ref.special_tokens_set
    assert dict(enc.special_tokens) == SPECS[name].special_tokens


def test_read_only_data():
    enc = engine.get_encoding("gpt2")
    with pytest.raises(TypeError):
        enc.mergeable_ranks[b"zz"] = 1  # type: ignore[index]
    with pytest.raises(TypeError):
        enc.special_tokens["<|x|>"] = 1  # type: ignore[index]
    with pytest.raises(AttributeError):
        enc.pat_str = "x"  # type: ignore[misc]


def test_disallowed_special_message_names_token_and_fix():
    enc = engine.get_encoding("cl100k_base")
    with pytest.raises(ValueError) as info:
        enc.encode("hi <|endofprompt|>")
    msg = str(info.value)
    assert "'<|endofprompt|>'" in msg and "allowed_special" in msg and "disallowed_special" in msg
    assert enc.encode("hi <|endofprompt|>", allowed_special={"<|endofprompt|>"})[-1] == 100276
    assert enc.encode("<|endoftext|>", disallowed_special=()) == enc.encode_ordinary("<|endoftext|>")
    # allowing one special does not allow the others
    with pytest.raises(ValueError, match="fim_prefix"):
        enc.encode("<|endoftext|><|fim_prefix|>", allowed_special={"<|endoftext|>"})


def test_special_policy_matches_tiktoken():
    enc, ref = engine.get_encoding("o200k_base"), reference("o200k_base")
    text = "a<|endoftext|>b<|endofprompt|>c<|fim_prefix|>"
    for kwargs in [dict(allowed_special="all"), dict(disallowed_special=()),
                   dict(allowed_special={"<|endofprompt|>"}, disallowed_special=())]:
        assert enc.encode(text, **kwargs) == ref.encode(text, **kwargs)


def test_unknown_ids_name_the_id():
    enc = engine.get_encoding("cl100k_base")
    for bad in (100261, -1, 10**9):
        with pytest.raises(KeyError, match=str(bad)):
            enc.decode([15339, bad])
        with pytest.raises(engine.UnknownTokenError, match=str(bad)):
            enc.decode_single_token_bytes(bad)
    assert enc.unknown_ids([1, 100261, 2, -5]) == [100261, -5]


def test_single_token_functions():
    enc = engine.get_encoding("cl100k_base")
    assert enc.encode_single_token("hello") == 15339
    assert enc.encode_single_token(b" world") == 1917
    assert enc.encode_single_token("<|endoftext|>") == 100257
    with pytest.raises(KeyError):
        enc.encode_single_token("hello world")
    assert enc.decode_tokens_bytes([15339, 1917]) == [b"hello", b" world"]
    assert enc.decode_single_token_bytes(100257) == b"<|endoftext|>"
    values = enc.token_byte_values()
    assert len(values) == 100256 and values == sorted(values)


@pytest.mark.parametrize("name", ["gpt2", "cl100k_base", "o200k_base"])
def test_every_token_decodes_and_reencodes_to_itself(name):
    enc = engine.get_encoding(name)
    for token in range(enc.n_vocab):
        try:
            data = enc.decode_single_token_bytes(token)
        except KeyError:
            continue
        assert enc.encode_single_token(data) == token


def test_decode_replaces_split_characters():
    enc = engine.get_encoding("gpt2")
    ids = enc.encode("😀")
    assert len(ids) > 1
    assert enc.decode(ids[:1]) == "\ufffd"
    assert enc.decode(ids) == "😀"
    with pytest.raises(UnicodeDecodeError):
        enc.decode(ids[:1], errors="strict")


def test_threads_share_one_encoding():
    enc = engine.get_encoding("o200k_base")
    texts = [f"thread {i} says héllo wörld {i * 7919} 🧵 " * 50 for i in range(8)]
    expected = [reference("o200k_base").encode_ordinary(t) for t in texts]
    results: dict[int, list[int]] = {}

    def work(i: int) -> None:
        for _ in range(20):
            if i % 2:
                enc.clear_cache()
            results[i] = enc.encode_ordinary(texts[i])

    threads = [threading.Thread(target=work, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert [results[i] for i in range(8)] == expected


def test_cache_is_bounded_and_clearable():
    from engine.tokenizer.piece_cache import MAX_PIECES as CACHE_MAX_PIECES

    enc = engine.get_encoding("gpt2")
    enc.clear_cache()
    assert len(enc._cache) == 0
    enc.encode_ordinary(" ".join(f"w{i}" for i in range(CACHE_MAX_PIECES + 10)))
    assert 0 < len(enc._cache) <= CACHE_MAX_PIECES


def test_import_engine_does_not_import_ui_libraries():
    code = "import sys, engine; engine.get_encoding('gpt2').encode('hi'); " \
           "bad = [m for m in ('streamlit', 'pandas', 'altair', 'tiktoken') if m in sys.modules]; " \
           "assert not bad, bad"
    subprocess.run([sys.executable, "-c", code], cwd=ROOT, check=True)


from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402


@pytest.mark.parametrize("name", ["gpt2", "cl100k_base", "o200k_base"])
@settings(max_examples=300, deadline=None)
@given(text=st.text(alphabet=st.characters(codec="utf-8"), max_size=120))
def test_round_trip_text_and_bytes(name, text):
    enc = engine.get_encoding(name)
    ids = enc.encode(text, disallowed_special=())
    assert enc.decode(ids) == text
    assert enc.decode_bytes(ids) == text.encode("utf-8")
    assert b"".join(enc.decode_tokens_bytes(ids)) == text.encode("utf-8")
    ids_all = enc.encode(text, allowed_special="all")
    assert enc.decode(ids_all) == text


def test_user_split_pattern_that_backtracks_gives_a_message(monkeypatch):
    from engine.tokenizer import patterns

    enc = engine.Encoding("slow", pat_str=r"(a|a)+b|\s+|.", mergeable_ranks={bytes([b]): b for b in range(256)},
                          special_tokens={})
    enc._splitter.timeout = 0.2
    monkeypatch.setattr(patterns, "SPLIT_TIMEOUT", 0.2)
    text = "a" * 40 + "!"
    with pytest.raises(ValueError, match="split pattern took more than 0.2 s"):
        enc.encode(text)
    with pytest.raises(ValueError, match="split pattern took more than"):
        enc.pretokenize(text)
    assert enc.encode("ab c") == list(b"ab c")  # a harmless text still works
