"""AppTest of the Chat formats page's Claude 3+ panel: ctok's reconstruction, labelled, for one user message."""
from __future__ import annotations

from streamlit.testing.v1 import AppTest

from engine.families.claude import LABEL, get_claude
from playground import state
from playground.views import chat as chat_view
from tests.conftest import blocks, view_app


def _claude_rows(at: AppTest) -> dict[str, int]:
    frames = [d.value for d in at.dataframe if {"family", "content"} <= set(getattr(d.value, "columns", []))]
    assert len(frames) == 1
    return dict(zip(frames[0]["family"], frames[0]["tokens"]))


def _label_shown(at: AppTest) -> bool:
    # md() escapes punctuation; compare with the escapes removed
    return any(LABEL in c.value.replace("\\", "") for c in at.caption)


def _one_user_message(text: str) -> AppTest:
    at = view_app("views.chat", timeout=120).run()
    uids = [m["uid"] for m in at.session_state["chat_messages"]]
    for uid in uids[:-1]:  # keep the last message, a user's
        at.button(key=f"chat_del_{uid}").click().run()
    user = next(m for m in at.session_state["chat_messages"] if m["role"] == "user")
    at.text_area(key=f"chat_content_{user['uid']}").set_value(text).run()
    assert not at.exception
    return at


def test_each_claude_family_is_priced_as_its_first_listed_model_with_the_date_and_a_window():
    """The reconstructed counts get costs as every Chat row does (issue 34: prices for the models we count):
    claude-3 as Claude Sonnet 4.5, claude-4.7 as Opus 4.7, claude-4.8 as Opus 4.8, with the source's date, the
    window after max_tokens, the user's own prices, and a window bar per family."""
    from engine.explain import prices as engine_prices

    text = "Tokenizers count differently. " * 20
    at = _one_user_message(text)
    costs = next(d for d in at.dataframe if "prompt cost" in d.value.columns and "family" in d.value.columns)
    table = costs.value.set_index("family")
    for name, model in (("claude-3", "claude-sonnet-4-5"), ("claude-4.7", "claude-opus-4-7"),
                        ("claude-4.8", "claude-opus-4-8")):
        p, n = engine_prices.price_for(model), get_claude(name).count_tokens(text)
        row = table.loc[name]
        assert (row["priced as"], row["prompt tokens"], row["window"]) == (p.label, n, f"{p.window:,}")
        assert row["prompt cost"] == f"${n * p.rate('input', n) / 1e6:,.6f}"
        assert row["free after max_tokens"] == f"{p.window - n - 4096:,}"
    assert "1,000,000" in set(costs.value["window"])
    table_source = engine_prices.load_table()
    assert any(f"as of {table_source.as_of}" in c.value for c in at.caption)
    (bars,) = [b for b in blocks(at) if 'id="claude-window-bars"' in b]
    assert bars.count('class="wbar"') == 3 and 'data-window="1000000"' in bars
    assert "claude-4.8 · Claude Opus 4.8 (Anthropic)" in bars
    # the user's own price for Opus 4.8 changes claude-4.8's cost, and only it
    at.session_state[state.PRICES] = "claude-opus-4-8=50/-/-"
    at.run()
    table = next(d.value for d in at.dataframe if "prompt cost" in d.value.columns and "family" in d.value.columns)
    n = get_claude("claude-4.8").count_tokens(text)
    assert table.set_index("family").loc["claude-4.8", "prompt cost"] == f"${n * 50 / 1e6:,.4f}"


def test_one_user_message_gets_the_three_reconstructed_counts_labelled():
    at = view_app("views.chat", timeout=120).run()
    assert not at.exception
    assert len(chat_view.DEFAULT_CONVERSATION) > 1
    assert _label_shown(at)
    assert any("Not counted" in i.value and "one user message" in i.value for i in at.info)
    uids = [m["uid"] for m in at.session_state["chat_messages"]]
    assert chat_view.DEFAULT_CONVERSATION[-1]["role"] == "user"
    for uid in uids[:-1]:  # keep the last message, a user's
        at.button(key=f"chat_del_{uid}").click().run()
    user = next(m for m in at.session_state["chat_messages"] if m["role"] == "user")
    at.text_area(key=f"chat_content_{user['uid']}").set_value("NASA likes tokenizers,  it's “true”").run()
    assert not at.exception
    text = "NASA likes tokenizers,  it's “true”"
    assert _claude_rows(at) == {name: get_claude(name).count_tokens(text)
                                for name in ("claude-3", "claude-4.7", "claude-4.8")}
    assert _label_shown(at)
    old, new = get_claude("claude-3").count_tokens(text), get_claude("claude-4.7").count_tokens(text)
    assert any(f"Opus 4.6 → 4.7 on this text: {old:,} → {new:,} tokens" in c.value.replace("\\", "")
               for c in at.caption)
    assert at.session_state[state.CLAUDE_DRAW] == "claude-4.8"
    drawn = [m.value for m in at.markdown if "frame," in m.value and "content)" in m.value]
    assert drawn and "4\\.8" in drawn[0]
    at.segmented_control(key=state.CLAUDE_DRAW).set_value("claude-3").run()
    assert not at.exception
    drawn = [m.value for m in at.markdown if "frame," in m.value and "content)" in m.value]
    assert f"{get_claude('claude-3').count_tokens(text):,} tokens" in drawn[0]


def test_a_long_message_draws_the_first_tokens_of_its_tiling_and_counts_the_rest():
    """The tiling drawn for a 20,000-character message was every one of its 9,286 tokens, on each rerun; a Chat
    row draws 400 of a message's tokens and one chip for the rest: so does Claude's now, its count whole."""
    import re

    from tests.conftest import blocks

    text = ("The Weather in PARIS, today? Naïve café “quotes” 12345. " * 400)[:20_000]
    at = view_app("views.chat", timeout=120,
                  chat_conv=chat_view.pack([{"role": "user", "content": text}], chat_view.DEFAULT_MODELS)).run()
    assert not at.exception
    tiling = get_claude("claude-4.8").tiling(text)
    assert _claude_rows(at)["claude-4.8"] == tiling.count
    (drawn,) = [b for b in blocks(at) if 'id="claude-tiling"' in b]
    assert drawn.count('class="tok content"') == chat_view.DRAWN_PER_MESSAGE
    more = len(tiling.tokens) - chat_view.DRAWN_PER_MESSAGE
    assert re.search(rf'class="tok elided"[^>]*>… {more:,} more tokens …<', drawn)
