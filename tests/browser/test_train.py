"""Train view in a real browser: train a small vocabulary, see it in Compare; upload a tokenizer."""
from __future__ import annotations

import pytest

import re
from pathlib import Path

from playwright.sync_api import Locator, Page, expect

import engine
from playground.render.html import slug
from playground.state import DEFAULT_TEXT
from playground.views.train import SAMPLE_TEXT

FIRST = 120_000  # ms, a ceiling: a page's first render, a training or a load, on a loaded 2-core machine (30 s was
# outrun by a full parallel run: the page was still drawing)


def train_small(page: Page, vocab: int = 300) -> str:
    page.goto("/train")
    expect(page.get_by_role("button", name="Train", exact=True)).to_be_visible(timeout=FIRST)
    box = page.get_by_label("Vocabulary size", exact=True)
    box.fill(str(vocab))
    box.press("Enter")
    page.get_by_role("button", name="Train", exact=True).click()
    alert = page.get_by_test_id("stAlertContentSuccess").filter(has_text="learned")
    expect(alert).to_contain_text(f"vocabulary of {vocab} tokens", timeout=FIRST)
    name = re.search(r"trained-\d+-[0-9a-f]{8}", alert.inner_text()).group()
    expect(page.get_by_test_id("stException")).to_have_count(0)
    return name


def test_train_then_compare(page: Page, screenshot):
    name = train_small(page)
    expect(page.get_by_test_id("stVegaLiteChart").locator("svg, canvas").first).to_be_visible()
    expect(page.get_by_test_id("stDownloadButton")).to_have_count(3)
    screenshot("train_curve")

    page.get_by_test_id("stMain").get_by_role("radio", name="Merges", exact=True).click()
    expect(page.get_by_test_id("stDataFrame")).to_be_visible()
    screenshot("train_merges")

    expect(page.get_by_test_id("stStatusWidget")).to_have_count(0, timeout=60_000)  # idle: a click mid-rerun can be lost
    page.get_by_role("button", name="Use in Compare").click()  # selects it and goes to Compare
    expect(page).to_have_url(re.compile(r"/compare"), timeout=FIRST)
    expect(page.get_by_test_id("stSidebar").get_by_test_id("stMultiSelect")).to_contain_text(name)
    row = page.locator(f"#cmp-{name} span.tok")
    expect(row.first).to_be_visible(timeout=FIRST)
    expect(page.locator("#cmp-gpt2 span.tok").first).to_be_visible()
    expect(page.get_by_test_id("stException")).to_have_count(0)
    screenshot("train_in_compare")


def _uploader(page: Page, kind: str, label: str) -> Locator:
    """Pick the upload kind `kind` on Train; its file uploader, found by its label."""
    page.get_by_test_id("stMain").get_by_role("radio", name=kind, exact=True).click()
    uploader = page.get_by_test_id("stFileUploader").filter(has_text=label)
    expect(uploader).to_be_visible()
    return uploader


def _drop(uploader: Locator, path: Path) -> None:
    """Put the file `path` in `uploader` and wait until its name shows."""
    uploader.get_by_test_id("stFileUploaderDropzoneInput").set_input_files(str(path))
    expect(uploader).to_contain_text(path.name)


def _load_and_use(page: Page, stem: str) -> str:
    """Press Load tokenizer, then Use in Compare (which goes there); the loaded encoding's name, the one
    the Name box was filled with from the file (`stem`)."""
    expect(page.get_by_label("Name", exact=True)).to_have_value(stem, timeout=FIRST)
    page.get_by_role("button", name="Load tokenizer").click()
    success = page.get_by_test_id("stAlertContentSuccess").filter(has_text="It is selected in the sidebar's Encodings")
    expect(success).to_contain_text(f"Loaded {stem} ", timeout=FIRST)
    # selected by the load itself: the sidebar's box shows it before any button is pressed
    expect(page.get_by_test_id("stSidebar").get_by_test_id("stMultiSelect")).to_contain_text(stem)
    page.get_by_role("button", name="Use in Compare").last.click()
    expect(page).to_have_url(re.compile(r"/compare"), timeout=FIRST)
    expect(page.get_by_test_id("stSidebar").get_by_test_id("stMultiSelect")).to_contain_text(stem)
    return stem


