"""Shared by every AppTest here.

Every `AppTest` runs with one session id ("test session id", streamlit.testing's LocalScriptRunner), so a
session-scoped resource - this session's own tokenizers - outlives the test that made it and shows up in the
next test of the same worker (a Train test once listed two tokenizers that other tests trained).  Each test
starts and ends with an empty store.  The job workers are server-wide too: a job an AppTest left running (its run
ended at the test's timeout, its script thread still waiting) would hold one of the two for up to its limit, and a
later test's job would wait for it (a split pattern's 10 s limit once showed as the job's 180 s one)."""
import os
import signal

import pytest

from playground.cache import uploads
from playground.serving import jobs


@pytest.fixture(autouse=True)
def fresh_store():
    """An empty store of the default budget (the store is server-wide), and no session parked for a
    reconnect (nor a pending check of them)."""
    def empty() -> None:
        uploads.STORE.release_all()
        with uploads._park_lock:
            uploads._parked.clear()
            if uploads._reap_timer is not None:
                uploads._reap_timer.cancel()
                uploads._reap_timer = None

    empty()
    yield
    empty()


@pytest.fixture(autouse=True)
def no_job_left_running():
    """Jobs a test left running are stopped when it ends (their waiting script threads then free the workers)."""
    yield
    for pid in jobs.running():
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
