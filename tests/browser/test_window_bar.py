"""The context-window bars of Chat formats in a real browser, at 1280 px and on a phone (390 px): the bars drawn
with their numbers, one over its window saying by how much, the legend readable (not cut, not overlapping).
Screenshots in test-results/screenshots/window_bar_*.png."""
from __future__ import annotations

import json
from urllib.parse import quote

from playwright.sync_api import Page, expect

import engine
from engine.chat import chat_tokens
from engine.explain import prices
from playground.views import chat as chat_view
from tests.conftest import SCREENSHOTS, until

FIRST = 90_000  # ms: the first render loads the vocabularies on 2 busy cores
MODELS = ["o200k_base", "llama3", "cl100k_base"]  # cl100k_base is priced as GPT-4: an 8,192-token window
CONV = [{"role": "system", "content": "You are a helpful assistant with tools."},
        {"role": "user", "content": "What's the weather in Paris, and what does README.md say?"}]
TOOLS = [chat_view.PRESETS[k] for k in ("weather", "MCP file")]


def _bars_shot(page: Page, width: int, name: str) -> None:
    page.set_viewport_size({"width": width, "height": 900})
    bars = page.locator("#window-bars")
    bars.scroll_into_view_if_needed()
    # laid out at this width: every legend item inside the bar's box (it wraps rather than overflowing)
    until(lambda: page.evaluate("""() => {
        const box = document.querySelector('#window-bars').getBoundingClientRect();
        return box.width > 0 && box.width <= window.innerWidth &&
            [...document.querySelectorAll('#window-bars .witem, #window-bars .wnum')].every(e => {
                const r = e.getBoundingClientRect(); return r.left >= box.left - 1 && r.right <= box.right + 1; });
    }"""), what=f"the bars laid out inside {width} px")
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    bars.screenshot(path=str(SCREENSHOTS / f"{name}.png"), animations="disabled")


def test_window_bars_at_1280_and_390_px(page: Page):
    code = chat_view.pack(CONV, MODELS, json.dumps(TOOLS, indent=1))
    page.goto("/chat?v.chat_conv=" + quote(json.dumps(code)) + "&v.chat_max_tokens=8100")
    expect(page.locator("#window-bars .wrow")).to_have_count(3, timeout=FIRST)
    expect(page.get_by_test_id("stException")).to_have_count(0)
    for i, name in enumerate(MODELS):
        r = chat_tokens(CONV, engine.get_encoding(name), tools=TOOLS)
        p = prices.price_for_encoding(name)
        row = page.locator(f"#window-bars-{i}")
        expect(row).to_have_attribute("data-used", str(r.count + 8100))
        expect(row.locator(".whead b")).to_have_text(f"{name} · {p.label}")
        over = r.count + 8100 - p.window
        if over > 0:
            expect(row.locator(".wnum")).to_have_text(f"{r.count + 8100:,} / {p.window:,} tokens · over the window by {over:,}")
            expect(row.locator(".wline")).to_have_count(1)
        else:
            expect(row.locator(".wnum")).to_contain_text(f"{p.window - r.count - 8100:,} free")
        expect(row.locator(".wtools")).to_contain_text("get_weather")
    assert page.locator("#window-bars-2.over").count() == 1  # GPT-4's 8,192 tokens < prompt + 8,100
    expect(page.get_by_text(f"as of {prices.load_table().as_of}").first).to_be_visible()
    _bars_shot(page, 1280, "window_bar_1280")
    _bars_shot(page, 390, "window_bar_390")
    # on the phone the bar keeps a readable height and the whole width
    height = page.locator("#window-bars-0 .wbar").evaluate("e => e.getBoundingClientRect().height")
    assert height >= 16
