"""How fast the Arena and the chunker are: every built-in × 10,000 characters of multilingual text,
goal < 2 s (issues 10 and 24).

    .venv/bin/python bench/bench_arena.py [--chars 10000] [--text ui-strings|english] [--names all|ten]
                                          [--no-browser]

Prints seconds for, each on the tokenizers below (by default every built-in,
``engine.list_tokenizer_names()``, an alias counted once, as the Arena shows them) and a slice of the
text (by default bench/data/ui_strings.txt.gz: GTK's strings in 118 locales, a new locale on every
line; a new slice whenever "new text" is measured, so the engine's piece caches do not help):

  * engine, a fresh process, the Arena view's engine calls in its order (`engine.get_encoding` per
    name, `distinct_encodings`, one `encode` per tokenizer, `rank_counts`, `language_matrix`):
    cold -- each tokenizer's first use, its vocabulary loaded then -- and warm (a new text, every
    vocabulary loaded), per tokenizer and in total; and chunking 10,000 and 100,000 characters with
    cl100k_base (256 tokens, paragraph ends);
  * AppTest: the Arena page run in-process: first run (vocabularies loaded in it), a new text,
    the same text again;
  * a served page in Debian's chromium (the page default: every built-in): until the ranking and
    both charts are drawn -- a fresh server, a new text pasted in the box, a rerun on the same
    text, and the page opened again (a new browser session, the server warm).
Not a test: numbers depend on the machine and on what else runs on its two cores (the load average
is printed first).
"""
from __future__ import annotations

import argparse
import gzip
import os
import subprocess
import sys
import time
from pathlib import Path
from urllib.parse import quote

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

TEN = ["gpt2", "cl100k_base", "o200k_base", "llama3", "llama4", "qwen2.5", "qwen3.6",
       "mistral-tekken", "mistral-v3", "deepseek-v4"]  # issue 10's set
KW = {"allowed_special": set(), "disallowed_special": ()}


def names(which: str) -> list[str]:
    import engine

    return list(engine.list_tokenizer_names()) if which == "all" else TEN


def corpus(n: int, offset: int, which: str = "ui-strings") -> str:
    if which == "ui-strings":
        text = gzip.decompress((ROOT / "bench" / "data" / "ui_strings.txt.gz").read_bytes()).decode("utf-8")
    else:
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
from bench.bench_arena import KW, corpus, names, timed
import engine
from engine.explain.arena import distinct_encodings, rank_counts


def arena(text, encs):
    # the view's engine calls for one text: a count per tokenizer, then the ranking
    per = {{}}
    counts = []
    for enc in encs:
        t, ids = timed(enc.encode, text, **KW)
        per[enc.name] = t
        counts.append((enc.name, len(ids)))
    t, _ = timed(rank_counts, counts, text)
    return per, t


out = {{"load": {{}}}}
t0 = time.perf_counter()
encs = []
for name in names({names!r}):
    t, enc = timed(engine.get_encoding, name)
    out["load"][name] = t
    encs.append(enc)
out["distinct"], (kept, _) = timed(distinct_encodings, encs)
out["cold"], out["rank cold"] = arena(corpus({n}, 0, {text!r}), kept)
out["languages"], _ = timed(engine.language_matrix, kept)
out["cold total"] = time.perf_counter() - t0
t0 = time.perf_counter()
out["new text"], out["rank new"] = arena(corpus({n}, 50_000, {text!r}), kept)
out["new text total"] = time.perf_counter() - t0
t0 = time.perf_counter()
out["same text"], _ = arena(corpus({n}, 50_000, {text!r}), kept)
out["same text total"] = time.perf_counter() - t0
out["languages again"], _ = timed(engine.language_matrix, kept)
enc = engine.get_encoding("cl100k_base")
out["chunk 10k"], r = timed(engine.chunk_text, corpus(10_000, 120_000, "english"), enc, 256, prefer="paragraph")
out["chunk 100k"], r = timed(engine.chunk_text, corpus(100_000, 140_000, "english"), enc, 256, prefer="paragraph")
print(json.dumps(out))
"""


def bench_engine(n: int, text: str, which: str) -> None:
    import json

    result = subprocess.run([sys.executable, "-c", ENGINE_SCRIPT.format(root=str(ROOT), n=n, text=text, names=which)],
                            capture_output=True, text=True, check=True, cwd=ROOT)
    out = json.loads(result.stdout.strip().splitlines()[-1])
    kept = list(out["cold"])
    print(f"engine, a fresh process, {len(kept)} tokenizers ({len(out['load'])} names) × {n:,} characters of {text}:")
    print(f"  {'tokenizer':<20} {'load':>6} {'cold':>6} {'new':>6} {'same':>6}   (s; cold = first text after the load)")
    for name in out["load"]:
        row = [out["load"][name]] + [out[k].get(name) for k in ("cold", "new text", "same text")]
        print(f"  {name:<20} " + " ".join("     -" if v is None else f"{v:6.3f}" for v in row))
    total = {k: sum(out[k].values()) for k in ("load", "cold", "new text", "same text")}
    print(f"  {'sum':<20} " + " ".join(f"{total[k]:6.2f}" for k in ("load", "cold", "new text", "same text")))
    print(f"  distinct_encodings (aliases)   {out['distinct']:.3f} s")
    print(f"  32-language matrix             {out['languages']:.2f} s  (again: {out['languages again']:.3f} s)")
    print(f"  the Arena, cold (loads + counts + ranking + languages)   {out['cold total']:.2f} s   (goal < 2 s)")
    print(f"  the Arena, warm: a new text (counts + ranking)           {out['new text total']:.2f} s   (goal < 2 s)")
    print(f"  the Arena, warm: the same text again (engine, no cache)  {out['same text total']:.2f} s")
    print(f"  chunk 10,000 chars (cl100k)  {out['chunk 10k']:.2f} s;  100,000 chars: {out['chunk 100k']:.2f} s")


# ------------------------------------------------------------------ AppTest
APPTEST_SCRIPT = """
import sys, time, json
sys.path.insert(0, {root!r})
from streamlit.testing.v1 import AppTest
from bench.bench_arena import corpus, names
at = AppTest.from_file({app!r}, default_timeout=300)
at.session_state["_view"] = "views.arena"
if {names!r} != "all":
    at.session_state["arena_pick"] = names({names!r})  # else the page's default: every built-in
