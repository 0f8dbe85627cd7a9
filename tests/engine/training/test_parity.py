"""Parity-aware BPE: merge for merge equal to tokenizers 0.23.3's ParityBpeTrainer (variant "base", ByteLevel).

The reference is deterministic (its tie-breaks go by counts, strings and language order, never by a hash
map's order), so every case compares whole merge lists with ``==``.
"""
from __future__ import annotations

import json
import random

import pytest
from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers

from engine.explain.arena import LANGUAGES_FILE
from engine.families.hf.load import load_tokenizer_json
from engine.training.lab import train_parity
from engine.training.byte_level import byte_level_words
from engine.training.parity import _Corpus, gini, merge_word, parity_tokenizer_json, train_parity_merges
from tests.conftest import CORPUS


def reference_merges(train, dev, num_merges, **kwargs) -> list[tuple[str, str]]:
    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    trainer = trainers.ParityBpeTrainer(num_merges=num_merges, show_progress=False, **kwargs)
    trainer.train_from_iterator(tok, train_iterators=[iter(t) for t in train],
                                dev_iterators=None if dev is None else [iter(d) for d in dev])
    return [tuple(m) for m in json.loads(tok.to_str())["model"]["merges"]]


def ours(train, dev, num_merges, **kwargs) -> list[tuple[str, str]]:
    return [m.pair for m in train_parity_merges(train, num_merges, dev_texts=dev, **kwargs).merges]


def arena_texts() -> list[list[str]]:
    return [[lang["text"]] for lang in json.loads(LANGUAGES_FILE.read_text(encoding="utf-8"))["languages"]]


@pytest.mark.parametrize(("train", "dev", "n", "kwargs"), [
    # the worst-compressed language first; equal lengths -> the language given first; equal counts -> the
    # greatest strings: ('l', 'o') over ('l', 'l'), ('Ñ', 'Ģ') over ('Ð', '¸')
    ([["hello world hello there"], ["hallo welt hallo da"], ["привет мир"]], "same", 20, {}),
    # a language with no pair left is passed over for the next longest, not the end of training
    ([["ab ab ab ab"], ["zz"], ["cde"]], "same", 5, {}),
    # without a dev set the training texts are measured; training ends when no language has a pair
    ([["aaaa"], ["hello world"]], None, 12, {}),
    ([["hello world hello there"], ["hallo welt hallo da"], ["привет мир"]], "same", 8, {"global_merges": 3}),
], ids=["ties", "exhausted-language", "no-dev", "global-merges"])
def test_small_cases_equal_the_reference(train, dev, n, kwargs):
    dev = train if dev == "same" else dev
    assert ours(train, dev, n, **kwargs) == reference_merges(train, dev, n, **kwargs)


def test_arena_translations_equal_the_reference():
    """32 languages, one parallel sentence each, trained and measured on themselves: 300 merges."""
    texts = arena_texts()
    assert ours(texts, texts, 300) == reference_merges(texts, texts, 300)


def test_seeded_random_corpora_equal_the_reference():
    rng = random.Random(35)
    alphabet = "abcdé ж\n.'"
    for _ in range(25):
        langs = rng.randint(1, 4)
        train = [["".join(rng.choice(alphabet) for _ in range(rng.randint(0, 60))) for _ in range(rng.randint(1, 3))]
                 for _ in range(langs)]
        dev = ([["".join(rng.choice(alphabet) for _ in range(rng.randint(1, 30)))] for _ in range(langs)]
               if rng.random() < 0.5 else None)
        kwargs = {}
        if rng.random() < 0.4:
            kwargs["min_frequency"] = rng.randint(1, 3)  # a language whose best pair is rarer is passed over
        if rng.random() < 0.3:
            kwargs["global_merges"] = rng.randint(0, 10)
        n = rng.randint(1, 60)
        assert ours(train, dev, n, **kwargs) == reference_merges(train, dev, n, **kwargs), (train, dev, n, kwargs)


