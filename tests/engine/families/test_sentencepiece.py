"""The SentencePiece BPE family (`mistral-v1`, `mistral-v3`) against ``sentencepiece`` itself.

The oracle is ``sentencepiece.SentencePieceProcessor`` built offline from the
very files we ship (``model_proto=`` the gunzipped bytes), with no BOS/EOS;
mistral_common's tokenizer is checked to be that same call.
"""
from __future__ import annotations

import functools
import random
import unicodedata

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import engine
from engine.families.sentencepiece.encoding import BUILTIN_MODELS, SentencePieceEncoding, load_sentencepiece_model
from engine.families.sentencepiece.bpe import merge_heap, merge_reference, merge_small, priorities
from engine.formats.tiktoken_files import read_data_file
from engine.families.sentencepiece.model_proto import BYTE, CONTROL, NORMAL, UNKNOWN, USER_DEFINED, parse_model_proto

from tests.conftest import CORPUS, case_text, load_cases

spm = pytest.importorskip("sentencepiece")
NAMES = list(BUILTIN_MODELS)


@functools.lru_cache(maxsize=None)
def model_bytes(name: str) -> bytes:
    return read_data_file(*BUILTIN_MODELS[name])


@functools.lru_cache(maxsize=None)
def reference(name: str):
    return spm.SentencePieceProcessor(model_proto=model_bytes(name))


def enc(name: str) -> SentencePieceEncoding:
    return engine.get_encoding(name)  # type: ignore[return-value]


def check_same(name: str, text: str) -> None:
    expected = reference(name).encode(text)
    assert enc(name).encode_ordinary(text) == expected, text[:200]
    assert enc(name).encode(text, disallowed_special=()) == expected


# ------------------------------------------------------------------ ids equal the reference
@pytest.mark.parametrize("name", NAMES)
def test_registry_and_sizes(name):
    e = enc(name)
    assert engine.get_encoding(name) is e
    assert e.n_vocab == reference(name).get_piece_size() == {"mistral-v1": 32000, "mistral-v3": 32768}[name]
    assert e.max_token_value == e.n_vocab - 1
    assert e.name == name
    assert e.special_tokens["<s>"] == 1 and e.special_tokens["</s>"] == 2 and e.special_tokens["<unk>"] == 0
    ref = reference(name)
    assert all(e.is_special_token(i) == (ref.IsControl(i) or ref.IsUnknown(i)) for i in range(e.n_vocab))
    assert e.unknown_ids([0, e.n_vocab, -1, 5]) == [e.n_vocab, -1]
    assert e.pat_str  # these models can be cut into cached pieces


@pytest.mark.parametrize("name", NAMES)
def test_corpus_cases(name):
    checked = 0
    for case in load_cases():
        text = case_text(case)
        if any(0xD800 <= ord(c) <= 0xDFFF for c in text):
            with pytest.raises(ValueError, match="surrogate"):
                enc(name).encode(text)
            continue
        check_same(name, text)
        checked += 1
    assert checked > 50


@pytest.mark.parametrize("name", NAMES)
def test_taylorswift(name):
    text = (CORPUS / "taylorswift.txt").read_text(encoding="utf-8")
    check_same(name, text)


@pytest.mark.parametrize("name", NAMES)
def test_every_bmp_code_point_in_context(name):
    # Batched: each text holds 2048 code points, each alone, after a letter, doubled and after a space.
    cps = [c for c in range(0x10000) if not 0xD800 <= c <= 0xDFFF]
    for k in range(0, len(cps), 2048):
        text = "".join(f"{chr(c)}a{chr(c)}{chr(c)} {chr(c)}\n" for c in cps[k : k + 2048])
        check_same(name, text)


@pytest.mark.parametrize("name", NAMES)
def test_astral_samples(name):
    rng = random.Random(7)
    cps = [rng.randrange(0x10000, 0x110000) for _ in range(3000)] + [0x1F600, 0x1F469, 0x200D, 0x1F4BB, 0xE0041]
    check_same(name, " ".join(chr(c) * rng.randint(1, 3) for c in cps))


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("run", [" " * 100_000, "7" * 100_000, "x" * 100_000, "\n" * 20_000, "▁" * 50_000, "ab " * 30_000])
def test_long_runs(name, run):
    check_same(name, run)


