"""One character count everywhere: no text box uses Streamlit's `max_chars` (the browser counts UTF-16 units
there, so 🦜 counts 2 and a box silently refuses what is typed past the limit); every limited box goes
through playground/widgets/text_fields, which counts code points, keeps every character typed and says
when the limit is passed."""
from __future__ import annotations

import re
from pathlib import Path

from playground import state
from tests.conftest import run_view

PLAYGROUND = Path(__file__).resolve().parents[2] / "playground"
PARROT = "🦜"  # one code point, two UTF-16 units


def test_no_box_uses_streamlits_utf16_counter():
    offenders = [f"{p.relative_to(PLAYGROUND)}:{n}" for p in PLAYGROUND.rglob("*.py")
                 for n, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1)
                 if re.search(r"\bmax_chars\s*=", line)]
    assert offenders == []


def test_the_field_counts_code_points_and_says_when_the_limit_is_passed():
    from playground.widgets.text_fields import over_limit

    assert over_limit("Language", PARROT * 40, 40) is None  # 40 characters (80 UTF-16 units): fits
    message = over_limit("Language", PARROT * 43, 40)
    assert "43 characters" in message and "limit of 40" in message and "3 too many" in message
    assert "Nothing was cut" in message


def _add(at, language: str, sentence: str):
    at.text_input(key=state.ARENA_OWN_LANGUAGE).input(language)
    at.text_area(key=state.ARENA_OWN_TEXT).input(sentence)
    at.button[[b.label for b in at.button].index("Add to the heatmap")].click()
    return at.run()


def test_arena_keeps_a_language_name_of_forty_emoji_and_refuses_a_longer_one_aloud():
    at = run_view("views.arena", timeout=180)
    at = _add(at, PARROT * 41, "Hello")
    assert not (at.session_state[state.ARENA_OWN_SENTENCES] if state.ARENA_OWN_SENTENCES in at.session_state else [])  # not added, and not cut to 40 either
    assert any("41 characters" in w.value for w in at.warning), [w.value for w in at.warning]
    assert at.text_input(key=state.ARENA_OWN_LANGUAGE).value == PARROT * 41  # the text stays in the box
    at = _add(at, PARROT * 40, "Hello")
    (added,) = at.session_state[state.ARENA_OWN_SENTENCES]
    assert added["language"] == PARROT * 40
    assert at.text_input(key=state.ARENA_OWN_LANGUAGE).value == ""  # cleared once added


def test_decode_box_over_its_limit_says_so(monkeypatch):
    from playground.views import tokenize

    monkeypatch.setattr(tokenize, "MAX_DECODE_CHARS", 10)
    at = run_view("views.tokenize", **{state.TEXT: "hi", state.ENCODINGS: ["gpt2"], state.TOK_DECODE: "15339, 1917, 11"})
    assert any("15 characters" in w.value and "limit of 10" in w.value for w in at.warning), [w.value for w in at.warning]
    assert not at.code or all("Hello" not in c.value for c in at.code)
