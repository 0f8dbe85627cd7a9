"""Real browser, presentation mode on, as a projector shows it (1280×720) and on a phone (390 px):
training at step 5, the GPT-2 → o200k diff, strawberry in three tokenizers, long tokens in narrow columns,
and the glossary line in a help tooltip."""
from __future__ import annotations

import json
from pathlib import Path
from urllib.parse import quote

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.browser.test_ui_details import BROKEN
from tests.conftest import root_font_size_becomes

FIRST = 60_000
SHOTS = Path(__file__).parents[2] / "test-results" / "screenshots"
PROJECTOR = {"width": 1280, "height": 720}
PHONE = {"width": 390, "height": 844}
ON = "v.present=true"

# Drawn chips (.gchips) of the training, diff and gallery views: a chip is one token, never two lines.
CHIPS_BROKEN = """els => els.map(e => {
    const rects = Array.from(e.getClientRects()).filter(r => r.width > 0);
    return [e.textContent, rects.length];
  }).filter(([, n]) => n > 1)"""


# Each view below runs at one size by default and at the other under slow (issue 32), alternating projector and
# phone, so the default run still sees presentation mode at both sizes.
def open_page(browser: Browser, base_url: str, size: dict, path: str) -> tuple:
    context = browser.new_context(base_url=base_url, viewport=size, locale="en-US",
                                  device_scale_factor=2 if size is PHONE else 1)
    page = context.new_page()
    page.goto(path)
    return context, page


