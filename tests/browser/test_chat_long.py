"""The Chat view in a real browser: on a phone a count shows within the first two screens and a message is
its role and its text; a 30,000-character system prompt is taken and counted, with a tool call,
for five models -- every format counts the call; OpenAI's count is labelled an estimate.
Screenshots go to test-results/screenshots/."""
from __future__ import annotations

import pytest

import json
import re
from urllib.parse import quote

from playwright.sync_api import Page, expect

import engine
from engine.chat import chat_tokens
from playground.views import chat as chat_view
from tests.conftest import SCREENSHOTS

FIRST = 120_000  # ms: the first render loads the vocabularies on 2 busy cores
PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1920, "height": 1080}
FIVE = ["o200k_base", "llama3", "qwen2.5", "mistral-tekken", "deepseek-v4"]
TOOL_CONV = [
    {"role": "system", "content": "You can look up the weather."},
    {"role": "user", "content": "Weather in Paris?"},
    {"role": "assistant", "content": '{"city": "Paris"}', "call": "get_weather", "tool_call_id": "call12345"},
    {"role": "tool", "content": '{"temp_c": 21}', "tool_call_id": "call12345"},
]


def _shot(page: Page, name: str, *, full: bool = False) -> None:
    """A screenshot of the viewport, or with `full` of the whole main column (Streamlit scrolls inside
    it, so the viewport is made as tall as the column for a moment)."""
    size = page.viewport_size
    if full:
        height = page.get_by_test_id("stMain").evaluate("e => e.scrollHeight")
        page.set_viewport_size({"width": size["width"], "height": max(size["height"], min(height, 8000))})
        page.evaluate("() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))")  # laid out anew
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / name), animations="disabled")
    page.set_viewport_size(size)


def _page_top(locator) -> float:
    """The element's top edge in page coordinates (from the top of the scrolled main column)."""
    return locator.evaluate("e => { const main = document.querySelector('[data-testid=stMain]');"
                            " return e.getBoundingClientRect().top + (main ? main.scrollTop : 0) + window.scrollY; }")


def test_chat_on_a_phone_shows_a_count_within_two_screens(page: Page):
    page.set_viewport_size(PHONE)
    page.goto("/chat?v.chat_conv=" + quote(json.dumps(chat_view.pack(TOOL_CONV, FIVE[:3]))))
    expect(page.locator("div.chat").first).to_be_visible(timeout=FIRST)
    table = page.get_by_test_id("stDataFrame").first  # the counts; the per-message breakdown comes after it
    box = table.bounding_box()
    top = _page_top(table)
    assert top + box["height"] <= 2 * PHONE["height"], (top, box)  # the whole counts table, not just its edge
    # the table's first data row holds a number in the tokens column (glide's accessible table mirrors the canvas)
    llama = chat_tokens(TOOL_CONV, engine.get_encoding("llama3")).count
    cells = table.locator("td, [role=gridcell]")  # filled a moment after the canvas: wait for them
    expect(cells.filter(has_text=re.compile(rf"^{llama:,}$")).first).to_be_attached(timeout=FIRST)
    expect(cells.filter(has_text=re.compile(r"^estimate$")).first).to_be_attached()  # o200k: no published rule for calls
    # a message is its role and its text on the phone: one row of two controls, then the text box
    first = page.locator(".st-key-chat_msg_0")
    expect(first).to_be_visible()
    assert first.bounding_box()["height"] < 220, first.bounding_box()
    widgets = ("stSelectbox", "stPopover", "stTextArea", "stTextInput", "stButton")
    controls = first.locator(", ".join(f"[data-testid={w}]:visible" for w in widgets))
    assert controls.count() <= 3, controls.evaluate_all("es => es.map(e => e.outerHTML.slice(0, 160))")
    _shot(page, "chat-phone-390x844.png")
    _shot(page, "chat-phone-390x844-full.png", full=True)
    # the rest is one tap away
    first.get_by_role("button", name="More ⋯").click()
    expect(page.get_by_role("button", name="✕ Remove").first).to_be_visible()
    _shot(page, "chat-phone-390x844-more.png")
    expect(page.get_by_test_id("stException")).to_have_count(0)


