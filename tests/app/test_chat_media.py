"""AppTest of images and PDFs in Chat formats (playground/widgets/media_parts.py): a part uploaded into a message
shows its size, and each model row counts it by its maker's rule, or says it has none."""
from __future__ import annotations

import io
import re

import pytest
from PIL import Image

from engine.chat.media import RULES
from playground import state
from playground.views import chat as chat_view
from tests.conftest import blocks, view_app


def _png(w: int, h: int) -> bytes:
    buf = io.BytesIO()
    Image.new("RGB", (w, h), "navy").save(buf, "PNG")
    return buf.getvalue()


def _pdf(pages: int) -> bytes:
    frames = [Image.new("RGB", (612, 792), "white") for _ in range(pages)]
    buf = io.BytesIO()
    frames[0].save(buf, "PDF", save_all=True, append_images=frames[1:], resolution=72)
    return buf.getvalue()


def _frame(at, column: str):
    """The dataframe with ``column`` (the media table has "image/PDF tokens", every maker's rule "maker"), or None."""
    return next((d.value for d in at.dataframe if column in d.value.columns), None)


def _media_rows(at) -> dict[str, dict]:
    frame = _frame(at, "image/PDF tokens")
    return {row["model"]: row for row in frame.to_dict("records")}


def _upload(at, files):
    uid = at.session_state[state.CHAT_MESSAGES][1]["uid"]
    at.file_uploader(key=f"{state.CHAT_MEDIA_UPLOAD_PREFIX}{uid}").set_value(files).run()
    return uid


def _texts(elements) -> list[str]:
    return [e.value.replace("\\", "") for e in elements]  # md() escapes punctuation


def _num(v):
    """A count cell: "1,105", or "—" for a row that does not count the part."""
    return None if v == "—" else int(str(v).replace(",", ""))


def test_an_uploaded_png_is_counted_by_each_rows_rule():
    at = view_app("views.chat", timeout=120).run()
    _upload(at, [("photo.png", _png(1024, 1024), "image/png")])
    assert not at.exception
    assert any("photo.png: PNG, 1,024×1,024 px" in c for c in _texts(at.caption))
    rows = _media_rows(at)
    counts = dict(zip(at.dataframe[0].value["model"], at.dataframe[0].value["tokens"]))
    gpt = rows[chat_view.MODEL_LABELS["o200k_base"]]
    assert _num(gpt["image/PDF tokens"]) == 765  # detail auto, counted as high: 85 + 4 × 170
    assert _num(gpt["text tokens"]) == counts[chat_view.MODEL_LABELS["o200k_base"]]
    assert _media_rows(at)[chat_view.MODEL_LABELS["llama3"]]["image/PDF tokens"] == "—"  # never "None"
    assert _num(gpt["total"]) == _num(gpt["text tokens"]) + 765
    assert "platform.openai.com" in gpt["source"] and "2026-11-29" in gpt["source"]
    assert any("the share code, the JSON export and this browser's copy do not carry them" in c
               for c in _texts(at.caption))
    for name, maker in [("llama3", "Meta"), ("qwen2.5", "Alibaba")]:
        row = rows[chat_view.MODEL_LABELS[name]]
        assert _num(row["image/PDF tokens"]) is None and _num(row["text tokens"]) == counts[chat_view.MODEL_LABELS[name]]
        assert f"images not counted: {maker}" in row["rule"]
        assert any(f"{maker}" in c and "publishes no rule" in c for c in _texts(at.caption))
    # the OpenAI model and detail settings change the o200k row's count
    at.selectbox(key=state.CHAT_MEDIA_OPENAI).set_value("openai-4.1-mini").run()
    assert _num(_media_rows(at)[chat_view.MODEL_LABELS["o200k_base"]]["image/PDF tokens"]) == 1659  # 1024 × 1.62
    at.selectbox(key=state.CHAT_MEDIA_OPENAI).set_value("openai-tiles").run()
    at.selectbox(key=state.CHAT_MEDIA_DETAIL).set_value("low").run()
    assert _num(_media_rows(at)[chat_view.MODEL_LABELS["o200k_base"]]["image/PDF tokens"]) == 85
    # every maker's rule on the same part: Claude and Gemini too
    rules = _frame(at, "maker")
    by_rule = dict(zip(rules["rule"], rules["tokens"]))
    assert _num(by_rule[RULES["claude"].title]) == 1399  # ceil(1024 × 1024 / 750)
    assert _num(by_rule[RULES["gemini-2"].title]) == 4 * 258
    assert _num(by_rule[RULES["gemini-3"].title]) == 1120


