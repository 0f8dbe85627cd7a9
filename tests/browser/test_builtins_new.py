"""Real browser: the picker with the new makers (Zhipu AI, MiniMax, Anthropic, Google, Google Research),
Claude (legacy)'s note, BERT's ## pieces, Gemma 3's byte fallback on Devanagari, and the Arena with every built-in."""
from __future__ import annotations

from urllib.parse import quote

from playwright.sync_api import Page, expect

FIRST = 90_000  # ms for the first render (vocabulary loading on 2 busy cores)


def _no_exception(page: Page) -> None:
    expect(page.get_by_test_id("stException")).to_have_count(0)


def test_picker_shows_the_new_makers(page: Page, screenshot):
    page.goto("/")
    sidebar = page.get_by_test_id("stSidebar")
    expect(page.locator("#tokens-gpt2 span.tok").first).to_be_visible(timeout=FIRST)
    sidebar.get_by_text("Browse by maker or model").click()
    for maker in ("Zhipu AI", "MiniMax", "Anthropic", "Google", "Google Research"):
        expect(sidebar.get_by_text(maker, exact=True)).to_be_visible()
    expect(sidebar.get_by_text("Claude 1 and 2 only: the pre-Claude-3 tokenizer").first).to_be_visible()
    expect(sidebar.get_by_text("only from Anthropic's API").first).to_be_visible()
    sidebar.get_by_text("Anthropic", exact=True).scroll_into_view_if_needed()
    _no_exception(page)
    screenshot("builtins_picker_new_makers")


def test_claude_legacy_note_on_tokenize(page: Page, screenshot):
    page.goto("/?enc=claude-legacy&text=" + quote("Claude's legacy tokenizer: ﬁne ½ café"))
    expect(page.locator("#tokens-claude-legacy span.tok").first).to_be_visible(timeout=FIRST)
    expect(page.get_by_text("Claude 3 and later use a private tokenizer").first).to_be_visible()
    _no_exception(page)
    screenshot("builtins_claude_legacy_note")


def test_bert_wordpiece_pieces(page: Page, screenshot):
    page.goto("/?enc=bert-base-uncased&text=" + quote("Tokenization is unbelievably straightforward."))
    spans = page.locator("#tokens-bert-base-uncased span.tok")
    expect(spans.first).to_be_visible(timeout=FIRST)
    page.wait_for_function("() => window.__bpeTipText", timeout=FIRST)
    tips = spans.evaluate_all("els => els.map(e => window.__bpeTipText(e))")
    assert any("##ization" in tip for tip in tips), tips
    _no_exception(page)
    screenshot("builtins_bert_wordpiece")


def test_gemma3_byte_fallback_on_devanagari(page: Page, screenshot):
    page.goto("/?enc=gemma3&text=" + quote("नमस्ते दुनिया ꙮ 𝔘𝔫𝔦"))
    spans = page.locator("#tokens-gemma3 span.tok")
    expect(spans.first).to_be_visible(timeout=FIRST)
    _no_exception(page)
    screenshot("builtins_gemma3_devanagari")
