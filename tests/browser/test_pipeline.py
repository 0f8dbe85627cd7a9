"""Real browser, presentation mode on at 1280×720 (a projector): the pipeline of a BERT text, and strawberry
in three algorithms; no token chip breaks across lines."""
from __future__ import annotations

import json
from pathlib import Path
from urllib.parse import quote

from playwright.sync_api import Browser, expect

FIRST = 60_000
SHOTS = Path(__file__).parents[2] / "test-results" / "screenshots"
PROJECTOR = {"width": 1280, "height": 720}
ON = "v.present=true"
CHIPS_BROKEN = """els => els.map(e => {
    const rects = Array.from(e.getClientRects()).filter(r => r.width > 0);
    return [e.textContent, rects.length];
  }).filter(([, n]) => n > 1)"""


def _open(browser: Browser, base_url: str, path: str):
    context = browser.new_context(base_url=base_url, viewport=PROJECTOR, locale="en-US")
    page = context.new_page()
    page.goto(path)
    return context, page


def _shot(page, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"), animations="disabled")


def test_pipeline_of_a_bert_text(browser: Browser, base_url: str):
    context, page = _open(browser, base_url, f"/pipeline?{ON}&v.pipe_encoding={quote(json.dumps('bert-base-uncased'))}")
    try:
        stages = page.locator(".pipeline .pl-stage")
        expect(stages).to_have_count(6, timeout=FIRST)
        expect(page.locator('[data-stage="post-processor"] .pl-added')).to_have_count(2)
        expect(page.locator('[data-stage="normalizer"] mark.pl-chg').first).to_be_visible()
        expect(page.locator(".pl-badge.pl-lossy")).to_be_visible()
        expect(page.get_by_test_id("stException")).to_have_count(0)
        assert page.locator(".pipeline .tok").evaluate_all(CHIPS_BROKEN) == []
        page.locator(".pipeline").evaluate("e => e.scrollIntoView({block: 'start'})")
        _shot(page, "present_pipeline_bert_1280")
        page.locator('[data-stage="model"]').evaluate("e => e.scrollIntoView({block: 'start'})")
        _shot(page, "present_pipeline_bert_1280_model_to_decoder")
    finally:
        context.close()


def test_strawberry_in_three_algorithms(browser: Browser, base_url: str):
    text = quote(json.dumps("strawberry unbelievably"))
    context, page = _open(browser, base_url, f"/algorithms?{ON}&v.algo_text={text}")
    try:
        cards = page.locator(".algo")
        expect(cards).to_have_count(3, timeout=FIRST)
        expect(page.locator('.algo[data-algorithm="wordpiece"]')).to_be_visible()
        for card in range(3):  # open the first piece's steps in each column
            cards.nth(card).locator("details.algo-steps summary").first.click()
        expect(page.locator("details.algo-steps[open]")).to_have_count(3)
        expect(page.get_by_test_id("stException")).to_have_count(0)
        assert page.locator(".algo .tok").evaluate_all(CHIPS_BROKEN) == []
        cards.first.evaluate("e => e.scrollIntoView({block: 'start'})")
        _shot(page, "present_algorithms_strawberry_1280")
    finally:
        context.close()
