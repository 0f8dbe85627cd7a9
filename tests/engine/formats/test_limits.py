"""Tokenizer files past the engine's size limits are refused before anything big is built."""
from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import engine
from engine.formats import limits

ROOT = Path(__file__).resolve().parents[3]


def doubling_model(lines: int = 40) -> str:
    """minbpe .model whose merges each join the newest token with itself: token k has 2**(k+1) bytes."""
    merges = ["97 97"] + [f"{256 + k} {256 + k}" for k in range(lines - 1)]
    return "\n".join(["minbpe v1", "", "0", *merges]) + "\n"


def million_merges() -> str:
    return "minbpe v1\n\n0\n" + "".join(f"{i % 256} {(i * 7) % 256}\n" for i in range(1_000_000))


def test_the_235_byte_doubling_model_is_refused_naming_the_limit():
    data = doubling_model(26)
    assert len(data.encode()) < 260
    with pytest.raises(engine.TokenizerTooLargeError) as info:
        engine.formats.minbpe.parse_minbpe_model(data, source="evil.model")
    message = str(info.value)
    assert "evil.model, line 16" in message and f"{limits.MAX_TOKEN_BYTES:,} bytes per token" in message
    assert isinstance(info.value, ValueError)


def test_a_million_merges_are_refused_before_parsing():
    with pytest.raises(engine.TokenizerTooLargeError, match=r"1,000,000 merges .* \(300,000\)"):
        engine.formats.minbpe.parse_minbpe_model(million_merges(), source="big.model")


@pytest.mark.parametrize("which", ["doubling", "million"])
def test_refusing_costs_under_50_mb(which):
    """Measured in a fresh process: resident memory grows by less than 50 MB (it was 550 MB+ and 533 MB)."""
    code = textwrap.dedent(f"""
        import sys; sys.path.insert(0, {str(ROOT)!r})
        import engine
        from tests.engine.formats.test_limits import doubling_model, million_merges
        def rss(): return int(open("/proc/self/statm").read().split()[1]) * 4096
        data = doubling_model(40) if {which!r} == "doubling" else million_merges()
        before = rss()
        try:
            engine.formats.minbpe.parse_minbpe_model(data)
        except engine.TokenizerTooLargeError:
            pass
        else:
            raise SystemExit("not refused")
        print((rss() - before) / 1e6)
    """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert out.returncode == 0, out.stderr
    assert float(out.stdout.strip()) < 50


def test_total_token_bytes_are_limited():
    budget = limits.TokenBudget("f")
    budget.add(limits.MAX_TOKEN_BYTES, "line 1")
    with pytest.raises(engine.TokenizerTooLargeError, match="add up to more than"):
        for i in range(limits.MAX_TOTAL_TOKEN_BYTES // limits.MAX_TOKEN_BYTES + 1):
            budget.add(limits.MAX_TOKEN_BYTES, f"line {i + 2}")


def test_rank_file_limits():
    too_many = b"".join(b"QQ== %d\n" % i for i in range(limits.MAX_TOKENS + 1))
    with pytest.raises(engine.TokenizerTooLargeError, match="lines"):
        engine.formats.tiktoken_files.parse_tiktoken_bpe(too_many, source="x.tiktoken")
    import base64
    long_token = base64.b64encode(b"a" * (limits.MAX_TOKEN_BYTES + 1))
    with pytest.raises(engine.TokenizerTooLargeError, match="x.tiktoken, line 1"):
        engine.formats.tiktoken_files.parse_tiktoken_bpe(long_token + b" 0\n", source="x.tiktoken")


def test_vocab_bpe_token_length_limit():
    """Doubling merge lines ("a a", "aa aa", …) are refused at the line whose token passes the limit."""
    lines = "#version: 0.2\n" + "".join(f"{'a' * 2 ** i} {'a' * 2 ** i}\n" for i in range(14))
    with pytest.raises(engine.TokenizerTooLargeError, match="vocab.bpe, line 14: this token would be 8,192 bytes"):
        engine.formats.tiktoken_files.parse_data_gym(lines, vocab_source="vocab.bpe")


def test_vocab_bpe_limit():
    lines = "#version: 0.2\n" + "a b\n" * (limits.MAX_TOKENS + 1)
    with pytest.raises(engine.TokenizerTooLargeError, match="merge lines"):
        engine.formats.tiktoken_files.parse_data_gym(lines, vocab_source="vocab.bpe")


# ------------------------------------------------------------ load_tokenizer
def _ranks_file(ranks: dict[bytes, int]) -> bytes:
    return engine.formats.tiktoken_files.dump_tiktoken_bpe(ranks)


def test_load_tokenizer_refuses_missing_single_bytes():
    ranks = {bytes([b]): i for i, b in enumerate(range(32, 127))}
    with pytest.raises(ValueError, match=r"148 of the bytes that occur in UTF-8 text have no token \(0x00"):
        engine.load_tokenizer("tiktoken", ("small.tiktoken", _ranks_file(ranks)), pat_str=None)


def test_load_tokenizer_refuses_a_pattern_that_drops_text():
    ranks = {bytes([b]): b for b in range(256)}
    with pytest.raises(ValueError, match="does not give back a test text"):
        engine.load_tokenizer("tiktoken", ("bytes.tiktoken", _ranks_file(ranks)), pat_str=r"\p{L}+")


def test_load_tokenizer_names_are_safe_and_unique():
    ranks = {bytes([b]): b for b in range(256)}
    data = _ranks_file(ranks)
    a = engine.load_tokenizer("tiktoken", ("[click me](http://x.example)<b>.tiktoken", data), pat_str=None)
    b = engine.load_tokenizer("tiktoken", ("[click me](http://x.example)<b>.tiktoken", data), pat_str=r"\S+|\s+")
    assert a.name != b.name
    for name in (a.name, b.name):
        assert all(c.isalnum() or c in "-_" for c in name), name
    assert a.encode("hi") == [ord("h"), ord("i")]


def test_load_tokenizer_accepts_a_real_vocabulary():
    enc = engine.get_encoding("gpt2")
    data = _ranks_file(dict(enc.mergeable_ranks))
    up = engine.load_tokenizer("tiktoken", ("gpt2.tiktoken", data), pat_str=enc.pat_str, special_tokens=["<|x|>"])
    assert up.encode_ordinary("hello world") == enc.encode_ordinary("hello world")
    assert up.special_tokens == {"<|x|>": 50256}  # right after the 50,256 ordinary tokens


def test_bytes_that_never_occur_in_utf8_are_not_required():
    ranks = {bytes([b]): i for i, b in enumerate(b for b in range(256) if b not in (0xC0, 0xC1) and b < 0xF5)}
    enc = engine.load_tokenizer("tiktoken", ("utf8.tiktoken", _ranks_file(ranks)), pat_str=None)
    assert enc.decode(enc.encode("naïve 👋🏽")) == "naïve 👋🏽"
