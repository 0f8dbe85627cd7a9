"""SentencePiece Unigram ``.model`` files against ``sentencepiece`` itself.

Models: ``test_model.model`` and ``test_ja_model.model`` from the sentencepiece
0.2.1 source package (Unigram, nfkc character map), and Unigram models trained
here from the shared corpus with ``SentencePieceTrainer`` (byte fallback on and
off, user-defined and control symbols, other normalizer settings).  The oracle
is ``SentencePieceProcessor(model_proto=...).encode(text)`` and its normalizer.
"""
from __future__ import annotations

import dataclasses
import functools
import io
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.families.sentencepiece.encoding import SentencePieceEncoding, UnigramTrace, load_sentencepiece_model
from engine.families.sentencepiece.model_proto import parse_model_proto
from engine.families.sentencepiece.normalize import normalize_by_steps, normalized_text
from engine.families.sentencepiece.model_proto import NORMAL, UNKNOWN, USER_DEFINED
from engine.families.sentencepiece import unigram
from engine.families.sentencepiece.unigram import FALL, MOVE, RISE, SCORES, WORD, UnigramModel, fold
from engine.formats.charsmap import CharsmapError
from tests.conftest import CORPUS, case_text, load_cases
from tests.reference_packages import member

spm = pytest.importorskip("sentencepiece")
from sentencepiece import sentencepiece_model_pb2 as pb  # noqa: E402  (ships with sentencepiece)

SDIST = {"test_model": "sentencepiece-0.2.1/test/test_model.model",
         "test_ja_model": "sentencepiece-0.2.1/test/test_ja_model.model"}
TRAINED = {  # name -> trainer options (besides the corpus, model_type=unigram)
    "trained": dict(vocab_size=600),
    "trained_bytes": dict(vocab_size=700, byte_fallback=True),
    "trained_symbols": dict(vocab_size=600, user_defined_symbols=["<tool>", "[URL]", "New York", "▁▁"],
                            control_symbols=["<ctrl>", "<sep>"], byte_fallback=True),
    "trained_identity": dict(vocab_size=500, normalization_rule_name="identity", remove_extra_whitespaces=False,
                             add_dummy_prefix=False),
    "trained_nfkc_cf": dict(vocab_size=500, normalization_rule_name="nmt_nfkc_cf", split_by_whitespace=False),
    "trained_suffix": dict(vocab_size=500, treat_whitespace_as_suffix=True),
}
NAMES = [*SDIST, *TRAINED]
FAST = ["test_model", "test_ja_model", "trained_bytes", "trained_symbols"]


@functools.lru_cache(maxsize=None)
def model_bytes(name: str) -> bytes:
    if name in SDIST:
        return member("sentencepiece", SDIST[name])
    lines = [line for line in (CORPUS / "taylorswift.txt").read_text(encoding="utf-8").splitlines() if line.strip()]
    lines += [t for t in map(case_text, load_cases()) if not any(0xD800 <= ord(c) <= 0xDFFF for c in t)][:200]
    out = io.BytesIO()
    spm.SentencePieceTrainer.train(sentence_iterator=iter(lines), model_writer=out, model_type="unigram",
                                   minloglevel=2, num_threads=1, **TRAINED[name])
    return out.getvalue()


@functools.lru_cache(maxsize=None)
def reference(name: str):
    return spm.SentencePieceProcessor(model_proto=model_bytes(name))


@functools.lru_cache(maxsize=None)
def enc(name: str) -> SentencePieceEncoding:
    return load_sentencepiece_model(model_bytes(name), name, source=f"{name}.model")


def check(name: str, text: str) -> None:
    expected = reference(name).encode(text)
    assert enc(name).encode_ordinary(text) == expected, (name, text[:200])


SAMPLES = ["Hello world", "  I saw a girl   with a telescope.  ", "吾輩は猫である。名前はまだ無い。", "ｶﾞｷﾞ ①②　ＡＢＣ ﬁ x\u0301",
           "", " ", "   ", "😀 unknown ☃☃☃ ǅ \U0001F9D1\u200d\U0001F4BB", "<s> </s> <unk> <ctrl> <tool>x[URL]New York",
           "a\tb\nc\r\n  d", "▁▁ ▁x▁ ▁", "New  York New\u3000York", "ÀÉÎõü İı ß ΣΑΣ", "x" * 300, " " * 50 + "y"]


# ------------------------------------------------------------------ ids equal the reference
@pytest.mark.parametrize("name", NAMES)
def test_samples(name):
    assert enc(name).is_unigram and enc(name).n_vocab == reference(name).get_piece_size()
    for text in SAMPLES:
        check(name, text)


