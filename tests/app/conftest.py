"""Shared by every AppTest here.

Every `AppTest` runs with one session id ("test session id", streamlit.testing's LocalScriptRunner), so a
session-scoped resource - this session's own tokenizers - outlives the test that made it and shows up in the
next test of the same worker (a Train test once listed two tokenizers that other tests trained).  Each test
starts and ends with an empty store."""
import pytest

from playground.cache import uploads


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