@pytest.mark.slow  # slow (issue 32): long messages are checked in tests/app/test_chat_limits.py
def test_a_30000_character_system_prompt_with_a_tool_call_for_five_models(page: Page):
    page.set_viewport_size(DESKTOP)
    page.goto("/chat?v.chat_conv=" + quote(json.dumps(chat_view.pack(TOOL_CONV, FIVE))))
    expect(page.locator("div.chat")).to_have_count(5, timeout=FIRST)  # every format counts the call
    prompt = ("You are a careful agent. Use the tools; cite what they return. " * 500)[:30_000]
    box = page.locator("textarea").first
    box.fill(prompt)
    box.press("Control+Enter")
    conv = [{**TOOL_CONV[0], "content": prompt}] + TOOL_CONV[1:]
    for name in FIVE:
        n = chat_tokens(conv, engine.get_encoding(name)).count
        expect(page.get_by_text(f"{chat_view.MODEL_LABELS[name]} · {n:,} tokens")).to_be_visible(timeout=FIRST)
    expect(page.locator("textarea").first).to_have_value(prompt)
    expect(page.get_by_text("more tokens …").first).to_be_visible()  # the long prompt is drawn in part
    total = sum(len(m["content"]) for m in conv)
    expect(page.get_by_text(f"{total:,} of {chat_view.max_conversation_chars():,} characters")).to_be_visible()
    expect(page.get_by_test_id("stException")).to_have_count(0)
    page.evaluate("window.scrollTo(0, 0)")
    _shot(page, "chat-desktop-1920x1080.png")
    _shot(page, "chat-desktop-1920x1080-full.png", full=True)


@pytest.mark.slow  # slow (issue 32): test_chat.py's import test and tests/app/test_chat_limits.py cover the import
def test_importing_openai_tool_calls_json(page: Page):
    doc = {"messages": [
        {"role": "user", "content": "Weather in Paris?"},
        {"role": "assistant", "content": None, "refusal": None, "annotations": [],
         "tool_calls": [{"id": "call12345", "type": "function",
                         "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'}}]},
        {"role": "tool", "tool_call_id": "call12345", "content": '{"temp_c": 21}'},
        {"role": "user", "content": "Thanks!"}], "models": ["llama3", "o200k_harmony", "o200k_base"]}
    page.set_viewport_size(DESKTOP)
    page.goto("/chat")
    expect(page.locator("div.chat").first).to_be_visible(timeout=FIRST)
    page.get_by_text("Import / export JSON").click()
    page.locator("input[type=file]").set_input_files(
        files=[{"name": "openai.json", "mimeType": "application/json", "buffer": json.dumps(doc).encode()}])
    expect(page.get_by_text("Imported 4 messages.")).to_be_visible(timeout=FIRST)
    expect(page.get_by_text("Ignored the empty field 'refusal'", exact=False)).to_be_visible()
    conv = [{"role": "user", "content": "Weather in Paris?"},
            {"role": "assistant", "content": '{"city": "Paris"}', "call": "get_weather", "tool_call_id": "call12345"},
            {"role": "tool", "content": '{"temp_c": 21}', "tool_call_id": "call12345"},
            {"role": "user", "content": "Thanks!"}]
    for name in ("llama3", "o200k_harmony", "o200k_base"):
        n = chat_tokens(conv, engine.get_encoding(name)).count
        expect(page.get_by_text(f"{chat_view.MODEL_LABELS[name]} · {n:,} tokens")).to_be_visible(timeout=FIRST)
    expect(page.get_by_text(f"{chat_view.MODEL_LABELS['o200k_base']} is an estimate")).to_be_visible()
    expect(page.get_by_text("calls get_weather · id call12345")).to_be_visible()
    expect(page.get_by_test_id("stException")).to_have_count(0)
    _shot(page, "chat-openai-import-1920x1080.png")
