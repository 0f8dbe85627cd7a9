"""``reasoning_content`` on assistant messages (the OpenAI-style field agent code keeps a reasoning
model's thoughts in), written where each template that reads it writes it: Qwen 3, Qwen 3.5/3.6,
GLM-4.7/5, GLM-5.1/5.2, MiniMax-M3 (their Jinja templates) and DeepSeek V4 (its encoding_dsv4.py),
ids compared over seeded conversations; formats whose reference never reads it say so in the note.
"""
from __future__ import annotations

import random

import pytest

import engine
from engine.chat import ChatFormatError, Message, chat_tokens
from tests.engine.chat.test_chat_tools import _glm_messages, _qwen35_messages, dsv4_reference
from tests.engine.chat.tool_conversations import conversation

SEEDS = range(24)
THOUGHTS = ["weighing the options", "\n  first A, then B  \n", "", "日本 🦙 <think>nested</think>"]


def with_reasoning(seed: int) -> tuple[list[dict], list[dict]]:
    """A seeded conversation whose assistant messages carry reasoning_content (some empty, some
    beside text that itself holds a think block), ending with a reasoned turn after the last user."""
    msgs, tools = conversation(seed)
    rng = random.Random(seed * 7 + 1)
    out = []
    for m in msgs:
        if m["role"] == "assistant" and rng.random() < 0.7:
            m = {**m, "reasoning_content": rng.choice(THOUGHTS)}
        out.append(m)
    out += [{"role": "user", "content": "and why?"},
            {"role": "assistant", "content": rng.choice(["Because.", "<think>inline</think>Because."]),
             "reasoning_content": rng.choice(THOUGHTS[:2])}]
    if seed % 2:
        out.append({"role": "user", "content": "ok"})
    return out, tools




def tokenizer_of(model: str) -> str:
    return {"qwen-3.6": "qwen-3.5", "glm-5": "glm-4.7-flash", "glm-5.1": "glm-4.7-flash",
            "glm-5.2": "glm-4.7-flash"}.get(model, model)


CASES = [  # (format, template model, its thinking keywords, the settings tried, the messages as the template reads them)
    ("qwen3", "qwen-3", lambda t: {"enable_thinking": t}, (True, False), lambda m: m),
    ("qwen3.5", "qwen-3.6", lambda t: {"enable_thinking": t}, (True, False), _qwen35_messages),
    ("glm", "glm-4.7-flash", lambda t: {"enable_thinking": t}, (True, False), _glm_messages),
    ("glm-5.1", "glm-5.1", lambda t: {"enable_thinking": t}, (True, False), _glm_messages),
    ("glm-5.2", "glm-5.2", lambda t: {"enable_thinking": t}, (True, False), _glm_messages),
    ("minimax-m3", "minimax-m3", lambda t: {"thinking_mode": {True: "enabled", False: "disabled",
                                                              "adaptive": "adaptive"}[t]}, ("adaptive", True, False),
     _glm_messages),
]


@pytest.mark.parametrize("fmt, model, kwargs, settings, fix", CASES, ids=[c[0] for c in CASES])
def test_reasoning_content_equals_the_templates(fmt, model, kwargs, settings, fix):
    from tests.oracles.chat_templates import engine_encoding, hf_ids, render
    enc = engine_encoding(tokenizer_of(model))
    written = 0
    for seed in SEEDS:
        msgs, tools = with_reasoning(seed)
        thinking = settings[seed % len(settings)]
        got = chat_tokens(msgs, enc, format=fmt, tools=tools, thinking=thinking)
        text = render(model, fix(msgs), tools, **kwargs(thinking))
        assert got.text == text, (seed, got.text, text)
        assert got.ids == hf_ids(tokenizer_of(model), text), seed
        assert sum(p.tokens for p in got.breakdown()) == got.count
        written += "weighing the options" in text or "first A, then B" in text
        assert "reasoning_content" not in got.note
    assert written >= 10


@pytest.mark.parametrize("thinking", [False, True, "max"])
def test_reasoning_content_equals_deepseek_v4s_encoder(thinking):
    from tests.oracles.chat_templates import hf_ids
    enc = engine.get_encoding("deepseek-v4")
    written = 0
    for seed in SEEDS:
        msgs, tools = with_reasoning(seed)
        if seed % 3 == 0:
            tools = []  # without tools, earlier turns drop their reasoning
        got = chat_tokens(msgs, enc, tools=tools, thinking=thinking)
        text = dsv4_reference(msgs, tools, thinking)
        assert got.text == text, (seed, got.text, text)
        assert got.ids == hf_ids("deepseek-v4", text), seed
        written += "weighing the options" in text
    assert written >= (8 if thinking else 0)


def test_reasoning_content_is_read_from_openai_dicts_and_kept_in_the_message():
    m = engine.chat.as_messages([{"role": "user", "content": "x"},
                                 {"role": "assistant", "content": "y", "reasoning_content": "because"}])[1]
    assert m.reasoning_content == "because" and m.to_dict()["reasoning_content"] == "because"
    call = engine.chat.as_messages([{"role": "assistant", "content": None, "reasoning_content": "r", "tool_calls": [
        {"id": "a", "type": "function", "function": {"name": "f", "arguments": "{}"}}]}])[0]
    assert call.reasoning_content == "r" and call.calls[0].name == "f"
    with pytest.raises(ChatFormatError, match="only an assistant message"):
        Message("user", "x", reasoning_content="r")
    with pytest.raises(ChatFormatError, match="reasoning_content must be text"):
        engine.chat.as_messages([{"role": "assistant", "content": "y", "reasoning_content": 3}])


@pytest.mark.parametrize("name", ["o200k_base", "llama3", "mistral-v3"])
def test_formats_that_never_read_it_say_it_is_left_out(name):
    msgs = [{"role": "user", "content": "x"}, {"role": "assistant", "content": "y", "reasoning_content": "because"},
            {"role": "user", "content": "z"}]
    got = chat_tokens(msgs, engine.get_encoding(name))
    assert "reasoning_content" in got.note and got.ids == chat_tokens(
        [{k: v for k, v in m.items() if k != "reasoning_content"} for m in msgs], engine.get_encoding(name)).ids