@pytest.mark.parametrize("name", NAMES)
def test_one_long_word(name):
    rng = random.Random(3)
    word = "".join(rng.choice("abcdefghijklmnopqrstuvwxyzéü") for _ in range(100_000))
    check_same(name, word)
    check_same(name, "  " + word + "  ")


SPECIAL_STRINGS = ["<s>", "</s>", "<unk>", "<pad>", "[INST]", "[/INST]", "[TOOL_CALLS]", "[control_12]", "[IMG]",
                   "<0x0A>", "<0xFF>", "[REFERENCE_DOC_0]", "[REFERENCE_DOC_19]", "[REFERENCE_DOC_1]9",
                   "[[REFERENCE_DOC_1]]", " ⁇ ", "▁", "▁▁ x", "<|endoftext|>", "<s><s>[INST] hi [/INST]</s>"]


@pytest.mark.parametrize("name", NAMES)
def test_special_token_strings_are_text(name):
    for s in SPECIAL_STRINGS:
        for text in (s, f"a {s} b", f"x{s}y", s * 3):
            check_same(name, text)


@pytest.mark.parametrize("name", NAMES)
def test_special_tokens_refused_unless_allowed(name):
    e = enc(name)
    with pytest.raises(ValueError, match="allowed_special"):
        e.encode("hi </s>")
    assert e.encode("</s>", allowed_special={"</s>"}) == [2]
    assert e.encode("a</s>b", allowed_special="all") == e.encode("a") + [2] + e.encode("b")
    assert e.encode("<s>", allowed_special="all") == [1]
    with pytest.raises(ValueError, match="'</s>'"):  # an allowed token in the text does not hide a disallowed one
        e.encode("<s></s>", allowed_special={"<s>"})
    with pytest.raises(ValueError, match="'ell'"):  # as in tiktoken, any string can be disallowed
        e.encode("hello", disallowed_special={"ell"})
    # user-defined symbols are ordinary: SentencePiece always matches them
    if name == "mistral-v3":
        assert e.encode("[REFERENCE_DOC_3]") == reference(name).encode("[REFERENCE_DOC_3]")
        assert e.encode_single_token("[REFERENCE_DOC_3]") in e.encode("[REFERENCE_DOC_3]")
        assert e.encode("[INST]", allowed_special="all") == [3]


NORMALIZATION_SENSITIVE = [
    "é e\u0301 ﬁ ﬃ ① ㈱ Ａ Ω Å Å Ǆ ǅ ẛ̣ ½ x² ℌ ⅷ", "한국어 한국어", "ｶﾀｶﾅ カタカナ", "…‥", "\u00a0nbsp\u2009thin\u3000ideo",
    "tab\tcr\rlf\nvt\x0bff\x0c", "\u200bzero\u200dwidth\ufeffbom", "Ⅻ ℃ ㎏ ﬀ", "ǈ ǋ ǲ", "\u0130 ı İ ß ẞ",
]


@pytest.mark.parametrize("name", NAMES)
def test_nfc_nfkc_sensitive_text(name):
    for text in NORMALIZATION_SENSITIVE:
        for form in (text, unicodedata.normalize("NFC", text), unicodedata.normalize("NFD", text),
                     unicodedata.normalize("NFKC", text), unicodedata.normalize("NFKD", text)):
            check_same(name, form)


@pytest.mark.parametrize("name", NAMES)
def test_empty_and_whitespace(name):
    for text in ["", " ", "  ", "\n", " \n ", "a", " a", "a ", "▁", " ▁ ", "\x00", "\x00\x00 a"]:
        check_same(name, text)


