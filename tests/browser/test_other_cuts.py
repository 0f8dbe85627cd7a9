"""Tokenize's "Other ways to cut this text" in a real browser (Debian chromium via Playwright): the five lanes
drawn from a link, each row's ids equal to the engine's, at 1280 px and at 390 px (screenshots in
test-results/screenshots/)."""
from __future__ import annotations

from urllib.parse import quote

from playwright.sync_api import Page, expect

import engine
from engine.explain import noncanonical as nc
from tests.conftest import SCREENSHOTS, until

FIRST = 180_000  # ms, a ceiling: a fresh server's first page (five rows more than Tokenize's own) on a loaded 2-core machine
TEXT = "Pay 1234567 dollars to naïve Zoë 😀 by 東京 time"
LANES = ("canonical", "dropout", "chars", "random", "digits")


def _ids(page: Page, lane: str) -> list[int]:
    return page.locator(f"#nc-{lane}-gpt2 span.tok").evaluate_all(
        "els => els.flatMap(e => e.dataset.ids.split(' ').map(Number))")


def _shot(page: Page, name: str, width: int) -> None:
    page.set_viewport_size({"width": width, "height": 900})
    page.locator("#nc-canonical-gpt2").scroll_into_view_if_needed()
    height = page.get_by_test_id("stMain").evaluate("e => e.scrollHeight")
    page.set_viewport_size({"width": width, "height": max(900, min(height, 8000))})
    page.evaluate("() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))")
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / name), full_page=True, animations="disabled")


def test_lanes_from_a_link_match_the_engine_at_1280_and_390(page: Page):
    page.set_viewport_size({"width": 1280, "height": 900})
    page.goto("/?enc=gpt2&ws=1&text=" + quote(TEXT) + "&v.tok_nc_open=true&v.tok_nc_p=0.3&v.tok_nc_seed=4")
    expect(page.locator("#tokens-gpt2 span.tok").first).to_be_visible(timeout=FIRST)  # the page's own row first
    expect(page.locator("#nc-digits-gpt2 span.tok").first).to_be_visible(timeout=FIRST)
    expect(page.get_by_test_id("stException")).to_have_count(0)
    enc = engine.get_encoding("gpt2")
    cuts = nc.other_cuts(enc, TEXT, 0.3, 4)
    for lane in LANES:
        until(lambda: _ids(page, lane) == getattr(cuts, lane).ids, what=f"the {lane} row's ids")
    digits = page.locator("#nc-digits-gpt2 span.tok").all_text_contents()
    # 1|234|567: no token crosses a group (GPT-2 has no token "567": the group is 5|67)
    assert digits[2:6] == ["1", "234", "5", "67"], digits
    expect(page.get_by_text("93.4%", exact=False)).to_be_visible()
    _shot(page, "other-cuts-1280.png", 1280)
    _shot(page, "other-cuts-390.png", 390)
    # the phone width: nothing wider than the screen (the rows wrap)
    until(lambda: page.evaluate("() => document.querySelector('[data-testid=stMain]').scrollWidth") <= 390,
          what="no horizontal overflow at 390 px")
    box = page.locator("#nc-random-gpt2").bounding_box()
    assert box is not None and box["x"] + box["width"] <= 390
