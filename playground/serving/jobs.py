"""Heavy work in child processes: one user's big job never holds the server's GIL or memory.

Streamlit runs every session's script in a thread of one Python process, so
a 2 MB training run or a catastrophic regex run inline in one session would slow
every other session's clicks (one GIL), and the memory it touched would stay with
the server.  Here a job above a size threshold runs in a short-lived child
process, forked from a `multiprocessing` fork server that has the engine and
the built-in vocabularies loaded (`playground.serving.job_preload`):

* **bounded**: at most `MAX_WORKERS` jobs run at once across all sessions;
  others wait for a slot with a visible message;
* **one per session, cancelled on rerun or exit**: the session's script thread
  waits in a loop that redraws a status line every `POLL` seconds; each redraw
  lets Streamlit stop the run (a new input, a closed tab), and the ``finally``
  kills the child;
* **progress and a time limit**: the child sends progress messages (training),
  and is killed past its limit;
* **failures remembered**: a job that failed or timed out is not run again for
  the same input (`_FAILED`), so a rerun does not pay the cost twice;
* **the engine's errors as themselves**: an engine exception raised in the job is raised here as
  its own class with its message and fields, never as a class name;
* **results cached**: finished results are kept in a bounded LRU (`_RESULTS`,
  by a weight budget and by their estimated bytes), keyed by the caller's key, which always names the
  encoding and a digest of the input -- a result is only ever found again by a
  session that sent the same input.

`multiprocessing` (standard library) is used rather than a third-party pool
because killing one specific job is the point: `ProcessPoolExecutor` cannot
cancel a running task.
"""
from __future__ import annotations

import multiprocessing as mp
import os
import threading
import time
from collections import OrderedDict
from pathlib import Path
from typing import Any, Callable, Hashable

import streamlit as st

from playground.cache import memo
from playground.render.markdown import md
from playground.serving import job_tasks, script_gate, test_seams
from playground.serving.job_process import JobProcess

APP_ROOT = str(Path(__file__).resolve().parents[2])  # the checkout: `playground` imports from here
MAX_WORKERS = 2  # job processes at once, server-wide (this machine has 2 cores)
POLL = 0.1  # seconds between status redraws (each one lets Streamlit cancel the run)
RESULT_BUDGET = 40_000_000  # total weight (≈ characters of input) of cached results
# ... and their memory (playground.cache.memo.approx_bytes): a 2 MB paste encodes to ~18 MB of ids per encoding,
# so the weight alone would keep 20 of them; this keeps one paste under five encodings.
RESULT_BYTES = 96_000_000
MAX_FAILED = 256

_SLOTS = threading.BoundedSemaphore(MAX_WORKERS)
_LOCK = threading.Lock()
_RESULTS: OrderedDict[Hashable, tuple[int, Any]] = OrderedDict()
_FAILED: OrderedDict[Hashable, Exception] = OrderedDict()
_weight = 0
_bytes = 0  # estimated bytes of the cached results
_context: Any = None
_running: dict[int, str] = {}  # pid -> task, jobs alive right now


class JobError(ValueError):
    """A job timed out, its process died, or its own call raised an error that is not the engine's;
    the message says which and what to do.  The engine's own errors are raised as their own class
    (`job_tasks.error_from_message`), so callers catch ``engine.DisallowedSpecialTokenError`` and the
    like whether the work ran here or in a job."""


class JobTimeLimitError(JobError):
    """A job ran past its time limit (wall time from its start) and was stopped."""


class ServerBusyError(JobError):
    """No worker was free in time; not remembered as a failure (the same input may run later)."""


def _ctx() -> Any:
    global _context
    with _LOCK:
        if _context is None:
            ctx = mp.get_context("forkserver")
            # The fork server imports its preload with the default sys.path (Python 3.11 ignores the
            # parent's) and drops an ImportError silently: started from another directory, every job
            # would import the engine and load its vocabulary itself. Its environment
            # is inherited, so PYTHONPATH names this checkout.
            paths = os.environ.get("PYTHONPATH", "").split(os.pathsep)
            if APP_ROOT not in paths:
                os.environ["PYTHONPATH"] = os.pathsep.join([APP_ROOT, *filter(None, paths)])
            ctx.set_forkserver_preload(["playground.serving.job_preload"])
            _context = ctx
    return _context


# -------------------------------------------------------------- memory of results
def raise_if_failed(key: Hashable) -> None:
    """Raise the remembered failure of `key` again, if there is one."""
    with _LOCK:
        if key in _FAILED:
            _FAILED.move_to_end(key)
            raise _FAILED[key]


def _cached(key: Hashable) -> tuple[bool, Any]:
    raise_if_failed(key)
    with _LOCK:
        if key in _RESULTS:
            _RESULTS.move_to_end(key)
            return True, _RESULTS[key][1]
    return False, None


