"""Every tokenizer.json normalizer against `tokenizers` 0.23's own: the text, and each character's original span."""
from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings

from engine.errors import SplitTimeoutError
from engine.families.hf import normalizers as N
from engine.families.hf.normalizers import normalizer_from_json

from .hf_oracle import code_point_chunks, hf_alignment, hf_normalizer, spicy_text, where

tokenizers = pytest.importorskip("tokenizers")

NODES = [
    {"type": "NFC"}, {"type": "NFD"}, {"type": "NFKC"}, {"type": "NFKD"},
    {"type": "Lowercase"},
    {"type": "Strip", "strip_left": True, "strip_right": True},
    {"type": "Strip", "strip_left": True, "strip_right": False},
    {"type": "Strip", "strip_left": False, "strip_right": True},
    {"type": "StripAccents"},
    {"type": "Sequence", "normalizers": [{"type": "NFD"}, {"type": "StripAccents"}, {"type": "Lowercase"}]},
    {"type": "Replace", "pattern": {"String": " "}, "content": "▁"},
    {"type": "Replace", "pattern": {"String": "ab"}, "content": ""},
    {"type": "Replace", "pattern": {"String": "a"}, "content": "xyz"},
    {"type": "Replace", "pattern": {"Regex": r"\s+"}, "content": " "},
    {"type": "Replace", "pattern": {"Regex": r"\p{L}"}, "content": "<>"},
    {"type": "Replace", "pattern": {"Regex": "[aeiou]+"}, "content": ""},
    {"type": "Replace", "pattern": {"String": ""}, "content": "_"},
    {"type": "Replace", "pattern": {"Regex": "a*"}, "content": "-"},
    {"type": "Prepend", "prepend": "▁"},
    {"type": "Prepend", "prepend": "<s>"},
    {"type": "Sequence", "normalizers": [{"type": "Prepend", "prepend": "▁"},
                                         {"type": "Replace", "pattern": {"String": " "}, "content": "▁"}]},
    *({"type": "BertNormalizer", "clean_text": c, "handle_chinese_chars": h, "strip_accents": s, "lowercase": l}
      for c in (True, False) for h in (True, False) for s in (None, True, False) for l in (True, False)),
    {"type": "Sequence", "normalizers": [{"type": "NFKC"}, {"type": "Lowercase"}, {"type": "Strip", "strip_left": True,
                                                                                  "strip_right": True}]},
]
IDS = [str(n) for n in NODES]

CASES = ["", "a", "Hello World", "  padded  ", " \t\n ", "ﬁne ﬀ ½ ①", "ΣΑΣ ΟΔΟΣ", "İstanbul ǅ ß",
         "e\u0301\u0323x a\u0323\u0301", "\u0301start", "한국어 가\u1100\u1161\u11a8", "中文 and 日本語ｶﾞ",
         "naïve café", "👍🏽 👨‍👩‍👧 🇫🇷", "a\x00b\ufffdc\x1cd\u200be", "x\u00a0y\u3000z", "aaa ab ba", "\r\n\r\n",
         "ﷺ ㍿ \U0001d400", "Åström"]


@pytest.mark.parametrize("node", NODES, ids=IDS)
def test_unit_cases(node):
    ours = normalizer_from_json(node, where())
    theirs = hf_normalizer(node)
    for text in CASES:
        expected, align = hf_alignment(theirs, text)
        assert ours.normalize_str(text) == expected, text
        assert ours.normalize(text) == (expected, align), text


@pytest.mark.parametrize("node", NODES, ids=IDS)
@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
@given(text=spicy_text)
def test_hypothesis_text(node, text):
    ours = normalizer_from_json(node, where())
    expected, align = hf_alignment(hf_normalizer(node), text)
    assert ours.normalize_str(text) == expected
    assert ours.normalize(text) == (expected, align)


@pytest.mark.heavy
@pytest.mark.parametrize("form", ["NFC", "NFD", "NFKC", "NFKD"])
def test_unicode_forms_by_stretches_equal_the_whole_text_reference(form):
    from engine.families.hf.normalizers import AlignedText, UnicodeForm
    n = UnicodeForm(form)
    for text in [*CASES, *code_point_chunks(0x2FFFF, sep="a\u0301 ")]:
        a, b = AlignedText(text), AlignedText(text)
        n.apply(a)
        n.apply_whole(b)
        assert (a.text, a.align) == (b.text, b.align)


