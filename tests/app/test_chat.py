"""AppTest (no browser) of the Chat formats view, by widget key; and its JSON / share-link codecs."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

import engine
from engine.chat import ChatFormatError, Message, chat_tokens
from playground import state
from playground.render import chat as chat_markup
from playground.views import chat as chat_view
from tests.conftest import view_app

VIEW_APP = str(Path(__file__).parent / "view_app.py")


def _app(**session) -> AppTest:
    return view_app("views.chat", timeout=120, **session)


def _rows(at: AppTest) -> dict[str, int | None]:
    frame = at.dataframe[0].value
    return {model: _count(n) for model, n in zip(frame["model"], frame["tokens"])}


def _count(cell) -> int | None:
    """A table's count: a number, or the text written when a row is not counted ("1,234", "—" for none)."""
    if isinstance(cell, str):
        return None if cell == "—" else int(cell.replace(",", ""))
    return cell


def _expected(name: str, messages: list[dict]) -> int:
    return chat_tokens(messages, engine.get_encoding(name)).count


def test_default_conversation_counts_three_models():
    at = _app().run()
    assert not at.exception
    rows = _rows(at)
    assert len(rows) == 3
    for name in chat_view.DEFAULT_MODELS:
        assert rows[chat_view.MODEL_LABELS[name]] == _expected(name, chat_view.DEFAULT_CONVERSATION)
    drawn = [m.value for m in at.markdown if "prime the reply" in m.value]
    assert len(drawn) == 3 and "3 tokens prime the reply" in drawn[0]


def test_edit_add_move_remove_change_the_counts():
    at = _app().run()
    uids = [m["uid"] for m in at.session_state["chat_messages"]]
    at.text_area(key=f"chat_content_{uids[1]}").set_value("Hello there, how many tokens is this?").run()
    at.button(key="chat_add_tool").click().run()
    new = at.session_state["chat_messages"][-1]["uid"]
    at.text_area(key=f"chat_content_{new}").set_value('{"temp": 21}').run()
    at.text_input(key=f"chat_name_{new}").set_value("get_weather").run()
    assert not at.exception
    messages = [chat_view._plain(m) for m in at.session_state["chat_messages"]]
    assert messages[-1] == {"role": "tool", "content": '{"temp": 21}', "name": "get_weather",
                            "tool_call_id": None, "call": None}
    assert _rows(at)[chat_view.MODEL_LABELS["llama3"]] == _expected("llama3", messages)
    at.button(key=f"chat_up_{new}").click().run()
    assert at.session_state["chat_messages"][-2]["uid"] == new
    at.button(key=f"chat_del_{uids[0]}").click().run()
    messages = [chat_view._plain(m) for m in at.session_state["chat_messages"]]
    assert len(messages) == 4 and messages[0]["role"] == "user"
    assert _rows(at)[chat_view.MODEL_LABELS["qwen2.5"]] == _expected("qwen2.5", messages)
    assert not at.exception


def test_a_format_that_cannot_express_the_conversation_says_why():
    conv = [{"role": "user", "content": "hi"}, {"role": "user", "content": "again"}]
    at = _app(chat_conv=chat_view.pack(conv, ["mistral-v3", "llama3"])).run()
    assert not at.exception
    rows = _rows(at)
    assert rows[chat_view.MODEL_LABELS["llama3"]] == _expected("llama3", conv)
    assert rows[chat_view.MODEL_LABELS["mistral-v3"]] is None or str(rows[chat_view.MODEL_LABELS["mistral-v3"]]) in ("nan", "None", "<NA>")
    assert any("put an assistant message between" in w.value for w in at.warning)


