"""Every case of tests/data/corpus (the shared corpus) (tiktoken 0.14's own ids) reproduced exactly."""
from __future__ import annotations

import base64
import json

import pytest

import engine
from tests.conftest import CORPUS, case_text, load_cases

ENCODINGS = ["gpt2", "cl100k_base", "o200k_base"]
CASES = load_cases()
DECODE_CASES = [json.loads(line) for line in (CORPUS / "decode_cases.jsonl").read_text(encoding="utf-8").split("\n") if line.strip()]


def _set_or_all(value):
    return value if value == "all" else set(value)


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_encode_matches_tiktoken(case):
    text = case_text(case)
    for name in ENCODINGS:
        enc = engine.get_encoding(name)
        assert enc.encode_ordinary(text) == case[name], name
        assert enc.encode(text, allowed_special=set(), disallowed_special=()) == case[name], name
        if f"{name}_special" in case:
            assert enc.encode(text, allowed_special="all") == case[f"{name}_special"], name
        if "decoded" in case:
            assert enc.decode(case[name]) == case["decoded"]
        elif "text_codepoints" not in case:
            assert enc.decode(case[name]) == text


@pytest.mark.parametrize("case", [c for c in CASES if c.get("calls")], ids=lambda c: c["id"])
def test_special_token_calls(case):
    text = case_text(case)
    for call in case["calls"]:
        enc = engine.get_encoding(call["encoding"])
        kwargs = dict(allowed_special=_set_or_all(call["allowed_special"]),
                      disallowed_special=_set_or_all(call["disallowed_special"]))
        if call["expect"] == "ValueError":
            with pytest.raises(ValueError, match="disallowed special token"):
                enc.encode(text, **kwargs)
        else:
            assert enc.encode(text, **kwargs) == call["expect"]


@pytest.mark.parametrize("case", DECODE_CASES, ids=[c["id"] for c in DECODE_CASES])
def test_decode_cases(case):
    enc = engine.get_encoding(case["encoding"])
    if "raises" in case:
        with pytest.raises(KeyError) as info:
            enc.decode(case["ids"])
        bad = enc.unknown_ids(case["ids"])
        assert bad and str(bad[0]) in str(info.value)
        with pytest.raises(KeyError):
            enc.decode_bytes(case["ids"])
    else:
        assert enc.decode(case["ids"]) == case["decode"]
        assert base64.b64encode(enc.decode_bytes(case["ids"])).decode() == case["decode_bytes_b64"]
