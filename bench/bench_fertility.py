"""What the Arena's fertility and parity add to a page: word counts, fertility cells and parity rows for every
built-in (an alias counted once) over the 32 translations, on top of the language matrix they read.

    .venv/bin/python bench/bench_fertility.py [--repeat 20]

Prints the load average, then the best and median seconds of `count_words` on the 32 sentences,
`fertility_cells` and `parity_rows` (the matrix measured once beforehand: its cost is bench_arena.py's).
Not a test: numbers depend on the machine and on what else runs on its two cores.
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import engine  # noqa: E402
from engine.explain import fertility  # noqa: E402
from engine.explain.arena import distinct_encodings, language_matrix, language_samples  # noqa: E402


def timed(fn, repeat: int) -> tuple[float, float]:
    runs = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        runs.append(time.perf_counter() - start)
    return min(runs), statistics.median(runs)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=20)
    args = parser.parse_args()
    print("load average:", os.getloadavg())
    encs, _ = distinct_encodings([engine.get_encoding(n) for n in engine.list_tokenizer_names()])
    start = time.perf_counter()
    matrix = language_matrix(encs)
    print(f"language_matrix, {len(encs)} tokenizers: {time.perf_counter() - start:.3f} s")
    shipped = {s.code for s in language_samples()}
    for name, fn in [("count_words × 32", lambda: [fertility.count_words(s.text) for s in matrix.languages]),
                     ("fertility_cells", lambda: fertility.fertility_cells(matrix)),
                     ("parity_rows", lambda: fertility.parity_rows(matrix, shipped))]:
        best, mid = timed(fn, args.repeat)
        print(f"{name:20s} best {best * 1000:7.2f} ms   median {mid * 1000:7.2f} ms")


if __name__ == "__main__":
    main()
