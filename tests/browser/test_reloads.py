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

import pytest

import json
import re
from pathlib import Path

from playwright.sync_api import Locator, Page, expect

import engine
from playground.render.html import slug
from playground.views import chat as chat_view
from playground.views.train import SAMPLE_TEXT
from tests.conftest import SCREENSHOTS, settle, until

FIRST = 120_000  # ms: a ceiling: the first render of a page (vocabularies loading) on 2 busy cores
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
    page.add_init_script(KEEP_SOCKETS)  # this page's loads and reloads (the context is reused by other tests)
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


# ---------------------------------------------------------------- the Chat page: this browser's copy
MESSAGE_BOXES = "[class*='st-key-chat_content_'] textarea"
HOSTILE = '<img src=x onerror="window.__pwned=1"> **not bold** [a link](http://evil.example) <|eot_id|>'
KEPT = "bpe-playground:chat"


def _chat(page: Page, url: str = "/chat") -> None:
    page.goto(url)
    expect(page.locator("div.chat").first).to_be_visible(timeout=FIRST)


def _write_message(page: Page, n: int, text: str) -> None:
    """Write message `n` once no run is in progress: a box filled while the rerun of the previous click (a tool
    added) still redraws the page can be drawn again with its old value (the full fresh-clone run lost the edit
    this way once under load; alone the test passed 3 of 3)."""
    settle(page)
    box = page.locator(MESSAGE_BOXES).nth(n)
    box.fill(text)
    box.press("Control+Enter")
    expect(box).to_have_value(text)
    settle(page)


def _kept(page: Page) -> dict | None:
    text = page.evaluate(f"localStorage.getItem({json.dumps(KEPT)})")
    return json.loads(text) if text else None


def test_the_chat_comes_back_after_a_reload_of_the_same_browser(page: Page, screenshot):
    _chat(page)
    assert _kept(page) is None  # the example, unchanged: nothing of the user's to keep
    expect(page.get_by_text("This browser keeps a copy of this conversation")).to_be_visible()
    page.get_by_role("button", name="+ weather").click()
    expect(page.get_by_text("1 tool: get_weather")).to_be_visible(timeout=FIRST)
    _write_message(page, 1, HOSTILE)
    kept = until(lambda: (_kept(page) or {}).get("code"), what="the conversation kept in localStorage")
    messages, _models, tools, _thinking = chat_view.unpack_all(
        until(lambda: _kept(page)["code"] if "get_weather" in chat_view.unpack_all(_kept(page)["code"])[2]
              and chat_view.unpack_all(_kept(page)["code"])[0][1]["content"] == HOSTILE else None,
              what="the edited conversation and its tool kept"))
    assert kept and messages[1]["content"] == HOSTILE and "get_weather" in tools

    page.reload()  # the link holds this short conversation: it comes back from the link
    expect(page.locator(MESSAGE_BOXES).nth(1)).to_have_value(HOSTILE, timeout=FIRST)
    _chat(page, "/chat")  # the page opened again without it: this browser's copy brings it back
    expect(page.get_by_text("Restored from this browser")).to_be_visible(timeout=FIRST)
    expect(page.locator(MESSAGE_BOXES).nth(1)).to_have_value(HOSTILE)  # as text, in its box
    expect(page.locator(".st-key-chat_tools_box textarea")).to_have_value(re.compile("get_weather"))
    expect(page.get_by_text("1 tool: get_weather")).to_be_visible()
    assert page.evaluate("window.__pwned") is None
    expect(page.locator("img[src='x']")).to_have_count(0)
    expect(page.get_by_role("link", name="a link")).to_have_count(0)
    expect(page.get_by_test_id("stException")).to_have_count(0)
    screenshot("reload_chat_restored")

    # Keep off: the copy is cleared, and a reload shows the example with Keep still off
    page.locator(".st-key-chat_keep label").first.click()
    until(lambda: _kept(page) == {"keep": False}, what="the copy cleared")
    _chat(page, "/chat")
    expect(page.get_by_text("Not kept in this browser")).to_be_visible(timeout=FIRST)
    expect(page.locator(MESSAGE_BOXES).nth(1)).to_have_value(chat_view.DEFAULT_CONVERSATION[1]["content"])
    expect(page.get_by_text("Restored from this browser")).to_have_count(0)


def _long_text(n: int) -> str:
    """`n` characters that deflate badly, so the share code is longer than a link holds."""
    import random

    rng = random.Random(33)
    return "".join(rng.choice("abcdefghijklmnopqrstuvwxyz ,.") for _ in range(n))


