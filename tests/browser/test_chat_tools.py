"""The Chat view's tools in a real browser: three tools on five models, the stacked breakdown, and the
thinking switch changing a count (screenshots in test-results/screenshots/)."""
from __future__ import annotations

import pytest

import json
import re
from urllib.parse import quote

from playwright.sync_api import Page, expect

import engine
from engine.chat import chat_tokens
from playground.views import chat as chat_view

FIRST = 90_000  # ms: the first render loads five vocabularies on 2 busy cores
FIVE = ["o200k_base", "o200k_harmony", "llama3", "qwen2.5", "mistral-tekken"]
CONV = [{"role": "system", "content": "You are a helpful assistant with tools."},
        {"role": "user", "content": "What's the weather in Paris, and what does README.md say?"}]
THREE = [chat_view.PRESETS[k] for k in ("weather", "MCP file", "search")]


def test_three_tools_on_five_models_and_the_thinking_switch(page: Page, screenshot):
    code = chat_view.pack(CONV, FIVE, json.dumps(THREE, indent=1))
    page.goto("/chat?v.chat_conv=" + quote(json.dumps(code)))
    expect(page.locator("div.chat")).to_have_count(5, timeout=FIRST)  # Llama 3.1's tool prompt counted too
    for name in FIVE:
        n = chat_tokens(CONV, engine.get_encoding(name), tools=THREE).count
        expect(page.get_by_text(f"{chat_view.MODEL_LABELS[name]} · {n} tokens")).to_be_visible()
    expect(page.get_by_text(f"{chat_view.MODEL_LABELS['o200k_base']} is an estimate")).to_be_visible()
    expect(page.get_by_text("Where the tokens go")).to_be_visible()
    expect(page.locator("[data-testid=stVegaLiteChart], .vega-embed").first).to_be_visible(timeout=FIRST)
    expect(page.get_by_test_id("stException")).to_have_count(0)
    page.get_by_text("Where the tokens go").scroll_into_view_if_needed()
    screenshot("chat_three_tools_five_models")

    # the thinking switch: Qwen3 off adds <think>\n\n</think>\n\n to the priming
    off = chat_tokens(CONV, engine.get_encoding("qwen2.5"), tools=THREE, thinking=False).count
    page.get_by_test_id("stSelectbox").filter(has_text="Qwen3 thinking").click()
    page.get_by_role("option", name="off", exact=True).click()
    expect(page.get_by_text(f"{chat_view.MODEL_LABELS['qwen2.5']} · {off} tokens")).to_be_visible(timeout=FIRST)
    # and the share link carries it
    page.wait_for_function("() => (new URLSearchParams(location.search).get('v.chat_conv') || '').length > 10",
                           timeout=FIRST)
    expect(page.get_by_test_id("stException")).to_have_count(0)
    screenshot("chat_thinking_off")


@pytest.mark.slow  # slow (issue 32): those formats are checked against their templates in tests/engine/chat and drawn in tests/app/test_chat_tools.py
def test_glm5_minimax_and_deepseek_v3_in_the_browser(page: Page, screenshot):
    new = ["glm5", "minimax-m3", "deepseek-v3", "qwen2.5"]
    code = chat_view.pack(CONV, new, json.dumps(THREE, indent=1))
    page.goto("/chat?v.chat_conv=" + quote(json.dumps(code)))
    expect(page.locator("div.chat")).to_have_count(3, timeout=FIRST)  # DeepSeek V3's template writes no tools
    for name in ("glm5", "minimax-m3", "qwen2.5"):
        n = chat_tokens(CONV, engine.get_encoding(name), tools=THREE).count
        expect(page.get_by_text(f"{chat_view.MODEL_LABELS[name]} · {n} tokens")).to_be_visible()
    expect(page.get_by_test_id("stAlert").filter(has_text=re.compile(r"writes\W*no\W*tool\W*definitions"))).to_have_count(1)
    expect(page.get_by_test_id("stException")).to_have_count(0)
    page.get_by_text("Where the tokens go").scroll_into_view_if_needed()
    screenshot("chat_glm5_minimax_deepseek_v3")
    # MiniMax-M3's thinking mode: "enabled" primes <mm:think>
    on = chat_tokens(CONV, engine.get_encoding("minimax-m3"), tools=THREE, thinking=True).count
    page.get_by_test_id("stSelectbox").filter(has_text="MiniMax-M3 thinking mode").click()
    page.get_by_role("option", name="on", exact=True).click()
    expect(page.get_by_text(f"{chat_view.MODEL_LABELS['minimax-m3']} · {on} tokens")).to_be_visible(timeout=FIRST)
    expect(page.get_by_test_id("stException")).to_have_count(0)
    screenshot("chat_minimax_thinking_on")


