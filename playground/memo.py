"""A server-wide, bounded, expiring memo for frozen results: `st.cache_resource` without its per-call cost.

Streamlit's cache decorators look up the wrapped function's signature with
`inspect.signature` and hash every argument on *every call*, hit or miss.  The
token views make a dozen such calls per script run (ids, tokens, the drawing,
the compare rows, the encoding itself); with 16 users at once on 2 cores,
py-spy (GIL samples) put 11% of the server's time in that bookkeeping --
`inspect.Signature.__init__` alone was its most sampled function.

`shared` keeps what `st.cache_resource` gave these callers and nothing more:

* one store per function, shared by every session, for values no caller
  mutates (tuples, frozen dataclasses, strings, encodings);
* parameters whose name starts with ``_`` are left out of the key, as in
  Streamlit (an engine object, a text already named by its digest), so keys
  are small tuples of names, digests, flags and numbers;
* bounded: at most `max_entries`, least recently used dropped first, and an
  entry older than `ttl` seconds is computed again (an idle server gives the
  memory back on the next call);
* thread-safe: the store's lock is held only to read or write it.  Two runs
  that miss the same key at once may both compute it; the later result wins.
  That is the price of never making one session wait on another's work.

Hand-written rather than a library: `functools.lru_cache` has no expiry and no
way to leave an argument out of the key, and cachetools (which has both) is not
among the runtime requirements for the sake of forty lines.
"""
from __future__ import annotations

import functools
import inspect
import threading
import time
from collections import OrderedDict
from typing import Any, Callable, Hashable, TypeVar

F = TypeVar("F", bound=Callable[..., Any])


class Memo:
    """The store behind one `shared` function."""

    def __init__(self, max_entries: int, ttl: float | None) -> None:
        if max_entries < 1:
            raise ValueError(f"max_entries must be at least 1, not {max_entries}")
        self.max_entries = max_entries
        self.ttl = ttl
        self._lock = threading.Lock()
        self._store: OrderedDict[Hashable, tuple[float, Any]] = OrderedDict()

    def get(self, key: Hashable) -> tuple[bool, Any]:
        with self._lock:
            found = self._store.get(key)
            if found is None:
                return False, None
            stamp, value = found
            if self.ttl is not None and time.monotonic() - stamp > self.ttl:
                del self._store[key]
                return False, None
            self._store.move_to_end(key)
            return True, value

    def put(self, key: Hashable, value: Any) -> None:
        with self._lock:
            self._store[key] = (time.monotonic(), value)
            self._store.move_to_end(key)
            while len(self._store) > self.max_entries:
                self._store.popitem(last=False)

    def clear(self) -> None:
        with self._lock:
            self._store.clear()

    def __len__(self) -> int:
        return len(self._store)


def shared(max_entries: int, ttl: float | None = None) -> Callable[[F], F]:
    """Decorate a function whose result depends only on its arguments not starting with ``_``."""

    def decorate(fn: F) -> F:
        params = list(inspect.signature(fn).parameters.values())
        if any(p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD) for p in params):
            raise TypeError(f"{fn.__qualname__}: shared() needs named parameters only")
        names = [p.name for p in params]
        keyed = tuple(i for i, name in enumerate(names) if not name.startswith("_"))
        defaults = {p.name: p.default for p in params if p.default is not p.empty}
        memo = Memo(max_entries, ttl)

        @functools.wraps(fn)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            if kwargs or len(args) != len(names):  # rare: bind by name (defaults, keywords)
                bound = {**defaults, **dict(zip(names, args)), **kwargs}
                args = tuple(bound[name] for name in names)
            key = tuple(args[i] for i in keyed)
            found, value = memo.get(key)
            if found:
                return value
            value = fn(*args)
            memo.put(key, value)
            return value

        wrapper.clear = memo.clear  # type: ignore[attr-defined]
        wrapper.memo = memo  # type: ignore[attr-defined]
        return wrapper  # type: ignore[return-value]

    return decorate
