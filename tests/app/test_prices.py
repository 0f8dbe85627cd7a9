"""AppTest of the costs with their date on Chat formats, Budget and the Arena; the user's prices kept in the
session and carried by the share link; the context-window bars."""
from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

import engine
from engine.chat import chat_tokens
from engine.explain import prices
from playground import state
from playground.views import chat as chat_view
from tests.conftest import view_app

ROOT = Path(__file__).resolve().parents[2]

DATE = f"{prices.load_table().source} {prices.load_table().version}, as of {prices.load_table().as_of}"


def _by_columns(at, column: str) -> pd.DataFrame:
    """The first table with `column` (AppTest gives no key for a dataframe)."""
    return next(d.value for d in at.dataframe if column in d.value.columns)


def _one(value) -> str:
    return value if isinstance(value, str) else value[0]


def _captions(at) -> str:
    return " ".join(c.value for c in at.caption)


def _usd(x: float) -> str:
    return f"${x:,.6f}" if x < 0.01 else f"${x:,.4f}"


def test_chat_shows_each_rows_cost_with_the_date_and_the_window():
    at = view_app("views.chat", timeout=180).run()
    assert not at.exception
    costs = _by_columns(at, "prompt cost")
    assert DATE in _captions(at)
    for name in chat_view.DEFAULT_MODELS:
        row = costs[costs["model"] == name].iloc[0]
        n = chat_tokens(chat_view.DEFAULT_CONVERSATION, engine.get_encoding(name)).count
        p = prices.price_for_encoding(name)
        assert row["prompt tokens"] == n and row["priced as"] == p.label and row["window"] == f"{p.window:,}"
        assert row["prompt cost"] == _usd(n * p.input / 1e6)
        assert row["reply of max_tokens"] == _usd(n * p.input / 1e6 + 4096 * p.output / 1e6)
        assert row["free after max_tokens"] == f"{p.window - n - 4096:,}"


def test_an_unchanged_rerun_with_five_models_and_twelve_tools_counts_nothing_again(monkeypatch):
    """The per-tool costs recount the conversation once per tool and model: 60 recounts beside the 5 drawn rows
    overflowed the 64 sequences kept, so every rerun (a click anywhere) counted all 65 again."""
    from playground.serving import job_tasks

    calls = []
    for task in ("chat_tokens", "chat_count"):
        monkeypatch.setitem(job_tasks.TASKS, task,
                            lambda *args, _real=job_tasks.TASKS[task], _task=task: (calls.append(_task), _real(*args))[1])
    weather = chat_view.PRESETS["weather"]["function"]
    tools = [{"type": "function", "function": {**weather, "name": f"tool_{i}", "description": f"Tool {i}."}}
             for i in range(12)]
    five = ["o200k_base", "o200k_harmony", "llama3", "qwen2.5", "mistral-tekken"]
    conversation = [{"role": "user", "content": "Which tool for the weather? (an unchanged-rerun check)"}]
    at = view_app("views.chat", timeout=180, chat_conv=chat_view.pack(conversation, five, json.dumps(tools))).run()
    assert not at.exception
    bars = _by_columns(at, "prompt cost")
    assert len(bars) == 5 and len(calls) == 5 * 13  # each row, and each row without each tool
    calls.clear()
    at.run()
    assert not at.exception
    assert calls == []


def test_chat_max_tokens_changes_the_reply_cost_and_says_over_the_window():
    at = view_app("views.chat", timeout=180).run()
    at.number_input(key=state.CHAT_MAX_TOKENS).set_value(200_000).run()
    assert not at.exception
    costs = _by_columns(at, "prompt cost")
    row = costs[costs["model"] == "o200k_base"].iloc[0]  # gpt-4o: a 128,000-token window
    n = row["prompt tokens"]
    assert row["over by"] == f"{n + 200_000 - 128_000:,}" and row["free after max_tokens"] == "0"


def test_your_price_changes_the_cost_marks_it_and_travels_in_the_link():
    at = view_app("views.chat", timeout=180).run()
    at.text_input(key=state.PRICES).set_value("gpt-4o=100/-/200").run()
    assert not at.exception
    costs = _by_columns(at, "prompt cost")
    row = costs[costs["model"] == "o200k_base"].iloc[0]
    assert row["prompt cost"] == _usd(row["prompt tokens"] * 100 / 1e6)
    assert "marked * are yours" in _captions(at)
    listed = _by_columns(at, "cached input")
    gpt4o = listed[listed["model"] == "gpt-4o"].iloc[0]
    assert (gpt4o["input"], gpt4o["cached input"], gpt4o["output"]) == ("100*", "1.25", "200*")
    # the session keeps it on another page (Budget), and its cost uses it there
    at.session_state[state.CHUNK_ENCODING] = "o200k_base"
    at.session_state["_view"] = "views.chunks"
    at.run()
    assert not at.exception and at.text_input(key=state.PRICES).value == "gpt-4o=100/-/200"
    row = _by_columns(at, "cost of the whole text").iloc[0]
    assert row["input $/M"] == 100 and row["priced as"] == "GPT-4o (OpenAI)"


def _page_script() -> None:
    """The app's frame around one page, its link written as app.py writes it (with the page's own keys)."""
    import importlib
    import sys
    from pathlib import Path as P

    sys.path.insert(0, str(P.cwd()))
    import streamlit as st

    from playground import state as s

    s.init_state()
    page = st.session_state["_page"]
    importlib.import_module(f"playground.views.{page}").render()
    s.save_query_params(page)


