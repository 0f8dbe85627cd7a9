"""`engine.explain.noncanonical`: the other ways to cut a text (BPE-dropout, character level, a random valid
segmentation, right-aligned digit groups) decode back to the text; p = 0 is `encode`, p = 1 the base units,
as `tokenizers`' own dropout gives them; segmentation counts equal a brute-force count."""
from __future__ import annotations

import gzip
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import engine
from engine.deadline import time_limit
from engine.errors import TimeLimitError
from engine.explain import noncanonical as nc

TEXT = "Hello world, 1234567 naïve  café 😀 東京は晴れ don't 3.14159\n\tend"
BYTE_LEVEL = ["gpt2", "cl100k_base", "o200k_base", "llama3", "qwen2.5", "qwen3.6", "deepseek-v3", "glm5", "claude-legacy"]  # glm5: ignore_merges
CHAR_LEVEL = ["mistral-v1", *engine.families.hf.builtins.installed_names()]  # SentencePiece BPE; Gemma if installed
DATA = Path(engine.__file__).parent / "data"


def _enc(name):
    return engine.get_encoding(name)


def _canonical(enc, text):
    return enc.encode(text, allowed_special=frozenset(), disallowed_special=())


def _lanes(enc, text, p=0.3, seed=1):
    cuts = nc.other_cuts(enc, text, p, seed)
    return [cuts.canonical, cuts.dropout, cuts.chars, cuts.random, cuts.digits, nc.dropout(enc, text, 1.0, seed)]


@pytest.mark.parametrize("name", BYTE_LEVEL + CHAR_LEVEL)
def test_p0_is_encode_and_every_lane_decodes_to_the_text(name):
    enc = _enc(name)
    ids = _canonical(enc, TEXT)
    assert nc.dropout(enc, TEXT, 0.0, 5).ids == ids
    assert nc.canonical(enc, TEXT).ids == ids
    want = enc.decode(ids)
    for lane in _lanes(enc, TEXT):
        assert enc.decode(lane.ids) == want, lane.key
        # the drawn records: laid end to end over the lane's own text
        assert b"".join(t.bytes for t in lane.tokens).decode("utf-8", "replace") == lane.text
        assert all(0 <= t.char_start <= t.char_end <= len(lane.text) for t in lane.tokens)


@pytest.mark.parametrize("name", ["gpt2", "o200k_base", "qwen3.6"])
def test_p1_gives_single_bytes(name):
    enc = _enc(name)
    ranks = enc.mergeable_ranks
    lane = nc.dropout(enc, TEXT, 1.0, 0)
    assert lane.ids == [ranks[bytes((b,))] for b in TEXT.encode("utf-8")]


@pytest.mark.parametrize("name", CHAR_LEVEL)
def test_p1_gives_single_characters(name):
    enc = _enc(name)
    for lane in (nc.dropout(enc, TEXT, 1.0, 3), nc.characters(enc, TEXT)):
        # every token is one character or a byte of one (byte fallback): no token spans two characters
        assert all(t.char_end - t.char_start <= 1 for t in lane.tokens), [t.text for t in lane.tokens]
    assert nc.dropout(enc, TEXT, 1.0, 3).ids == nc.characters(enc, TEXT).ids


def test_dropout_p1_equals_tokenizers_dropout():
    """`tokenizers` with ``dropout = 1.0`` (every merge skipped: no randomness left) on the same file."""
    tokenizers = pytest.importorskip("tokenizers")
    ref = tokenizers.Tokenizer.from_str(gzip.decompress((DATA / "deepseek_v4_tokenizer.json.gz").read_bytes()).decode())
    ref.model.dropout = 1.0
    enc = _enc("deepseek-v4")
    assert nc.dropout(enc, TEXT, 1.0, 0).ids == ref.encode(TEXT, add_special_tokens=False).ids


@pytest.mark.slow
def test_dropout_draws_cuts_as_often_as_tokenizers_does():
    """The skip-and-put-back rule of `tokenizers`' ``merge_all``: with p = 0.3 the cuts of a word come out as
    often as `tokenizers`' own (its draws are its own, so the two are compared as frequencies)."""
    tokenizers = pytest.importorskip("tokenizers")
    ref = tokenizers.Tokenizer.from_str(gzip.decompress((DATA / "deepseek_v4_tokenizer.json.gz").read_bytes()).decode())
    ref.model.dropout = 0.3
    enc = _enc("deepseek-v4")
    word, n = " unbelievably", 4000
    ours = Counter(tuple(nc.dropout(enc, word, 0.3, seed).ids) for seed in range(n))
    theirs = Counter(tuple(ref.encode(word, add_special_tokens=False).ids) for _ in range(n))
    distance = sum(abs(ours[k] - theirs[k]) for k in set(ours) | set(theirs)) / (2 * n)
    assert distance < 0.06, (distance, ours.most_common(5), theirs.most_common(5))


