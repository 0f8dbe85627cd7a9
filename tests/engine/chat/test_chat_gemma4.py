"""Gemma 4's chat format against its own Jinja template (the ``tokenizer.chat_template`` of
llama.cpp's Gemma 4 vocabulary GGUF in llama-cpp-python 0.3.36), rendered with jinja2 as transformers
renders it: tools, calls, results, the thinking switch, odd schemas and hostile strings.

Gemma 4 ships no tokenizer.json in a pinned package, so the rendered string is encoded by our gemma4
encoding built from that same GGUF (itself equal to llama.cpp's test vectors,
tests/engine/families/test_gguf*.py); the strings are compared first, then the ids.
"""
from __future__ import annotations

import functools
import json

import pytest

from engine.chat import ChatFormatError, chat_tokens
from tests.engine.chat.tool_conversations import READ_FILE, SEARCH, WEATHER, conversation

GGUF = "llama_cpp_python-0.3.36/vendor/llama.cpp/models/ggml-vocab-gemma-4.gguf"
MODEL = f"llama-cpp-python:{GGUF}"
SEEDS = range(24)

ODD = {"type": "function", "function": {
    "name": "odd_schema", "description": 'Odd "schema" <b> & {{ x }} 日本 🦙',
    "parameters": {"type": "object", "properties": {
        "mode": {"type": "string", "enum": ["a", "b c"], "nullable": True},
        "count": {"type": "integer", "description": "How many", "nullable": True, "default": 3},
        "tags": {"type": "array", "items": {"type": "string", "enum": ["x", "y"], "maxLength": 5}},
        "rows": {"type": "array", "items": {"type": "object", "properties": {"k": {"type": "string"}},
                                            "required": ["k"], "description": None}},
        "either": {"type": ["string", "null"], "description": "two types"},
        "nested": {"type": "object", "properties": {"deep": {"type": "object", "properties": {
            "leaf": {"type": "boolean", "description": "a leaf"}}}}, "required": ["deep"]},
        "loose": {"type": "object", "additionalProperties": False},
        "description": {"type": "string"},
        "Upper": {"description": "no type"}},
        "required": ["mode", "rows"]}}}
BARE = {"type": "function", "function": {"name": "bare", "parameters": {"properties": {"a": {"type": "number"}}}}}


@functools.lru_cache(maxsize=1)
def gemma4():
    """Our gemma4 encoding built from the pinned GGUF (so the test never depends on the install)."""
    from engine.families.gguf import load_gguf
    from tests.reference_packages import member
    return load_gguf(member("llama-cpp-python", GGUF), name="gemma4")


def template_messages(msgs: list[dict]) -> list[dict]:
    """The messages as transformers users pass them to a template that iterates arguments: each
    call's JSON-object arguments parsed (other text kept as the string)."""
    out = []
    for m in msgs:
        m = dict(m)
        if m.get("tool_calls"):
            calls = []
            for c in m["tool_calls"]:
                try:
                    args = json.loads(c["function"]["arguments"])
                except ValueError:
                    args = c["function"]["arguments"]
                if not isinstance(args, dict):
                    args = c["function"]["arguments"]
                calls.append({**c, "function": {**c["function"], "arguments": args}})
            m["tool_calls"] = calls
        out.append(m)
    return out


def reference(msgs: list[dict], tools: list[dict], thinking) -> str:
    from tests.oracles.chat_templates import render
    extra = {} if thinking is None else {"enable_thinking": thinking}
    return render(MODEL, template_messages(msgs), tools, bos_token="<bos>", **extra)


@pytest.mark.heavy
def test_gemma4_equals_its_template():
    enc = gemma4()
    n_tools = n_think = 0
    for seed in SEEDS:
        msgs, tools = conversation(seed)
        if seed % 5 == 0:
            tools = tools + [ODD, BARE]
        thinking = (True, False, None)[seed % 3]
        got = chat_tokens(msgs, enc, format="gemma4", tools=tools, thinking=thinking)
        text = reference(msgs, tools, thinking)
        assert got.text == text, (seed, got.text, text)
        assert got.ids == enc.encode(text, allowed_special="all"), seed
        assert sum(p.tokens for p in got.breakdown()) == got.count
        n_tools += bool(tools)
        n_think += thinking is True
    assert n_tools >= 20 and n_think >= 8


def test_gemma4_texts_without_tools_thinking_and_odd_content():
    enc = gemma4()
    cases = [
        [{"role": "user", "content": "  hi  "}],
        [{"role": "system", "content": "  Be terse.  "}, {"role": "user", "content": "x"},
         {"role": "assistant", "content": "  <|channel>thought\nhidden<channel|>Paris.  "}, {"role": "user", "content": "y"}],
        [{"role": "user", "content": "a"}, {"role": "user", "content": "b"}, {"role": "system", "content": "late"}],
        [{"role": "user", "content": "<|turn>user\n<|\"|> typed"}],
    ]
    for msgs in cases:
        for thinking in (None, True, False):
            got = chat_tokens(msgs, enc, format="gemma4", thinking=thinking)
            text = reference(msgs, [], thinking)
            assert got.text == text, (msgs, thinking)
            assert got.ids == enc.encode(text, allowed_special="all")


@pytest.mark.heavy
def test_gemma4_breakdown_and_thinking_switch():
    enc = gemma4()
    msgs = [{"role": "system", "content": "Be terse."}, {"role": "user", "content": "weather?"}]
    on = chat_tokens(msgs, enc, format="gemma4", tools=[WEATHER, READ_FILE, SEARCH], thinking=True)
    off = chat_tokens(msgs, enc, format="gemma4", tools=[WEATHER, READ_FILE, SEARCH])
    assert off.thinking is False and on.count != off.count
    parts = off.breakdown()
    assert parts[0].label == "tools" and parts[0].tokens > 50
    assert off.priming == len(enc.encode("<|turn>model\n<|channel>thought\n<channel|>", allowed_special="all"))
    assert on.priming == len(enc.encode("<|turn>model\n", allowed_special="all"))


def test_gemma4_refuses_what_its_template_cannot_write():
    enc = gemma4()
    with pytest.raises(ChatFormatError, match="no messages"):
        chat_tokens([], enc, format="gemma4")
    bad = {"type": "function", "function": {"name": "f", "parameters": {"type": "object", "properties": ["a"]}}}
    with pytest.raises(ChatFormatError, match="properties"):
        chat_tokens([{"role": "user", "content": "x"}], enc, format="gemma4", tools=[bad])
