"""Real browser (Playwright + Debian chromium): the picker grouped by maker, SentencePiece tokens (▁ and
byte fallback) drawn on Tokenize, and a Llama 3 merge tree."""
from __future__ import annotations

from urllib.parse import quote

from playwright.sync_api import Page, expect

import engine

FIRST = 60_000  # ms for the first render (vocabulary loading on 2 busy cores)
SP_TEXT = "Hello SentencePiece!\nA llama 🦙 and a puzzle 🧩 in 日本語."


def _no_exception(page: Page) -> None:
    expect(page.get_by_test_id("stException")).to_have_count(0)


def test_sentencepiece_space_and_byte_fallback_tokens(page: Page, screenshot):
    page.goto("/?enc=mistral-v1&text=" + quote(SP_TEXT))
    spans = page.locator("#tokens-mistral-v1 span.tok")
    expect(spans.first).to_be_visible(timeout=FIRST)
    fallback = page.locator("#tokens-mistral-v1 span.tok.bytefb")
    expect(fallback.first).to_be_visible()
    page.wait_for_function("() => window.__bpeTipText", timeout=FIRST)  # the tooltip composer is loaded
    tips = fallback.evaluate_all("els => els.map(e => window.__bpeTipText(e))")
    assert any("byte fallback <0x0A>" in tip for tip in tips)  # the newline
    assert any("<0xF0> <0x9F>" in tip for tip in tips)  # an emoji with no piece: its four bytes
    first = spans.first
    assert first.text_content().startswith("␣Hello")  # the dummy prefix, drawn as a space
    assert "▁Hello" in first.evaluate("e => window.__bpeTipText(e)")
    expect(page.locator(".fam-legend")).to_contain_text("SentencePiece writes a space as ▁")
    _no_exception(page)
    screenshot("families_sentencepiece_tokens")


def test_llama3_merge_tree(page: Page, screenshot):
    llama = engine.get_encoding("llama3")
    tid = llama.encode_single_token(" tokenizer")
    page.goto(f"/tree?tok={tid}&tenc=llama3")
    nodes = page.locator("svg.merge-tree").first.locator("g.node")
    expect(nodes).to_have_count(2 * len(" tokenizer") - 1, timeout=FIRST)
    labels = [n.text_content() for n in nodes.all()]
    assert any("␣tokenizer" in label and f"id {tid}" in label for label in labels)
    expect(page.get_by_text("tiktoken-style ranks").first).to_be_visible()
    _no_exception(page)
    screenshot("families_llama3_tree")


def test_picker_grouped_by_maker_and_model_search(page: Page, screenshot):
    page.goto("/")
    sidebar = page.get_by_test_id("stSidebar")
    expect(page.locator("#tokens-gpt2 span.tok").first).to_be_visible(timeout=FIRST)
    sidebar.get_by_text("Browse by maker or model").click()
    for maker in ("OpenAI", "Meta", "Alibaba", "Mistral", "DeepSeek"):
        expect(sidebar.get_by_text(maker, exact=True)).to_be_visible()
    expect(sidebar.get_by_text("GPT-4o, GPT-4.1, GPT-4.5, GPT-5").first).to_be_visible()
    screenshot("families_picker_by_maker")
    box = sidebar.get_by_label("Find a model or maker", exact=True).and_(sidebar.get_by_role("textbox"))
    box.fill("meta-llama/Llama-3.1-8B")
    box.press("Enter")
    expect(sidebar.get_by_text("meta-llama/Llama-3.1-8B uses it")).to_be_visible()
    sidebar.get_by_text("Llama 3, 3.1, 3.2, 3.3").click()  # the checkbox's label
    page.wait_for_function("() => location.search.includes('llama3')")
    page.get_by_role("radio", name="llama3", exact=True).click()  # Tokenize's encoding control
    expect(page.locator("#tokens-llama3 span.tok").first).to_be_visible(timeout=FIRST)
    _no_exception(page)