def test_bert_strip_accents_none_follows_lowercase():
    assert normalizer_from_json({"type": "BertNormalizer", "lowercase": True}, where()).normalize_str("Café") == "cafe"
    assert normalizer_from_json({"type": "BertNormalizer", "lowercase": False, "strip_accents": None},
                                where()).normalize_str("Café") == "Café"


def test_lowercase_sigma_is_medial_everywhere():
    assert N.Lowercase().normalize_str("ΟΔΟΣ") == "οδοσ" != "ΟΔΟΣ".lower()


def test_unknown_type_names_the_json_path():
    node = {"type": "Sequence", "normalizers": [{"type": "NFC"}, {"type": "Uppercase"}]}
    with pytest.raises(ValueError, match=r"\$\.normalizer\.normalizers\[1\]\.type.*'Uppercase'"):
        normalizer_from_json(node, where())


def test_bad_replace_pattern_names_the_json_path():
    with pytest.raises(ValueError, match=r"\$\.normalizer\.pattern"):
        normalizer_from_json({"type": "Replace", "pattern": {"Glob": "*"}, "content": ""}, where())


def test_catastrophic_replace_regex_is_stopped(monkeypatch):
    from engine.tokenizer import patterns
    monkeypatch.setattr(patterns, "SPLIT_TIMEOUT", 0.2)
    rep = normalizer_from_json({"type": "Replace", "pattern": {"Regex": "(a|aa)+$"}, "content": ""}, where())
    with pytest.raises(SplitTimeoutError, match=r"\$\.normalizer\.pattern\.Regex"):
        rep.normalize_str("a" * 60 + "b")
    with pytest.raises(SplitTimeoutError):
        rep.normalize("a" * 60 + "b")


# ------------------------------------------------------------------ Precompiled
@pytest.fixture(scope="module", params=["test_model.model", "test_ja_model.model"])
def charsmap_node(request) -> dict:
    """The charsmap of one of sentencepiece's own test models, as a tokenizer.json node."""
    import base64

    from engine.families.sentencepiece.model_proto import parse_model_proto
    from tests.reference_packages import member

    model = parse_model_proto(member("sentencepiece", f"sentencepiece-0.2.1/test/{request.param}"))
    blob = model.normalizer.precompiled_charsmap
    assert len(blob) > 1000
    return {"type": "Precompiled", "precompiled_charsmap": base64.b64encode(blob).decode()}


PRECOMPILED_CASES = CASES + ["ｶﾞｷﾞ ＡＢＣ １２３", "①②③ ㈱ ㍻", "\u3000全角\u3000", "Ａ\u0301", "ﬃ ﬄ", "x\u200by\ufeffz",
                             "\u1e9b\u0323", "가\u0301", "\u200bstart", "ﬁ\u200b\u200bx", "\u0600a\u0301", "a\r\n\r\nb",
                             "क्ष ﷺ", "\U0001F1EB\U0001F1F7\U0001F1EB", "A\u030a\u0301"]


def _check_precompiled(ours, theirs, text):
    from engine.families.hf.normalizers import AlignedText
    expected, align = hf_alignment(theirs, text)
    assert ours.normalize_str(text) == expected, text
    assert ours.normalize(text) == (expected, align), text
    whole = AlignedText(text)
    ours.apply_whole(whole)
    assert (whole.text, whole.align) == (expected, align), text


def test_precompiled_unit_cases(charsmap_node):
    ours = normalizer_from_json(charsmap_node, where())
    theirs = hf_normalizer(charsmap_node)
    for text in PRECOMPILED_CASES:
        _check_precompiled(ours, theirs, text)


@settings(max_examples=200, deadline=None, suppress_health_check=list(HealthCheck))
@given(text=spicy_text)
def test_precompiled_hypothesis(charsmap_node, text):
    _check_precompiled(normalizer_from_json(charsmap_node, where()), hf_normalizer(charsmap_node), text)


