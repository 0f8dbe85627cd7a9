"""AppTest of the Chat view's message editor with several tool calls per assistant message and a
reasoning_content box; the import, the share code and the export carry both (no browser)."""
from __future__ import annotations

import json

from streamlit.testing.v1 import AppTest

import engine
from engine.chat import chat_tokens
from playground import state
from playground.views import chat as chat_view
from tests.conftest import view_app

CONV = [{"role": "user", "content": "Weather in Paris and Rome?"}, {"role": "assistant", "content": "Checking."}]
TWO_CALLS = [{"role": "user", "content": "Weather in Paris and Rome?"},
             {"role": "assistant", "content": "Checking.", "reasoning_content": "two cities, two calls",
              "tool_calls": [
                  {"id": "call_1", "type": "function", "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'}},
                  {"id": "call_2", "type": "function", "function": {"name": "get_weather", "arguments": '{"city": "Rome"}'}}]},
             {"role": "tool", "tool_call_id": "call_1", "content": "21"},
             {"role": "tool", "tool_call_id": "call_2", "content": "24"}]


def _app(**session) -> AppTest:
    return view_app("views.chat", timeout=180, **session)


def _tokens(at: AppTest, name: str) -> int:
    rows = {r["model"]: r for r in at.dataframe[0].value.to_dict("records")}
    return rows[chat_view.MODEL_LABELS[name]]["tokens"]


def _expected(name: str, messages: list[dict]) -> int:
    return chat_tokens(messages, engine.get_encoding(name)).count


def test_import_share_code_and_export_keep_several_calls_and_reasoning():
    messages, _models, notes = chat_view.parse_json(json.dumps({"messages": TWO_CALLS}).encode())
    assert notes == [] and len(messages[1]["tool_calls"]) == 2 and messages[1]["reasoning_content"] == "two cities, two calls"
    code = chat_view.pack(messages, ["qwen2.5"])
    back, models = chat_view.unpack(code)
    assert models == ["qwen2.5"] and chat_tokens(back, engine.get_encoding("qwen2.5")).ids == chat_tokens(
        TWO_CALLS, engine.get_encoding("qwen2.5")).ids
    # a code without calls or reasoning is packed as before (old codes and links still read)
    assert chat_view.unpack(chat_view.pack(CONV, ["llama3"])) == (CONV, ["llama3"])


def test_editor_adds_edits_and_removes_tool_calls_and_reasoning():
    at = _app(chat_conv=chat_view.pack(CONV, ["qwen2.5", "o200k_harmony"])).run()
    uid = at.session_state[state.CHAT_MESSAGES][1]["uid"]
    at.button(key=f"{state.CHAT_ADD_CALL_PREFIX}{uid}").click().run()
    at.button(key=f"{state.CHAT_ADD_CALL_PREFIX}{uid}").click().run()
    assert not at.exception
    calls = at.session_state[state.CHAT_MESSAGES][1]["tool_calls"]
    assert len(calls) == 2
    for c, city, cid in zip(calls, ("Paris", "Rome"), ("call_1", "call_2")):
        at.text_input(key=f"{state.CHAT_CALL_NAME_PREFIX}{uid}_{c['uid']}").set_value("get_weather")
        at.text_input(key=f"{state.CHAT_CALL_ID_PREFIX}{uid}_{c['uid']}").set_value(cid)
        at.text_area(key=f"{state.CHAT_CALL_ARGS_PREFIX}{uid}_{c['uid']}").set_value(json.dumps({"city": city}))
    at.text_area(key=f"{state.CHAT_REASONING_PREFIX}{uid}").set_value("two cities, two calls")
    at.run()
    assert not at.exception
    want = TWO_CALLS[:2]
    for name in ("qwen2.5", "o200k_harmony"):
        assert _tokens(at, name) == _expected(name, want), name
    # the share code carries the calls and the reasoning
    back, _ = chat_view.unpack(at.session_state[state.CHAT_CONV])
    assert chat_tokens(back, engine.get_encoding("qwen2.5")).ids == chat_tokens(want, engine.get_encoding("qwen2.5")).ids
    # remove the first call: the count is the one-call conversation's
    at.button(key=f"{state.CHAT_CALL_DEL_PREFIX}{uid}_{calls[0]['uid']}").click().run()
    assert not at.exception
    one = [want[0], {**want[1], "tool_calls": want[1]["tool_calls"][1:]}]
    assert _tokens(at, "qwen2.5") == _expected("qwen2.5", one)
    assert len(at.session_state[state.CHAT_MESSAGES][1]["tool_calls"]) == 1


def test_adding_a_call_to_a_one_call_message_keeps_that_call():
    short = [CONV[0], {"role": "assistant", "content": '{"city": "Paris"}', "call": "get_weather", "tool_call_id": "call_1"}]
    at = _app(chat_conv=chat_view.pack(short, ["qwen2.5"])).run()
    uid = at.session_state[state.CHAT_MESSAGES][1]["uid"]
    at.button(key=f"{state.CHAT_ADD_CALL_PREFIX}{uid}").click().run()
    assert not at.exception
    row = at.session_state[state.CHAT_MESSAGES][1]
    assert [(c["name"], c["id"], c["arguments"]) for c in row["tool_calls"]][0] == ("get_weather", "call_1", '{"city": "Paris"}')
    assert row["content"] == "" and not row["call"] and len(row["tool_calls"]) == 2
    assert at.text_area(key=f"{state.CHAT_CONTENT_PREFIX}{uid}").value == ""


def test_a_bad_call_is_named_and_other_messages_still_count():
    at = _app(chat_conv=chat_view.pack(CONV, ["qwen2.5"])).run()
    uid = at.session_state[state.CHAT_MESSAGES][1]["uid"]
    at.button(key=f"{state.CHAT_ADD_CALL_PREFIX}{uid}").click().run()
    cid = at.session_state[state.CHAT_MESSAGES][1]["tool_calls"][0]["uid"]
    at.text_input(key=f"{state.CHAT_CALL_NAME_PREFIX}{uid}_{cid}").set_value("").run()
    assert not at.exception
    rows = at.dataframe[0].value.to_dict("records")
    assert "function.name" in rows[0]["status"]


def test_the_export_writes_the_calls_and_reasoning_and_reads_back():
    rows = [{"uid": 1, **{k: None for k in chat_view.FIELDS}, "role": "user", "content": "Weather in Paris and Rome?"},
            {"uid": 2, **{k: None for k in chat_view.FIELDS}, "role": "assistant", "content": "Checking.",
             "reasoning_content": "two cities, two calls",
             "tool_calls": [{"uid": 3, "name": "get_weather", "id": "call_1", "arguments": '{"city": "Paris"}'},
                            {"uid": 4, "name": "get_weather", "id": "call_2", "arguments": '{"city": "Rome"}'}]}]
    exported = [chat_view._normalised(chat_view._plain(r)) for r in rows]
    assert exported[1]["tool_calls"][1]["function"] == {"name": "get_weather", "arguments": '{"city": "Rome"}'}
    assert exported[1]["reasoning_content"] == "two cities, two calls"
    back, _models, _notes = chat_view.parse_json(json.dumps({"messages": exported}).encode())
    assert chat_tokens(back, engine.get_encoding("qwen2.5")).ids == chat_tokens(TWO_CALLS[:2], engine.get_encoding("qwen2.5")).ids
    # a call without a name is exported as it stands (the engine refuses it; the file keeps what the page shows)
    rows[1]["tool_calls"][0]["name"] = ""
    assert chat_view._normalised(chat_view._plain(rows[1]))["tool_calls"][0]["function"]["name"] == ""


def test_a_share_code_with_a_damaged_call_tail_is_refused():
    def code(rows):
        raw = json.dumps(["qwen2.5", rows], separators=(",", ":")).encode()
        return chat_view.base64.urlsafe_b64encode(chat_view.zlib.compress(raw)).decode().rstrip("=")

    ok = ["assistant", "", "", "", "", [["get_weather", "c1", "{}"]], "why"]
    assert chat_view.unpack(code([["user", "x", "", "", ""], ok]))[0][1]["reasoning_content"] == "why"
    for bad in (ok[:5] + ["not a list", None], ok[:5] + [[["f", "c1"]], None], ok[:5] + [[["f", 1, "{}"]], None],
                ok[:5] + [[["f", "", "{}"]] * (state.CHAT_MAX_CALLS + 1), None], ok[:5] + [[], 3]):
        try:
            chat_view.unpack(code([["user", "x", "", "", ""], bad]))
        except engine.ChatFormatError as error:
            assert "damaged" in str(error)
        else:
            raise AssertionError(bad)
