"""Training speed and peak memory: engine.train_bpe vs minbpe vs Hugging Face tokenizers.

All three train a byte-level BPE on taylorswift.txt with the GPT-4 split
pattern (minbpe's RegexTokenizer default) at vocab 512 and 2048; ours also
on raw bytes (minbpe's BasicTokenizer mode).  Each run happens in a fresh
subprocess so its peak RSS (minus the RSS after imports and reading the
text) is the training's own peak memory.

    .venv/bin/python bench/bench_train.py --minbpe /tmp/minbpe_copy

`--minbpe` points at a folder holding minbpe's `minbpe` package (a copy of
karpathy/minbpe; never vendored here).  Without it minbpe is skipped.
minbpe needs about a minute at vocab 2048 (runs once; ours and HF best of 3).
"""
from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT / "tests" / "data" / "corpus" / "taylorswift.txt"
# minbpe's GPT4_SPLIT_PATTERN (same pieces as cl100k's pattern on this text; see tests/engine/training/test_train.py)
GPT4_SPLIT_PATTERN = r"""'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]++[\r\n]*|\s*[\r\n]|\s+(?!\S)|\s+"""


REPEAT = 3  # ours and HF: best of 3 runs; minbpe: one run
INF = float("inf")


def rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # Linux: kB


def run_one(impl: str, vocab: int, minbpe_dir: str | None) -> dict:
    """Train once in this process; return seconds and peak memory."""
    text = CORPUS.read_text(encoding="utf-8")
    if impl in ("ours", "ours-raw"):
        sys.path.insert(0, str(ROOT))
        import engine

        base = rss_mb()
        seconds = INF
        for _ in range(REPEAT):  # best of REPEAT: the machine is shared
            t0 = time.perf_counter()
            enc = engine.train_bpe(text, vocab, pat_str=None if impl == "ours-raw" else GPT4_SPLIT_PATTERN)
            seconds = min(seconds, time.perf_counter() - t0)
        n_merges = len(enc.merges)
    elif impl == "minbpe":
        sys.path.insert(0, minbpe_dir)
        from minbpe import RegexTokenizer

        tok = RegexTokenizer(GPT4_SPLIT_PATTERN)
        base = rss_mb()
        t0 = time.perf_counter()
        tok.train(text, vocab)
        seconds = time.perf_counter() - t0
        n_merges = len(tok.merges)
    elif impl == "hf":
        from tokenizers import Regex, Tokenizer, models, pre_tokenizers, trainers

        tok = Tokenizer(models.BPE())
        tok.pre_tokenizer = pre_tokenizers.Sequence([
            pre_tokenizers.Split(Regex(GPT4_SPLIT_PATTERN), behavior="isolated"),
            pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False),
        ])
        trainer = trainers.BpeTrainer(vocab_size=vocab, min_frequency=0, show_progress=False,
                                      initial_alphabet=pre_tokenizers.ByteLevel.alphabet(), special_tokens=[])
        base = rss_mb()
        seconds = INF
        for _ in range(REPEAT):
            t0 = time.perf_counter()
            tok.train_from_iterator([text], trainer=trainer)
            seconds = min(seconds, time.perf_counter() - t0)
        n_merges = tok.get_vocab_size() - 256
    else:
        raise ValueError(impl)
    return {"impl": impl, "vocab": vocab, "seconds": seconds, "merges": n_merges,
            "peak_mb": max(0.0, rss_mb() - base)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--minbpe", help="folder that contains minbpe's `minbpe` package")
    parser.add_argument("--vocab", type=int, nargs="+", default=[512, 2048])
    parser.add_argument("--one", nargs=2, metavar=("IMPL", "VOCAB"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        print(json.dumps(run_one(args.one[0], int(args.one[1]), args.minbpe)))
        return

    impls = ["ours", "ours-raw", "hf"] + (["minbpe"] if args.minbpe else [])
    results: dict[tuple[str, int], dict] = {}
    for vocab in args.vocab:
        for impl in impls:
            cmd = [sys.executable, __file__, "--one", impl, str(vocab)] + (["--minbpe", args.minbpe] if args.minbpe else [])
            out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
            res = json.loads(out.strip().splitlines()[-1])
            results[(impl, vocab)] = res
            print(f"{impl:9s} vocab {vocab:5d}: {res['seconds']:8.3f} s  {res['merges']:5d} merges  "
                  f"peak +{res['peak_mb']:.1f} MB", flush=True)
    print()
    for vocab in args.vocab:
        ours = results[("ours", vocab)]["seconds"]
        line = f"vocab {vocab}: ours {ours:.3f} s"
        if ("minbpe", vocab) in results:
            line += f"; minbpe {results[('minbpe', vocab)]['seconds']:.1f} s = {results[('minbpe', vocab)]['seconds'] / ours:.0f}x slower"
        hf = results[("hf", vocab)]["seconds"]
        line += f"; HF tokenizers {hf:.3f} s, ours is {ours / hf:.1f}x HF's time"
        print(line)


if __name__ == "__main__":
    main()
