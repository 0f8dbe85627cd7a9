"""Training, step by step, in AppTest: presets, stepping, scrubbing, ties, limits, and "Use in Compare"."""
from __future__ import annotations

from tests.conftest import plain, run_view

import engine
from engine.training.steps import PRESETS
from playground import state


def steps_app(**session):
    return run_view("views.train_steps", timeout=60, **session)


def html_blocks(at) -> str:
    return "\n".join(m.value for m in at.markdown)


def test_opens_on_the_wikipedia_example_at_step_zero():
    at = steps_app()
    assert at.segmented_control(key="tsteps_source").value == "aaabdaaabac"
    assert at.slider(key="tsteps_step").value == 0
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["Step"] == "0 of 7"  # 20 merges asked; after 7 the text is one token and metrics["Tokens in the text"] == "11"
    page = html_blocks(at)
    assert 'class="win"' in page and "merged" in page  # (a, a) 4 times is the first winner
    assert "No merge yet" in page


def test_step_back_and_scrub_show_minbpes_counts():
    at = steps_app()
    at.button(key="tsteps_next").click().run()
    assert at.slider(key="tsteps_step").value == 1
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["Tokens in the text"] == "9" and metrics["Vocabulary"] == "257"
    assert any("New token 256" in plain(m.value) for m in at.markdown)
    at.slider(key="tsteps_step").set_value(3).run()
    assert {m.label: m.value for m in at.metric}["Tokens in the text"] == "5"  # [aaab, d, aaab, a, c]
    at.button(key="tsteps_end").click().run()
    assert {m.label: m.value for m in at.metric}["Tokens in the text"] == "1"
    assert any("No pair is left" in plain(m.value) for m in at.markdown)
    at.button(key="tsteps_back").click().run()
    assert at.slider(key="tsteps_step").value == 6
    at.slider(key="tsteps_step").set_value(0).run()
    assert {m.label: m.value for m in at.metric}["Tokens in the text"] == "11"


def test_a_tie_is_explained_with_minbpes_rule():
    at = steps_app(tsteps_source="yours", tsteps_text="abcd abcd")
    page = html_blocks(at)
    assert page.count('class="tie"') == 2 and "tie: seen later" in page
    assert any("the pair seen first wins" in c.value for c in at.caption)


def test_counts_match_the_trainer_for_every_preset_and_pattern():
    for source in PRESETS:
        for pattern in ("none (raw bytes)", "cl100k_base"):
            at = steps_app(tsteps_source=source, tsteps_pattern=pattern, tsteps_merges=12)
            walk = at.session_state[state.TS_WALK][1]
            enc = engine.train_bpe(PRESETS[source], 256 + len(walk.steps),
                                   pat_str=None if pattern.startswith("none") else engine.sources.openai_public.CL100K_PAT_STR)
            assert [s.winner for s in walk.steps] == list(enc.merges)
            at.button(key="tsteps_end").click().run()
            tokens = {m.label: m.value for m in at.metric}["Tokens in the text"]
            assert int(tokens.replace(",", "")) == enc.training.token_counts()[-1]


def test_too_long_text_says_the_limit_in_characters_and_bytes():
    at = steps_app(tsteps_source="yours", tsteps_text="ü👍" * 700)
    assert "at most 4,000 bytes" in plain(at.error[0].value)
    assert any(c.value == "1,400 characters, 4,200 of 4,000 bytes" for c in at.caption)
    at = steps_app(tsteps_source="yours", tsteps_text="ü👍" * 600)  # code points (1,200), not UTF-16 units (1,800)
    assert not at.error
    assert any(c.value == "1,200 characters, 3,600 of 4,000 bytes" for c in at.caption)


def test_use_in_compare_registers_the_merges_so_far():
    at = steps_app(tsteps_source="nursery rhyme")
    for _ in range(5):
        at.button(key="tsteps_next").click().run()
    at.button(key="tsteps_use_cmp").click().run()
    assert not at.exception
    name = at.session_state[state.ENCODINGS][-1]
    enc = at.session_state[state.CUSTOM][name]
    assert enc.n_vocab == 256 + 5
    walk = at.session_state[state.TS_WALK][1]
    assert list(enc.merges) == [s.winner for s in walk.steps[:5]]
    assert at.session_state[state.TEXT] == PRESETS["nursery rhyme"]


def test_share_link_keeps_the_step():
    at = steps_app(query={"v.tsteps_source": '"two scripts"', "v.tsteps_step": "4"})
    assert at.segmented_control(key="tsteps_source").value == "two scripts"
    assert at.slider(key="tsteps_step").value == 4


def test_auto_play_advances_once_per_timer_run_and_stops_at_the_end():
    at = steps_app()
    at.button(key="tsteps_play").click().run()
    assert at.session_state[state.TS_PLAYING] is True
    assert at.button(key="tsteps_play").label == "⏸ Pause"
    assert at.slider(key="tsteps_step").value == 0  # turning it on redraws the page, without a step
    for k in range(1, 8):  # each later run is what the fragment's timer does: one step
        at.run()
        assert at.slider(key="tsteps_step").value == k
    at.run()  # at the end: it stops itself
    assert at.session_state[state.TS_PLAYING] is False
    assert at.button(key="tsteps_play").label == "⏵ Auto-play"
    at.button(key="tsteps_play").click().run()  # playing again from the end starts over
    assert at.slider(key="tsteps_step").value == 0 and at.session_state[state.TS_PLAYING] is True
    at.button(key="tsteps_next").click().run()  # any step button pauses
    assert at.session_state[state.TS_PLAYING] is False
