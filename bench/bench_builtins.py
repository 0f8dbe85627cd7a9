"""Cold load, warm throughput against Hugging Face `tokenizers` (one thread), and memory of the built-ins.

Cold load: `get_encoding(name)` in a fresh process (the minimum of `--runs`), after `import engine`.
Throughput: `encode_ordinary` on the corpus's taylorswift.txt, after one warm-up call, against
`tokenizers` (``RAYON_NUM_THREADS=1``) on the original file (for `gemma4`, whose original is a GGUF, on
Gemma 3's tokenizer.json: the same ids on ordinary text): the best of five rounds, each starting
from empty piece caches on both sides (the machine's load makes single timings drift).  Memory: RSS of one process holding every
built-in.  Run by hand:  python bench/bench_builtins.py [name ...]
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

NEW = ["deepseek-v3", "glm4", "glm5", "minimax-m3", "claude-legacy", "bert-base-uncased", "gemma3", "gemma4", "deepseek-v4"]
_COLD = ("import sys, time, engine; t = time.perf_counter(); engine.get_encoding(sys.argv[1]); "
         "print(time.perf_counter() - t)")
_RSS = ("import engine, resource\nfor n in engine.list_tokenizer_names(): engine.get_encoding(n).encode_ordinary('warm up')\n"
        "print(len(engine.list_tokenizer_names()), resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)")


def cold(name: str, runs: int) -> float:
    return min(float(subprocess.run([sys.executable, "-c", _COLD, name], cwd=ROOT, capture_output=True, text=True,
                                    check=True).stdout) for _ in range(runs))


def throughput(name: str, repeats: int = 5) -> tuple[float, float]:
    import engine
    import tokenizers
    from engine.families.hf.builtins import BUILTIN_FILES, INSTALLED_BUILTINS, VOCAB_TXT_BUILTINS
    from engine.formats.tiktoken_files import read_data_file
    from tests.reference_packages import member

    text = (ROOT / "tests" / "data" / "corpus" / "taylorswift.txt").read_text(encoding="utf-8")
    if name in VOCAB_TXT_BUILTINS:
        path = Path("/tmp/bench_vocab.txt")
        path.write_bytes(read_data_file(*VOCAB_TXT_BUILTINS[name].file))
        ref = tokenizers.BertWordPieceTokenizer(str(path), lowercase=True)._tokenizer
    elif name in BUILTIN_FILES and BUILTIN_FILES[name].json is not None:
        ref = tokenizers.Tokenizer.from_str(read_data_file(*BUILTIN_FILES[name].json).decode("utf-8"))
    else:
        o = (BUILTIN_FILES.get(name) or INSTALLED_BUILTINS[name]).original
        if name in INSTALLED_BUILTINS and INSTALLED_BUILTINS[name].fmt == "gguf":
            # tokenizers reads no GGUF: Gemma 4 is timed against Gemma 3's tokenizer.json, whose ids on ordinary
            # text are Gemma 4's (checked below, and in tests/engine/families/hf/test_builtin_gemma.py)
            o = INSTALLED_BUILTINS["gemma3"].original
        ref = tokenizers.Tokenizer.from_str(member(o.package, o.path).decode("utf-8"))
    ref.encode_special_tokens = True
    enc = engine.get_encoding(name)
    t_ours = t_ref = float("inf")
    for _ in range(repeats):  # each round from empty piece caches on both sides, alternating; the best of each
        enc.clear_cache()
        getattr(ref.model, "_clear_cache", lambda: None)()  # WordPiece keeps no cache
        enc.encode_ordinary(text[:1000])
        ref.encode(text[:1000], add_special_tokens=False)
        t = time.perf_counter(); ours = enc.encode_ordinary(text); t_ours = min(t_ours, time.perf_counter() - t)
        t = time.perf_counter(); theirs = ref.encode(text, add_special_tokens=False).ids; t_ref = min(t_ref, time.perf_counter() - t)
        assert ours == theirs
    return len(text.encode()) / t_ours / 1e6, len(text.encode()) / t_ref / 1e6


def main(names: list[str]) -> None:
    os.environ["RAYON_NUM_THREADS"] = "1"
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    print("| name | cold load (s) | ours (MB/s) | tokenizers (MB/s) | ratio |\n|---|---|---|---|---|")
    for name in names or NEW:
        ours, theirs = throughput(name)
        print(f"| `{name}` | {cold(name, 3):.2f} | {ours:.2f} | {theirs:.2f} | {ours / theirs:.0%} |", flush=True)
    count, rss = subprocess.run([sys.executable, "-c", _RSS], cwd=ROOT, capture_output=True, text=True, check=True).stdout.split()
    print(f"every built-in ({count}) loaded in one process: max RSS {int(rss) / 1024:.0f} MB")


if __name__ == "__main__":
    main(sys.argv[1:])