@pytest.mark.parametrize("name", [n if n in FAST else pytest.param(n, marks=pytest.mark.slow) for n in NAMES])
def test_corpus_cases(name):
    checked = 0
    for case in load_cases():
        text = case_text(case)
        if any(0xD800 <= ord(c) <= 0xDFFF for c in text):
            continue
        check(name, text)
        checked += 1
    assert checked > 50


@pytest.mark.parametrize("name", ["test_model", "trained_bytes", "trained_identity"])
def test_long_text_through_score_resets(name):
    """The whole 185k-character book and the book twice: totals pass sentencepiece's reset threshold
    (|total| > 100,000) several times, and past 115k characters a float32 near-tie (``ke|st`` against
    ``k|est`` in "Darkest") is decided by the totals as rebased there."""
    text = (CORPUS / "taylorswift.txt").read_text(encoding="utf-8")
    assert len(text) > 180_000
    check(name, text)
    check(name, text + "\n" + text)


def test_long_text_in_small_stretches():
    """The book's near-tie decided right with the walk's stretches cut to a few words, halved when
    heavy: the exact total is carried from stretch to stretch."""
    text = (CORPUS / "taylorswift.txt").read_text(encoding="utf-8")
    e = load_sentencepiece_model(model_bytes("test_model"), "stretches", source="test_model.model")
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(unigram, "_STRETCH", 50)
        patch.setattr(unigram, "_HEAVY", 600.0)
        assert e.encode_ordinary(text) == reference("test_model").encode(text)


@pytest.mark.heavy
@settings(max_examples=150, deadline=None)
@given(st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=40),
       st.sampled_from(FAST))
def test_hypothesis_any_text(text, name):
    check(name, text)


@pytest.mark.heavy
@settings(max_examples=150, deadline=None)
@given(st.lists(st.sampled_from(list("the quick brown fox  ｶﾞ①ＡﬁÀ吾輩猫\u3000\t\n▁<>[]") + ["New York", "<tool>"]),
                max_size=40).map("".join), st.sampled_from(NAMES))
def test_hypothesis_model_alphabet(text, name):
    check(name, text)


@pytest.mark.heavy
@settings(max_examples=100, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("abcdeh lo▁ｶﾞ①吾輩")), max_size=25))
def test_fast_viterbi_equals_reference(text):
    for name in ("test_model", "trained_symbols", "trained_identity"):
        model = enc(name)._unigram
        assert model is not None
        assert model.viterbi(text) == model.viterbi_reference(text)


@settings(max_examples=150, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("abcdehlo▁▁▁ｶﾞ吾輩")), max_size=60),
       st.sampled_from([0.0, -3e3, -65_530.0, -99_990.0, -99_999.96875, -100_000.0, -100_000.0078125, 4e5]),
       st.sampled_from(["test_model", "trained_bytes", "trained_symbols"]))
def test_word_memo_equals_one_lattice_at_any_total(text, start_total, name):
    """Words come from the memo only where no float32 near-tie can change the choice and no score reset
    falls inside them: from large totals and right at the reset threshold the path still equals the
    whole-text reference."""
    model = enc(name)._unigram
    assert model is not None and model._words is not None
    assert model.viterbi(text, start_total) == model.viterbi_reference(text, start_total)
    assert model.viterbi(text, start_total) == model.viterbi_reference(text, start_total)  # memo warm


@settings(max_examples=100, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("abcdehlo▁▁▁ｶﾞ")), max_size=300),
       st.sampled_from([0.0, -3.0, -65_530.0, -99_990.0, -100_000.0078125]))
def test_walk_in_small_stretches(text, start_total):
    """Stretches of a few words, halved when their words weigh too much, the exact total caught up
    between them: still the whole-text reference's path, and the float32 pass's total at the end."""
    model = enc("test_model")._unigram
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(unigram, "_STRETCH", 3)
        patch.setattr(unigram, "_HEAVY", 40.0)
        for t in (text, "▁" + text):
            assert model.viterbi(t, start_total) == model.viterbi_reference(t, start_total)
            assert model._walk_to_end(t, start_total, True)[1] == model._relax(t, start_total)[1]


def test_word_memo_is_used_and_exact_on_a_long_text():
    """The memo fills with the text's words and a second encode (from the memo) gives the same ids."""
    text = (CORPUS / "taylorswift.txt").read_text(encoding="utf-8")[:20_000]
    e = load_sentencepiece_model(model_bytes("test_model"), "memo", source="test_model.model")
    model = e._unigram
    normalized = e._normalized(text)
    assert model.viterbi(normalized) == model.viterbi_reference(normalized)
    assert len(model._tails) > 500 and "the" in model._tails  # the words of a text that starts with ▁
    assert e.encode_ordinary(text) == e.encode_ordinary(text) == reference("test_model").encode(text)


