"""Tokenize and Compare in a real browser (Debian chromium via Playwright), as a user sees them."""
from __future__ import annotations

import re
from urllib.parse import parse_qs, quote, urlparse

import pytest
from playwright.sync_api import Page, expect

import engine
from tests.conftest import platform_fonts

FIRST = 60_000  # ms: the first render of a page may load vocabularies (slow on a loaded 2-core machine)


@pytest.fixture(scope="module")
def encs():
    return {name: engine.get_encoding(name) for name in ("gpt2", "cl100k_base")}


def n_units(enc: engine.Encoding, text: str) -> int:
    return len(engine.explain.compare.group_tokens(enc.tokenize(text, allowed_special=set(), disallowed_special=()), text))


def ids_in(page: Page, selector: str) -> int:
    """Total number of token ids over the spans matched (a split character carries several)."""
    return page.locator(selector).evaluate_all(
        "els => els.reduce((n, e) => n + e.dataset.ids.split(' ').length, 0)")


def no_exception(page: Page) -> None:
    expect(page.get_by_test_id("stException")).to_have_count(0)


def settled(page: Page) -> None:
    """Wait until no element is left over (faded) from the previous run."""
    expect(page.locator("[data-stale='true']")).to_have_count(0)


def type_text(page: Page, text: str) -> None:
    """Replace the text; the live box sends it by itself (no Ctrl+Enter, no blur)."""
    page.get_by_label("Text", exact=True).fill(text)


def test_app_loads_at_root(page: Page, screenshot):
    page.goto("/")
    expect(page.locator("#tokens-gpt2 span.tok").first).to_be_visible(timeout=FIRST)
    expect(page.get_by_test_id("stMetric").first).to_be_visible()
    no_exception(page)
    screenshot("tokenize-default")


def test_typed_text_gives_engine_token_count(page: Page, encs):
    page.goto("/?enc=gpt2,cl100k_base&sp=text&ws=0")
    expect(page.locator("#tokens-gpt2 span.tok").first).to_be_visible(timeout=FIRST)
    text = "Numbers like 1234567 and words like unbelievable, twice: 1234567!"
    type_text(page, text)
    gpt2 = len(encs["gpt2"].encode(text))
    expect(page.locator("#tokens-gpt2 span.tok")).to_have_count(gpt2)  # ASCII: one span per token
    expect(page.get_by_test_id("stMetric").first).to_contain_text(str(gpt2))
    page.get_by_test_id("stMain").get_by_role("radio", name="cl100k_base", exact=True).click()
    cl100k = len(encs["cl100k_base"].encode(text))
    expect(page.locator("#tokens-cl100k_base span.tok")).to_have_count(cl100k)
    assert gpt2 != cl100k
    no_exception(page)


def test_copy_all_ids_puts_them_on_the_clipboard(page: Page, encs):
    page.context.grant_permissions(["clipboard-read", "clipboard-write"])
    text = "Copy me: 1234567 ünïcode"
    page.goto("/?enc=gpt2&ws=0&text=" + quote(text))
    # by class: its name changes while it says "Copied" (the sidebar's share-link button is another)
    button = page.get_by_test_id("stMain").locator("button.copy")
    expect(button).to_have_text(f"Copy all {len(encs['gpt2'].encode(text))} ids", timeout=FIRST)
    button.click()
    expect(button).to_have_text("Copied ✓")
    assert page.evaluate("navigator.clipboard.readText()") == str(encs["gpt2"].encode(text))
    expect(button).to_have_text(re.compile(r"^Copy all \d+ ids$"), timeout=5_000)  # the label comes back


def test_split_characters_drawn_once_with_all_ids(page: Page, encs):
    text = "世界 😀 こんにちは"
    page.goto("/?enc=gpt2&ws=0&text=" + quote(text))
    spans = page.locator("#tokens-gpt2 span.tok")
    expect(spans).to_have_count(n_units(encs["gpt2"], text), timeout=FIRST)
    assert ids_in(page, "#tokens-gpt2 span.tok") == len(encs["gpt2"].encode(text))
    assert "\ufffd" not in page.locator("#tokens-gpt2").inner_text()
    assert "".join(spans.all_inner_texts()) == text


def test_cjk_and_emoji_use_real_fonts(page: Page, encs, screenshot):
    text = "世界 😀"
    page.goto("/?enc=cl100k_base&ws=0&text=" + quote(text))
    spans = page.locator("#tokens-cl100k_base span.tok")
    expect(spans.first).to_be_visible(timeout=FIRST)
    starts = spans.evaluate_all("els => els.map(e => [e.textContent, e.dataset.start])")
    cjk = next(start for t, start in starts if "世" in t)
    emoji = next(start for t, start in starts if "😀" in t)
    assert "Noto Sans CJK JP" in platform_fonts(page, f"#tokens-cl100k_base span.tok[data-start='{cjk}']")
    assert "Noto Color Emoji" in platform_fonts(page, f"#tokens-cl100k_base span.tok[data-start='{emoji}']")


