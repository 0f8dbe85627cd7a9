"""Tokenize and Compare views through AppTest (tests/app/view_app.py), by widget key."""
from __future__ import annotations

import json
import re
from html.parser import HTMLParser

import pytest
from streamlit.testing.v1 import AppTest

from tests.conftest import blocks, plain, run_view

import engine
from playground import state
from playground.cache import encodings, render_cache
from playground.render.compare import compare_bars
from playground.render.markdown import md
from playground.views.tokenize import parse_ids

HOSTILE = "<script>alert(1)</script> <img src=x onerror=alert(1)> \"quoted\" 'single' & AT&T *x* $y$\n\nend"
SPECIAL_TEXT = "Hello<|endoftext|>world"


@pytest.fixture(scope="module")
def encs():
    return {n: engine.get_encoding(n) for n in ("gpt2", "cl100k_base", "o200k_base")}


def metrics(at: AppTest) -> dict[str, str]:
    return {m.label: m.value for m in at.metric}


def html_of(at: AppTest, marker: str) -> str:
    """The one markup element (st.markdown or st.html) containing `marker`."""
    found = [m for m in [*(m.value for m in at.markdown), *blocks(at)] if marker in m]
    assert len(found) == 1, f"{marker!r} in {len(found)} markdown elements"
    return found[0]


class Markup(HTMLParser):
    """Tags and text of a markup string, with character references decoded."""

    def __init__(self, markup: str) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[str] = []
        self.text: list[str] = []
        self.span_ids: list[str] = []
        self.feed(markup)

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        if tag == "span" and "data-ids" in dict(attrs):  # token spans (not whitespace markers)
            self.span_ids.append(dict(attrs)["data-ids"])

    def handle_data(self, data):
        self.text.append(data)


# ------------------------------------------------------------------ Tokenize
@pytest.mark.parametrize("name", ["gpt2", "cl100k_base"])
def test_tokenize_counts_equal_the_engine(encs, name):
    text = "Hello world! 1234567 + 2026 = 1236593.\nこんにちは世界 👋🏽 🇯🇵"
    at = run_view("views.tokenize", **{state.TEXT: text, state.ENCODINGS: ["gpt2", "cl100k_base"]})
    at.segmented_control(key="tok_encoding").set_value(name).run()
    enc = encs[name]
    n = len(enc.encode(text, allowed_special=set(), disallowed_special=()))
    nbytes = len(text.encode())
    assert metrics(at) == {
        "Tokens": f"{n:,}", "Characters": f"{len(text):,}", "UTF-8 bytes": f"{nbytes:,}",
        "Bytes / token": f"{nbytes / n:.2f}", "Chars / token": f"{len(text) / n:.2f}",
    }
    markup = Markup(html_of(at, f'id="tokens-{name}"'))
    assert sum(len(ids.split()) for ids in markup.span_ids) == n
    assert "".join(markup.text).replace("␣", " ").replace("↵", "") == text  # whitespace markers are on
    assert "\ufffd" not in "".join(markup.text)
    copied = [json.loads(c.proto.json)["text"] for c in at.get("bidi_component") if c.proto.id.endswith("-tok_copy_ids")]
    assert copied == [str(enc.encode(text, allowed_special=set(), disallowed_special=()))]


def test_tokenize_on_corpus_cases(encs):
    from tests.conftest import case_text, load_cases, plain
    cases = [c for c in load_cases() if "text_codepoints" not in c][:6]
    at = run_view("views.tokenize", **{state.ENCODINGS: ["cl100k_base"]})
    for case in cases:
        at.session_state[state.TEXT] = case_text(case)  # what the live text box reports
        at.run()
        assert not at.exception
        assert metrics(at)["Tokens"] == f"{len(case['cl100k_base']):,}", case["id"]