def test_a_pdf_shows_its_pages_and_openai_says_it_has_no_page_rule():
    at = view_app("views.chat", timeout=120).run()
    _upload(at, [("doc.pdf", _pdf(3), "application/pdf")])
    assert not at.exception
    assert any("doc.pdf: PDF, 3 pages, 612×792 pt" in c for c in _texts(at.caption))
    gpt = _media_rows(at)[chat_view.MODEL_LABELS["o200k_base"]]
    assert _num(gpt["image/PDF tokens"]) is None
    assert any("PDF not counted" in c and "OpenAI" in c for c in _texts(at.caption))
    rules = _frame(at, "maker")
    assert _num(dict(zip(rules["rule"], rules["tokens"]))[RULES["gemini-2"].title]) == 3 * 258


def test_a_crafted_file_is_refused_with_its_reason_and_nothing_breaks():
    at = view_app("views.chat", timeout=120).run()
    crafted = b"\x89PNG\r\n\x1a\n\x00\x00\x00\x0dIHDR\x00\x00\x00\x00\x00\x00\x00\x10" + b"\0" * 9
    _upload(at, [("evil.png", crafted, "image/png")])
    assert not at.exception
    assert any("evil.png: not read" in w and "0×16" in w for w in _texts(at.warning))
    assert _frame(at, "image/PDF tokens") is None  # no part to count


def test_parts_survive_another_page_and_can_be_removed():
    at = view_app("views.chat", timeout=120).run()
    uid = _upload(at, [("photo.png", _png(300, 200), "image/png")])
    at.session_state["_view"] = "views.glossary"
    at.run()
    at.session_state["_view"] = "views.chat"
    at.run()
    assert not at.exception
    assert any("photo.png: PNG, 300×200 px" in c for c in _texts(at.caption))
    assert _num(_media_rows(at)[chat_view.MODEL_LABELS["o200k_base"]]["image/PDF tokens"]) == 85 + 170
    at.button(key=f"{state.CHAT_MEDIA_DEL_PREFIX}{uid}_0").click().run()
    assert not any("photo.png" in c for c in _texts(at.caption))
    assert _frame(at, "image/PDF tokens") is None


def test_the_context_window_and_the_cost_add_a_rows_image_tokens():
    """The window bar's "images" and the cost table's prompt are the row's text plus its parts as its rule counts
    them (before, the bar read no image tokens: "images 0" beside a 765-token picture)."""
    at = view_app("views.chat", timeout=120).run()
    text = {row["model"]: row["prompt tokens"] for row in _frame(at, "prompt tokens").to_dict("records")}
    _upload(at, [("photo.png", _png(1024, 1024), "image/png")])
    assert not at.exception
    costs = {row["model"]: row for row in _frame(at, "prompt tokens").to_dict("records")}
    assert costs["o200k_base"]["prompt tokens"] == text["o200k_base"] + 765  # GPT-4o: 4 tiles x 170 + 85
    assert costs["llama3"]["prompt tokens"] == text["llama3"]  # Meta publishes no rule: nothing added
    bars = next(b for b in blocks(at) if "reserved output" in b)
    assert 'title="images: 765 tokens"' in bars and "images 765" in re.sub(r"<[^>]+>", "", bars)
