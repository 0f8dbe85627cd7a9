"""The general tokenizer.json pipeline (`HfPipelineEncoding`): normalizer -> pre-tokenizer -> model ->
post-processor -> decoder on small BERT-, T5-, WordLevel- and Gemma-style files built here, against Hugging Face
`tokenizers`: ids, character offsets into the caller's text (also through normalizers), decode, and the ids
with special tokens added."""
from __future__ import annotations

import functools
import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tokenizers import Tokenizer

from engine.families.hf.encoding import HfEncoding
from engine.families.hf.load import load_tokenizer_json
from engine.families.hf.general import HfPipelineEncoding
from engine.sources.catalog import FAMILIES

WORDS = ["hello", "world", "un", "##aff", "##able", "the", "##s", "cafe", "##é", "naive", "##ly", "a", "##b", "!", ",",
         "'", "s", "中", "文", "x", "##x"]


def _file(model, normalizer=None, pre_tokenizer=None, decoder=None, post_processor=None, added=()):
    return json.dumps({"version": "1.0", "truncation": None, "padding": None, "added_tokens": list(added),
                       "normalizer": normalizer, "pre_tokenizer": pre_tokenizer, "post_processor": post_processor,
                       "decoder": decoder, "model": model})


def _added(tid, content, special=True, normalized=False):
    return {"id": tid, "content": content, "single_word": False, "lstrip": False, "rstrip": False,
            "normalized": normalized, "special": special}


BERT = _file(
    {"type": "WordPiece", "unk_token": "[UNK]", "continuing_subword_prefix": "##", "max_input_chars_per_word": 100,
     "vocab": {w: i for i, w in enumerate(["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", *WORDS])}},
    {"type": "BertNormalizer", "clean_text": True, "handle_chinese_chars": True, "strip_accents": None, "lowercase": True},
    {"type": "BertPreTokenizer"}, {"type": "WordPiece", "prefix": "##", "cleanup": True},
    {"type": "BertProcessing", "sep": ["[SEP]", 3], "cls": ["[CLS]", 2]},
    [_added(0, "[PAD]"), _added(1, "[UNK]"), _added(2, "[CLS]"), _added(3, "[SEP]"), _added(4, "[MASK]")])

UNI_VOCAB = [["<pad>", 0.0], ["</s>", 0.0], ["<unk>", 0.0], ["▁", -2.0], ["▁hello", -5.0], ["▁world", -5.5],
             ["h", -4.0], ["e", -4.0], ["l", -4.0], ["o", -4.0], ["w", -4.1], ["r", -4.2], ["d", -4.3], ["▁he", -4.5],
             ["llo", -4.6], ["▁the", -3.0], ["s", -3.5], ["é", -6.0], ["<0xE4>", -9.0], ["<0xB8>", -9.0], ["<0xAD>", -9.0]]
T5 = _file({"type": "Unigram", "unk_id": 2, "vocab": UNI_VOCAB, "byte_fallback": False},
           {"type": "Sequence", "normalizers": [{"type": "NFKC"}, {"type": "Replace", "pattern": {"Regex": " {2,}"}, "content": " "}]},
           {"type": "Metaspace", "replacement": "▁", "prepend_scheme": "always", "split": True},
           {"type": "Metaspace", "replacement": "▁", "prepend_scheme": "always", "split": True},
           {"type": "TemplateProcessing", "single": [{"Sequence": {"id": "A", "type_id": 0}}, {"SpecialToken": {"id": "</s>", "type_id": 0}}],
            "pair": [{"Sequence": {"id": "A", "type_id": 0}}, {"Sequence": {"id": "B", "type_id": 1}}], "special_tokens": {"</s>": {"id": "</s>", "ids": [1], "tokens": ["</s>"]}}},
           [_added(0, "<pad>"), _added(1, "</s>"), _added(2, "<unk>")])
UNI_BF = T5.replace('"byte_fallback": false', '"byte_fallback": true')

