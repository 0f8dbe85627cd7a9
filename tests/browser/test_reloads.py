"""What survives a dropped connection and a reload, in chromium (issue 33 item 7).

* A dropped connection that comes back within Streamlit's grace period keeps its uploads, still loaded and
  selected (they were released at once while "Loaded …" stayed on screen).
* The Chat page's conversation, models and tools come back after a reload of the same browser (its
  localStorage), hostile text still text; a conversation too long for the link too, and the notice speaks
  to its author; another browser gets none of it; turning "Keep" off clears the copy.
* A trained tokenizer and an upload do not survive a reload (server memory): the page says so before, and
  after the reload names them.
"""
from __future__ import annotations

import json
import re
from pathlib import Path

from playwright.sync_api import Locator, Page, expect

import engine
from playground.render.html import slug
from playground.views.train import SAMPLE_TEXT
from tests.conftest import settle, until

FIRST = 60_000  # ms: the first render of a page on 2 busy cores
# Every WebSocket the page opens, so a test can close Streamlit's as a dropped connection would.
KEEP_SOCKETS = """(() => {
  const Native = window.WebSocket;
  window.__bpeSockets = [];
  window.WebSocket = class extends Native {
    constructor(...args) { super(...args); window.__bpeSockets.push(this); }
  };
})();"""


def _rank_file(tmp_path: Path, stem: str) -> Path:
    path = tmp_path / f"{stem}.tiktoken"
    enc = engine.train_bpe(SAMPLE_TEXT, 280, pat_str=r" ?\w+|\s+|[^\w\s]+")
    path.write_bytes(engine.formats.tiktoken_files.dump_tiktoken_bpe(dict(enc.mergeable_ranks)))
    return path


def _upload(page: Page, path: Path) -> Locator:
    """Load the rank file `path` on Train under its stem; the "Loaded …" message."""
    page.get_by_test_id("stMain").get_by_role("radio", name="tiktoken rank file", exact=True).click()
    uploader = page.get_by_test_id("stFileUploader").filter(has_text="Rank file")
    uploader.get_by_test_id("stFileUploaderDropzoneInput").set_input_files(str(path))
    expect(page.get_by_label("Name", exact=True)).to_have_value(path.stem, timeout=FIRST)
    page.get_by_role("button", name="Load tokenizer").click()
    loaded = page.get_by_test_id("stAlertContentSuccess").filter(has_text="Loaded")
    expect(loaded).to_contain_text(f"Loaded {path.stem}", timeout=FIRST)
    return loaded


def _sidebar_box(page: Page) -> Locator:
    return page.get_by_test_id("stSidebar").get_by_test_id("stMultiSelect")


def test_a_dropped_connection_that_comes_back_keeps_its_uploads(page: Page, tmp_path):
    page.context.add_init_script(KEEP_SOCKETS)
    page.goto("/train")
    expect(page.get_by_role("button", name="Train", exact=True)).to_be_visible(timeout=FIRST)
    name = "kept-through-a-drop"
    loaded = _upload(page, _rank_file(tmp_path, name))
    expect(_sidebar_box(page)).to_contain_text(name)
    settle(page)
    sockets = page.evaluate("window.__bpeSockets.length")
    page.evaluate("window.__bpeSockets.at(-1).close()")  # the connection drops; Streamlit reconnects at once
    until(lambda: page.evaluate(f"window.__bpeSockets.length > {sockets} && "
                                "window.__bpeSockets.at(-1).readyState === WebSocket.OPEN"),
          what="a new connection to the server")
    # the next run (a page switch) still has it, loaded and selected, and nothing says it was released
    page.get_by_test_id("stSidebar").get_by_role("link", name="Compare", exact=True).click()
    expect(page.locator(f"#cmp-{slug(name)} span.tok").first).to_be_visible(timeout=FIRST)
    expect(_sidebar_box(page)).to_contain_text(name)
    expect(page.get_by_test_id("stAlert").filter(has_text="released")).to_have_count(0)
    page.get_by_test_id("stSidebar").get_by_role("link", name="Train your own", exact=True).click()
    expect(loaded).to_contain_text(f"Loaded {name}", timeout=FIRST)
    expect(page.get_by_test_id("stException")).to_have_count(0)
