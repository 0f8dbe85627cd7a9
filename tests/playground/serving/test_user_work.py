"""Calls on a session's own tokenizer (`playground.serving.user_work`): inline under the engine's time limit with
the turn given back, or in a job process once a text costs more than the limit; built-ins as before (issue 33,
item 1(b)).

The crafted file is tests/engine/formats/crafted_slow_files.py's Unigram tokenizer.json with every run of "a"
up to 256 characters (it loads: the costliest within the bounds).  A seam lowers the inline limit, so the
texts stay small; nothing here is timed: the tests look at where each call ran and under what limit.
"""
from __future__ import annotations

from collections import OrderedDict

import pytest

import engine
from engine import deadline
from engine.sources.uploads import load_files
from playground.cache import encodings
from playground.serving import job_tasks, jobs, script_gate, test_seams, user_work
from tests.engine.formats.crafted_slow_files import AT_THE_BOUNDS

LIMIT = 0.05  # seconds (the seam): the crafted file spends ~0.2 ms on each "a", so TEXT costs ~10 times this
ROOMY = 5.0  # seconds: a limit that a few milliseconds of work stays far below, however busy the machine
TEXT = "a" * 2_500


@pytest.fixture
def crafted():
    filename, build, _ = AT_THE_BOUNDS["hf_unigram_256_prefixes"]
    return load_files([(filename, build())])


@pytest.fixture(autouse=True)
def fresh(monkeypatch):
    monkeypatch.setattr(user_work, "INLINE_LIMIT", LIMIT)
    monkeypatch.setattr(user_work, "_costs", OrderedDict())
    monkeypatch.setattr(script_gate, "_turns", script_gate.Gate(2))
    monkeypatch.setattr(script_gate, "_user_work", script_gate.Gate(1))
    jobs.clear()
    yield
    jobs.clear()


@pytest.fixture
def inline_calls(monkeypatch):
    """What each in-process encode saw: (this run's turn held, the engine's limit set, a user-work place taken).
    A job process runs the real task (the fork server's copy of job_tasks), so only inline calls land here."""
    seen: list[tuple[bool, bool, bool]] = []
    real = job_tasks.TASKS["encode"]

    def spy(enc, text, policy):
        seen.append((script_gate.holding(), deadline.current() is not None, script_gate._user_work.free() == 0))
        return real(enc, text, policy)

    monkeypatch.setitem(job_tasks.TASKS, "encode", spy)
    return seen


def test_a_crafted_files_costly_text_is_stopped_inline_and_runs_in_a_job(crafted, inline_calls):
    """Before: encoded inline, holding the turn, with no limit (9 s for 12,000 "a" at these bounds)."""
    expected = crafted.encode(TEXT)
    crafted.clear_cache()  # the engine remembers pieces: the page's call must do the work
    started = test_seams.jobs_started
    with script_gate.turn():
        ids = encodings.encode("crafted", crafted, TEXT, "text")
        assert script_gate.holding()  # the turn is back once the call is done
    assert list(ids) == expected
    assert inline_calls == [(False, True, True)]  # tried inline once: turn given back, under the limit, one place
    assert test_seams.jobs_started == started + 1  # stopped there, then run in a job
    assert user_work.cost_per_char("crafted") * len(TEXT) > LIMIT  # the stop was learnt
    other = TEXT[:-1] + "b"
    with script_gate.turn():  # another text as costly: straight to a job, not tried inline again
        ids = encodings.encode("crafted", crafted, other, "text")
    assert list(ids) == crafted.encode(other)
    assert len(inline_calls) == 1 and test_seams.jobs_started == started + 2


def test_a_short_text_of_the_crafted_file_still_runs_inline_under_the_limit(crafted, inline_calls, monkeypatch):
    monkeypatch.setattr(user_work, "INLINE_LIMIT", ROOMY)
    started = test_seams.jobs_started
    with script_gate.turn():
        assert list(encodings.encode("crafted", crafted, "a" * 20, "text")) == crafted.encode("a" * 20)
    assert inline_calls == [(False, True, True)] and test_seams.jobs_started == started


def test_a_builtin_runs_inline_with_its_turn_and_no_limit(inline_calls):
    enc = engine.get_encoding("gpt2")
    started = test_seams.jobs_started
    with script_gate.turn():
        assert list(encodings.encode("gpt2", enc, TEXT, "text")) == enc.encode(TEXT)
    assert inline_calls == [(True, False, False)] and test_seams.jobs_started == started
    assert not user_work.is_own(enc)


def test_a_real_upload_keeps_the_inline_path(inline_calls, monkeypatch):
    """A trained tokenizer (a session's own, like an upload) on an ordinary text: inline, under the limit,
    turn given back; no job."""
    monkeypatch.setattr(user_work, "INLINE_LIMIT", ROOMY)
    text = "Tokenizers cut text into pieces, then merge the pieces. " * 20
    trained = engine.train_bpe(text, 300)
    started = test_seams.jobs_started
    with script_gate.turn():
        assert list(encodings.encode("trained", trained, text, "text")) == trained.encode(text)
    assert inline_calls == [(False, True, True)] and test_seams.jobs_started == started
    assert user_work.cost_per_char("trained") * len(text) <= ROOMY


def test_tokenize_text_of_a_crafted_file_gives_the_engines_records_from_its_job(crafted):
    """The token records travel back from the job as the engine made them (the drawing needs their offsets)."""
    direct = engine.explain.families.tokenize_text(crafted, TEXT, disallowed_special=())
    crafted.clear_cache()
    started = test_seams.jobs_started
    found = encodings.tokenize_text("crafted", crafted, TEXT, "text")
    assert found.tokens == direct.tokens and found.pieces == direct.pieces
    assert test_seams.jobs_started == started + 1


def test_a_job_past_its_time_limit_is_a_remembered_failure(crafted, monkeypatch):
    """The job has its own limit (JOB_TIMEOUT), is stopped there, and the rerun does not pay it again."""
    monkeypatch.setattr(encodings, "JOB_TIMEOUT", 1.0)
    long = "a" * 40_000  # ~8 s of work
    with pytest.raises(jobs.JobError, match="took longer than 1 s and was stopped"):
        encodings.encode("crafted", crafted, long, "text")
    started = test_seams.jobs_started
    with pytest.raises(jobs.JobError):
        encodings.encode("crafted", crafted, long, "text")
    assert test_seams.jobs_started == started
