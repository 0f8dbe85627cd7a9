"""How live the playground feels, in Debian's chromium against a real server (issue 11).

    .venv/bin/python bench/bench_live.py [--app DIR] [--rounds 7]

`--app` points at a checkout to measure (default: this one), so the same script
measures the code before the change (``git worktree add --detach /tmp/before 2d29934``,
then ``--app /tmp/before``).  Prints, in seconds:

  * keystroke -> updated tokens, Compare with gpt2 + cl100k_base on 3,000 characters:
    from the last key event until both rows show the new text (median, max).  The old
    text area needs Ctrl+Enter: there the clock starts at Ctrl+Enter, after the typing.
  * first render: Compare with that text, a fresh browser (cold session)
  * the cold o200k merge tree: a fresh server, /tree?tok=…&tenc=o200k_base, until the tree is
    drawn (includes loading the vocabulary), and the engine time for the tree alone
  * after a 2 MB paste on Tokenize: switching the pane, switching the encoding, opening the
    Merge tree page (each until the new content is drawn and nothing is stale)
Not a test: numbers depend on the machine (targets: keystroke < 0.5 s, tree < 0.3 s of engine
time, interactions after 2 MB < 1.5 s).
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path
from urllib.parse import quote

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import engine  # noqa: E402
from bench.served import CHROMIUM, CHROMIUM_ARGS, VIEWPORT, served  # noqa: E402
from playwright.sync_api import Page, expect, sync_playwright  # noqa: E402

LONG = 60_000  # ms


def corpus_text(n: int) -> str:
    path = ROOT / "tests" / "data" / "corpus" / "taylorswift.txt"
    text = path.read_text(encoding="utf-8") if path.exists() else "The quick brown fox 1234567. "
    while len(text) < n:
        text += text
    return text[:n]


def settled(page: Page) -> None:
    """Nothing left over from the previous run, and the script has stopped."""
    expect(page.locator("[data-stale='true']")).to_have_count(0, timeout=LONG)
    expect(page.get_by_test_id("stStatusWidget").filter(has_text="Running")).to_have_count(0, timeout=LONG)


def is_live(page: Page) -> bool:
    return page.locator("textarea#bpe-live-text").count() > 0


def rows_show(page: Page, text: str) -> None:
    """Wait until both Compare rows draw exactly `text` (whitespace markers are off)."""
    page.wait_for_function(
        "t => ['cmp-gpt2', 'cmp-cl100k_base'].every(id => { const e = document.getElementById(id);"
        " return e && e.textContent === t; })", arg=text, timeout=LONG)


def keystrokes(page: Page, url: str, text: str, rounds: int) -> tuple[float, list[float]]:
    t = time.perf_counter()
    page.goto(f"{url}/compare?enc=gpt2,cl100k_base&ws=0&text={quote(text)}")
    rows_show(page, text)
    first = time.perf_counter() - t
    settled(page)
    box = page.get_by_label("Text", exact=True)
    box.click()
    page.keyboard.press("Control+End")
    live = is_live(page)
    times = []
    current = text
    for i in range(rounds):
        ch = "abcdefghij"[i % 10]
        current += ch
        if live:
            t = time.perf_counter()
            page.keyboard.type(ch)
        else:
            page.keyboard.type(ch)
            t = time.perf_counter()
            page.keyboard.press("Control+Enter")
        rows_show(page, current)
        times.append(time.perf_counter() - t)
        settled(page)
        page.wait_for_timeout(300)
    return first, times


def cold_tree(app: Path, token_id: int) -> float:
    with served(app, prefix="bench_live_") as server, sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        page = browser.new_page(viewport=VIEWPORT)
        t = time.perf_counter()
        page.goto(f"{server.url}/tree?tok={token_id}&tenc=o200k_base")
        expect(page.locator("svg.merge-tree g.node").first).to_be_visible(timeout=LONG)
        took = time.perf_counter() - t
        browser.close()
    return took


def engine_tree_times(token_ids: list[int]) -> tuple[float, float, float]:
    """(worst one-token tree via merge_tree_of, mean, first tree via the full recovery) in seconds."""
    enc = engine.get_encoding("o200k_base")
    ranks = enc.mergeable_ranks
    worst = total = 0.0
    for token_id in token_ids:
        t = time.perf_counter()
        engine.tokenizer.merges.merge_tree_of(enc.decode_single_token_bytes(token_id), ranks)
        took = time.perf_counter() - t
        worst, total = max(worst, took), total + took
    t = time.perf_counter()
    enc.merge_tree(token_ids[0])
    return worst, total / len(token_ids), time.perf_counter() - t


def paste(page: Page, text: str) -> None:
    """Put `text` in the box as a paste would (one input event), and apply it."""
    box = page.get_by_label("Text", exact=True)
    # the native value setter, so React's text area (the old box) sees the change too
    box.evaluate("(e, t) => { Object.getOwnPropertyDescriptor(HTMLTextAreaElement.prototype, 'value').set.call(e, t);"
                 " e.dispatchEvent(new Event('input', {bubbles: true})); }", text)
    if not is_live(page):
        box.press("Control+Enter")


# Waiting without stealing the page's main thread: Playwright's expect() and role queries compute
# accessible names over every drawn token span (0.5-1 s on a big page, time no user spends), so the
# timed waits poll this in the page, once per animation frame.
DRAWN = """([sel]) => document.querySelector(sel) !== null && !document.querySelector("[data-stale='true']")
  && ![...document.querySelectorAll("[data-testid='stStatusWidget']")].some(e => e.textContent.includes("Running"))"""


def timed(page: Page, locator, selector: str) -> float:
    """Find the control (untimed), click it, and time until `selector` is drawn and nothing is stale.
    Every `selector` used here is absent before its click, so the wait cannot end early."""
    handle = locator.element_handle(timeout=LONG)
    page.wait_for_timeout(300)
    t = time.perf_counter()
    handle.click()
    page.wait_for_function(DRAWN, arg=[selector], polling="raf", timeout=LONG)
    return time.perf_counter() - t


def after_big_paste(page: Page, url: str, text: str) -> dict[str, float]:
    page.goto(f"{url}/?enc=gpt2,cl100k_base&ws=0")
    expect(page.locator("#tokens-gpt2 span.tok").first).to_be_visible(timeout=LONG)
    settled(page)
    t = time.perf_counter()
    paste(page, text)
    n = len(engine.get_encoding("gpt2").encode(text))
    expect(page.get_by_test_id("stMetric").first).to_contain_text(f"{n:,}", timeout=LONG)
    settled(page)
    out = {"paste 2 MB (until the count shows)": time.perf_counter() - t}
    main = page.get_by_test_id("stMain")
    nav = page.get_by_test_id("stSidebarNav")
    out["switch pane Tokens -> Bytes"] = timed(page, main.get_by_role("radio", name="Bytes", exact=True),
                                               "#bytes-gpt2 span.tok")
    out["switch pane Bytes -> Tokens"] = timed(page, main.get_by_role("radio", name="Tokens", exact=True),
                                               "#tokens-gpt2 span.tok")
    out["switch encoding gpt2 -> cl100k_base"] = timed(
        page, main.get_by_role("radio", name="cl100k_base", exact=True), "#tokens-cl100k_base span.tok")
    out["open the Merge tree page"] = timed(page, nav.get_by_role("link", name="Merge tree", exact=True),
                                            "svg.merge-tree g.node")
    out["back to Tokenize"] = timed(page, nav.get_by_role("link", name="Tokenize", exact=True),
                                    ".tokens span.tok")
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--app", type=Path, default=ROOT, help="checkout to measure (default: this one)")
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--mb", type=float, default=2.0, help="size of the big paste in MB of text")
    args = parser.parse_args()
    app = args.app.resolve()
    o200k = engine.get_encoding("o200k_base")
    longest = max(o200k.mergeable_ranks, key=len)
    tree_id = o200k.mergeable_ranks[longest]

    with served(app, prefix="bench_live_") as server, sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        page = browser.new_page(viewport=VIEWPORT)
        first, keys = keystrokes(page, server.url, corpus_text(3_000), args.rounds)
        print("keystrokes", [round(k, 3) for k in keys], "first", round(first, 2), flush=True)
        page.close()
        page = browser.new_page(viewport=VIEWPORT)
        big = after_big_paste(page, server.url, corpus_text(int(args.mb * 1_000_000)))
        browser.close()
    cold = cold_tree(app, tree_id)
    import random

    ids = random.Random(0).sample(range(len(o200k.mergeable_ranks)), 2000) + [tree_id]
    worst, mean, full = engine_tree_times(ids)

    print(f"app: {app}")
    print(f"keystroke -> tokens, Compare 3,000 chars x 2 encodings   median {statistics.median(keys):.2f} s, "
          f"max {max(keys):.2f} s  ({len(keys)} keys; target < 0.5 s)")
    print(f"first render, Compare 3,000 chars (fresh session)        {first:6.2f} s")
    print(f"cold server: o200k tree of a {len(longest)}-byte token, goto -> drawn {cold:6.2f} s "
          "(includes loading o200k)")
    print(f"engine: one o200k tree by replay, worst of {len(ids):,} {worst * 1000:7.1f} ms, mean {mean * 1000:.2f} ms;"
          f" first tree via full recovery {full:.2f} s")
    for label, took in big.items():
        print(f"after a {args.mb:g} MB paste: {label:38s} {took:6.2f} s")


if __name__ == "__main__":
    main()
