"""`import engine as tiktoken`: every tiktoken 0.14 call the engine offers, checked against tiktoken itself.

tiktoken is the oracle, built offline from our shipped ranks (tests/oracles/oracle.py);
its own constructors in `tiktoken_ext.openai_public` are run with their
downloading loaders swapped for ours, so patterns and special-token tables
are compared with tiktoken's source of truth, not with a copy.
"""
from __future__ import annotations

import gzip
import hashlib
import json
import pickle
import random
import subprocess
import sys
import warnings
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import engine
import engine as tiktoken_like
from engine.tokenizer import batch
from engine.formats.tiktoken_files import DATA_DIR
from tests.oracles.oracle import reference, tiktoken

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT / "tests" / "data" / "corpus"
ENCODINGS = ["gpt2", "cl100k_base", "o200k_base"]
TEXT = st.text(alphabet=st.one_of(st.characters(codec="utf-8"), st.sampled_from(list(" \n\t'sé中😀1"))), max_size=40)


@pytest.fixture(scope="module")
def documents() -> list[str]:
    cases = [json.loads(line)["text"] for line in (CORPUS / "cases.jsonl").read_text(encoding="utf-8").split("\n") if line]
    taylor = (CORPUS / "taylorswift.txt").read_text(encoding="utf-8")
    lines = [line for line in taylor.splitlines() if line.strip()]
    return cases + lines[:400] + ["", " ", "<|endoftext|>"]


# ------------------------------------------------------------------ batches
@pytest.mark.parametrize("name", ENCODINGS)
def test_batches_equal_tiktoken(name, documents):
    ours, theirs = engine.get_encoding(name), reference(name)
    assert ours.encode_ordinary_batch(documents) == theirs.encode_ordinary_batch(documents)
    assert ours.encode_batch(documents, allowed_special="all") == theirs.encode_batch(documents, allowed_special="all")
    plain = [d for d in documents if "<|" not in d]
    assert ours.encode_batch(plain, num_threads=1) == theirs.encode_batch(plain, num_threads=1)
    ids = theirs.encode_batch(documents, allowed_special="all")
    ids.append([0, 1, 2, 255])  # not valid UTF-8 on its own in some encodings: decode must replace alike
    assert ours.decode_batch(ids) == theirs.decode_batch(ids)
    assert ours.decode_batch(ids, errors="ignore") == theirs.decode_batch(ids, errors="ignore")
    assert ours.decode_bytes_batch(ids) == theirs.decode_bytes_batch(ids)


def test_batch_refuses_disallowed_special_like_tiktoken():
    ours, theirs = engine.get_encoding("cl100k_base"), reference("cl100k_base")
    docs = ["fine", "also <|endoftext|> here"]
    with pytest.raises(ValueError):
        theirs.encode_batch(docs)
    with pytest.raises(engine.DisallowedSpecialTokenError) as info:
        ours.encode_batch(docs)
    assert info.value.token == "<|endoftext|>"
    assert ours.encode_batch(docs, disallowed_special=()) == theirs.encode_batch(docs, disallowed_special=())
    allowed = {"<|endoftext|>"}
    assert ours.encode_batch(docs, allowed_special=allowed) == theirs.encode_batch(docs, allowed_special=allowed)


def test_small_batches_stay_in_process_large_ones_use_workers(documents):
    assert batch.workers_for(documents, 8) == 1  # ~100 kB: serial
    big = documents * 6
    assert sum(map(len, big)) >= batch.PARALLEL_MIN_CHARS
    assert batch.workers_for(big, 1) == 1
    assert batch.workers_for(big, 8) == min(8, batch.cpu_count())


@pytest.mark.heavy
@pytest.mark.skipif(batch.cpu_count() < 2, reason="one CPU: batches are always serial")
def test_large_batch_in_worker_processes_equals_tiktoken(documents):
    big = [d + f" #{i}" for i, d in enumerate(documents * 6)]
    for name in ["cl100k_base"]:
        ours, theirs = engine.get_encoding(name), reference(name)
        assert batch.workers_for(big, 2) == 2
        parallel = batch.encode_parallel(ours, big, frozenset(ours.special_tokens_set), 2)  # the pool itself, no serial fallback
        assert parallel == theirs.encode_batch(big, allowed_special="all")
        assert ours.encode_ordinary_batch(big, num_threads=2) == theirs.encode_ordinary_batch(big)
    trained = quiet_train("abcabcabd " * 50, 270, ["<|x|>"])
    docs = ["abcab <|x|> abd"] * 16
    assert batch.encode_parallel(trained, docs, frozenset({"<|x|>"}), 2) == trained.encode_batch(
        docs, allowed_special="all", num_threads=1)


