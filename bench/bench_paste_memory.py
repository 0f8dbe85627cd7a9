"""The server's memory over a dozen 2 MB pastes (issue 21.15: 0.66 -> 1.41 GB over 12 pastes).

    .venv/bin/python bench/bench_paste_memory.py [--pastes 12] [--chars 1990000] [--views views.tokenize views.compare]

One process plays the server: Streamlit's AppTest runs the app's frame (tests/app/view_app.py) for
one session that pastes a *different* text of `--chars` characters each time and opens each of
`--views` on it (the default encodings: gpt2, cl100k_base, o200k_base).  After each paste it prints
this process's resident memory (VmRSS; the job processes that encode long texts are not counted,
they exit or are reused) and what the per-text caches hold: entries and estimated bytes of
`playground.cache.memo` stores and of the jobs' result cache.

Not a test: numbers depend on the machine.  Goal: memory levels off after a few pastes instead of
growing with every one.
"""
from __future__ import annotations

import argparse
import gc
import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

VIEW_APP = str(ROOT / "tests" / "app" / "view_app.py")


def rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def paste(i: int, n: int) -> str:
    """A text of `n` characters, different for each `i`: the corpus's words shuffled, a few other scripts."""
    words = (ROOT / "tests" / "data" / "corpus" / "taylorswift.txt").read_text(encoding="utf-8").split()
    words += ["Привет", "世界", "مرحبا", "🙂", "naïve", "2026", "\n"]
    rng = random.Random(i)
    out, size = [], 0
    while size < n:
        w = rng.choice(words)
        out.append(w)
        size += len(w) + 1
    return " ".join(out)[:n]


def cache_report() -> str:
    from playground.cache import memo, render_cache
    from playground.serving import jobs

    stores = [getattr(m, "memo", None) for m in (
        render_cache._ids, render_cache._tokenized, render_cache._drawn,
        render_cache._token_view, render_cache._compare_view, render_cache._stats)]
    entries = sum(len(s) for s in stores if s is not None)
    held = sum(getattr(s, "bytes", 0) for s in stores if s is not None)
    job_bytes = sum(memo.approx_bytes(entry[1]) for entry in list(jobs._RESULTS.values()))
    return (f"memo entries {entries:>3}, ~{held / 1e6:6.0f} MB;  job results {len(jobs._RESULTS):>2}"
            + (f", ~{job_bytes / 1e6:4.0f} MB" if job_bytes else ""))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--pastes", type=int, default=12)
    parser.add_argument("--chars", type=int, default=1_990_000)
    parser.add_argument("--views", nargs="+", default=["views.tokenize", "views.compare"])
    args = parser.parse_args()

    from streamlit.testing.v1 import AppTest

    from playground import state

    at = AppTest.from_file(VIEW_APP, default_timeout=300)
    at.session_state["_view"] = args.views[0]
    at.run()
    gc.collect()
    print(f"start: RSS {rss_mb():7.0f} MB")
    for i in range(args.pastes):
        t0 = time.perf_counter()
        at.session_state[state.TEXT] = paste(i, args.chars)
        for view in args.views:
            at.session_state["_view"] = view
            at.run()
            if at.exception:
                raise SystemExit(f"paste {i + 1}, {view}: {[e.value for e in at.exception]}")
        gc.collect()
        print(f"paste {i + 1:>2}: RSS {rss_mb():7.0f} MB  ({time.perf_counter() - t0:4.1f} s)  {cache_report()}",
              flush=True)


if __name__ == "__main__":
    main()
