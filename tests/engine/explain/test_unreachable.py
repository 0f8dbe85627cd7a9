"""engine.explain.unreachable: partial-UTF-8, unreachable and never-produced tokens, and the stored counts."""
from __future__ import annotations

import random

import pytest

import engine
from engine.explain import unreachable


def _tiny() -> engine.Encoding:
    """Whitespace characters split one by one, so the token " \\n" can never come back."""
    ranks = {bytes([b]): b for b in range(256)}
    for t in (b"ab", b" \n"):
        ranks[t] = len(ranks)
    return engine.Encoding("tiny", pat_str=r"\w+|\s|[^\w\s]", mergeable_ranks=ranks, special_tokens={"<|end|>": 258})


@pytest.fixture(scope="module")
def gpt2():
    return engine.get_encoding("gpt2")


def test_kinds_by_hand():
    enc = _tiny()
    assert unreachable.token_kind(enc, 256) == "ok"  # "ab"
    assert unreachable.token_kind(enc, 257) == "unreachable"  # " \n": the pattern cuts it in two
    assert unreachable.token_kind(enc, 0xE6) == "partial_utf8"
    found = unreachable.reachability(enc)
    assert found.unreachable == (257,) and found.in_context == () and len(found.partial_utf8) == 128
    assert found.special_never == (258,) and found.specials == 1 and found.vocab_size == 258
    assert found.kind(257) == "unreachable" and found.kind(256) == "ok"


def test_wordpiece_continuations_are_reached_after_a_word():
    bert = engine.get_encoding("bert-base-uncased")
    assert unreachable.token_kind(bert, bert.encode_single_token("##ing")) == "in_context"
    assert unreachable.token_kind(bert, bert.encode_single_token("[unused0]")) == "unreachable"


def test_gpt2_sweep_matches_the_stored_file_in_full(gpt2):
    """The whole sweep for the smallest BPE vocabulary (half a second), against the stored entry."""
    stored = unreachable.stored_reachability(gpt2)
    assert stored == unreachable.reachability(gpt2)
    assert stored.special_never == (gpt2.eot_token,)
    assert len(stored.partial_utf8) > 100 and gpt2.encode_single_token(b"\xe6") in stored.partial_utf8


def test_every_builtin_has_an_entry():
    """Every name the registry lists (Gemma's once installed; its entry stays in the file when it is not)."""
    assert set(engine.list_tokenizer_names()) <= set(unreachable.stored_names())


def _sample_agrees(name: str, k: int) -> None:
    enc = engine.get_encoding(name)
    stored = unreachable.stored_reachability(enc)  # raises if the vocabulary changed
    interesting = [*stored.partial_utf8[:20], *stored.in_context[:20], *stored.unreachable[:40]]
    rng = random.Random(name)
    ids = unreachable.ordinary_ids(enc)
    for token_id in [*interesting, *rng.sample(ids, min(k, len(ids)))]:
        assert unreachable.token_kind(enc, token_id) == stored.kind(token_id), (name, token_id)
    assert unreachable.specials_never_produced(enc) == stored.special_never


@pytest.mark.parametrize("name", ["gpt2", "o200k_base"])
def test_stored_sample_recounted(name):
    _sample_agrees(name, 300)


@pytest.mark.slow
@pytest.mark.parametrize("name", engine.list_tokenizer_names())
def test_stored_sample_recounted_every_builtin(name):
    _sample_agrees(name, 1000)


def test_a_changed_vocabulary_is_refused(monkeypatch, gpt2):
    doc = unreachable._stored()
    entry = dict(doc["encodings"]["gpt2"], digest="0" * 16)
    monkeypatch.setitem(doc["encodings"], "gpt2", entry)
    with pytest.raises(unreachable.StaleReachabilityError, match="gen_reachability.py"):
        unreachable.stored_reachability(gpt2)


def test_other_encodings_have_no_entry():
    assert unreachable.stored_reachability(_tiny()) is None


def test_packed_ids_round_trip():
    rng = random.Random(7)
    for _ in range(200):
        ids = sorted(set(rng.sample(range(60), rng.randrange(0, 40))))
        assert list(unreachable.unpack_ids(unreachable.pack_ids(ids))) == ids
    assert unreachable.pack_ids(range(1000, 32000)) == [[1000, 31999]]


def test_two_special_texts_of_one_id_count_once():
    harmony = engine.get_encoding("o200k_harmony")
    never = unreachable.specials_never_produced(harmony)
    assert len(never) == len(set(never)) == len(set(harmony.special_tokens.values()))
