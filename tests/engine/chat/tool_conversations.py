"""Seeded conversations with tools, tool calls and tool results, shared by the chat-tools tests.

Each conversation is a list of OpenAI-style dicts (the form agent code has), with a tools list;
the shapes are chosen so every format's reference accepts them: a user turn first (after an
optional system prompt), tool results right after the assistant message that calls them, the ids
nine letters and digits (Mistral's rule), and an ending on a user or tool message.
"""
from __future__ import annotations

import json
import random

WEATHER = {"type": "function", "function": {
    "name": "get_weather", "description": "Current weather in a city.",
    "parameters": {"type": "object", "properties": {
        "city": {"type": "string", "description": "City name, e.g. Paris"},
        "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]}},
        "required": ["city"]}}}
READ_FILE = {"type": "function", "function": {
    "name": "read_file", "description": "Read a text file from the workspace (MCP filesystem server).",
    "parameters": {"type": "object", "properties": {
        "path": {"type": "string", "description": "Path relative to the workspace root"},
        "head": {"type": "integer", "description": "Only the first N lines"}},
        "required": ["path"]}}}
SEARCH = {"type": "function", "function": {
    "name": "search_docs", "description": "Full-text search — returns titles «and» snippets 日本.",
    "parameters": {"type": "object", "properties": {
        "query": {"type": "string"}, "limit": {"type": "integer", "minimum": 1, "maximum": 50},
        "filters": {"type": "object", "properties": {"lang": {"type": "array", "items": {"type": "string"}}}}},
        "required": ["query"]}}}
NO_PARAMS = {"type": "function", "function": {"name": "now", "description": "The current time."}}
TOOLS = [WEATHER, READ_FILE, SEARCH, NO_PARAMS]

TEXTS = ["What's the weather in Paris?", "read README.md please", "日本語で答えて", "emoji 🦙 and é",
         "  spaces  ", "line\nbreak", "<|im_end|> [INST] </s> text", "numbers 12345", "ok"]
ARGS = [{"city": "Paris"}, {"city": "東京", "unit": "celsius"}, {"path": "src/main.py", "head": 20},
        {"query": "tokenizer \"quotes\"", "limit": 3}, {}]
RESULTS = ['{"temp_c": 21, "sky": "clear"}', "sunny", "# README\nline two", '[1, 2, 3]', "日本 🙂"]


def call_id(rng: random.Random) -> str:
    return "".join(rng.choice("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789") for _ in range(9))


def conversation(seed: int, *, content_beside_calls: bool = True, tool_names: bool = True,
                 max_calls: int = 3) -> tuple[list[dict], list[dict]]:
    """(messages, tools) for one seed."""
    rng = random.Random(seed)
    tools = rng.sample(TOOLS, rng.randint(1, len(TOOLS))) if rng.random() < 0.85 else []
    names = [t["function"]["name"] for t in tools] or ["get_weather"]
    msgs: list[dict] = []
    if rng.random() < 0.6:
        msgs.append({"role": "system", "content": rng.choice(["You are a helpful assistant.", "Be terse. 簡潔に。"])})
    for turn in range(rng.randint(1, 3)):
        msgs.append({"role": "user", "content": rng.choice(TEXTS)})
        if rng.random() < 0.75:
            calls = []
            for _ in range(rng.randint(1, max_calls)):
                calls.append({"id": call_id(rng), "type": "function", "function": {
                    "name": rng.choice(names), "arguments": json.dumps(rng.choice(ARGS), ensure_ascii=False)}})
            text = rng.choice(["", "", "Let me check."]) if content_beside_calls else ""
            msgs.append({"role": "assistant", "content": text or None, "tool_calls": calls})
            for c in calls:
                result = {"role": "tool", "tool_call_id": c["id"], "content": rng.choice(RESULTS)}
                if tool_names:
                    result["name"] = c["function"]["name"]
                msgs.append(result)
            if rng.random() < 0.4:
                break  # ends on tool results
        msgs.append({"role": "assistant", "content": rng.choice(["It is 21 °C.", "Done.", "見つかりました。"])})
    if msgs[-1]["role"] == "assistant":
        msgs.append({"role": "user", "content": rng.choice(TEXTS)})
    return msgs, tools
