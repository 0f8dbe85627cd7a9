"""Share links in chromium: a link never loses something without a word, and
a value of the wrong type in a link gives a notice, not a broken page that survives reloads."""
from __future__ import annotations

from urllib.parse import quote

from playwright.sync_api import Page, expect

from tests.conftest import SCREENSHOTS
from playground import state

FIRST = 60_000  # ms: the first render may load vocabularies on a busy 2-core machine


def no_break(page: Page) -> None:
    expect(page.get_by_test_id("stException")).to_have_count(0)
    expect(page.get_by_text("Something went wrong")).to_have_count(0)


def test_a_wrong_value_in_a_link_is_named_and_not_written_back(page: Page, screenshot):
    page.goto("/tokenize?v.tok_decode=5")
    notice = page.get_by_test_id("stAlertContainer").filter(has_text="v.tok_decode")
    expect(notice).to_be_visible(timeout=FIRST)
    expect(notice).to_contain_text("Decode ids")
    no_break(page)
    page.wait_for_function("() => new URLSearchParams(location.search).get('v.tok_decode') === '\"\"'", timeout=FIRST)
    decode = page.get_by_label("Decode ids", exact=True).and_(page.get_by_test_id("stTextInputField"))
    expect(decode).to_have_value("", timeout=FIRST)
    screenshot("issue21_link_wrong_value")
    page.reload()  # the address no longer holds the bad value: nothing to complain about
    expect(decode).to_be_visible(timeout=FIRST)
    expect(page.get_by_test_id("stAlertContainer").filter(has_text="v.tok_decode")).to_have_count(0)
    no_break(page)


def test_eight_encodings_name_the_two_left_out(page: Page):
    names = state.BUILTIN_ENCODINGS[:8]
    page.goto("/compare?enc=" + ",".join(names))
    notice = page.get_by_test_id("stAlertContainer").filter(has_text=names[6])
    expect(notice).to_be_visible(timeout=FIRST)
    expect(notice).to_contain_text(names[7])
    no_break(page)


def test_a_long_text_link_is_flagged_at_the_copy_button_and_on_opening(page: Page, browser, base_url, screenshot):
    text = "long text " * 500  # 5,000 characters
    page.context.grant_permissions(["clipboard-read", "clipboard-write"], origin=base_url)
    page.goto("/tokenize?text=" + quote(text))
    sidebar = page.get_by_test_id("stSidebar")
    warning = sidebar.get_by_test_id("stAlertContainer").filter(has_text="5,000 characters")
    expect(warning).to_be_visible(timeout=FIRST)
    expect(warning).to_contain_text("demo text")
    page.wait_for_function("() => new URLSearchParams(location.search).get('cut') === 'text:5000'", timeout=FIRST)
    copy = sidebar.locator("button.copy")  # by class: its name changes while it says "Copied"
    expect(copy).to_have_text("🔗 Copy share link")
    copy.click()
    expect(copy).to_have_text("Copied ✓")
    link = page.evaluate("() => navigator.clipboard.readText()")
    assert link == page.url and "cut=text%3A5000" in link and "text=" not in link.replace("cut=text", "")
    screenshot("issue21_link_long_text_sender")
    other = browser.new_context(viewport={"width": 1300, "height": 900}).new_page()
    try:
        other.goto(link)
        told = other.get_by_test_id("stAlertContainer").filter(has_text="5,000 characters")
        expect(told).to_be_visible(timeout=FIRST)
        expect(told).to_contain_text("demo text")
        expect(other.get_by_test_id("stException")).to_have_count(0)
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        other.screenshot(path=str(SCREENSHOTS / "issue21_link_long_text_recipient.png"), animations="disabled")
    finally:
        other.context.close()
