"""The first merge tree a teacher opens: a fresh server, o200k's longest token, until its first box is drawn.

    .venv/bin/python bench/bench_first_tree.py [--app DIR ...] [--rounds 5] [--compiled] [--token ID]

`--after first-page` / `settled`: the tree link follows the app's first page in the same browser (the
teacher who opens the app, then a token's tree), at once or after the server's warm-up.

Each round starts a fresh server per `--app` (default: this checkout; give two to compare a change,
``git archive <commit> | tar -x -C /tmp/before`` for the old code), opens a fresh chromium on
``/tree?tok=…&tenc=o200k_base`` and times `goto` until the tree's first box is drawn -- vocabulary
loading, the script's run, sending the page and the browser drawing it, as a user waits.  The apps take
turns within a round, so a machine that drifts (±30% here) drifts for both.  Also printed: the
server's CPU seconds until then (it drifts less than wall time on a busy machine).

`--compiled` first compiles each app's modules (``compileall``, as the Dockerfile does: the tests and
benches run with PYTHONDONTWRITEBYTECODE, so without it every fresh server compiles them on its first
page).  Not a test: numbers depend on the machine (goal: under 1.5 s on a quiet one).
"""
from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import engine  # noqa: E402
from bench.served import CHROMIUM, CHROMIUM_ARGS, VIEWPORT, cpu_seconds, served, settle  # noqa: E402
from playground.serving.warmup import WARM_DELAY  # noqa: E402
from playwright.sync_api import expect, sync_playwright  # noqa: E402

LONG = 240_000  # ms: a loaded machine takes far longer than a quiet one
# A box of the tree: drawn by playground/render/tree.py, or (code before 2026-11-30, to compare) by st.graphviz_chart
FIRST_BOX = "svg.merge-tree g.node, [data-testid='stGraphVizChart'] svg g.node"


def first_tree(app: Path, token_id: int, after: str = "nothing") -> tuple[float, float]:
    """(seconds from goto until the tree's first box is visible, server CPU seconds meanwhile), fresh server.

    `after`: "nothing" -- the tree link is the fresh server's and the fresh browser's first page; "first-page" --
    the app's first page (Tokenize) is drawn first, then the tree link opens at once (the browser has the app's
    scripts, the server its modules; the background warm-up may still be loading vocabularies); "settled" -- as
    "first-page", after the server's warm-up has finished (its CPU use settled; the warm-up starts WARM_DELAY
    seconds after the first page, so waiting for a quiet second right away measured a server about to start it)."""
    with served(app, prefix="bench_first_tree_") as server, sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        page = browser.new_page(viewport=VIEWPORT)
        if after != "nothing":
            page.goto(server.url)
            expect(page.locator("h1").first).to_be_visible(timeout=LONG)
            expect(page.get_by_test_id("stMain").locator(".tok").first).to_be_visible(timeout=LONG)
            if after == "settled":  # the warm-up starts WARM_DELAY s after the first page: settle after it, not before
                time.sleep(WARM_DELAY + 1.0)
                settle(server.proc.pid, limit=120.0)
        cpu = cpu_seconds(server.proc.pid)
        t = time.perf_counter()
        page.goto(f"{server.url}/tree?tok={token_id}&tenc=o200k_base")
        expect(page.locator(FIRST_BOX).first).to_be_visible(timeout=LONG)
        took = time.perf_counter() - t
        cpu = cpu_seconds(server.proc.pid) - cpu
        browser.close()
    return took, cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--app", type=Path, action="append", help="checkout to measure (repeatable; default: this one)")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--compiled", action="store_true", help="compileall each app first, as the Dockerfile does")
    parser.add_argument("--token", type=int, help="o200k token id (default: the longest token, 128 spaces)")
    parser.add_argument("--after", choices=("nothing", "first-page", "settled"), default="nothing",
                        help="what the fresh server and browser did before the tree link (see first_tree)")
    args = parser.parse_args()
    apps = [a.resolve() for a in (args.app or [ROOT])]
    if args.compiled:
        for app in apps:
            subprocess.run([sys.executable, "-m", "compileall", "-q", "engine", "playground"], cwd=app, check=True)
    o200k = engine.get_encoding("o200k_base")
    token_id = args.token if args.token is not None else o200k.mergeable_ranks[max(o200k.mergeable_ranks, key=len)]
    times: dict[Path, list[tuple[float, float]]] = {app: [] for app in apps}
    for r in range(args.rounds):
        for app in (apps if r % 2 == 0 else apps[::-1]):
            times[app].append(first_tree(app, token_id, args.after))
            print(f"round {r + 1} {app}: {times[app][-1][0]:.2f} s (server CPU {times[app][-1][1]:.2f} s)", flush=True)
    for app, runs in times.items():
        wall = [w for w, _ in runs]
        cpu = [c for _, c in runs]
        print(f"{app}: first o200k tree, goto -> drawn: median {statistics.median(wall):.2f} s, min {min(wall):.2f} s; "
              f"server CPU median {statistics.median(cpu):.2f} s ({len(runs)} fresh servers; before the tree: {args.after})")


if __name__ == "__main__":
    main()
