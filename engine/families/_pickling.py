"""Pickling for the families' encodings that are not `engine.core.Encoding` subclasses.

A built-in (the object `engine.get_encoding(name)` returns) pickles as its name, so a copy in
another process is that process's own built-in, as for `Encoding`.  Any other instance (an
upload) pickles its attributes without its lock, which `__setstate__` makes anew; caches travel
as they are (bounded, plain data).
"""
from __future__ import annotations

import threading
from typing import Any


class PicklableByName:
    """Mixin: `__reduce_ex__` by name for registered built-ins, state without the lock otherwise."""

    def __reduce_ex__(self, protocol: Any) -> Any:
        from .. import registry  # late: the registry imports the families

        if registry.is_registered(self):  # type: ignore[arg-type]
            return (registry.get_encoding, (self.name,))  # type: ignore[attr-defined]
        return super().__reduce_ex__(protocol)

    def __getstate__(self) -> dict[str, Any]:
        state = dict(self.__dict__)
        state.pop("_lock", None)
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._lock = threading.Lock()