def test_special_policy_text_special_and_refuse(encs):
    enc = encs["gpt2"]
    at = run_view("views.tokenize", **{state.TEXT: SPECIAL_TEXT, state.ENCODINGS: ["gpt2"], state.SPECIAL: "text"})
    assert metrics(at)["Tokens"] == str(len(enc.encode(SPECIAL_TEXT, disallowed_special=())))
    assert "tok special" not in html_of(at, 'id="tokens-gpt2"')

    at.radio(key=state.SPECIAL).set_value("special").run()
    assert metrics(at)["Tokens"] == str(len(enc.encode(SPECIAL_TEXT, allowed_special="all")))
    markup = html_of(at, 'id="tokens-gpt2"')
    assert markup.count("tok special") == 1 and 'data-ids="50256"' in markup

    at.radio(key=state.SPECIAL).set_value("refuse").run()
    assert not at.exception
    assert len(at.error) == 1
    assert "disallowed special token '<|endoftext|>'" in at.code[0].value
    assert "as plain text" in plain(at.error[0].value)  # says the fix
    assert not at.metric


def test_hostile_text_is_escaped_in_every_pane():
    at = run_view("views.tokenize", **{state.TEXT: HOSTILE, state.ENCODINGS: ["gpt2", "cl100k_base"], state.SHOW_WS: False})
    for pane, marker in [("Tokens", 'id="tokens-gpt2"'), ("Bytes", 'id="bytes-gpt2"'), ("Pieces", 'id="pieces-gpt2"')]:
        at.segmented_control(key="tok_pane").set_value(pane).run()
        value = html_of(at, marker)
        assert "<script" not in value and "<img" not in value and "\n" not in value
        assert "&lt;script&gt;" in value or "&lt;" in value
        assert "&amp;" in value and "&quot;" in value and "&#x27;" in value
        markup = Markup(value)
        assert set(markup.tags) <= {"div", "span"}, pane
        if pane != "Bytes":
            assert "".join(markup.text) == HOSTILE, pane


def test_whitespace_markers_follow_the_sidebar():
    at = run_view("views.tokenize", **{state.TEXT: "a b\tc\nd", state.ENCODINGS: ["gpt2"], state.SHOW_WS: True})
    value = html_of(at, 'id="tokens-gpt2"')
    assert '<span class="ws">␣</span>' in value and '<span class="ws">→</span>' in value and "↵" in value
    at.toggle(key=state.SHOW_WS).set_value(False).run()
    assert 'class="ws"' not in html_of(at, 'id="tokens-gpt2"')


def test_decode_box(encs):
    at = run_view("views.tokenize", **{state.ENCODINGS: ["cl100k_base"]})
    box = at.text_input(key="tok_decode")
    box.input("15339, 1917").run()
    assert at.code[-1].value == "hello world" and not at.error and not at.warning
    at.text_input(key="tok_decode").input("[15339 1917]").run()
    assert at.code[-1].value == "hello world"
    at.text_input(key="tok_decode").input("15339, abc, 1.5, 99999999, 1917").run()
    assert not at.exception
    assert "'abc'" in plain(at.error[0].value) and "'1.5'" in plain(at.error[0].value)
    assert "99999999" in plain(at.warning[0].value) and "cl100k_base" in plain(at.warning[0].value)
    assert at.code[-1].value == "hello world"


def test_parse_ids_accepts_common_shapes():
    assert parse_ids("15339, 1917").ids == [15339, 1917]
    assert parse_ids("[15339 1917]").ids == [15339, 1917]
    assert parse_ids("(1;2\n3)").ids == [1, 2, 3]
    assert parse_ids("1, -2, x").bad == ["-2", "x"]
    assert parse_ids("   ") == parse_ids("")


def test_panes_table_and_downloads(encs):
    text = "Price: 1234567 😀"
    at = run_view("views.tokenize", **{state.TEXT: text, state.ENCODINGS: ["gpt2"]})
    at.segmented_control(key="tok_pane").set_value("Table").run()
    frame = at.dataframe[0].value
    tokens = encs["gpt2"].tokenize(text)
    assert list(frame["id"]) == [t.id for t in tokens]
    assert list(frame["valid UTF-8 alone"]) == [t.is_valid_utf8 for t in tokens]
    assert list(frame["byte start"]) == [t.byte_start for t in tokens]
    assert len(at.get("download_button")) == 2

    at.segmented_control(key="tok_pane").set_value("Bytes").run()
    assert html_of(at, 'id="bytes-gpt2"').count("tok invalid") == 2

    at.segmented_control(key="tok_pane").set_value("Pieces").run()
    assert "1234567" in "".join(Markup(html_of(at, 'id="pieces-gpt2"')).text)


