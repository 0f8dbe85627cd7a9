"""engine.formats.file_kinds: an upload's message says first what the file is (read from its content) and whether its model
type is supported -- not the first component the parser happens to refuse."""
from __future__ import annotations

import base64
import io
import json
import struct
import sys
from pathlib import Path

import pytest

import engine
from engine.errors import UnsupportedModelError, WrongFileKindError
from engine.formats.file_kinds import describe_json, sniff
from engine.sources.uploads import load_tokenizer
from tests.engine.formats.test_limits_crafted_files import byte_level_json

tokenizers = pytest.importorskip("tokenizers")
SITE = Path(sys.prefix) / "lib" / f"python{sys.version_info.major}.{sys.version_info.minor}" / "site-packages"
LLAMA3_MODEL = SITE / "llama_models" / "llama3" / "tokenizer.model"


def _bert_wordpiece() -> bytes:
    from tokenizers import Tokenizer, decoders, models, normalizers, pre_tokenizers

    vocab = {t: i for i, t in enumerate(["[PAD]", "[UNK]", "[CLS]", "[SEP]", "hello", "world", "##s"])}
    tok = Tokenizer(models.WordPiece(vocab, unk_token="[UNK]"))
    tok.normalizer = normalizers.BertNormalizer(lowercase=True)
    tok.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    tok.decoder = decoders.WordPiece()
    return tok.to_str().encode()


def _unigram_metaspace() -> bytes:
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers

    tok = Tokenizer(models.Unigram([("<unk>", 0.0), ("▁hello", -1.0), ("▁world", -2.0), ("o", -3.0)], unk_id=0))
    tok.pre_tokenizer = pre_tokenizers.Metaspace()
    tok.decoder = decoders.Metaspace()
    return tok.to_str().encode()


def _wordlevel() -> bytes:
    from tokenizers import Tokenizer, models, pre_tokenizers

    tok = Tokenizer(models.WordLevel({"[UNK]": 0, "hello": 1}, unk_token="[UNK]"))
    tok.pre_tokenizer = pre_tokenizers.Whitespace()
    return tok.to_str().encode()


