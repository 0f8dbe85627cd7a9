"""Training step by step: every step's pair counts, winner, ties and tokens equal minbpe's loop and the trainer."""
from __future__ import annotations

import json
import warnings
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.sources.openai_public import CL100K_PAT_STR, R50K_PAT_STR
from engine.training.reference import get_stats, merge, train_bpe_reference
from engine.training.steps import MAX_STEP_MERGES, MAX_STEP_TEXT_BYTES, PRESETS, training_steps
from engine.training.trainer import TrainingStoppedEarly, train_bpe, training_chunks
from tests.conftest import CORPUS

DATA = Path(__file__).parents[2] / "data"


def quiet(fn, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", TrainingStoppedEarly)
        return fn(*args, **kwargs)


def check_against_minbpe_loop(text: str, n_merges: int, pat_str: str | None) -> None:
    """Replay minbpe's loop here, literally, and compare every recorded step with it; then the trainers."""
    walk = training_steps(text, n_merges, pat_str=pat_str, top=1_000_000)
    ids = [list(c) for c in training_chunks(text, pat_str)]
    assert walk.initial == tuple(tuple(c) for c in ids)
    assert walk.n_bytes == sum(map(len, ids))
    for rank, step in enumerate(walk.steps):
        stats: dict[tuple[int, int], int] = {}
        for chunk in ids:
            get_stats(chunk, stats)
        assert [(p.pair, p.count) for p in step.pairs] == sorted(stats.items(), key=lambda kv: -kv[1])
        assert step.n_pairs == len(stats)
        winner = max(stats, key=stats.get)  # minbpe's rule: the first maximal key in insertion order
        assert step.winner == winner and step.count == stats[winner]
        assert step.ties == tuple(p for p, c in stats.items() if c == stats[winner] and p != winner)
        ids = [merge(c, winner, 256 + rank) for c in ids]
        assert step.tokens == tuple(tuple(c) for c in ids)
        assert step.n_tokens == sum(map(len, ids))
    fast = quiet(train_bpe, text, 256 + n_merges, pat_str=pat_str)
    slow = quiet(train_bpe_reference, text, 256 + n_merges, pat_str=pat_str)
    assert [s.winner for s in walk.steps] == list(fast.merges) == list(slow.merges)
    assert [s.count for s in walk.steps] == [m.count for m in fast.training.merges]
    assert [bool(s.ties) for s in walk.steps] == [m.tied for m in fast.training.merges]
    assert [walk.n_bytes] + [s.n_tokens for s in walk.steps] == fast.training.token_counts()
    assert [s.new_bytes for s in walk.steps] == [m.bytes for m in fast.training.merges]
    assert walk.stopped_early == fast.training.stopped_early


def test_wikipedia_example_step_by_step():
    walk = training_steps("aaabdaaabac", 3)
    first = walk.steps[0]
    assert first.pairs[0].pair == (97, 97) and first.pairs[0].count == 4
    assert [(p.pair, p.count) for p in first.pairs] == [((97, 97), 4), ((97, 98), 2), ((98, 100), 1),
                                                        ((100, 97), 1), ((98, 97), 1), ((97, 99), 1)]
    assert first.ties == ()
    assert [s.new_bytes for s in walk.steps] == [b"aa", b"aaa", b"aaab"]
    assert walk.steps[-1].tokens == ((258, 100, 258, 97, 99),)
    assert walk.tokens_per_byte() == [1.0, 9 / 11, 7 / 11, 5 / 11]
    assert walk.steps[1].winner == (256, 97) and walk.steps[1].count == 2


def test_ties_name_the_losers_in_minbpes_order():
    walk = training_steps("abcd abcd", 1)
    step = walk.steps[0]
    assert step.winner == (97, 98) and step.count == 2
    assert step.ties == ((98, 99), (99, 100))  # seen after (a, b): minbpe's max keeps the first


@pytest.mark.parametrize("name", list(PRESETS))
@pytest.mark.parametrize("pat", [None, R50K_PAT_STR, CL100K_PAT_STR])
def test_presets_equal_minbpe_at_every_step(name, pat):
    check_against_minbpe_loop(PRESETS[name], 60, pat)


@settings(max_examples=60, deadline=None)
@given(text=st.text(alphabet=st.sampled_from("ab cé日\n"), max_size=60), n=st.integers(0, 12),
       pat=st.sampled_from([None, R50K_PAT_STR]))
def test_hypothesis_texts_equal_minbpe_at_every_step(text, n, pat):
    check_against_minbpe_loop(text, n, pat)


def test_a_slice_of_taylorswift_with_minbpes_gpt4_pattern_at_every_step():
    fx = json.loads((DATA / "minbpe_taylorswift_gpt4_512.json").read_text(encoding="utf-8"))
    text = (CORPUS / "taylorswift.txt").read_text(encoding="utf-8")[:3_000]
    # A slice learns its own merges: checked at every step against the literal loop and both trainers.
    check_against_minbpe_loop(text, MAX_STEP_MERGES, fx["pattern"])


def test_stops_early_when_no_pair_is_left():
    walk = training_steps("ab", 5)
    assert len(walk.steps) == 1 and walk.stopped_early
    assert walk.steps[0].tokens == ((256,),)


def test_top_limits_the_table_but_not_the_counting():
    walk = training_steps(PRESETS["nursery rhyme"], 3, top=5)
    assert all(len(s.pairs) == 5 for s in walk.steps)
    assert all(s.n_pairs > 5 for s in walk.steps)


def test_limits_are_refused_with_the_fix():
    with pytest.raises(ValueError, match="at most"):
        training_steps("a" * (MAX_STEP_TEXT_BYTES + 1), 3)
    with pytest.raises(ValueError, match="at most"):
        training_steps("abc", MAX_STEP_MERGES + 1)
    with pytest.raises(ValueError, match="0 or more"):
        training_steps("abc", -1)
