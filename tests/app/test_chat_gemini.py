"""AppTest of the Chat formats page's Gemini rows: their counts are engine.chat.gemini's count of the request
(checked against google-genai's own LocalTokenizer in tests/engine/chat/test_chat_gemini.py), with the same
tools box and breakdown as every row, and the request itself shown."""
from __future__ import annotations

import json
import subprocess
import sys

import pytest
from streamlit.testing.v1 import AppTest

import engine
from engine.chat import as_messages, check_tools
from engine.chat.gemini import ROW_ENCODING, count_request, request_of
from playground.views import chat as chat_view
from playground.widgets import gemini_request
from tests.conftest import APP_DIR, blocks, view_app

ROWS = list(ROW_ENCODING)


@pytest.fixture(scope="module", autouse=True)
def gemma_installed():
    subprocess.run([sys.executable, "scripts/install_gemma.py"], cwd=APP_DIR, check=True, capture_output=True)


def _app(**session) -> AppTest:
    return view_app("views.chat", timeout=180, **session)


def _table(at: AppTest) -> dict[str, dict]:
    """Rows by model; counts as numbers (a table with an uncounted row writes them as text: "1,234", "—")."""
    def count(cell):
        if isinstance(cell, str) and (cell == "—" or cell.replace(",", "").isdigit()):
            return None if cell == "—" else int(cell.replace(",", ""))
        return cell

    return {row["model"]: {k: count(v) for k, v in row.items()} for row in at.dataframe[0].value.to_dict("records")}


def test_gemini_rows_count_the_default_conversation_with_a_tool_as_the_engine_does():
    conversation = chat_view.DEFAULT_CONVERSATION
    at = _app(chat_conv=chat_view.pack(conversation, [*ROWS, "gemma4"])).run()
    at.button(key="chat_preset_weather").click().run()
    assert not at.exception
    request = request_of(as_messages(conversation), check_tools([chat_view.PRESETS["weather"]]))
    no_tools = request_of(as_messages(conversation))
    rows = _table(at)
    for name in ROWS:
        row = rows[chat_view.MODEL_LABELS[name]]
        enc = engine.get_encoding(ROW_ENCODING[name])
        assert row["tokens"] == count_request(request, enc), (name, row)
        assert row["status"] == "counted" and row["prime the reply"] == 0
        assert row["tools"] == count_request(request, enc) - count_request(no_tools, enc) > 0
    # Gemini 3.1 pays a <bos> per text: more than 2.5 on the same request
    assert rows[chat_view.MODEL_LABELS["gemini-3.1"]]["tokens"] > rows[chat_view.MODEL_LABELS["gemini-2.5"]]["tokens"]
    # the same breakdown as the other rows: tools first, then each message
    parts = at.dataframe[1].value
    assert list(parts["part"])[:2] == ["tools", "message 1 · system"]
    label = chat_view.MODEL_LABELS["gemini-2.5"]
    assert parts[label].fillna(0).sum() == rows[label]["tokens"]  # (gemma4 has a frame row; Gemini none)
    # the request as Google's API takes it, shown
    assert json.loads(at.json[0].value) == request
    assert request["systemInstruction"] == {"parts": [{"text": "You are a helpful assistant."}]}
    assert request["tools"][0]["functionDeclarations"][0]["name"] == "get_weather"
    # the context-window bar's tool line: the tool's marginal tokens recounted in Gemini's own format, on the
    # row's Gemma vocabulary (a Gemini row is no encoding: loading it by name broke the page)
    bars = {row.split("<b>", 1)[1].split(" · ", 1)[0]: row for row in _window_rows(at)}
    for name in ROWS:
        enc = engine.get_encoding(ROW_ENCODING[name])
        marginal = count_request(request, enc) - count_request(no_tools, enc)
        assert f'<div class="wtools">tools: get_weather {marginal:,}</div>' in bars[name], bars[name]


def _window_rows(at: AppTest) -> list[str]:
    """The context-window bars' rows (one per counted model), as markup."""
    (bars,) = [b for b in blocks(at) if 'id="window-bars"' in b]
    return bars.split('<div class="wrow ')[1:]


def test_a_conversation_gemini_cannot_take_says_why_and_other_rows_count():
    conversation = [{"role": "user", "content": "hi"}, {"role": "tool", "content": "21"}]
    at = _app(chat_conv=chat_view.pack(conversation, ["gemini-2.5", "o200k_base"])).run()
    assert not at.exception
    rows = _table(at)
    assert rows[chat_view.MODEL_LABELS["gemini-2.5"]]["status"].startswith("not counted: message 2: Gemini's "
                                                                          "functionResponse needs the function's name")
    assert rows[chat_view.MODEL_LABELS["o200k_base"]]["tokens"] > 0
    assert not at.json  # no request drawn for a row that was not counted


def test_gemini_rows_are_offered_with_their_labels():
    offered = chat_view.chat_models()
    assert set(ROWS) <= set(offered)
    assert all(chat_view.MODEL_LABELS[n] == gemini_request.MODEL_LABELS[n] for n in ROWS)