# -------------------------------------------------------- decode_with_offsets
@pytest.mark.parametrize("name", ENCODINGS)
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=TEXT)
def test_decode_with_offsets_equals_tiktoken(name, text):
    ours, theirs = engine.get_encoding(name), reference(name)
    ids = theirs.encode(text, disallowed_special=())
    assert ours.decode_with_offsets(ids) == theirs.decode_with_offsets(ids)


def test_decode_with_offsets_inside_a_character_and_invalid_utf8():
    ours, theirs = engine.get_encoding("cl100k_base"), reference("cl100k_base")
    ids = theirs.encode("我非常渴望与人工智能一起工作")  # tokens split characters
    assert ours.decode_with_offsets(ids) == theirs.decode_with_offsets(ids)
    assert ours.decode_with_offsets(ids)[1][:3] == [0, 1, 2]
    partial = [ours.encode_single_token(b"\xe6")]
    with pytest.raises(UnicodeDecodeError):
        theirs.decode_with_offsets(partial)
    with pytest.raises(UnicodeDecodeError):
        ours.decode_with_offsets(partial)


# ------------------------------------------------------------ raw bytes
RAW = st.one_of(
    st.binary(max_size=40),
    st.tuples(TEXT, st.binary(max_size=4)).map(lambda tb: tb[0].encode("utf-8") + tb[1]),
    TEXT.map(lambda t: t.encode("utf-8")[:-1]),  # truncated inside a character
)


@pytest.mark.parametrize("name", ENCODINGS)
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=RAW)
def test_encode_bytes_equals_tiktoken(name, data):
    ours, theirs = engine.get_encoding(name), reference(name)
    ids = ours._encode_bytes(data)
    assert ids == theirs._encode_bytes(data)
    assert ours.decode_bytes(ids) == data


@pytest.mark.parametrize("data", [b"", b"\xff", b"\xffhello world", b"hello world  \n\xe4\xb8", b"a\n\n \xff", b"  \xff",
                                  b"<|endoftext|>\x80", b"\xe4\xb8\xad" * 3 + b"\xe4"])
def test_encode_bytes_edge_cases(data):
    for name in ENCODINGS:
        assert engine.get_encoding(name)._encode_bytes(data) == reference(name)._encode_bytes(data)


@pytest.mark.parametrize("name", ENCODINGS)
@settings(max_examples=100, deadline=None)
@given(data=st.one_of(st.binary(max_size=30), TEXT))
def test_single_piece_and_native_bpe_equal_tiktoken(name, data):
    ours, theirs = engine.get_encoding(name), reference(name)
    if not data:  # tiktoken 0.14 panics (a Rust slice error) on an empty piece; we return []
        assert ours._encode_single_piece(data) == []
        return
    assert ours._encode_single_piece(data) == theirs._encode_single_piece(data)
    if isinstance(data, str):
        text = engine.text.repair_surrogates(data)
        assert ours._encode_only_native_bpe(text) == theirs._encode_only_native_bpe(text)


# ------------------------------------------------------- encode_with_unstable
@pytest.mark.parametrize("name", ENCODINGS)
@pytest.mark.parametrize("text", ["hello fanta", "hello fant", "hello ", "a\n\n", " ", "", "x <|endoftext|>",
                                  "1234", "élan", "中文", "tokeniz",
                                  # a last piece of white space is completed by every token starting with a
                                  # space: ~100,000 re-encodings in o200k (minutes in pure Python)
                                  pytest.param("hello world  \n ", marks=pytest.mark.slow)])
def test_encode_with_unstable_equals_tiktoken(name, text):
    ours, theirs = engine.get_encoding(name), reference(name)
    stable, completions = ours.encode_with_unstable(text, allowed_special="all")
    ref_stable, ref_completions = theirs.encode_with_unstable(text, allowed_special="all")
    assert stable == ref_stable
    assert sorted(map(tuple, completions)) == sorted(map(tuple, ref_completions))