def _hand_model(*extra: tuple[str, float, int]) -> UnigramModel:
    pieces = (("<unk>", 0.0, UNKNOWN), ("▁", -2.0, NORMAL), ("a", -2.5, NORMAL), ("b", -3.0, NORMAL),
              ("▁a", -3.5, NORMAL), ("ab", -4.0, NORMAL), *extra)
    return UnigramModel(pieces, 0)


def test_words_where_no_piece_crosses_a_word_start():
    """A word starts at a ``▁`` that no piece can cross: at every ``▁`` when no piece holds one past its
    first character; only after a character other than ``▁`` when the pieces that do hold one have only
    ``▁`` before it (``▁▁``, user-defined in `trained_symbols`); else the text is one pass (``a▁b``)."""
    assert _hand_model()._words.findall("▁ab▁▁a▁") == ["▁ab", "▁", "▁a", "▁"]
    assert _hand_model(("▁▁", 0.0, USER_DEFINED))._words.findall("▁ab▁▁a▁") == ["▁ab", "▁▁a", "▁"]
    assert enc("trained_symbols")._unigram._words is not None
    assert _hand_model(("a▁b", -1.0, NORMAL))._words is None
    assert _hand_model(("▁▁", -1.0, NORMAL), ("b▁", -1.0, NORMAL))._words is None


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("ab▁▁▁")), max_size=40),
       st.sampled_from([0.0, -99_990.0, -65_536.0, 4e5]))
def test_hand_models_memo_equals_the_whole_pass(text, start_total):
    for model in (_hand_model(), _hand_model(("▁▁", 0.0, USER_DEFINED)), _hand_model(("▁▁▁", -1.0, NORMAL)),
                  _hand_model(("a▁b", -1.0, NORMAL))):
        assert model.viterbi(text, start_total) == model.viterbi_reference(text, start_total)
        assert model.viterbi(text, start_total) == model.viterbi_reference(text, start_total)


@pytest.mark.heavy
@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(list("ab e  \u3000\u00a8\u0301\u0308▁ｶﾞﬁ①Ａ\t\n") + ["a\u0301", " \u3000 "]),
                max_size=30).map("".join), st.sampled_from(NAMES))
def test_normalized_text_equals_the_stepwise_normalizer(text, name):
    """The run-at-a-time normalizer gives the step-by-step one's text, for every model it serves."""
    e = enc(name)
    if e._charsmap is None or e._user is not None:
        return
    spec, suffix = e.model.normalizer, e.model.trainer.treat_whitespace_as_suffix
    assert normalized_text(text, spec, suffix, e._charsmap) == normalize_by_steps(text, spec, suffix, e._charsmap)[0]
    for remove, dummy in ((False, True), (True, False), (False, False)):  # the other whitespace settings
        other = dataclasses.replace(spec, remove_extra_whitespaces=remove, add_dummy_prefix=dummy)
        for sfx in (False, True):
            assert (normalized_text(text, other, sfx, e._charsmap)
                    == normalize_by_steps(text, other, sfx, e._charsmap)[0]), (remove, dummy, sfx)


# ------------------------------------------------------------------ normalizer with the character map
# The standalone normalizer knows neither the trainer's treat_whitespace_as_suffix nor the model's
# user-defined symbols (only the processor hands it those): those two models are checked by encode and tokenize.
@pytest.mark.parametrize("name", [n for n in NAMES if n not in ("trained_symbols", "trained_suffix")])
def test_normalizer_and_offsets_equal_sentencepiece(name):
    ref = spm.SentencePieceNormalizer(model_proto=model_bytes(name))
    for text in SAMPLES:
        expected, offsets = ref.normalize(text, with_offsets=True)
        got, n2o = enc(name).normalize(text)
        assert got == expected, (name, text)
        assert n2o == offsets or not expected, (name, text)  # an empty result's one offset is moot


