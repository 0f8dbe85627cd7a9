"""The Chat view and its formats at their limits: long messages up to the text box's limit, cut with a warning; tool calls
imported from OpenAI JSON; a model that cannot count a conversation says why in its own row while the
others are counted; Llama's tool calls counted as llama-models writes them; grammatical refusals."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

import engine
from engine.chat import ChatFormatError, Message, chat_tokens
from playground import state
from playground.views import chat as chat_view
from tests.conftest import plain, view_app

FIVE = ["o200k_base", "llama3", "qwen2.5", "mistral-tekken", "deepseek-v4"]
TOOL_CONV = [
    {"role": "system", "content": "You can look up the weather."},
    {"role": "user", "content": "Weather in Paris?"},
    {"role": "assistant", "content": '{"city": "Paris", "unit": "°C"}', "call": "get_weather", "tool_call_id": "call12345"},
    {"role": "tool", "content": '{"temp_c": 21}', "tool_call_id": "call12345"},
]
OPENAI_DOC = {"messages": [
    {"role": "system", "content": "You can look up the weather."},
    {"role": "user", "content": "Weather in Paris?"},
    {"role": "assistant", "content": None, "refusal": None, "annotations": [],
     "tool_calls": [{"id": "call12345", "type": "function",
                     "function": {"name": "get_weather", "arguments": '{"city": "Paris", "unit": "°C"}'}}]},
    {"role": "tool", "tool_call_id": "call12345", "content": '{"temp_c": 21}'},
], "models": FIVE}


def _app(**session) -> AppTest:
    return view_app("views.chat", timeout=180, **session)


def _table(at: AppTest) -> dict[str, dict]:
    frame = at.dataframe[0].value
    return {row["model"]: row for row in frame.to_dict("records")}


def _none(value) -> bool:
    return value is None or str(value) in ("nan", "None", "<NA>")


# ---- item 3: long messages

def test_the_chat_limit_is_the_text_box_limit_and_holds_a_long_agent_prompt():
    assert chat_view.max_conversation_chars() == state.MAX_TEXT_CHARS >= 30_000


def test_a_30000_character_system_prompt_is_accepted_and_counted():
    at = _app().run()
    uid = at.session_state["chat_messages"][0]["uid"]
    prompt = ("You are an agent. Follow these rules carefully; cite sources. " * 500)[:30_000]
    at.text_area(key=f"chat_content_{uid}").input(prompt).run()  # input() refuses past max_chars, as the browser does
    assert not at.exception
    messages = [chat_view._plain(m) for m in at.session_state["chat_messages"]]
    assert len(messages[0]["content"]) == 30_000
    for name in chat_view.DEFAULT_MODELS:
        assert _table(at)[chat_view.MODEL_LABELS[name]]["tokens"] == chat_tokens(messages, engine.get_encoding(name)).count
    assert not at.warning


def test_text_past_the_limit_is_cut_with_a_visible_warning(monkeypatch):
    monkeypatch.setattr(state, "MAX_TEXT_CHARS", 40_000)  # the real limit (2,000,000) makes a slow test
    at = _app().run()
    uids = [m["uid"] for m in at.session_state["chat_messages"]]
    others = sum(len(m["content"]) for m in chat_view.DEFAULT_CONVERSATION[1:])
    at.text_area(key=f"chat_content_{uids[0]}").input("x" * 50_000).run()
    assert not at.exception
    content = at.session_state["chat_messages"][0]["content"]
    assert len(content) == 40_000 - others
    assert at.text_area(key=f"chat_content_{uids[0]}").value == content
    assert any("40,000" in w.value and "cut" in w.value for w in at.warning), [w.value for w in at.warning]


def test_an_imported_conversation_past_the_limit_is_cut_and_says_so(monkeypatch):
    monkeypatch.setattr(state, "MAX_TEXT_CHARS", 1_000)
    doc = json.dumps([{"role": "user", "content": "a" * 800}, {"role": "assistant", "content": "b" * 800},
                      {"role": "user", "content": "c"}]).encode()
    messages, _models, notes = chat_view.parse_json(doc)
    assert [len(m["content"]) for m in messages] == [800, 200, 0]
    assert any("1,000" in n and "cut" in n for n in notes), notes


# ---- item 4: OpenAI JSON with tool calls

def test_openai_tool_calls_json_imports_into_the_message_model():
    messages, models, notes = chat_view.parse_json(json.dumps(OPENAI_DOC).encode())
    assert messages == [Message.from_dict(m).to_dict() for m in TOOL_CONV]
    assert models == FIVE[:chat_view.MAX_MODELS]
    assert any("refusal" in n for n in notes), notes  # ignored fields are named, not fatal


@pytest.mark.parametrize("bad, says", [
    ([{"role": "assistant", "content": None, "tool_calls": "x"}], "tool_calls must be a list"),
    ([{"role": "assistant", "content": None, "tool_calls": [{"type": "function", "function": {"arguments": "{}"}}]}],
     "function.name"),
    ([{"role": "assistant", "content": None, "tool_calls": [{"type": "function", "function": {"name": "f", "arguments": {"a": 1}}}]}],
     "arguments must be a JSON string"),
    ([{"role": "assistant", "content": None, "tool_calls": [  # several calls are edited; past the editor's limit not
        {"type": "function", "function": {"name": f"f{k}", "arguments": "{}"}} for k in range(17)]}], "17 tool calls"),
    ([{"role": "user", "content": None}], "content"),
    ([{"role": "user", "content": "x", "tool_calls": []}], None),  # an empty list is harmless
    ([{"role": "user", "content": "x", "refusal": "no"}], "refusal"),
    ([{"role": "robot", "content": "x"}], "unknown role"),
])
def test_malformed_openai_json_is_refused_with_a_clear_message(bad, says):
    data = json.dumps(bad).encode()
    if says is None:
        assert chat_view.parse_json(data)[0] == [{"role": "user", "content": "x"}]
        return
    with pytest.raises(ChatFormatError, match=says):
        chat_view.parse_json(data)


def test_deeply_nested_import_says_what_is_wrong():
    with pytest.raises(ChatFormatError, match="nested"):
        chat_view.parse_json(b"[" * 50_000 + b"]" * 50_000)


# ---- issue 33 item 3: an import's memory is bounded before json.loads, and the file is parsed once

def _text_file() -> bytes:
    """8.9 MB (under the byte limit) of one message: ASCII and one emoji, so every str json.loads builds of it
    takes 4 bytes a character.  It was parsed (twice), then cut to the conversation's 2 million characters."""
    return json.dumps({"messages": [{"role": "user", "content": "😀" + "a" * 8_900_000}]}, ensure_ascii=False).encode()