@pytest.mark.heavy
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=st.text(alphabet=st.sampled_from(list("ab \n\t'é1")), max_size=8))
def test_encode_with_unstable_generated_equals_tiktoken(text):
    ours, theirs = engine.get_encoding("gpt2"), reference("gpt2")
    stable, completions = ours.encode_with_unstable(text)
    ref_stable, ref_completions = theirs.encode_with_unstable(text)
    assert stable == ref_stable
    assert sorted(map(tuple, completions)) == sorted(map(tuple, ref_completions))


def test_encode_with_unstable_refuses_disallowed_special():
    with pytest.raises(engine.DisallowedSpecialTokenError):
        engine.get_encoding("cl100k_base").encode_with_unstable("<|endoftext|>")


# ------------------------------------------------------------------- numpy
def test_encode_to_numpy_equals_tiktoken():
    np = pytest.importorskip("numpy")
    ours, theirs = engine.get_encoding("o200k_base"), reference("o200k_base")
    text = "hello <|endoftext|> world 😀"
    mine, ref = ours.encode_to_numpy(text, allowed_special="all"), theirs.encode_to_numpy(text, allowed_special="all")
    assert mine.dtype == ref.dtype == np.uint32
    assert mine.tolist() == ref.tolist()
    with pytest.raises(engine.DisallowedSpecialTokenError):
        ours.encode_to_numpy(text)


def test_encode_to_numpy_without_numpy_says_so(monkeypatch):
    monkeypatch.setitem(sys.modules, "numpy", None)  # import numpy now raises ImportError
    with pytest.raises(ModuleNotFoundError, match="needs numpy.*encode\\(\\)"):
        engine.get_encoding("gpt2").encode_to_numpy("hi")


def test_import_engine_does_not_import_numpy():
    code = "import sys, engine; engine.get_encoding('gpt2').encode('x'); assert 'numpy' not in sys.modules"
    subprocess.run([sys.executable, "-c", code], cwd=ROOT, check=True)


# ---------------------------------------------------------------- pickling
def quiet_train(text: str, vocab_size: int, specials=None) -> engine.Encoding:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", engine.TrainingStoppedEarly)
        return engine.train_bpe(text, vocab_size, pat_str=engine.tokenizer.patterns.CL100K_PAT_STR, special_tokens=specials)


def uploaded() -> engine.Encoding:
    """An encoding built from a rank table (like an upload), not registered."""
    ranks = engine.formats.tiktoken_files.parse_tiktoken_bpe(engine.formats.tiktoken_files.dump_tiktoken_bpe(dict(engine.get_encoding("gpt2").mergeable_ranks)))
    return engine.Encoding("my-upload", pat_str=engine.tokenizer.patterns.R50K_PAT_STR, mergeable_ranks=ranks,
                           special_tokens={"<|endoftext|>": 50256})


@pytest.mark.parametrize("name", engine.list_tokenizer_names())
def test_builtin_pickles_by_name(name):
    enc = engine.get_encoding(name)
    data = pickle.dumps(enc)
    assert len(data) < 200 and name.encode() in data
    assert pickle.loads(data) is enc
    import copy
    assert copy.deepcopy(enc) is enc and copy.copy(enc) is enc


def test_trained_and_uploaded_pickle_by_data_and_rebuild_lock_and_caches():
    import copy

    trained = quiet_train("hello world, hello tokens " * 20, 280, ["<|end|>"])
    for enc in [trained, uploaded()]:
        text = "hello world <|end|> tokens" if enc is trained else "hello world tokens"
        ids = enc.encode(text, allowed_special="all")
        for clone in [pickle.loads(pickle.dumps(enc)), copy.deepcopy(enc)]:
            assert clone is not enc and type(clone) is engine.Encoding
            assert clone.name == enc.name and clone.pat_str == enc.pat_str
            assert dict(clone.mergeable_ranks) == dict(enc.mergeable_ranks)
            assert dict(clone.special_tokens) == dict(enc.special_tokens)
            assert clone.uses_pair_merges == enc.uses_pair_merges
            assert clone.encode(text, allowed_special="all") == ids and clone.decode(ids) == text
            assert clone._lock is not enc._lock and clone._cache is not enc._cache
            assert clone.merges == enc.merges
    clone = pickle.loads(pickle.dumps(trained))
    assert clone.training == trained.training and clone.training is not None


