"""Batch encoding: serial for small batches, worker processes for large ones.

tiktoken's batch calls run its Rust encoder on a thread pool: Rust releases
the GIL, so threads scale.  Our encoder is pure Python and holds the GIL, so
threads only add overhead, and processes only pay off on large batches
(``bench/bench_batch.py`` measures serial, threads and processes).  Processes
do scale, at a price: a pool must be
started once (a fresh interpreter per worker, which then loads the encoding),
and every text and id list is pickled across.  So:

* fewer than ``PARALLEL_MIN_TEXTS`` texts, or fewer than
  ``PARALLEL_MIN_CHARS`` characters in all, or ``num_threads <= 1``, or a
  single CPU: encode serially in this process;
* otherwise split the batch into one contiguous chunk per worker
  (``min(num_threads, CPUs)`` of them) and encode the chunks in a shared,
  lazily started process pool; results come back in order.

Workers are started with ``forkserver`` (``spawn`` where that is missing),
never ``fork``: forking a threaded server (Streamlit) can copy a held lock
into the child and hang it.  An encoding travels to the workers by pickle --
its name for a built-in, its data otherwise -- so any `Encoding` works.  If
the pool cannot be started or breaks, the batch is encoded serially instead.
"""
from __future__ import annotations

import multiprocessing
import os
import threading
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..api import EncodingAPI

PARALLEL_MIN_TEXTS = 8  # fewer texts: serial
PARALLEL_MIN_CHARS = 500_000  # fewer characters in the whole batch: serial (pickling and start-up cost more)
MAX_WORKERS = 8

_POOL: ProcessPoolExecutor | None = None
_POOL_LOCK = threading.Lock()


def cpu_count() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def workers_for(texts: list[str], num_threads: int) -> int:
    """How many processes to use for this batch (1 = serial in this process)."""
    if num_threads <= 1 or len(texts) < PARALLEL_MIN_TEXTS:
        return 1
    if sum(map(len, texts)) < PARALLEL_MIN_CHARS:
        return 1
    return max(1, min(num_threads, cpu_count(), MAX_WORKERS))


def encode_serial(enc: EncodingAPI, texts: list[str], allowed: frozenset[str] | None) -> list[list[int]]:
    """The reference: one `encode` (or `encode_ordinary` when `allowed` is None) per text."""
    if allowed is None:
        return [enc.encode_ordinary(t) for t in texts]
    return [enc.encode(t, allowed_special=allowed, disallowed_special=()) for t in texts]


def _pool() -> ProcessPoolExecutor:
    global _POOL
    with _POOL_LOCK:
        if _POOL is None:
            methods = multiprocessing.get_all_start_methods()
            context = multiprocessing.get_context("forkserver" if "forkserver" in methods else "spawn")
            _POOL = ProcessPoolExecutor(max_workers=min(cpu_count(), MAX_WORKERS), mp_context=context)
        return _POOL


def shutdown_pool() -> None:
    """Stop the worker processes (they are started again on the next large batch)."""
    global _POOL
    with _POOL_LOCK:
        pool, _POOL = _POOL, None
    if pool is not None:
        pool.shutdown(wait=True, cancel_futures=True)


def encode_parallel(
    enc: EncodingAPI, texts: list[str], allowed: frozenset[str] | None, workers: int
) -> list[list[int]]:
    """Encode contiguous chunks of `texts` in `workers` processes of the shared pool."""
    size = -(-len(texts) // workers)
    chunks = [texts[i : i + size] for i in range(0, len(texts), size)]
    futures = [_pool().submit(encode_serial, enc, chunk, allowed) for chunk in chunks]
    out: list[list[int]] = []
    for future in futures:
        out.extend(future.result())
    return out


def encode_batch(
    enc: EncodingAPI, texts: list[str], num_threads: int, allowed: frozenset[str] | None
) -> list[list[int]]:
    """`encode_serial`'s result, computed in worker processes when the batch is large enough."""
    workers = workers_for(texts, num_threads)
    if workers == 1:
        return encode_serial(enc, texts, allowed)
    try:
        return encode_parallel(enc, texts, allowed, workers)
    except (BrokenProcessPool, OSError):
        shutdown_pool()
        return encode_serial(enc, texts, allowed)
