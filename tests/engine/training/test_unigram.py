"""Unigram training (`engine.training.unigram`) against its reference, sentencepiece 0.2.3's trainer.

The reference runs single-threaded with a fixed seed and the identity normalization rule
(``model_type="unigram", normalization_rule_name="identity", num_threads=1``), fed the text's
lines, with byte fallback off and on.  It is deterministic: `test_reference_is_deterministic`
trains it twice and compares the model files byte for byte.

How equal we are, measured (the README's training section has the table):

* exact vocabulary (every piece the same, every score within 5e-5; measured at most 3.7e-5) on
  the page's sample text, the 32-language sample ×3, and the first 20 kB of taylorswift.txt
  with and without byte fallback: the default cases here;
* near on bigger corpora: taylorswift.txt in full at 2,000 pieces shares 1,994 pieces with the
  reference (scores of shared pieces within 1e-5), the `slow` case.  The float32 sums are
  done in a slightly different order somewhere in 0.2.3 (whose source we could not read: the
  snapshot is the 2025-02 one, before its rewrite of seeding), and near-ties in pruning then go
  the other way for a few pieces.
"""
from __future__ import annotations

import functools
import io
import json
import pickle
from pathlib import Path

import pytest

from engine.training import unigram_seeds
from engine.families.sentencepiece.training import train_unigram
from engine.training.unigram import UnigramVocabTooLarge, digamma
from tests.conftest import CORPUS

spm = pytest.importorskip("sentencepiece")
from sentencepiece import sentencepiece_model_pb2  # noqa: E402

ROOT = Path(__file__).parents[3]
SCORE_TOLERANCE = 5e-5
SAMPLE = (
    "Byte pair encoding starts from single bytes and keeps merging the most frequent pair. "
    "The pair that appears most often in the text becomes a new token, then the counting starts again. "
    "Frequent words such as the, and, of and in become single tokens first; rare words stay in pieces. "
    "Train a vocabulary on your own text, then compare it with GPT-2 and cl100k_base!\n"
) * 4


def languages_text() -> str:
    data = json.loads((ROOT / "engine" / "data" / "languages.json").read_text(encoding="utf-8"))
    return "\n".join(x["text"] for x in data["languages"]) * 3


def taylor(limit: int | None = None) -> str:
    text = (CORPUS / "taylorswift.txt").read_text(encoding="utf-8")
    return text if limit is None else text.encode("utf-8")[:limit].decode("utf-8", "ignore")


def reference(text: str, vocab_size: int, byte_fallback: bool = False) -> bytes:
    """sentencepiece's trainer, single-threaded, fixed seed: the .model file's bytes."""
    spm.set_random_generator_seed(1)
    out = io.BytesIO()
    spm.SentencePieceTrainer.train(sentence_iterator=iter(text.split("\n")), model_writer=out, model_type="unigram",
                                   vocab_size=vocab_size, normalization_rule_name="identity", num_threads=1,
                                   byte_fallback=byte_fallback, minloglevel=2)
    return out.getvalue()


def pieces_of(model: bytes) -> dict[str, tuple[float, int]]:
    proto = sentencepiece_model_pb2.ModelProto()
    proto.ParseFromString(model)
    return {p.piece: (p.score, p.type) for p in proto.pieces}


def ours(enc) -> dict[str, tuple[float, int]]:
    return {p: (s, t) for p, s, t in enc.model.pieces}


def test_reference_is_deterministic():
    text = taylor(20_000)
    assert reference(text, 400) == reference(text, 400)


CASES = {
    "sample-80": (lambda: SAMPLE, 80, False),
    "languages-650": (languages_text, 650, False),
    "taylor20k-400": (lambda: taylor(20_000), 400, False),
    "taylor20k-400-bytes": (lambda: taylor(20_000), 400, True),
}


@functools.lru_cache(maxsize=len(CASES))
def trained(case: str):
    """(the reference's .model bytes, our encoding) for a case, trained once per test run."""
    make, vocab_size, byte_fallback = CASES[case]
    text = make()
    return reference(text, vocab_size, byte_fallback), train_unigram(text, vocab_size, byte_fallback=byte_fallback)