@pytest.mark.slow  # slow (issue 32): minbpe models load in tests/engine and tests/app/test_train.py; the default run keeps a browser upload of a SentencePiece model
def test_upload_minbpe_model(page: Page, tmp_path, screenshot):
    page.goto("/train")
    expect(page.get_by_role("button", name="Train", exact=True)).to_be_visible(timeout=FIRST)
    uploader = _uploader(page, "minbpe .model", "minbpe .model file")
    bad = tmp_path / "broken.model"
    bad.write_text("minbpe v1\n\n0\n97 98\n999 1\n")
    _drop(uploader, bad)
    page.get_by_role("button", name="Load tokenizer").click()
    expect(page.get_by_test_id("stAlertContentError")).to_contain_text("broken.model, line 5: unknown id 999",
                                                                     timeout=FIRST)

    good = tmp_path / "sample.model"
    enc = engine.train_bpe(SAMPLE_TEXT, 280, pat_str=r" ?\w+|\s+|[^\w\s]+")
    good.write_text(engine.formats.minbpe.dump_minbpe_model(enc))
    _drop(uploader, good)
    expect(page.get_by_test_id("stAlertContentError")).to_have_count(0)  # the upload's rerun is done
    _load_and_use(page, "sample")
    expect(page.get_by_test_id("stException")).to_have_count(0)
    screenshot("train_upload")


def test_upload_sentencepiece_model_and_a_broken_tokenizer_json(page: Page, tmp_path, screenshot):
    """The new upload kinds in a real browser: a bad tokenizer.json is refused with its reason; Mistral 7B's own
    SentencePiece .model (the shipped file, unpacked) loads and gives the built-in mistral-v1's ids."""
    import gzip

    from engine.formats.tiktoken_files import DATA_DIR

    page.goto("/train")
    expect(page.get_by_role("button", name="Train", exact=True)).to_be_visible(timeout=FIRST)
    uploader = _uploader(page, "tokenizer.json (Hugging Face)", "tokenizer.json (any model type")
    bad = tmp_path / "tokenizer.json"
    bad.write_text('{"model": {"type": "BPE", "vocab": {"a": 0}, "merges": ["a b"]}}')
    _drop(uploader, bad)
    page.get_by_role("button", name="Load tokenizer").click()
    error = page.get_by_test_id("stAlertContentError")
    expect(error).to_contain_text("tokenizer.json", timeout=FIRST)
    expect(page.get_by_test_id("stException")).to_have_count(0)

    uploader = _uploader(page, "SentencePiece .model", "SentencePiece tokenizer.model")
    model = tmp_path / "mistral-7b.model"
    model.write_bytes(gzip.decompress((DATA_DIR / "mistral_tokenizer.model.v1.gz").read_bytes()))
    _drop(uploader, model)
    name = _load_and_use(page, "mistral-7b")
    # the uploaded model's ids are the built-in mistral-v1's, drawn on Compare (the session has the default text)
    page.get_by_test_id("stSidebar").get_by_role("link", name="Compare", exact=True).click()
    row = page.locator(f"#cmp-{slug(name)}")
    expect(row.locator("span.tok").first).to_be_visible(timeout=FIRST)
    expect(page.get_by_test_id("stException")).to_have_count(0)
    drawn = [int(i) for ids in row.locator("span.tok").evaluate_all("els => els.map(e => e.dataset.ids)")
             for i in ids.split()]
    assert drawn == engine.get_encoding("mistral-v1").encode(DEFAULT_TEXT, disallowed_special=())
    screenshot("train_upload_sentencepiece")


@pytest.mark.slow  # slow (issue 32): tests/app/test_uploads.py uploads twice in one session through AppTest (a success, then a failure)
def test_two_uploads_in_a_row_from_the_any_file_uploader(page: Page, tmp_path):
    """The browser's several-file uploader adds the next file beside the one it holds: the second upload was read
    with the first and refused ("first.txt and second.txt is …").  Each load now leaves it empty, and selects it."""
    from tests.engine.sources.test_load_files import BERT_VOCAB

    page.goto("/train")
    expect(page.get_by_role("button", name="Train", exact=True)).to_be_visible(timeout=FIRST)
    uploader = _uploader(page, "Any tokenizer file", "vocab.txt (WordPiece)")
    picks = page.get_by_test_id("stSidebar").get_by_test_id("stMultiSelect")
    for stem in ("first", "second"):
        path = tmp_path / f"{stem}.txt"
        path.write_bytes(BERT_VOCAB + stem.encode() + b"\n")
        _drop(uploader, path)
        expect(page.get_by_label("Name", exact=True)).to_have_value(stem, timeout=FIRST)
        page.get_by_role("button", name="Load tokenizer").click()
        success = page.get_by_test_id("stAlertContentSuccess").filter(has_text=f"Loaded {stem} ")
        expect(success).to_contain_text("It is selected in the sidebar's Encodings", timeout=FIRST)
        expect(uploader.get_by_test_id("stFileUploaderFile")).to_have_count(0)  # empty for the next file
        expect(picks).to_contain_text(stem)
    expect(picks).to_contain_text("first")
    expect(page.get_by_test_id("stAlertContentError")).to_have_count(0)
    expect(page.get_by_test_id("stException")).to_have_count(0)