def test_minbpe_model_pickles(tmp_path):
    enc = quiet_train("aaabdaaabac " * 10, 262, ["<|endoftext|>"])
    loaded = engine.formats.minbpe.parse_minbpe_model(engine.formats.minbpe.dump_minbpe_model(enc))
    clone = pickle.loads(pickle.dumps(loaded))
    assert clone.merges == enc.merges and clone.encode("aaab <|endoftext|>", allowed_special="all") == enc.encode(
        "aaab <|endoftext|>", allowed_special="all")


def _encode_in_worker(enc: engine.Encoding, text: str) -> tuple[str, list[int]]:
    return enc.name, enc.encode(text, allowed_special="all")


def test_encodings_cross_a_process_pool():
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    text = "hello world <|endoftext|> tokens"
    encs = [engine.get_encoding("cl100k_base"), engine.get_encoding("o200k_harmony"),
            quiet_train("hello world " * 20, 270, ["<|endoftext|>"]), uploaded()]
    with ProcessPoolExecutor(2, mp_context=multiprocessing.get_context("spawn")) as pool:
        results = list(pool.map(_encode_in_worker, encs, [text] * len(encs)))
    assert results == [(e.name, e.encode(text, allowed_special="all")) for e in encs]


def test_custom_encoding_pickles_like_tiktoken():
    """tiktoken's custom-encoding pickle round trip, with the same constructor arguments."""
    base = engine.get_encoding("gpt2")
    kwargs = dict(name="custom_enc", pat_str=base._pat_str, mergeable_ranks=dict(base._mergeable_ranks),
                  special_tokens={"<|endoftext|>": 50256, "<|custom|>": 50257})
    ours, theirs = engine.Encoding(**kwargs), tiktoken.Encoding(**kwargs)
    ours, theirs = pickle.loads(pickle.dumps(ours)), pickle.loads(pickle.dumps(theirs))
    text = "hello <|custom|> world"
    assert ours.encode(text, allowed_special="all") == theirs.encode(text, allowed_special="all")


# ---------------------------------------------- model names and the registry
def test_model_names_equal_tiktoken():
    import tiktoken.model as tm

    names = list(tm.MODEL_TO_ENCODING) + [p + "2024-05-13" for p in tm.MODEL_PREFIX_TO_ENCODING]
    names += ["gpt-4o-mini", "gpt-4.1-nano", "gpt-5-mini", "o3-mini", "o4-mini-2025", "gpt-oss-120b",
              "gpt-3.5-turbo-FAKE", "ft:gpt-4o:org:custom:id", "gpt-4-32k"]
    for name in names:
        assert engine.encoding_name_for_model(name) == tiktoken.encoding_name_for_model(name), name
    for name in ["gpt-4o", "gpt-4.1", "gpt-5", "o1", "o3", "o4-mini"]:
        assert engine.encoding_for_model(name) is engine.get_encoding("o200k_base")
    for name in ["gpt-4", "gpt-3.5-turbo", "text-embedding-3-small"]:
        assert engine.encoding_for_model(name) is engine.get_encoding("cl100k_base")
    assert engine.encoding_for_model("gpt-oss-20b") is engine.get_encoding("o200k_harmony")


@pytest.mark.parametrize("model,encoding", [
    ("Llama-3.1-8B", "llama3"), ("meta-llama/Llama-3.1-8B-Instruct", "llama3"), ("Meta-Llama-3-70B", "llama3"),
    ("llama3.2:1b", "llama3"), ("Llama-3.3-70B-Instruct", "llama3"),
    ("meta-llama/Llama-4-Scout-17B-16E-Instruct", "llama4"), ("llama4", "llama4"),
    ("Qwen/Qwen2.5-7B-Instruct", "qwen2.5"), ("Qwen1.5-7B", "qwen2.5"), ("qwen2-7b", "qwen2.5"), ("Qwen3-8B", "qwen2.5"),
    ("Qwen/Qwen3.5-27B", "qwen3.6"), ("qwen3.6", "qwen3.6"),
    ("mistralai/Mistral-Nemo-Instruct-2407", "mistral-tekken"), ("open-mistral-nemo", "mistral-tekken"),
    ("tekken", "mistral-tekken"),
    ("mistralai/Mistral-7B-v0.1", "mistral-v1"), ("Mistral-7B-Instruct-v0.2", "mistral-v1"),
    ("Mistral-7B-Instruct-v0.3", "mistral-v3"),
    ("deepseek-ai/DeepSeek-V4", "deepseek-v4"), ("DeepSeek-V4-Base", "deepseek-v4"),
])
def test_open_model_names(model, encoding):
    assert engine.encoding_name_for_model(model) == encoding