@pytest.mark.parametrize("case", list(CASES))
def test_vocabulary_equals_sentencepiece(case):
    model, enc = trained(case)
    want, got, vocab_size = pieces_of(model), ours(enc), CASES[case][1]
    assert enc.n_vocab == vocab_size
    assert set(got) == set(want)
    for piece, (score, kind) in want.items():
        assert got[piece][1] == kind, piece
        assert abs(got[piece][0] - score) <= SCORE_TOLERANCE, (piece, got[piece][0], score)
    # ids: meta pieces first (<unk> <s> </s>, the bytes), then by score
    assert list(enc.pieces[:3]) == ["<unk>", "<s>", "</s>"]


@pytest.mark.slow
def test_big_corpus_is_near_sentencepiece():
    """Measured: 1,994 of 2,000 pieces shared, shared scores within 6.7e-6."""
    text = taylor()
    want = pieces_of(reference(text, 2000))
    got = ours(train_unigram(text, 2000))
    shared = set(got) & set(want)
    assert len(shared) >= 1994
    assert max(abs(got[p][0] - want[p][0]) for p in shared) <= 1e-5


def test_trained_model_encodes_like_sentencepiece():
    """The trained model is a SentencePieceEncoding: it encodes as sentencepiece does with the reference's model."""
    text = taylor(20_000)
    model, enc = trained("taylor20k-400")
    processor = spm.SentencePieceProcessor(model_proto=model)
    ids = {p: i for i, p in enumerate(enc.pieces)}
    for line in text.split("\n")[:200] + ["Hello wörld, a tokenizer — ünïcode 😀", "  two  spaces "]:
        want = [processor.id_to_piece(i) for i in processor.encode(line)]
        assert [enc.pieces[i] for i in enc.encode(line)] == want, line
        assert enc.decode(enc.encode(line)) == processor.decode(processor.encode(line))
    assert all(p in ids for p in processor.id_to_piece(list(range(processor.get_piece_size()))))


def test_trained_model_pickles_and_reports():
    enc = train_unigram(SAMPLE, 80, name="mine")
    back = pickle.loads(pickle.dumps(enc))
    assert back.encode("the pair") == enc.encode("the pair") and back.name == "mine"
    report = enc.training
    assert report.requested_vocab_size == 80 and report.n_sentences == 4
    assert [r.what for r in report.rounds][:3] == ["seed", "EM", "EM"]
    assert report.rounds[0].size == 109  # sentencepiece's log: "Initialized 109 seed pieces"


def test_too_big_vocabulary_names_the_size_sentencepiece_names():
    """sentencepiece: 'Vocabulary size too high (100). Please set it to a value <= 86.'"""
    with pytest.raises(UnigramVocabTooLarge, match=r"use vocab_size 86 or less"):
        train_unigram(SAMPLE, 100)
    with pytest.raises(Exception, match=r"<= 86"):
        reference(SAMPLE, 100)


def test_settings_out_of_range_say_the_fix():
    with pytest.raises(UnigramVocabTooLarge, match="required characters"):
        train_unigram(SAMPLE, 20)
    with pytest.raises(ValueError, match="above 3"):
        train_unigram(SAMPLE, 3)
    with pytest.raises(ValueError, match="above 259"):
        train_unigram(SAMPLE, 200, byte_fallback=True)
    with pytest.raises(ValueError, match="0.98 to 1.0"):
        train_unigram(SAMPLE, 80, character_coverage=0.5)
    with pytest.raises(ValueError, match="no line to train on"):
        train_unigram("\n\n", 80)


def test_meta_pieces_in_the_text_are_cut_out_like_sentencepiece():
    """'<s>', '</s>' (and '<0x41>' with byte fallback) in the text become a mark that counts for the character
    coverage but is never kept (it ends as U+2585, an unknown character).  Not a tab: 0.2.3 keeps a real tab
    as a piece, and treating the mark as one shared 195 of 200 pieces here."""
    text = ("a <s> tag and a <0x41> byte <0x41> here, </s> again\n" * 30) + taylor(6_000)
    for byte_fallback, vocab in ((False, 200), (True, 450)):
        want = pieces_of(reference(text, vocab, byte_fallback))
        got = ours(train_unigram(text, vocab, byte_fallback=byte_fallback))
        assert set(got) == set(want)
        assert all(abs(got[p][0] - want[p][0]) <= SCORE_TOLERANCE for p in want)