def test_pick_a_token_for_the_merge_tree(encs):
    at = run_view("views.tokenize", **{state.TEXT: "hello world", state.ENCODINGS: ["cl100k_base"]})
    at.selectbox(key="tok_pick").set_value(1917).run()
    at.button(key="tok_open_tree").click().run()
    assert at.session_state[state.TOKEN_ID] == 1917
    assert at.session_state[state.TOKEN_ENC] == "cl100k_base"


def test_long_text_counts_whole_text_and_caps_drawing(encs):
    text = "hello world, " * 20_000  # 260,000 characters
    at = run_view("views.tokenize", **{state.TEXT: text, state.ENCODINGS: ["gpt2"]})
    assert metrics(at)["Tokens"] == f"{len(encs['gpt2'].encode(text)):,}"
    assert any(f"first {render_cache.DRAWN_CHARS:,} of {len(text):,}" in i.value for i in at.info)
    drawn = Markup(html_of(at, 'id="tokens-gpt2"'))
    assert len("".join(drawn.text)) <= render_cache.DRAWN_CHARS + 10
    assert "text" not in at.query_params  # too long for the share link
    assert any("left out" in c.value for c in at.caption)


def test_copy_all_ids_button_carries_every_id(encs):
    """The "Copy all ids" button (a small component) is sent every id of the text, capped at MAX_IDS_SHOWN."""
    from playground.views import tokenize as tokenize_view

    text = "Hello world! 1234567 " * 3
    at = run_view("views.tokenize", **{state.TEXT: text, state.ENCODINGS: ["gpt2"]})
    button = [json.loads(c.proto.json) for c in at.get("bidi_component") if c.proto.id.endswith("-tok_copy_ids")]
    ids = encs["gpt2"].encode(text)
    assert button == [{"label": f"Copy all {len(ids)} ids", "text": json.dumps(ids)}]

    long_text = "a b " * (tokenize_view.MAX_IDS_SHOWN // 2 + 100)
    at = run_view("views.tokenize", **{state.TEXT: long_text, state.ENCODINGS: ["gpt2"]})
    button = [json.loads(c.proto.json) for c in at.get("bidi_component") if c.proto.id.endswith("-tok_copy_ids")]
    n = len(encs["gpt2"].encode(long_text))
    assert button[0]["label"] == f"Copy the first {tokenize_view.MAX_IDS_SHOWN:,} ids"
    assert json.loads(button[0]["text"]) == encs["gpt2"].encode(long_text)[: tokenize_view.MAX_IDS_SHOWN]
    assert any(f"of {n:,} ids" in c.value for c in at.caption)


def test_share_link_state_round_trips_through_query_params():
    at = run_view("views.tokenize", timeout=60, query={"text": "from a link & more", "enc": "o200k_base,gpt2",
                                                      "sp": "special"})
    assert at.session_state[state.TEXT] == "from a link & more"
    assert at.session_state[state.ENCODINGS] == ["o200k_base", "gpt2"]
    assert at.segmented_control(key="tok_encoding").value == "o200k_base"
    at.session_state[state.TEXT] = "edited"  # what the live text box reports
    at.run()
    assert at.query_params["text"] == ["edited"] or at.query_params["text"] == "edited"


def test_no_encoding_selected_says_what_to_do():
    at = run_view("views.tokenize", **{state.ENCODINGS: []})
    assert "sidebar" in at.info[0].value


# ------------------------------------------------------------------ Compare
def test_compare_counts_delta_and_table(encs):
    text = "Numbers: 1234567 + 2026 = 1236593.\ndef f(x):\n    return x * 2\n"
    at = run_view("views.compare", **{state.TEXT: text, state.ENCODINGS: ["gpt2", "cl100k_base"]})
    counts = {n: len(encs[n].encode(text)) for n in ("gpt2", "cl100k_base")}
    for name, n in counts.items():
        markup = Markup(html_of(at, f'id="cmp-{name}"'))
        assert sum(len(ids.split()) for ids in markup.span_ids) == n
        assert any(m.value == f"**{md(name)}** · {n:,} tokens" for m in at.markdown)  # names escaped
    stats = [engine.explain.compare.text_stats(n, text, c) for n, c in counts.items()]
    assert html_of(at, 'id="delta"').count(engine.explain.compare.delta_sentence(stats[1], stats[0])) == 1
    frame = at.dataframe[0].value
    assert list(frame["encoding"]) == ["gpt2", "cl100k_base"]
    assert list(frame["tokens"]) == list(counts.values())
    diff = engine.explain.compare.boundary_diff({n: encs[n].tokenize(text) for n in counts}, text)
    got = metrics(at)
    assert got["Cuts every encoding makes"] == f"{len(diff.shared):,}"
    assert got["Cuts only some make"] == f"{len(diff.differing):,}"
    gpt2 = html_of(at, 'id="cmp-gpt2"')
    assert gpt2.count("tok same") + gpt2.count("tok cut") + gpt2.count("split same") + gpt2.count("split cut") >= 1
    bars = html_of(at, 'id="cmp-bars"')
    assert not at.get("vega_lite_chart")
    for name, n in counts.items():
        assert bars.count(f'<span class="name">{name}</span>') == 3
        assert f'title="{name}: {n:,} tokens"' in bars


def test_compare_bars_scale_and_escape():
    rows = [{"encoding": "<b>x</b>", "tokens": 200, "bytes/token": 2.0, "chars/token": 1.5},
            {"encoding": "gpt2", "tokens": 100, "bytes/token": 4.0, "chars/token": 3.0}]
    markup = compare_bars(rows, [("tokens", ",d"), ("bytes/token", ".2f")])
    assert "<b>" not in markup and "&lt;b&gt;x&lt;/b&gt;" in markup
    widths = [float(w) for w in re.findall(r"width:([0-9.]+)%", markup)]
    assert widths == [75.0, 37.5, 37.5, 75.0]  # the largest bar is 75% (room for its value), the rest in proportion
    assert ">200<" in markup and ">4.00<" in markup


def test_compare_layouts_and_four_encodings(encs):
    names = ["gpt2", "llama3", "cl100k_base", "o200k_base"]  # r50k_base is gpt2 (an alias, shown once)
    at = run_view("views.compare", **{state.ENCODINGS: names})
    at.segmented_control(key="cmp_layout").set_value("Stacked").run()
    assert not at.exception
    for name in names:
        html_of(at, f'id="cmp-{name}"')
    assert len(Markup(html_of(at, 'id="delta"')).text) == 3


def test_compare_needs_two_encodings():
    at = run_view("views.compare", **{state.ENCODINGS: ["gpt2"]})
    assert "two to six" in at.info[0].value


def test_compare_escapes_hostile_text():
    at = run_view("views.compare", **{state.TEXT: HOSTILE, state.ENCODINGS: ["gpt2", "cl100k_base"], state.SHOW_WS: False})
    for name in ("gpt2", "cl100k_base"):
        value = html_of(at, f'id="cmp-{name}"')
        assert "<script" not in value and "<img" not in value
        markup = Markup(value)
        assert set(markup.tags) <= {"div", "span"}
        assert "".join(markup.text) == HOSTILE


def test_compare_refuse_policy_shows_tiktoken_message():
    at = run_view("views.compare", **{state.TEXT: SPECIAL_TEXT, state.ENCODINGS: ["gpt2", "cl100k_base"],
                                     state.SPECIAL: "refuse"})
    assert "refused the text" in plain(at.error[0].value)
    assert "disallowed special token" in at.code[0].value


def test_compare_includes_this_sessions_own_encoding(encs):
    mini = engine.Encoding("mini-bytes", pat_str=engine.get_encoding("gpt2").pat_str,
                           mergeable_ranks={bytes([i]): i for i in range(256)}, special_tokens={})
    text = "hi there"
    at = run_view("views.compare", timeout=60,
                  **{state.CUSTOM: {"mini-bytes": mini}, state.ENCODINGS: ["gpt2", "mini-bytes"], state.TEXT: text})
    markup = Markup(html_of(at, 'id="cmp-mini-bytes"'))
    assert len(markup.span_ids) == len(text.encode())
    assert "mini-bytes uses 300% more tokens than gpt2" in html_of(at, 'id="delta"')
