"""The tokenizer.json models that are not byte-level BPE -- WordPiece, WordLevel, Unigram, BPE over characters --
against Hugging Face `tokenizers` on small files built here: ids and character offsets, also on Hypothesis text."""
from __future__ import annotations

import json
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tokenizers import Tokenizer

from engine.families.hf.models import CharBpe, Unigram, WordLevel, WordPiece, model_from_json
from engine.families.hf.models.base import UnknownTokenMissingError
from engine.families.hf.tokenizer_json import _Where


def _file(model: dict) -> str:
    return json.dumps({"version": "1.0", "truncation": None, "padding": None, "added_tokens": [], "normalizer": None,
                       "pre_tokenizer": None, "post_processor": None, "decoder": None, "model": model})


def both(model: dict):
    return Tokenizer.from_str(_file(model)), model_from_json(model, _Where("test.json"))


def check(model: dict, texts, offsets: bool = True) -> None:
    ref, ours = both(model)
    for text in texts:
        want = ref.encode(text, add_special_tokens=False)
        got = ours.tokenize(text)
        assert [t.id for t in got] == want.ids, text
        assert list(ours.ids(text)) == want.ids, text
        if offsets and not _drops(ours, text):
            assert [(t.start, t.end) for t in got] == want.offsets, text


def _drops(model, text: str) -> bool:
    """Whether BPE drops a character of `text` (no entry, no unk, no byte fallback): tokenizers' later offsets
    then shift left by it, where ours stay on the characters."""
    if not isinstance(model, CharBpe):
        return False
    covered = {i for t in model.initial(text) for i in range(t.start, t.end)}
    return len(covered) != len(text)


# ------------------------------------------------------------------ WordPiece
WP_VOCAB = {w: i for i, w in enumerate(["[UNK]", "un", "##aff", "##able", "a", "##a", "b", "##b", "ab", "##ab", "é",
                                        "##é", "日本", "##語", "x", "##xx", "aff"])}
WP = {"type": "WordPiece", "unk_token": "[UNK]", "continuing_subword_prefix": "##", "max_input_chars_per_word": 8,
      "vocab": WP_VOCAB}


def test_wordpiece_longest_match_and_unk_for_the_whole_piece():
    check(WP, ["unaffable", "aab", "abab", "bab", "abz", "z", "éé", "日本語", "xxxxx", "abababababab", "a", "aff"])
    _, ours = both(WP)
    assert [t.id for t in ours.tokenize("abz")] == [0]  # one unmatched character makes the whole piece unknown
    assert [t.id for t in ours.tokenize("aaaaaaaaa")] == [0]  # past max_input_chars_per_word


def test_wordpiece_other_prefix_and_missing_unk():
    model = dict(WP, continuing_subword_prefix="@@", vocab={"a": 0, "@@b": 1, "[UNK]": 2})
    check(model, ["ab", "abb", "ba", "a"])
    _, ours = both(dict(model, vocab={"a": 0, "@@b": 1}))
    with pytest.raises(UnknownTokenMissingError, match="not in the"):
        ours.tokenize("c")


def test_wordpiece_steps_show_every_lookup():
    _, ours = both(dict(WP, max_input_chars_per_word=100))
    steps = ours.steps("unaffable")
    assert [s.candidate for s in steps if s.found] == ["un", "##aff", "##able"]
    assert steps[0].candidate == "unaffa" and not steps[0].found  # longest first (capped by the longest entry)


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="abxé日本語unfl z", max_size=14))
def test_wordpiece_hypothesis(text):
    check(WP, [text])


# ------------------------------------------------------------------ WordLevel
def test_wordlevel():
    model = {"type": "WordLevel", "vocab": {"<unk>": 0, "hello": 1, "world": 2}, "unk_token": "<unk>"}
    check(model, ["hello", "world", "hell", "", "x"])
    with pytest.raises(UnknownTokenMissingError):
        both(dict(model, unk_token="[UNK]"))[1].tokenize("x")


# -------------------------------------------------------------------- Unigram
UNI_VOCAB = [["<unk>", 0.0], ["▁", -2.0], ["a", -3.0], ["b", -3.5], ["ab", -4.0], ["abc", -6.5], ["c", -4.0],
             ["bc", -5.0], ["▁ab", -4.5], ["é", -5.0], ["<0x41>", -9.0], ["<0xC3>", -9.0], ["<0xA9>", -9.0],
             ["cc", -8.0], ["<s>", 0.0], ["zz", -1.0]]
UNI = {"type": "Unigram", "unk_id": 0, "vocab": UNI_VOCAB, "byte_fallback": False}


def test_unigram_best_path_and_fused_unknowns():
    texts = ["abc", "▁ab", "▁abcab", "xyz", "axyb", "cccc", "éé", "<s>", "zzz", "z", "zxz", "ab<unk>c", "▁▁"]
    check(UNI, texts)
    _, ours = both(UNI)
    assert [t.id for t in ours.tokenize("axyb")] == [2, 0, 3]  # x and y fused into one unknown


def test_unigram_ties_keep_the_first_path():
    vocab = [["<unk>", 0.0], ["a", -1.0], ["b", -1.0], ["ab", -2.0], ["bb", -2.0], ["abb", -3.0]]
    check({"type": "Unigram", "unk_id": 0, "vocab": vocab}, ["ab", "abb", "abab", "bbb", "abbabb"])


