"""Another session's rerun time while a hostile split pattern runs (issue 21.15).

    .venv/bin/python bench/bench_hostile_regex.py [--seconds 12] [--limit 10]

The server runs every session's script in a thread of one process, and `playground.serving.script_gate`
hands out MAX_RUNNING turns.  This bench does the same in one process, with the real gate and the
real cached wrappers of `playground.cache.encodings` / `playground.cache.render_cache`:

* one *other* session reruns Tokenize's drawing (`render_cache.token_view`, gpt2 + cl100k_base) on
  a fresh 3,000-character text each time, inside a turn, and records each rerun's wall time;
* two *hostile* tabs (the issue's attack) each encode, inside their own turn, a fresh
  ``a``x38 + ``!`` with an uploaded tokenizer.json whose Split is ``(a|aa)+$``: every one runs
  until the split time limit (`--limit` seconds) stops it.

Three rounds of `--seconds` each: the other session alone; with the hostile tabs as the code
runs them now (`encodings.off_turn`: the split off the turns, one user pattern at a time
server-wide); and with the hostile tabs holding their turns during the split (`off_turn`
replaced by a no-op -- the gate's behaviour before the fix, and that with the time limit:
before it, the split had none).  The `regex` module counts the limit in the process's CPU
time, so on a busy machine a 10 s limit lasts longer on the wall clock.  Prints p50 / p95 / max of the
other session's reruns.  Not a test: numbers depend on the machine (2 shared cores here).
Goal: "off the turns" equal to "alone" within noise.
"""
from __future__ import annotations

import argparse
import contextlib
import statistics
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import engine  # noqa: E402
import engine.tokenizer.patterns  # noqa: E402
from engine.tokenizer.gpt2_bytes import BYTE_TO_CHAR  # noqa: E402
from playground.cache import encodings, render_cache  # noqa: E402
from playground.serving import script_gate  # noqa: E402

HOSTILE = "(a|aa)+$"


def hostile_encoding() -> engine.HfEncoding:
    import json

    doc = {
        "version": "1.0", "truncation": None, "padding": None, "added_tokens": [], "normalizer": None,
        "pre_tokenizer": {"type": "Sequence", "pretokenizers": [
            {"type": "Split", "pattern": {"Regex": HOSTILE}, "behavior": "Isolated", "invert": False},
            {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True, "use_regex": False}]},
        "post_processor": None,
        "decoder": {"type": "ByteLevel", "add_prefix_space": True, "trim_offsets": True, "use_regex": True},
        "model": {"type": "BPE", "dropout": None, "unk_token": None, "continuing_subword_prefix": None,
                  "end_of_word_suffix": None, "fuse_unk": False, "byte_fallback": False, "ignore_merges": False,
                  "vocab": {BYTE_TO_CHAR[b]: b for b in range(256)}, "merges": []},
    }
    return engine.families.hf.load.load_tokenizer_json(json.dumps(doc).encode(), name="hostile", source="hostile.json")


def corpus(n: int, i: int) -> str:
    text = (ROOT / "tests" / "data" / "corpus" / "taylorswift.txt").read_text(encoding="utf-8")
    start = (i * 7919) % (len(text) - n)
    return text[start : start + n]


def round_(seconds: float, hostile_tabs: int, hold_turn: bool) -> tuple[list[float], int]:
    """The other session's rerun times, and how many hostile splits were stopped meanwhile."""
    stop = threading.Event()
    stopped = [0]
    enc = hostile_encoding()
    own = [engine.get_encoding("gpt2"), engine.get_encoding("cl100k_base")]

    def tab(k: int) -> None:
        i = 0
        while not stop.is_set():
            i += 1
            with script_gate.turn():
                try:
                    encodings.encode("hostile", enc, "a" * 38 + f"!{k}.{i}", "text")
                except engine.SplitTimeoutError:
                    stopped[0] += 1

    times: list[float] = []
    original = encodings.off_turn
    if hold_turn:
        encodings.off_turn = lambda *encs: contextlib.nullcontext()  # the gate's behaviour before the fix
    tabs = [threading.Thread(target=tab, args=(k,), daemon=True) for k in range(hostile_tabs)]
    try:
        for t in tabs:
            t.start()
        time.sleep(0.2 if tabs else 0)
        end = time.monotonic() + seconds
        i = 0
        while time.monotonic() < end:
            i += 1
            text = corpus(3_000, i)
            t0 = time.perf_counter()
            with script_gate.turn():
                for e in own:
                    render_cache.token_view(e.name, e, text, "text", True)
            times.append(time.perf_counter() - t0)
            time.sleep(0.05)  # a user's pause between keystrokes
        stop.set()
        for t in tabs:
            t.join()
    finally:
        encodings.off_turn = original
    return times, stopped[0]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seconds", type=float, default=12.0, help="length of each round")
    parser.add_argument("--limit", type=float, default=engine.tokenizer.patterns.SPLIT_TIMEOUT, help="split time limit (s)")
    args = parser.parse_args()
    engine.tokenizer.patterns.SPLIT_TIMEOUT = args.limit
    for e in ("gpt2", "cl100k_base"):
        engine.get_encoding(e).encode("warm up")
    print(f"split time limit {args.limit:g} s, rounds of {args.seconds:g} s; other session's rerun (s):")
    print(f"{'round':<38} {'reruns':>6} {'p50':>7} {'p95':>7} {'max':>7} {'splits stopped':>15}")
    for label, tabs, hold in [("alone", 0, False), ("2 hostile tabs, split off the turns", 2, False),
                              ("2 hostile tabs holding their turns", 2, True)]:
        times, stopped = round_(args.seconds, tabs, hold)
        q = statistics.quantiles(times, n=20, method="inclusive") if len(times) >= 2 else times * 19
        print(f"{label:<38} {len(times):>6} {statistics.median(times):>7.3f} {q[18]:>7.3f} {max(times):>7.3f} "
              f"{stopped:>15}")


if __name__ == "__main__":
    main()
