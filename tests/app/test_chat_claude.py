"""AppTest of the Chat formats page's Claude 3+ panel: ctok's reconstruction, labelled, for one user message."""
from __future__ import annotations

from streamlit.testing.v1 import AppTest

from engine.families.claude import LABEL, get_claude
from playground import state
from playground.views import chat as chat_view
from tests.conftest import view_app


def _claude_rows(at: AppTest) -> dict[str, int]:
    frames = [d.value for d in at.dataframe if "family" in getattr(d.value, "columns", [])]
    assert len(frames) == 1
    return dict(zip(frames[0]["family"], frames[0]["tokens"]))


def _label_shown(at: AppTest) -> bool:
    # md() escapes punctuation; compare with the escapes removed
    return any(LABEL in c.value.replace("\\", "") for c in at.caption)


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
