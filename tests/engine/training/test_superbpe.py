"""SuperBPE (engine.training.superbpe): the fast trainer against its recount-every-step reference, and what the
paper and the authors' fork imply - stage 1 is our BPE at t merges, no superword before t, every later merge is
the most frequent pair the lifted rule allows (ties to the pair seen first) - plus the encoder and its file."""
from __future__ import annotations

import pytest
from hypothesis import given, settings, strategies as st
from tokenizers import Tokenizer

from engine.families.hf.load import load_tokenizer_json
from engine.training import lab
from engine.training.reference import get_stats, merge
from engine.training.superbpe import (
    STAGE1_PATTERN, PairEncoder, allowed_in_stage2, is_superword, stage1_pieces, stage2_pieces,
    superbpe_tokenizer_json, train_superbpe, train_superbpe_reference, transition_merges,
)
from engine.training.trainer import train_bpe
from tests.conftest import CORPUS

TAYLOR = (CORPUS / "taylorswift.txt").read_text(encoding="utf-8")
SMALL = TAYLOR[:6000]
PHRASES = ("by the way, the cat sat on the mat: really. on the other hand, the dog sat by the door 12345... "
           "in the end the cat and the dog sat on the mat by the way!!\n") * 6


@pytest.fixture(scope="module")
def small():
    """SMALL at 600 tokens, transition at 400 (one training shared by the tests that read it)."""
    return train_superbpe(SMALL, 600, 144)


@pytest.mark.parametrize("text, vocab_size, t", [
    (SMALL, 600, 144), (SMALL, 600, 0), (SMALL, 420, 164), (PHRASES, 400, 40), (PHRASES, 330, 0), ("", 300, 10),
])
def test_fast_trainer_equals_the_reference(text, vocab_size, t):
    fast, slow = train_superbpe(text, vocab_size, t), train_superbpe_reference(text, vocab_size, t)
    assert fast.merges == slow.merges  # pair, id, bytes, count, tie and tokens saved, merge for merge
    assert (fast.transition, fast.vocab, fast.skipped) == (slow.transition, slow.vocab, slow.skipped)


@settings(max_examples=30, deadline=None)
@given(st.text(alphabet="ab :.\n1", max_size=80), st.integers(257, 300), st.integers(0, 44))
def test_fast_trainer_equals_the_reference_on_any_small_text(text, vocab_size, t):
    t = min(t, vocab_size - 256)
    assert train_superbpe(text, vocab_size, t).merges == train_superbpe_reference(text, vocab_size, t).merges


def test_stage_1_is_our_bpe_at_t_merges(small):
    enc = train_bpe(SMALL, 256 + small.transition, pat_str=STAGE1_PATTERN)
    ours = [(m.pair, m.new_id, m.count, m.tied) for m in small.merges[:small.transition]]
    assert ours == [(m.pair, m.new_id, m.count, m.tied) for m in enc.training.merges]
    assert small.transition == 144


def test_no_superword_before_the_transition_and_some_after(small):
    assert not any(is_superword(m.bytes) for m in small.merges[:small.transition])
    assert small.superwords and min(small.superwords) >= 256 + small.transition
    assert all(is_superword(small.vocab[i]) for i in small.superwords)


def test_every_merge_after_t_is_the_most_frequent_allowed_pair_seen_first(small):
    """Replay the merges on the stage-2 pieces; before each stage-2 merge, count every pair afresh."""
    chunks = [list(p.encode("utf-8")) for p in stage2_pieces(SMALL)]
    vocab = list(small.vocab)
    for m in small.merges[:small.transition]:
        chunks = [merge(ids, m.pair, m.new_id) for ids in chunks]
    for m in small.merges[small.transition:]:
        stats: dict = {}
        for ids in chunks:
            get_stats(ids, stats)  # insertion order = first occurrence in the text
        allowed = {p: c for p, c in stats.items() if allowed_in_stage2(vocab[p[0]] + vocab[p[1]])}
        top = max(allowed.values())
        assert m.count == top
        assert m.pair == next(p for p, c in allowed.items() if c == top)  # the first seen of the tied
        assert allowed_in_stage2(m.bytes) and m.bytes == vocab[m.pair[0]] + vocab[m.pair[1]]
        chunks = [merge(ids, m.pair, m.new_id) for ids in chunks]


def test_the_forks_rules_hold_and_are_counted():
    result = train_superbpe(PHRASES, 400, 40)
    stage2 = [m.bytes for m in result.merges[40:]]
    assert stage2 and all(b": " not in t and len([w for w in t.split(b" ") if w]) <= 4 for t in stage2)
    assert result.skipped > 0  # this text's most frequent phrases run past four words and over ": "
    assert not allowed_in_stage2(b"mat: really") and not allowed_in_stage2(b" a b c d e")
    assert allowed_in_stage2(b" a b c d") and allowed_in_stage2(b"a:b")


