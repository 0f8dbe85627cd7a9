"""Real browser: Vocabulary's "Scaffold & unreachable" pane draws both charts with every built-in labelled."""
from __future__ import annotations

import json
from urllib.parse import quote

from playwright.sync_api import Page, expect

import engine

FIRST = 60_000  # ms for the first render (vocabulary loading on 2 busy cores)


def test_every_builtin_is_labelled_in_both_charts(page: Page, screenshot):
    """Vega culls axis labels that would overlap: at 18 px per bar every other encoding lost its name."""
    page.goto(f"/vocab?tenc=gpt2&v.vocab_pane={quote(json.dumps('scaffold'))}")
    charts = page.get_by_test_id("stVegaLiteChart")
    expect(charts).to_have_count(2, timeout=FIRST)
    names = engine.list_tokenizer_names()
    for i, expected in enumerate([names, [n for n in names if n != "bert-base-uncased"]]):
        labels = charts.nth(i).locator(".role-axis-label text")
        expect(labels.filter(has_text="claude-legacy")).to_have_count(1, timeout=FIRST)
        # a culled label stays in the SVG, drawn transparent
        shown = set(labels.evaluate_all("els => els.filter(e => e.getAttribute('opacity') !== '0' && "
                                        "getComputedStyle(e).opacity !== '0').map(e => e.textContent)"))
        assert set(expected) <= shown, sorted(set(expected) - shown)
    expect(page.get_by_test_id("stDataFrame").first).to_be_visible()
    expect(page.get_by_test_id("stException")).to_have_count(0)
    screenshot("vocab_scaffold_unreachable")
