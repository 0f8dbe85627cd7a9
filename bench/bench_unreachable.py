"""How long the vocabulary sweeps of the Vocabulary page's "Scaffold & unreachable" pane take, per built-in.

    .venv/bin/python bench/bench_unreachable.py [name ...]

Prints, per encoding (by default every built-in, `engine.list_tokenizer_names()`): loading it; the full reachability sweep
(`engine.explain.unreachable.reachability`: every ordinary token decoded and encoded again, contexts
tried for the ones that fail alone); reading the stored counts instead, first (before the sweep caches the digest) (`stored_reachability`, whose
cost is the vocabulary digest, computed once per encoding); and the scaffold counts over the built-in
multilingual corpus (`engine.explain.scaffold.scaffold_counts`).  The sweep is what decided that the
built-ins' counts are precomputed (scripts/gen_reachability.py): over ~2 s for the big vocabularies.
Not a test: numbers depend on the machine and what else runs on its two cores.
"""
from __future__ import annotations

import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import engine  # noqa: E402
from engine.explain import scaffold, unreachable  # noqa: E402


def _time(call):
    start = time.perf_counter()
    value = call()
    return time.perf_counter() - start, value


def main(names: list[str]) -> None:
    print(f"load average {os.getloadavg()[0]:.2f}")
    print(f"{'encoding':18} {'tokens':>8} {'load':>6} {'sweep':>7} {'stored':>7} {'scaffold':>9}")
    corpus = scaffold.builtin_corpus()
    for name in names or engine.list_tokenizer_names():
        load, enc = _time(lambda: engine.get_encoding(name))
        stored, _ = _time(lambda: unreachable.stored_reachability(enc))  # first: the digest is not cached yet
        sweep, _ = _time(lambda: unreachable.reachability(enc))
        try:
            scaf, _ = _time(lambda: scaffold.scaffold_counts(enc, corpus))
            scaf_s = f"{scaf:8.2f}s"
        except scaffold.NoMergeTreesError:
            scaf_s = "        —"
        print(f"{name:18} {enc.n_vocab:8,} {load:5.2f}s {sweep:6.2f}s {stored:6.2f}s {scaf_s}", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