@pytest.mark.parametrize("name", NAMES)
def test_lone_surrogates_raise(name):
    for text in ["a\ud800b", "\udfff", "\ud83d\ude00"]:
        with pytest.raises(ValueError, match="surrogate"):
            enc(name).encode(text)
        with pytest.raises(ValueError, match="surrogate"):
            enc(name).tokenize(text)
        with pytest.raises((RuntimeError, TypeError, UnicodeError)):
            reference(name).encode(text)
    with pytest.raises(ValueError, match=r"surrogate code point U\+DFFF at index 3,"):
        enc(name).encode("ab\u00e9\udfff\ud800")  # the first one is named


text_strategy = st.text(st.characters(blacklist_categories=("Cs",)), max_size=60) | st.lists(
    st.sampled_from(["▁", " ", "  ", "a", "the", "ing", "[INST]", "<s>", "[REFERENCE_DOC_1]", "\n", "😀", "é", "1",
                     "日本", "\t", "<0x0A>"]), max_size=20).map("".join)


@settings(max_examples=400, deadline=None)
@given(text_strategy)
def test_hypothesis_v1(text):
    check_same("mistral-v1", text)


@settings(max_examples=400, deadline=None)
@given(text_strategy)
def test_hypothesis_v3(text):
    check_same("mistral-v3", text)


def test_mistral_common_is_the_same_call():
    mc = pytest.importorskip("mistral_common.tokens.tokenizers.sentencepiece")
    import tempfile
    from pathlib import Path
    texts = ["Hello world", " leading", "tab\tand\nnewline 😀", "[INST] x [/INST]", "[REFERENCE_DOC_2] ok"]
    for name, filename in (("mistral-v1", "tokenizer.model.v1"), ("mistral-v3", "mistral_instruct_tokenizer_240323.model.v3")):
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / filename
            path.write_bytes(model_bytes(name))
            tok = mc.SentencePieceTokenizer(str(path))
            for text in texts:
                assert enc(name).encode_ordinary(text) == tok.encode(text, bos=False, eos=False)


@settings(max_examples=200, deadline=None)
@given(text_strategy)
def test_fast_normalizer_equals_general(text):
    for name in NAMES:
        normalized, n2o = enc(name).normalize(text)
        assert enc(name)._normalized(text) == normalized
        assert len(n2o) == len(normalized) + 1 and n2o[-1] == len(text)


# ------------------------------------------------------------------ decode
@pytest.mark.parametrize("name", NAMES)
def test_decode_matches_reference(name):
    e, ref = enc(name), reference(name)
    rng = random.Random(11)
    for _ in range(300):
        ids = [rng.randrange(e.n_vocab) for _ in range(rng.randint(0, 8))]
        if rng.random() < 0.5:  # runs of byte pieces, valid or not
            ids += [e.encode_single_token(f"<0x{b:02X}>") for b in "é😀".encode()[rng.randint(0, 3):]]
        rng.shuffle(ids)
        assert e.decode(ids) == ref.decode(ids), ids
    sp, ctl = e.encode_single_token("▁"), 1  # the dummy prefix is dropped once, even after control symbols
    for ids in ([sp, ctl, sp, sp], [ctl, sp, ctl, sp], [ctl, ctl, 415], [sp, 415], [0, sp], [13, sp]):
        assert e.decode(ids) == ref.decode(ids), ids
    for text in ["Hello  world", " lead", "😀 日本語\n", "<s>", ""]:
        assert e.decode(e.encode_ordinary(text)) == ref.decode(ref.encode(text)) == text


@pytest.mark.parametrize("name", NAMES)
def test_decode_bytes_and_unknown_ids(name):
    e = enc(name)
    ids = e.encode_ordinary("a 😀")
    assert e.decode_bytes(ids) == "a 😀".encode()
    assert b"".join(e.decode_tokens_bytes(ids)) == " a 😀".encode()
    with pytest.raises(KeyError, match="unknown token id"):
        e.decode([e.n_vocab])
    with pytest.raises(KeyError):
        e.decode_single_token_bytes(-1)


