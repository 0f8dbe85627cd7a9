"""Escaping in chromium: a web address typed into the decode box is shown in the
error as text, not as a link."""
from __future__ import annotations

from playwright.sync_api import Page, expect

FIRST = 60_000  # ms: the first render may load vocabularies on a busy 2-core machine


def test_an_address_in_the_decode_box_is_not_a_link(page: Page, screenshot):
    page.goto("/tokenize?enc=gpt2")
    box = page.get_by_label("Decode ids", exact=True).and_(page.get_by_test_id("stTextInputField"))
    expect(box).to_be_visible(timeout=FIRST)
    box.fill("x http://evil.example/x.png www.evil.example me@evil.example")
    box.press("Enter")
    alert = page.get_by_test_id("stAlertContainer").filter(has_text="evil.example")
    expect(alert.first).to_be_visible(timeout=FIRST)
    seen = alert.first.inner_text().replace("\u2060", "")  # the invisible word joiners aside,
    assert "'http://evil.example/x.png'" in seen and "'me@evil.example'" in seen  # it reads the same
    expect(page.locator('a[href*="evil.example"]')).to_have_count(0)
    expect(page.locator("a[href^='mailto:']")).to_have_count(0)
    screenshot("issue21_decode_box_address")
