"""WordPiece training against tokenizers 0.23.3's WordPieceTrainer (BertPreTokenizer, no normalizer).

The reference varies from run to run, even on one thread: its ``##c`` symbols get their ids in a hash
map's order, and on equal counts the pair of smaller ids wins.  So each test here

* measures the reference's own spread: it trains RUNS times and counts the vocabulary entries that differ
  between two of its runs (the largest such count);
* holds our vocabulary (words walked in order of first appearance, itself one of the orders a hash map can
  take) within that spread of the nearest run (six runs can agree by chance; then more are sampled, up to
  MAX_RUNS, before ours is called outside the spread): it is as close to the reference as the reference is to
  itself.  (Not of *every* run: RUNS samples only part of the spread -- over 10 runs of the slow case two
  runs differed by up to 68 of 3,000 entries, and ours by up to 28 from a run whose sampled spread was 24);
* replays each run: given the order in which that run numbered its ``##c`` symbols, our trainer must give
  that run's vocabulary exactly, ids included.  The replay is what catches a wrong tie-break or merge rule.
"""
from __future__ import annotations

import json
import random

import pytest
from tokenizers import Tokenizer, models, pre_tokenizers, trainers

from engine.explain.arena import LANGUAGES_FILE
from engine.families.hf.load import load_tokenizer_json
from engine.training.hf_bpe import train_hf_bpe
from engine.training.wordpiece import bert_words, train_wordpiece, wordpiece_tokenizer_json
from tests.conftest import CORPUS

RUNS = 6
MAX_RUNS = 60


def reference_vocab(texts: list[str], vocab_size: int, specials=("[UNK]",), **kwargs) -> list[str]:
    tok = Tokenizer(models.WordPiece(unk_token="[UNK]"))
    tok.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    trainer = trainers.WordPieceTrainer(vocab_size=vocab_size, special_tokens=list(specials), show_progress=False,
                                        **kwargs)
    tok.train_from_iterator(texts, trainer)
    vocab = json.loads(tok.to_str())["model"]["vocab"]
    return sorted(vocab, key=vocab.get)


def symbol_order(vocab: list[str]) -> list[str]:
    """The order in which a run numbered its ``##c`` symbols (one character after the prefix)."""
    return [t for t in vocab if t.startswith("##") and len(t) == 3]


def check_against_runs(texts: list[str], vocab_size: int, **kwargs) -> int:
    runs = [reference_vocab(texts, vocab_size, **kwargs) for _ in range(RUNS)]
    ours = train_wordpiece(texts, vocab_size, **kwargs).vocab

    def spread() -> int:
        return max(len(set(a) ^ set(b)) for a in runs for b in runs)

    # Six runs can all take the same hash order by chance (a loaded run saw six equal runs of a small corpus and
    # ours 2 entries away): then more runs are sampled, up to MAX_RUNS, before ours is called outside the spread.
    while min(len(set(ours) ^ set(run)) for run in runs) > spread() and len(runs) < MAX_RUNS:
        runs += [reference_vocab(texts, vocab_size, **kwargs) for _ in range(RUNS)]
    assert min(len(set(ours) ^ set(run)) for run in runs) <= spread(), len(runs)
    for run in runs[:RUNS]:
        assert list(train_wordpiece(texts, vocab_size, symbol_order=symbol_order(run), **kwargs).vocab) == run
    return spread()


def test_arena_translations():
    texts = [lang["text"] for lang in json.loads(LANGUAGES_FILE.read_text(encoding="utf-8"))["languages"]]
    for size in (400, 1000):
        check_against_runs(texts, size)


def test_english_text_where_the_reference_varies():
    lines = [line for line in (CORPUS / "taylorswift.txt").read_text(encoding="utf-8").splitlines() if line][:150]
    spread = check_against_runs(lines, 700)
    # the reason for the spread-based test: on this text the reference's runs do disagree (measured: 0 to
    # about 40 entries between two of 6 runs); if it ever stops varying, the replay still checks exactness
    assert spread >= 0


def test_seeded_random_corpora():
    rng = random.Random(35)
    for _ in range(15):
        texts = ["".join(rng.choice("abcdé ж\n.,") for _ in range(rng.randint(0, 80)))
                 for _ in range(rng.randint(1, 4))]
        if not any(t.strip() for t in texts):
            continue
        kwargs = {"min_frequency": rng.randint(0, 3)} if rng.random() < 0.3 else {}
        check_against_runs(texts, rng.randint(5, 80), **kwargs)


@pytest.mark.slow
def test_larger_english_text():
    lines = [line for line in (CORPUS / "taylorswift.txt").read_text(encoding="utf-8").splitlines() if line]
    check_against_runs(lines, 3000)


def test_bert_words_split_like_bert_pre_tokenizer():
    text = "a-b c$d 'x' «quoted» end. 3.14 ¿qué? 中文\u00a0x\u2003y\x1cz"
    expected = [piece for piece, _ in pre_tokenizers.BertPreTokenizer().pre_tokenize_str(text)]
    assert list(bert_words(text)) == list(dict.fromkeys(expected))


def test_smaller_ids_win_ties():
    # ("a", "##b") and ("c", "##d") both occur twice: a < c, so "ab" is made first
    result = train_hf_bpe({"cd": 2, "ab": 2}, 7, continuing_subword_prefix="##")
    assert result.merges[0] == ("a", "##b")


def test_the_tokenizer_json_encodes_like_tokenizers():
    texts = [lang["text"] for lang in json.loads(LANGUAGES_FILE.read_text(encoding="utf-8"))["languages"]]
    data = wordpiece_tokenizer_json(train_wordpiece(texts, 600))
    enc = load_tokenizer_json(data, name="wordpiece-test")
    ref = Tokenizer.from_str(data)
    for text in texts + ["unseen: 🎉 qq"]:
        assert enc.encode(text) == ref.encode(text).ids


@pytest.mark.parametrize(("call", "message"), [
    (lambda: train_wordpiece("a b", 0), "vocab_size"),
    (lambda: train_wordpiece("a b", 50, special_tokens=["[PAD]"]), "unknown token"),
    (lambda: train_wordpiece("  \n ", 50), "no words"),
])
def test_bad_input_says_the_fix(call, message):
    with pytest.raises(ValueError, match=message):
        call()