@pytest.mark.parametrize("model", ["llama-30b", "Llama-2-7b", "Qwen-7B", "Mistral-7B-v0.4", "deepseek-v2", "gpt4o", ""])
def test_unknown_models_raise_key_error_with_suggestions(model):
    if model in ("gpt4o", ""):  # names tiktoken knows nothing about either
        with pytest.raises(KeyError):
            tiktoken.encoding_name_for_model(model)
    with pytest.raises(engine.UnknownModelError) as info:
        engine.encoding_name_for_model(model)
    assert isinstance(info.value, KeyError) and "get_encoding" in str(info.value)
    if model == "gpt4o":
        assert "gpt-4o" in info.value.suggestions and "Did you mean 'gpt-4o'" in str(info.value)


def test_registry_names_and_errors():
    assert engine.list_tokenizer_names() == ["gpt2", "r50k_base", "cl100k_base", "o200k_base", "o200k_harmony",
                                             "llama3", "llama4", "qwen2.5", "qwen3.6", "mistral-tekken",
                                             "mistral-v1", "mistral-v3", "deepseek-v4", "deepseek-v3", "glm5",
                                             "glm4", "minimax-m3", "claude-legacy", "bert-base-uncased",
                                             *engine.families.hf.builtins.installed_names()]  # gemma3 once installed
    # tiktoken's contract (every id one byte string and back): the SentencePiece models are left out
    assert engine.list_encoding_names() == [n for n in engine.list_tokenizer_names() if n not in ("mistral-v1",
                                                                                                  "mistral-v3", "gemma3", "gemma4")]
    assert not hasattr(engine, "list_encodings")  # the earlier alias is gone: one name, list_tokenizer_names
    for bad in ["p50k_base", 3]:
        with pytest.raises(engine.UnknownEncodingError) as info:
            engine.get_encoding(bad)  # type: ignore[arg-type]
        assert isinstance(info.value, ValueError) and "o200k_base" in str(info.value)


@pytest.fixture(scope="module")
def tiktoken_constructors():
    """tiktoken_ext.openai_public's constructors, with our loaders instead of its downloads."""
    public = pytest.importorskip("tiktoken_ext.openai_public")
    by_hash = {
        "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7": "cl100k_base",
        "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d": "o200k_base",
    }
    mp = pytest.MonkeyPatch()
    mp.setattr(public, "load_tiktoken_bpe",
               lambda url, expected_hash=None: dict(engine.get_encoding(by_hash[expected_hash]).mergeable_ranks))
    mp.setattr(public, "data_gym_to_mergeable_bpe_ranks",
               lambda **kwargs: dict(engine.get_encoding("gpt2").mergeable_ranks))
    yield public.ENCODING_CONSTRUCTORS
    mp.undo()


@pytest.mark.parametrize("name", ["gpt2", "cl100k_base", "o200k_base", "o200k_harmony"])
def test_patterns_and_special_tokens_equal_tiktoken_source(name, tiktoken_constructors):
    spec = tiktoken_constructors[name]()
    enc = engine.get_encoding(name)
    assert enc.pat_str == spec["pat_str"]
    assert dict(enc.special_tokens) == spec["special_tokens"]
    assert list(enc.special_tokens) == list(spec["special_tokens"])