@pytest.mark.slow
def test_larger_parallel_corpus_equals_the_reference():
    """Three 'languages' cut from one English text (plain, upper case, reversed words): 1,500 merges."""
    lines = [line for line in (CORPUS / "taylorswift.txt").read_text(encoding="utf-8").splitlines() if line][:600]
    train = [lines, [line.upper() for line in lines], [" ".join(w[::-1] for w in line.split()) for line in lines]]
    dev = [t[:100] for t in train]
    assert ours(train, dev, 1500) == reference_merges(train, dev, 1500)


def test_the_tokenizer_json_encodes_like_tokenizers_and_round_trips():
    texts = arena_texts()
    result = train_parity_merges(texts, 200, dev_texts=texts)
    data = parity_tokenizer_json(result)
    enc = load_tokenizer_json(data, name="parity-test")
    ref = Tokenizer.from_str(data)
    ref.decoder = decoders.ByteLevel()
    for text in [t[0] for t in texts] + ["bytes never seen: \x00 🎉 ", "  two  spaces\n\n"]:
        assert enc.encode(text) == ref.encode(text).ids
        assert enc.decode(enc.encode(text)) == text


def test_merge_word_goes_left_to_right():
    assert merge_word(("a", "a", "a"), ("a", "a")) == ("aa", "a")
    assert merge_word(("x", "a", "b", "a", "b"), ("a", "b")) == ("x", "ab", "ab")


def test_gini():
    assert gini([5, 5, 5]) == 0.0
    assert gini([0, 0, 3]) == pytest.approx(2 / 3)
    assert gini([]) == 0.0


@pytest.mark.parametrize(("call", "message"), [
    (lambda: train_parity_merges([["a"]], -1), "num_merges"),
    (lambda: train_parity_merges([], 5), "at least one language"),
    (lambda: train_parity_merges([["a"], ["b"]], 5, dev_texts=[["a"]]), "one dev text per language"),
])
def test_bad_input_says_the_fix(call, message):
    with pytest.raises(ValueError, match=message):
        call()


def test_the_comparison_table_counts_what_tokenizers_counts():
    """Each row of the Train page's table: the parity column is the language's text encoded by the trained
    tokenizer.json in `tokenizers`; the plain column is ParityBpeTrainer with every merge global, encoded so."""
    texts = [t[0] for t in arena_texts()][:8]
    names = [f"lang{i}" for i in range(len(texts))]
    result = train_parity(names, texts, 256 + 120)
    parity_ref = Tokenizer.from_str(result.tokenizer_json)
    plain_merges = reference_merges([[t] for t in texts], [[t] for t in texts], 120, global_merges=120)
    plain_result = train_parity_merges([[t] for t in texts], 120, dev_texts=[[t] for t in texts], global_merges=120)
    assert [m.pair for m in plain_result.merges] == plain_merges
    plain_ref = Tokenizer.from_str(parity_tokenizer_json(plain_result))
    for row, text in zip(result.parity.rows, texts):
        assert row.bytes == len(text.encode("utf-8"))
        assert row.parity == len(parity_ref.encode(text).ids)
        assert row.plain == len(plain_ref.encode(text).ids)
    assert result.parity.gini_parity < result.parity.gini_plain


@pytest.mark.parametrize(("args", "message"), [
    ((["a"], ["x y"], 300), "at least two languages"),
    ((["a", "b"], ["x y", " "], 300), "no text for b"),
    ((["a", "b"], ["x y", "z"], 256), "more than 256"),
])
def test_lab_parity_bad_input_says_the_fix(args, message):
    with pytest.raises(ValueError, match=message):
        train_parity(*args)


def test_the_heaps_find_the_pair_a_full_scan_finds():
    """`_Corpus.best` (lazy heaps) against `best_reference` (a scan of every pair), for every language and the
    total, after each of 150 merges of a seeded random corpus with many ties."""
    rng = random.Random(7)
    texts = [["".join(rng.choice("abcab é.") for _ in range(400))] for _ in range(3)]
    corpus = _Corpus([byte_level_words(t) for t in texts])
    lengths = corpus.length()
    for _ in range(150):
        for lang in (None, 0, 1, 2):
            assert corpus.best(lang) == corpus.best_reference(lang)
        found = corpus.best(None)
        if found is None:
            break
        corpus.merge(found[0], lengths)
    assert lengths == corpus.length()