# ------------------------------------------------------------------ explaining
@pytest.mark.parametrize("name", FAST)
def test_tokenize_offsets_equal_sentencepiece(name):
    """Each token's byte span is the one sentencepiece reports (byte pieces of one character share it)."""
    for text in SAMPLES + ["Hello, world!  Tokenizers are fun."]:
        tokens = enc(name).tokenize(text, disallowed_special=())
        pieces = reference(name).encode(text, out_type="proto").pieces
        assert [t.id for t in tokens] == [p.id for p in pieces]
        data = text.encode()
        for t, p in zip(tokens, pieces):
            if p.begin == p.end:  # a byte piece that is not the last of its character
                continue
            if t.partial:
                assert (t.char_start, t.char_end) == (len(data[:p.begin].decode()), len(data[:p.end].decode()))
            else:
                assert (t.byte_start, t.byte_end) == (p.begin, p.end), (name, text, t, p)


def test_lattice_trace_marks_the_best_path():
    e = enc("test_model")
    trace = e.bpe_trace(" Hello world")
    assert isinstance(trace, UnigramTrace) and trace.steps == ()
    assert list(trace.final_ids) == reference("test_model").encode("Hello world")
    best = [n for n in trace.nodes if n.best]
    assert [n.id for n in best] == list(trace.final_ids)
    assert best[0].start == 0 and best[-1].end == len(trace.text)
    assert all(a.end == b.start for a, b in zip(best, best[1:]))
    assert b"".join(trace.parts_at(0)) == trace.piece == b" Hello world"
    # every candidate's total is its score plus the best total where it starts; none beats the path's end
    assert all(math.isfinite(n.total) and n.total <= n.score + 1e-3 for n in trace.nodes if n.start == 0)
    assert best[-1].total == max(n.total for n in trace.nodes if n.end == len(trace.text) and n.best)
    unknown = e.bpe_trace("☃")
    assert [n.unknown for n in unknown.nodes] == [True] and list(unknown.final_ids) == [e.unk_id]
    assert e.merge_tree(best[1].id).is_leaf and e.merges == {} and not e.uses_pair_merges
    assert e.pretokenize("Hello world")[0].text == " Hello world"


def test_decode_and_single_tokens():
    e, ref = enc("trained_bytes"), reference("trained_bytes")
    for text in SAMPLES:
        ids = ref.encode(text)
        assert e.decode(ids) == ref.decode(ids)
    for i in range(e.n_vocab):
        if not e.is_special_token(i) and e.piece_type(i) not in ("unused", "byte"):  # <0x61> and "a": same bytes
            assert e.encode_single_token(e.decode_single_token_bytes(i)) == i


# ------------------------------------------------------------------ crafted and refused
def _edited(name: str, edit) -> bytes:
    proto = pb.ModelProto()
    proto.ParseFromString(model_bytes(name))
    edit(proto)
    return proto.SerializeToString()


@pytest.mark.parametrize("score", [float("nan"), float("inf"), float("-inf")])
def test_non_finite_scores_refused(score):
    data = _edited("test_model", lambda p: setattr(p.pieces[10], "score", score))
    with pytest.raises(ValueError, match=r"u\.model: pieces\[10\] .* finite"):
        load_sentencepiece_model(data, source="u.model")


def test_charsmap_pointing_outside_itself_refused():
    def shrink(p):  # keep the trie, cut the outputs short: rules now point past the end
        blob = p.normalizer_spec.precompiled_charsmap
        size = int.from_bytes(blob[:4], "little")
        p.normalizer_spec.precompiled_charsmap = blob[: 4 + size + 10]
    # at load (the whole trie is walked), not when a text first hits such a rule
    with pytest.raises(CharsmapError, match=r"u.model: precompiled_charsmap: a rule's output offset [\d,]+ lies "
                                            "outside the 10 bytes"):
        load_sentencepiece_model(_edited("test_model", shrink), source="u.model")
    with pytest.raises(CharsmapError, match="claims"):
        load_sentencepiece_model(_edited("test_model", lambda p: setattr(
            p.normalizer_spec, "precompiled_charsmap", b"\xff\xff\xff\x00" + b"\x00" * 16)), source="u.model")


def test_word_and_char_models_refused_by_name():
    for kind, title in ((3, "Word model"), (4, "Char model")):
        with pytest.raises(ValueError, match=title):
            load_sentencepiece_model(_edited("test_model", lambda p: setattr(p.trainer_spec, "model_type", kind)),
                                     source="u.model")


def test_parsed_spec_matches_protobuf():
    for name in SDIST:
        ours, proto = parse_model_proto(model_bytes(name)), pb.ModelProto()
        proto.ParseFromString(model_bytes(name))
        assert ours.normalizer.precompiled_charsmap == proto.normalizer_spec.precompiled_charsmap
        assert ours.trainer.model_type == proto.trainer_spec.model_type == 1


