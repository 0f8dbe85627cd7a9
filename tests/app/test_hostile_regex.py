"""A hostile split pattern in the playground: an uploaded tokenizer.json's Split pattern runs off the other
sessions' turns, one at a time, and the page says what happened (the engine's side:
tests/engine/families/test_hf_hostile_regex.py, whose tokenizer file and fixture these tests share).
"""
from __future__ import annotations

import threading

import engine
from tests.conftest import VIEW_APP, plain, until
from tests.engine.families.test_hf_hostile_regex import HOSTILE, TEXT, hostile, short_limit, tokenizer_json  # noqa: F401


def test_the_split_runs_off_the_turns_one_at_a_time(short_limit, monkeypatch):
    """While two tabs' hostile splits run, both turns stay free for the other sessions, and only one
    of the splits matches at a time (each burns a core: two would take the server's both)."""
    from playground.cache import encodings
    from playground.serving import script_gate

    monkeypatch.setattr(script_gate, "_turns", script_gate.Gate(2))
    monkeypatch.setattr(script_gate, "_user_work", script_gate.Gate(1))
    enc = hostile()
    started = threading.Barrier(3)
    failures: list[BaseException] = []

    def tab(k: int) -> None:
        with script_gate.turn():
            started.wait(5)
            try:
                encodings.encode("hostile", enc, TEXT + str(k), "text")
            except engine.SplitTimeoutError as error:
                failures.append(error)

    tabs = [threading.Thread(target=tab, args=(k,)) for k in range(2)]
    for t in tabs:
        t.start()
    started.wait(5)
    # both inside encode now, turns given back: one splitting, one waiting for the place
    until(lambda: (script_gate._turns.free(), script_gate._user_work.free()) == (2, 0), timeout=30,
          what="both tabs inside encode")
    free_turns, free_places = script_gate._turns.free(), script_gate._user_work.free()
    for t in tabs:
        t.join(30)
    assert len(failures) == 2 and (free_turns, free_places) == (2, 0)
    assert script_gate._turns.free() == 2 and script_gate._user_work.free() == 1  # all given back once


def test_compare_with_the_hostile_upload_says_why(short_limit, monkeypatch):
    from streamlit.testing.v1 import AppTest

    from playground import state
    from playground.views.train import load_tokenizer

    enc = load_tokenizer("tokenizer.json (Hugging Face)", ("hostile.json", tokenizer_json(HOSTILE)), None, None, [])
    at = AppTest.from_file(VIEW_APP, default_timeout=60)
    at.session_state["_view"] = "views.compare"
    at.session_state["_net"] = True  # inside errors.run_page, as app.py runs a page: what users see
    at.session_state[state.CUSTOM] = {enc.name: enc}
    at.session_state[state.ENCODINGS] = ["gpt2", enc.name]
    at.session_state[state.TEXT] = TEXT
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    errors = plain(" ".join(e.value for e in at.error))
    assert "Something went wrong" not in errors
    assert "could not split this text" in errors and "took more than 0.5 s" in errors, errors
    assert "single repeat" in errors
    # the failure is remembered: the rerun does not run the hostile split again (it would pay the limit again)
    from playground.cache import encodings
    real = encodings.engine_call

    def not_again(task, name, *args, **kwargs):
        assert name != enc.name, f"{task} of {name} ran again"
        return real(task, name, *args, **kwargs)

    monkeypatch.setattr(encodings, "engine_call", not_again)
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    errors = plain(" ".join(e.value for e in at.error))
    assert "Something went wrong" not in errors and "took more than" in errors, errors