def test_compare_shows_both_encodings(page: Page, encs, screenshot):
    page.goto("/compare")
    expect(page.locator("#cmp-gpt2 span.tok").first).to_be_visible(timeout=FIRST)
    text = "Numbers: 1234567 + 2026 = 1236593. 世界 😀"
    type_text(page, text)
    for name, enc in encs.items():
        expect(page.locator(f"#cmp-{name} span.tok")).to_have_count(n_units(enc, text))
        assert ids_in(page, f"#cmp-{name} span.tok") == len(enc.encode(text))
    expect(page.locator("#delta")).to_contain_text(re.compile(r"cl100k_base uses .* tokens than gpt2 here"))
    expect(page.locator("#cmp-gpt2 span.tok.cut").first).to_be_visible()
    rows = page.locator(".tokens.cmp").count()  # the default selection: gpt2, cl100k_base, o200k_base
    assert rows >= len(encs)
    expect(page.locator("#cmp-bars .cbar")).to_have_count(3 * rows)  # tokens, bytes/token, chars/token
    expect(page.get_by_test_id("stCaptionContainer").filter(has_text="stretches between shared cuts")).to_be_visible()
    settled(page)
    no_exception(page)
    screenshot("compare")


def test_share_link_round_trips(page: Page):
    page.goto("/?enc=gpt2,o200k_base&sp=special&ws=0")
    expect(page.locator("#tokens-gpt2 span.tok").first).to_be_visible(timeout=FIRST)
    text = "share me <|endoftext|> & 😀"
    type_text(page, text)
    expect(page).to_have_url(re.compile(r"text=share"))
    link = page.url
    params = parse_qs(urlparse(link).query)
    assert params["text"] == [text] and params["enc"] == ["gpt2,o200k_base"] and params["sp"] == ["special"]

    fresh = page.context.browser.new_context(viewport={"width": 1300, "height": 900}).new_page()
    try:
        fresh.goto(link)
        expect(fresh.get_by_label("Text", exact=True)).to_have_value(text, timeout=FIRST)
        expect(fresh.locator("#tokens-gpt2 span.tok.special")).to_have_count(1)
        expect(fresh.get_by_test_id("stMain").get_by_role("radio", name="o200k_base", exact=True)).to_be_visible()
    finally:
        fresh.context.close()


@pytest.mark.slow  # slow (issue 32): test_reliability.py's test_text_and_choices_survive_compare_then_every_page covers it and more
def test_text_survives_switching_views(page: Page):
    page.goto("/")
    expect(page.locator("#tokens-gpt2 span.tok").first).to_be_visible(timeout=FIRST)
    type_text(page, "kept across pages")
    expect(page.locator("#tokens-gpt2 span.tok")).to_have_count(3)
    page.get_by_test_id("stSidebarNav").get_by_text("Compare").click()
    expect(page.locator("#cmp-gpt2 span.tok").first).to_be_visible(timeout=FIRST)
    expect(page.get_by_label("Text", exact=True)).to_have_value("kept across pages")


def test_hostile_text_renders_as_text(page: Page, screenshot):
    hostile = "<script>alert(1)</script> <img src=x onerror=alert(1)> \"q\" 'a' & *b* $x$\n\nafter blank"
    page.goto("/?enc=gpt2,cl100k_base&ws=0&text=" + quote(hostile))
    box = page.locator("#tokens-gpt2")
    expect(box).to_be_visible(timeout=FIRST)
    expect(page.locator("img[src=x]")).to_have_count(0)
    expect(page.get_by_test_id("stMain").locator("script")).to_have_count(0)
    assert box.inner_text() == hostile
    page.goto("/compare?enc=gpt2,cl100k_base&ws=0&text=" + quote(hostile))
    expect(page.locator("#cmp-cl100k_base")).to_be_visible(timeout=FIRST)
    expect(page.locator("img[src=x]")).to_have_count(0)
    assert page.locator("#cmp-cl100k_base").inner_text() == hostile
    no_exception(page)


def test_panes_bytes_pieces_table(page: Page, screenshot):
    page.goto("/?enc=gpt2,cl100k_base&ws=1&text=" + quote("Price: 1234567 😀 ok"))
    expect(page.locator("#tokens-gpt2 span.tok").first).to_be_visible(timeout=FIRST)
    main = page.get_by_test_id("stMain")
    main.get_by_role("radio", name="Bytes", exact=True).click()
    expect(page.locator("#bytes-gpt2 span.tok.invalid")).to_have_count(2)  # 😀 is split in two
    screenshot("tokenize-bytes")
    main.get_by_role("radio", name="Pieces", exact=True).click()
    expect(page.locator("#pieces-gpt2 span.piece", has_text="1234567")).to_have_count(1)
    expect(page.locator("#pieces-cl100k_base span.piece", has_text="123")).to_have_count(1)
    screenshot("tokenize-pieces")
    main.get_by_role("radio", name="Table", exact=True).click()
    expect(main.get_by_test_id("stDataFrame")).to_be_visible()
    expect(main.get_by_role("button", name="Download CSV")).to_be_visible()
    no_exception(page)
