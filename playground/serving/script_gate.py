"""Turns for script runs: at most MAX_RUNNING runs of this server's script execute at once.

Every session's script runs in its own thread, and one process's threads share one GIL, which
switches between them every few milliseconds.  When many users click at the same moment, every
run then takes as long as all of them together: 16 users opening Compare at once each wait for all
16.  Taking turns, the first runs finish first and the server's event loop, which sends every answer,
has fewer threads to compete with (bench/bench_load.py measures both; the README gives the figures).

A run that waits for something outside this process (a job: training, a big encode, a vocabulary
scan in a worker process) gives its turn back meanwhile (`released`), so two users training never
hold up everyone else.  A turn not granted within MAX_WAIT seconds is taken anyway: a run is late,
never stuck.  Fragment reruns (a control that redraws only its part) do not take turns.

A user's own tokenizer -- an uploaded file, a training, a typed split pattern -- may run long on a
text: a split pattern may backtrack until its time limit stops it, a crafted file may make every
character cost hundreds of steps until the engine's time limit stops it
(`playground.serving.user_work`).  `user_work` runs such a call off the turns, and at most
MAX_USER_WORK of them at once server-wide: the `regex` module lets go of the GIL while it
matches, so each one running burns a whole core, and a pure-Python loop holds the GIL against
every other run; two tabs of one attacker would take both (bench/bench_hostile_regex.py and
bench/bench_hostile_tabs.py measure another session's reruns meanwhile).
"""
from __future__ import annotations

import logging
import threading
import time
from collections import deque
from contextlib import contextmanager
from typing import Iterator

MAX_RUNNING = 2  # more would not help: the runs share one GIL; two overlap one's waits with the other's work
MAX_WAIT = 20.0  # seconds
MAX_USER_WORK = 1  # calls on users' own tokenizers running inline at once, server-wide (each may burn a core)
SEND_PAUSE = 0.1  # seconds a run pauses so that what it drew so far is sent (`send_drawn`): a dozen messages

_log = logging.getLogger(__name__)


class Gate:
    """`size` turns handed out strictly in order of asking, runs coming back from a job first.

    A semaphore would do the counting, but not the order: a thread that arrives just as a turn
    is given back can take it before threads that have waited for seconds, and a run that gave
    its turn back for a job would queue behind every run that arrived meanwhile, so a training
    that has already waited its turn once would wait again to draw its result (bench/bench_load.py
    times training among many users).
    """

    def __init__(self, size: int) -> None:
        self._lock = threading.Lock()
        self._free = size
        self._size = size
        self._returning: deque[threading.Event] = deque()  # runs back from a job
        self._waiting: deque[threading.Event] = deque()  # everyone else, in arrival order

    def acquire(self, timeout: float, *, returning: bool = False) -> bool:
        """Take a turn; False if none came within `timeout` seconds (the caller goes ahead anyway)."""
        with self._lock:
            ahead = self._returning if returning else (self._returning or self._waiting)
            if self._free and not ahead:
                self._free -= 1
                return True
            granted = threading.Event()
            (self._returning if returning else self._waiting).append(granted)
        if granted.wait(timeout):
            return True
        with self._lock:
            if granted.is_set():  # handed over between the time-out and this lock
                return True
            (self._returning if returning else self._waiting).remove(granted)
            return False

    def release(self) -> None:
        """Give a turn back: straight to the next in line, if any."""
        with self._lock:
            for line in (self._returning, self._waiting):
                if line:
                    line.popleft().set()
                    return
            if self._free >= self._size:
                raise ValueError("a turn was given back that was never taken")
            self._free += 1

    def free(self) -> int:
        """Turns nobody holds (for tests)."""
        return self._free


_turns = Gate(MAX_RUNNING)
_held = threading.local()


def _take(*, returning: bool = False) -> None:
    _held.turn = _turns.acquire(MAX_WAIT, returning=returning)
    if not _held.turn:
        _log.warning("script run went ahead without a turn after %.0f s", MAX_WAIT)


def _give() -> None:
    if getattr(_held, "turn", False):
        _held.turn = False
        _turns.release()


@contextmanager
def turn() -> Iterator[None]:
    """Run the body in its turn (app.py wraps the whole page in it)."""
    if getattr(_held, "turn", False):  # already inside a turn (a nested call): nothing to take
        yield
        return
    _take()
    try:
        yield
    finally:
        _give()


@contextmanager
def released() -> Iterator[None]:
    """Let other runs go while the body waits for work outside this process; take a turn again
    after, ahead of runs that have not had one yet."""
    had = getattr(_held, "turn", False)
    if had:
        _give()
    try:
        yield
    finally:
        if had:
            _take(returning=True)


_user_work = Gate(MAX_USER_WORK)


@contextmanager
def user_work() -> Iterator[None]:
    """Run a call on a user's own tokenizer: with this run's turn given back (`released`), and in one of
    MAX_USER_WORK places shared by the server (taken anyway after MAX_WAIT seconds, like a turn)."""
    with released():
        got = _user_work.acquire(MAX_WAIT)
        if not got:
            _log.warning("a call on a user's tokenizer went ahead without a place after %.0f s", MAX_WAIT)
        try:
            yield
        finally:
            if got:
                _user_work.release()


def holding() -> bool:
    """Whether this thread holds a turn (for tests)."""
    return bool(getattr(_held, "turn", False))


def send_drawn() -> None:
    """Let the server send what this run has drawn so far, before slow work (a vocabulary to load) follows.

    The event loop that sends every message to the browser shares the GIL with the running script.  A
    thread that computes hands the GIL over only every few milliseconds (``sys.getswitchinterval``), and
    each step of the loop (a wake-up, a socket write) gives it back and waits again: while a run computes
    for a second, what it drew before reaches the browser at the run's end.  (On a fresh server the first
    merge tree was drawn, then sent only after two more vocabularies and pandas had loaded.)  A pause gives
    the loop the interpreter to send it all; a view calls this only when slow work follows.
    """
    time.sleep(SEND_PAUSE)