def test_bpe_model_with_character_map():
    """The character map serves BPE models too (SentencePiece's default nmt_nfkc, trained here)."""
    lines = [line for line in (CORPUS / "taylorswift.txt").read_text(encoding="utf-8").splitlines() if line.strip()]
    out = io.BytesIO()
    spm.SentencePieceTrainer.train(sentence_iterator=iter(lines), model_writer=out, model_type="bpe", vocab_size=500,
                                   minloglevel=2, num_threads=1, byte_fallback=True)
    e, ref = load_sentencepiece_model(out.getvalue(), "bpe_nfkc"), spm.SentencePieceProcessor(model_proto=out.getvalue())
    assert not e.is_unigram and e.model.normalizer.name == "nmt_nfkc"
    for text in SAMPLES:
        assert e.encode_ordinary(text) == ref.encode(text), text


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(["▁the", "▁a", "▁Hello", "▁world", "▁Darkest", "ｶﾞ", "▁吾輩は猫", "▁x", "▁", "▁zzzz"]),
                max_size=60),
       st.floats(min_value=-3e5, max_value=3e5, width=32), st.sampled_from(["test_model", "trained_bytes"]))
def test_catch_up_by_binade_equals_the_float32_fold(words, total, name):
    """The exact total after memoized words, a binade at a time, equals adding node by node in float32
    (from any total, on both sides of zero, across powers of two)."""
    model = enc(name)._unigram
    entries = [model._solve(w) for w in words]
    plain = fold(total, [score for entry in entries for score in entry[SCORES]])
    assert model._catch_up(total, entries) == plain


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(["▁", "▁a", "▁b", "▁ab", "▁▁", "▁▁▁", "▁▁ab", "▁▁▁▁▁▁"]), max_size=80),
       st.floats(min_value=-2.0 ** 17, max_value=2.0 ** 17, width=32))
def test_catch_up_with_rising_totals_equals_the_float32_fold(words, total):
    """Words whose path holds user-defined symbols (scores above 0) make the total rise: the run of
    words taken a binade at a time must stay inside the binade going up as well as down."""
    model = _hand_model(("▁▁", 0.0, USER_DEFINED), ("▁▁▁", 0.0, USER_DEFINED))
    entries = [model._solve(w) for w in words]
    assert model._solve("▁▁")[RISE] >= 0.5 and model._solve("▁▁ab")[FALL] >= 4.0
    assert model._solve("▁▁ab")[MOVE] == complex(model._solve("▁▁ab")[FALL], model._solve("▁▁ab")[RISE])
    plain = fold(total, [score for entry in entries for score in entry[SCORES]])
    assert model._catch_up(total, entries) == plain
    assert model._catch_up(total, entries) == plain  # from the per-binade memo


def test_catch_up_exact_half_steps():
    """A score that is an exact half of the float32 step rounds to even: such a word is folded node by node."""
    model = enc("test_model")._unigram
    half = [model._solve("▁the")[:]]
    half[0][SCORES] = (-0.00390625,)  # half the step (2**-7) of totals in [65536, 131072)
    half[0][WORD] = "half-step word"
    half[0][FALL] = 0.00390625 + 2 ** -8
    half[0][RISE] = 2 ** -8
    half[0][MOVE] = complex(half[0][FALL], half[0][RISE])
    for total in (-70000.0, -70000.0078125, 70000.0078125):
        assert model._catch_up(total, half * 3) == fold(total, [-0.00390625] * 3)


@pytest.mark.parametrize("name", ["test_model", "test_ja_model", "trained", "trained_identity", "trained_nfkc_cf"])
def test_unknown_runs_joined_per_word(name):
    """Runs of unknown characters become one ``<unk>`` per run, joined inside each memoized word: a run
    never spans two words (each starts with a known ``▁``), also at the text's first word."""
    for text in ["☃☃ ☃☃☃ x☃ ☃", "☃", "☃ ", " ☃☃", "a☃☃b ☃c☃ ☃☃☃☃ ☃", "☃\u3000☃  ☃", "☃▁☃"]:
        e = enc(name)
        assert e._unigram.table.get("▁", -1) >= 0
        e.clear_cache()
        check(name, text)
        check(name, text)  # from the memo


def test_a_unigram_model_is_announced_as_unigram():
    """family_note's title is what the Train page announces: a Unigram .model was "SentencePiece BPE" (issue 33, 8)."""
    import engine

    note = engine.family_note(enc("test_model"))
    assert note.title == "SentencePiece Unigram" and "BPE" not in note.title
    assert engine.family_note(engine.get_encoding("mistral-v1")).title == "SentencePiece BPE"