@pytest.mark.slow  # slow (issue 32): tests/app/test_chat_calls.py edits tool calls through AppTest; the default run keeps test_three_tools_on_five_models_and_the_thinking_switch
def test_several_tool_calls_are_edited_and_gemma4_counts_them(page: Page, screenshot):
    from tests.app.test_chat_calls import TWO_CALLS
    models = ["qwen2.5", "llama3"] + (["gemma4"] if "gemma4" in chat_view.chat_models() else [])
    messages, _models, _notes = chat_view.parse_json(json.dumps({"messages": TWO_CALLS}).encode())
    code = chat_view.pack(messages, models, json.dumps(THREE[:1], indent=1))
    page.goto("/chat?v.chat_conv=" + quote(json.dumps(code)))
    expect(page.locator("div.chat")).to_have_count(len(models), timeout=FIRST)
    for name in models:
        n = chat_tokens(TWO_CALLS, engine.get_encoding(name), tools=THREE[:1]).count
        expect(page.get_by_text(f"{chat_view.MODEL_LABELS[name]} · {n} tokens")).to_be_visible()
    expect(page.get_by_label("call 2 · tool")).to_have_value("get_weather")
    page.get_by_label("call 1 · tool").scroll_into_view_if_needed()
    screenshot("chat_two_calls_in_one_message")
    # a third call: the count follows
    page.get_by_role("button", name="More ⋯").nth(1).click()
    expect(page.get_by_role("textbox", name="reasoning_content").filter(visible=True)).to_have_value("two cities, two calls")
    screenshot("chat_call_popover")
    page.get_by_role("button", name="+ tool call").click()
    expect(page.get_by_label("call 3 · tool")).to_be_visible(timeout=FIRST)
    three = [TWO_CALLS[0], {**TWO_CALLS[1], "tool_calls": TWO_CALLS[1]["tool_calls"] + [
        {"type": "function", "function": {"name": "get_weather", "arguments": "{}"}}]}] + TWO_CALLS[2:]
    n = chat_tokens(three, engine.get_encoding("qwen2.5"), tools=THREE[:1]).count
    expect(page.get_by_text(f"{chat_view.MODEL_LABELS['qwen2.5']} · {n} tokens")).to_be_visible(timeout=FIRST)
    expect(page.get_by_test_id("stException")).to_have_count(0)
    page.keyboard.press("Escape")
    page.get_by_label("call 3 · tool").scroll_into_view_if_needed()
    screenshot("chat_third_call_added")


def test_breakdown_legend_wraps_inside_a_phone(page: Page, screenshot):
    """Seven parts (tools, system, user, assistant, tool results, frame, priming) in one row ran past a
    390 px chart and were cut; the legend now wraps to the chart's width."""
    page.set_viewport_size({"width": 390, "height": 844})
    conv = [*CONV, {"role": "assistant", "content": "Let me check."}, {"role": "tool", "content": "18 °C, cloudy"}]
    page.goto("/chat?v.chat_conv=" + quote(json.dumps(chat_view.pack(conv, FIVE[:3], json.dumps(THREE[:1])))))
    chart = page.get_by_test_id("stVegaLiteChart").first
    labels = chart.locator("g.role-legend-label text")
    expect(labels).to_have_count(7, timeout=FIRST)
    right = chart.locator("svg").first.bounding_box()
    for i in range(7):
        box = labels.nth(i).bounding_box()
        assert box["x"] + box["width"] <= right["x"] + right["width"] + 1, (labels.nth(i).text_content(), box, right)
    chart.scroll_into_view_if_needed()
    screenshot("chat_breakdown_phone")
