"""Where an engine call on a session's own tokenizer runs: inline under a time limit, or in a job process.

A built-in encoding costs microseconds per character, whatever the text.  An uploaded file's cost per
character is the file's: within the load-time bounds (`engine.formats.limits`) a Unigram model holding
every run of ``a`` up to 256 characters spends about 0.75 ms on each ``a`` of a paste, 9 s for 12,000 of
them, and all that time the pure-Python loop holds the one GIL that every session's script shares: every
other user's keystroke waits (bench/bench_hostile_tabs.py).  A trained tokenizer's split pattern is the
user's too.  So each engine call on a session's own tokenizer (`is_own`: anything that is not a built-in)
goes through `run`, which sends it

* **inline** when its expected time fits in INLINE_LIMIT: with this run's turn given back and one such
  call at a time server-wide (`script_gate.user_work`), under the engine's own time limit
  (`engine.deadline.time_limit`: the family loops that a file can make long check it, and stop with
  `engine.errors.TimeLimitError`);
* **to a job process** otherwise, and when the inline call hit the limit (`playground.serving.jobs`): at a
  lower CPU priority than the server (job_preload's niceness), limited in time, and killed when the
  session's run stops -- a new keystroke, a closed tab.  The tokenizer travels as its pickle, made once
  per tokenizer (`job`).

The expected time is the call's characters times the most a character has cost this tokenizer so far
(`cost_per_char`): measured on every inline call that took MIN_TIMED or more (shorter ones are mostly
fixed costs), and, for a call the limit stopped, at least the limit over its characters.  A fresh upload
is tried inline; a crafted one is stopped once or twice, after which its long texts go to jobs, while a
real one keeps the inline path for all but a big paste.  At most INLINE_LIMIT (plus the steps the engine
does not check, linear in the text) is spent in the server process on any one call.
"""
from __future__ import annotations

import pickle
import threading
import time
from collections import OrderedDict
from typing import Any

from engine.deadline import time_limit
from engine.errors import TimeLimitError
from engine.sources.registry import is_registered
from playground.cache import memo
from playground.serving import job_tasks, jobs, script_gate

INLINE_LIMIT = 0.25  # seconds an inline call may take; past it, the call runs again in a job
MIN_TIMED = 0.02  # seconds: a call shorter than this tells little about the cost per character
PICKLES_BYTES = 64_000_000  # own tokenizers kept pickled for their jobs (a 262,000-token tokenizer.json: 13 MB)
# Tokenizers whose cost per character is remembered (a few bytes each).  Kept after a session ends: a name
# holds one content while the server runs (playground.cache.uploads), and the cost is the content's.
MAX_REMEMBERED = 1_000

_lock = threading.Lock()
_costs: OrderedDict[str, float] = OrderedDict()  # encoding name -> seconds per character, the most seen


def is_own(enc: Any) -> bool:
    """True for a session's own tokenizer (uploaded, trained): whatever is not the built-in of its name."""
    return not is_registered(enc)


def cost_per_char(name: str) -> float:
    """The most a character has cost the tokenizer `name` so far (0.0 when nothing is known yet)."""
    with _lock:
        return _costs.get(name, 0.0)


def _learn(name: str, seconds_per_char: float) -> None:
    with _lock:
        if seconds_per_char > _costs.get(name, 0.0):
            _costs[name] = seconds_per_char
        if name in _costs:
            _costs.move_to_end(name)
        while len(_costs) > MAX_REMEMBERED:
            _costs.popitem(last=False)


def run(task: str, args: tuple, *, name: str, chars: int, label: str, timeout: float) -> Any:
    """``job_tasks.TASKS[task](*args)`` for the session's own tokenizer `name`, whose call covers `chars`
    characters: inline if it is expected to fit in INLINE_LIMIT and does, else in a job (see the module doc).

    Raises what the call raises (the engine's own errors as themselves, from a job too), `jobs.JobError`
    when the job ran past `timeout` seconds or died, `jobs.ServerBusyError` when no worker came free."""
    chars = max(chars, 1)
    if cost_per_char(name) * chars <= INLINE_LIMIT:
        with script_gate.user_work():
            start = time.thread_time()  # this thread's CPU: what the call cost, whatever else the server ran
            try:
                with time_limit(INLINE_LIMIT):
                    result = job_tasks.TASKS[task](*args)
            except TimeLimitError:
                # Stopped part of the way through: the text costs more than the limit.  Learnt as twice that,
                # so this text, and any half as long, goes to a job from now on without trying again.
                _learn(name, 2 * INLINE_LIMIT / chars)
            else:
                spent = time.thread_time() - start
                if spent >= MIN_TIMED:
                    _learn(name, spent / chars)
                return result
    return job(task, args, name=name, label=label, timeout=timeout)


def job(task: str, args: tuple, *, name: str, label: str, timeout: float) -> Any:
    """`jobs.run` of `task` whose first argument is the session's own tokenizer `name`, sent as its pickle made
    once (`_pickled`): pickling a 262,000-token tokenizer.json takes the server a second, every time."""
    return jobs.run(task, (job_tasks.Pickled(_pickled(name, args[0])), *args[1:]), label=label, timeout=timeout)


@memo.shared(max_entries=8, ttl=900, max_bytes=PICKLES_BYTES)
def _pickled(name: str, _enc: Any) -> bytes:
    return pickle.dumps(_enc, protocol=pickle.HIGHEST_PROTOCOL)

