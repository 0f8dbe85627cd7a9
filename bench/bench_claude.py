"""How fast the Claude 3+ reconstruction counts: 10 kB of text per family, goal: fast enough to recount on
every keystroke (well under the 0.1 s a live view allows itself).

    .venv/bin/python bench/bench_claude.py [--chars 10000] [--repeat 5]

Prints, per family (claude-3, claude-4.7, claude-4.8): the vocabulary load (first `get_claude`), the first
count of an English and of a multilingual slice (cold per-character caches) and the median of `--repeat`
counts of new slices of the same kinds (every slice differs, so no result is reused).  Also ctok itself on
the same slices when a ``ctok-1.3.0-venv`` from the tests exists (its counts must agree).  Not a test:
numbers depend on the machine and what else runs on its two cores (the load average is printed first).
"""
from __future__ import annotations

import argparse
import gzip
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from engine.families.claude import get_claude, list_claude_names  # noqa: E402

VERSIONS = {"claude-3": "3.0", "claude-4.7": "4.7", "claude-4.8": "4.8"}


def slices(kind: str, chars: int, n: int) -> list[str]:
    if kind == "english":
        text = (ROOT / "tests" / "data" / "corpus" / "taylorswift.txt").read_text(encoding="utf-8")
    else:
        text = gzip.decompress((ROOT / "bench" / "data" / "ui_strings.txt.gz").read_bytes()).decode("utf-8")
    step = max(1, (len(text) - chars) // max(1, n))
    return [text[i * step: i * step + chars] for i in range(n)]


def ctok_times(python: Path, texts: list[str], version: str) -> tuple[list[int], float]:
    code = ("import json,sys,time,ctok\ntexts=json.load(sys.stdin)\nctok.token_count('warm up',%r)\n"
            "ts=[];cs=[]\nfor t in texts:\n  s=time.perf_counter();cs.append(ctok.token_count(t,%r));"
            "ts.append(time.perf_counter()-s)\nprint(json.dumps([cs,sorted(ts)[len(ts)//2]]))") % (version, version)
    out = subprocess.run([str(python), "-c", code], input=json.dumps(texts), capture_output=True, text=True, check=True)
    counts, median = json.loads(out.stdout)
    return counts, median


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--chars", type=int, default=10_000)
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    print(f"load average {os.getloadavg()}; {args.chars:,} characters per text")
    venv = Path.home() / ".cache" / "bpe-playground" / "test-packages" / "ctok-1.3.0-venv" / "bin" / "python"
    venv = Path(os.environ.get("BPE_TEST_PACKAGES", venv.parents[2])) / "ctok-1.3.0-venv" / "bin" / "python"
    for name in list_claude_names():
        t0 = time.perf_counter()
        enc = get_claude(name)
        load = time.perf_counter() - t0
        row = [f"{name:11} load {load:6.3f} s"]
        for kind in ("english", "multilingual"):
            texts = slices(kind, args.chars, args.repeat + 1)
            t0 = time.perf_counter()
            enc.count_tokens(texts[0])
            first = time.perf_counter() - t0
            times = []
            counts = []
            for text in texts[1:]:
                t0 = time.perf_counter()
                counts.append(enc.count_tokens(text))
                times.append(time.perf_counter() - t0)
            row.append(f"{kind}: first {first * 1000:6.1f} ms, median {statistics.median(times) * 1000:6.1f} ms")
            if venv.exists():
                theirs, median = ctok_times(venv, texts[1:], VERSIONS[name])
                same = "same counts" if theirs == counts else f"COUNTS DIFFER {counts} vs {theirs}"
                row.append(f"(ctok {median * 1000:6.1f} ms, {same})")
        print("  ".join(row))


if __name__ == "__main__":
    main()