@pytest.mark.parametrize("name", ["chat", "chunks", "arena"])
def test_your_prices_round_trip_through_the_share_link(name, monkeypatch):
    from streamlit.testing.v1 import AppTest

    monkeypatch.chdir(ROOT)
    at = AppTest.from_function(_page_script, default_timeout=300)
    at.session_state["_page"] = name
    at.session_state[state.CHUNK_ENCODING] = "o200k_base"
    at.run()
    assert "v." + state.PRICES not in at.query_params  # nothing set: nothing written into the link
    at.text_input(key=state.PRICES).set_value("gpt-4o=3/-/9;  GLM-5.2=1").run()
    assert not at.exception
    link = {k: _one(at.query_params[k]) for k in at.query_params}
    assert json.loads(link["v." + state.PRICES]) == "gpt-4o=3/-/9; GLM-5.2=1"  # the canonical form
    again = AppTest.from_function(_page_script, default_timeout=300)
    again.session_state["_page"] = name
    again.session_state[state.CHUNK_ENCODING] = "o200k_base"
    for key, value in link.items():
        again.query_params[key] = value
    again.run()
    assert not again.exception
    assert again.text_input(key=state.PRICES).value == "gpt-4o=3/-/9; GLM-5.2=1"
    assert prices.parse_overrides(again.session_state[state.PRICES]) == {
        "gpt-4o": {"input": 3.0, "output": 9.0}, "GLM-5.2": {"input": 1.0}}


def test_a_link_with_prices_opens_with_them():
    at = view_app("views.chat", timeout=180, query={"v.prices": json.dumps("gpt-4o=7; llama3=x")}, _net=True)
    at.run()
    assert not at.exception
    # a bad value is refused by the link's check and named; nothing half-applied
    told = " ".join(w.value for w in at.warning)
    assert "Your prices" in told and "llama3" in told
    assert not at.text_input(key=state.PRICES).value
    at = view_app("views.chat", timeout=180, query={"v.prices": json.dumps(" gpt-4o = 7 ")}).run()
    assert at.text_input(key=state.PRICES).value == "gpt-4o=7"  # the canonical form
    row = _by_columns(at, "prompt cost")
    row = row[row["model"] == "o200k_base"].iloc[0]
    assert row["prompt cost"] == _usd(row["prompt tokens"] * 7 / 1e6)


def test_a_bad_price_text_is_named_and_ignored():
    at = view_app("views.chat", timeout=180).run()
    at.text_input(key=state.PRICES).set_value("gpt-4o=cheap").run()
    assert not at.exception
    assert any("Your prices were not used" in e.value and "not a number" in e.value for e in at.error)
    row = _by_columns(at, "prompt cost")
    row = row[row["model"] == "o200k_base"].iloc[0]
    assert row["prompt cost"] == _usd(row["prompt tokens"] * 2.5 / 1e6)


def test_budget_shows_the_texts_cost_with_the_date():
    at = view_app("views.chunks", timeout=180, chunk_encoding="o200k_base").run()
    assert not at.exception
    row = _by_columns(at, "cost of the whole text").iloc[0]
    n = len(engine.get_encoding("o200k_base").encode(at.session_state[state.TEXT]))
    assert row["tokens"] == n and row["cost of the whole text"] == _usd(n * 2.5 / 1e6)
    assert DATE in _captions(at)


def test_budget_with_an_unpriced_tokenizer_says_so():
    at = view_app("views.chunks", timeout=180, chunk_encoding="gpt2").run()
    assert not at.exception
    assert "No listed price for gpt2" in _captions(at)
    assert DATE in _captions(at)  # the price list's expander caption still dates it


def test_arena_shows_each_tokenizers_cost_with_the_date():
    at = view_app("views.arena", timeout=300).run()
    assert not at.exception
    costs = _by_columns(at, "cost of your text")
    ranked = _by_columns(at, "× best")
    counts = dict(zip(ranked["tokenizer"], ranked["tokens"]))
    assert set(costs["tokenizer"]) == {n for n in counts if prices.price_for_encoding(n)}
    for _i, row in costs.iterrows():
        p = prices.price_for_encoding(row["tokenizer"])
        assert row["tokens"] == counts[row["tokenizer"]]
        assert row["cost of your text"] == _usd(prices.cost(p, input_tokens=row["tokens"]))
    assert DATE in _captions(at)


def test_a_row_without_a_listed_window_shows_dashes_not_none():
    """Gemini 3.1 Pro preview is priced with no window listed (genai-prices 0.2.3): its window cells show "—". They
    printed "None"; a Styler's "—" did not help, the browser prints an empty number cell as "None" (screenshot at
    1280 px), so the cells are text."""
    at = view_app("views.chat", timeout=180, chat_conv=chat_view.pack(chat_view.DEFAULT_CONVERSATION,
                                                                        ["o200k_base", "gemini-3.1"])).run()
    assert not at.exception
    table = next(d.value for d in at.dataframe if "prompt cost" in d.value.columns)
    gemini = table[table["model"] == "gemini-3.1"].iloc[0]
    assert (gemini["window"], gemini["free after max_tokens"], gemini["over by"]) == ("—", "—", "—")
    assert table[table["model"] == "o200k_base"].iloc[0]["window"] == "128,000"
    assert not table.isna().any().any()  # no empty cell left for the browser to print as None
