"""Time to load each crafted slow tokenizer file and to encode the text that costs it the most.

    .venv/bin/python bench/bench_crafted_files.py [--chars 8000 20000] [--timeout 300] [name ...]

The files are tests/engine/formats/crafted_slow_files.py's `CRAFTED_SLOW` (issue 33, item 1): a charsmap
whose trie loops (as a SentencePiece ``.model`` and as a GGUF t5), a Unigram ``.model`` and a Unigram
``tokenizer.json`` with a 4,096-character piece, a WordPiece ``tokenizer.json`` with a 4,092-character
``##`` token and ``max_input_chars_per_word`` 10^9, a ``.model`` with 250,000 user-defined symbols.  Each
runs in a child process (a fresh interpreter, so nothing is cached from another file) with a time limit,
and the table prints the load time, or the refusal, and each encode time; "> T s" is a child stopped at
the time limit.  `AT_THE_BOUNDS` follow: the costliest files the bounds let load (a charsmap 256 bytes deep,
Unigram models with every run of "a" up to 256 as a piece, a 256-character WordPiece token), to show
what a text costs at most now.  Not a test: numbers depend on the machine and on what else runs.
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.engine.formats.crafted_slow_files import AT_THE_BOUNDS, CRAFTED_SLOW  # noqa: E402

FILES = {**CRAFTED_SLOW, **AT_THE_BOUNDS}


def child(name: str, sizes: list[int]) -> None:
    """In the child: load `name`, encode its text at each size, print one JSON line per step as it ends."""
    from engine.sources.uploads import load_files

    filename, build, text = FILES[name]
    data = build()
    start = time.perf_counter()
    try:
        enc = load_files([(filename, data)])
    except ValueError as exc:
        print(json.dumps({"bytes": len(data), "load": time.perf_counter() - start, "refused": str(exc)}), flush=True)
        return
    print(json.dumps({"bytes": len(data), "load": time.perf_counter() - start}), flush=True)
    for n in sizes:
        start = time.perf_counter()
        enc.encode_ordinary(text(n))
        print(json.dumps({"chars": n, "encode": time.perf_counter() - start}), flush=True)


def run(name: str, sizes: list[int], timeout: float) -> list[dict]:
    """The child's lines for `name`; a last ``{"timeout": ...}`` if it ran out of time."""
    cmd = [sys.executable, __file__, "--child", name, "--chars", *map(str, sizes)]
    try:
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, cwd=ROOT)
        out, failed = done.stdout, done.returncode and done.stderr.strip().splitlines()[-1:]
    except subprocess.TimeoutExpired as exc:
        out = exc.stdout.decode() if isinstance(exc.stdout, bytes) else exc.stdout or ""
        failed = None
        lines = [json.loads(line) for line in out.splitlines() if line.strip()]
        return [*lines, {"timeout": timeout}]
    lines = [json.loads(line) for line in out.splitlines() if line.strip()]
    if failed:
        lines.append({"error": failed[0] if failed else "failed"})
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("names", nargs="*", help=f"files to run (default all: {', '.join(FILES)})")
    parser.add_argument("--chars", type=int, nargs="+", default=[2_000, 8_000, 20_000])
    parser.add_argument("--timeout", type=float, default=300.0, help="seconds per file (load and every size)")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.child, args.chars)
        return
    names = args.names or list(FILES)
    print(f"{'file':<26} {'bytes':>9} {'load s':>8}  " + "  ".join(f"{n:>9,} ch" for n in args.chars))
    for name in names:
        lines = run(name, args.chars, args.timeout)
        head = lines[0] if lines and "bytes" in lines[0] else {}
        row = f"{name:<26} {head.get('bytes', 0):>9,} {head.get('load', float('nan')):>8.3f}  "
        if "refused" in head:
            print(row + "refused: " + head["refused"][:140])
            continue
        times = {line["chars"]: line["encode"] for line in lines if "chars" in line}
        end = lines[-1] if lines else {}
        cells = []
        for n in args.chars:
            if n in times:
                cells.append(f"{times[n]:>10.3f} s")
            elif "timeout" in end:
                cells.append(f"{'> ' + format(end['timeout'], 'g') + ' s':>12}")
                break
            else:
                cells.append(f"{'error':>12}")
        print(row + "".join(cells) + (f"  {end['error']}" if "error" in end else ""), flush=True)


if __name__ == "__main__":
    main()