# ------------------------------------------------------------------ vocabulary, merges, trees
@pytest.mark.parametrize("name", NAMES)
def test_every_vocabulary_entry_round_trips(name):
    """Every piece is reached by BPE on its own characters; pieces starting with ▁ also from text.

    Exceptions, by design: control symbols and <unk> are never produced from
    text (they are special: encode them with ``allowed_special``); a byte piece
    is produced only for a character the vocabulary lacks, so ``<0x41>``
    ("A", which has its own piece) is checked through a character that needs it;
    a piece without ``▁`` is never a whole text's first token (the dummy prefix
    puts ``▁`` in front), so it is checked at piece level; and ``▁`` alone is
    the dummy prefix of the empty text, which SentencePiece encodes as no ids.
    """
    e, ref = enc(name), reference(name)
    mismatched = []
    for i, piece in enumerate(e.pieces):
        kind = e.model.pieces[i][2]
        if kind in (NORMAL, USER_DEFINED):
            if (merge_small(list(piece), e._scores) if kind == NORMAL else [piece]) != [piece]:
                mismatched.append(piece)  # the built-ins skip BPE for a whole piece (whole_pieces_reachable)
            if piece.startswith("▁") and kind == NORMAL and piece != "▁":  # "▁" alone: the empty text has no tokens
                text = e.decode_single_token_bytes(i).decode()[1:]
                assert e.encode_ordinary(text) == ref.encode(text) == [i], piece
        elif kind in (CONTROL, UNKNOWN):
            assert e.encode(piece, allowed_special={piece}) == [i]
            assert e.decode_single_token_bytes(i) == piece.encode()
        elif kind == BYTE:
            assert len(e.decode_single_token_bytes(i)) == 1
    assert mismatched == []
    lacking = "\U0001F9FF"  # 🧿: not a piece, so it falls back to its four bytes
    assert e.encode_ordinary(lacking)[1:] == [e.encode_single_token(f"<0x{b:02X}>") for b in lacking.encode()]


@pytest.mark.parametrize("name", NAMES)
def test_merge_trees_reach_every_piece(name):
    e = enc(name)
    merges = e.merges
    built = set(merges.values())
    for i, piece in enumerate(e.pieces):
        kind = e.model.pieces[i][2]
        if kind in (CONTROL, UNKNOWN):
            with pytest.raises(ValueError, match="special"):
                e.merge_tree(i)
            continue
        if kind == NORMAL and len(piece) > 1:
            assert i in built, piece
        if i % 7 == 0 or len(piece) > 8:
            tree = e.merge_tree(i)
            assert tree.bytes == e.decode_single_token_bytes(i)
            for leaf in tree.leaves():
                leaf_kind = e.model.pieces[leaf.id][2]
                assert leaf_kind in (BYTE, USER_DEFINED) or len(e.pieces[leaf.id]) == 1
    scores = [e.model.pieces[c][1] for c in merges.values()]
    assert scores == sorted(scores, reverse=True)  # merge order follows the scores
    # Every merge joins two pieces into a third, and every multi-character piece is made by one, so by
    # induction every tree reaches single characters (the samples above also walk whole trees).
    for (a, b), c in merges.items():
        assert e.pieces[a] + e.pieces[b] == e.pieces[c]
        assert e.model.pieces[a][1] >= e.model.pieces[c][1] and e.model.pieces[b][1] >= e.model.pieces[c][1] or \
            len(e.pieces[a]) == 1 or len(e.pieces[b]) == 1


@pytest.mark.parametrize("name", NAMES)
def test_bpe_implementations_agree(name):
    e = enc(name)
    rng = random.Random(5)
    alphabet = [p for p in e.pieces if len(p) == 1][:300] + list("▁▁▁aeiounrst")
    for n in list(range(0, 12)) + [50, 97, 200, 400]:
        for _ in range(30 if n < 12 else 3):
            symbols = [rng.choice(alphabet) for _ in range(n)]
            expected = merge_reference(symbols, e._scores)
            assert merge_small(symbols, e._scores) == expected
            assert merge_heap(symbols, e._priority()) == expected


