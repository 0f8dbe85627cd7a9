"""A Unigram ``tokenizer.json`` without ``unk_id`` (issue 33 item 6b): Hugging Face `tokenizers` loads it and fails
only the texts holding a character its vocabulary has no entry for.  The upload gate refused the whole file
(its probe text holds such characters); now it loads, gives `tokenizers`' ids, and fails those texts the same
way, with a typed error naming the character.

A small file built here, and the real one: afaanoromo-tokenizer 1.1.3's (MIT), from the pinned package."""
from __future__ import annotations

import base64
import json

import pytest
from tokenizers import Tokenizer

import engine
from engine.families.hf.models.base import UnknownTokenMissingError
from engine.sources.uploads import UnusableTokenizerError, load_tokenizer
from tests import reference_packages as rp

VOCAB = [["<pad>", 0.0], ["▁", -2.0], ["a", -3.0], ["b", -3.0], ["c", -3.5], ["ab", -2.5], ["abc", -3.0],
         ["▁ab", -2.2], ["ca", -2.8], ["d", -4.0]]


def small_file(unk_id: int | None = None) -> bytes:
    """A T5-like Unigram (Metaspace, no normalizer) whose vocabulary spells a, b, c, d and nothing else."""
    return json.dumps({
        "version": "1.0", "truncation": None, "padding": None,
        "added_tokens": [{"id": 0, "content": "<pad>", "single_word": False, "lstrip": False, "rstrip": False,
                          "normalized": False, "special": True}],
        "normalizer": None,
        "pre_tokenizer": {"type": "Metaspace", "replacement": "▁", "prepend_scheme": "always", "split": True},
        "post_processor": None,
        "decoder": {"type": "Metaspace", "replacement": "▁", "prepend_scheme": "always", "split": True},
        "model": {"type": "Unigram", "unk_id": unk_id, "vocab": VOCAB, "byte_fallback": False},
    }).encode()


KNOWN = ["abc", "ab ab", "cab dab", "a b c d", "abcabc ca", ""]
UNKNOWN = [("abx", "x", 0x78), ("ab 日本", "日", 0x65E5), ("a,b", ",", 0x2C)]


def test_the_small_file_loads_and_gives_tokenizers_ids():
    enc = load_tokenizer("tokenizer.json", ("small.json", small_file()))  # refused before: "fails on a test text"
    ref = Tokenizer.from_str(small_file().decode())
    for text in KNOWN:
        assert enc.encode(text) == ref.encode(text, add_special_tokens=False).ids, text


@pytest.mark.parametrize(("text", "char", "code"), UNKNOWN)
def test_a_text_with_a_character_it_cannot_spell_fails_as_in_tokenizers_naming_it(text, char, code):
    enc = load_tokenizer("tokenizer.json", ("small.json", small_file()))
    with pytest.raises(Exception, match="unk_id"):  # tokenizers: "Encountered an unknown token but `unk_id` is missing"
        Tokenizer.from_str(small_file().decode()).encode(text)
    for call in (enc.encode, enc.encode_ordinary, enc.tokenize):
        with pytest.raises(UnknownTokenMissingError, match=f"{char!r} \\(U\\+{code:04X}\\) has no entry"):
            call(text)
    assert issubclass(UnknownTokenMissingError, ValueError)  # what every page already catches per text


def test_with_an_unk_id_the_same_file_writes_the_unknown_token():
    enc = load_tokenizer("tokenizer.json", ("small.json", small_file(unk_id=0)))
    ref = Tokenizer.from_str(small_file(unk_id=0).decode())
    for text, _, _ in UNKNOWN:
        assert enc.encode(text) == ref.encode(text, add_special_tokens=False).ids


def test_a_vocabulary_that_spells_nothing_loads_and_fails_every_text_as_tokenizers_does():
    empty = json.loads(small_file())
    empty["model"]["vocab"] = [["<pad>", 0.0]]
    data = json.dumps(empty).encode()
    enc = load_tokenizer("tokenizer.json", ("empty.json", data))
    with pytest.raises(Exception, match="unk_id"):
        Tokenizer.from_str(data.decode()).encode("a")
    with pytest.raises(UnknownTokenMissingError, match="'▁' \\(U\\+2581\\)"):  # Metaspace's mark comes first
        enc.encode("a")
    assert enc.encode("") == []


def test_the_gate_still_refuses_a_byte_level_file_missing_a_byte():
    data = "\n".join(f"{base64.b64encode(bytes([b])).decode()} {b - 1}" for b in range(1, 256)).encode()
    with pytest.raises(UnusableTokenizerError, match="0x00"):
        load_tokenizer("tiktoken", ("short.tiktoken", data), pat_str=r"\S+|\s+")


AFAAN = ("afaanoromo-tokenizer", "afaanoromo_tokenizer/unigram_tokenizer.json")
OROMO = ["Akkam jirta? Maqaan koo Caalaa dha.", "Afaan Oromoo afaan Kushii ti.", "Barnoota fi hojii!",
         "Naannoo Oromiyaa keessatti namoonni miliyoona hedduun jiraatu.", "AKKAM   JIRTU\tqaxxaamura"]


def test_afaanoromo_tokenizers_unigram_file_loads_with_tokenizers_ids():
    data = rp.member(*AFAAN)
    assert json.loads(data)["model"]["unk_id"] is None
    enc = load_tokenizer("tokenizer.json", ("unigram_tokenizer.json", data))
    ref = Tokenizer.from_str(data.decode())
    for text in OROMO:
        assert enc.encode(text) == ref.encode(text, add_special_tokens=False).ids, text
    for text, char in (("Akkam, jirta", ","), ("Oromoo 日本", "日")):
        with pytest.raises(Exception):
            ref.encode(text)
        with pytest.raises(UnknownTokenMissingError, match=repr(char)):
            enc.encode(text)
    assert isinstance(enc, engine.EncodingAPI)
