"""First render of Tokenize with the encoding picker grouped by maker, on a cold server, in a real browser.

    .venv/bin/python bench/bench_picker.py [--rounds 3]

Each round starts a fresh server (nothing loaded, nothing cached) and a fresh browser, opens "/"
(the default selection gpt2, cl100k_base, o200k_base) and measures from `goto` until the first
token of the text is drawn and the picker's "Browse by maker or model" control is on the page (and
the server's CPU seconds until the first token is drawn: less sensitive to a busy machine than the wall time).
Then it opens the picker and times until the last maker's checkbox is drawn, and types a model
name into its search box and times until the match is shown; last, once the server's warm-up after
its first page is done (its CPU time stops growing), a new browser session opens "/" on the now warm
server, timed the same way as the first render.
Not a test: numbers depend on the machine (target: first render < 3 s).
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.served import CHROMIUM, CHROMIUM_ARGS, ROOT, cpu_seconds, served, settle  # noqa: E402
from playwright.sync_api import expect, sync_playwright  # noqa: E402


def one_round(app: Path, tokens_only: bool) -> tuple[float, ...]:
    with served(app, prefix="bench_picker_") as server, sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        page = browser.new_page(viewport={"width": 1300, "height": 900})
        cpu = cpu_seconds(server.proc.pid)
        t = time.perf_counter()
        page.goto(server.url + "/")
        expect(page.locator("#tokens-gpt2 span.tok").first).to_be_visible(timeout=60_000)
        cpu_first = cpu_seconds(server.proc.pid) - cpu
        if tokens_only:  # the app before the picker (an older checkout): no picker to time
            t_first = time.perf_counter() - t
            browser.close()
            return server.seconds_to_health, t_first, cpu_first, 0.0, 0.0, 0.0
        sidebar = page.get_by_test_id("stSidebar")
        expect(sidebar.get_by_text("Browse by maker or model")).to_be_visible(timeout=60_000)  # the toggle
        t_first = time.perf_counter() - t
        t = time.perf_counter()
        sidebar.get_by_text("Browse by maker or model").click()
        expect(sidebar.get_by_text("DeepSeek V4 (tokenizer.json)")).to_be_visible(timeout=60_000)
        t_open = time.perf_counter() - t
        box = sidebar.get_by_role("textbox", name="Find a model or maker")
        t = time.perf_counter()
        box.fill("gpt-4o-mini")
        box.press("Enter")
        expect(sidebar.get_by_text("gpt-4o-mini uses it")).to_be_visible(timeout=60_000)
        t_search = time.perf_counter() - t
        settle(server.proc.pid)  # the warm-up after the first page (vocabularies, pandas) is done
        warm = browser.new_context(viewport={"width": 1300, "height": 900}).new_page()  # a new session, warm server
        t = time.perf_counter()
        warm.goto(server.url + "/")
        expect(warm.locator("#tokens-gpt2 span.tok").first).to_be_visible(timeout=60_000)
        expect(warm.get_by_test_id("stSidebar").get_by_text("Browse by maker or model")).to_be_visible(timeout=60_000)
        t_warm = time.perf_counter() - t
        browser.close()
    return server.seconds_to_health, t_first, cpu_first, t_open, t_search, t_warm


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--app", type=Path, default=ROOT, help="checkout to measure (default: this one), "
                        "e.g. a `git worktree add --detach /tmp/before <commit>` for a before/after pair")
    parser.add_argument("--tokens-only", action="store_true", help="time the first render only (no picker)")
    args = parser.parse_args()
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    rounds = [one_round(args.app.resolve(), args.tokens_only) for _ in range(args.rounds)]
    for label, values in zip(["server start -> health", "first render of Tokenize (cold server)",
                              "  the server's CPU seconds meanwhile",
                              "open the picker", "search a model name",
                              "first render, a new session (warm server)"], zip(*rounds)):
        print(f"{label:42s} median {statistics.median(values):5.2f} s   max {max(values):5.2f} s   "
              f"({', '.join(f'{v:.2f}' for v in values)})")
    print(f"load average {os.getloadavg()[0]:.1f} at the end")


if __name__ == "__main__":
    main()
