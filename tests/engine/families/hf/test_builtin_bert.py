"""`bert-base-uncased`: Google's uncased WordPiece vocabulary on the general pipeline, equal to Hugging Face
`tokenizers`' ``BertWordPieceTokenizer(vocab, lowercase=True)`` and to llama.cpp's test vectors for the
BGE vocabulary it was read back from (`scripts/gen_bert_vocab.py`)."""
from __future__ import annotations

import gzip
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import engine
from engine.families.hf.builtins import VOCAB_TXT_BUILTINS
from engine.formats.tiktoken_files import DATA_DIR, read_data_file

from tests.conftest import CORPUS, case_text, load_cases
from tests.engine.families.hf.bmp_context import assert_every_bmp_code_point, tokenizers_reference
from tests.reference_packages import member

tokenizers = pytest.importorskip("tokenizers")

SPEC = VOCAB_TXT_BUILTINS["bert-base-uncased"]
GOOGLE_VOCAB_SHA256 = "07eced375cec144d27c900241f3e339478dec958f92fddbc551f295c992038a3"  # bert-base-uncased/vocab.txt


@pytest.fixture(scope="module")
def enc():
    return engine.get_encoding("bert-base-uncased")


@pytest.fixture(scope="module")
def ref(tmp_path_factory):
    path = tmp_path_factory.mktemp("bert") / "vocab.txt"
    path.write_bytes(read_data_file(*SPEC.file))
    tok = tokenizers.BertWordPieceTokenizer(str(path), lowercase=True)
    tok._tokenizer.encode_special_tokens = True  # [CLS], [MASK] … typed in the text are plain text, as for every built-in
    return tok


def ref_ids(ref, text: str) -> list[int]:
    return ref.encode(text, add_special_tokens=False).ids


def assert_same(enc, ref, texts):
    expected = [e.ids for e in ref.encode_batch(texts, add_special_tokens=False)]
    for text, want in zip(texts, expected):
        assert enc.encode_ordinary(text) == want, text[:80]


def test_shipped_vocab_is_googles():
    assert SPEC.file[1] == GOOGLE_VOCAB_SHA256
    lines = read_data_file(*SPEC.file).decode("utf-8").splitlines()
    assert len(lines) == 30522 and lines[:2] == ["[PAD]", "[unused0]"] and lines[100:104] == ["[UNK]", "[CLS]", "[SEP]", "[MASK]"]


def test_vocab_is_regenerated_from_the_pinned_gguf():
    import importlib.util
    import sys
    from pathlib import Path

    script = Path(__file__).resolve().parents[4] / "scripts" / "gen_bert_vocab.py"
    spec = importlib.util.spec_from_file_location("gen_bert_vocab", script)
    module = importlib.util.module_from_spec(spec)
    sys.modules["gen_bert_vocab"] = module
    spec.loader.exec_module(module)
    gguf = member(SPEC.original.package, SPEC.original.path)
    assert module.vocab_txt(module.gguf_tokens(gguf)) == gzip.decompress((DATA_DIR / SPEC.file[0]).read_bytes())


@pytest.mark.heavy
def test_llama_cpp_vectors(enc):
    """llama.cpp's own test vectors for this vocabulary (written from Hugging Face's tokenizer)."""
    base = SPEC.original.path
    texts = member(SPEC.original.package, base + ".inp").decode("utf-8").split("\n__ggml_vocab_test__\n")
    outs = member(SPEC.original.package, base + ".out").decode("utf-8").split("\n")
    cases = [(t, [int(x) for x in o.split()]) for t, o in zip(texts, outs)]
    assert len(cases) >= 40
    for text, want in cases:
        assert enc.encode_ordinary(text) == want, text


def test_corpus_cases(enc, ref):
    texts = [t for t in map(case_text, load_cases()) if not any(0xD800 <= ord(c) < 0xE000 for c in t)]
    assert_same(enc, ref, texts)
    text = (CORPUS / "taylorswift.txt").read_text(encoding="utf-8")
    assert enc.encode_ordinary(text) == ref_ids(ref, text)


@pytest.mark.parametrize("text", [" " * 50_000, "7" * 50_000, "é" * 20_000, "x" * 150, "x" * 20_000,
                                  "".join(random.Random(9).choices("abcdefghijklmnopqrstuvwxyz ", k=50_000))])
def test_long_runs(enc, ref, text):
    """Including words past WordPiece's 100-character limit, which become one [UNK]."""
    assert enc.encode_ordinary(text) == ref_ids(ref, text)


def test_special_token_strings_as_text_and_allowed(enc, ref):
    text = "[CLS] hello [SEP] [MASK]x[PAD] [UNK] [unused7]"
    assert enc.encode_ordinary(text) == ref_ids(ref, text)
    with pytest.raises(ValueError, match="disallowed special token"):
        enc.encode(text)
    assert enc.encode("a [MASK] b", allowed_special="all") == [1037, 103, 1038]


def test_wordpiece_pieces_and_unused_slots(enc):
    ids = enc.encode_ordinary("Tokenization unbelievable")
    assert [enc.stored_piece(i) for i in ids] == ["token", "##ization", "unbelievable"]
    assert enc.stored_piece(1) == "[unused0]" and enc.stored_piece(998) == "[unused993]"
    assert enc.decode(ids) == "tokenization unbelievable"  # uncased: lower-cased, accents stripped


@settings(max_examples=150, deadline=None)
@given(text=st.text(alphabet=st.characters(codec="utf-8"), max_size=100))
def test_hypothesis(enc, ref, text):
    assert enc.encode_ordinary(text) == ref_ids(ref, text)


@pytest.mark.heavy
def test_every_bmp_code_point_in_context(enc, ref):
    assert_every_bmp_code_point("bert-base-uncased", enc.encode_ordinary, tokenizers_reference(ref))
