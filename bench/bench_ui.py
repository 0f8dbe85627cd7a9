"""Measure the Tokenize/Compare views as a user feels them: a real server and Debian's chromium.

    .venv/bin/python bench/bench_ui.py [--rounds 3]

Prints, in seconds:
  * server start -> /_stcore/health ok
  * first render of Compare with two encodings (gpt2, cl100k_base), from `goto` after the
    server is up until both token rows are drawn (a fresh browser: cold session, cold caches)
  * rerender after editing a 10,000-character text (Compare and Tokenize): from Ctrl+Enter
    until the new token count is on the page (median and max of several edits)
Not a test: numbers depend on the machine (targets: first render < 3 s, rerender < 1 s).
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import engine  # noqa: E402
from bench.served import CHROMIUM, CHROMIUM_ARGS, VIEWPORT, served  # noqa: E402
from playwright.sync_api import expect, sync_playwright  # noqa: E402


def ten_k_text() -> str:
    corpus = (ROOT / "tests" / "data" / "corpus" / "taylorswift.txt")
    text = corpus.read_text(encoding="utf-8") if corpus.exists() else "The quick brown fox 1234567. " * 400
    return text[:10_000]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    gpt2, cl100k = engine.get_encoding("gpt2"), engine.get_encoding("cl100k_base")
    text = ten_k_text()

    with served(prefix="bench_ui_") as server:
        url, t_health = server.url, server.seconds_to_health
        with sync_playwright() as pw:
            t = time.perf_counter()
            browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            t_launch = time.perf_counter() - t
            page = browser.new_page(viewport=VIEWPORT)

            t = time.perf_counter()
            page.goto(url + "/compare")
            expect(page.locator("#cmp-gpt2 span.tok").first).to_be_visible(timeout=60_000)
            expect(page.locator("#cmp-cl100k_base span.tok").first).to_be_visible(timeout=60_000)
            t_first = time.perf_counter() - t

            box = page.get_by_label("Text", exact=True)

            def edit(new_text: str, where: str) -> float:
                box.fill(new_text)
                t = time.perf_counter()
                box.press("Control+Enter")
                if where == "compare":
                    expect(page.get_by_text(f"gpt2 · {len(gpt2.encode(new_text)):,} tokens")).to_be_visible(timeout=60_000)
                    expect(page.get_by_text(f"cl100k_base · {len(cl100k.encode(new_text)):,} tokens")).to_be_visible(timeout=60_000)
                else:
                    expect(page.get_by_test_id("stMetric").first).to_contain_text(f"{len(gpt2.encode(new_text)):,}", timeout=60_000)
                    expect(page.locator("#tokens-gpt2 span.tok").last).to_be_visible(timeout=60_000)
                return time.perf_counter() - t

            t_paste = edit(text, "compare")  # pasting the 10k text (new text for every cache)
            compare = [edit(text[:5_000] + f" edit{i} 12345 " + text[5_000:], "compare") for i in range(args.rounds)]

            page.goto(url + "/")
            expect(page.locator("#tokens-gpt2 span.tok").first).to_be_visible(timeout=60_000)
            box = page.get_by_label("Text", exact=True)
            tokenize = [edit(text[:3_000] + f" change{i} " + text[3_000:], "tokenize") for i in range(args.rounds)]
            browser.close()

    print(f"server start -> health ok              {t_health:6.2f} s")
    print(f"chromium launch                        {t_launch:6.2f} s")
    print(f"first render, Compare gpt2+cl100k_base {t_first:6.2f} s   (target < 3 s, from goto after server up)")
    print(f"paste 10,000 chars into Compare        {t_paste:6.2f} s")
    print(f"rerender after edit, Compare (10k)     median {statistics.median(compare):.2f} s, max {max(compare):.2f} s"
          "   (target < 1 s)")
    print(f"rerender after edit, Tokenize (10k)    median {statistics.median(tokenize):.2f} s, max {max(tokenize):.2f} s")


if __name__ == "__main__":
    main()
