"""engine.formats.gc_paused: the collector is off while a big file is parsed, and back on afterwards
(nested pauses, a pause that raises, and a collector the caller had switched off themselves)."""
from __future__ import annotations

import gc
import json

import pytest

from engine.formats import json_limits
from engine.formats.gc_paused import gc_paused


def test_nested_pauses_restore_the_collector():
    assert gc.isenabled()
    with gc_paused():
        with gc_paused():
            assert not gc.isenabled()
        assert not gc.isenabled()
    assert gc.isenabled()
    with pytest.raises(RuntimeError):
        with gc_paused():
            raise RuntimeError("boom")
    assert gc.isenabled()


def test_a_collector_switched_off_by_the_caller_stays_off():
    gc.disable()
    try:
        with gc_paused():
            pass
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_json_is_parsed_with_the_collector_paused(monkeypatch):
    seen = []
    real = json.loads

    def loads(data):
        seen.append(gc.isenabled())
        return real(data)

    monkeypatch.setattr(json_limits.json, "loads", loads)
    assert json_limits.load_json_bounded(b'{"a": [1, 2]}', name="x") == {"a": [1, 2]}
    assert seen == [False] and gc.isenabled()
    with pytest.raises(ValueError, match="not valid JSON"):
        json_limits.load_json_bounded(b'{"a": [1, 2}', name="x")
    assert gc.isenabled()
