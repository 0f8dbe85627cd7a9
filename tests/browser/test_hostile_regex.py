"""A hostile split pattern in chromium: a tokenizer.json whose Split is ``(a|aa)+$``, uploaded, used in Compare on
38 ``a`` and ``!``: the page says the pattern took too long (file, field, fix), never "Something went wrong"."""
from __future__ import annotations

import pytest

import re

from playwright.sync_api import Page, expect

from tests.engine.families.test_hf_hostile_regex import HOSTILE, TEXT, tokenizer_json

FIRST = 30_000  # ms: the first render of a page
# the split time limit is 10 s of the server's CPU time; on 2 shared cores that can be 30 s or more of wall time
LIMIT = 90_000


@pytest.mark.slow  # slow (issue 32): tests/app/test_hostile_regex.py checks the same messages through AppTest
def test_hostile_split_upload_in_compare_says_why(page: Page, tmp_path, screenshot):
    path = tmp_path / "hostile.json"
    path.write_bytes(tokenizer_json(HOSTILE))
    page.goto("/train")
    expect(page.get_by_role("button", name="Train", exact=True)).to_be_visible(timeout=FIRST)
    page.get_by_test_id("stMain").get_by_role("radio", name="tokenizer.json (Hugging Face)", exact=True).click()
    uploader = page.get_by_test_id("stFileUploader").filter(has_text="tokenizer.json (any model type")
    expect(uploader).to_be_visible()
    uploader.get_by_test_id("stFileUploaderDropzoneInput").set_input_files(str(path))
    expect(uploader).to_contain_text("hostile.json", timeout=FIRST)
    page.get_by_role("button", name="Load tokenizer").click()
    expect(page.get_by_test_id("stAlertContentSuccess").filter(has_text="Loaded")).to_have_count(1, timeout=FIRST)

    expect(page.get_by_test_id("stStatusWidget")).to_have_count(0, timeout=60_000)  # idle: a click mid-rerun can be lost
    page.get_by_role("button", name="Use in Compare").click()
    expect(page).to_have_url(re.compile(r"/compare"), timeout=FIRST)
    page.get_by_label("Text", exact=True).fill(TEXT)
    error = page.get_by_test_id("stAlertContentError")
    expect(error).to_contain_text("could not split this text", timeout=LIMIT)
    expect(error).to_contain_text("hostile.json")
    expect(error).to_contain_text("took more than 10 s")
    expect(error).to_contain_text("single repeat (a+)")
    expect(page.get_by_text("Something went wrong")).to_have_count(0)
    expect(page.get_by_test_id("stException")).to_have_count(0)
    screenshot("issue21_hostile_split_in_compare")