def _remember(key: Hashable, weight: int, value: Any) -> None:
    global _weight, _bytes
    size = memo.approx_bytes(value)  # outside the lock: sampled, microseconds
    with _LOCK:
        if key in _RESULTS or size > RESULT_BYTES:  # a result past the whole budget is not kept
            return
        _RESULTS[key] = (weight, value, size)
        _weight += weight
        _bytes += size
        while (_weight > RESULT_BUDGET or _bytes > RESULT_BYTES) and len(_RESULTS) > 1:
            _, (w, _, b) = _RESULTS.popitem(last=False)
            _weight -= w
            _bytes -= b


def cached_bytes() -> int:
    """Estimated bytes of the cached results (tests, benches)."""
    return _bytes


def remember_failure(key: Hashable, error: Exception) -> None:
    with _LOCK:
        _FAILED[key] = error
        while len(_FAILED) > MAX_FAILED:
            _FAILED.popitem(last=False)


def running() -> dict[int, str]:
    """{pid: task} of the job processes alive now."""
    with _LOCK:
        return dict(_running)


def clear() -> None:
    """Forget every cached result and failure (tests)."""
    global _weight, _bytes
    with _LOCK:
        _RESULTS.clear()
        _FAILED.clear()
        _weight = _bytes = 0


# ------------------------------------------------------------------ running
def run(task: str, args: tuple, *, label: str, timeout: float,
        on_progress: Callable[[Any], None] | None = None) -> Any:
    """Run `task` (a name in `job_tasks.TASKS`) in a child process and wait, redrawing a status line.

    Raises the engine's own exception class when the task's engine call raised one, `JobError` on any
    other error of the task (its message kept), a time-out or a dead child.
    The script run gives its turn (playground/serving/script_gate.py) to other runs while it waits.
    """
    with script_gate.released():
        return _run(task, args, label=label, timeout=timeout, on_progress=on_progress)


def _run(task: str, args: tuple, *, label: str, timeout: float,
         on_progress: Callable[[Any], None] | None = None) -> Any:
    status = st.empty()
    start = time.monotonic()
    while not _SLOTS.acquire(timeout=POLL):
        waited = time.monotonic() - start
        if waited > timeout:
            status.empty()
            raise ServerBusyError(f"{label} waited {waited:.0f} s for a free worker: the server is busy. Try again in a minute.")
        status.caption(f"⏳ {md(label)}: waiting for a free worker ({waited:.0f} s)…")
    # The time limit is the job's own: a wait for a free worker (limited above, with its own message) must not
    # eat into it -- a job that waited 170 s for a slot was stopped after 10 s of work as "took longer than 180 s".
    start = time.monotonic()
    proc = parent = None
    try:
        parent, child = _ctx().Pipe(duplex=False)
        proc = JobProcess(target=job_tasks.main, args=(child, task, args), daemon=True)
        proc.start()
        child.close()
        with _LOCK:
            _running[proc.pid] = task
            test_seams.job_started()
        redrawn = 0.0
        while True:
            # The time limit and the status redraw (each redraw lets Streamlit stop this run) come
            # first: a job that reports progress non-stop must not escape either.
            now = time.monotonic()
            elapsed = now - start
            if elapsed > timeout:
                raise JobTimeLimitError(f"{label} took longer than {timeout:.0f} s and was stopped. Try a smaller input.")
            if now - redrawn >= POLL:
                status.caption(f"⏳ {md(label)}… {elapsed:.1f} s (stops after {timeout:.0f} s)")
                redrawn = now
            if parent.poll(POLL):
                try:
                    message = parent.recv()
                except EOFError:
                    raise JobError(f"{label} stopped without an answer (out of memory?). Try a smaller input.") from None
                if message[0] == "progress":
                    if on_progress is not None:
                        on_progress(message[1])
                    continue
                if message[0] == "done":
                    return message[1]
                _, module, kind, text, expected, fields = message
                raise job_tasks.error_from_message(module, kind, text, fields) or JobError(
                    text if expected else f"{kind}: {text}")
            if not proc.is_alive() and not parent.poll(0):
                raise JobError(f"{label} stopped unexpectedly (exit code {proc.exitcode}; out of memory?). "
                               "Try a smaller input.")
    finally:
        if proc is not None and proc.is_alive():
            proc.kill()
        if proc is not None:
            proc.join(timeout=2)
            with _LOCK:
                _running.pop(proc.pid, None)
        if parent is not None:
            parent.close()
        _SLOTS.release()
        status.empty()


def _is_engine_error(error: Exception) -> bool:
    module = type(error).__module__
    return module == "engine" or module.startswith("engine.")


def cached_run(key: Hashable, weight: int, task: str, args: tuple, *, label: str, timeout: float,
               on_progress: Callable[[Any], None] | None = None) -> Any:
    """`run`, unless `key` already has a result (returned) or a remembered failure (raised again)."""
    found, value = _cached(key)
    if found:
        return value
    try:
        value = run(task, args, label=label, timeout=timeout, on_progress=on_progress)
    except ServerBusyError:
        raise
    except Exception as error:
        if isinstance(error, JobError) or _is_engine_error(error):
            remember_failure(key, error)
        raise
    _remember(key, weight, value)
    return value
