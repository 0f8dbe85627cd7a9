"""AppTest of the Chat view's tools editor, thinking switches and per-part breakdown (no browser)."""
from __future__ import annotations

import json
import re

from streamlit.testing.v1 import AppTest

import engine
from engine.chat import chat_tokens
from playground.views import chat as chat_view
from tests.conftest import plain, view_app

CONV = [{"role": "system", "content": "You can look up the weather."},
        {"role": "user", "content": "Weather in Paris?"}]
THREE = [chat_view.PRESETS[k] for k in ("weather", "MCP file", "search")]


def _app(**session) -> AppTest:
    return view_app("views.chat", timeout=180, **session)


def _table(at: AppTest) -> dict[str, dict]:
    frame = at.dataframe[0].value
    return {row["model"]: row for row in frame.to_dict("records")}


def _expected(name: str, messages: list[dict], tools=None, thinking=None) -> int:
    return chat_tokens(messages, engine.get_encoding(name), tools=tools, thinking=thinking).count


def test_presets_add_tools_and_every_count_includes_them():
    models = ["o200k_base", "o200k_harmony", "qwen2.5", "mistral-tekken", "deepseek-v4"]
    at = _app(chat_conv=chat_view.pack(CONV, models)).run()
    for key in ("chat_preset_weather", "chat_preset_MCP-file", "chat_preset_search"):
        at.button(key=key).click().run()
    assert not at.exception
    assert [t["function"]["name"] for t in json.loads(at.session_state["chat_tools"])] == [
        "get_weather", "read_file", "search_docs"]
    rows = _table(at)
    for name in models:
        row = rows[chat_view.MODEL_LABELS[name]]
        assert row["tokens"] == _expected(name, CONV, THREE), name
        assert row["tools"] > 50, row
        assert row["status"] == ("estimate" if name == "o200k_base" else "counted"), row
    # the per-message breakdown lists the tools first
    parts = at.dataframe[1].value  # the per-message breakdown lists the tools first
    assert list(parts["part"])[0] == "tools"
    assert list(parts[chat_view.MODEL_LABELS["qwen2.5"]])[0] == rows[chat_view.MODEL_LABELS["qwen2.5"]]["tools"]


def test_bad_tools_name_the_field_and_counts_go_on_without_them():
    at = _app(chat_conv=chat_view.pack(CONV, ["llama3", "qwen2.5"])).run()
    bad = [{"type": "function", "function": {"name": "ok"}},
           {"type": "function", "function": {"name": "<img src=x onerror=alert(1)>", "parameters": {}}}]
    at.text_area(key="chat_tools_box").set_value(json.dumps(bad)).run()
    assert not at.exception
    errors = [plain(e.value) for e in at.error]
    assert any("Tools not counted" in e and "tool 2" in e and "function.name" in e for e in errors), errors
    # the hostile name is escaped by md() (every markup character backslashed), never raw markup
    assert all(not re.search(r"(?<!\\)<img", e.value) for e in at.error)
    assert _table(at)[chat_view.MODEL_LABELS["qwen2.5"]]["tokens"] == _expected("qwen2.5", CONV)
    for text, says in [("{not json", "not JSON"), ("42", "must be a JSON list"),
                       (json.dumps([{"name": f"f{i}"} for i in range(10_000)]), "the limit is 128"),
                       ("[" * 5000 + "]" * 5000, "nested")]:
        at.text_area(key="chat_tools_box").set_value(text).run()
        assert not at.exception
        assert any(says in plain(e.value) for e in at.error), (says, [e.value for e in at.error])


def test_thinking_switch_changes_the_count_and_states_the_default():
    at = _app(chat_conv=chat_view.pack(CONV, ["qwen2.5", "o200k_harmony"])).run()
    box = at.selectbox(key="chat_think_qwen3")
    assert box.value is True and "on (default)" in box.options
    before = _table(at)[chat_view.MODEL_LABELS["qwen2.5"]]["tokens"]
    box.set_value(False).run()
    after = _table(at)[chat_view.MODEL_LABELS["qwen2.5"]]["tokens"]
    assert after == _expected("qwen2.5", CONV, thinking=False) and after > before
    at.selectbox(key="chat_think_harmony").set_value("high").run()
    assert _table(at)[chat_view.MODEL_LABELS["o200k_harmony"]]["tokens"] == _expected("o200k_harmony", CONV, thinking="high")
    assert at.session_state["chat_thinking"] == {"qwen3": False, "harmony": "high"}