at.session_state["text"] = corpus({n}, 0, {text!r})
out = {{}}
t = time.perf_counter(); at.run(); out["first"] = time.perf_counter() - t
assert not at.exception, at.exception
at.session_state["text"] = corpus({n}, 60_000, {text!r})
t = time.perf_counter(); at.run(); out["new text"] = time.perf_counter() - t
t = time.perf_counter(); at.run(); out["same"] = time.perf_counter() - t
assert not at.exception, at.exception
out["ranked"] = len(at.dataframe[0].value)
print(json.dumps(out))
"""


def bench_apptest(n: int, text: str, which: str) -> None:
    import json

    script = APPTEST_SCRIPT.format(root=str(ROOT), n=n, text=text, names=which,
                                   app=str(ROOT / "tests" / "app" / "view_app.py"))
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True, cwd=ROOT)
    out = json.loads(result.stdout.strip().splitlines()[-1])
    print(f"AppTest, Arena page, {out['ranked']} tokenizers ranked × {n:,} characters of {text} (a fresh process):")
    print(f"  first run (loads the vocabularies)  {out['first']:.2f} s")
    print(f"  a new text                          {out['new text']:.2f} s")
    print(f"  the same text again                 {out['same']:.2f} s")


# ------------------------------------------------------------------ browser
def bench_browser(n: int, text_kind: str, which: str) -> None:
    import engine
    from playwright.sync_api import expect, sync_playwright

    from bench.served import CHROMIUM, CHROMIUM_ARGS, VIEWPORT, cpu_seconds, served

    if which != "all":
        raise SystemExit("the browser part measures the page's default (every built-in): use --names all")
    kept, _ = engine.explain.arena.distinct_encodings([engine.get_encoding(x) for x in engine.list_tokenizer_names()])
    texts = [corpus(n, 0, text_kind), corpus(n, 70_000, text_kind)]
    best = {text: min(len(e.encode(text, **KW)) for e in kept) for text in texts}  # before any timing
    with served(prefix="bench_arena_") as server:
        url = server.url
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            page = browser.new_page(viewport=VIEWPORT)

            def shown(text: str) -> None:
                fewest = best[text]
                expect(page.get_by_text(f"need the fewest tokens: {fewest:,} tokens").or_(
                    page.get_by_text(f"needs the fewest tokens: {fewest:,} tokens"))).to_be_visible(timeout=120_000)
                expect(page.get_by_test_id("stVegaLiteChart").nth(1).locator("svg, canvas").first).to_be_visible(
                    timeout=120_000)

            def settled() -> None:
                expect(page.locator("[data-stale='true']")).to_have_count(0, timeout=120_000)
                expect(page.get_by_test_id("stStatusWidget").filter(has_text="Running")).to_have_count(
                    0, timeout=120_000)

            pid = server.proc.pid
            text = texts[0]
            cpu, t = cpu_seconds(pid), time.perf_counter()
            page.goto(f"{url}/arena?text={quote(text)}")
            shown(text)
            first, first_cpu = time.perf_counter() - t, cpu_seconds(pid) - cpu
            settled()
            text = texts[1]
            page.locator("textarea#bpe-live-text").fill(text)  # a paste: sent at once on blur or after 200 ms
            cpu, t = cpu_seconds(pid), time.perf_counter()
            shown(text)
            new, new_cpu = time.perf_counter() - t, cpu_seconds(pid) - cpu
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
        print(f"served page in chromium, {len(kept)} tokenizers × {n:,} characters of {text_kind} (navigation until drawn):")
        print(f"  a fresh server (loads the vocabularies)    {first:.2f} s  (server CPU {first_cpu:.2f} s)")
        print(f"  a new text pasted (until drawn)            {new:.2f} s  (server CPU {new_cpu:.2f} s; "
              "includes the box's 200 ms debounce)")
        print(f"  a rerun on the same text (Colour by)       {same:.2f} s")
        print(f"  the page opened again, a new session       {reload:.2f} s  (page boot included)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--chars", type=int, default=10_000)
    parser.add_argument("--text", choices=["ui-strings", "english"], default="ui-strings")
    parser.add_argument("--names", choices=["all", "ten"], default="all", help="every built-in, or issue 10's ten")
    parser.add_argument("--no-browser", action="store_true")
    parser.add_argument("--only", choices=["engine", "apptest", "browser"], help="run one part")
    args = parser.parse_args()
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    if args.only in (None, "engine"):
        bench_engine(args.chars, args.text, args.names)
    if args.only in (None, "apptest"):
        bench_apptest(args.chars, args.text, args.names)
    if args.only == "browser" or args.only is None and not args.no_browser:
        bench_browser(args.chars, args.text, args.names)
    print(f"load average {os.getloadavg()[0]:.1f} at the end")


if __name__ == "__main__":
    main()
