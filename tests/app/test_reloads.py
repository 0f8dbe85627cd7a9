"""What a reload keeps and what it names (issue 33 item 7), without a browser: the browser's report is put in
session state as playground/components/browser_store.py's callback puts it, and its writes are read from the
component's data.  The round trips through a real browser are in tests/browser/test_reloads.py."""
from __future__ import annotations

import json

import engine
from playground import state
from playground.views import chat as chat_view
from playground.views import train as train_view
from tests.conftest import drawn_ok, page_messages, plain, run_view, view_app

CONV = [
    {"role": "system", "content": "You are terse."},
    {"role": "user", "content": '<img src=x onerror="alert(1)"> **not bold** [a link](http://evil.example) <|eot_id|>'},
]
TOOLS = json.dumps([chat_view.PRESETS["weather"]])
MODELS = ["o200k_base", "llama3"]


def _answer(at, **items) -> None:
    """The browser's report of `items` (text, or None for nothing kept), as the component's callback notes it."""
    from playground.components import browser_store

    at.session_state[browser_store._HEARD] = dict(items)
    sent = at.session_state[browser_store._SENT] if browser_store._SENT in at.session_state else {}
    at.session_state[browser_store._SENT] = {**items, **sent}  # what the browser holds, as far as the session knows


def _store_data(at) -> dict:
    """The data the browser store's component was mounted with in the last run."""
    (found,) = [json.loads(c.proto.json) for c in at.get("bidi_component")
                if c.proto.component_name.endswith("bpe_browser_store")]
    return json.loads(found["message"])


# ------------------------------------------------------------------ Chat: a conversation too long for the link
def test_a_chat_too_long_for_its_link_is_told_to_its_author_not_to_whoever_opened_it():
    at = view_app("views.chat", timeout=120, query={"cut": "v.chat_conv"}, _net=True)
    at.run()
    told = drawn_ok(at)
    assert not any("its sender had open" in m for m in told), told  # the Chat page tells, knowing more
    assert not any("did not come back" in m for m in told), told  # not before the browser said it has no copy
    assert _store_data(at)["ask"]["chat"] == {"where": "local", "answer": True}
    _answer(at, chat=None)
    at.run()
    told = drawn_ok(at)
    (note,) = [m for m in told if "did not come back" in m]
    assert note.startswith("**Your conversation did not come back.**") and "this browser holds no copy" in note
    assert "without your tools" in note and "if someone sent you this link" in note
    assert at.session_state[chat_view.K_MESSAGES][0]["content"] == chat_view.DEFAULT_CONVERSATION[0]["content"]


def test_a_chat_too_long_for_its_link_comes_back_from_this_browsers_copy():
    at = view_app("views.chat", timeout=120, query={"cut": "v.chat_conv"}, _net=True)
    at.run()
    _answer(at, chat=json.dumps({"code": chat_view.pack(CONV, MODELS, TOOLS)}))
    at.run()
    told = drawn_ok(at)
    assert not any("did not come back" in m for m in told), told
    assert any("Restored from this browser" in m for m in told), told
    assert [m["content"] for m in at.session_state[chat_view.K_MESSAGES]] == [m["content"] for m in CONV]
    assert at.text_area(key=f"{state.CHAT_CONTENT_PREFIX}{at.session_state[chat_view.K_MESSAGES][1]['uid']}").value \
        == CONV[1]["content"]  # in its box, as text
    assert not any("evil" in m for m in told)  # the hostile text is in the editor only, never in a message
    assert "get_weather" in at.session_state[chat_view.K_TOOLS]
    assert at.session_state[chat_view.K_PICK] == MODELS
    assert at.caption and any("1 tool: get_weather" in plain(c.value) for c in at.caption)


def test_a_damaged_copy_is_named_and_cleared_and_a_links_own_conversation_wins():
    at = view_app("views.chat", timeout=120, _net=True)
    at.run()
    _answer(at, chat=json.dumps({"code": "AAAA-not-a-share-code"}))
    at.run()
    told = drawn_ok(at)
    assert any("This browser's copy of your conversation could not be read" in m for m in told), told
    assert _store_data(at)["writes"] == {"chat": None}
    assert at.session_state[chat_view.K_MESSAGES][0]["content"] == chat_view.DEFAULT_CONVERSATION[0]["content"]

    link = [{"role": "user", "content": "from the link"}]
    at = view_app("views.chat", timeout=120, query={"v.chat_conv": json.dumps(chat_view.pack(link, MODELS))})
    at.run()
    _answer(at, chat=json.dumps({"code": chat_view.pack(CONV, MODELS, TOOLS)}))
    at.run()
    drawn_ok(at)
    assert [m["content"] for m in at.session_state[chat_view.K_MESSAGES]] == ["from the link"]
    assert "writes" not in _store_data(at)  # unchanged: the copy of this browser's own conversation stays


