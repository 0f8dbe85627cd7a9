"""The context-window breakdown: its parts add up to a chat row's count, the window's free space and overflow,
and each tool's cost adds up to the tools part."""
from __future__ import annotations

import pytest

import engine
from engine.chat import chat_tokens
from engine.explain import context_window as cw

CONV = [{"role": "system", "content": "You are a helpful assistant with tools."},
        {"role": "user", "content": "What's the weather in Paris? 日本"},
        {"role": "assistant", "content": "Let me check."},
        {"role": "user", "content": "And read README.md please."}]
TOOLS = [
    {"type": "function", "function": {"name": "get_weather", "description": "Current weather in a city.",
     "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}},
    {"type": "function", "function": {"name": "read_file", "description": "Read a text file.",
     "parameters": {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}}},
]


def _pairs(r):
    return [(p.label, p.tokens) for p in r.breakdown()]


@pytest.mark.parametrize("name", ["o200k_base", "llama3", "qwen2.5", "mistral-v3", "glm5", "deepseek-v4"])
@pytest.mark.parametrize("with_tools", [False, True])
def test_the_parts_sum_to_the_rows_count(name, with_tools):
    r = chat_tokens(CONV, engine.get_encoding(name), tools=TOOLS if with_tools else None)
    use = cw.window_use(_pairs(r), window=100_000, reserved_output=1_000)
    assert use.prompt == r.count
    assert use.used == r.count + 1_000 and use.free == 100_000 - r.count - 1_000 and use.over == 0
    # Mistral v3's template writes the system prompt into the last user message: its tokens count there
    assert (use.tokens("system") > 0) == (name != "mistral-v3")
    assert use.tokens("messages") > 0 and use.tokens("images") == 0
    assert (use.tokens("tools") > 0) == (with_tools and any(p.label == "tools" for p in r.breakdown()))
    assert [p.label for p in use.parts] == list(cw.PARTS)


def test_images_come_on_top_of_the_rows_text_and_the_sum_holds():
    """A chat row encodes text; its image and PDF parts are counted beside it by the maker's rule (engine.chat.media)."""
    r = chat_tokens(CONV, engine.get_encoding("o200k_base"))
    use = cw.window_use(_pairs(r), window=None, image_tokens=765)
    plain = cw.window_use(_pairs(r), window=None)
    assert use.tokens("images") == 765 and use.tokens("messages") == plain.tokens("messages")
    assert use.prompt == r.count + 765
    assert use.free is None and use.over == 0  # an unknown window: nothing free, nothing over
    with pytest.raises(ValueError, match="counts: 0 or more"):
        cw.window_use(_pairs(r), window=None, image_tokens=-1)


def test_over_the_window_says_by_how_much():
    use = cw.window_use([("message 1 · user", 900), ("priming", 3)], window=1_000, reserved_output=200)
    assert use.used == 1_103 and use.over == 103 and use.free == 0


def test_refuses_negative_counts():
    with pytest.raises(ValueError, match="0 or more"):
        cw.window_use([], window=10, reserved_output=-1)


@pytest.mark.parametrize("name", ["o200k_harmony", "llama3", "qwen2.5", "glm5"])
def test_each_tools_cost_is_its_marginal_count_and_they_sum_to_the_tools_part(name):
    enc = engine.get_encoding(name)
    full = chat_tokens(CONV, enc, tools=TOOLS)
    tools_tokens = sum(p.tokens for p in full.breakdown() if p.label == "tools")
    without = {t["function"]["name"]: chat_tokens(CONV, enc, tools=[o for o in TOOLS if o is not t]).count
               for t in TOOLS}
    costs = cw.tool_costs(tools_tokens, full.count, without)
    assert sum(tokens for _name, tokens in costs) == tools_tokens
    for tool in TOOLS:
        tool_name = tool["function"]["name"]
        assert dict(costs)[tool_name] == full.count - without[tool_name] > 0
    use = cw.window_use(_pairs(full), window=None, tool_costs=costs)
    assert sum(t for _n, t in use.tool_costs) == use.tokens("tools")
