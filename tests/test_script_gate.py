"""playground/script_gate.py: script runs take turns, give them back while a job runs, never get stuck."""
from __future__ import annotations

import threading
import time

import pytest

from playground import jobs, script_gate


@pytest.fixture
def gate(monkeypatch):
    """A fresh gate of two turns, with a short wait limit."""
    monkeypatch.setattr(script_gate, "_turns", threading.BoundedSemaphore(2))
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
    assert gate._turns.acquire(blocking=False) and gate._turns.acquire(blocking=False)  # both turns came back


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
    assert gate._turns.acquire(blocking=False) and gate._turns.acquire(blocking=False)


def test_a_lost_turn_delays_but_never_blocks(gate, monkeypatch):
    monkeypatch.setattr(gate, "MAX_WAIT", 0.2)
    gate._turns.acquire()
    gate._turns.acquire()  # two turns never given back (a bug elsewhere)
    t = time.monotonic()
    with gate.turn():
        assert not gate.holding()  # went ahead without one
    assert 0.15 < time.monotonic() - t < 3


def test_jobs_run_outside_the_turn(gate, monkeypatch):
    """jobs.run gives the turn back while its worker process runs."""
    seen = []
    monkeypatch.setattr(jobs, "_run", lambda *a, **k: seen.append(gate.holding()) or "ok")
    with gate.turn():
        assert jobs.run("preloaded", (), label="check", timeout=5) == "ok"
        assert gate.holding()
    assert seen == [False]