def _values_file() -> bytes:
    """1.2 million floats beside a real message, in 4.8 million characters (under both size limits)."""
    return json.dumps({"messages": [{"role": "user", "content": "hi"}], "junk": [1.5] * 1_200_000},
                      separators=(",", ":")).encode()


@pytest.mark.parametrize("make, says", [
    (_text_file, r"the file holds 8,900,048 characters \(8\.9 MB\); the limit is 5,000,000 characters"),
    (_values_file, r"the file \(4\.8 MB\): the JSON holds at least [\d,]+ values; the limit is 110,000"),
], ids=["characters", "values"])
def test_a_big_import_is_refused_before_parsing_and_costs_little(make, says):
    import tracemalloc

    data = make()
    assert len(data) <= chat_view.max_json_bytes()
    tracemalloc.start()
    try:
        with pytest.raises(ChatFormatError, match=says):
            chat_view.parse_json(data)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 25_000_000, f"{peak / 1e6:.0f} MB to refuse it"


def test_an_import_is_read_once_and_a_refused_one_says_why(monkeypatch):
    tools = [{"type": "function", "function": {"name": "get_weather", "description": "Weather in a city",
                                                "parameters": {"type": "object", "properties": {}}}}]
    data = json.dumps({**OPENAI_DOC, "tools": tools}).encode()
    parsed: list[int] = []
    loads = chat_view.json.loads

    def counting(text, *args, **kwargs):
        parsed.append(len(text))
        return loads(text, *args, **kwargs)

    monkeypatch.setattr(chat_view.json, "loads", counting)
    at = _app().run()
    at.file_uploader(key=chat_view.K_IMPORT).set_value(("conversation.json", data, "application/json")).run()
    assert not at.exception, [e.value for e in at.exception]
    assert any("Imported 4 messages" in s.value for s in at.success), [e.value for e in at.error]
    shown = [(m["role"], m["content"], m.get("call")) for m in at.session_state[chat_view.K_MESSAGES]]
    assert shown == [(m["role"], m["content"], m.get("call")) for m in TOOL_CONV]
    assert json.loads(at.session_state[chat_view.K_TOOLS]) == tools
    assert parsed.count(len(data)) == 1  # the file, once (it was read twice: messages, then tools)

    at.file_uploader(key=chat_view.K_IMPORT).set_value(("big.json", _text_file(), "application/json")).run()
    errors = [plain(e.value) for e in at.error]
    assert any("Not imported" in e and "8,900,048 characters (8.9 MB)" in e and "5,000,000" in e for e in errors), errors
    assert [(m["role"], m["content"], m.get("call")) for m in at.session_state[chat_view.K_MESSAGES]] == shown  # kept


