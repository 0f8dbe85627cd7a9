"""One character count in a real browser: a limited box (Train's special-tokens box, 2,000 characters) takes
1,700 🦜 whole — Streamlit's own `max_chars` stopped at 1,000, counting each as two UTF-16 units — and counts
them as 1,700 characters, as the rest of the app does; past the limit, it says so and keeps the text."""
from __future__ import annotations

from playwright.sync_api import Page, expect

from tests.conftest import SCREENSHOTS

FIRST = 60_000
PARROT = "🦜"


def _box(page: Page):
    page.goto("/train")
    box = page.get_by_label("Special tokens (space-separated)")
    expect(box).to_be_visible(timeout=FIRST)
    return box


def _count_code_points(box) -> int:
    return box.evaluate("e => Array.from(e.value).length")


def test_astral_text_is_counted_in_code_points_and_kept_whole(page: Page):
    box = _box(page)
    box.click()
    page.keyboard.insert_text(PARROT * 1_700)
    box.press("Enter")
    expect(page.get_by_text("1,700 / 2,000 characters")).to_be_visible(timeout=FIRST)
    assert _count_code_points(box) == 1_700  # nothing refused by a UTF-16 limit in the browser


def test_past_the_limit_it_says_so_and_keeps_the_text(page: Page):
    box = _box(page)
    box.click()
    page.keyboard.insert_text(PARROT * 2_003)
    box.press("Enter")
    warning = page.get_by_text("2,003 characters, over the limit of 2,000 (3 too many)")
    expect(warning).to_be_visible(timeout=FIRST)
    assert _count_code_points(box) == 2_003
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    warning.scroll_into_view_if_needed()
    page.screenshot(path=str(SCREENSHOTS / "text-fields-over-limit.png"), animations="disabled")
