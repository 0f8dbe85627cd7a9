"""A rank file with an empty token (issue 33 item 6a): OpenAI whisper's ``multilingual.tiktoken`` gives rank 50256
the line ``= 50256``, base64 of no bytes.  tiktoken and whisper load it; so does this engine, with the same ids,
and nothing downstream breaks on the token: it decodes to nothing, no merge makes it, no text encodes to it.

A small file built here checks every part; the real file comes from the pinned openai-whisper sdist (MIT)."""
from __future__ import annotations

import base64

import pytest
import tiktoken
import tiktoken.load

import engine
from engine.explain.families import no_tree_reason
from engine.formats import tiktoken_files as load
from engine.tokenizer.merges import merge_tree_of, recover_merges, recover_merges_reference
from tests import reference_packages as rp

GPT2 = engine.get_encoding("gpt2")
N = 600  # gpt2's first 600 ranks are a valid BPE rank file on their own (each merge uses lower ranks)
TEXTS = ["Hello world", "the other thing, then that", "こんにちは世界 Привет мир", "", " = ==", "naïve café 👋🏽",
         "  \n\n\t x", "1234567 + 2026", "<|endoftext|>"]


def _small_file(empty_line: bytes = b"=") -> bytes:
    ranks = {tok: rank for tok, rank in GPT2.mergeable_ranks.items() if rank < N}
    body = load.dump_tiktoken_bpe(ranks)
    return body + empty_line + b" " + str(N).encode() + b"\n"


def _pair(ranks: dict[bytes, int], name: str) -> tuple[engine.Encoding, tiktoken.Encoding]:
    return (engine.Encoding(name, pat_str=GPT2.pat_str, mergeable_ranks=ranks, special_tokens={}),
            tiktoken.Encoding(name, pat_str=GPT2.pat_str, mergeable_ranks=ranks, special_tokens={}))


@pytest.mark.parametrize("padding", [b"=", b"==", b"===="])
def test_padding_alone_is_the_empty_token_as_tiktoken_reads_it(padding, tmp_path):
    path = tmp_path / "small.tiktoken"
    path.write_bytes(_small_file(padding))
    ours = load.load_tiktoken_bpe(path)  # refused before: "line 601: bad base64 '='"
    assert ours == tiktoken.load.load_tiktoken_bpe(str(path))
    assert ours[b""] == N and len(ours) == N + 1


def test_the_empty_token_decodes_to_nothing_and_no_text_encodes_to_it():
    enc, ref = _pair(load.parse_tiktoken_bpe(_small_file()), "small-empty")
    assert enc.n_vocab == ref.n_vocab == N + 1
    for text in TEXTS:
        ids = enc.encode(text, disallowed_special=())
        assert ids == ref.encode(text, disallowed_special=()) and N not in ids
    assert enc.decode_single_token_bytes(N) == ref.decode_single_token_bytes(N) == b""
    hello = enc.encode("Hello")
    assert enc.decode([N, *hello, N]) == ref.decode([N, *hello, N]) == "Hello"
    text, offsets = enc.decode_with_offsets(hello + [N] + hello)
    assert text == "HelloHello" and offsets[len(hello)] == 5 == offsets[len(hello) + 1]  # where the next one starts
    assert offsets[:len(hello)] == ref.decode_with_offsets(hello)[1]
    with pytest.raises(IndexError):  # tiktoken 0.14 reads its first byte
        ref.decode_with_offsets([N])


def test_no_merge_makes_it_and_every_other_merge_is_recovered():
    ranks = load.parse_tiktoken_bpe(_small_file())
    merges = recover_merges(ranks)  # raised before: "token b'' (rank 600) ... leaves 0 parts"
    assert merges == recover_merges_reference(ranks)
    assert N not in merges.values() and len(merges) == N - 256
    assert merges == {pair: r for pair, r in GPT2.merges.items() if r < N}
    enc = engine.Encoding("small-empty", pat_str=GPT2.pat_str, mergeable_ranks=ranks, special_tokens={})
    tree = enc.merge_tree(N)
    assert tree.is_leaf and tree.bytes == b"" and merge_tree_of(b"", ranks) == tree
    assert enc.merge_parents(N) is None
    assert "empty token" in no_tree_reason(enc, N) and "decodes to nothing" in no_tree_reason(enc, N)
    assert no_tree_reason(enc, 300) is None  # an ordinary token keeps its tree


def test_written_back_it_reads_again_here_and_in_tiktoken(tmp_path):
    ranks = load.parse_tiktoken_bpe(_small_file())
    data = load.dump_tiktoken_bpe(ranks)
    assert data.endswith(b"\n= 600\n")  # tiktoken's own dump writes " 600", which neither reader takes back
    path = tmp_path / "again.tiktoken"
    path.write_bytes(data)
    assert load.parse_tiktoken_bpe(data) == tiktoken.load.load_tiktoken_bpe(str(path)) == ranks


def test_an_upload_with_the_empty_token_loads():
    enc = engine.load_tokenizer("tiktoken", ("small.tiktoken", _small_file()), None, GPT2.pat_str, [])
    _, ref = _pair(load.parse_tiktoken_bpe(_small_file()), "small-empty")
    assert enc.decode_single_token_bytes(N) == b"" and enc.encode("Hello world") == ref.encode("Hello world")


def test_real_bad_base64_and_two_empty_tokens_are_still_refused():
    with pytest.raises(ValueError, match="line 601: bad base64 'A='"):
        load.parse_tiktoken_bpe(_small_file(b"A="))
    twice = _small_file() + b"== 601\n"
    with pytest.raises(ValueError, match="line 602: duplicate token b''"):
        load.parse_tiktoken_bpe(twice)


WHISPER = ("openai-whisper", "openai_whisper-20250625/whisper/assets/multilingual.tiktoken")


def test_whispers_multilingual_rank_file_loads_as_tiktoken_loads_it():
    path = rp.member_file(*WHISPER)
    ranks = load.load_tiktoken_bpe(path)
    ref_ranks = tiktoken.load.load_tiktoken_bpe(str(path))
    assert ranks == ref_ranks and ranks[b""] == 50256 and len(ranks) == 50257
    enc, ref = _pair(ranks, "whisper-multilingual")  # whisper splits with GPT-2's pattern
    for text in TEXTS + ["Whisper is a general-purpose speech recognition model. Ça va? ¿Qué tal? 你好，世界"]:
        assert enc.encode(text, disallowed_special=()) == ref.encode(text, disallowed_special=()), text
    assert enc.decode_single_token_bytes(50256) == b"" and enc.merge_tree(50256).bytes == b""
    assert len(enc.merges) == 50257 - 256 - 1  # every token but the bytes and the empty one is one merge
