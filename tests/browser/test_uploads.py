"""Uploads in chromium: Mistral's own 19.3 MB Tekken file uploads and loads, a failing
upload after a success leaves no "Loaded" message, an upload is named by the user, "Use in Compare" goes there."""
from __future__ import annotations

import re
from pathlib import Path

import mistral_common
from playwright.sync_api import Locator, Page, expect

import engine
from playground.render.html import slug
from playground.views.train import SAMPLE_TEXT

FIRST = 30_000  # ms: the first render of a page
TEKKEN = Path(mistral_common.__file__).parent / "data" / "tekken_240911.json"


def _uploader(page: Page, kind: str, label: str) -> Locator:
    page.get_by_test_id("stMain").get_by_role("radio", name=kind, exact=True).click()
    uploader = page.get_by_test_id("stFileUploader").filter(has_text=label)
    expect(uploader).to_be_visible()
    return uploader


def _drop(page: Page, uploader: Locator, path: Path) -> None:
    """Put `path` in `uploader`; wait until the server has it (the name box is filled from it)."""
    uploader.get_by_test_id("stFileUploaderDropzoneInput").set_input_files(str(path))
    expect(uploader).to_contain_text(path.name, timeout=FIRST)


def _loaded(page: Page) -> Locator:
    return page.get_by_test_id("stAlertContentSuccess").filter(has_text="Loaded")


def test_mistral_tekken_file_uploads_loads_and_goes_to_compare(page: Page, screenshot):
    assert TEKKEN.stat().st_size > 19_000_000  # the real file, past the old 16 MB cap
    page.goto("/train")
    expect(page.get_by_role("button", name="Train", exact=True)).to_be_visible(timeout=FIRST)
    uploader = _uploader(page, "Tekken .json (Mistral)", "Mistral tekken_*.json")
    _drop(page, uploader, TEKKEN)
    name_box = page.get_by_label("Name", exact=True)
    expect(name_box).to_have_value("tekken_240911", timeout=FIRST)  # named from the file
    expect(uploader).not_to_contain_text("413")
    expect(uploader).not_to_contain_text("Error")
    name_box.fill("mistral-nemo")
    name_box.press("Enter")
    page.get_by_role("button", name="Load tokenizer").click()
    expect(_loaded(page)).to_contain_text("Loaded mistral-nemo", timeout=60_000)
    expect(_loaded(page)).to_contain_text("131,072 ids")
    expect(page.get_by_test_id("stAlertContentError")).to_have_count(0)
    screenshot("issue21_tekken_upload")

    expect(page.get_by_test_id("stStatusWidget")).to_have_count(0, timeout=60_000)  # idle: a click mid-rerun can be lost
    page.get_by_role("button", name="Use in Compare").click()
    expect(page).to_have_url(re.compile(r"/compare"), timeout=FIRST)
    row = page.locator(f"#cmp-{slug('mistral-nemo')}")
    expect(row.locator("span.tok").first).to_be_visible(timeout=FIRST)
    expect(page.get_by_test_id("stSidebar").get_by_test_id("stMultiSelect")).to_contain_text("mistral-nemo")
    expect(page.get_by_test_id("stException")).to_have_count(0)
    screenshot("issue21_tekken_in_compare")


def test_a_failing_upload_after_a_success_shows_no_success(page: Page, tmp_path, screenshot):
    page.goto("/train")
    expect(page.get_by_role("button", name="Train", exact=True)).to_be_visible(timeout=FIRST)
    uploader = _uploader(page, "tiktoken rank file", "Rank file")
    good = tmp_path / "good.tiktoken"
    enc = engine.train_bpe(SAMPLE_TEXT, 280, pat_str=r" ?\w+|\s+|[^\w\s]+")
    good.write_bytes(engine.formats.tiktoken_files.dump_tiktoken_bpe(dict(enc.mergeable_ranks)))
    _drop(page, uploader, good)
    page.get_by_role("button", name="Load tokenizer").click()
    expect(_loaded(page)).to_have_count(1, timeout=FIRST)

    bad = tmp_path / "broken.tiktoken"
    bad.write_text("this is not a rank file\n")
    _drop(page, uploader, bad)
    expect(_loaded(page)).to_have_count(0)  # gone as soon as the new file arrived, before any click
    page.get_by_role("button", name="Load tokenizer").click()
    expect(page.get_by_test_id("stAlertContentError")).to_contain_text("broken.tiktoken", timeout=FIRST)
    expect(_loaded(page)).to_have_count(0)
    expect(page.get_by_test_id("stException")).to_have_count(0)
    screenshot("issue21_failed_upload_after_success")