def test_precompiled_every_bmp_code_point_in_context(charsmap_node):
    ours, theirs = normalizer_from_json(charsmap_node, where()), hf_normalizer(charsmap_node)
    for sep in ("a", "\u0301", "\u200b"):
        for text in code_point_chunks(0xFFFF, sep=sep):
            assert ours.normalize_str(text) == theirs.normalize_str(text), (sep, text[1])


def test_precompiled_bad_blob_names_the_json_path():
    import base64
    node = {"type": "Precompiled", "precompiled_charsmap": base64.b64encode(b"\xff\xff\x00\x00abcd").decode()}
    with pytest.raises(ValueError, match=r"test\.json: \$\.normalizer: precompiled_charsmap: .*trie"):
        normalizer_from_json(node, where())
    with pytest.raises(ValueError, match=r"\$\.normalizer\.precompiled_charsmap.*base64"):
        normalizer_from_json({"type": "Precompiled", "precompiled_charsmap": "!!"}, where())


# ------------------------------------------------------------ every code point
EVERY_CP = [{"type": "NFC"}, {"type": "NFD"}, {"type": "NFKC"}, {"type": "NFKD"}, {"type": "Lowercase"},
            {"type": "StripAccents"}, {"type": "Strip", "strip_left": True, "strip_right": True},
            {"type": "BertNormalizer", "clean_text": True, "handle_chinese_chars": True, "strip_accents": None, "lowercase": True},
            {"type": "BertNormalizer", "clean_text": True, "handle_chinese_chars": False, "strip_accents": True,
             "lowercase": False}]


def _every_code_point(last: int, aligned: bool) -> None:
    for node in EVERY_CP:
        ours, theirs = normalizer_from_json(node, where()), hf_normalizer(node)
        for text in code_point_chunks(last):
            if aligned:
                assert ours.normalize(text) == hf_alignment(theirs, text), (node, text[1])
            else:
                assert ours.normalize_str(text) == theirs.normalize_str(text), (node, text[1])


def test_every_bmp_code_point_in_context():
    """Each BMP character between two letters: our classes (case, marks, controls, decompositions) are
    tokenizers' own, down to the Unicode versions of its tables (engine/data/hf_stage_unicode_fixes.json)."""
    _every_code_point(0xFFFF, aligned=False)


@pytest.mark.slow
def test_every_code_point_in_context_with_alignment():
    _every_code_point(0x10FFFF, aligned=False)
    _every_code_point(0xFFFF, aligned=True)


def test_a_crafted_long_replacement_is_refused_before_use():
    node = {"type": "Sequence", "normalizers": [{"type": "Replace", "pattern": {"String": " "}, "content": "x" * 100_000}]}
    with pytest.raises(ValueError, match=r"\$\.normalizer\.normalizers\[0\]\.content.*100,000 characters"):
        normalizer_from_json(node, where())
    with pytest.raises(ValueError, match=r"\$\.normalizer\.prepend"):
        normalizer_from_json({"type": "Prepend", "prepend": "▁" * 5000}, where())


def test_limited_says_whether_a_file_regex_runs():
    assert normalizer_from_json({"type": "Sequence", "normalizers": [
        {"type": "NFC"}, {"type": "Replace", "pattern": {"Regex": " +"}, "content": " "}]}, where()).limited
    assert not normalizer_from_json({"type": "Sequence", "normalizers": [
        {"type": "NFC"}, {"type": "Replace", "pattern": {"String": " "}, "content": "▁"}]}, where()).limited


def test_precompiled_rule_pointing_outside_the_blob_is_refused_with_its_path(charsmap_node):
    """A charsmap cut short after its trie: its rules' outputs lie outside it.  Refused when the file is read
    (the whole trie is walked at load; before, the first lookup that reached such a rule raised), naming
    the file and the JSON path, instead of reading past the blob."""
    import base64
    import struct

    from engine.formats.charsmap import CharsmapError

    blob = base64.b64decode(charsmap_node["precompiled_charsmap"])
    (trie,) = struct.unpack_from("<I", blob)
    node = {"type": "Precompiled", "precompiled_charsmap": base64.b64encode(blob[:4 + trie + 2]).decode()}
    with pytest.raises(CharsmapError, match=r"test\.json: \$\.normalizer: precompiled_charsmap: a rule's output "
                                            r"offset [\d,]+ lies outside the 2 bytes of outputs"):
        normalizer_from_json(node, where())
