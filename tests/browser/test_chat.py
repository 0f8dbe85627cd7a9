"""The Chat formats view in a real browser: three models' counts and drawings, editing, the share link."""
from __future__ import annotations

import json
from urllib.parse import quote

from playwright.sync_api import Page, expect

import engine
from engine.chat import chat_tokens
from playground.views import chat as chat_view

FIRST = 60_000  # ms: the first render loads three vocabularies on 2 busy cores
MODELS = ("o200k_base", "llama3", "mistral-tekken")
MESSAGE_BOXES = "[class*='st-key-chat_content_'] textarea"  # the messages' text areas, not the tools box


def _no_exception(page: Page) -> None:
    expect(page.get_by_test_id("stException")).to_have_count(0)


def test_chat_counts_for_three_models(page: Page, screenshot):
    conv = [{"role": "system", "content": "You are terse."},
            {"role": "user", "content": "Weather in Paris? <|eot_id|>", "name": "ann"},
            {"role": "assistant", "content": '{"city": "Paris"}', "call": "get_weather", "tool_call_id": "call12345"},
            {"role": "tool", "content": '{"temp_c": 21}', "tool_call_id": "call12345"}]
    page.goto("/chat?v.chat_conv=" + quote(json.dumps(chat_view.pack(conv, list(MODELS)))))
    drawings = page.locator("div.chat")
    expect(drawings).to_have_count(3, timeout=FIRST)  # every format counts tool calls; OpenAI's is the estimate
    expect(page.get_by_text(f"{chat_view.MODEL_LABELS['o200k_base']} is an estimate")).to_be_visible()
    n = chat_tokens(conv, engine.get_encoding("mistral-tekken")).count
    expect(page.get_by_text(f"{chat_view.MODEL_LABELS['mistral-tekken']} · {n} tokens")).to_be_visible()
    expect(page.locator("#chat-mistral-tekken span.tok.special", has_text="[TOOL_CALLS]")).to_have_count(1)
    _no_exception(page)
    screenshot("chat_tool_call")

    # a plain conversation: every model draws
    plain = [{"role": "system", "content": "You are terse."},
             {"role": "user", "content": "Weather in Paris? 日本 🦙", "name": "ann"},
             {"role": "assistant", "content": "Sunny, 21 °C."},
             {"role": "user", "content": "Thanks!"}]
    page.goto("/chat?v.chat_conv=" + quote(json.dumps(chat_view.pack(plain, list(MODELS)))))
    expect(page.locator("div.chat")).to_have_count(3, timeout=FIRST)
    for name in MODELS:
        n = chat_tokens(plain, engine.get_encoding(name)).count
        label = chat_view.MODEL_LABELS[name]
        expect(page.get_by_text(f"{label} · {n} tokens")).to_be_visible()
    llama = page.locator("#chat-llama3")
    first = llama.locator("span.tok").first
    assert first.get_attribute("title") == "id 128000 · template · reply priming / start"
    assert "template" in first.get_attribute("class")
    assert llama.locator("span.tok.content").count() > 0
    expect(page.locator("#chat-o200k_base span.tok.uncounted").first).to_be_visible()
    first.hover()
    _no_exception(page)
    screenshot("chat_three_models")

    # editing: add a user message; the share link follows
    page.get_by_role("button", name="+ user").click()
    expect(page.locator(MESSAGE_BOXES)).to_have_count(5)
    page.locator(MESSAGE_BOXES).nth(4).fill("One more question.")
    page.locator(MESSAGE_BOXES).nth(4).press("Control+Enter")
    page.wait_for_function(
        "c => new URLSearchParams(location.search).get('v.chat_conv') === c",
        arg=json.dumps(chat_view.pack(plain + [{"role": "user", "content": "One more question."}], list(MODELS))),
        timeout=FIRST)
    _no_exception(page)


def test_import_json_replaces_the_conversation_and_a_bad_file_says_why(page: Page):
    page.goto("/chat")
    expect(page.locator("div.chat")).to_have_count(3, timeout=FIRST)
    page.get_by_text("Import / export JSON").click()
    doc = {"messages": [{"role": "user", "content": "imported question"}], "models": ["llama4"]}
    page.locator("input[type=file]").set_input_files(
        files=[{"name": "c.json", "mimeType": "application/json", "buffer": json.dumps(doc).encode()}])
    expect(page.get_by_text("Imported 1 message.")).to_be_visible(timeout=FIRST)
    expect(page.locator(MESSAGE_BOXES)).to_have_count(1)
    expect(page.locator(MESSAGE_BOXES).first).to_have_value("imported question")
    n = chat_tokens(doc["messages"], engine.get_encoding("llama4")).count
    expect(page.get_by_text(f"{chat_view.MODEL_LABELS['llama4']} · {n} tokens")).to_be_visible()
    page.locator("input[type=file]").set_input_files(
        files=[{"name": "bad.json", "mimeType": "application/json", "buffer": b'[{"role": "robot", "content": "x"}]'}])
    expect(page.get_by_text("message 1: unknown role")).to_be_visible(timeout=FIRST)
    expect(page.locator(MESSAGE_BOXES).first).to_have_value("imported question")
    _no_exception(page)


def test_an_image_added_under_more_is_listed_under_its_message_and_counted(page: Page):
    """The "add image / PDF" uploader sits in the message's More ⋯ popover (a dropzone in every message box made
    a phone's message three rows tall); the part it reads is listed under the message's text and counted."""
    import io

    from PIL import Image

    buf = io.BytesIO()
    Image.new("RGB", (1024, 1024), "navy").save(buf, "PNG")
    page.goto("/chat")
    expect(page.locator("div.chat")).to_have_count(3, timeout=FIRST)
    expect(page.locator("[class*='st-key-chat_msg_'] input[type=file]")).to_have_count(0)  # none in the boxes
    second = page.locator(".st-key-chat_msg_1")
    second.get_by_role("button", name="More ⋯").click()
    uploader = page.get_by_test_id("stPopoverBody").locator("input[type=file]")
    expect(uploader).to_have_count(1)
    uploader.set_input_files(files=[{"name": "photo.png", "mimeType": "image/png", "buffer": buf.getvalue()}])
    expect(second.get_by_text("photo.png: PNG, 1,024×1,024 px")).to_be_visible(timeout=FIRST)
    expect(page.get_by_text("Images and PDFs").first).to_be_visible()  # the media table under the counts
    _no_exception(page)
