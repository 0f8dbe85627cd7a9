"""Lone surrogates (issue 33 item 5): a str may hold U+D800..U+DFFF, UTF-8 cannot, so one that reached the
session broke the page on every later run (the share link and the chat export could not be sent).  Every
entry of user text replaces them with U+FFFD, or refuses them, and says so; no page stays broken.

Browser widgets cannot carry one (protobuf refuses a string field of bad UTF-8); what can is JSON: the live
text box's reports, a link's ``v.`` values, a chat import or share code (``"\\ud800"`` escapes)."""
from __future__ import annotations

import base64
import json
import zlib
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from playground import state
from playground.views import chat as chat_view
from tests.conftest import drawn_ok, view_app

LONE = "ab\ud800c"  # a high half with no low half after it
REPAIRED = "ab\ufffdc"
ROOT = str(Path(__file__).resolve().parents[2])



def _told(messages: list[str], where: str) -> bool:
    return any(where in m and "lone surrogate" in m and "U+FFFD" in m for m in messages)


@pytest.mark.parametrize("view", ["views.tokenize", "views.compare", "views.chunks", "views.pipeline"])
def test_a_surrogate_in_the_sessions_text_is_replaced_with_a_notice(view):
    """However it got there: the text is repaired at the start of the run, the page draws, and says so once."""
    at = view_app(view, _net=True, **{state.TEXT: LONE})
    at.run()
    assert _told(drawn_ok(at), "The text held 1 lone surrogate (the first: U+D800 at character 3)")
    assert at.session_state[state.TEXT] == REPAIRED
    assert at.query_params["text"] == REPAIRED  # the link, which could not be written before
    at.run()  # the next run: still drawn, nothing more to say
    assert not _told(drawn_ok(at), "lone surrogate")


def _typed_script() -> None:
    """The app's frame with a report of the live text box arriving first, as its callback receives it."""
    import importlib
    import sys
    from pathlib import Path as P
    from types import SimpleNamespace

    sys.path.insert(0, str(P.cwd()))  # the test runs it from the repository's root
    import streamlit as st

    from playground import state as s
    from playground.components import live_input
    from playground.serving import errors

    report = st.session_state.pop("_report", None)
    if report is not None:
        live_input.take_typed(report)
    s.init_state()
    view = st.session_state["_view"]
    errors.run_page(SimpleNamespace(run=lambda: importlib.import_module(f"playground.{view}").render(), url_path=view))
    s.save_query_params(view)


@pytest.mark.parametrize("view", ["views.tokenize", "views.compare"])
def test_live_text_from_a_raw_client_with_a_surrogate(view, monkeypatch):
    """A raw client sent {"text": "ab\\ud800c"} as the box's report: "Something went wrong" and the raw
    exception box before; now the text is repaired, the page says so and draws."""
    monkeypatch.chdir(ROOT)
    at = AppTest.from_function(_typed_script, default_timeout=90)
    at.session_state["_view"] = view
    at.session_state["_report"] = {"text": "Hello " + LONE}
    at.run()
    assert _told(drawn_ok(at), "The typed text held 1 lone surrogate (the first: U+D800 at character 9)")
    assert at.session_state[state.TEXT] == "Hello " + REPAIRED
    at.run()
    drawn_ok(at)


def _chat_file(content: str) -> bytes:
    # json.dumps writes the surrogate as the escape "\ud800", as a JavaScript JSON.stringify of a cut emoji does
    return json.dumps({"messages": [{"role": "user", "content": content}]}).encode("ascii")


def test_a_chat_import_holding_a_surrogate_is_imported_repaired_and_the_page_keeps_working():
    at = view_app("views.chat", timeout=180, _net=True)
    at.run()
    at.file_uploader(key=state.CHAT_IMPORT).set_value(("c.json", _chat_file(LONE), "application/json")).run()
    messages = drawn_ok(at)
    assert any("Imported 1 message" in m for m in messages), messages
    assert _told(messages, "The imported file held 1 lone surrogate")
    assert [m["content"] for m in at.session_state[state.CHAT_MESSAGES]] == [REPAIRED]
    at.run()  # the next visit: it failed on every one before (the export could not encode the text)
    drawn_ok(at)


def test_parse_json_repairs_every_field_and_counts_the_surrogates():
    doc = {"messages": [{"role": "user", "content": "\udc00x\ud800"},
                        {"role": "assistant", "content": "", "tool_calls": [
                            {"id": "c\ud800", "type": "function", "function": {"name": "f", "arguments": "{}"}}]}]}
    messages, _models, notes = chat_view.parse_json(json.dumps(doc).encode())
    assert messages[0]["content"] == "\ufffdx\ufffd" and messages[1]["tool_call_id"] == "c\ufffd"
    assert "3 lone surrogates" in notes[0] and "each was replaced" in notes[0]
    json.dumps(messages, ensure_ascii=False).encode("utf-8")  # what the export does


def _code(content: str) -> str:
    """A share code holding `content` (pack itself cannot make one: it encodes to UTF-8 first)."""
    raw = json.dumps(["llama3", [["user", content] + [""] * (len(chat_view.FIELDS) - 2)]]).encode("ascii")
    return base64.urlsafe_b64encode(zlib.compress(raw, 9)).decode("ascii").rstrip("=")


def test_a_share_code_holding_a_surrogate_in_a_link_or_pasted():
    at = view_app("views.chat", timeout=180, _net=True, query={"v." + state.CHAT_CONV: json.dumps(_code(LONE))})
    at.run()
    assert _told(drawn_ok(at), "The share code held 1 lone surrogate")
    assert at.session_state[state.CHAT_MESSAGES][0]["content"] == REPAIRED
    at.text_input(key=state.CHAT_CONV).input(_code("x\udfffy\ud800")).run()  # pasted into the box
    assert _told(drawn_ok(at), "The share code held 2 lone surrogates")
    assert at.session_state[state.CHAT_MESSAGES][0]["content"] == "x\ufffdy\ufffd"


@pytest.mark.parametrize(("view", "key", "value"), [
    ("views.pipeline", state.PIPE_TEXT, "ab\ud800c"),
    ("views.tree", state.TREE_FIND, "\udfff"),
    ("views.arena", state.ARENA_PICK, ["gpt2", "\ud800"]),
])
def test_a_link_value_holding_a_surrogate_is_refused_with_the_usual_notice(view, key, value):
    """A link's ``v.`` value is JSON: ``"\\ud800"`` reads as a lone surrogate.  Refused like any bad value
    (the notice names the setting, never quotes the character, which would break the notice itself)."""
    at = view_app(view, _net=True, query={"v." + key: json.dumps(value)})
    at.run()
    messages = drawn_ok(at)
    told = [m for m in messages if f"v.{key}" in m]
    assert told and "lone surrogate" in told[0] and state.LINK_VALUES[key].label in told[0], messages
    assert at.session_state[key] != value if key in at.session_state else True


def test_an_uploaded_text_file_cannot_bring_one():
    """Uploaded bytes are decoded as strict UTF-8, which refuses an encoded surrogate (ED A0 80) with a
    message (and "replace" makes it U+FFFD): no surrogate reaches the session this way."""
    from playground.views import train as train_view

    refused = train_view.decode_upload(b"ab\xed\xa0\x80c", "t.txt", replace=False)
    assert refused.text is None and "not UTF-8" in refused.error
    replaced = train_view.decode_upload(b"ab\xed\xa0\x80c", "t.txt", replace=True)
    assert replaced.text.encode("utf-8") and "\ufffd" in replaced.text