@pytest.mark.slow  # slow (issue 32): the default run keeps the chat-after-reload and late-drawn-box reload tests
def test_a_chat_too_long_for_its_link_comes_back_here_and_elsewhere_its_author_is_told(page: Page, browser,
                                                                                        screenshot):
    _chat(page)
    page.get_by_role("button", name="+ search").click()
    expect(page.get_by_text("1 tool: search_docs")).to_be_visible(timeout=FIRST)
    long = _long_text(6000)
    _write_message(page, 0, long)
    page.wait_for_url(re.compile(r"cut=v\.chat_conv"), timeout=FIRST)  # too long for the link: it says so
    until(lambda: (_kept(page) or {}).get("code") and
          chat_view.unpack_all(_kept(page)["code"])[0][0]["content"] == long, what="the long conversation kept")
    link = page.url
    assert "v.chat_conv" not in link.replace("cut=v.chat_conv", "")
    page.reload()
    expect(page.get_by_text("Restored from this browser")).to_be_visible(timeout=FIRST)
    expect(page.locator(MESSAGE_BOXES).nth(0)).to_have_value(long)
    expect(page.get_by_text("1 tool: search_docs")).to_be_visible()
    expect(page.get_by_text("did not come back")).to_have_count(0)
    expect(page.get_by_test_id("stAlert").filter(has_text="could not carry")).to_have_count(0)

    # another browser (a fresh context: its own storage) opens the same link: nothing to restore, and the notice
    # speaks to the author who lost it, then to someone it was sent to
    other = browser.new_context(viewport={"width": 1300, "height": 900})
    try:
        elsewhere = other.new_page()
        elsewhere.set_default_timeout(90_000)
        elsewhere.goto(link)
        warning = elsewhere.get_by_test_id("stAlert").filter(has_text="Your conversation did not come back")
        expect(warning).to_be_visible(timeout=FIRST)
        expect(warning).to_contain_text("this browser holds no copy")
        expect(warning).to_contain_text("if someone sent you this link")
        expect(elsewhere.get_by_test_id("stAlert").filter(has_text="its sender had open")).to_have_count(0)
        expect(elsewhere.locator(MESSAGE_BOXES).nth(0)).to_have_value(chat_view.DEFAULT_CONVERSATION[0]["content"])
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        elsewhere.screenshot(path=str(SCREENSHOTS / "reload_chat_cut_elsewhere.png"), animations="disabled")
        elsewhere.set_viewport_size({"width": 390, "height": 844})
        elsewhere.screenshot(path=str(SCREENSHOTS / "reload_chat_cut_elsewhere_phone.png"), animations="disabled")
    finally:
        other.close()


# ------------------------------------------------- trained tokenizers and uploads: said before and after
@pytest.mark.slow  # slow (issue 32): the default run keeps the dropped-connection test of uploads and tests/app/test_reloads.py
def test_a_reload_names_the_trained_tokenizer_and_the_upload_it_cleared(page: Page, tmp_path, screenshot):
    page.goto("/train")
    expect(page.get_by_role("button", name="Train", exact=True)).to_be_visible(timeout=FIRST)
    box = page.get_by_label("Vocabulary size", exact=True)
    box.fill("280")
    box.press("Enter")
    page.get_by_role("button", name="Train", exact=True).click()
    alert = page.get_by_test_id("stAlertContentSuccess").filter(has_text="learned")
    expect(alert).to_be_visible(timeout=FIRST)
    trained = re.search(r"trained-\d+-[0-9a-f]{8}", alert.inner_text()).group()
    before = page.get_by_text("Kept for this tab only: a reload clears it — download it to keep it")
    expect(before).to_be_visible()
    expect(page.get_by_test_id("stDownloadButton")).to_have_count(3)
    _upload(page, _rank_file(tmp_path, "cleared-by-reload"))
    expect(page.get_by_text("Kept for this tab only: a reload clears it — keep your file")).to_be_visible()
    screenshot("reload_train_before")
    settle(page)
    page.reload()
    after = page.get_by_test_id("stAlert").filter(has_text="cleared by the reload")
    expect(after).to_contain_text(f"Your trained tokenizer {trained} and upload cleared-by-reload were cleared by "
                                  "the reload", timeout=FIRST)
    expect(page.get_by_test_id("stAlert").filter(has_text="sender had open")).to_have_count(0)  # not "theirs"
    expect(page.get_by_test_id("stException")).to_have_count(0)
    screenshot("reload_train_after")
    settle(page)
    page.reload()  # said once: the tab forgets the names it reported
    expect(page.get_by_role("button", name="Train", exact=True)).to_be_visible(timeout=FIRST)
    settle(page)
    expect(page.get_by_test_id("stAlert").filter(has_text="cleared by the reload")).to_have_count(0)


def test_a_reload_keeps_the_text_of_boxes_that_are_drawn_late(page: Page):
    """The browser's report starts a run, and a run started while a text box was still loading (its code is fetched
    on first use) took the box as empty: under a busy server a reloaded Chat page lost its messages' text.  The
    report waits until the page is drawn.  Here the text boxes' code is held back until the report could have run."""
    _chat(page)
    _write_message(page, 1, "kept through a slow reload")
    until(lambda: (_kept(page) or {}).get("code") and
          chat_view.unpack_all(_kept(page)["code"])[0][1]["content"] == "kept through a slow reload",
          what="the edited conversation kept")
    held = []
    page.route("**/TextArea*.js", lambda route: held.append(route))
    page.reload()
    # (Playwright hands the held requests over while the test is inside one of its calls: evaluate first)
    until(lambda: page.evaluate("Boolean(window.__bpeStore && window.__bpeStore.token)") and held,
          what="the page drawn, but for its text boxes, and the browser store mounted")
    settle(page)  # a run the report started (it must not start yet) is over
    for route in held:
        route.continue_()
    page.unroute("**/TextArea*.js")
    expect(page.locator(MESSAGE_BOXES).nth(1)).to_have_value("kept through a slow reload", timeout=FIRST)
    settle(page)
    expect(page.locator(MESSAGE_BOXES).nth(1)).to_have_value("kept through a slow reload")
    expect(page.locator(MESSAGE_BOXES).nth(0)).to_have_value(chat_view.DEFAULT_CONVERSATION[0]["content"])
