"""Share links (AppTest): a share link never loses something silently, and a value of the
wrong type in a link is dropped with a notice instead of breaking the page (and is never written back)."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from tests.conftest import diagonal, plain, run_view
from playground import state

APP = str(Path(__file__).resolve().parents[2] / "app.py")
BROKE = "Something went wrong"


def _messages(at) -> list[str]:
    return [plain(m.value) for kind in ("error", "warning", "info", "toast") for m in at.get(kind)]


def _assert_page_ok(at) -> None:
    assert not at.exception, [e.value for e in at.exception]
    assert not any(BROKE in m for m in _messages(at)), _messages(at)


# ------------------------------------------------------------ item 15: the listed links
LISTED = [  # (view, key, raw value in the link) as first reported
    ("views.vocab", "vocab_query", "5"),
    ("views.steps", "steps_k", "-5"),
    ("views.train", "train_specials", "5"),
    ("views.train", "upload_specials", "true"),
    ("views.arena", "arena_pick", "true"),
    ("views.tokenize", "tok_decode", "5"),
]


@pytest.mark.parametrize(("view", "key", "raw"), LISTED, ids=[f"{k}={r}" for _, k, r in LISTED])
def test_a_listed_bad_link_value_is_dropped_with_a_notice(view, key, raw):
    at = run_view(view, query={"v." + key: raw}, _net=True)
    _assert_page_ok(at)
    bad = json.loads(raw)
    kept = at.session_state[key] if key in at.session_state else None
    assert not (type(kept) is type(bad) and kept == bad), f"{key} kept the link's {raw}"
    notices = [m for m in _messages(at) if f"v.{key}" in m]
    assert notices, _messages(at)
    assert raw in notices[0] and state.LINK_VALUES[key].label in notices[0]
    assert f"v.{key}" not in at.query_params or json.loads(at.query_params[f"v.{key}"]) != bad


def test_a_bad_link_value_is_not_written_back_and_the_reload_works():
    """The break survived reloads because the bad value went back into the address bar."""
    at = AppTest.from_file(APP, default_timeout=90)
    at.query_params["v.tok_decode"] = "5"
    at.run()
    _assert_page_ok(at)
    assert json.loads(at.query_params["v.tok_decode"]) == ""  # the widget's own value, not the link's 5
    assert any("v.tok_decode" in m for m in _messages(at))
    again = AppTest.from_file(APP, default_timeout=90)  # a reload: a fresh session on the new address
    for k, v in at.query_params.items():
        again.query_params[k] = v
    again.run()
    _assert_page_ok(again)
    assert not any("v.tok_decode" in m for m in _messages(again))


# ------------------------------------------------------- item 15: every key, every wrong type
WRONG = [5, -5, 2.5, True, "x", [1], {"a": 1}, None, "y" * 5000]


def _wrong_for(key: str) -> list:
    """The values of WRONG that the widget `key` cannot take (decided by the widget's value type)."""
    spec = state.LINK_VALUES[key]
    out = []
    for value in WRONG:
        if spec.kind is str:
            ok = isinstance(value, str) and len(value) <= state.url_limit(key) and spec.options == ""
        elif spec.kind is bool:
            ok = isinstance(value, bool)
        elif spec.kind in (int, float):
            number = isinstance(value, (int, float)) and not isinstance(value, bool)
            ok = number and (spec.kind is float or isinstance(value, int)) and (
                spec.low is None or value >= spec.low) and (spec.high is None or value <= spec.high)
        else:  # a multi-select: a list of names
            ok = False
        if not ok:
            out.append(value)
    return out


def test_every_url_backed_key_has_a_check():
    keys = {k for keys in state.PAGE_KEYS.values() for k in keys} | set(state.APP_LINK_KEYS)
    assert keys == set(state.LINK_VALUES)
    for key in keys:  # each named option list is really there (read from its view, never copied)
        if state.LINK_VALUES[key].options not in ("", "encodings"):
            assert state.link_options(key), key


def _restore_only() -> None:
    import sys
    from pathlib import Path as P

    sys.path.insert(0, str(P.cwd()))
    from playground import state as s
    from playground.serving import errors

    s.init_state()
    errors.show_notices()


@pytest.mark.parametrize("value", WRONG, ids=lambda v: json.dumps(v)[:12])
def test_every_key_refuses_each_wrong_type_with_a_notice(value, monkeypatch):
    """All URL-backed keys at once, one wrong value each: none restored, each named in the notice."""
    keys = [k for k in state.LINK_VALUES if value in _wrong_for(k)]
    assert keys
    monkeypatch.chdir(Path(APP).parent)
    at = AppTest.from_function(_restore_only, default_timeout=30)
    for key in keys:
        at.query_params["v." + key] = json.dumps(value)
    at.run()
    assert not at.exception
    text = " ".join(_messages(at))
    for key in keys:
        assert key not in at.session_state or at.session_state[key] != value or type(at.session_state[key]) is not type(value)
        assert f"v.{key}" in text, key
        with pytest.raises(state.LinkValueError):
            state.link_value(key, value)


PAGES = {"views.tokenize": "tokenize", "views.compare": "compare", "views.gallery": "gallery", "views.arena": "arena",
         "views.chunks": "chunks", "views.tree": "tree", "views.steps": "steps", "views.vocab": "vocab",
         "views.train": "train", "views.chat": "chat"}


@pytest.mark.parametrize("turn, view", diagonal([0, 1, 2], list(PAGES)))  # every pair under -m slow
def test_every_page_survives_wrong_link_values(view, turn):
    """Each page drawn with every one of its keys set, by the link, to a wrong value (rotated per key)."""
    keys = state.PAGE_KEYS[PAGES[view]]
    query = {}
    for i, key in enumerate(keys):
        wrong = _wrong_for(key)
        query["v." + key] = json.dumps(wrong[(turn + i) % len(wrong)])
    at = run_view(view, query=query, _net=True)
    _assert_page_ok(at)
    text = " ".join(_messages(at))
    assert all(f"v.{key}" in text for key in keys), (query, text)


@pytest.mark.heavy
def test_the_check_takes_the_widget_type_of_the_drawn_page():
    """LINK_VALUES' kinds agree with the values the widgets really hold on a default run."""
    for view, page in PAGES.items():
        at = run_view(view)
        for key in state.PAGE_KEYS[page]:
            if key in at.session_state and at.session_state[key] is not None:
                value = at.session_state[key]
                spec = state.LINK_VALUES[key]
                assert isinstance(value, spec.kind), (key, value, spec)
                assert state.link_value(key, value) == value


# --------------------------------------------------------------- item 11: silent losses
def test_eight_encodings_in_a_link_keep_six_and_name_the_two_left_out():
    names = state.BUILTIN_ENCODINGS[:8]
    at = run_view("views.tokenize", query={"enc": ",".join(names)}, _net=True)
    assert at.session_state[state.ENCODINGS] == names[:6]
    notices = [m for m in _messages(at) if names[6] in m]
    assert notices and names[7] in notices[0] and "6" in notices[0]


def test_unknown_encodings_in_a_link_are_named():
    at = run_view("views.tokenize", query={"enc": "gpt2,my-own-tokenizer"}, _net=True)
    assert at.session_state[state.ENCODINGS] == ["gpt2"]
    assert any("my-own-tokenizer" in m for m in _messages(at))


def test_a_link_of_a_long_text_says_so_when_copied_and_when_opened():
    text = "long text " * 500  # 5,000 characters: over the 4,000 a link carries
    at = AppTest.from_file(APP, default_timeout=90)
    at.session_state[state.TEXT] = text
    at.run()
    _assert_page_ok(at)
    assert "text" not in at.query_params
    assert at.query_params["cut"] == f"text:{len(text)}"
    by_copy = [plain(w.value) for w in at.sidebar.get("warning")]
    assert any("5,000 characters" in w and "4,000" in w and "demo text" in w for w in by_copy), by_copy
    # the recipient: a fresh session on that address is told what it does not get
    opened = AppTest.from_file(APP, default_timeout=90)
    for k, v in at.query_params.items():
        opened.query_params[k] = v
    opened.run()
    _assert_page_ok(opened)
    assert opened.session_state[state.TEXT] == state.DEFAULT_TEXT
    told = [m for m in _messages(opened) if "5,000 characters" in m]
    assert told and "demo text" in told[0] and "4,000" in told[0]


def test_a_short_text_link_has_no_warning_by_the_copy_button():
    at = AppTest.from_file(APP, default_timeout=90)
    at.run()
    _assert_page_ok(at)
    assert "cut" not in at.query_params and at.query_params["text"] == state.DEFAULT_TEXT
    assert not at.sidebar.get("warning")
    assert any(c.proto.component_name.endswith("bpe_copy_button") for c in at.sidebar.get("bidi_component"))


def test_numeric_ranges_are_the_widgets_own():
    from playground.views import chunks as chunk_view, train as train_view

    assert (state.LINK_VALUES["train_vocab"].low, state.LINK_VALUES["train_vocab"].high) == (
        train_view.MIN_VOCAB, train_view.MAX_VOCAB)
    assert state.LINK_VALUES["chunk_max"].high == chunk_view.MAX_BUDGET


def test_own_tokenizers_and_long_settings_left_out_are_named_both_ways():
    import engine

    ranks = {bytes([b]): b for b in range(256)}
    own = engine.Encoding("my-bytes", pat_str=r"\S+|\s+", mergeable_ranks=ranks, special_tokens={})
    at = run_view("views.tokenize", **{state.CUSTOM: {"my-bytes": own}, state.ENCODINGS: ["gpt2", "my-bytes"],
                                      "tok_decode": "1 " * 300})
    assert at.query_params["cut"] == "own:1,v.tok_decode" and "v.tok_decode" not in at.query_params
    opened = run_view("views.tokenize", query=dict(at.query_params.items()), _net=True)
    told = [m for m in _messages(opened) if "could not carry" in m]
    assert told and "1 tokenizer trained or uploaded in the tab the link was copied from" in told[0] and "Decode ids" in told[0], told


def test_wrong_app_wide_values_are_named():
    at = run_view("views.tokenize", query={"sp": "bogus", "ws": "maybe", "tok": "-1", "tenc": "nope"}, _net=True)
    _assert_page_ok(at)
    told = " ".join(_messages(at))
    for part in ("sp=bogus", "ws=maybe", "tok=-1", "tenc=nope"):
        assert part in told, (part, told)
    assert at.session_state[state.SPECIAL] == "text" and at.session_state[state.TOKEN_ID] is None


# -------------------------------------------- issue 33 item 4: numbers too big for a float
HUGE = "9" * 309  # the first integer JSON reads exactly that no float can hold (10**308 still converts)
NUMBER_KEYS = [(view, key) for view, page in {**PAGES, "views.train_steps": "train-steps"}.items()
               for key in state.PAGE_KEYS[page] if state.LINK_VALUES[key].kind in (int, float)]


def test_every_number_setting_is_tried():
    assert {k for _, k in NUMBER_KEYS} == {k for k, v in state.LINK_VALUES.items() if v.kind in (int, float)}


@pytest.mark.parametrize(("view", "key"), NUMBER_KEYS, ids=[k for _, k in NUMBER_KEYS])
def test_a_309_digit_number_in_a_link_gets_the_usual_treatment(view, key):
    """math.isfinite(10**309) raised OverflowError outside the page's error handling: Streamlit's raw error box
    and an empty page. Now a setting with an upper bound refuses it with the notice any bad value gets; one
    without (a page, a step) takes it as a whole number its view resets, exactly as it takes 308 digits."""
    at = run_view(view, query={"v." + key: HUGE}, _net=True)
    _assert_page_ok(at)
    spec = state.LINK_VALUES[key]
    if spec.high is not None:
        told = [m for m in _messages(at) if f"v.{key}" in m]
        assert told and spec.label in told[0] and "expects a number from" in told[0], _messages(at)
        with pytest.raises(state.LinkValueError):
            state.link_value(key, int(HUGE))
    else:
        assert state.link_value(key, int(HUGE)) == int(HUGE)


def test_a_huge_number_never_reaches_a_float_box_without_a_bound():
    """A float setting with no upper bound would have to hold float(10**309): refused, not an OverflowError."""
    state.LINK_VALUES["_test_float"] = state.LinkValue("Test", float, 0.0)
    try:
        with pytest.raises(state.LinkValueError, match="expects a number from 0.0"):
            state.link_value("_test_float", int(HUGE))
        assert state.link_value("_test_float", 10 ** 300) == float(10 ** 300)
    finally:
        del state.LINK_VALUES["_test_float"]


@pytest.mark.parametrize("digits", [19, 309, 5000])
def test_a_token_id_of_many_digits_is_named(digits):
    """tok= of over 4,300 digits made int() raise ValueError outside the page's error handling."""
    at = run_view("views.tokenize", query={"tok": "9" * digits}, _net=True)
    _assert_page_ok(at)
    assert at.session_state[state.TOKEN_ID] is None
    assert any("tok=999" in m and "a token id" in m for m in _messages(at)), _messages(at)
