"""Arena and Token-budget chunks in a real browser: charts draw without Vega warnings, chunks show and download."""
from __future__ import annotations

import json
from urllib.parse import quote

import pytest
from playwright.sync_api import Browser, Page, expect

import engine
from playground.state import DEFAULT_TEXT
from tests.conftest import settle, until

FIRST = 120_000  # ms: the first visit loads every built-in vocabulary


def charts(page: Page):
    return page.get_by_test_id("stVegaLiteChart")


# The large type under slow (issue 32): the usual type is the default case; tests/browser/test_present.py keeps
# presentation mode in the default run.
@pytest.mark.parametrize("present", [False, pytest.param(True, marks=pytest.mark.slow)], ids=["usual", "presentation"])
def test_every_arena_column_shows_at_1280_px(browser: Browser, base_url: str, present):
    """The ranked table at 1280 px, its type usual or large: no column behind a sideways scroll (the table had 468 px
    of the 568 its columns need, and "× best", its last column then, was cut)."""
    context = browser.new_context(base_url=base_url, viewport={"width": 1280, "height": 900}, locale="en-US")
    page = context.new_page()
    try:
        page.goto("/arena" + ("?v.present=true" if present else ""))
        table = page.get_by_test_id("stDataFrame").first
        expect(table.locator("canvas").first).to_be_visible(timeout=FIRST)
        scroller = table.locator(".dvn-scroller")
        widths = until(lambda: scroller.evaluate("e => e.scrollWidth > 0 && [e.scrollWidth, e.clientWidth]"))
        assert widths[0] <= widths[1], widths
        inside = table.evaluate("e => e.getBoundingClientRect().right <= document.querySelector("
                                "'[data-testid=stMainBlockContainer]').getBoundingClientRect().right")
        assert inside
    finally:
        context.close()


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
