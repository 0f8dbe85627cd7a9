"""Tokenizer diff: every count checked against set arithmetic on the two vocabularies, on real files."""
from __future__ import annotations

from collections import Counter

import pytest

import engine
from engine.explain.diff import LONG, vocab_diff
from tests.conftest import CORPUS


def check(a, b) -> engine.explain.diff.VocabDiff:
    d = vocab_diff(a, b)
    va, vb = set(a.mergeable_ranks), set(b.mergeable_ranks)
    assert (d.n_a, d.n_b) == (len(va), len(vb))
    assert d.shared == len(va & vb) and d.only_a == len(va - vb) and d.only_b == len(vb - va)
    assert d.shared + d.only_a == d.n_a and d.shared + d.only_b == d.n_b
    assert d.same_id == sum(a.mergeable_ranks[t] == b.mergeable_ranks[t] for t in va & vb)
    assert d.merged_shared == sum(len(t) > 1 for t in va & vb)
    for group, keys in zip(d.lengths, (va & vb, va - vb, vb - va)):  # keys in order: both, only in A, only in B
        hist = Counter(min(len(t), LONG) for t in keys)
        assert dict(d.lengths[group]) == dict(hist)
    assert all(s.bytes in va - vb and s.id_a == a.mergeable_ranks[s.bytes] for s in d.samples_only_a)
    assert all(s.bytes in vb - va and s.id_b == b.mergeable_ranks[s.bytes] for s in d.samples_only_b)
    assert [s.id_a for s in d.samples_only_a] == sorted(a.mergeable_ranks[t] for t in va - vb)[:len(d.samples_only_a)]
    # rank changes: the shared merged tokens in A's id order, then in B's; a move is a different place
    shared = sorted((t for t in va & vb if len(t) > 1), key=lambda t: (a.mergeable_ranks[t], t))
    in_b = sorted(shared, key=lambda t: (b.mergeable_ranks[t], t))
    moved = sum(1 for i, t in enumerate(shared) if in_b.index(t) != i) if len(shared) < 3000 else None
    if moved is not None:
        assert d.moved == moved
    shift = {t: in_b.index(t) - i for i, t in enumerate(shared)} if len(shared) < 3000 else None
    if shift is not None:
        n = len(shared)
        assert d.moved_far == sum(1 for v in shift.values() if abs(v) > n // 10)
        if n > 1:
            assert d.spearman == pytest.approx(1 - 6 * sum(v * v for v in shift.values()) / (n * (n * n - 1)))
    for m in d.moves:
        assert shared[m.place_a] == m.bytes and in_b[m.place_b] == m.bytes
    assert [abs(m.shift) for m in d.moves] == sorted((abs(m.shift) for m in d.moves), reverse=True)
    sa, sb = set(a.special_tokens), set(b.special_tokens)
    assert set(d.specials_shared) == sa & sb and set(d.specials_only_a) == sa - sb and set(d.specials_only_b) == sb - sa
    return d


_SLOW = pytest.mark.slow


# 5-7 s a pair (the check recomputes every set the slow way): two in the default run, a rank-file pair and a
# rank file against a tokenizer.json built-in; gpt2 -> cl100k_base is also test_gpt2_to_cl100k_numbers' pair.
@pytest.mark.heavy
@pytest.mark.parametrize("pair", [pytest.param(("gpt2", "cl100k_base"), marks=_SLOW), ("cl100k_base", "o200k_base"),
                                  pytest.param(("gpt2", "o200k_base"), marks=_SLOW),
                                  pytest.param(("llama3", "llama4"), marks=_SLOW), ("qwen2.5", "qwen3.6")])
def test_builtin_pairs_equal_set_arithmetic(pair):
    a, b = (engine.get_encoding(n) for n in pair)
    d = check(a, b)
    assert d.shared > 0 and d.only_b > 0


def test_gpt2_to_cl100k_numbers():
    d = check(engine.get_encoding("gpt2"), engine.get_encoding("cl100k_base"))
    assert d.specials_shared == ("<|endoftext|>",)
    assert "<|fim_prefix|>" in d.specials_only_b
    assert d.n_a == 50_256 and d.n_b == 100_256


def test_a_trained_tokenizer_against_a_base():
    text = (CORPUS / "taylorswift.txt").read_text(encoding="utf-8")[:20_000]
    trained = engine.train_bpe(text, 400, pat_str=engine.sources.openai_public.R50K_PAT_STR)
    d = check(trained, engine.get_encoding("gpt2"))
    assert d.n_a == 400 and d.only_a + d.shared == 400 and d.moved > 0
    assert d.same_id >= 1  # GPT-2 keeps some single bytes at their own value


def test_small_hand_made_case():
    trained_a = engine.train_bpe("aaabdaaabac", 259)  # aa, aaa, aaab
    trained_b = engine.train_bpe("abab abab aaaa", 259)
    d = check(trained_a, trained_b)
    assert d.n_a == d.n_b == 259
    assert {s.bytes for s in d.samples_only_a} == {t for t in (b"aa", b"aaa", b"aaab")} - set(trained_b.mergeable_ranks)


def test_same_tokenizer_is_all_shared():
    enc = engine.get_encoding("cl100k_base")
    d = check(enc, enc)
    assert d.only_a == d.only_b == d.moved == d.moved_far == 0 and d.same_id == d.shared == d.n_a
    assert d.spearman == 1.0
