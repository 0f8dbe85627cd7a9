"""engine.explain.scaffold: tokens emitted vs. built inside emitted tokens' merge trees (LiteToken's F1/F2)."""
from __future__ import annotations

import pytest

import engine
from engine.explain import scaffold


def _tiny() -> engine.Encoding:
    """Bytes, then ab, abc, abcd: "abcd" = "abc" + "d", "abc" = "ab" + "c"."""
    ranks = {bytes([b]): b for b in range(256)}
    for t in (b"ab", b"abc", b"abcd"):
        ranks[t] = len(ranks)
    return engine.Encoding("tiny", pat_str=r"\S+|\s+", mergeable_ranks=ranks, special_tokens={})


@pytest.fixture(scope="module")
def gpt2():
    return engine.get_encoding("gpt2")


def test_counts_by_hand():
    enc = _tiny()
    ab, abc, abcd = 256, 257, 258
    counts = scaffold.scaffold_counts(enc, ["abcd abc", "abcd"], corpus="mine")
    assert counts.emitted == {abcd: 2, abc: 1, ord(" "): 1}
    # the root is counted as emitted, never as inside; leaves (single bytes) are not counted at all
    assert counts.inside == {abc: 2, ab: 3}
    assert counts.scaffold == (ab,)
    assert counts.use(ab) == scaffold.TokenUse(ab, 0, 3) and counts.use(ab).scaffold
    assert not counts.use(abc).scaffold and counts.use(abc) == scaffold.TokenUse(abc, 1, 2)
    assert counts.tokens == 4 and counts.reached == 4 and counts.corpus == "mine"
    assert counts.share == pytest.approx(1 / 259)
    assert counts.share_of_reached == pytest.approx(1 / 4)


def test_inner_ids_of_a_real_tree(gpt2):
    tree = scaffold.token_tree(gpt2, gpt2.encode_single_token(" unbelievable"))
    inner = scaffold.inner_ids(tree)
    assert sum(inner.values()) == tree.n_merges - 1  # every merge but the root's
    assert scaffold.inner_ids(scaffold.token_tree(gpt2, gpt2.encode_single_token("a"))) == {}
    assert scaffold.token_tree(gpt2, gpt2.eot_token) is None


@pytest.mark.parametrize("name", ["gpt2", "claude-legacy"])
def test_fast_agrees_with_reference(name):
    enc = engine.get_encoding(name)
    texts = scaffold.builtin_corpus()
    assert scaffold.scaffold_counts(enc, texts) == scaffold.scaffold_counts_reference(enc, texts)


@pytest.mark.slow
@pytest.mark.parametrize("name", ["llama3", "o200k_base", "qwen3.6"])
def test_fast_agrees_with_reference_big(name):
    """Llama 3 has tokens only a whole piece makes (no tree); Qwen 3.6 a tokenizer.json's listed merges."""
    enc = engine.get_encoding(name)
    texts = scaffold.builtin_corpus()
    assert scaffold.scaffold_counts(enc, texts) == scaffold.scaffold_counts_reference(enc, texts)


def test_builtin_corpus_has_scaffolding(gpt2):
    counts = scaffold.scaffold_counts(gpt2, scaffold.builtin_corpus())
    assert counts.corpus == scaffold.BUILTIN_CORPUS and len(counts.scaffold) > 10
    for t in counts.scaffold[:20]:
        assert counts.emitted.get(t, 0) == 0 and counts.inside[t] > 0
    assert list(counts.scaffold) == sorted(counts.scaffold, key=lambda t: (-counts.inside[t], t))


def test_no_trees_for_wordpiece():
    with pytest.raises(scaffold.NoMergeTreesError, match="pick a BPE encoding") as err:
        scaffold.scaffold_counts(engine.get_encoding("bert-base-uncased"), ["hello"])
    assert isinstance(err.value, ValueError) and err.value.algorithm == "wordpiece"


def test_empty_corpus(gpt2):
    counts = scaffold.scaffold_counts(gpt2, [""])
    assert counts.tokens == 0 and counts.scaffold == () and counts.share == 0 and counts.share_of_reached == 0


def _summary_agrees(name: str) -> None:
    stored = scaffold.stored_summaries()[name]
    enc = engine.get_encoding(name)
    try:
        counts = scaffold.scaffold_counts(enc, scaffold.builtin_corpus())
    except scaffold.NoMergeTreesError:
        assert stored is None
        return
    assert stored == scaffold.summary_of(counts)


def test_stored_summaries_cover_every_builtin_and_gpt2_recounts():
    assert set(engine.list_tokenizer_names()) <= set(scaffold.stored_summaries())
    _summary_agrees("gpt2")
    _summary_agrees("bert-base-uncased")


@pytest.mark.slow
@pytest.mark.parametrize("name", engine.list_tokenizer_names())
def test_stored_summary_recounted_every_builtin(name):
    _summary_agrees(name)


def test_a_changed_corpus_makes_the_summaries_stale(monkeypatch):
    monkeypatch.setitem(scaffold._summaries(), "corpus_digest", "0" * 16)
    with pytest.raises(ValueError, match="gen_reachability.py"):
        scaffold.stored_summaries()
