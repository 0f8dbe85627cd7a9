"""Once per server, after its first page: the default vocabularies load in the background, the modules
other pages need are imported, and what exists then is moved out of the garbage collector's walk; then,
unless ``BPE_WARM=defaults``, every other built-in loads too, one at a time.

Why every built-in: the Arena and the tokenizer picker's "all" put every vocabulary on one page, and a
fresh server spends seconds of CPU parsing them on that page's first visit (`bench/bench_arena.py`).
Loaded in the background a little after the first page, the first Arena finds them ready.  The cost is
memory held for the server's life (every built-in: under 1 GB, README "Speed"), which a small machine may
not want: ``BPE_WARM=defaults`` keeps the rarely used ones loading on first use, as the engine always does
for library users.
"""
from __future__ import annotations

import gc
import importlib
import os
import threading
import time

import engine
from playground import state

WARM_DELAY = 2.0  # seconds after a server's first page before the default vocabularies load
_warm_lock = threading.Lock()
_warm_started = False


def warm_builtins() -> None:
    """Load the default built-ins (gpt2, cl100k_base, o200k_base) in a background thread, once per server.

    Started after the first page of the process is drawn, and WARM_DELAY seconds later: the loading
    holds the GIL, and while the browser is still fetching that first page's scripts from this server
    it would slow that first render.  The next click (switching the encoding, opening the Merge tree,
    which also shows o200k) then finds them loaded instead of parsing 100-200k ranks.  `engine.get_encoding` holds a lock while it builds,
    so a page that asks meanwhile waits for the same object.
    """
    global _warm_started
    with _warm_lock:
        if _warm_started:
            return
        _warm_started = True
    timer = threading.Timer(WARM_DELAY, _warm)
    timer.name, timer.daemon = "bpe-warm-builtins", True
    timer.start()


# Modules that pages other than the first import on first use, each once per server and each a noticeable
# wait: pandas and pyarrow for every st.dataframe, Streamlit's emoji table for a label's leading emoji.
# Imported after the vocabularies so that the first visit to Merge tree or Compare does not wait for them.
PRELOAD_MODULES = ("pandas", "pyarrow", "streamlit.emojis")


# The cyclic garbage collector's first threshold (allocations between young collections; Python's is 700).
GC_THRESHOLD = 20_000


# Between two of the other built-ins the warm-up thread sleeps this long: a load holds the GIL, and the
# sessions' own script runs get the interpreter in the pauses.
WARM_STEP = 0.2


def warm_everything() -> bool:
    """Whether the warm-up goes on to every built-in (``BPE_WARM`` unset or ``all``) or stops after the
    defaults (``BPE_WARM=defaults``)."""
    return os.environ.get("BPE_WARM", "all").strip().lower() != "defaults"


def _warm() -> None:
    for name in state.DEFAULT_ENCODINGS:
        engine.get_encoding(name)
    for module in PRELOAD_MODULES:
        try:
            importlib.import_module(module)
        except ImportError:  # a runtime requirement missing: the page that needs it will say so
            pass
    settle_gc()
    if not warm_everything():
        return
    for name in engine.list_tokenizer_names():
        if name in state.DEFAULT_ENCODINGS:
            continue
        time.sleep(WARM_STEP)
        try:
            engine.get_encoding(name)
        except (OSError, ValueError):  # a damaged data file: the page that asks for it says what is wrong
            continue
    settle_gc()


def settle_gc() -> None:
    """Spare the server's script runs most of the garbage collector's pauses.

    A full collection walks every tracked object of the process while holding the GIL, so it stops
    every session at once (bench/bench_load.py shows them under load).  What exists after the warm-up (modules, vocabularies, imports)
    lives as long as the server, so it is moved out of the collector's sight (`gc.freeze`), and young
    collections run every GC_THRESHOLD allocations instead of 700 (reference counting still frees
    almost everything at once; the collector is only for cycles)."""
    gc.collect()
    gc.freeze()
    _, second, third = gc.get_threshold()
    gc.set_threshold(GC_THRESHOLD, second, third)