def _llama2_style_bpe() -> bytes:
    """BPE as Llama 2 / Mistral 7B's tokenizer.json writes it: Metaspace, byte fallback, ▁ for spaces."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers

    vocab = {"<unk>": 0, **{f"<0x{b:02X}>": 1 + b for b in range(256)}, "▁": 257, "h": 258, "▁h": 259}
    tok = Tokenizer(models.BPE(vocab, [("▁", "h")], unk_token="<unk>", byte_fallback=True, fuse_unk=True))
    tok.pre_tokenizer = pre_tokenizers.Metaspace(replacement="▁", prepend_scheme="first")
    tok.decoder = decoders.Sequence([decoders.Replace("▁", " "), decoders.ByteFallback(), decoders.Fuse()])
    return tok.to_str().encode()


@pytest.mark.parametrize("build,model", [
    (_bert_wordpiece, "WordPiece"), (_unigram_metaspace, "Unigram"), (_wordlevel, "WordLevel"),
    (_llama2_style_bpe, "BPE"),
])
def test_every_model_type_of_tokenizers_is_passed_to_the_loader(build, model):
    found = describe_json(json.loads(build()))
    assert (found.kind, found.model, found.supported) == ("tokenizer.json", model, True)


def test_an_unknown_model_type_says_what_it_is_first():
    root = json.loads(_wordlevel())
    root["model"]["type"] = "Fancy"
    assert describe_json(root).supported is False
    with pytest.raises(ValueError, match=r"tokenizer.json: \$.model.type: .*'Fancy'") as info:
        load_tokenizer("tokenizer.json", ("tokenizer.json", json.dumps(root).encode()))
    assert "Whitespace" not in str(info.value)


# ------------------------------------------------------------------ a rank file named tokenizer.model
def test_llama3_tokenizer_model_picked_as_sentencepiece_loads_as_llama3():
    if not LLAMA3_MODEL.exists():
        pytest.skip("llama-models is not installed")
    enc = load_tokenizer("sentencepiece", ("tokenizer.model", LLAMA3_MODEL.read_bytes()))
    llama3 = engine.get_encoding("llama3")
    text = "Hello, world! ünïcödé 12345 <|eot_id|>"
    assert enc.n_vocab == llama3.n_vocab == 128_256
    assert enc.encode(text, allowed_special="all") == llama3.encode(text, allowed_special="all")
    assert "llama3" in enc.name


def test_unknown_rank_file_picked_as_sentencepiece_says_what_it_is():
    data = engine.formats.tiktoken_files.dump_tiktoken_bpe({bytes([b]): b for b in range(256)})
    with pytest.raises(WrongFileKindError) as info:
        load_tokenizer("sentencepiece", ("tokenizer.model", data))
    message = str(info.value)
    assert message.startswith("tokenizer.model is a tiktoken rank file ('<base64 token> <rank>' lines), 256 lines, "
                              "not a SentencePiece .model file")
    assert "upload it as 'tiktoken rank file'" in message and "wire type" not in message
    with pytest.raises(WrongFileKindError, match="is a tiktoken rank file"):  # the engine's own loader too
        engine.families.sentencepiece.encoding.load_sentencepiece_model(data, source="tokenizer.model")


# ------------------------------------------------------------------ other kinds, by content
def _tekken() -> bytes:
    vocab = [{"rank": i, "token_bytes": base64.b64encode(bytes([i])).decode(), "token_str": None} for i in range(256)]
    return json.dumps({"config": {"pattern": r"\S+|\s+", "default_vocab_size": 266, "default_num_special_tokens": 10,
                                  "version": "v3"}, "vocab": vocab}).encode()


GGUF = b"GGUF" + struct.pack("<IQQ", 3, 0, 0)


@pytest.mark.parametrize("kind,file,found,fix", [
    ("tekken", ("tokenizer.json", json.dumps(byte_level_json()).encode()), "a Hugging Face tokenizer.json",
     "'tokenizer.json (Hugging Face)'"),
    ("tokenizer.json", ("tekken.json", _tekken()), "a Mistral Tekken .json file", "'Tekken .json (Mistral)'"),
    ("sentencepiece", ("model.gguf", GGUF), "a GGUF model file (llama.cpp)", "'Any tokenizer file'"),
    ("tokenizer.json", ("model.gguf", GGUF), "a GGUF model file (llama.cpp)", "head -c 32M model.gguf"),
    ("tiktoken", ("cats.model", b"minbpe v1\n\n0\n97 98\n"), "a minbpe .model file", "'minbpe .model'"),
    ("data_gym", ("encoder.json", json.dumps({"a": 0, "b": 1}).encode()), "GPT-2's encoder.json",
     "encoder.json in the second box"),
    ("tokenizer.json", ("tokenizer_config.json", json.dumps({"tokenizer_class": "LlamaTokenizer"}).encode()),
     "a Hugging Face tokenizer_config.json", "upload the model's tokenizer.json instead"),
    ("tiktoken", ("x.tiktoken.gz", b"\x1f\x8b\x08\x00rest"), "a gzip-compressed file", "unpack it first"),
])
def test_a_file_of_another_kind_is_named(kind, file, found, fix):
    with pytest.raises(WrongFileKindError) as info:
        load_tokenizer(kind, file, None)
    message = str(info.value)
    assert message.startswith(f"{file[0]} is {found}") and fix in message


def test_sniff_and_describe():
    assert sniff(GGUF).kind == "gguf"
    assert sniff(engine.formats.tiktoken_files.dump_tiktoken_bpe({b"a": 0})).kind == "tiktoken"
    assert sniff(b"#version: 0.2\na b\n").kind == "data_gym"
    assert sniff(b"\r\n\r\nminbpe v1\r\n").kind == "minbpe"
    assert describe_json(json.loads(_bert_wordpiece())).model == "WordPiece"
    assert describe_json(byte_level_json()).supported is True
    assert describe_json([{"role": "user", "content": "hi"}]).kind == "chat"
