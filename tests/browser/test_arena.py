"""Arena and Token-budget chunks in a real browser: charts draw without Vega warnings, chunks show and download."""
from __future__ import annotations

import json
from urllib.parse import quote

from playwright.sync_api import Page, expect

import engine
from playground.state import DEFAULT_TEXT
from tests.conftest import settle

FIRST = 120_000  # ms: the first visit loads every built-in vocabulary


def charts(page: Page):
    return page.get_by_test_id("stVegaLiteChart")


def test_arena_table_chart_and_heatmap(page: Page, screenshot):
    messages: list[str] = []
    page.on("console", lambda m: messages.append(f"{m.type}: {m.text}") if m.type in ("warning", "error") else None)
    page.goto("/arena")
    expect(page.get_by_text("the fewest tokens").first).to_be_visible(timeout=FIRST)
    expect(charts(page)).to_have_count(2, timeout=FIRST)
    for i in range(2):
        expect(charts(page).nth(i).locator("svg, canvas").first).to_be_visible(timeout=FIRST)
    expect(page.get_by_text("Which language each tokenizer taxes most").first).to_be_visible()
    expect(page.get_by_test_id("stException")).to_have_count(0)
    settle(page)
    assert not [m for m in messages if "fit" in m or "Dropping" in m or "WARN" in m], messages
    screenshot("arena")
    charts(page).nth(1).screenshot(path=str(screenshot("arena").parent / "arena-heatmap.png"))

    page.get_by_test_id("stMain").get_by_role("radio", name="× best tokenizer", exact=True).click()
    expect(page.get_by_test_id("stMain").get_by_role("radio", name="× best tokenizer", exact=True)).to_be_checked()
    expect(charts(page).nth(1).locator("svg, canvas").first).to_be_visible(timeout=FIRST)
    expect(page.get_by_test_id("stException")).to_have_count(0)


def test_chunks_cards_and_download(page: Page, screenshot):
    page.goto(f"/chunks?v.chunk_max=16&v.chunk_prefer={quote(json.dumps('sentence'))}&v.chunk_encoding="
              f"{quote(json.dumps('llama3'))}")
    result = engine.chunk_text(DEFAULT_TEXT, engine.get_encoding("llama3"), 16, prefer="sentence")
    expect(page.locator("div.chunks div.chunk")).to_have_count(len(result.chunks), timeout=FIRST)
    first = page.locator("div.chunks div.chunk").first
    expect(first).to_contain_text(f"{result.chunks[0].tokens} / 16 tokens")
    expect(page.get_by_test_id("stException")).to_have_count(0)
    screenshot("chunks")
    with page.expect_download() as info:
        page.get_by_role("button", name="Download JSONL").click()
    lines = [json.loads(line) for line in open(info.value.path(), encoding="utf-8").read().splitlines()]
    assert "".join(r["text"] for r in lines) == DEFAULT_TEXT
    assert [r["tokens"] for r in lines] == [c.tokens for c in result.chunks]


def test_heatmap_on_a_phone_shows_colours_and_marks_only(page: Page, screenshot):
    """20 tokenizers in 390 px leave ~9 px a column: the numbers would overlap, so the cells show their colour and
    ⚠ only (the tooltip keeps the number); widened to a desktop, the numbers come back."""
    page.set_viewport_size({"width": 390, "height": 844})
    page.goto("/arena")
    cells = charts(page).nth(1).locator("g.mark-text.role-mark text")  # (not the axes' labels)
    expect(cells.first).to_be_attached(timeout=FIRST)
    texts = cells.all_text_contents()
    assert len(texts) >= 32 * 20 and set(texts) <= {"", "⚠"} and "⚠" in texts, sorted(set(texts))[:10]
    screenshot("arena-phone")
    page.set_viewport_size({"width": 1600, "height": 1000})
    expect(cells.filter(has_text="1.0").first).to_be_attached(timeout=30_000)
    assert any(t[:1].isdigit() for t in cells.all_text_contents())