def test_a_substring_that_always_ends_a_sentence_is_a_seed():
    """'▁log' ends each of 20 identical lines: its suffix-tree node is '▁log' + the sentence end, and 0.2.3
    seeds it (18 seeds, as its log says; the 2025-02 source skipped the node and could not fill 20 pieces).
    Measured: the same 20 pieces; scores within 2e-3 only, since 0.2.3's first EM round keeps one piece
    fewer on this text than ours, which we did not pin down."""
    text = "the cat sat on the mat, the dog sat on the log\n" * 20
    want = pieces_of(reference(text, 20))
    enc = train_unigram(text, 20)
    got = ours(enc)
    assert enc.training.rounds[0].size == 18
    assert set(got) == set(want) and "\u2581log" in got
    assert all(abs(got[p][0] - want[p][0]) <= 2e-3 for p in want)


def test_digamma():
    assert digamma(1.0) == pytest.approx(-0.5772156649015329, abs=1e-9)  # an asymptotic series: sentencepiece's own approximation
    assert digamma(0.5) == pytest.approx(-1.9635100260214235, abs=1e-9)  # an asymptotic series: sentencepiece's own approximation


def test_suffix_array_equals_the_slow_sort():
    import random

    rng = random.Random(7)
    for _ in range(50):
        codes = [rng.choice((0, 97, 98, 99, 226)) for _ in range(rng.randint(1, 60))]
        assert unigram_seeds.suffix_array(codes) == sorted(range(len(codes)), key=lambda i: codes[i:])


def test_substring_nodes_are_the_repeated_branching_substrings():
    """Each node is a substring occurring r - l >= 2 times that is followed by two different items
    (or ends the text somewhere): a brute-force count agrees."""
    text = b"abracadabra\x00abrac\x00"
    codes = list(text)
    sa = unigram_seeds.suffix_array(codes)
    found = {bytes(codes[sa[l]:sa[l] + d]): r - l for l, r, d in unigram_seeds.substring_nodes(codes, sa) if d > 0}
    for sub, count in found.items():
        assert sum(text.startswith(sub, i) for i in range(len(text))) == count
    assert found[b"abra"] == 3 and found[b"a"] == 7


def test_pieces_keep_to_one_script():
    valid = unigram_seeds.is_valid_piece
    assert valid("▁the") and valid("ing") and valid("12") and valid("ーカー")
    assert not valid("the▁") and not valid("a1") and not valid("aя") and not valid("a\tb") and not valid("x" * 17)
    assert valid("e\u0301t")  # a combining mark takes the script before it


def hf_unigram_vocab(text: str, vocab_size: int) -> set[str]:
    """tokenizers' UnigramTrainer with the settings nearest sentencepiece's (▁ before every word)."""
    from tokenizers import Tokenizer, models, pre_tokenizers, trainers

    tok = Tokenizer(models.Unigram())
    tok.pre_tokenizer = pre_tokenizers.Metaspace(replacement="\u2581", prepend_scheme="always")
    trainer = trainers.UnigramTrainer(vocab_size=vocab_size, special_tokens=["<unk>", "<s>", "</s>"],
                                      unk_token="<unk>", shrinking_factor=0.75, max_piece_length=16,
                                      n_sub_iterations=2, show_progress=False)
    tok.train_from_iterator([line for line in text.split("\n") if line], trainer=trainer)
    return set(tok.get_vocab(with_added_tokens=True))


def test_tokenizers_unigram_trainer_is_as_far_from_us_as_from_sentencepiece():
    """tokenizers' UnigramTrainer is said to vary run to run; its spread (entries differing between two of its
    runs) is measured here and we are held to it.  Measured on this corpus: spread 0 in 3 runs (also 0 on
    taylorswift.txt at 2,000 and on the language sample at 650).  It is another variant of the algorithm
    (its own seeds and pruning, no script rule): it differs from sentencepiece by 83 of 400 pieces, and from
    us by the same count -- never closer to one than to the other, beyond its own spread."""
    tokenizers = pytest.importorskip("tokenizers")
    assert tokenizers.__version__ == "0.23.3"
    text = taylor(20_000)
    model, enc = trained("taylor20k-400")
    runs = [hf_unigram_vocab(text, 400) for _ in range(3)]
    spread = max(len(a ^ b) // 2 for a in runs for b in runs)
    want, got = set(pieces_of(model)), set(enc.pieces)
    for run in runs:
        assert abs(len(got ^ run) - len(want ^ run)) // 2 <= spread
    if spread == 0:
        assert len(got ^ runs[0]) // 2 == 83  # the measured distance
