"""engine.explain.vocab: readable bytes, token facts, search (substring, regex with a time budget), filters, families, glitch list."""
from __future__ import annotations

import json

import pytest
import regex

import engine
from engine.explain import vocab


@pytest.fixture(scope="module")
def gpt2():
    return engine.get_encoding("gpt2")


@pytest.fixture(scope="module")
def cl100k():
    return engine.get_encoding("cl100k_base")


def _tiny(tokens: list[bytes]) -> engine.Encoding:
    """All 256 bytes plus `tokens` (ranks are not checked for BPE consistency here)."""
    ranks = {bytes([b]): b for b in range(256)}
    for t in tokens:
        ranks[t] = len(ranks)
    return engine.Encoding("tiny", pat_str=r"\S+|\s+", mergeable_ranks=ranks, special_tokens={"<|end|>": len(ranks)})


# ------------------------------------------------------------------ readable
@pytest.mark.parametrize("data, shown", [
    (b"hello", "hello"),
    (b" the", " the"),
    ("日".encode()[:2], "<e6 97>"),
    (b" \xe6\x97", " <e6 97>"),
    ("日本".encode()[:4], "日<e6>"),
    (b"\xff\xfe", "<ff fe>"),
    (b"a\nb\tc\r", "a\\nb\\tc\\r"),
    (b"\x00x\x1b", "<00>x<1b>"),
    ("👍".encode(), "👍"),
    (b"\xf0\x9f", "<f0 9f>"),
])
def test_readable(data, shown):
    assert vocab.readable(data) == shown


def test_readable_visible_space():
    assert vocab.readable(b"  a b", space="␣") == "␣␣a␣b"


def test_readable_keeps_every_byte(cl100k):
    """Reading the hex groups back and encoding the text between them gives the exact bytes."""
    for data in cl100k.token_byte_values()[::37]:
        if any(c < 0x20 or c == 0x7F or c == ord("<") for c in data):
            continue  # escapes and a literal "<" are not reversible by this simple reader
        text = vocab.readable(data)
        rebuilt = b"".join(bytes.fromhex(m.group(1)) if m.group(1) else m.group(2).encode()
                           for m in regex.finditer(r"<([0-9a-f]{2}(?: [0-9a-f]{2})*)>|([^<]+)", text))
        assert rebuilt == data, (data, text)


# ---------------------------------------------------------------- token facts
def test_token_info(gpt2):
    info = engine.explain.vocab.token_info(gpt2, gpt2.encode_single_token(" hello"))
    assert (info.text, info.length, info.leading_space, info.valid_utf8) == (" hello", 6, True, True)
    info = engine.explain.vocab.token_info(gpt2, gpt2.encode_single_token(b"\xe6\x97"))
    assert not info.valid_utf8 and info.readable == "<e6 97>"


def test_token_info_unknown_id(cl100k):
    with pytest.raises(engine.UnknownTokenError):
        engine.explain.vocab.token_info(cl100k, cl100k.n_vocab + 5)


def test_token_infos_cover_every_ordinary_token_in_id_order(cl100k):
    infos = engine.explain.vocab.token_infos(cl100k)
    assert len(infos) == len(cl100k.mergeable_ranks)
    assert [i.id for i in infos] == sorted(cl100k.mergeable_ranks.values())
    assert all(cl100k.decode_single_token_bytes(i.id) == i.bytes for i in infos[::1000])


@pytest.mark.parametrize("data, flag", [(b" the", True), (b"the", False), (b" ", False), (b"  ", False), (b"  x", True)])
def test_leading_space_flag(data, flag):
    assert vocab.has_leading_space(data) is flag


# ---------------------------------------------------------------------- search
def test_substring_search_matches_brute_force(gpt2):
    got = engine.explain.vocab.search_substring(gpt2, "Magikarp")
    want = sorted(tid for b, tid in gpt2.mergeable_ranks.items() if "Magikarp" in b.decode("utf-8", "replace"))
    assert got == want and gpt2.encode_single_token(" SolidGoldMagikarp") in got


def test_substring_search_ignore_case(gpt2):
    ids = engine.explain.vocab.search_substring(gpt2, "solidgold", ignore_case=True)
    assert gpt2.encode_single_token(" SolidGoldMagikarp") in ids
    assert engine.explain.vocab.search_substring(gpt2, "solidgold") == []


def test_empty_search_is_every_token(gpt2):
    assert len(engine.explain.vocab.search_substring(gpt2, "")) == len(gpt2.mergeable_ranks)


def test_regex_search(cl100k):
    ids = engine.explain.vocab.search_regex(cl100k, r"^\d{3}$")
    texts = {cl100k.decode_single_token_bytes(i).decode() for i in ids}
    assert len(texts) == 1000 and "042" in texts  # cl100k has every 3-digit number as a token
    assert set(engine.explain.vocab.search_regex(cl100k, r"^HELLO$", ignore_case=True)) >= {cl100k.encode_single_token("hello")}


def test_invalid_regex_is_a_value_error_with_a_hint(gpt2):
    with pytest.raises(ValueError, match=r"invalid regex '\(ab': missing \).*backslash"):
        engine.explain.vocab.search_regex(gpt2, "(ab")


