"""A server-wide, bounded, expiring memo for frozen results: `st.cache_resource` without its per-call cost.

Streamlit's cache decorators look up the wrapped function's signature with
`inspect.signature` and hash every argument on *every call*, hit or miss.  The
token views make a dozen such calls per script run (ids, tokens, the drawing,
the compare rows, the encoding itself), so with many users at once that
bookkeeping becomes a visible share of the server's time under the GIL.

`shared` keeps what `st.cache_resource` gave these callers and nothing more:

* one store per function, shared by every session, for values no caller
  mutates (tuples, frozen dataclasses, strings, encodings);
* parameters whose name starts with ``_`` are left out of the key, as in
  Streamlit (an engine object, a text already named by its digest), so keys
  are small tuples of names, digests, flags and numbers;
* bounded: at most `max_entries` and at most `max_bytes` (each value weighed
  once, by `approx_bytes`, when stored; a value past the bound alone is not
  kept), least recently used dropped first, and an entry older than `ttl`
  seconds is computed again (an idle server gives the memory back on the next
  call).  Counts alone do not bound memory: 16 entries of token records for
  100,000 characters each are hundreds of MB;
* one key scheme: a key is (encoding name, digest of the text, options...), the text named
  by `text_key` (the one hashing function of the playground's caches, also behind the jobs'
  memory of failures);
* `forget(names)` drops every entry of a released tokenizer (keys begin with
  the encoding's name) from every store;
* thread-safe: the store's lock is held only to read or write it.  Two runs
  that miss the same key at once may both compute it; the later result wins.
  That is the price of never making one session wait on another's work.

Hand-written rather than a library: `functools.lru_cache` has no expiry and no
way to leave an argument out of the key, and cachetools (which has both) is not
among the runtime requirements for the sake of forty lines.
"""
from __future__ import annotations

import functools
import hashlib
import inspect
import sys
import threading
import time
from collections import OrderedDict
from typing import Any, Callable, Hashable, Iterable, TypeVar

F = TypeVar("F", bound=Callable[..., Any])


@functools.lru_cache(maxsize=8)
def text_key(text: str) -> str:
    """A digest of `text`, computed once per text object: a key names a text by it (Streamlit's own caches
    would hash megabytes on every call)."""
    return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).hexdigest()


DEFAULT_MAX_BYTES = 100_000_000  # per shared function
SAMPLE = 16  # items of a long sequence weighed to estimate the rest


def approx_bytes(value: Any, _depth: int = 0) -> int:
    """The memory `value` holds, estimated: exact for flat values, a sample of SAMPLE items for a long
    tuple/list/dict, fields of dataclasses and slotted objects; shared objects are counted each time."""
    size = sys.getsizeof(value)
    if _depth > 4 or isinstance(value, (str, bytes, int, float, bool, type(None))):
        return size
    if isinstance(value, dict):
        items = list(value.items())
        value = [v for kv in items for v in kv]
    if isinstance(value, (tuple, list, set, frozenset)):
        items = list(value) if not isinstance(value, (tuple, list)) else value
        if not items:
            return size
        sample = items[:: max(1, len(items) // SAMPLE)]
        return size + len(items) * sum(approx_bytes(v, _depth + 1) for v in sample) // len(sample)
    fields = getattr(value, "__dict__", None)
    if fields is not None:
        return size + approx_bytes(fields, _depth + 1)
    slots = [n for cls in type(value).__mro__ for n in getattr(cls, "__slots__", ())]
    return size + sum(approx_bytes(getattr(value, n, None), _depth + 1) for n in slots)


class Memo:
    """The store behind one `shared` function."""

    def __init__(self, max_entries: int, ttl: float | None, max_bytes: int | None = None) -> None:
        if max_entries < 1:
            raise ValueError(f"max_entries must be at least 1, not {max_entries}")
        self.max_entries = max_entries
        self.ttl = ttl
        self.max_bytes = max_bytes
        self.bytes = 0  # the weights of the values kept
        self._lock = threading.Lock()
        self._store: OrderedDict[Hashable, tuple[float, Any, int]] = OrderedDict()
        _ALL.append(self)

    def get(self, key: Hashable) -> tuple[bool, Any]:
        with self._lock:
            found = self._store.get(key)
            if found is None:
                return False, None
            stamp, value, weight = found
            if self.ttl is not None and time.monotonic() - stamp > self.ttl:
                del self._store[key]
                self.bytes -= weight
                return False, None
            self._store.move_to_end(key)
            return True, value

    def put(self, key: Hashable, value: Any) -> None:
        weight = approx_bytes(value) if self.max_bytes is not None else 0
        with self._lock:
            old = self._store.pop(key, None)
            if old is not None:
                self.bytes -= old[2]
            if self.max_bytes is not None and weight > self.max_bytes:
                return  # alone past the bound: computed again when asked
            self._store[key] = (time.monotonic(), value, weight)
            self.bytes += weight
            while len(self._store) > self.max_entries or (self.max_bytes is not None and self.bytes > self.max_bytes):
                _, (_, _, dropped) = self._store.popitem(last=False)
                self.bytes -= dropped

    def forget(self, names: set[str]) -> None:
        """Drop the entries whose key begins with one of `names`."""
        with self._lock:
            for key in [k for k in self._store if isinstance(k, tuple) and k and k[0] in names]:
                self.bytes -= self._store.pop(key)[2]

    def clear(self) -> None:
        with self._lock:
            self._store.clear()
            self.bytes = 0

    def __len__(self) -> int:
        return len(self._store)


_ALL: list[Memo] = []  # every store, for `forget`


def forget(names: Iterable[str]) -> None:
    """Drop every cached result of the encodings called `names` (a session released them)."""
    names = set(names)
    if names:
        for store in list(_ALL):
            store.forget(names)


def shared(max_entries: int, ttl: float | None = None, max_bytes: int | None = DEFAULT_MAX_BYTES) -> Callable[[F], F]:
    """Decorate a function whose result depends only on its arguments not starting with ``_``."""

    def decorate(fn: F) -> F:
        params = list(inspect.signature(fn).parameters.values())
        if any(p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD) for p in params):
            raise TypeError(f"{fn.__qualname__}: shared() needs named parameters only")
        names = [p.name for p in params]
        keyed = tuple(i for i, name in enumerate(names) if not name.startswith("_"))
        defaults = {p.name: p.default for p in params if p.default is not p.empty}
        memo = Memo(max_entries, ttl, max_bytes)

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
