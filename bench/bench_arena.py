"""How fast the Arena and the chunker are: 10 tokenizers × 10,000 characters, goal < 2 s (issue 10).

    .venv/bin/python bench/bench_arena.py [--chars 10000] [--no-browser]

Prints seconds for, each on the tokenizers below and a slice of the corpus (a new slice whenever
"new text" is measured, so the engine's piece and chunk caches do not help):

  * engine: loading the 10 vocabularies (once per server process); ranking on a new text
    (cold caches) and on the same text again (warm); the 32-language matrix; chunking
    10,000 and 100,000 characters with cl100k_base (256 tokens, paragraph ends);
  * AppTest: the Arena page run in-process: first run (vocabularies loaded in it), a new text,
    the same text again;
  * a served page in Debian's chromium (all 12 distinct built-ins, the page default): until the
    ranking and both charts are drawn -- a fresh server, a new text pasted in the box, a rerun
    on the same text, and the page opened again (a new browser session, the server warm).
Not a test: numbers depend on the machine and on what else runs on its two cores.
"""
from __future__ import annotations

import argparse
import subprocess
import sys
import time
from pathlib import Path
from urllib.parse import quote

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

NAMES = ["gpt2", "cl100k_base", "o200k_base", "llama3", "llama4", "qwen2.5", "qwen3.6",
         "mistral-tekken", "mistral-v3", "deepseek-v4"]
KW = {"allowed_special": set(), "disallowed_special": ()}


def corpus(n: int, offset: int) -> str:
    text = (ROOT / "tests" / "data" / "corpus" / "taylorswift.txt").read_text(encoding="utf-8")
    while len(text) < offset + n:
        text += text
    return text[offset:offset + n]


def timed(fn, *args, **kwargs):
    t = time.perf_counter()
    out = fn(*args, **kwargs)
    return time.perf_counter() - t, out


# ------------------------------------------------------------------ engine
ENGINE_SCRIPT = """
import sys, time, json
sys.path.insert(0, {root!r})
from bench.bench_arena import NAMES, KW, corpus, timed
import engine
t = time.perf_counter(); encs = [engine.get_encoding(n) for n in NAMES]; load = time.perf_counter() - t
out = {{"load": load}}
out["cold"], _ = timed(engine.rank_encodings, corpus({n}, 0), encs, **KW)
out["warm"], _ = timed(engine.rank_encodings, corpus({n}, 0), encs, **KW)
out["new text"], _ = timed(engine.rank_encodings, corpus({n}, 50_000), encs, **KW)
out["languages"], _ = timed(engine.language_matrix, encs)
out["languages again"], _ = timed(engine.language_matrix, encs)
enc = engine.get_encoding("cl100k_base")
out["chunk 10k"], r = timed(engine.chunk_text, corpus(10_000, 120_000), enc, 256, prefer="paragraph")
out["chunk 100k"], r = timed(engine.chunk_text, corpus(100_000, 140_000), enc, 256, prefer="paragraph")
print(json.dumps(out))
"""


def bench_engine(n: int) -> None:
    import json

    result = subprocess.run([sys.executable, "-c", ENGINE_SCRIPT.format(root=str(ROOT), n=n)],
                            capture_output=True, text=True, check=True, cwd=ROOT)
    out = json.loads(result.stdout.strip().splitlines()[-1])
    print(f"engine, a fresh process, {len(NAMES)} tokenizers × {n:,} characters:")
    print(f"  load the vocabularies        {out['load']:.2f} s  (once per server process)")
    print(f"  rank, cold caches            {out['cold']:.2f} s")
    print(f"  rank, same text again        {out['warm']:.3f} s")
    print(f"  rank, a new text             {out['new text']:.2f} s")
    print(f"  32-language matrix           {out['languages']:.2f} s  (again: {out['languages again']:.3f} s)")
    print(f"  chunk 10,000 chars (cl100k)  {out['chunk 10k']:.2f} s;  100,000 chars: {out['chunk 100k']:.2f} s")


