"""File kinds in chromium: a WordPiece tokenizer.json loads as WordPiece, and Llama 3's tokenizer.model picked as
SentencePiece loads as Llama 3."""
from __future__ import annotations

import sys
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from tests.engine.formats.test_file_kinds import _bert_wordpiece

FIRST = 30_000  # ms: the first render of a page
SITE = Path(sys.prefix) / "lib" / f"python{sys.version_info.major}.{sys.version_info.minor}" / "site-packages"
LLAMA3_MODEL = SITE / "llama_models" / "llama3" / "tokenizer.model"


def _upload(page: Page, kind: str, label: str, path: Path) -> None:
    page.goto("/train")
    expect(page.get_by_role("button", name="Train", exact=True)).to_be_visible(timeout=FIRST)
    page.get_by_test_id("stMain").get_by_role("radio", name=kind, exact=True).click()
    uploader = page.get_by_test_id("stFileUploader").filter(has_text=label)
    expect(uploader).to_be_visible()
    uploader.get_by_test_id("stFileUploaderDropzoneInput").set_input_files(str(path))
    expect(uploader).to_contain_text(path.name, timeout=FIRST)
    page.get_by_role("button", name="Load tokenizer").click()


def test_a_wordpiece_tokenizer_json_loads_as_wordpiece(page: Page, tmp_path, screenshot):
    path = tmp_path / "tokenizer.json"
    path.write_bytes(_bert_wordpiece())
    _upload(page, "tokenizer.json (Hugging Face)", "tokenizer.json (any model type", path)
    loaded = page.get_by_test_id("stAlertContentSuccess").filter(has_text="Loaded")
    expect(loaded).to_contain_text("WordPiece", timeout=FIRST)
    expect(loaded).to_contain_text("7 ids")
    expect(page.get_by_test_id("stAlertContentError")).to_have_count(0)
    expect(page.get_by_test_id("stException")).to_have_count(0)
    screenshot("issue21_wordpiece_upload")


def test_llama3_tokenizer_model_picked_as_sentencepiece_loads(page: Page, screenshot):
    if not LLAMA3_MODEL.exists():
        pytest.skip("llama-models is not installed")
    _upload(page, "SentencePiece .model", "SentencePiece tokenizer.model", LLAMA3_MODEL)
    loaded = page.get_by_test_id("stAlertContentSuccess").filter(has_text="Loaded")
    expect(loaded).to_contain_text("128,256 ids", timeout=60_000)
    expect(page.get_by_test_id("stAlertContentError")).to_have_count(0)
    expect(page.get_by_test_id("stException")).to_have_count(0)
    screenshot("issue21_llama3_model_as_sentencepiece")
