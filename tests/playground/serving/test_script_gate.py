"""playground/serving/script_gate.py: script runs take turns, give them back while a job runs, never get stuck."""
from __future__ import annotations

import threading
import time

import pytest

from playground.serving import jobs, script_gate


@pytest.fixture
def gate(monkeypatch):
    """A fresh gate of two turns, with a short wait limit."""
    monkeypatch.setattr(script_gate, "_turns", script_gate.Gate(2))
    monkeypatch.setattr(script_gate, "MAX_WAIT", 5.0)
    return script_gate


def test_at_most_two_runs_at_once(gate):
    running, most, lock = [0], [0], threading.Lock()

    def run():
        with gate.turn():
            with lock:
                running[0] += 1
                most[0] = max(most[0], running[0])
            time.sleep(0.05)
            with lock:
                running[0] -= 1

    threads = [threading.Thread(target=run) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=10)
    assert most[0] == 2 and running[0] == 0
    assert gate._turns.free() == 2  # both turns came back


def test_a_waiting_run_gives_its_turn_to_others(gate):
    b_in, b_done, c_in = threading.Event(), threading.Event(), threading.Event()

    def b():  # holds the second turn until told
        with gate.turn():
            b_in.set()
            b_done.wait(10)

    def c():  # wants a turn while both are taken
        with gate.turn():
            c_in.set()

    with gate.turn():
        tb = threading.Thread(target=b)
        tb.start()
        assert b_in.wait(5)
        tc = threading.Thread(target=c)
        tc.start()
        assert not c_in.wait(0.3)  # both turns taken: c waits
        with gate.released():  # e.g. jobs.run waiting for its worker process
            assert not gate.holding()
            assert c_in.wait(5)  # c went ahead meanwhile
            tc.join(5)
        assert gate.holding()  # a turn again, the one c gave back
    b_done.set()
    tb.join(5)
    assert gate._turns.free() == 2


def test_a_lost_turn_delays_but_never_blocks(gate, monkeypatch, caplog):
    monkeypatch.setattr(gate, "MAX_WAIT", 0.2)
    gate._turns.acquire(1)
    gate._turns.acquire(1)  # two turns never given back (a bug elsewhere)
    with caplog.at_level("WARNING"), gate.turn():
        assert not gate.holding()  # went ahead without one, after waiting MAX_WAIT for it:
    assert "went ahead without a turn after 0 s" in caplog.text


def test_jobs_run_outside_the_turn(gate, monkeypatch):
    """jobs.run gives the turn back while its worker process runs."""
    seen = []
    monkeypatch.setattr(jobs, "_run", lambda *a, **k: seen.append(gate.holding()) or "ok")
    with gate.turn():
        assert jobs.run("preloaded", (), label="check", timeout=5) == "ok"
        assert gate.holding()
    assert seen == [False]


def _queue_up(gate, labels, order, returning=False):
    """Start one thread per label that waits for a turn, records its label, gives the turn back;
    each is in line before the next starts."""
    threads = []
    for label in labels:
        def run(label=label):
            assert gate._turns.acquire(5, returning=returning)
            order.append(label)
            gate._turns.release()
        t = threading.Thread(target=run)
        before = len(gate._turns._returning) + len(gate._turns._waiting)
        t.start()
        deadline = time.monotonic() + 5
        while len(gate._turns._returning) + len(gate._turns._waiting) == before and time.monotonic() < deadline:
            time.sleep(0.005)
        threads.append(t)
    return threads


def test_turns_go_in_order_of_asking_and_runs_back_from_a_job_first(gate):
    order = []
    assert gate._turns.acquire(1) and gate._turns.acquire(1)  # both turns taken
    threads = _queue_up(gate, ["a", "b", "c"], order)
    threads += _queue_up(gate, ["job1", "job2"], order, returning=True)
    assert order == []
    gate._turns.release()
    for t in threads:
        t.join(5)
    assert order == ["job1", "job2", "a", "b", "c"]
    gate._turns.release()
    assert gate._turns.free() == 2


def test_a_newcomer_does_not_jump_the_line(gate):
    order = []
    assert gate._turns.acquire(1) and gate._turns.acquire(1)
    threads = _queue_up(gate, ["waited"], order)
    gate._turns.release()  # handed straight to "waited", not left free for a newcomer
    threads[0].join(5)
    assert order == ["waited"]
    assert gate._turns.free() == 1
    gate._turns.release()
    assert gate._turns.free() == 2


def test_a_timed_out_waiter_leaves_the_line(gate):
    assert gate._turns.acquire(1) and gate._turns.acquire(1)
    assert not gate._turns.acquire(0.05)
    assert not gate._turns._waiting  # not left behind to be handed a turn nobody takes
    gate._turns.release()
    gate._turns.release()
    assert gate._turns.free() == 2
    with pytest.raises(ValueError, match="never taken"):
        gate._turns.release()