# ------------------------------------------------------------------ AppTest
APPTEST_SCRIPT = """
import sys, time, json
sys.path.insert(0, {root!r})
from streamlit.testing.v1 import AppTest
from bench.bench_arena import NAMES, corpus
at = AppTest.from_file({app!r}, default_timeout=300)
at.session_state["_view"] = "views.arena"
at.session_state["arena_pick"] = NAMES
at.session_state["text"] = corpus({n}, 0)
out = {{}}
t = time.perf_counter(); at.run(); out["first"] = time.perf_counter() - t
assert not at.exception, at.exception
at.session_state["text"] = corpus({n}, 60_000)
t = time.perf_counter(); at.run(); out["new text"] = time.perf_counter() - t
t = time.perf_counter(); at.run(); out["same"] = time.perf_counter() - t
assert len(at.dataframe[0].value) == len(NAMES)
print(json.dumps(out))
"""


def bench_apptest(n: int) -> None:
    import json

    script = APPTEST_SCRIPT.format(root=str(ROOT), n=n, app=str(ROOT / "tests" / "apps" / "view_app.py"))
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True, cwd=ROOT)
    out = json.loads(result.stdout.strip().splitlines()[-1])
    print(f"AppTest, Arena page, {len(NAMES)} tokenizers × {n:,} characters (a fresh process):")
    print(f"  first run (loads the vocabularies)  {out['first']:.2f} s")
    print(f"  a new text                          {out['new text']:.2f} s")
    print(f"  the same text again                 {out['same']:.2f} s")


# ------------------------------------------------------------------ browser
def bench_browser(n: int) -> None:
    import engine
    from playwright.sync_api import expect, sync_playwright

    from bench.served import CHROMIUM, CHROMIUM_ARGS, VIEWPORT, served

    with served(prefix="bench_arena_") as server:
        url = server.url
        kept, _ = engine.explain.arena.distinct_encodings([engine.get_encoding(x) for x in engine.list_tokenizer_names()])
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            page = browser.new_page(viewport=VIEWPORT)

            def shown(text: str) -> None:
                best = min(len(e.encode(text, **KW)) for e in kept)
                expect(page.get_by_text(f"need the fewest tokens: {best:,} tokens").or_(
                    page.get_by_text(f"needs the fewest tokens: {best:,} tokens"))).to_be_visible(timeout=120_000)
                expect(page.get_by_test_id("stVegaLiteChart").nth(1).locator("svg, canvas").first).to_be_visible(
                    timeout=120_000)

            def settled() -> None:
                expect(page.locator("[data-stale='true']")).to_have_count(0, timeout=120_000)
                expect(page.get_by_test_id("stStatusWidget").filter(has_text="Running")).to_have_count(
                    0, timeout=120_000)

            text = corpus(n, 0)
            t = time.perf_counter()
            page.goto(f"{url}/arena?text={quote(text)}")
            shown(text)
            first = time.perf_counter() - t
            settled()
            text = corpus(n, 70_000)
            page.locator("textarea#bpe-live-text").fill(text)  # a paste: sent at once on blur or after 200 ms
            t = time.perf_counter()
            shown(text)
            new = time.perf_counter() - t
            settled()
            t = time.perf_counter()
            page.get_by_test_id("stMain").get_by_role("radio", name="tokens", exact=True).click()
            page.wait_for_timeout(50)
            settled()
            same = time.perf_counter() - t
            t = time.perf_counter()
            page.goto(f"{url}/arena?text={quote(text)}")
            shown(text)
            reload = time.perf_counter() - t
            browser.close()
        print(f"served page in chromium, {len(kept)} tokenizers × {n:,} characters (navigation until drawn):")
        print(f"  a fresh server (loads the vocabularies)    {first:.2f} s")
        print(f"  a new text pasted (until drawn)            {new:.2f} s  (includes the box's 200 ms debounce)")
        print(f"  a rerun on the same text (Colour by)       {same:.2f} s")
        print(f"  the page opened again, a new session       {reload:.2f} s  (page boot included)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--chars", type=int, default=10_000)
    parser.add_argument("--no-browser", action="store_true")
    args = parser.parse_args()
    bench_engine(args.chars)
    bench_apptest(args.chars)
    if not args.no_browser:
        bench_browser(args.chars)


if __name__ == "__main__":
    main()