def test_harmony_special_tokens_encode_like_tiktoken(tiktoken_constructors):
    ours = engine.get_encoding("o200k_harmony")
    theirs = tiktoken.Encoding(**tiktoken_constructors["o200k_harmony"]())
    text = "<|start|>user<|message|>What is 2+2?<|end|><|start|>assistant<|channel|>final<|message|>4<|return|>"
    assert ours.encode(text, allowed_special="all") == theirs.encode(text, allowed_special="all")
    assert ours.encode(text, disallowed_special=()) == theirs.encode(text, disallowed_special=())
    assert (ours.n_vocab, ours.max_token_value, ours.eot_token) == (theirs.n_vocab, theirs.max_token_value,
                                                                    theirs.eot_token) == (201088, 201087, 199999)
    for tid in [199998, 200000, 200005, 200012, 200013, 201087]:
        assert ours.decode_single_token_bytes(tid) == theirs.decode_single_token_bytes(tid)
    # <|endofprompt|> and <|reserved_200018|> share id 200018 in tiktoken's table
    assert ours.decode_single_token_bytes(200018) in (b"<|endofprompt|>", b"<|reserved_200018|>")
    with pytest.raises(engine.DisallowedSpecialTokenError):
        ours.encode("<|call|>")
    assert ours.encode_ordinary("hello world") == engine.get_encoding("o200k_base").encode_ordinary("hello world")


# --------------------------------------------------- loaders with paths
def test_load_tiktoken_bpe_from_a_path_like_tiktoken(tmp_path, monkeypatch):
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", "")  # tiktoken: read the path, cache nothing
    from tiktoken.load import load_tiktoken_bpe as their_load

    ranks = dict(engine.get_encoding("gpt2").mergeable_ranks)
    path = tmp_path / "gpt2.tiktoken"
    engine.formats.tiktoken_files.dump_tiktoken_bpe(ranks, str(path))
    sha = hashlib.sha256(path.read_bytes()).hexdigest()
    assert engine.formats.tiktoken_files.load_tiktoken_bpe(str(path), expected_hash=sha) == their_load(str(path), sha) == ranks
    assert engine.formats.tiktoken_files.load_tiktoken_bpe(path) == ranks  # a Path works too
    with pytest.raises(ValueError, match="Hash mismatch"):
        engine.formats.tiktoken_files.load_tiktoken_bpe(str(path), "0" * 64)
    with pytest.raises(ValueError, match="never downloads"):
        engine.formats.tiktoken_files.load_tiktoken_bpe("https://example.invalid/x.tiktoken")


def test_data_gym_loader_from_paths_like_tiktoken(tmp_path, monkeypatch):
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", "")
    from tiktoken.load import data_gym_to_mergeable_bpe_ranks as their_load

    from engine.sources.openai_public import GPT2_ENCODER_JSON, GPT2_VOCAB_BPE

    vocab, encoder = tmp_path / "vocab.bpe", tmp_path / "encoder.json"
    vocab.write_bytes(gzip.decompress((DATA_DIR / GPT2_VOCAB_BPE[0]).read_bytes()))
    encoder.write_bytes(gzip.decompress((DATA_DIR / GPT2_ENCODER_JSON[0]).read_bytes()))
    hashes = dict(vocab_bpe_hash=GPT2_VOCAB_BPE[1], encoder_json_hash=GPT2_ENCODER_JSON[1])
    ours = engine.formats.tiktoken_files.data_gym_to_mergeable_bpe_ranks(str(vocab), str(encoder), **hashes)
    assert ours == their_load(str(vocab), str(encoder), **hashes) == dict(engine.get_encoding("gpt2").mergeable_ranks)
    clobbered = engine.formats.tiktoken_files.data_gym_to_mergeable_bpe_ranks(vocab, encoder, clobber_one_byte_tokens=True)
    assert clobbered == their_load(str(vocab), str(encoder), clobber_one_byte_tokens=True)
    # also from the shipped .gz files directly
    assert engine.formats.tiktoken_files.data_gym_to_mergeable_bpe_ranks(DATA_DIR / GPT2_VOCAB_BPE[0], DATA_DIR / GPT2_ENCODER_JSON[0]) == ours


# ------------------------------------------ tiktoken user code, unchanged
def test_extending_tiktoken_readme_snippet():
    """tiktoken's README "extending tiktoken" recipe, run on both libraries."""
    results = []
    for lib, base in [(tiktoken_like, engine.get_encoding("cl100k_base")), (tiktoken, reference("cl100k_base"))]:
        enc = lib.Encoding(
            name="cl100k_im",
            pat_str=base._pat_str,
            mergeable_ranks=base._mergeable_ranks if lib is tiktoken_like else dict(base._mergeable_ranks),
            special_tokens={**base._special_tokens, "<|im_start|>": 100264, "<|im_end|>": 100265},
        )
        results.append(enc.encode("<|im_start|>hi<|im_end|>", allowed_special="all"))
    assert results[0] == results[1] == [100264, 6151, 100265]


