"""Real browser: the classic demos of Why counts differ (strawberry in three tokenizers)."""
from __future__ import annotations

import json

from playwright.sync_api import Page, expect

FIRST = 60_000


def test_strawberry_in_three_tokenizers(page: Page, screenshot):
    page.goto("/gallery?v.gallery_demo=" + json.dumps("letters"))
    expect(page.get_by_text("Measured now:")).to_be_visible(timeout=FIRST)
    lines = page.locator('.gchips[data-example="In a sentence"]')
    expect(lines).to_have_count(3)
    for name in ("gpt2", "cl100k_base", "o200k_base"):
        line = page.locator(f'.gchips[data-example="In a sentence"][data-encoding="{name}"]')
        expect(line.locator(".tok", has_text="strawberry")).to_have_count(1)
    expect(page.get_by_test_id("stException")).to_have_count(0)
    screenshot("gallery_strawberry")
