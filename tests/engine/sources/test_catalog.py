"""The catalog of built-in encodings, the per-family explainers (against each family's reference
library), and uploads of tokenizer.json / SentencePiece / Tekken files through `engine.load_tokenizer`."""
from __future__ import annotations

import json
import random

import pytest

import engine
from engine.explain import families as explain
from engine.sources import catalog
from engine.families.hf.builtins import BUILTIN_FILES
from engine.families.sentencepiece.encoding import BUILTIN_MODELS
from engine.formats.tiktoken_files import read_data_file
from engine.sources.uploads import MAX_FILE_BYTES, UnusableTokenizerError, load_tokenizer

TEXT = "Hello world!\nSentencePiece 🧩 and 日本語, 12345 café  spaces"


# ------------------------------------------------------------------ catalog
def test_every_encoding_is_listed_once():
    listed = [e.name for e in catalog.catalog()] + list(catalog.aliases())
    assert sorted(listed) == sorted(engine.list_tokenizer_names())
    assert [e.maker for e in catalog.catalog()] == sorted((e.maker for e in catalog.catalog()), key=catalog.MAKERS.index)
    assert set(catalog.DEFAULT_SELECTION) == {"gpt2", "cl100k_base", "o200k_base"}


@pytest.mark.parametrize("entry", catalog.catalog(), ids=lambda e: e.name)
def test_example_models_use_the_entry(entry):
    for model in entry.examples:
        assert catalog.canonical_name(engine.encoding_name_for_model(model)) == entry.name, model


def test_aliases_are_the_same_vocabulary():
    for alias, name in catalog.aliases().items():
        a, b = engine.get_encoding(alias), engine.get_encoding(name)
        assert dict(a.mergeable_ranks) == dict(b.mergeable_ranks) and a.pat_str == b.pat_str
        assert dict(a.special_tokens) == dict(b.special_tokens)
    assert catalog.entry("r50k_base").label.startswith("gpt2 = r50k_base — GPT-2")


@pytest.mark.parametrize("query, first", [
    ("gpt-4o-mini", "o200k_base"), ("meta-llama/Llama-3.1-8B", "llama3"), ("Qwen/Qwen3-8B", "qwen2.5"),
    ("davinci", "gpt2"), ("Mistral-7B-Instruct-v0.3", "mistral-v3"), ("deepseek", "deepseek-v4"), ("GPT-4.1", "o200k_base"),
])
def test_search_finds_by_model_name(query, first):
    found = catalog.search_encodings(query)
    assert found.matches and found.matches[0].name == first


def test_search_words_notes_and_own_names():
    assert [m.name for m in catalog.search_encodings("mistral").matches] == ["mistral-tekken", "mistral-v1", "mistral-v3"]
    assert [m.name for m in catalog.search_encodings("meta llama 4").matches] == ["llama4"]
    assert "p50k_base" in catalog.search_encodings("text-davinci-003").note
    assert not catalog.search_encodings("zzzz").matches and "No tokenizer" in catalog.search_encodings("zzzz").note
    assert [m.name for m in catalog.search_encodings("mytok", own=["mytok-1234abcd"]).matches] == ["mytok-1234abcd"]
    assert catalog.search_encodings("  ").matches == ()


def test_group_by_maker():
    groups = catalog.group_by_maker(["llama3", "mine-1", "gpt2", "deepseek-v4", "r50k_base"])
    assert groups == [("OpenAI", ["gpt2", "r50k_base"]), ("Meta", ["llama3"]), ("DeepSeek", ["deepseek-v4"]),
                      ("Yours", ["mine-1"])]


# ------------------------------------------------------------------ explainers
@pytest.mark.parametrize("name", [e.name for e in catalog.catalog()])
def test_family_notes_and_piece_ids_equal_encode(name):
    enc = engine.get_encoding(name)
    note = explain.family_note(enc)
    assert note.family == catalog.entry(name).family and note.merges and note.tree and note.stages
    ids: list[int] = []
    for piece in enc.pretokenize(TEXT, disallowed_special=()):
        found = explain.piece_ids(enc, piece.text)
        assert found is not None, piece
        ids += found
    assert ids == enc.encode_ordinary(TEXT)


@pytest.mark.parametrize("name", ["gpt2", "llama3", "mistral-v1", "mistral-v3", "deepseek-v4"])
def test_pair_candidates_replay_bpe(name):
    """At every step of bpe_trace, the merge made is the candidate with the best priority (leftmost on a tie)."""
    enc = engine.get_encoding(name)
    for piece in [" tokenization", " unbelievable", " Straße", "hello🧩"]:
        trace = enc.bpe_trace(piece)
        for k, step in enumerate(trace.steps):
            cands = explain.pair_candidates(enc, trace.parts_at(k))
            best = min((c.priority, i) for i, c in enumerate(cands) if c is not None)
            assert best[1] == step.position and cands[step.position].made == step.rank, (piece, k)
        assert all(c is None for c in explain.pair_candidates(enc, trace.parts_at(len(trace.steps))))


def test_sentencepiece_explainers_equal_sentencepiece():
    spm = pytest.importorskip("sentencepiece")
    for name in BUILTIN_MODELS:
        enc = engine.get_encoding(name)
        ref = spm.SentencePieceProcessor(model_proto=read_data_file(*BUILTIN_MODELS[name]))
        for i in range(enc.n_vocab):
            assert enc.stored_piece(i) == ref.id_to_piece(i)
            assert enc.is_byte_fallback(i) == ref.is_byte(i)
        for text in [TEXT, "a\nb\t🦙 ☃ ǅ"]:
            ids = ref.encode(text)
            notes = [explain.token_note(enc, i) for i in ids]
            assert [n is not None and n.kind == "byte" for n in notes] == [ref.is_byte(i) for i in ids]
            assert all(n.kind == "space" for i, n in zip(ids, notes) if n is not None and "▁" in ref.id_to_piece(i)
                       and not ref.is_byte(i))
            assert [t.id for t in enc.tokenize(text)] == ids
        assert enc.pair_score(" t", "he") == (ref.piece_to_id("▁the"), ref.get_score(ref.piece_to_id("▁the")))
        assert enc.pair_score("q", "🧩") is None