def test_tiktoken_style_user_code_runs_unchanged():
    code = '''
import engine as tiktoken
enc = tiktoken.encoding_for_model("gpt-4o")
assert enc.name == "o200k_base" and tiktoken.encoding_name_for_model("gpt-3.5-turbo") == "cl100k_base"
assert "o200k_harmony" in tiktoken.list_encoding_names()
ids = enc.encode("hello world")
assert enc.decode(ids) == "hello world" and enc.decode_with_offsets(ids) == ("hello world", [0, 5])
assert enc.encode_batch(["a", "b"], num_threads=4) == [enc.encode("a"), enc.encode("b")]
assert enc.decode_batch(enc.encode_ordinary_batch(["x y", "z"])) == ["x y", "z"]
assert enc.decode_single_token_bytes(ids[0]) == b"hello" and enc.n_vocab == enc.max_token_value + 1
try:
    enc.encode("<|endoftext|>")
except ValueError:
    pass
else:
    raise AssertionError("special token text must be refused")
'''
    subprocess.run([sys.executable, "-c", code], cwd=ROOT, check=True)


# ---------------------------------------------------------- typed errors
def test_error_types_subclass_the_builtins():
    enc = engine.get_encoding("gpt2")
    with pytest.raises(engine.DisallowedSpecialTokenError) as info:
        enc.encode("a <|endoftext|>")
    assert isinstance(info.value, ValueError) and info.value.token == "<|endoftext|>"
    with pytest.raises(engine.UnknownTokenError) as info2:
        enc.decode([10**9])
    assert isinstance(info2.value, KeyError)
    assert engine.tokenizer.encoding.UnknownTokenError is engine.UnknownTokenError  # the old import path still works


def test_split_timeout_is_typed(monkeypatch):
    import engine.tokenizer.patterns

    monkeypatch.setattr(engine.tokenizer.patterns, "SPLIT_TIMEOUT", 0.05)
    enc = engine.Encoding("slow", pat_str=r"(a|aa)+b|\s|.", mergeable_ranks={bytes([b]): b for b in range(256)},
                          special_tokens={})
    with pytest.raises(engine.SplitTimeoutError) as info:
        enc.encode("a" * 40)
    assert isinstance(info.value, ValueError) and "single repeat" in str(info.value)


# ------------------------------------------------------ declared fields, warnings
def test_training_is_a_declared_field():
    assert "training" in engine.Encoding.__annotations__
    assert engine.get_encoding("gpt2").training is None
    enc = quiet_train("hello hello hello", 260)
    assert isinstance(enc.training, engine.TrainingReport)


def test_engine_sources_compile_without_warnings():
    """Every engine module compiles under -W error (an invalid escape is a SyntaxWarning, later an error)."""
    for path in sorted((ROOT / "engine").rglob("*.py")):
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            compile(path.read_text(encoding="utf-8"), str(path), "exec")


def test_public_names_for_the_playground():
    assert engine.formats.minbpe.render_token(b"a\nb") == "a\\u000ab"
    assert engine.tokenizer.patterns.CL100K_PAT_STR == engine.sources.openai_public.CL100K_PAT_STR
    assert engine.tokenizer.patterns.RAW_PAT_STR == r"[\s\S]+"
    assert engine.tokenizer.patterns.compile_pattern(engine.tokenizer.patterns.O200K_PAT_STR).pattern
    assert engine.tokenizer.special_tokens.check_special_tokens(["<|a|>"]) == ["<|a|>"]
    assert engine.text.is_valid_utf8("é".encode()) and not engine.text.is_valid_utf8(b"\xff")
    for name in engine.__all__:
        assert hasattr(engine, name), name
    assert engine.__all__[:5] == ["Encoding", "get_encoding", "list_encoding_names", "encoding_for_model",
                                  "encoding_name_for_model"]


def test_random_documents_batch_roundtrip():
    rng = random.Random(3)
    enc = engine.get_encoding("o200k_base")
    docs = ["".join(rng.choice("ab c\n中😀") for _ in range(rng.randrange(30))) for _ in range(50)]
    assert enc.decode_batch(enc.encode_ordinary_batch(docs)) == docs
