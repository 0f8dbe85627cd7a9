"""The context-window bar (playground/render/window.py): a row whose window is unknown shows its numbers, no bar."""
from __future__ import annotations

import engine
from engine.chat import chat_tokens
from engine.explain import context_window as cw
from playground.render.window import window_bar

CONV = [{"role": "system", "content": "You are terse."}, {"role": "user", "content": "Weather in Paris?"}]


def _use(window):
    r = chat_tokens(CONV, engine.get_encoding("llama3"))
    return cw.window_use([(p.label, p.tokens) for p in r.breakdown()], window=window, reserved_output=4_096)


def test_a_known_window_draws_its_bar_with_the_free_space():
    html = window_bar("llama3", _use(131_072), element_id="w")
    assert 'class="wbar"' in html and "w-free" in html and "free 126,9" in html


def test_an_unknown_window_draws_no_bar():
    """Scaled to the request itself, the bar looked full: the reserved output (4,096) filled it."""
    html = window_bar("claude-legacy", _use(None), element_id="w")
    assert "window unknown" in html and 'class="wbar"' not in html and "reserved output 4,096" in html