def test_tools_and_thinking_travel_in_the_share_code_and_the_export():
    tools = json.dumps(THREE[:1])
    code = chat_view.pack(CONV, ["qwen2.5"], tools, {"qwen3": False})
    assert chat_view.unpack_all(code) == (CONV, ["qwen2.5"], tools, {"qwen3": False})
    assert chat_view.unpack(chat_view.pack(CONV, ["llama3"])) == (CONV, ["llama3"])  # old codes still read
    at = _app(chat_conv=code).run()
    assert not at.exception
    assert at.selectbox(key="chat_think_qwen3").value is False
    assert _table(at)[chat_view.MODEL_LABELS["qwen2.5"]]["tokens"] == _expected("qwen2.5", CONV, THREE[:1], False)
    exported = json.loads(chat_view.to_json(CONV, THREE[:1], {"qwen3": False}))
    assert exported["tools"] == THREE[:1] and exported["thinking"] == {"qwen3": False}
    text, thinking = chat_view.settings_of(chat_view.read_file(json.dumps(exported).encode()))
    assert json.loads(text) == THREE[:1] and thinking == {"qwen3": False}
    # a code whose tools are bad is refused with the reason, not loaded
    bad = chat_view.pack(CONV, ["qwen2.5"], '[{"name": "a b"}]', {})
    at = _app(chat_conv=bad).run()
    assert any("not a tool name" in plain(w.value) for w in at.warning)


def test_tool_definition_chips_say_so_and_hostile_descriptions_stay_text():
    from playground.render import chat as chat_markup
    tools = [{"type": "function", "function": {"name": "f", "description": '<script>alert("x")</script> " onmouseover=1'}}]
    enc = engine.get_encoding("qwen2.5")
    result = chat_tokens([{"role": "user", "content": "x"}], enc, tools=tools)
    markup = chat_markup.chat_tokens(chat_view.token_chips(result, enc), "t")
    assert "tool definitions" in markup and "<script" not in markup and "&lt;" in markup  # "<" is its own chip
    assert 'onmouseover=1"' not in markup


def test_glm5_is_offered_with_its_thinking_switch():
    at = _app(chat_conv=chat_view.pack(CONV, ["glm5"])).run()
    assert not at.exception
    assert "glm5" in at.multiselect(key=chat_view.K_PICK).options or chat_view.MODEL_LABELS["glm5"] in at.multiselect(key=chat_view.K_PICK).options
    at.button(key="chat_preset_weather").click().run()
    assert _table(at)[chat_view.MODEL_LABELS["glm5"]]["tokens"] == _expected("glm5", CONV, THREE[:1])
    box = at.selectbox(key="chat_think_glm-5.2")
    assert box.value is True and "on (default)" in box.options
    box.set_value(False).run()
    assert _table(at)[chat_view.MODEL_LABELS["glm5"]]["tokens"] == _expected("glm5", CONV, THREE[:1], False)


def test_minimax_m3_is_offered_with_its_thinking_modes():
    at = _app(chat_conv=chat_view.pack(CONV, ["minimax-m3"])).run()
    assert not at.exception
    box = at.selectbox(key="chat_think_minimax-m3")
    assert box.value == "adaptive" and "adaptive (the model decides) (default)" in box.options
    before = _table(at)[chat_view.MODEL_LABELS["minimax-m3"]]["tokens"]
    assert before == _expected("minimax-m3", CONV)
    box.set_value(True).run()
    assert _table(at)[chat_view.MODEL_LABELS["minimax-m3"]]["tokens"] == _expected("minimax-m3", CONV, thinking=True)


def test_deepseek_v3_is_offered_and_counts_as_its_template():
    at = _app(chat_conv=chat_view.pack(CONV, ["deepseek-v3", "glm5", "minimax-m3"])).run()
    assert not at.exception
    rows = _table(at)
    for name in ("deepseek-v3", "glm5", "minimax-m3"):
        assert rows[chat_view.MODEL_LABELS[name]]["tokens"] == _expected(name, CONV), name


def test_gemma3_is_offered_only_once_installed(monkeypatch):
    assert "gemma3" in engine.chat.FORMAT_OF_ENCODING
    installed = "gemma3" in engine.list_tokenizer_names()
    assert ("gemma3" in chat_view.chat_models()) == installed
    assert {"mistral-v1", "mistral-v3", "mistral-tekken"} <= set(chat_view.chat_models())
    monkeypatch.setattr(engine, "list_tokenizer_names", lambda: ["o200k_base"])
    assert chat_view.chat_models() == ["o200k_base"]
    # a share code naming a model this machine lacks reads without it
    assert chat_view.unpack(chat_view.pack(CONV, ["o200k_base", "gemma3"]))[1] == ["o200k_base"]


def test_llama3_llama4_and_gemma4_count_tool_definitions_and_gemma4_has_a_thinking_switch():
    models = ["llama3", "llama4"] + (["gemma4"] if "gemma4" in chat_view.chat_models() else [])
    at = _app(chat_conv=chat_view.pack(CONV, models)).run()
    for key in ("chat_preset_weather", "chat_preset_MCP-file", "chat_preset_search"):
        at.button(key=key).click().run()
    assert not at.exception
    rows = _table(at)
    for name in models:
        row = rows[chat_view.MODEL_LABELS[name]]
        assert row["tokens"] == _expected(name, CONV, THREE) and row["tools"] > 50 and row["status"] == "counted", row
    if "gemma4" in models:
        box = at.selectbox(key="chat_think_gemma4")
        assert box.value is False and "off (default)" in box.options
        box.set_value(True).run()
        assert _table(at)[chat_view.MODEL_LABELS["gemma4"]]["tokens"] == _expected("gemma4", CONV, THREE, thinking=True)