def test_unigram_byte_fallback():
    model = dict(UNI, byte_fallback=True)
    check(model, ["é", "A", "xA", "ab日c"], offsets=False)
    _, ours = both(model)
    assert [t.id for t in ours.tokenize("A")] == [10]
    assert [t.id for t in ours.tokenize("日")] == [0]  # one of its bytes has no <0xXX> entry: unknown


def test_unigram_without_unk_id_fails_like_tokenizers():
    model = dict(UNI, unk_id=None)
    ref, ours = both(model)
    assert list(ours.ids("ab")) == ref.encode("ab").ids
    with pytest.raises(Exception):
        ref.encode("q")
    with pytest.raises(UnknownTokenMissingError):
        ours.ids("q")


def test_unigram_lattice_marks_the_best_path():
    _, ours = both(UNI)
    nodes = ours.steps("▁abc")
    best = [(n.start, n.end) for n in nodes if n.best]
    assert best == [(t.start, t.end) for t in ours.tokenize("▁abc")]
    assert all(math.isfinite(n.total) for n in nodes)


@pytest.mark.parametrize("bad", [["a", float("nan")], ["a", "x"], ["a"], [1, 0.0]])
def test_unigram_refuses_bad_entries(bad):
    with pytest.raises(ValueError, match=r"\$\.model\.vocab\[1\]"):
        model_from_json({"type": "Unigram", "unk_id": 0, "vocab": [["<unk>", 0.0], bad]}, _Where("t.json"))


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="abcé▁xzA", max_size=16), st.booleans())
def test_unigram_hypothesis(text, byte_fallback):
    check(dict(UNI, byte_fallback=byte_fallback), [text], offsets=not byte_fallback)


# -------------------------------------------------------- BPE over characters
def _bpe(vocab: list[str], merges: list[str], **flags) -> dict:
    return {"type": "BPE", "dropout": None, "unk_token": None, "continuing_subword_prefix": None,
            "end_of_word_suffix": None, "fuse_unk": False, "byte_fallback": False, "ignore_merges": False,
            **flags, "vocab": {w: i for i, w in enumerate(vocab)}, "merges": merges}


BPE_VOCAB = ["<unk>", "a", "b", "c", "ab", "bc", "abc", "é", "<0x41>", "<0xE6>", "<0x97>", "<0xA5>", "aa", "aaa"]
BPE_MERGES = ["a b", "b c", "ab c", "a a", "aa a"]


@pytest.mark.parametrize("flags", [{}, {"unk_token": "<unk>"}, {"unk_token": "<unk>", "fuse_unk": True},
                                   {"byte_fallback": True}, {"byte_fallback": True, "unk_token": "<unk>", "fuse_unk": True},
                                   {"ignore_merges": True}])
def test_char_bpe_flags(flags):
    texts = ["abc", "aaaa", "abcabc", "xyab", "Aé", "日", "x日y", "bca", "cba", "aaaaaaa", "", "zzz"]
    check(_bpe(BPE_VOCAB, BPE_MERGES, **flags), texts, offsets=not flags.get("byte_fallback"))


def test_char_bpe_prefix_and_suffix():
    vocab = ["<unk>", "a", "##a", "b", "##b", "ab", "##ab", "a</w>", "##a</w>", "##b</w>", "ab</w>", "##ab</w>", "b</w>"]
    merges = ["a ##b", "##a ##b", "a ##b</w>", "##a ##b</w>"]
    for flags in ({"continuing_subword_prefix": "##"}, {"continuing_subword_prefix": "##", "end_of_word_suffix": "</w>"}):
        check(_bpe(vocab, merges, unk_token="<unk>", **flags), ["ab", "abab", "aab", "ba", "a", "b", "abc", "cab"])


def test_char_bpe_merges_rank_ties_leftmost():
    check(_bpe(BPE_VOCAB, BPE_MERGES), ["aaaaaa", "aaaaa", "ababab"])
    _, ours = both(_bpe(BPE_VOCAB, BPE_MERGES))
    steps = ours.steps("abc")
    assert [(s.position, s.rank) for s in steps] == [(0, 0), (0, 2)]


def test_char_bpe_bad_merge_names_its_index():
    with pytest.raises(ValueError, match=r"\$\.model\.merges\[1\].*'z'"):
        model_from_json(_bpe(BPE_VOCAB, ["a b", "z z"]), _Where("t.json"))


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="abcéA日xz", max_size=20), st.sampled_from([{}, {"unk_token": "<unk>", "fuse_unk": True},
                                                                 {"byte_fallback": True, "unk_token": "<unk>"}]))
def test_char_bpe_hypothesis(text, flags):
    check(_bpe(BPE_VOCAB, BPE_MERGES, **flags), [text], offsets=not flags.get("byte_fallback"))


def test_long_piece_takes_the_heap_path_and_agrees():
    _, ours = both(_bpe(BPE_VOCAB, BPE_MERGES))
    text = "abcaab" * 200
    assert list(ours.ids(text)) == [t.id for t in ours.tokenize(text)]