def test_a_tool_call_is_counted_by_every_format_and_openai_is_labelled_an_estimate():
    at = _app(chat_conv=chat_view.pack(TOOL_CONV, FIVE)).run()
    assert not at.exception
    table = _table(at)
    assert len(table) == 5
    for name in FIVE:
        row = table[chat_view.MODEL_LABELS[name]]
        assert row["tokens"] == chat_tokens(TOOL_CONV, engine.get_encoding(name)).count, name
        assert row["status"] == ("estimate" if name == "o200k_base" else "counted"), row
    # the estimate is said in words under the table too (a phone cuts the status column)
    label = chat_view.MODEL_LABELS["o200k_base"]
    assert any(plain(c.value).startswith(f"**{label}** is an estimate") for c in at.caption)
    drawn = [m.value for m in at.markdown if "prime the reply" in m.value]
    assert len(drawn) == 5


def test_an_imported_openai_conversation_is_counted_in_the_view():
    at = _app().run()
    messages, models, _notes = chat_view.parse_json(json.dumps(OPENAI_DOC).encode())
    at.session_state["chat_messages"] = [{**chat_view._plain(m), "uid": 100 + i} for i, m in enumerate(messages)]
    at.session_state["chat_models"] = models
    at.run()
    assert not at.exception
    row = _table(at)[chat_view.MODEL_LABELS["llama3"]]
    assert row["tokens"] == chat_tokens(TOOL_CONV, engine.get_encoding("llama3")).count


# ---- Llama's tool calls against llama-models

def _llama_reference(version: str, conv: list[Message]) -> list[int]:
    from llama_models.datatypes import RawMessage, ToolCall
    from tests.engine.chat.test_chat_formats import _llama4_chat_format
    from tests.oracles.tiktoken_models_oracle import reference_tokenizer
    if version == "llama3":
        from llama_models.llama3.chat_format import ChatFormat
    else:
        ChatFormat = _llama4_chat_format()
    raw = []
    for m in conv:
        if m.call:
            try:
                args = json.loads(m.content)
            except ValueError:
                args = m.content
            raw.append(RawMessage(role="assistant", content="", tool_calls=[
                ToolCall(call_id=m.tool_call_id or "", tool_name=m.call, arguments=args)]))
        else:
            raw.append(RawMessage(role=m.role, content=m.content))
    return ChatFormat(reference_tokenizer(version)).encode_dialog_prompt(raw).tokens


@pytest.mark.parametrize("version", ["llama3", "llama4"])
def test_llama_tool_calls_equal_llama_models(version):
    pytest.importorskip("llama_models")
    enc = engine.get_encoding(version)
    convs = [
        [Message.from_dict(m) for m in TOOL_CONV],
        [Message("user", "q"), Message("assistant", '{"q": "日本 🦙", "n": 3, "ok": true, "x": null, "l": [1, 2]}',
                                         call="search"),
         Message("tool", "result"), Message("user", "thanks")],
        [Message("user", "q"), Message("assistant", "not json at all", call="echo")],
        [Message("user", "q"), Message("assistant", "{}", call="noop", tool_call_id="c1"), Message("tool", "")],
    ]
    for conv in convs:
        got = chat_tokens(conv, enc)
        assert got.ids == _llama_reference(version, conv), conv
        call = next(m.call for m in conv if m.call)
        assert got.text.count(f'"name": "{call}"') == 1


def test_llama_built_in_tools_are_not_counted_and_say_why():
    with pytest.raises(ChatFormatError, match="built-in tool"):
        chat_tokens([Message("user", "q"), Message("assistant", '{"query": "x"}', call="brave_search")],
                    engine.get_encoding("llama3"))


# ---- wording

def test_mistral_refusals_name_the_model_and_use_an_before_a_vowel():
    conv = [Message("user", "a"), Message("assistant", "b"), Message("assistant", "c"), Message("user", "d")]
    for name, label in (("mistral-tekken", "Mistral Tekken"), ("mistral-v3", "Mistral v3"), ("mistral-v1", "Mistral v1")):
        with pytest.raises(ChatFormatError) as caught:
            chat_tokens(conv, engine.get_encoding(name))
        message = str(caught.value)
        assert message.startswith(f"{label} ") and "after an assistant message" in message, message
        assert " a assistant" not in message
    with pytest.raises(ChatFormatError) as caught:
        Message("assistant", 5)  # type: ignore[arg-type]
    assert str(caught.value).startswith("an assistant message's content")


