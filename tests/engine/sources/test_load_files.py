"""engine.sources.uploads.load_files: the kind of one or two files read from their content -- a GPT-2 vocab.json +
merges.txt pair (GPT-2's own files) equal to tiktoken's gpt2, a BERT vocab.txt equal to tokenizers' BertWordPiece,
and files that are no whole tokenizer named."""
from __future__ import annotations

import gzip
import json

import pytest

import engine
from engine.errors import WrongFileKindError
from engine.formats.file_kinds import KIND_TITLES
from engine.formats.tiktoken_files import DATA_DIR
from engine.formats.limits import TokenizerTooLargeError
from engine.formats.vocab_files import is_uncased, wordpiece_root
from engine.sources.uploads import detect_files, load_files

VOCAB_JSON = gzip.decompress((DATA_DIR / "gpt2_encoder.json.gz").read_bytes())
MERGES_TXT = gzip.decompress((DATA_DIR / "gpt2_vocab.bpe.gz").read_bytes())
BERT_VOCAB = "\n".join(["[PAD]", "[unused0]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "!", ",", ".", "a", "b", "e", "h", "l",
                        "o", "r", "t", "u", "n", "s", "the", "hello", "token", "##s", "##ize", "##r", "##iz", "##ation",
                        "##l", "##o", "un", "##believ", "##able", "world", "é", "##é"]).encode() + b"\n"


def test_detection_reads_the_content_not_the_name():
    assert detect_files([("whatever.bin", VOCAB_JSON), ("x", MERGES_TXT)]) == "vocab.json + merges.txt"
    assert detect_files([("merges.txt", MERGES_TXT), ("vocab.json", VOCAB_JSON)]) == "vocab.json + merges.txt"
    assert detect_files([("notes.txt", BERT_VOCAB)]) == "vocab.txt"
    assert detect_files([("a.bin", b"GGUF\x03\x00\x00\x00" + b"\x00" * 16)]) == "gguf"
    with pytest.raises(WrongFileKindError, match="upload it together with its merges.txt"):
        detect_files([("vocab.json", VOCAB_JSON)])
    # several files: each named with its own kind, in a sentence that reads (it said "a.txt and b.txt is a … and a …")
    with pytest.raises(WrongFileKindError) as pair:
        detect_files([("a.txt", BERT_VOCAB), ("b.json", VOCAB_JSON)])
    assert str(pair.value) == (f"a.txt is {KIND_TITLES['vocab.txt']} and b.json is {KIND_TITLES['encoder.json']}; "
                               "together they are not a vocab.json + merges.txt pair: upload two files together only "
                               "for such a pair; otherwise one file at a time")
    with pytest.raises(ValueError) as three:
        detect_files([("a.txt", BERT_VOCAB), ("b.txt", BERT_VOCAB), ("c.txt", BERT_VOCAB)])
    assert str(three.value) == ("3 files were given together (a.txt, b.txt, c.txt): upload one tokenizer file, or two "
                                "for a vocab.json + merges.txt pair, and remove the others")
    with pytest.raises(WrongFileKindError, match="tokenizer_config.json"):
        detect_files([("tokenizer_config.json", json.dumps({"tokenizer_class": "BertTokenizer"}).encode())])
    with pytest.raises(TokenizerTooLargeError, match="limit for a tokenizer file"):
        detect_files([("big.txt", b"[PAD]\n" * 7_000_000)])


def test_gpt2_vocab_json_and_merges_txt_equal_tiktoken_gpt2():
    enc = load_files([("vocab.json", VOCAB_JSON), ("merges.txt", MERGES_TXT)])
    gpt2 = engine.get_encoding("gpt2")
    text = "Hello, world! ünïcödé 12345 こんにちは   spaces\n\nand <|endoftext|> as text"
    assert enc.encode_ordinary(text) == gpt2.encode_ordinary(text)
    assert enc.n_vocab == 50257 and enc.decode(enc.encode_ordinary(text)) == text


def test_a_bert_vocab_txt_is_a_bert_wordpiece_tokenizer():
    tokenizers = pytest.importorskip("tokenizers")
    root = wordpiece_root(BERT_VOCAB)
    assert root["normalizer"]["lowercase"] is True and root["model"]["unk_token"] == "[UNK]"
    ours = tokenizers.Tokenizer.from_str(json.dumps(root))
    reference = tokenizers.BertWordPieceTokenizer({t: i for i, t in enumerate(BERT_VOCAB.decode().split("\n")[:-1])},
                                                  lowercase=True)
    for text in ("Hello, tokenizers! unbelievable", "The WORLD-ization é É", "a\tb  c"):
        assert ours.encode(text).ids == reference.encode(text).ids
    enc = load_files([("vocab.txt", BERT_VOCAB)])  # the engine's own WordPiece, through the same JSON tree
    for text in ("Hello, tokenizers! unbelievable", "The WORLD-ization é É"):
        assert enc.encode_ordinary(text) == ours.encode(text, add_special_tokens=False).ids


def test_casing_is_read_from_the_vocabulary():
    assert is_uncased(["[PAD]", "[UNK]", "hello", "##s"])
    assert not is_uncased(["[PAD]", "[UNK]", "Hello"])


def test_a_million_line_vocab_txt_is_refused_before_it_is_split():
    with pytest.raises(TokenizerTooLargeError, match="1,000,001 vocabulary lines"):
        wordpiece_root(b"a\n" * 1_000_001)


def test_a_crafted_merges_txt_is_refused_before_it_is_split():
    from engine.formats.limits import MAX_MERGES
    from engine.formats.vocab_files import byte_level_bpe_root

    with pytest.raises(TokenizerTooLargeError, match="merge lines"):
        byte_level_bpe_root(VOCAB_JSON, b"a b\n" * (MAX_MERGES + 1))


def test_a_gguf_vocabulary_loads_by_its_content():
    from tests.reference_packages import member

    data = member("llama-cpp-python", "llama_cpp_python-0.3.36/vendor/llama.cpp/models/ggml-vocab-llama-spm.gguf")
    assert detect_files([("model.bin", data)]) == "gguf"
    enc = load_files([("ggml-vocab-llama-spm.gguf", data)])
    assert enc.n_vocab == 32_000 and enc.encode_ordinary("Hello world") == [15043, 3186]  # llama.cpp's .out vectors
    assert enc.name.startswith("ggml-vocab-llama-spm-")


def test_a_json_upload_is_parsed_once(monkeypatch):
    """Detection parses a JSON file to tell which kind it is; loading builds from that parse (Gemma 3's
    33 MB tokenizer.json costs a second or more per parse)."""
    from engine.sources import uploads

    calls = []
    real = uploads.load_json_bounded

    def counted(data, **kw):
        calls.append(kw.get("name"))
        return real(data, **kw)

    monkeypatch.setattr(uploads, "load_json_bounded", counted)
    root = wordpiece_root(BERT_VOCAB)
    enc = load_files([("tokenizer.json", json.dumps(root).encode())])
    assert enc.encode_ordinary("hello world") == load_files([("vocab.txt", BERT_VOCAB)]).encode_ordinary("hello world")
    assert calls == ["tokenizer.json"]
