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


def _bert_reference():
    import tokenizers

    from engine.families.hf.builtins import VOCAB_TXT_BUILTINS
    from engine.formats.tiktoken_files import read_data_file

    vocab = read_data_file(*VOCAB_TXT_BUILTINS["bert-base-uncased"].file).decode("utf-8").split("\n")
    vocab = {w: i for i, w in enumerate(vocab) if w}
    return tokenizers.Tokenizer(tokenizers.models.WordPiece(vocab, unk_token="[UNK]")), vocab


def test_unknown_tokens_are_the_ones_the_reference_writes_as_unk():
    """BERT writes [UNK] for what it cannot spell (Inuktitut, emoji, Javanese): `count_unknown` counts
    exactly the [UNK]s `tokenizers` gives; a byte-level or byte-fallback tokenizer never writes one."""
    from engine.explain.lossless import count_unknown, unknown_token_ids

    text = "ᐃᓄᒃᑎᑐᑦ 😀 ꦗꦮ hello Ꙭ world ⸻ café"
    bert = engine.get_encoding("bert-base-uncased")
    ref, vocab = _bert_reference()
    ref.normalizer = tokenizers_bert_normalizer()
    ref.pre_tokenizer = tokenizers_bert_pre_tokenizer()
    assert bert.encode_ordinary(text) == ref.encode(text, add_special_tokens=False).ids
    theirs = ref.encode(text, add_special_tokens=False).tokens.count("[UNK]")
    assert theirs >= 3 and count_unknown(bert, bert.encode_ordinary(text)) == theirs
    assert unknown_token_ids(bert) == {vocab["[UNK]"]}
    assert unknown_token_ids(engine.get_encoding("mistral-v1")) == {0}  # <unk>, typed UNKNOWN in the .model
    for name in ("gpt2", "o200k_base", "mistral-v1", "claude-legacy"):
        enc = engine.get_encoding(name)
        assert count_unknown(enc, enc.encode_ordinary(text)) == 0, name


def test_a_unigram_model_without_byte_fallback_counts_its_unk():
    """sentencepiece's own test model has no byte fallback: a character it lacks becomes <unk> (id 0)."""
    import sentencepiece

    from engine.explain.lossless import count_unknown

    data = member("sentencepiece", "sentencepiece-0.2.1/test/test_model.model")
    enc = load_tokenizer("sentencepiece", ("test_model.model", data))
    ref = sentencepiece.SentencePieceProcessor(model_proto=data)
    text = "hello ᐃᓄᒃᑎᑐᑦ world 😀"
    ids = enc.encode_ordinary(text)
    assert ids == ref.encode(text)
    assert count_unknown(enc, ids) == sum(1 for i in ref.encode(text) if ref.is_unknown(i)) > 0


def test_the_arena_counts_lost_text_per_cell():
    from engine.explain.lossless import count_unknown

    encs = [engine.get_encoding(n) for n in ("gpt2", "bert-base-uncased")]
    matrix = engine.language_matrix(encs)
    cells = {(c.code, c.encoding): c for c in matrix.cells()}
    for sample in matrix.languages:
        for enc in encs:
            assert cells[sample.code, enc.name].unknown == count_unknown(enc, enc.encode_ordinary(sample.text))
    assert not any(c.unknown for c in matrix.cells() if c.encoding == "gpt2")
    assert any(c.unknown for c in matrix.cells() if c.encoding == "bert-base-uncased")
    ranked = engine.rank_encodings("ᐃᓄᒃᑎᑐᑦ hi", encs)
    assert {e.name: e.unknown for e in ranked} == {"gpt2": 0, "bert-base-uncased": 1}


def tokenizers_bert_normalizer():
    import tokenizers
    return tokenizers.normalizers.BertNormalizer(lowercase=True)


def tokenizers_bert_pre_tokenizer():
    import tokenizers
    return tokenizers.pre_tokenizers.BertPreTokenizer()
