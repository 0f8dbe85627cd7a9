"""Memory on pastes: the caches of per-text results are bounded by bytes, not only by entries.

Before, 16 entries per cache of a 2 MB paste's ids (~18 MB each) and token records let a server grow
from 0.66 to 1.41 GB over 12 pastes.  bench/bench_paste_memory.py measures the whole server.
"""
from __future__ import annotations

from pathlib import Path

from playground.cache import encodings, memo, render_cache
from playground.serving import jobs

PER_TEXT = {  # the shared memos that hold a result per text, and the bound each must keep
    render_cache._ids: render_cache.IDS_BYTES,
    render_cache._tokenized: render_cache.TOKENIZED_BYTES,
    render_cache._drawn: render_cache.DRAWN_BYTES,
    render_cache._token_view: render_cache.DRAWN_BYTES,
    render_cache._compare_view: render_cache.DRAWN_BYTES,
}


def test_every_per_text_cache_has_a_byte_bound():
    for fn, bound in PER_TEXT.items():
        assert fn.memo.max_bytes == bound, fn.__name__
    # all of them together, and the jobs' results, stay well under the 1.41 GB measured before the bound
    assert sum(PER_TEXT.values()) + jobs.RESULT_BYTES < 1_000_000_000


def paste_ids(i: int) -> tuple[int, ...]:
    """What a 2 MB paste encodes to, roughly: half a million ids (distinct int objects)."""
    return tuple(range(1_000_000 * (i + 1), 1_000_000 * (i + 1) + 500_000))


def test_twelve_pastes_stay_within_the_ids_bound(monkeypatch):
    render_cache._ids.clear()
    monkeypatch.setattr(encodings, "encode", lambda name, enc, text, policy: paste_ids(int(text.split()[1])))
    names = ["gpt2", "cl100k_base", "o200k_base"]
    for i in range(12):
        text = f"paste {i} " + "x" * 1000
        for name in names:
            assert len(render_cache.ids(name, None, text, "text")) == 500_000
        store = render_cache._ids.memo
        assert store.bytes <= render_cache.IDS_BYTES, (i, store.bytes)
    assert 1 <= len(store) < 12 * len(names)
    calls = []
    monkeypatch.setattr(encodings, "encode", lambda *args: calls.append(args) or paste_ids(11))
    render_cache.ids("o200k_base", None, "paste 11 " + "x" * 1000, "text")
    assert calls == []  # the newest paste is still cached
    render_cache.ids("gpt2", None, "paste 0 " + "x" * 1000, "text")
    assert len(calls) == 1  # the oldest was dropped for the bytes
    render_cache._ids.clear()


def test_job_results_are_bounded_by_bytes(monkeypatch):
    jobs.clear()
    monkeypatch.setattr(jobs, "RESULT_BYTES", 40_000_000)
    for i in range(6):
        jobs._remember(("encode", "gpt2", "text", i), 10, list(paste_ids(i)))  # ~18 MB each, weight 10
        assert jobs.cached_bytes() <= 40_000_000
    assert [k[-1] for k in jobs._RESULTS] == [4, 5]  # the newest two fit
    assert jobs._cached(("encode", "gpt2", "text", 5))[0] and not jobs._cached(("encode", "gpt2", "text", 0))[0]
    jobs._remember(("encode", "big"), 10, list(range(10**6, 10**6 + 1_500_000)))  # ~54 MB: past the whole budget
    assert not jobs._cached(("encode", "big"))[0] and [k[-1] for k in jobs._RESULTS] == [4, 5]
    jobs.clear()
    assert jobs.cached_bytes() == 0


def test_the_estimate_of_a_paste_is_close_to_its_memory():
    """approx_bytes, which the bounds count with, against tracemalloc on real token records and ids."""
    import tracemalloc

    import engine

    enc = engine.get_encoding("gpt2")
    text = (Path(__file__).parents[2] / "data" / "corpus" / "taylorswift.txt").read_text(encoding="utf-8")
    enc.encode(text), enc.tokenize(text[:50_000])  # the encoding's own caches filled first: not the result's
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        ids = tuple(enc.encode(text))
        ids_real = tracemalloc.get_traced_memory()[0] - before
        before = tracemalloc.get_traced_memory()[0]
        records = tuple(enc.tokenize(text[:50_000]))
        records_real = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    # never under (a bound must hold; the ids' int objects may be shared with the encoding's cache, so
    # their estimate can be well over), and token records -- new objects each time -- not wildly over
    # (the caches must still hold a page): ~3x, from the field names each record's __dict__ is charged
    assert memo.approx_bytes(ids) >= ids_real * 0.9
    assert records_real * 0.9 <= memo.approx_bytes(records) <= records_real * 4
