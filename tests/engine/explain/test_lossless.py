"""engine.explain.lossless: the first difference of a round trip, and a short concrete text a lossy tokenizer does
not give back -- on toy encodings whose loss is known, on tiktoken's kind (lossless) and on Claude's legacy
tokenizer.json (NFKC), which loads with the example instead of being refused."""
from __future__ import annotations

import unicodedata

import pytest

import engine
from engine.explain.lossless import describe, first_difference, lossy_example, round_trip
from engine.sources.uploads import load_tokenizer
from tests.reference_packages import member


class Normalizing:
    """A toy encoding: ids are code points of `change(text)`."""

    def __init__(self, change) -> None:
        self.change = change

    def encode_ordinary(self, text: str) -> list[int]:
        return [ord(c) for c in self.change(text)]

    def decode(self, ids: list[int]) -> str:
        return "".join(map(chr, ids))


def test_first_difference():
    assert first_difference("abc", "abc") is None
    assert first_difference("abc", "abd") == 2
    assert first_difference("ab", "abc") == 2
    assert first_difference("", "x") == 0


@pytest.mark.parametrize("change, text, back, says", [
    (lambda t: unicodedata.normalize("NFKC", t), "①", "1", "NFKC"),
    (lambda t: t.lower() if t.isascii() else t, "Hello", "hello", "lowered"),
    (lambda t: "".join(c for c in unicodedata.normalize("NFD", t) if not unicodedata.combining(c)), "café", "cafe",
     "accents"),
    (lambda t: " ".join(t.split()), "a  b\t\tc\n\nd", "a b c d", "whitespace"),
    (lambda t: "".join(c if ord(c) < 0x2000 else "<unk>" for c in t), "①", "<unk>", "unknown token"),
])
def test_the_example_is_short_and_says_what_changed(change, text, back, says):
    found = lossy_example(Normalizing(change))
    assert found is not None
    assert (found.text, found.back) == (text, back)  # the shortest failing word of the first failing probe
    assert says in found.reason
    assert found.at == first_difference(text, back)


def test_a_lossless_encoding_has_no_example():
    assert lossy_example(Normalizing(lambda t: t)) is None
    assert lossy_example(engine.get_encoding("cl100k_base")) is None
    assert round_trip(engine.get_encoding("o200k_base"), "ﬁle ① Hello  café") is None


def test_describe_falls_back_to_plain_words():
    assert describe("abc", "xyz") == "the text changes"


def test_claudes_legacy_tokenizer_loads_with_an_nfkc_example():
    data = member("anthropic", "anthropic/tokenizer.json")
    enc = load_tokenizer("tokenizer.json", ("tokenizer.json", data))  # lossy by design: accepted, not refused
    found = lossy_example(enc)
    assert found is not None and "NFKC" in found.reason
    assert unicodedata.normalize("NFKC", found.text) == found.back != found.text
    assert len(found.text) <= 4