def test_share_link_restores_conversation_and_models():
    conv = [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Ünïcödé 🦙", "name": "ann"}]
    at = AppTest.from_file(VIEW_APP, default_timeout=120)
    at.session_state["_view"] = "views.chat"
    models = ["llama4", "deepseek-v4", "mistral-tekken"]
    at.query_params["v.chat_conv"] = json.dumps(chat_view.pack(conv, models))
    at.run()
    assert not at.exception
    got = [{k: v for k, v in chat_view._plain(m).items() if v} for m in at.session_state["chat_messages"]]
    assert got == conv
    assert list(_rows(at)) == [chat_view.MODEL_LABELS[n] for n in models]
    assert at.session_state["chat_conv"] == chat_view.pack(conv, models)
    assert at.text_input(key="chat_conv").value == chat_view.pack(conv, models)


def test_a_long_conversation_still_travels_in_the_link():
    """A packed conversation past the 400 characters of other settings, up to state.url_limit, is kept."""
    import random
    rng = random.Random(5)
    words = " ".join("".join(rng.choice("abcdefghijklmnopqrstuvwxyzäöü日本") for _ in range(rng.randint(2, 9)))
                     for _ in range(250))
    conv = [{"role": "user", "content": words}]
    code = chat_view.pack(conv, ["llama3"])
    assert state.MAX_URL_VALUE < len(code) <= state.url_limit("chat_conv")
    assert state.url_safe("chat_conv", code) and not state.url_safe("vocab_query", code)
    at = AppTest.from_file(VIEW_APP, default_timeout=120)
    at.session_state["_view"] = "views.chat"
    at.query_params["v.chat_conv"] = json.dumps(code)
    at.run()
    assert not at.exception
    assert [chat_view._plain(m)["content"] for m in at.session_state["chat_messages"]] == [words]
    assert not any("too long for the share link" in c.value for c in at.caption)


def test_pasting_a_share_code_loads_it_and_a_bad_one_says_so():
    at = _app().run()
    conv = [{"role": "user", "content": "pasted"}]
    at.text_input(key="chat_conv").set_value(chat_view.pack(conv, ["llama3"])).run()
    assert not at.exception
    assert [chat_view._plain(m)["content"] for m in at.session_state["chat_messages"]] == ["pasted"]
    assert list(_rows(at)) == [chat_view.MODEL_LABELS["llama3"]]
    assert at.text_area(key=f"chat_content_{at.session_state['chat_messages'][0]['uid']}").value == "pasted"
    at.text_input(key="chat_conv").set_value("garbage!").run()
    assert not at.exception
    assert any("share code was not used" in e.value for e in at.error)
    assert [chat_view._plain(m)["content"] for m in at.session_state["chat_messages"]] == ["pasted"]


def test_damaged_share_link_falls_back_to_the_example():
    at = _app(chat_conv="not-a-conversation!!").run()
    assert not at.exception
    assert any("was not loaded" in w.value for w in at.warning)
    assert len(at.session_state["chat_messages"]) == len(chat_view.DEFAULT_CONVERSATION)


def test_page_is_registered_and_keys_go_into_the_link():
    from playground import pages
    assert pages._VIEWS["chat"][0] == "views.chat" and "chat" in pages._SECTIONS["Tokenizers"]
    assert state.PAGE_KEYS["chat"] == ("chat_conv", "prices", "chat_max_tokens")


# ---- codecs (plain functions)

def test_pack_unpack_round_trip_and_limits():
    conv = [Message("user", "x" * 50, name="n").to_dict(), Message("tool", "{}", tool_call_id="abc").to_dict(),
            Message("assistant", '{"a": 1}', call="f", tool_call_id="abc").to_dict()]
    assert chat_view.unpack(chat_view.pack(conv, ["llama3", "bogus"])) == (conv, ["llama3"])
    with pytest.raises(ChatFormatError, match="damaged"):
        chat_view.unpack("AAAA")
    spaces = chat_view.max_json_bytes() + 1_000  # inflates past the import limit
    bomb = chat_view.base64.urlsafe_b64encode(chat_view.zlib.compress(b"[" + b" " * spaces + b"]")).decode()
    with pytest.raises(ChatFormatError, match="too large"):
        chat_view.unpack(bomb)


def test_parse_json_checks_everything():
    ok = json.dumps({"messages": [{"role": "user", "content": "hi"}], "models": ["llama3", "nope"]}).encode()
    assert chat_view.parse_json(ok) == ([{"role": "user", "content": "hi"}], ["llama3"], [])
    assert chat_view.parse_json(b'[{"role": "system", "content": ""}]')[0] == [{"role": "system", "content": ""}]
    cases = {
        b"\xff": "not a JSON file",
        b'{"msgs": []}': "expected",
        b'[{"role": "robot", "content": "x"}]': "message 1: unknown role",
        b'[{"role": "user"}]': "needs both",
        b'[{"role": "user", "content": 5}]': "must be text",
        json.dumps([{"role": "user", "content": "x"}] * 41).encode(): "the limit is 40",
        b" " * (chat_view.max_json_bytes() + 1): f"the limit is {chat_view.max_json_bytes():,}",
    }
    for data, message in cases.items():
        with pytest.raises(ChatFormatError, match=message):
            chat_view.parse_json(data)


def test_chat_html_escapes_everything():
    markup = chat_markup.chat_tokens([("content", '<script>alert("x")</script>', 5, False, 0),
                               ("template", "<|start|>", None, False, -1)], 'id"><b')
    assert "<script>" not in markup and "&lt;script&gt;" in markup
    assert 'id="id&quot;&gt;&lt;b"' in markup
    assert "counted, id not published" in markup and 'title="id 5 · content · message 1"' in markup


def _display(at: AppTest, k: int = 0):
    """The table as the page shows it (a Styler's display values), as a DataFrame of strings."""
    import pyarrow

    return pyarrow.ipc.open_stream(at.dataframe[k].proto.arrow_data.styler.display_values).read_pandas()


def test_a_model_that_cannot_count_shows_a_dash_not_none():
    """Mistral v1 has no tool role: its row says why in "status" and shows "—" in the number cells (issue 33, 8:
    they printed a raw "None"); a counted row keeps its thousands separators."""
    at = _app()
    at.session_state[chat_view.K_PICK] = ["o200k_base", "mistral-v1"]
    at.run()
    at.button(key="chat_add_tool").click().run()
    assert not at.exception
    shown = at.dataframe[0].value.set_index("model")  # text cells: the browser prints an empty number cell as None
    mistral = shown.loc[chat_view.MODEL_LABELS["mistral-v1"]]
    assert mistral["tokens"] == "—" and mistral["template"] == "—" and "None" not in " ".join(map(str, mistral))
    assert "not counted" in mistral["status"]
    assert shown.loc[chat_view.MODEL_LABELS["o200k_base"]]["tokens"].replace(",", "").isdigit()
    assert not at.dataframe[0].value.isna().any().any()