@settings(max_examples=200, deadline=None)
@given(st.text(st.sampled_from(list("▁▁aabcdeilnorst.,'1é日本")), max_size=80))
def test_bpe_implementations_agree_hypothesis(word):
    e = enc("mistral-v1")
    expected = merge_reference(list(word), e._scores)
    assert merge_small(list(word), e._scores) == merge_heap(list(word), priorities(e._scores)) == expected


# ------------------------------------------------------------------ explainers
EXPLAIN_TEXTS = ["Hello world", "  two  spaces ", "tab\tand\nnewline", "😀 日本語 é", "a[REFERENCE_DOC_1]b c",
                 "▁literal", "", " ", "x" * 300, "</s> after"]


@pytest.mark.parametrize("name", NAMES)
def test_tokenize_matches_encode_and_offsets(name):
    e = enc(name)
    for text in EXPLAIN_TEXTS:
        tokens = e.tokenize(text, disallowed_special=())
        assert [t.id for t in tokens] == e.encode_ordinary(text)
        data = text.encode()
        for t in tokens:
            assert 0 <= t.char_start <= t.char_end <= len(text)
            assert 0 <= t.byte_start <= t.byte_end <= len(data)
            if t.partial:
                assert t.bytes == data[t.byte_start : t.byte_end]
        end, last_start = 0, 0  # tokens tile the text; byte-fallback tokens of one character share it
        for k, t in enumerate(tokens):
            assert t.char_start == end or (t.partial and t.char_start == last_start), (text, t)
            last_start, end = t.char_start, t.char_end
            if not t.partial:
                shown, original = t.bytes.decode(), text[t.char_start : t.char_end].replace("▁", " ")
                assert shown == original or (k == 0 and shown == " " + original), (text, t)  # the dummy prefix
        assert end == len(text)
    tokens = e.tokenize("a</s>b", allowed_special="all")
    assert [t.id for t in tokens] == e.encode("a</s>b", allowed_special="all")
    assert [(t.id, t.char_start, t.char_end) for t in tokens if t.special] == [(2, 1, 5)]


@pytest.mark.parametrize("name", NAMES)
def test_pretokenize_and_bpe_trace(name):
    e = enc(name)
    for text in EXPLAIN_TEXTS:
        pieces = e.pretokenize(text, disallowed_special=())
        ids: list[int] = []
        for p in pieces:
            assert text[p.char_start : p.char_end].replace("▁", " ") == (p.text[1:] if p.index == 0 else p.text)
            trace = e.bpe_trace(p.text)
            assert trace.parts_at(0) == [c.encode() for c in p.text] or "[REFERENCE" in p.text
            assert b"".join(trace.parts_at(len(trace.steps))) == p.text.encode()
            ids.extend(trace.final_ids)
        assert ids == e.encode_ordinary(text)
    trace = e.bpe_trace(" tokenization")
    assert list(trace.final_ids) == e.encode_ordinary("tokenization")
    step = trace.steps[-1]
    assert step.merged == e.decode_single_token_bytes(step.rank)


# ------------------------------------------------------------------ the file format
@pytest.mark.parametrize("name", NAMES)
def test_reader_equals_protobuf(name):
    pb2 = pytest.importorskip("sentencepiece.sentencepiece_model_pb2")
    proto = pb2.ModelProto()
    proto.ParseFromString(model_bytes(name))
    ours = parse_model_proto(model_bytes(name))
    assert [(p.piece, p.score, p.type) for p in proto.pieces] == list(ours.pieces)
    t, n = proto.trainer_spec, proto.normalizer_spec
    assert (ours.trainer.model_type, ours.trainer.byte_fallback, ours.trainer.unk_id, ours.trainer.bos_id,
            ours.trainer.eos_id, ours.trainer.pad_id, ours.trainer.split_by_whitespace,
            ours.trainer.treat_whitespace_as_suffix, ours.trainer.unk_surface) == (
        t.model_type, t.byte_fallback, t.unk_id, t.bos_id, t.eos_id, t.pad_id, t.split_by_whitespace,
        t.treat_whitespace_as_suffix, t.unk_surface)
    assert (ours.normalizer.name, ours.normalizer.precompiled_charsmap, ours.normalizer.add_dummy_prefix,
            ours.normalizer.remove_extra_whitespaces, ours.normalizer.escape_whitespaces) == (
        n.name, n.precompiled_charsmap, n.add_dummy_prefix, n.remove_extra_whitespaces, n.escape_whitespaces)