def test_dropout_is_seeded_and_checks_p():
    enc = _enc("gpt2")
    assert nc.dropout(enc, TEXT, 0.5, 7).ids == nc.dropout(enc, TEXT, 0.5, 7).ids
    assert len({tuple(nc.dropout(enc, TEXT, 0.5, s).ids) for s in range(5)}) > 1
    with pytest.raises(ValueError, match="between 0 and 1"):
        nc.dropout(enc, TEXT, 1.5, 0)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=st.text(st.characters(blacklist_categories=("Cs",)), max_size=40),
       p=st.floats(0.0, 1.0), seed=st.integers(0, 2**31 - 1))
@pytest.mark.parametrize("name", ["gpt2", "o200k_base", "mistral-v1"])
def test_every_lane_round_trips_random_text(name, text, p, seed):
    enc = _enc(name)
    want = enc.decode(_canonical(enc, text))
    for lane in _lanes(enc, text, p, seed):
        assert enc.decode(lane.ids) == want, (lane.key, lane.ids)
    assert nc.canonical(enc, text).ids == _canonical(enc, text)


WORDS = ["hello", " tokenization", " strawberry", "東京", " 1234", "aaaaaaaa", "😀!", " naïve"]


@pytest.mark.parametrize("name", ["gpt2", "o200k_base", "mistral-v1", *engine.families.hf.builtins.installed_names()])
def test_segmentation_count_equals_brute_force(name):
    enc = _enc(name)
    for word in WORDS:
        for piece in nc.words(enc, word):
            assert nc.segmentation_count(enc, piece) == nc.segmentation_count_reference(enc, piece), (word, piece)


def test_segmentation_count_is_exact_on_long_runs():
    enc = _enc("o200k_base")
    count = nc.segmentation_count(enc, "a" * 300)
    assert count > 2**64 and isinstance(count, int)  # far past a float: an exact integer


@pytest.mark.heavy
def test_random_segmentation_is_uniform_over_the_counted_cuts():
    """Every cut of " cat" (gpt2: all 8 compositions of its 4 bytes are tokens) is drawn, each about as often as
    the others (fixed seeds: no flakiness).  A sampler that picks each next token uniformly draws " cat" whole
    1/4 of the time instead of 1/8 and fails; " hello" (32 cuts) took 20 s for the same check."""
    enc = _enc("gpt2")
    word = " cat"
    total = nc.segmentation_count(enc, word)
    draws = 200 * total
    seen = Counter(tuple(nc.random_segmentation(enc, word, seed).ids) for seed in range(draws))
    assert len(seen) == total
    assert all(0.7 * 200 < c < 1.3 * 200 for c in seen.values()), seen


def test_digits_are_grouped_from_the_right():
    enc = _enc("cl100k_base")
    # cl100k's own pieces group from the left: 123|456|7
    assert [enc.decode([t]) for t in _canonical(enc, "x 1234567")][-3:] == ["123", "456", "7"]
    lane = nc.digit_groups(enc, "x 1234567 and 12")
    assert [t.text for t in lane.tokens] == ["x", " ", "1", "234", "567", " and", " ", "12"]
    assert nc.digit_groups(enc, "no digits here").ids == _canonical(enc, "no digits here")


def test_a_model_that_does_not_merge_is_refused_with_the_reason():
    with pytest.raises(nc.NotBpeError, match="wordpiece, not BPE"):
        nc.other_cuts(_enc("bert-base-uncased"), "hello", 0.1, 0)


def test_long_texts_are_cut_and_the_loops_keep_the_time_limit():
    enc = _enc("gpt2")
    text = "word " * 600  # 3,000 characters
    cuts = nc.other_cuts(enc, text, 0.1, 0)
    assert cuts.cut and enc.decode(cuts.random.ids) == text[: nc.MAX_CHARS]
    with pytest.raises(TimeLimitError):
        with time_limit(0.0):
            nc.random_segmentation(enc, "a" * 2000, 0)