def test_the_copy_is_written_as_the_conversation_changes_and_keep_off_clears_it():
    at = run_view("views.chat", timeout=120)
    assert "writes" not in _store_data(at)  # the example, unchanged: nothing of the user's
    at.button(key=f"{state.CHAT_PRESET_PREFIX}weather").click().run()
    writes = _store_data(at)["writes"]
    messages, models, tools, _ = chat_view.unpack_all(json.loads(writes["chat"])["code"])
    assert "get_weather" in tools and models == chat_view.DEFAULT_MODELS
    assert any(chat_view.KEPT_NOTE in plain(c.value) for c in at.caption)
    at.toggle(key=chat_view.K_KEEP).set_value(False).run()
    assert _store_data(at)["writes"] == {"chat": chat_view.KEEP_OFF}
    assert any("Not kept in this browser" in plain(c.value) for c in at.caption)
    # a reload with Keep off: it stays off
    fresh = view_app("views.chat", timeout=120)
    fresh.run()
    _answer(fresh, chat=chat_view.KEEP_OFF)
    fresh.run()
    assert fresh.toggle(key=chat_view.K_KEEP).value is False


def test_read_kept_takes_only_what_keep_wrote():
    assert chat_view.read_kept(json.dumps({"code": "abc"})) == "abc"
    assert chat_view.read_kept(chat_view.KEEP_OFF) == "off"
    for bad in (None, "", "not json", "[1]", json.dumps({"code": 5}), json.dumps({"code": ""}),
                json.dumps({"code": "x" * (chat_view.MAX_KEPT_CHARS + 1)})):
        assert chat_view.read_kept(bad) is None, bad


# ------------------------------------------------ Train: said before; named after a reload
def test_train_says_a_trained_tokenizer_and_an_upload_are_kept_for_this_tab_only():
    trained = engine.train_bpe(train_view.SAMPLE_TEXT, 280, pat_str=train_view.PATTERNS["gpt2"])
    at = run_view("views.train", timeout=120, **{state.TRAIN_RESULT: trained})
    captions = [plain(c.value) for c in at.caption]
    assert train_view.KEPT_TRAINED in captions, captions
    assert "download it to keep it" in train_view.KEPT_TRAINED
    own = json.loads(_store_data(at)["writes"]["own"])
    assert own == {"trained": [trained.name], "uploaded": []}  # the tab remembers its name for a reload

    from tests.app.test_uploads import small_rank_file, upload

    at = upload(run_view("views.train", timeout=120), "tiktoken rank file", "for-this-tab.tiktoken", small_rank_file())
    at.button(key=train_view.U_GO).click().run()
    assert train_view.KEPT_UPLOADED in [plain(c.value) for c in at.caption]
    assert json.loads(_store_data(at)["writes"]["own"]) == {"trained": [], "uploaded": ["for-this-tab"]}


def test_the_notice_after_a_reload_names_what_it_cleared():
    from playground.widgets.browser_memory import lost_notice, read_names

    before = {"trained": ["trained-280-abcd1234"], "uploaded": ["mine", "theirs"]}
    none = {"trained": [], "uploaded": []}
    assert lost_notice(before, none, "reload").startswith(
        "Your trained tokenizer trained-280-abcd1234 and uploads mine, theirs were cleared by the reload: ")
    assert lost_notice({"trained": [], "uploaded": ["mine"]}, none, "reload").startswith(
        "Your upload mine was cleared by the reload: the server keeps it in memory for one tab's session only")
    assert "when the server ended this tab's session" in lost_notice(before, none, "session")
    assert lost_notice(before, {"trained": ["trained-280-abcd1234"], "uploaded": ["mine", "theirs"]}, "reload") is None
    assert lost_notice(none, none, "reload") is None
    # the names come from the page: anything malformed reads as none, never raises
    for bad in (None, "", "{", "[]", json.dumps({"trained": "x"}), json.dumps({"trained": [1, None, "x" * 500]})):
        assert read_names(bad) == none, bad
    assert read_names(json.dumps(before)) == before


def test_the_browsers_report_is_checked():
    from playground.components.browser_store import MAX_VALUE_CHARS, take_report

    for bad in (None, 3, "x", {"report": None}, {"report": [1]}):
        assert take_report(bad) is None
    report = take_report({"report": {"how": "<b>", "asked": ["chat", "own", "evil", 5],
                                      "items": {"chat": "x" * (MAX_VALUE_CHARS + 1), "own": "{}", "evil": "y"},
                                      "refused": {"chat": "QuotaExceededError", "own": 7}}})
    assert report.how == "navigate"  # an unknown way of opening is a plain visit
    assert report.items == {"chat": None, "own": "{}"}  # too long, unknown: dropped
    assert report.refused == {"chat": "QuotaExceededError"}


def test_page_messages_after_a_reported_reload_of_an_unrelated_page_stay_quiet():
    """A page opened with nothing kept: no notice, and no write (the store costs a visitor nothing)."""
    at = run_view("views.tokenize", timeout=120, _net=True)
    assert not page_messages(at)
    data = _store_data(at)
    assert "writes" not in data and data["ask"] == {"own": {"where": "tab", "answer": False}}