def test_catastrophic_regex_times_out_with_a_message():
    """(a|a)+$ on a long run of 'a' followed by '!' backtracks 2^n ways; the budget stops it."""
    enc = _tiny([b"a" * 40 + b"!"])
    with pytest.raises(engine.RegexTimeoutError) as err:
        engine.explain.vocab.search_regex(enc, r"(a|a)+$", timeout=0.2)
    assert isinstance(err.value, TimeoutError)
    assert "took too long" in str(err.value) and "0.2 s over the whole" in str(err.value) and "single repeat" in str(err.value)


def test_catastrophic_regex_over_a_real_vocabulary_stops(cl100k):
    with pytest.raises(TimeoutError, match="cl100k_base vocabulary"):
        engine.explain.vocab.search_regex(cl100k, r"( | )+x", timeout=0.3)


def test_regex_module_defuses_the_classic(gpt2):
    """(a+)+$ is the textbook case; the `regex` module finishes it (so it is not the one we test above)."""
    assert isinstance(engine.explain.vocab.search_regex(gpt2, r"(a+)+$", timeout=5), list)


# --------------------------------------------------------------------- filters
def test_filters(cl100k):
    bad = engine.explain.vocab.filter_tokens(cl100k, "invalid_utf8")
    assert bad and all(not vocab.is_valid_utf8(cl100k.decode_single_token_bytes(i)) for i in bad)
    assert cl100k.mergeable_ranks[b"\xe6"] in bad
    spaced = engine.explain.vocab.filter_tokens(cl100k, "leading_space")
    assert cl100k.encode_single_token(" hello") in spaced and cl100k.encode_single_token("hello") not in spaced
    digits = {cl100k.decode_single_token_bytes(i) for i in engine.explain.vocab.filter_tokens(cl100k, "digits")}
    assert {b"0", b"42", b"123"} <= digits and b"a1" not in digits
    assert all(d.lstrip(b" ").decode().isdecimal() for d in digits)


def test_longest(cl100k):
    ids = engine.explain.vocab.longest(cl100k, 10)
    lengths = [len(cl100k.decode_single_token_bytes(i)) for i in ids]
    assert lengths == sorted(lengths, reverse=True)
    assert lengths[0] == max(len(b) for b in cl100k.mergeable_ranks)


def test_unknown_filter():
    with pytest.raises(ValueError, match="unknown filter"):
        engine.explain.vocab.filter_tokens(_tiny([]), "vowels")


def test_length_histogram_counts_every_token(gpt2):
    hist = dict(engine.explain.vocab.length_histogram(gpt2))
    assert sum(hist.values()) == len(gpt2.mergeable_ranks)
    assert hist[1] == 256


# -------------------------------------------------------------------- families
def test_families(gpt2):
    the = gpt2.encode_single_token("the")
    up = engine.explain.vocab.containing(gpt2, the, limit=5)
    want = sum(1 for b in gpt2.mergeable_ranks if b"the" in b and b != b"the")
    assert up.total == want > 5 and len(up.ids) == 5 and the not in up.ids
    assert all(b"the" in gpt2.decode_single_token_bytes(i) for i in up.ids)
    assert [len(gpt2.decode_single_token_bytes(i)) for i in up.ids] == [4] * 5  # shortest first
    hello = gpt2.encode_single_token("hello")
    down = engine.explain.vocab.contained(gpt2, hello, limit=100)
    parts = {gpt2.decode_single_token_bytes(i) for i in down.ids}
    assert {b"h", b"e", b"l", b"o", b"he", b"ll", b"hell"} <= parts and b"hello" not in parts
    assert len(gpt2.decode_single_token_bytes(down.ids[0])) == 4  # longest first


# -------------------------------------------------------------- glitch tokens
def test_glitch_tokens_exist_in_gpt2(gpt2):
    glitch = engine.explain.vocab.glitch_tokens(gpt2)
    entries = json.loads(vocab.GLITCH_FILE.read_text(encoding="utf-8"))["tokens"]
    assert len(glitch) == len(entries) >= 40
    for needle in (" SolidGoldMagikarp", "rawdownload", "InstoreAndOnline", " petertodd", " davidjl", "StreamerBot"):
        assert gpt2.encode_single_token(needle) in glitch


def test_glitch_tokens_only_for_gpt2_vocabularies(cl100k):
    assert engine.explain.vocab.glitch_tokens(cl100k) == {}
    assert engine.explain.vocab.glitch_tokens(engine.get_encoding("r50k_base"))


def test_glitch_sources_cite_both_works():
    titles = " ".join(s["title"] + s["authors"] for s in engine.explain.vocab.glitch_sources())
    assert "SolidGoldMagikarp" in titles and "Rumbelow" in titles and "Watkins" in titles
    assert "Fishing for Magikarp" in titles and "Land" in titles and "Bartolo" in titles


def test_import_engine_does_not_import_ui_libraries():
    import subprocess
    import sys

    code = "import engine, engine.explain.vocab, sys; print(sorted(m for m in ('streamlit','pandas','altair') if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"
