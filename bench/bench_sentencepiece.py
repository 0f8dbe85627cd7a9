"""SentencePiece family benchmark: our `mistral-v1`/`mistral-v3` against ``sentencepiece`` (C++).

Run by hand; prints markdown tables.

    python bench/bench_sentencepiece.py            # all
    python bench/bench_sentencepiece.py --quick    # fewer repeats

* throughput (MB/s of UTF-8) on English (tests/data/corpus/taylorswift.txt),
  code (this repo's Python sources) and multilingual text (the corpus's
  multilingual cases and engine/data/languages.json), cold (piece cache
  emptied before each run) and warm (cache filled by a previous run);
* load time: ``engine.get_encoding(name)`` in a fresh process (wall and CPU);
* one 100,000-character piece (a random lowercase word, and 100,000 spaces).

Goals (issue 9): cold load < 0.3 s; warm throughput >= 50% of sentencepiece's;
a 100k-character piece < 1 s.  Timings are CPU time of this process
(``time.process_time``, best of several runs) so that a shared, busy machine
does not distort them; ``--wall`` uses wall-clock time instead.  The load
table shows both.
"""
from __future__ import annotations

import argparse
import random
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import engine  # noqa: E402
from engine.families.sentencepiece.encoding import BUILTIN_MODELS  # noqa: E402
from engine.formats.tiktoken_files import read_data_file  # noqa: E402

sys.path.insert(0, str(ROOT / "bench"))
import bench_engine  # noqa: E402



def corpora() -> dict[str, str]:
    """bench_engine's English, code and multilingual corpora (one loader for every engine bench)."""
    texts = bench_engine.corpora()
    return {k: texts[k] for k in ("english", "code", "multilingual")}


CLOCK = time.process_time


def best_of(fn, repeats: int) -> float:
    return bench_engine.best_of(fn, repeats, CLOCK)  # CLOCK as set by --wall


def reference(name: str):
    import sentencepiece as spm
    return spm.SentencePieceProcessor(model_proto=read_data_file(*BUILTIN_MODELS[name]))


def throughput(repeats: int) -> None:
    # sentencepiece is timed on the whole text (one call, like ours) and line by line (how it is usually fed;
    # faster, since its normalizer and heap work on shorter strings); the ratio uses the faster of the two.
    print("| encoding | corpus | kB | ours cold MB/s | ours warm MB/s | sentencepiece whole MB/s | "
          "sentencepiece per line MB/s | warm / best sentencepiece |")
    print("|---|---|---|---|---|---|---|---|")
    texts = corpora()
    for name in BUILTIN_MODELS:
        enc = engine.get_encoding(name)
        ref = reference(name)
        for corpus, text in texts.items():
            mb = len(text.encode("utf-8")) / 1e6
            assert enc.encode_ordinary(text) == ref.encode(text), f"{name} {corpus}: ids differ"

            t_cold, t_warm = bench_engine.cold_and_warm(enc, text, repeats, CLOCK)
            t_ref = best_of(lambda: ref.encode(text), repeats)
            lines = text.split("\n")
            t_lines = best_of(lambda: ref.encode(lines), repeats)
            print(f"| {name} | {corpus} | {mb * 1000:.0f} | {mb / t_cold:.1f} | {mb / t_warm:.1f} | {mb / t_ref:.1f} | "
                  f"{mb / t_lines:.1f} | {min(t_ref, t_lines) / t_warm:.0%} |")


def load_times(repeats: int) -> None:
    print("\n| encoding | import engine (s) | get_encoding wall (s) | get_encoding CPU (s) | sentencepiece load (s) |")
    print("|---|---|---|---|---|")
    code = ("import time; t0 = time.perf_counter(); import engine; t1 = time.perf_counter(); c1 = time.process_time(); "
            "engine.get_encoding({name!r}); print(t1 - t0, time.perf_counter() - t1, time.process_time() - c1)")
    for name in BUILTIN_MODELS:
        runs = []
        for _ in range(repeats):
            out = subprocess.run([sys.executable, "-c", code.format(name=name)], cwd=ROOT,
                                 capture_output=True, text=True, check=True)
            runs.append(tuple(map(float, out.stdout.split())))
        data = read_data_file(*BUILTIN_MODELS[name])
        import sentencepiece as spm
        t_ref = best_of(lambda: spm.SentencePieceProcessor(model_proto=data), repeats)
        print(f"| {name} | {min(r[0] for r in runs):.3f} | {min(r[1] for r in runs):.3f} | "
              f"{min(r[2] for r in runs):.3f} | {t_ref:.3f} |")


def long_pieces(repeats: int) -> None:
    print("\n| encoding | 100k-character input | ours (s) | sentencepiece (s) |")
    print("|---|---|---|---|")
    rng = random.Random(0)
    inputs = {
        "random lowercase word": "".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(100_000)),
        "one letter repeated": "a" * 100_000,
        "spaces": " " * 100_000,
        "digits": "7" * 100_000,
    }
    for name in BUILTIN_MODELS:
        enc = engine.get_encoding(name)
        ref = reference(name)
        for label, text in inputs.items():
            assert enc.encode_ordinary(text) == ref.encode(text)

            def ours():
                enc.clear_cache()
                enc.encode_ordinary(text)

            print(f"| {name} | {label} | {best_of(ours, repeats):.3f} | {best_of(lambda: ref.encode(text), repeats):.3f} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="fewer repeats")
    parser.add_argument("--wall", action="store_true", help="wall-clock time instead of CPU time")
    args = parser.parse_args()
    global CLOCK
    if args.wall:
        CLOCK = time.perf_counter
    print(f"clock: {'wall' if args.wall else 'CPU (process_time)'}\n")
    repeats = 2 if args.quick else 5
    throughput(repeats)
    load_times(repeats)
    long_pieces(max(1, repeats // 2))


if __name__ == "__main__":
    main()