def _edited(edit) -> bytes:
    pb2 = pytest.importorskip("sentencepiece.sentencepiece_model_pb2")
    proto = pb2.ModelProto()
    proto.ParseFromString(model_bytes("mistral-v1"))
    edit(proto)
    return proto.SerializeToString()


def test_malformed_files_name_file_field_and_fix():
    data = model_bytes("mistral-v1")
    for bad in (data[:1000], data[:-3], b"\xff\xff\xff", b"not a model at all", data[:2] + b"\x0a\x05\xff\xfe<k>" + data[9:]):
        with pytest.raises(ValueError, match="upload.model") as info:
            load_sentencepiece_model(bad, source="upload.model")
        assert "re-export" in str(info.value) or "Use" in str(info.value) or "must" in str(info.value)
    with pytest.raises(ValueError, match="Word model"):
        load_sentencepiece_model(_edited(lambda p: setattr(p.trainer_spec, "model_type", 3)), source="u.model")
    with pytest.raises(ValueError, match="precompiled_charsmap"):
        load_sentencepiece_model(_edited(lambda p: setattr(p.normalizer_spec, "precompiled_charsmap", b"\x01\x02")),
                                 source="u.model")
    with pytest.raises(ValueError, match="byte_fallback"):
        load_sentencepiece_model(_edited(lambda p: setattr(p.trainer_spec, "byte_fallback", False)), source="u.model")
    with pytest.raises(ValueError, match="UNKNOWN"):
        load_sentencepiece_model(_edited(lambda p: setattr(p.pieces[0], "type", 3)), source="u.model")
    with pytest.raises(ValueError, match="repeats"):
        load_sentencepiece_model(_edited(lambda p: setattr(p.pieces[400], "piece", p.pieces[401].piece)), source="u.model")
    with pytest.raises(TypeError):
        load_sentencepiece_model("text")  # type: ignore[arg-type]


@pytest.mark.parametrize("variant", ["no_dummy", "remove_extra", "no_byte_fallback", "unused", "inner_space"])
def test_uploaded_variants_match_reference(variant):
    """Models that differ from Mistral's in the fields that matter still give sentencepiece's ids."""
    def edit(p):
        if variant == "no_dummy":
            p.normalizer_spec.add_dummy_prefix = False
        elif variant == "remove_extra":
            p.normalizer_spec.remove_extra_whitespaces = True
        elif variant == "no_byte_fallback":
            p.trainer_spec.byte_fallback = False
            for k in range(3, 259):
                p.pieces[k].type = 5  # UNUSED, so the bytes are not byte pieces any more
                p.pieces[k].piece = f"<unused{k}>"
        elif variant == "unused":
            for k in range(300, 400):
                p.pieces[k].type = 5
        elif variant == "inner_space":
            p.pieces[31000].piece = "a▁b"
    data = _edited(edit)
    ours = load_sentencepiece_model(data, "variant")
    ref = spm.SentencePieceProcessor(model_proto=data)
    rng = random.Random(2)
    texts = ["  Hello   world  ", "a▁b c", "😀 日本語 x", " ", "", "in the end", "tab\t x\n\n y  "] + [
        "".join(rng.choice(["  ", " ", "a", "b", "the", "ing", "😀", "é", "\n", "▁", "er", "on"]) for _ in range(30))
        for _ in range(60)]
    for text in texts:
        assert ours.encode_ordinary(text) == ref.encode(text), (variant, text)
        assert ours.decode(ref.encode(text)) == ref.decode(ref.encode(text)), (variant, text)
        assert [t.id for t in ours.tokenize(text, disallowed_special=())] == ref.encode(text)
