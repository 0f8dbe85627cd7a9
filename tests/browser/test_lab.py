"""The Lab in a real browser: "Open the demo" switches page (st.switch_page, which AppTest cannot follow) and the
demo opens there - parity-aware BPE chosen on Train your own, the address naming the page."""
from __future__ import annotations

from playwright.sync_api import Page, expect

from playground.views import lab

FIRST = 120_000  # ms, a ceiling: a fresh server's first page on a loaded 2-core machine


def test_open_the_demo_goes_to_train_with_parity_aware_bpe_chosen(page: Page):
    number = next(i for i, r in enumerate(lab.RESULTS) if r.title == "Parity-aware BPE")
    page.goto("/lab")
    buttons = page.get_by_role("button", name="Open the demo")
    expect(buttons).to_have_count(len(lab.RESULTS), timeout=FIRST)
    buttons.nth(number).click()
    page.wait_for_url("**/train?**", timeout=FIRST)
    expect(page.get_by_role("radio", name="Parity-aware BPE")).to_be_checked(timeout=FIRST)
    expect(page.get_by_text("The Arena's translations")).to_be_visible()  # the parity trainer's own form
    expect(page.get_by_test_id("stException")).to_have_count(0)
