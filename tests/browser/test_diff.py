"""Real browser: Tokenizer diff, GPT-2 → o200k_base."""
from __future__ import annotations

import json

from playwright.sync_api import Page, expect

import engine

FIRST = 60_000


def test_gpt2_to_o200k(page: Page, screenshot):
    page.goto("/diff?v.diff_preset=" + json.dumps("gpt2 → o200k"))
    a, b = (set(engine.get_encoding(n).mergeable_ranks) for n in ("gpt2", "o200k_base"))
    shared = page.get_by_test_id("stMetric").filter(has_text="Shared").get_by_test_id("stMetricValue")
    expect(shared).to_have_text(f"{len(a & b):,}", timeout=FIRST)
    expect(page.locator('.diff-chips[data-group="only in B"] .tok').first).to_be_visible()
    expect(page.get_by_test_id("stVegaLiteChart").first).to_be_visible()
    expect(page.get_by_test_id("stException")).to_have_count(0)
    screenshot("diff_gpt2_o200k")