def test_tokenizer_json_explainers_equal_tokenizers():
    tokenizers = pytest.importorskip("tokenizers")
    raw = read_data_file(*BUILTIN_FILES["deepseek-v4"].json)
    ref = tokenizers.Tokenizer.from_str(raw.decode("utf-8"))
    enc = engine.get_encoding("deepseek-v4")
    rng = random.Random(4)
    for i in rng.sample(range(enc.n_vocab), 3000) + [0, enc.n_vocab - 1]:
        assert enc.stored_piece(i) == ref.id_to_token(i)
    merges = json.loads(raw)["model"]["merges"]
    for rank in [0, 1, 100, 5000, len(merges) - 1]:
        left, right = merges[rank].split(" ") if isinstance(merges[rank], str) else merges[rank]
        assert enc.pair_rank(ref.token_to_id(left), ref.token_to_id(right)) == rank
        assert enc.merged_by(rank) == ref.token_to_id(left + right)
    note = explain.token_note(enc, ref.token_to_id("Ġthe"))
    assert note.kind == "stored" and "Ġthe" in note.text
    stages = [s.name for s in explain.family_note(enc).stages]
    assert stages[:2] == ["Added tokens", "Normalize"] and stages[-1] == "ByteLevel" and len(stages) == 6


def test_no_tree_reason_for_whole_piece_tokens():
    llama = engine.get_encoding("llama3")
    tid = next(iter(llama.whole_piece_tokens))
    assert "no merge makes it" in explain.no_tree_reason(llama, tid)
    assert explain.no_tree_reason(llama, llama.encode_single_token(" the")) is None
    assert explain.token_note(llama, 5) is None and not explain.has_token_notes(llama)


# ------------------------------------------------------------------ uploads
def test_upload_sentencepiece_and_tokenizer_json():
    sp = read_data_file(*BUILTIN_MODELS["mistral-v1"])
    enc = load_tokenizer("sentencepiece", ("tokenizer.model.v1", sp))
    assert enc.name.startswith("tokenizer-model-") and enc.encode_ordinary(TEXT) == engine.get_encoding("mistral-v1").encode_ordinary(TEXT)
    raw = read_data_file(*BUILTIN_FILES["deepseek-v4"].json)
    hf = load_tokenizer("tokenizer.json", ("deepseek/tokenizer.json", raw))
    assert hf.name.startswith("tokenizer-") and hf.encode_ordinary(TEXT) == engine.get_encoding("deepseek-v4").encode_ordinary(TEXT)


def _tekken(n: int = 300, missing: int | None = None) -> bytes:
    import base64

    vocab = [{"rank": i, "token_bytes": base64.b64encode(b"zz" if i == missing else bytes([i])).decode(),
              "token_str": None} for i in range(256)]
    vocab += [{"rank": len(vocab) + i, "token_bytes": base64.b64encode(b"ab" + bytes([i])).decode(), "token_str": None}
              for i in range(n - len(vocab))]
    cfg = {"pattern": r"\S+|\s+", "default_vocab_size": n + 30, "default_num_special_tokens": 30,
           "num_vocab_tokens": n, "version": "v3"}
    return json.dumps({"config": cfg, "vocab": vocab}).encode()


def test_upload_tekken_and_its_checks():
    enc = load_tokenizer("tekken", ("tekken_small.json", _tekken()))
    assert enc.encode_ordinary("ab\x05") == [256 + 5 + 30] and enc.name.startswith("tekken_small-")
    with pytest.raises(ValueError, match="not the single byte its rank requires"):
        load_tokenizer("tekken", ("tekken_gap.json", _tekken(missing=65)))
    gap = engine.formats.tiktoken_files.dump_tiktoken_bpe({bytes([b]): r for r, b in enumerate(b for b in range(256) if b != 65)})
    with pytest.raises(UnusableTokenizerError, match="1 of the bytes that occur in UTF-8 text have no token"):
        load_tokenizer("tiktoken", ("gap.tiktoken", gap))
    huge = json.loads(_tekken())
    huge["vocab"].append({"rank": 300, "token_bytes": "QUFB" * 2000, "token_str": None})
    with pytest.raises(engine.TokenizerTooLargeError, match="4,096 bytes per token"):
        load_tokenizer("tekken", ("tekken_huge.json", json.dumps(huge).encode()))


def test_upload_checks_size_kind_and_format():
    with pytest.raises(engine.TokenizerTooLargeError, match="limit for a tokenizer file"):
        load_tokenizer("tokenizer.json", ("big.json", b" " * (MAX_FILE_BYTES + 1)))
    with pytest.raises(ValueError, match="unknown tokenizer file kind"):
        load_tokenizer("bpe", ("x", b""))
    with pytest.raises(ValueError, match="not a SentencePiece .model"):
        load_tokenizer("sentencepiece", ("x.model", b"garbage"))
    with pytest.raises(ValueError, match="not valid JSON"):
        load_tokenizer("tokenizer.json", ("t.json", b"{nope"))
    many = {"model": {"type": "BPE", "vocab": {f"t{i}": i for i in range(300_001)}, "merges": []}}
    with pytest.raises(engine.TokenizerTooLargeError, match="300,001 vocabulary entries"):
        load_tokenizer("tokenizer.json", ("many.json", json.dumps(many).encode()))