WORDLEVEL = _file({"type": "WordLevel", "vocab": {"<unk>": 0, "hello": 1, "world": 2, "!": 3}, "unk_token": "<unk>"},
                  {"type": "Lowercase"}, {"type": "Whitespace"})

GEMMA_VOCAB = ["<pad>", "<eos>", "<bos>", "<unk>", *[f"<0x{b:02X}>" for b in range(256)], "▁", "h", "e", "l", "o", "▁h",
               "he", "ll", "▁he", "llo", "▁hello", "w", "r", "d", "▁w", "▁wo", "rl", "rld", "▁world", "d▁", "<start>"]
GEMMA = _file({"type": "BPE", "dropout": None, "unk_token": "<unk>", "continuing_subword_prefix": None,
               "end_of_word_suffix": None, "fuse_unk": True, "byte_fallback": True, "ignore_merges": False,
               "vocab": {w: i for i, w in enumerate(GEMMA_VOCAB)},
               "merges": [["▁", "h"], ["h", "e"], ["l", "l"], ["▁h", "e"], ["ll", "o"], ["▁he", "llo"], ["▁", "w"],
                          ["▁w", "o"], ["r", "l"], ["rl", "d"], ["▁wo", "rld"], ["d", "▁"]]},
              {"type": "Replace", "pattern": {"String": " "}, "content": "▁"},
              {"type": "Split", "pattern": {"String": " "}, "behavior": "MergedWithPrevious", "invert": False},
              {"type": "Sequence", "decoders": [{"type": "Replace", "pattern": {"String": "▁"}, "content": " "},
                                                {"type": "ByteFallback"}, {"type": "Fuse"}]},
              {"type": "TemplateProcessing", "single": [{"SpecialToken": {"id": "<bos>", "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}}],
               "pair": [{"Sequence": {"id": "A", "type_id": 0}}, {"Sequence": {"id": "B", "type_id": 1}}], "special_tokens": {"<bos>": {"id": "<bos>", "ids": [2], "tokens": ["<bos>"]}}},
              [_added(0, "<pad>"), _added(1, "<eos>"), _added(2, "<bos>"), _added(3, "<unk>"),
               _added(len(GEMMA_VOCAB) - 1, "<start>", special=False)])

FILES = {"bert": BERT, "t5": T5, "unigram_byte_fallback": UNI_BF, "wordlevel": WORDLEVEL, "gemma": GEMMA}
TEXTS = ["Hello, World!", "unaffable hellos", "Café NAÏVE naively", "中文x", "  hello   world  ", "", "ﬁ ½ Ａ", "a\u0301b",
         "[CLS] hello [SEP]", "<start>hello<start> world", "hello</s>world", "tab\there\nnewline", "😀 hello 😀",
         "xxxxxxxx", "ǅ İ ß ΣΑΣ"]


@pytest.fixture(scope="module", params=list(FILES))
def pair(request):
    data = FILES[request.param]
    return Tokenizer.from_str(data), load_tokenizer_json(data, name=request.param)


def check_text(ref, ours, text):
    """Special added tokens as plain text, non-special ones recognised (tokenizers' encode_special_tokens=True,
    transformers' split_special_tokens=True); with the special ones allowed, as tokenizers' default."""
    ref.encode_special_tokens = True
    want = ref.encode(text, add_special_tokens=False)
    assert ours.encode_ordinary(text) == want.ids, text
    tokens = ours.tokenize(text, disallowed_special=())
    assert [t.id for t in tokens] == want.ids, text
    if not any(t.partial for t in tokens):
        assert [(t.char_start, t.char_end) for t in tokens] == want.offsets, text
    assert ours.decode(want.ids) == ref.decode(want.ids, skip_special_tokens=False), text
    ref.encode_special_tokens = False
    assert ours.encode(text, allowed_special="all") == ref.encode(text, add_special_tokens=False).ids, text
    assert ours.encode_for_model(text) == ref.encode(text, add_special_tokens=True).ids, text


def test_routes_to_the_general_class(pair):
    _, ours = pair
    assert isinstance(ours, HfPipelineEncoding) and not isinstance(ours, HfEncoding)
    assert ours.family in FAMILIES


def test_texts(pair):
    ref, ours = pair
    for text in TEXTS:
        check_text(ref, ours, text)


@settings(max_examples=150, deadline=None)
@given(st.lists(st.sampled_from(list("helowrd HELLO,!é中ﬁ\u0301 \t\n") + ["[CLS]", "<start>", "</s>", "▁"]),
                max_size=30).map("".join))
def test_hypothesis(text):
    for name, data in FILES.items():
        ref, ours = _loaded(name)
        check_text(ref, ours, text)


_LOADED: dict = {}


def _loaded(name):
    if name not in _LOADED:
        _LOADED[name] = (Tokenizer.from_str(FILES[name]), load_tokenizer_json(FILES[name], name=name))
    return _LOADED[name]


def test_special_added_tokens_are_plain_text_unless_allowed():
    ref, ours = _loaded("bert")
    text = "[CLS] hello"
    assert ours.encode(text, disallowed_special=()) == ours.encode_ordinary(text)
    with pytest.raises(ValueError, match=r"\[CLS\]"):
        ours.encode(text)
    assert ours.encode(text, allowed_special="all") == ref.encode(text, add_special_tokens=False).ids


def test_wordpiece_steps_and_unigram_lattice():
    _, bert = _loaded("bert")
    assert [a.candidate for a in bert.model_steps("unaffable") if a.found] == ["un", "##aff", "##able"]
    _, t5 = _loaded("t5")
    best = [(n.start, n.end) for n in t5.model_steps("▁hello") if n.best]
    assert best == [(0, 6)]
    assert t5.bpe_trace("▁hello").steps == () and t5.bpe_trace("▁hello").final_ids == (4,)


def test_char_bpe_cuts_long_pieces_only_where_no_merge_joins():
    _, gemma = _loaded("gemma")
    # "d▁" is a made token: never cut after d; nor after x, which has no token (its bytes may fall back)
    assert gemma.model.sub_pieces("▁hello▁he▁dd▁he▁x▁o") == ["▁hello", "▁he", "▁dd▁he", "▁x▁o"]
    ref, _ = _loaded("gemma")
    check_text(ref, gemma, "hello world dd world hello d world")


def test_char_bpe_trace_and_tree():
    _, gemma = _loaded("gemma")
    trace = gemma.bpe_trace("▁hello")
    assert trace.final_ids == tuple(gemma.piece_ids("▁hello"))
    assert [s.rank for s in trace.steps][-1] == gemma.encode_single_token("▁hello")
    tree = gemma.merge_tree(gemma.encode_single_token("▁hello"))
    assert tree.left is not None and tree.left.id == gemma.encode_single_token("▁he")


def test_char_bpe_merge_parents_are_the_first_listed_merge_and_built_once():
    """The scaffold counts ask for a tree per emitted token: the parents table is built once, not per tree."""
    _, gemma = _loaded("gemma")
    first: dict[int, tuple[int, int]] = {}
    for pair, made in gemma.merges.items():  # the plain rule: the first listed merge that makes the token
        first.setdefault(made, pair)
    for made in list(first)[:: max(1, len(first) // 200)]:
        assert gemma.merge_parents(made) == first[made]
    table = gemma._merge_parents()
    gemma.merge_tree(gemma.encode_single_token("▁hello"))
    assert gemma._merge_parents() is table


def test_token_bytes_round_trip_through_encode_single_token():
    for name in FILES:
        _, ours = _loaded(name)
        for tid in sorted(ours.model.vocab.values()):
            assert ours.encode_single_token(ours.stored_piece(tid)) == tid


def test_offsets_point_into_the_original_text_through_nfkc_and_lowercase():
    _, bert = _loaded("bert")
    text = "Café NAÏVE"
    spans = [text[t.char_start:t.char_end] for t in bert.tokenize(text)]
    assert spans == ["Café", "NAÏVE"]  # lowercased and accent-stripped to "cafe" and "naive", shown on the original


def test_lossy_and_padding_shown():
    assert _loaded("bert")[1].lossy and _loaded("t5")[1].lossy
    data = json.loads(WORDLEVEL)
    data["padding"] = {"strategy": "BatchLongest", "direction": "Right", "pad_to_multiple_of": None, "pad_id": 0,
                       "pad_type_id": 0, "pad_token": "<unk>"}
    enc = load_tokenizer_json(json.dumps(data))
    assert enc.encode("hello world") == [1, 2] and "padding to BatchLongest" in enc.settings_note


def test_keeps_the_encoding_api_pickles_and_round_trips_token_bytes():
    import pickle

    from engine.api import EncodingAPI

    for name in FILES:
        _, enc = _loaded(name)
        assert isinstance(enc, EncodingAPI), name
        back = pickle.loads(pickle.dumps(enc))
        assert back.encode_ordinary("hello world ﬁ") == enc.encode_ordinary("hello world ﬁ") and back.same_tokenizer(enc)
        for tid in sorted(enc.model.vocab.values()):
            if not enc.is_byte_fallback(tid):  # (a <0xXX> token's byte is also an ordinary token's: that one wins)
                assert enc.encode_single_token(enc.decode_single_token_bytes(tid)) == tid, (name, tid)


# Each model is built by its test, not at collection: the big ones (a million entries) would otherwise be built
# in every pytest-xdist worker at import, and held for the whole run.
@pytest.mark.parametrize("model,message", [
    (lambda: {"type": "Unigram", "unk_id": 0, "vocab": [[f"p{i}", -1.0] for i in range(300_001)]},
     r"300,001 vocabulary entries is more than this playground accepts"),
    (lambda: {"type": "WordPiece", "unk_token": "[UNK]", "vocab": {f"w{i}": i for i in range(1_000_000)}},
     # the file's JSON is measured before it is parsed: a 1,000,000-member object stops there
     r"one object holds 1,000,000 members; the limit is 310,000\. A vocabulary"),
    (lambda: {"type": "BPE", "vocab": {"a": 0, "b": 1, "ab": 2}, "merges": ["a b"] * 600_001},
     r"one array holds 600,001 items; the limit is 600,000\. The merges.*\(Gemma 3: 514,906\)"),
    (lambda: {"type": "Unigram", "unk_id": 0, "vocab": [["<unk>", 0.0], ["a", float("inf")]]},
     r"\$\.model\.vocab\[1\]: expected"),
    (lambda: {"type": "Unigram", "unk_id": 5, "vocab": [["<unk>", 0.0]]}, r"\$\.model\.unk_id: 5 is not the index"),
], ids=["unigram-300001", "wordpiece-1000000", "merges-600001", "unigram-inf-score", "unigram-unk-id-out-of-range"])
def test_crafted_models_are_refused_before_anything_is_built(model, message):
    from engine.formats.limits import TokenizerTooLargeError

    with pytest.raises((TokenizerTooLargeError, ValueError), match=message):
        load_tokenizer_json(_file(model()), source="crafted.json")


@pytest.mark.parametrize("model,message", [
    (lambda: {"type": "WordPiece", "unk_token": "[UNK]", "vocab": {f"w{i}": i for i in range(1_000_000)}},
     r"1,000,000 vocabulary entries is more than"),
    (lambda: {"type": "BPE", "vocab": {"a": 0, "b": 1, "ab": 2}, "merges": ["a b"] * 600_001},
     r"600,001 merges is more than this playground accepts \(600,000\); the most in a real file is Gemma 3's 514,906"),
], ids=["wordpiece-1000000", "merges-600001"])
def test_an_already_parsed_model_is_measured_again(model, message):
    """A model that reaches the size check as a dict (not through the JSON scan: a GGUF or a built file) meets
    the model's own limits, with the counts a user can compare against real files."""
    from engine.families.hf.tokenizer_json import check_tokenizer_json_size
    from engine.formats.limits import TokenizerTooLargeError

    with pytest.raises((TokenizerTooLargeError, ValueError), match=message):
        check_tokenizer_json_size({"model": model()}, "crafted.json")


def test_glm_sized_merges_are_accepted():
    """321,649 merges (GLM-4.7's count) pass the size check that 300,000 used to stop."""
    from engine.families.hf.tokenizer_json import check_tokenizer_json_size

    check_tokenizer_json_size({"model": {"type": "BPE", "vocab": {}, "merges": ["a b"] * 321_649}}, "glm.json")


def test_vocab_byte_sizes_by_character_bound_equal_the_exact_count():
    """Sizes are settled from lengths in characters when 4 bytes each stays within the limits; near a limit
    the tokens are encoded (ASCII, 3- and 4-byte characters, a lone surrogate, each side of both limits)."""
    from engine.families.hf.tokenizer_json import vocab_bytes_within, vocab_bytes_within_reference
    from engine.formats.limits import MAX_TOKEN_BYTES, MAX_TOTAL_TOKEN_BYTES

    big = MAX_TOTAL_TOKEN_BYTES // MAX_TOKEN_BYTES
    cases = [[], ["a"], ["a" * MAX_TOKEN_BYTES], ["a" * (MAX_TOKEN_BYTES + 1)], ["€" * (MAX_TOKEN_BYTES // 3)],
             ["€" * (MAX_TOKEN_BYTES // 3 + 1)], ["😀" * (MAX_TOKEN_BYTES // 4)], ["😀" * (MAX_TOKEN_BYTES // 4 + 1)],
             ["\ud800" * 1365, "b"], ["\ud800" * 1366],
             [str(i) + "a" * (MAX_TOKEN_BYTES - len(str(i))) for i in range(big)],
             [str(i) + "a" * (MAX_TOKEN_BYTES - len(str(i))) for i in range(big)] + ["x"],
             [str(i) + "a" * (MAX_TOKEN_BYTES // 4 - len(str(i))) for i in range(4 * big)]]
    for tokens in cases:
        vocab = dict.fromkeys(tokens, 0)
        assert vocab_bytes_within(vocab) == vocab_bytes_within_reference(vocab), [t[:8] for t in tokens[:3]]
    assert [vocab_bytes_within(dict.fromkeys(t, 0)) for t in cases[1:4]] == [True, True, False]


def test_family_notes_explain_every_new_kind():
    from engine.explain.families import family_note, pair_candidates, token_note

    for name, family, kind in [("bert", "wordpiece", "WordPiece"), ("t5", "unigram", "Unigram"),
                               ("wordlevel", "wordlevel", "WordLevel"), ("gemma", "char-bpe", "BPE")]:
        _, enc = _loaded(name)
        note = family_note(enc)
        assert note.family == family and f"Model: {kind}" in [s.name for s in note.stages]
    _, bert = _loaded("bert")
    assert token_note(bert, bert.encode_single_token("##able")).kind == "stored"
    assert pair_candidates(bert, [b"un", b"aff"]) == [None]
    _, gemma = _loaded("gemma")
    made = pair_candidates(gemma, [b" he", b"llo"])[0]
    assert made is not None and made.made == gemma.encode_single_token("▁hello")


def test_a_files_regex_runs_under_the_split_time_limit():
    assert _loaded("t5")[1].split_time_limit is not None  # its Replace normalizer is a regex from the file
    assert _loaded("bert")[1].split_time_limit is None


def test_token_bytes_in_bulk_equal_one_by_one():
    """The table of every token's bytes is built in bulk; `_token_bytes`, one token at a time, is its reference
    (a byte-fallback name, the ▁ space marker, added tokens -- also one spelled like a byte fallback)."""
    data = json.loads(GEMMA)
    data["added_tokens"].append(_added(GEMMA_VOCAB.index("<0x41>"), "<0x41>", special=False))
    crafted = load_tokenizer_json(json.dumps(data), name="crafted")
    with_nul = json.loads(GEMMA)  # a token holding NUL, the bulk path's separator: taken one by one
    nul_id = with_nul["model"]["vocab"]["a\x00\u2581b"] = max(with_nul["model"]["vocab"].values()) + 1
    with_nul = load_tokenizer_json(json.dumps(with_nul), name="with NUL")
    assert with_nul.decode_single_token_bytes(nul_id) == b"a\x00 b"
    for enc in [*(_loaded(name)[1] for name in FILES), crafted, with_nul]:
        stored = dict(enc._stored)
        assert enc._token_bytes_bulk(stored) == {i: enc._token_bytes(i, s) for i, s in stored.items()}, enc.name
    assert crafted.decode_single_token_bytes(GEMMA_VOCAB.index("<0x41>")) == b"<0x41>"
    assert _loaded("gemma")[1].decode_single_token_bytes(GEMMA_VOCAB.index("<0x41>")) == b"A"


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(["▁", "▁▁", "h", "e", "d", "x", ">", "\0", "llo", "中", "]", "\\"]), max_size=30).map("".join))
def test_char_bpe_cuts_in_one_split_as_one_mark_at_a_time(piece):
    """`sub_pieces` (one regex split, then the parts after a character without a token joined back) equals
    `sub_pieces_reference`, with blocked characters that need escaping in a character class."""
    from engine.families.hf.models.bpe import CharBpe

    _, gemma = _loaded("gemma")
    model = gemma.model
    assert model.sub_pieces(piece) == model.sub_pieces_reference(piece)
    odd = CharBpe(model.vocab, model.pair_rank, model.merged_id, byte_fallback=True, no_cut_after=frozenset("]\\^-d"))
    assert odd.sub_pieces(piece) == odd.sub_pieces_reference(piece)
    assert "".join(model.sub_pieces(piece)) == piece


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(["▁", "h", "e", "l", "o", "d", "w", "r", ",", ".", "(", ")", "'", "x", "he", "llo"]),
                max_size=20).map("".join))
def test_whole_tokens_and_punctuation_parts_give_the_merge_loops_ids(piece):
    """With the compact form's extras -- per-token whole flags and the punctuation pairs made tokens hold --
    `merged_ids` skips or splits the merge loop; the plain model (no extras) runs it on the whole part."""
    from engine.families.hf.models.bpe import CharBpe

    plain = _with_punctuation().model
    tokens = {tid: tok for tok, tid in plain.vocab.items()}
    whole = bytes(plain.merged_ids(tokens[i]) == (i,) if i in tokens else 0 for i in range(max(tokens) + 1))
    pairs = plain._joined_punctuation() | {"d,"}  # a pair held by no token only blocks a cut: still exact
    fast = CharBpe(plain.vocab, plain.pair_rank, plain.merged_id, unk_token=plain.unk_token, fuse_unk=plain.fuse_unk,
                   byte_fallback=True, whole=whole, joined_punctuation=pairs)
    assert fast.merged_ids(piece) == plain.merged_ids(piece)
    assert "".join(fast.punctuation_parts(piece)) == piece
    assert fast.punctuation_parts("▁hello,(world)") == ["▁hello,", "(", "world", ")"]  # the made token "o," holds o,
    assert fast.punctuation_parts("▁hello.▁d,o,") == ["▁hello", ".", "▁d,", "o,"]  # (and "d," is held as if one did)


@functools.lru_cache(maxsize=1)
def _with_punctuation():
    """The Gemma-style file with punctuation tokens and one made token that holds punctuation (``o,``)."""
    data = json.loads(GEMMA)
    vocab = data["model"]["vocab"]
    for tok in [",", ".", "(", ")", "o,"]:
        vocab[tok] = len(vocab)
    data["model"]["merges"].append(["o", ","])
    data["added_tokens"] = [t for t in data["added_tokens"] if t["content"] != "<start>"]
    return load_tokenizer_json(json.dumps(data), name="gemma-punctuation")
