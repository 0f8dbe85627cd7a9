"""Tool definitions, tool calls and thinking switches: the API, the checks, and each format's ids
against its maker's own code (mistral-common, openai-harmony, the models' own Jinja templates).

The conversations are OpenAI-style dicts (tests/engine/chat/tool_conversations.py), passed as
they are to `chat_tokens`, as agent code would.
"""
from __future__ import annotations

import functools
import json
from pathlib import Path

import pytest

import engine
from engine.chat import ChatFormatError, Message, ToolCall, chat_tokens, check_tools
from engine.chat.tools import MAX_SCHEMA_DEPTH, MAX_TOOLS
from tests.engine.chat.tool_conversations import READ_FILE, TOOLS, WEATHER, conversation

SEEDS = range(24)


# ---- the API: OpenAI dicts in, a breakdown out

def test_openai_dicts_with_several_calls_and_text_beside_them():
    msgs = [{"role": "user", "content": "weather in Paris and Rome?"},
            {"role": "assistant", "content": "Checking.", "refusal": None, "tool_calls": [
                {"id": "abcdefghi", "type": "function", "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'}},
                {"id": "jklmnopqr", "type": "function", "function": {"name": "get_weather", "arguments": '{"city": "Rome"}'}}]},
            {"role": "tool", "tool_call_id": "abcdefghi", "name": "get_weather", "content": "21"},
            {"role": "tool", "tool_call_id": "jklmnopqr", "name": "get_weather", "content": "24"}]
    m = engine.chat.as_messages(msgs)
    assert m[1].text == "Checking." and m[1].calls == (ToolCall("get_weather", '{"city": "Paris"}', "abcdefghi"),
                                                       ToolCall("get_weather", '{"city": "Rome"}', "jklmnopqr"))
    assert m[2].tool_call_id == "abcdefghi" and m[2].name == "get_weather"
    # the one-call shorthand reads the same call
    short = Message("assistant", '{"city": "Paris"}', call="get_weather", tool_call_id="abcdefghi")
    assert short.calls == (m[1].calls[0],) and short.text == ""


def test_breakdown_adds_up_and_names_the_parts():
    msgs, _ = conversation(3, content_beside_calls=False)
    enc = engine.get_encoding("mistral-v3")
    out = chat_tokens(msgs, enc, tools=[WEATHER, READ_FILE])
    parts = out.breakdown()
    assert sum(p.tokens for p in parts) == out.count
    labels = [p.label for p in parts]
    assert labels[0] == "tools" and parts[0].tokens > 20
    assert labels[-1] == "priming"
    for p in parts:
        if p.label.startswith("message"):
            assert p.label == f"message {p.message + 1} · {msgs[p.message]['role']}"
    # Mistral writes the system text into the last user turn: the system message has no tokens of its own
    assert {p.message for p in parts if p.label.startswith("message")} == {
        i for i, m in enumerate(msgs) if m["role"] != "system"}
    without = chat_tokens(msgs, enc)
    assert out.count - without.count == parts[0].tokens


# ---- the checks: clear messages, nothing breaks

@pytest.mark.parametrize("tools, match", [
    ("not a list", "tools must be a list"),
    ([42], "tool 1 must be an object"),
    ([{"type": "function", "function": {"name": "a b"}}], r"function.name 'a b' is not a tool name"),
    ([{"type": "function", "function": {"name": "<script>alert(1)</script>"}}], "is not a tool name"),
    ([{"type": "function", "function": {"name": "f", "parameters": "{}"}}], r"tool 1 \(f\): function.parameters must be"),
    ([{"type": "function", "function": {"name": "f", "description": 3}}], "function.description must be text"),
    ([{"type": "retrieval"}], "'retrieval' is not modelled"),
    ([{"type": "function", "function": {"name": "f", "exec": "x"}}], r"\['exec'\] of the function are not modelled"),
    ([WEATHER, WEATHER], "defined twice"),
    ([{"name": f"f{i}"} for i in range(10_000)], "10,000 tools; the limit is 128"),
])
def test_bad_tools_say_what_to_fix(tools, match):
    with pytest.raises(ChatFormatError, match=match):
        chat_tokens([{"role": "user", "content": "x"}], engine.get_encoding("mistral-v3"), tools=tools)


def test_a_deeply_nested_schema_is_refused_without_recursing():
    schema: dict = {}
    for _ in range(100_000):
        schema = {"type": "object", "properties": {"x": schema}}
    with pytest.raises(ChatFormatError, match=f"more than {MAX_SCHEMA_DEPTH} levels"):
        check_tools([{"type": "function", "function": {"name": "deep", "parameters": schema}}])


def test_tools_are_normalised_in_the_callers_key_order():
    bare = {"parameters": {"type": "object"}, "name": "f"}
    assert check_tools([bare]) == ({"type": "function", "function": {"parameters": {"type": "object"}, "name": "f"}},)
    assert len(check_tools([{"name": f"f{i}"} for i in range(MAX_TOOLS)])) == MAX_TOOLS


def test_a_format_without_a_thinking_switch_says_so():
    with pytest.raises(ChatFormatError, match="no thinking switch"):
        chat_tokens([{"role": "user", "content": "x"}], engine.get_encoding("llama3"), thinking=True)
    with pytest.raises(ChatFormatError, match="use one of 'low', 'medium', 'high'"):
        chat_tokens([{"role": "user", "content": "x"}], engine.get_encoding("o200k_harmony"), thinking="max")


# ---- Mistral v3 / Tekken: mistral-common's encode_chat_completion with tools

MISTRAL_FILES = {"mistral-v3": "mistral_instruct_tokenizer_240323.model.v3", "mistral-tekken": "tekken_240911.json"}


@functools.lru_cache(maxsize=4)
def _mistral_tokenizer(name: str):
    mc = pytest.importorskip("mistral_common")
    from mistral_common.tokens.tokenizers.mistral import MistralTokenizer
    return MistralTokenizer.from_file(str(Path(mc.__file__).parent / "data" / MISTRAL_FILES[name]))


def mistral_reference(name: str, msgs: list[dict], tools: list[dict]) -> list[int]:
    from mistral_common.protocol.instruct.request import ChatCompletionRequest
    # mistral-common reads OpenAI's dicts as they are (and validates them itself)
    request = ChatCompletionRequest.from_openai(msgs, tools=tools or None)
    return _mistral_tokenizer(name).encode_chat_completion(request).tokens


@pytest.mark.parametrize("name", ["mistral-v3", "mistral-tekken"])
def test_mistral_tools_equal_mistral_common(name):
    enc = engine.get_encoding(name)
    n_tools = n_multi = 0
    for seed in SEEDS:
        msgs, tools = conversation(seed, content_beside_calls=False, tool_names=False)
        got = chat_tokens(msgs, enc, tools=tools)
        assert got.ids == mistral_reference(name, msgs, tools), (seed, msgs, tools)
        n_tools += bool(tools)
        n_multi += any(len(m.get("tool_calls") or []) > 1 for m in msgs)
    assert n_tools >= 15 and n_multi >= 5


def test_mistral_refuses_text_beside_a_call():
    msgs, tools = conversation(1)
    msgs = [{"role": "user", "content": "x"},
            {"role": "assistant", "content": "Checking.", "tool_calls": [
                {"id": "abcdefghi", "type": "function", "function": {"name": "get_weather", "arguments": "{}"}}]},
            {"role": "tool", "tool_call_id": "abcdefghi", "content": "21"}]
    with pytest.raises(ChatFormatError, match="text beside"):
        chat_tokens(msgs, engine.get_encoding("mistral-v3"), tools=[WEATHER])