@pytest.mark.heavy
def test_a_long_message_is_counted_whole_in_the_whole_string_formats():
    """Qwen's and DeepSeek's formats encode one string and cut its ids into runs; a new tuple per token
    made that quadratic (442 s for a 2,000,000-character message).  Its time is measured by
    bench/bench_chat_long.py (1,000,000 characters: about 1 s), not asserted here (issue 32: no timed asserts)."""
    text = (Path(__file__).parents[1] / "data" / "corpus" / "taylorswift.txt").read_text(encoding="utf-8")
    big = (text * 6)[:1_000_000]
    for name in ("qwen2.5", "deepseek-v4"):
        got = chat_tokens([Message("system", big), Message("user", "hi")], engine.get_encoding(name))
        assert got.text.count(big) == 1 and got.content_count > 200_000


def test_a_long_message_is_drawn_in_part_and_says_how_much_is_left_out():
    enc = engine.get_encoding("llama3")
    result = chat_tokens([Message("system", "word " * 5_000), Message("user", "hi")], enc)
    chips = chat_view.token_chips(result, enc)
    elided = [c for c in chips if c[0] == "elided"]
    drawn = sum(1 for c in chips if c[0] == "content" and c[4] == 0)
    assert drawn == chat_view.DRAWN_PER_MESSAGE and len(elided) == 1
    content0 = sum(len(s.ids) for s in result.segments if s.kind == "content" and s.message == 0)
    assert elided[0][1] == f"… {content0 - drawn:,} more tokens …"
    assert [c[1] for c in chips if c[4] == 1 and c[0] == "content"] == ["hi"]


# ---- Harmony's tool calls against openai-harmony

def _harmony_reference(oh, henc, conv: list[Message]) -> list[int]:
    """openai-harmony's rendering of the Harmony guide's function-call messages (commentary channel, JSON)."""
    role = {"system": oh.Role.SYSTEM, "user": oh.Role.USER, "assistant": oh.Role.ASSISTANT, "tool": oh.Role.TOOL}
    msgs, calls, last = [], {}, None
    for m in conv:
        if m.call:
            last = calls[m.tool_call_id or ""] = m.call
            msgs.append(oh.Message.from_role_and_content(oh.Role.ASSISTANT, m.content)
                        .with_recipient(f"functions.{m.call}").with_channel("commentary")
                        .with_content_type("<|constrain|>json"))
        elif m.role == "tool" and (calls.get(m.tool_call_id or "", last)):
            tool = m.name or f"functions.{calls.get(m.tool_call_id or '', last)}"
            msgs.append(oh.Message.from_author_and_content(oh.Author.new(oh.Role.TOOL, tool), m.content)
                        .with_channel("commentary").with_recipient("assistant"))
        elif m.name or m.role == "tool":
            msgs.append(oh.Message.from_author_and_content(oh.Author.new(role[m.role], m.name or "tool"), m.content))
        else:
            msgs.append(oh.Message.from_role_and_content(role[m.role], m.content))
    return list(henc.render_conversation_for_completion(oh.Conversation.from_messages(msgs), oh.Role.ASSISTANT))


def test_harmony_tool_calls_equal_openai_harmony(tmp_path):
    oh = pytest.importorskip("openai_harmony")
    import gzip
    import os
    data = Path(engine.__file__).parent / "data" / "o200k_base.tiktoken.gz"
    (tmp_path / "o200k_base.tiktoken").write_bytes(gzip.decompress(data.read_bytes()))
    old = os.environ.get("TIKTOKEN_ENCODINGS_BASE")
    os.environ["TIKTOKEN_ENCODINGS_BASE"] = str(tmp_path)
    try:
        henc = oh.load_harmony_encoding(oh.HarmonyEncodingName.HARMONY_GPT_OSS)
    finally:
        if old is None:
            os.environ.pop("TIKTOKEN_ENCODINGS_BASE", None)
        else:
            os.environ["TIKTOKEN_ENCODINGS_BASE"] = old
    enc = engine.get_encoding("o200k_harmony")
    convs = [[Message.from_dict(m) for m in TOOL_CONV]]
    for name in ("get_weather", "日本_lookup", "x1", "Ünïcode", "lookup.v2", "a-b", "__"):
        convs.append([Message("user", "q?"), Message("assistant", '{"q": "日本 🦙", "n": 3}', call=name, tool_call_id="c1"),
                      Message("tool", "result <|end|> text", tool_call_id="c1"), Message("user", "and?"),
                      Message("assistant", "{}", call="second"), Message("tool", "42", name="functions.second"),
                      Message("assistant", "done", name="bot")])
    convs.append([Message("user", "q"), Message("tool", "no call before me", name="functions.lookup")])
    for conv in convs:
        got = chat_tokens(conv, enc)
        assert got.ids == _harmony_reference(oh, henc, conv), conv
        assert got.priming == 2
