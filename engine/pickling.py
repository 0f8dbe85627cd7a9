"""Pickling by name, for every family.

A built-in (the object `engine.get_encoding(name)` returns) pickles as its name, so a copy in
another process is that process's own built-in, and a copy in this process is the same object
(tiktoken does the same).  Any other instance (an upload, a trained encoding) pickles its data.

The registry builds the families' encodings, so it imports them, and their pickling needs the
registry back.  Rather than import it late (a circle), this module holds the registry's two
answers, which `engine.sources.registry` hands over when it is imported (`set_registry`).  Until
then no built-in exists, so every encoding pickles by its data -- the right answer.
"""
from __future__ import annotations

import threading
from typing import Any, Callable

__all__ = ["reduce_by_name", "set_registry", "PicklableByName"]

_is_registered: Callable[[Any], bool] = lambda enc: False  # noqa: E731  (no registry yet: no built-in)
_get_encoding: Callable[[str], Any] | None = None


def set_registry(is_registered: Callable[[Any], bool], get_encoding: Callable[[str], Any]) -> None:
    """Called once by the registry: how to tell a built-in, and how to get it back by name."""
    global _is_registered, _get_encoding
    _is_registered, _get_encoding = is_registered, get_encoding


def reduce_by_name(enc: Any) -> tuple | None:
    """``(get_encoding, (name,))`` when `enc` is the registered built-in of its name, else None."""
    if _get_encoding is not None and _is_registered(enc):
        return (_get_encoding, (enc.name,))
    return None


class PicklableByName:
    """Mixin for a family's encoding: by name for registered built-ins, state without the lock otherwise.

    Caches travel as they are (bounded, plain data); `__setstate__` makes a new lock.
    """

    def __reduce_ex__(self, protocol: Any) -> Any:
        return reduce_by_name(self) or super().__reduce_ex__(protocol)

    def __getstate__(self) -> dict[str, Any]:
        state = dict(self.__dict__)
        state.pop("_lock", None)
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._lock = threading.Lock()