def shot(page: Page, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"), animations="disabled")


def larger_type(page: Page) -> None:
    root_font_size_becomes(page, "20px")


def metric(page: Page, label: str):
    return page.get_by_test_id("stMetric").filter(has_text=label).get_by_test_id("stMetricValue")


@pytest.mark.parametrize("size, tag", [(PROJECTOR, "1280"), pytest.param(PHONE, "390", marks=pytest.mark.slow)])
def test_training_at_step_five(browser: Browser, base_url: str, size, tag):
    path = f"/train-steps?{ON}&v.tsteps_source={quote(json.dumps('nursery rhyme'))}&v.tsteps_step=5"
    context, page = open_page(browser, base_url, size, path)
    try:
        expect(metric(page, "Step")).to_have_text("5 of 20", timeout=FIRST)
        larger_type(page)
        assert page.locator(".gchips .tok").evaluate_all(CHIPS_BROKEN) == []
        grey = page.locator('[data-testid="stCaptionContainer"]').first.evaluate("e => getComputedStyle(e).color")
        assert grey == "rgb(17, 17, 17)", grey  # high contrast: captions are near black, not faded
        fade = page.locator('[data-testid="stCaptionContainer"]').first.evaluate("e => getComputedStyle(e).opacity")
        assert fade == "1", fade
        page.get_by_text("Pair counts before merge 6").evaluate("e => e.scrollIntoView({block: 'start'})")
        shot(page, f"present_train_step5_{tag}")
        expect(page.get_by_test_id("stException")).to_have_count(0)
    finally:
        context.close()


@pytest.mark.parametrize("size, tag", [pytest.param(PROJECTOR, "1280", marks=pytest.mark.slow), (PHONE, "390")])
def test_gpt2_to_o200k_diff(browser: Browser, base_url: str, size, tag):
    context, page = open_page(browser, base_url, size, f"/diff?{ON}&v.diff_preset={quote(json.dumps('gpt2 → o200k'))}")
    try:
        expect(metric(page, "Only in B")).to_have_text("157,125", timeout=FIRST)
        larger_type(page)
        shot(page, f"present_diff_gpt2_o200k_{tag}")
        page.locator('.diff-chips[data-group="only in B"]').scroll_into_view_if_needed()
        assert page.locator(".gchips .tok").evaluate_all(CHIPS_BROKEN) == []
        shot(page, f"present_diff_gpt2_o200k_samples_{tag}")
    finally:
        context.close()


@pytest.mark.parametrize("size, tag", [(PROJECTOR, "1280"), pytest.param(PHONE, "390", marks=pytest.mark.slow)])
def test_strawberry_in_three_tokenizers(browser: Browser, base_url: str, size, tag):
    context, page = open_page(browser, base_url, size, f"/gallery?{ON}&v.gallery_demo={quote(json.dumps('letters'))}")
    try:
        line = page.locator('.gchips[data-example="In a sentence"]')
        expect(line).to_have_count(3, timeout=FIRST)
        larger_type(page)
        assert page.locator(".gchips .tok").evaluate_all(CHIPS_BROKEN) == []
        page.locator(".gchips-name").first.evaluate("e => e.scrollIntoView({block: 'start'})")
        shot(page, f"present_strawberry_{tag}")
    finally:
        context.close()


@pytest.mark.parametrize("size, tag", [pytest.param(PROJECTOR, "1280", marks=pytest.mark.slow), (PHONE, "390")])
def test_long_tokens_in_narrow_columns_are_not_broken(browser: Browser, base_url: str, size, tag):
    text = "How many r's are in strawberry? Tokenizers are unbelievable; internationalization, " * 3
    context, page = open_page(browser, base_url, size,
                              f"/compare?{ON}&enc=gpt2,cl100k_base,o200k_base&ws=1&text=" + quote(text))
    try:
        rows = page.locator(".tokens.cmp")
        expect(rows).to_have_count(3, timeout=FIRST)
        expect(rows.first.locator(".tok").first).to_be_visible(timeout=FIRST)
        larger_type(page)
        broken = page.locator(".tokens.cmp .tok").evaluate_all(BROKEN)
        assert broken == [], broken
        rows.first.scroll_into_view_if_needed()
        shot(page, f"present_compare_narrow_{tag}")
    finally:
        context.close()


def test_a_help_tooltip_links_to_the_glossary(page: Page):
    page.goto(f"/train-steps?{ON}")
    expect(metric(page, "Step")).to_be_visible(timeout=FIRST)
    page.get_by_test_id("stMetric").filter(has_text="Vocabulary").get_by_test_id("stTooltipHoverTarget").hover()
    links = page.locator('[data-testid="stTooltipContent"] .bpe-gloss a')
    expect(links.first).to_be_visible(timeout=10_000)
    words = links.all_text_contents()
    assert "byte" in words or "merge" in words, words
    term = words[0]
    with page.context.expect_page() as opened:
        links.first.click()
    glossary = opened.value
    entry = glossary.locator(".glossary dt.hit")
    expect(entry).to_have_text(term, timeout=FIRST)
    expect(entry).to_be_in_viewport()


# On-screen size of every label of the merge tree: its CSS size in the drawing's units times the drawing's scale
# (Streamlit shrinks a drawing wider than the column), and its top.
TREE = """svg => {
    const scale = svg.getBoundingClientRect().width / svg.viewBox.baseVal.width;
    return {top: svg.getBoundingClientRect().top,
            px: [...svg.querySelectorAll('g.node text')].map(t => parseFloat(getComputedStyle(t).fontSize) * scale)};
  }"""
# Vega's axes and legends: their labels and titles.
AXIS_TEXT = ".role-axis-label text, .role-axis-title text, .role-legend-label text, .role-legend-title text"


def test_the_merge_tree_on_a_projector(browser: Browser, base_url: str):
    """At 1280×720 the tree starts on the first screen (it began 1,372 px down, under the pickers and 80 chips) and
    its labels are drawn at presentation size (they were 9 px: Graphviz's 11 pt, shrunk to the column)."""
    from playground.render.css import PRESENT_TEXT_PX

    context, page = open_page(browser, base_url, PROJECTOR, f"/tree?{ON}")
    try:
        drawing = page.locator("svg.merge-tree")
        expect(drawing.locator("g.node").first).to_be_visible(timeout=FIRST)
        larger_type(page)
        tree = drawing.evaluate(TREE)
        assert 0 <= tree["top"] < PROJECTOR["height"] - 100, tree["top"]
        assert tree["px"] and min(tree["px"]) >= PRESENT_TEXT_PX - 0.1, tree["px"]
        shot(page, "present_merge_tree_1280")
        expect(page.get_by_test_id("stException")).to_have_count(0)
    finally:
        context.close()


def test_chart_axes_on_a_projector(browser: Browser, base_url: str):
    """The Vocabulary's length histogram: axis labels and titles at presentation size (Vega's own 11-12 px before)."""
    from playground.render.css import PRESENT_TEXT_PX

    context, page = open_page(browser, base_url, PROJECTOR, f"/vocab?{ON}&v.vocab_pane={quote(json.dumps('lengths'))}")
    try:
        chart = page.get_by_test_id("stVegaLiteChart")
        expect(chart.locator(".role-axis-label text").first).to_be_visible(timeout=FIRST)
        sizes = chart.locator(AXIS_TEXT).evaluate_all("els => els.map(e => parseFloat(getComputedStyle(e).fontSize))")
        assert sizes and min(sizes) >= PRESENT_TEXT_PX, sizes
        chart.scroll_into_view_if_needed()
        shot(page, "present_vocab_lengths_1280")
    finally:
        context.close()