def test_superword_definition():
    assert is_superword(b" by the way") and is_superword(b"cat, the")
    assert not any(map(is_superword, (b" the", b"the ", b"  ", b"\n \n", b".\n/")))


def test_stage_2_pieces_are_the_isolated_split():
    assert stage2_pieces("By the way, 2024... ok  \nno") == ["By the way, ", "202", "4", "...", " ok", "  ", "\nno"]
    assert stage1_pieces("By the way") == ["By", " the", " way"]


@settings(max_examples=50, deadline=None)
@given(st.text(max_size=60))
def test_pieces_cover_the_text(text):
    assert "".join(stage2_pieces(text)) == text and "".join(stage1_pieces(text)) == text


def test_t_at_the_whole_vocabulary_is_plain_bpe_and_t_from_a_fraction():
    plain = train_superbpe(SMALL, 400, 144)
    assert plain.transition == 144 and not plain.superwords
    assert transition_merges(1000, 0.8) == 544 and transition_merges(300, 0.5) == 0
    with pytest.raises(ValueError, match="between 0 and 1"):
        transition_merges(1000, 1.5)


@pytest.mark.parametrize("vocab_size, t, message", [
    (256, 0, "more than 256"), (300, 45, "from 0 to vocab_size - 256 = 44"), (300, -1, "from 0"), (True, 0, "256"),
])
def test_bad_settings_say_the_fix(vocab_size, t, message):
    with pytest.raises(ValueError, match=message):
        train_superbpe("some text", vocab_size, t)


# ------------------------------------------------------------------ encoding
@settings(max_examples=60, deadline=None)
@given(st.text(st.characters(exclude_categories=("Cs",)), max_size=120))
def test_encoder_round_trips_and_equals_its_reference(small, text):
    enc = PairEncoder.for_result(small)
    assert enc.decode_bytes(enc.encode(text)) == text.encode("utf-8")
    for piece in stage2_pieces(text):
        data = piece.encode("utf-8")
        assert enc.encode_piece(data) == enc.encode_piece_reference(data)


def test_offsets_cover_the_bytes(small):
    text = TAYLOR[6000:7000]
    tokens = PairEncoder.for_result(small).encode_with_offsets(text)
    data = text.encode("utf-8")
    assert tokens[0][1] == 0 and tokens[-1][2] == len(data)
    assert all(data[s:e] == small.vocab[i] for i, s, e in tokens)
    assert all(a[2] == b[1] for a, b in zip(tokens, tokens[1:]))


def test_tokenizer_json_encodes_alike_here_and_in_tokenizers(small):
    """The file the trained tokenizer goes to every view as: our loader and Hugging Face's give our encoder's ids."""
    data = superbpe_tokenizer_json(small)
    text = TAYLOR[6000:9000] + " 1234567 ... — ünïcödé 😀 by the way"
    ids = PairEncoder.for_result(small).encode(text)
    assert load_tokenizer_json(data, name="superbpe-test").encode(text) == ids
    assert Tokenizer.from_str(data).encode(text).ids == ids
    assert load_tokenizer_json(data, name="superbpe-test").decode(ids) == text


def test_lab_holds_out_the_last_tenth_and_compares_at_one_size():
    result = lab.train_superbpe_lab(SMALL, 600, 0.64)  # t = 0.64 * 600 - 256 = 128 merges
    c = result.superbpe
    train, rest = lab.held_out(SMALL)
    assert train + rest == SMALL and c.held_out_chars == len(rest) and c.train_chars == len(train)
    assert abs(len(rest) - len(SMALL) / 10) < 20
    assert c.transition == 128 and result.vocab_size == 600
    plain = train_superbpe(train, 600, 344)
    assert c.plain_tokens == len(PairEncoder.for_result(plain, stage1=True).encode(rest))
    assert c.super_tokens == len(load_tokenizer_json(result.tokenizer_json, name="x").encode(rest))
    assert [i for i, _ in c.superwords] == list(train_superbpe(train, 600, 128).superwords)
    assert any(sw for _, _, sw in c.sample)
    with pytest.raises(ValueError, match="at least 200 characters"):
        lab.train_superbpe_lab("too short", 600, 0.8)


def test_lab_says_when_the_held_out_text_was_seen_in_training():
    assert lab.train_superbpe_lab(SMALL * 2, 400, 0.8).superbpe.held_out_seen
    assert not lab.train_superbpe_lab(SMALL, 400, 0.8).superbpe.held_out_seen
