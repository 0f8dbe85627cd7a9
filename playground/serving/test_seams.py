"""The hooks tests use to watch or steer the serving machinery, in one place; production code only feeds them.

Nothing here changes what a user sees.  Each hook is a plain module attribute, so a test reads it
or replaces it with ``monkeypatch.setattr(test_seams, ...)``:

* `jobs_started`: job processes started since the server began (`playground.serving.jobs` adds one
  per start): a test tells a cached result or a remembered failure from a new job by it;
* `uploads_given_back`: memory give-backs run after sessions released their tokenizers
  (`playground.cache.uploads`): a test waits for the one its session's end caused;
* `clock`: the clock a training job's progress batching reads (`playground.serving.job_tasks.train`):
  a test makes each merge take a fixed time;
* `TASKS`: job tasks only tests run, looked up after `job_tasks.TASKS`; `preloaded` reports what a
  job process found when it started (the fork server's preload at work).

This module imports nothing of the playground (a job process imports it with `job_tasks`), and
nothing of Streamlit.
"""
from __future__ import annotations

import os
import time
from typing import Any, Callable

jobs_started = 0
uploads_given_back = 0
clock: Callable[[], float] = time.perf_counter


def job_started() -> None:
    global jobs_started
    jobs_started += 1


def uploads_gave_back() -> None:
    global uploads_given_back
    uploads_given_back += 1


def preloaded() -> dict[str, Any]:
    """What this job process found when it started: the built-in encodings loaded (the fork server's
    preload worked if `job_tasks.PRELOAD`'s are all there), whether Streamlit or a ``__main__`` re-run was
    pulled in (neither should be: a job needs only the engine), its niceness and the objects frozen
    out of the garbage collector's walk."""
    import gc
    import sys

    from engine.sources import registry

    return {"encodings": sorted(registry._ENCODINGS), "streamlit": "streamlit" in sys.modules,
            "main_rerun": getattr(sys.modules.get("__main__"), "__name__", "") == "__mp_main__",
            "nice": os.nice(0), "frozen": gc.get_freeze_count()}


TASKS: dict[str, Callable] = {"preloaded": preloaded}
