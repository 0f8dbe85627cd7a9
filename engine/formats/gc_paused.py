"""`gc_paused()`: CPython's cyclic garbage collector held off while a big file is turned into Python objects.

The collector runs when new container objects (lists, dicts, tuples) outnumber freed ones by a threshold,
and every so often it walks *every* tracked object.  Parsing Gemma 3's tokenizer.json builds over half a
million lists (its merges), so the collector runs thousands of times during the parse and its full passes
walk the growing tree again and again: about a third of `json.loads`' time, for nothing -- a freshly
parsed tree holds no reference cycles to free.  Pausing it over the build and resuming after is what
`json.loads`-heavy loaders commonly do; anything cyclic made meanwhile is collected on the next run.

The collector's switch is one per process, so pauses are counted: the collector comes back when the
last pause (of any thread) ends, and only if it was on when the first began.
"""
from __future__ import annotations

import gc
import threading
from contextlib import contextmanager
from typing import Iterator

__all__ = ["gc_paused"]

_lock = threading.Lock()
_depth = 0
_was_enabled = False


@contextmanager
def gc_paused() -> Iterator[None]:
    """Hold off the cyclic collector for the duration of the block (nestable, from any thread)."""
    global _depth, _was_enabled
    with _lock:
        if _depth == 0:
            _was_enabled = gc.isenabled()
            gc.disable()
        _depth += 1
    try:
        yield
    finally:
        with _lock:
            _depth -= 1
            if _depth == 0 and _was_enabled:
                gc.enable()
