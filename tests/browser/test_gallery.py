"""The gallery in a real browser: it loads at /gallery, charts draw, demos switch, scripts use real fonts."""
from __future__ import annotations

import pytest

from playwright.sync_api import Page, expect

from playground.views.gallery.demos import languages
from tests.conftest import platform_fonts

LONG = 30_000


def chart(page: Page):
    return page.get_by_test_id("stVegaLiteChart").locator("svg, canvas").first


def test_gallery_loads_and_switches_demos(page: Page, screenshot):
    page.goto("/gallery")
    expect(page.get_by_role("heading", name="Why counts differ")).to_be_visible(timeout=30_000)
    expect(page.get_by_text("Measured now:")).to_be_visible(timeout=30_000)
    expect(chart(page)).to_be_visible(timeout=30_000)
    expect(page.get_by_test_id("stException")).to_have_count(0)
    expect(page.get_by_text("Hindi").first).to_be_visible()
    screenshot("gallery_languages")

    page.get_by_test_id("stMain").get_by_role("radio", name="Numbers & arithmetic", exact=True).click()
    expect(page.get_by_text("123|456|789|0").first).to_be_visible(timeout=30_000)
    expect(chart(page)).to_be_visible()
    screenshot("gallery_numbers")

    page.get_by_test_id("stMain").get_by_role("radio", name="Emoji", exact=True).click()
    expect(page.get_by_text("the family emoji is 7 code points")).to_be_visible(timeout=30_000)
    expect(page.get_by_text("‹ZWJ›").first).to_be_visible()
    screenshot("gallery_emoji")
    page.get_by_test_id("stSelectbox").click()
    page.get_by_role("option", name="Grinning face").click()
    chip = "div.gchips[data-example='Grinning face'][data-encoding='o200k_base'] span.tok"
    expect(page.locator(chip).first).to_be_visible()
    assert "Noto Color Emoji" in platform_fonts(page, chip)

    page.get_by_test_id("stMain").get_by_role("radio", name="Special tokens", exact=True).click()
    expect(page.get_by_text("disallowed special token").first).to_be_visible(timeout=30_000)
    expect(page.get_by_test_id("stException")).to_have_count(0)
    screenshot("gallery_special")


@pytest.mark.slow  # slow (issue 32): every language's font; the default run checks CJK, emoji (test_tokenize_compare) and Arabic (test_ui_details) faces
def test_languages_render_with_real_fonts(page: Page, screenshot):
    page.goto("/gallery")
    expect(chart(page)).to_be_visible(timeout=30_000)
    page.get_by_test_id("stSelectbox").click()
    page.keyboard.type("All examples")  # the option list is virtual: filter it to the last option
    page.get_by_role("option", name="All examples, one per line").click()
    n = len(languages()["languages"])
    expect(page.locator("div.gchips")).to_have_count(3 * n, timeout=30_000)
    expect(page.get_by_test_id("stException")).to_have_count(0)
    expected = {"Hindi (hi)": "Devanagari", "Tamil (ta)": "Tamil", "Thai (th)": "Thai",
                "Japanese (ja)": "CJK", "Korean (ko)": "CJK", "Chinese (Simplified) (zh-Hans)": "CJK",
                "Arabic (ar)": "Arabic|DejaVu", "Hebrew (he)": "Hebrew|DejaVu"}
    for example, family in expected.items():
        used = platform_fonts(page, f"div.gchips[data-example='{example}'][data-encoding='o200k_base'] span.tok")
        assert any(part in f for f in used for part in family.split("|")), (example, used)
    screenshot("gallery_languages_all")


def test_your_text_tax_and_budget(page: Page, screenshot):
    page.goto("/gallery")
    main = page.get_by_test_id("stMain")
    main.get_by_role("radio", name="Your text: token tax & budget", exact=True).click()
    box = page.get_by_role("textbox", name="Your text")
    box.fill("Hello world! Привет, мир! नमस्ते दुनिया 你好，世界 مرحبا بالعالم 👋🏽")  # no Ctrl+Enter: the box is live
    expect(page.get_by_text("Token tax by script")).to_be_visible(timeout=30_000)
    expect(page.get_by_test_id("stVegaLiteChart")).to_have_count(2, timeout=30_000)
    expect(chart(page)).to_be_visible()
    page.get_by_test_id("stMain").get_by_role("radio", name="8k", exact=True).click()
    expect(page.get_by_role("spinbutton", name="Context window (tokens)")).to_have_value("8192")
    expect(page.get_by_test_id("stException")).to_have_count(0)
    screenshot("gallery_your_text")

    box.fill("x" * LONG + " long")
    expect(page.get_by_text(f"{LONG + 5:,} characters counted")).to_be_visible(timeout=30_000)


def test_your_text_updates_while_typing(page: Page):
    """Keystrokes alone (no Ctrl+Enter, no blur) update the token tax."""
    page.goto("/gallery?v.gallery_section=%22yours%22&text=" + "start")
    expect(page.get_by_text("Token tax by script")).to_be_visible(timeout=LONG)
    box = page.get_by_role("textbox", name="Your text")
    box.click()
    page.keyboard.press("Control+A")
    page.keyboard.type("Ελληνικά", delay=20)
    expect(page.get_by_test_id("stDataFrame").first).to_contain_text("Greek", timeout=LONG)
    expect(box).to_be_focused()


def test_arabic_chips_read_right_to_left(page: Page, screenshot):
    """In the languages demo's chips, an Arabic line runs right to left: each token's chip lies to the
    left of the token before it, and its id stays under its own chip."""
    page.goto("/gallery")
    expect(page.get_by_text("Measured now:")).to_be_visible(timeout=LONG)
    expect(page.get_by_test_id("stStatusWidget")).to_have_count(0, timeout=LONG)  # no rerun redraws the list
    page.get_by_test_id("stSelectbox").filter(has_text="Example").click()
    page.keyboard.type("Arabic (ar)")  # the option list is virtual: filter it to the one option
    expect(page.get_by_role("option", name="Arabic (ar)")).to_have_count(1)
    page.keyboard.press("Enter")  # picks the highlighted option (a click raced the list's re-render in CI)
    rtl = page.locator(".gchips .rtl[dir=rtl]")
    expect(rtl.first).to_be_visible(timeout=LONG)
    boxes = rtl.first.locator(".tok").evaluate_all(
        "els => els.map(e => { const r = e.getBoundingClientRect(); return [r.left, r.right, r.top]; })")
    same_line = [b for b in boxes if abs(b[2] - boxes[0][2]) < 2]
    assert len(same_line) >= 2
    assert all(a[0] >= b[1] - 1 for a, b in zip(same_line, same_line[1:])), same_line  # right to left
    screenshot("gallery_arabic_chips")
