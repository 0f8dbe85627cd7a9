"""A time limit on one thread's engine work, checked by the loops whose cost a tokenizer file multiplies.

The load-time bounds (`engine.formats.limits.MAX_PIECE_CHARS`, a charsmap walk of at most 256 bytes,
WordPiece tokens and prefixes of bounded length) keep every encode linear in the text, but the factor
is the file's: a Unigram model holding every run of ``a`` up to 256 characters makes each character of
``aaaa...`` cost 256 lookups, about 0.75 ms, so 12,000 of them take 9 s.  A caller that runs such a file
for somebody else -- the playground's server, where every session shares one process -- sets a limit
around the call::

    with engine.deadline.time_limit(0.25):
        ids = enc.encode(text)          # engine.errors.TimeLimitError after about 0.25 s

Cooperative, like the `regex` module's timeout: no signal and no thread.  The loops that a file can
make long -- the charsmap scan, the Unigram lattices, WordPiece's greedy search, the BPE merge loops
over characters, the user-defined-symbol scan -- read the limit once (`current`) and check it as they
go (`Deadline.check`), so the limit is overrun by one step of one loop at most: microseconds to a
millisecond.  Per thread (`threading.local`): one session's limit never stops another's work.  With no
limit set (the default, and every library caller), a loop pays one ``is not None`` test per step.
"""
from __future__ import annotations

import threading
import time
from contextlib import contextmanager
from typing import Iterator

from .errors import TimeLimitError

__all__ = ["Deadline", "time_limit", "current"]

_local = threading.local()


class Deadline:
    """The moment (`time.monotonic`) past which this thread's engine work stops, and the limit it came from."""

    __slots__ = ("at", "seconds")

    def __init__(self, at: float, seconds: float) -> None:
        self.at = at
        self.seconds = seconds

    def check(self) -> None:
        """Raise `TimeLimitError` if the moment has passed."""
        if time.monotonic() > self.at:
            raise TimeLimitError(self.seconds)


def current() -> Deadline | None:
    """This thread's limit, or None: a loop reads it once, then calls ``check()`` on it as it goes."""
    return getattr(_local, "deadline", None)


@contextmanager
def time_limit(seconds: float) -> Iterator[Deadline]:
    """Stop this thread's engine work in the block after `seconds` (`TimeLimitError`); a limit already set
    and sooner stays (nested limits keep the earliest)."""
    outer = current()
    limit = Deadline(time.monotonic() + seconds, seconds)
    if outer is not None and outer.at <= limit.at:
        limit = outer
    _local.deadline = limit
    try:
        yield limit
    finally:
        _local.deadline = outer
