"""The test suite itself, timed: wall time, time per folder and the slowest tests (issue 32's goals).

Runs the README's test command's pytest step (`.venv/bin/python -m pytest` with the same worker count as
scripts/test.sh) with ``--durations=0``, then prints the wall time, the summary line, the summed test time per
folder and the N slowest tests.  Set-up (pip, apt, Gemma) is not timed: run `bash scripts/test.sh --co -q` once first.

    python bench/bench_suite.py                         # everything CI runs (goal: <= 10 min on a quiet 2-core machine)
    python bench/bench_suite.py -m "not slow and not heavy and not browser and not deploy" --one-case
                                                        # the quick tier (goal: <= 3 min)
    python bench/bench_suite.py --load 2                # the same with two CPU-bound processes beside it
    python bench/bench_suite.py --log old.log           # only summarise the durations of an earlier run's log

--load N starts N processes that spin on the CPU for the whole run (and stop with it): the "busy machine" of
issue 32, on which every test must still pass because tests wait for conditions, not for fixed times.
"""
from __future__ import annotations

import argparse
import collections
import multiprocessing
import os
import re
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DURATION = re.compile(r"^([\d.]+)s (call|setup|teardown)\s+(\S+)")


def spin(stop) -> None:
    x = 0
    while not stop.is_set():
        for _ in range(100_000):
            x = (x * 31 + 7) % 1_000_003


def summarise(log: str, top: int) -> None:
    per_folder: collections.Counter[str] = collections.Counter()
    per_test: collections.Counter[str] = collections.Counter()
    for line in log.splitlines():
        m = DURATION.match(line)
        if m:
            seconds, node = float(m.group(1)), m.group(3)
            per_folder["/".join(node.split("::")[0].split("/")[:2])] += seconds
            per_test[node] += seconds
    print("\n| folder | test time (s, summed over workers) |\n|---|---|")
    for folder, seconds in per_folder.most_common():
        print(f"| {folder} | {seconds:,.1f} |")
    print(f"| all | {sum(per_folder.values()):,.1f} |")
    print(f"\n| the {top} slowest tests (setup + call + teardown) | s |\n|---|---|")
    for node, seconds in per_test.most_common(top):
        print(f"| `{node}` | {seconds:.1f} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--load", type=int, default=0, help="CPU-bound processes to run beside the suite")
    parser.add_argument("--top", type=int, default=20)
    parser.add_argument("--log", help="summarise this earlier log instead of running")
    parser.add_argument("--workers", type=int, default=int(os.environ.get("BPE_TEST_WORKERS", "0")) or
                        min(4, len(os.sched_getaffinity(0)) + 1))  # as scripts/test.sh
    args, pytest_args = parser.parse_known_args()
    if args.log:
        summarise(Path(args.log).read_text(encoding="utf-8", errors="replace"), args.top)
        return
    stop = multiprocessing.Event()
    spinners = [multiprocessing.Process(target=spin, args=(stop,), daemon=True) for _ in range(args.load)]
    for p in spinners:
        p.start()
    command = [str(ROOT / ".venv" / "bin" / "python"), "-m", "pytest", "-q", "-ra", "--durations=0", *pytest_args]
    if args.workers > 1:
        command[3:3] = ["-n", str(args.workers), "--dist", "loadgroup"]
    started = time.monotonic()
    try:
        env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}  # as scripts/test.sh
        run = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, errors="replace", env=env)
    finally:
        stop.set()
        for p in spinners:
            p.join(5)
    wall = time.monotonic() - started
    # Not in test-results/: pytest-playwright empties that folder when any later run starts a browser test.
    log_path = ROOT / "bench" / "results" / "suite.log"
    log_path.parent.mkdir(parents=True, exist_ok=True)
    log_path.write_text(run.stdout + run.stderr, encoding="utf-8")
    summary = next((line for line in reversed(run.stdout.splitlines()) if re.search(r"\d+ (passed|failed)", line)), "?")
    print(f"command: {' '.join(command[1:])}")
    print(f"workers: {args.workers}; CPU-bound processes beside it: {args.load}; load average at the end: "
          f"{os.getloadavg()[0]:.1f}")
    print(f"wall: {wall:,.0f} s ({wall / 60:.1f} min); exit {run.returncode}; {summary.strip('= ')}")
    print(f"log: {log_path}")
    summarise(run.stdout, args.top)
    sys.exit(run.returncode)


if __name__ == "__main__":
    main()
