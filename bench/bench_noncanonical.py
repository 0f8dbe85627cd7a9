"""How long Tokenize's "Other ways to cut this text" takes: each lane of `engine.explain.noncanonical` on
MAX_CHARS (2,000) characters of mixed text, for a few built-ins of each BPE family, warm (the vocabulary
loaded and each lane run once before timing).

    .venv/bin/python bench/bench_noncanonical.py [--names gpt2,o200k_base,...] [--repeat 3]

Prints, per tokenizer, the best of `--repeat` runs of each lane (seconds) and of the word count of the
text's longest piece.  Not a test: numbers depend on the machine and on what else runs on its two cores
(the load average is printed first).
"""
from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import engine  # noqa: E402
from engine.explain import noncanonical as nc  # noqa: E402

SAMPLE = ("The quick brown fox jumps over 1234567 lazy dogs; naïve café — 東京は晴れ 😀👍🏽 "
          "Привет, мир! مرحبا بالعالم   def f(x): return x**2  # 3.14159265358979\n")


def best(fn, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--names", default="gpt2,cl100k_base,o200k_base,llama3,qwen3.6,deepseek-v3,mistral-v1,gemma3")
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    print(f"load average {os.getloadavg()[0]:.2f}; text {nc.MAX_CHARS:,} characters")
    text = (SAMPLE * (nc.MAX_CHARS // len(SAMPLE) + 1))[: nc.MAX_CHARS]
    print(f"{'tokenizer':<14}{'canonical':>10}{'dropout':>10}{'chars':>10}{'random':>10}{'digits':>10}{'all':>10}{'count':>10}")
    for name in args.names.split(","):
        try:
            enc = engine.get_encoding(name)
        except Exception as error:  # not installed here (Gemma's set-up step)
            print(f"{name:<14} skipped: {error}")
            continue
        nc.other_cuts(enc, text, 0.1, 0)  # warm: vocabulary, merges, caches
        word = max(nc.words(enc, text), key=len)
        row = [best(lambda: nc.canonical(enc, text), args.repeat),
               best(lambda: nc.dropout(enc, text, 0.1, 1), args.repeat),
               best(lambda: nc.characters(enc, text), args.repeat),
               best(lambda: nc.random_segmentation(enc, text, 1), args.repeat),
               best(lambda: nc.digit_groups(enc, text), args.repeat),
               best(lambda: nc.other_cuts(enc, text, 0.1, 1), args.repeat),
               best(lambda: nc.segmentation_count(enc, word), args.repeat)]
        print(f"{name:<14}" + "".join(f"{t:>10.3f}" for t in row))


if __name__ == "__main__":
    main()
