"""One browser's share of the upload budget, in chromium (playground/cache/uploads.py, `CLIENT_SHARE`): two tabs
of one browser share one part of the budget, another browser has its own.

A server of its own, with a budget of 300 MB (a share of 150 MB): o200k's rank file reserves about 110 MB while
it loads and keeps about 72 MB, so one browser can load it once, not twice at once, and a second browser still can.
"""
from __future__ import annotations

import gzip
import os

import pytest
from playwright.sync_api import Browser, Page, expect

from engine.formats.tiktoken_files import DATA_DIR

FIRST = 120_000  # ms: a page's first render on a fresh server


@pytest.fixture(scope="module")
def small_budget_server(tmp_path_factory):
    from deploy.run_replicas import Replica, free_port

    server = Replica(free_port(), tmp_path_factory.mktemp("share") / "server.log")
    saved = {k: os.environ.get(k) for k in ("BPE_UPLOAD_BUDGET_MB", "BPE_UPLOAD_CLIENT_SHARE")}
    os.environ.update(BPE_UPLOAD_BUDGET_MB="300", BPE_UPLOAD_CLIENT_SHARE="0.5")  # the server inherits them
    try:
        server.start()
    finally:
        for key, value in saved.items():
            os.environ.pop(key) if value is None else os.environ.__setitem__(key, value)
    try:
        server.wait_healthy()
        yield server.url
    finally:
        server.stop()


def _load_o200k(page: Page, path, name: str) -> str:
    """On Train your own, load `path` as a tiktoken rank file named `name`; the outcome's text."""
    page.goto("/train")
    expect(page.get_by_role("button", name="Train", exact=True)).to_be_visible(timeout=FIRST)
    page.get_by_test_id("stMain").get_by_role("radio", name="tiktoken rank file", exact=True).click()
    uploader = page.get_by_test_id("stFileUploader").filter(has_text="Rank file")
    uploader.get_by_test_id("stFileUploaderDropzoneInput").set_input_files(str(path))
    expect(uploader).to_contain_text(path.name, timeout=FIRST)
    name_box = page.get_by_label("Name", exact=True)
    expect(name_box).not_to_have_value("", timeout=FIRST)
    name_box.fill(name)
    name_box.press("Enter")
    page.get_by_role("button", name="Load tokenizer").click()
    outcome = page.get_by_test_id("stAlertContentSuccess").filter(has_text="Loaded").or_(
        page.get_by_test_id("stAlertContentError"))
    expect(outcome.first).to_be_visible(timeout=FIRST)
    return " ".join(outcome.first.inner_text().split())


@pytest.mark.slow  # slow (issue 32): a second server with a small budget and three contexts; each client's share, the client as the XSRF cookie's token and the Train page's check are tested in tests/app/test_uploads.py
def test_two_tabs_share_one_browsers_part_and_another_browser_has_its_own(browser: Browser, small_budget_server,
                                                                         tmp_path):
    path = tmp_path / "o200k_base.tiktoken"
    path.write_bytes(gzip.decompress((DATA_DIR / "o200k_base.tiktoken.gz").read_bytes()))
    one = browser.new_context(base_url=small_budget_server, viewport={"width": 1300, "height": 900})
    other = browser.new_context(base_url=small_budget_server, viewport={"width": 1300, "height": 900})
    try:
        first_tab, second_tab = one.new_page(), one.new_page()
        assert _load_o200k(first_tab, path, "tab-one").startswith("Loaded tab-one")
        refused = _load_o200k(second_tab, path, "tab-two")  # the same browser: its cookie, its share
        assert "your share" in refused and "150 MB for all the tabs of your browser" in refused, refused
        assert _load_o200k(other.new_page(), path, "elsewhere").startswith("Loaded elsewhere")  # another browser
    finally:
        one.close()
        other.close()
