"""playground.cache.memo.shared: keyed without ``_`` parameters, bounded, expiring, thread-safe."""
from __future__ import annotations

import threading

import pytest

from playground.cache import memo


def counting(max_entries=4, ttl=None):
    calls = []

    @memo.shared(max_entries=max_entries, ttl=ttl)
    def f(name: str, _blob: object, flag: bool = False) -> tuple:
        calls.append((name, flag))
        return (name, flag, id(_blob))

    return f, calls


def test_underscore_parameters_are_not_in_the_key():
    f, calls = counting()
    first = f("a", object())
    assert f("a", object()) is first  # another `_blob`, same key: the stored value
    assert calls == [("a", False)]
    f("b", None)
    assert calls == [("a", False), ("b", False)]


def test_keywords_and_defaults_make_the_same_key():
    f, calls = counting()
    one = f("a", None)
    assert f("a", None, False) is one
    assert f("a", _blob=None, flag=False) is one
    assert f(name="a", _blob=None) is one
    assert len(calls) == 1
    f("a", None, True)
    assert len(calls) == 2


def test_least_recently_used_entry_goes_first():
    f, calls = counting(max_entries=2)
    f("a", None)
    f("b", None)
    f("a", None)  # "a" is now the most recent
    f("c", None)  # drops "b"
    assert len(f.memo) == 2
    f("a", None)
    assert calls.count(("a", False)) == 1
    f("b", None)
    assert calls.count(("b", False)) == 2


def test_entries_expire(monkeypatch):
    now = [1000.0]
    monkeypatch.setattr(memo.time, "monotonic", lambda: now[0])
    f, calls = counting(ttl=10)
    f("a", None)
    now[0] += 9
    f("a", None)
    assert len(calls) == 1
    now[0] += 2  # 11 s after it was stored
    f("a", None)
    assert len(calls) == 2


def test_errors_are_not_stored():
    calls = []

    @memo.shared(max_entries=4)
    def g(x: int) -> int:
        calls.append(x)
        raise ValueError("no")

    for _ in range(2):
        with pytest.raises(ValueError):
            g(1)
    assert calls == [1, 1]
    assert len(g.memo) == 0


def test_clear_and_bad_bounds():
    f, calls = counting()
    f("a", None)
    f.clear()
    f("a", None)
    assert len(calls) == 2
    with pytest.raises(ValueError, match="max_entries"):
        memo.shared(max_entries=0)(lambda x: x)
    with pytest.raises(TypeError, match="named parameters"):
        memo.shared(max_entries=1)(lambda *xs: xs)


def test_many_threads_stay_within_the_bound():
    f, calls = counting(max_entries=8)
    errors = []

    def work(k: int) -> None:
        try:
            for i in range(300):
                assert f(str((i * 7 + k) % 20), None)[0] == str((i * 7 + k) % 20)
        except Exception as error:  # noqa: BLE001 - reported below
            errors.append(error)

    threads = [threading.Thread(target=work, args=(k,)) for k in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert len(f.memo) <= 8
