"""Server memory while N sessions each upload three 200k-token tokenizers, and after they close; or, with
``--crafted``, while crafted files are uploaded one after the other, and then several at once.

    .venv/bin/python bench/bench_upload_memory.py [--sessions 3] [--after 20] [--budget-mb 600] [--same-browser]
    .venv/bin/python bench/bench_upload_memory.py --crafted [--together 3] [--app PATH]

``--same-browser`` opens the sessions as tabs of one browser (one context, so one cookie jar): they share one
client's part of the budget (playground/cache/uploads.py, `CLIENT_SHARE`).

``--crafted``: in one session, each file of tests/engine/formats/crafted_big_files.py's `BIG_FILES` (issue 33,
item 2) is uploaded as "Any tokenizer file" and loaded; the server's RSS before, its peak while it was read
(sampled every 0.1 s) and after, and the outcome are printed per file.  Then `--together` sessions (separate
browsers) load llama.cpp's Gemma 4 vocabulary GGUF (15.8 MB, 262,144 tokens, when the test packages are on
this machine; else o200k's rank file) at the same moment: the RSS peak, and how many the budget refused.

Starts the app (bench/served.py), then opens N browser sessions one after the other (Debian's
chromium; each a fresh context, so a fresh Streamlit session), and in each uploads on Train
your own o200k_base, llama4 and cl100k_base as tiktoken rank files (3.6, 3.4 and 1.7 MB; about
200,000 ids each) and loads them.  All sessions stay open until the last has loaded, then all
close.  Prints the Streamlit process's RSS (MB; job processes are separate and short-lived):
before the first session (a warm server: one page drawn, its warm-up of every built-in finished), the peak while
sampling every 0.2 s, and `--after` seconds after
every session closed; and how many uploads the server-wide budget refused (its message).

Issue 21.15 observed, before playground/uploads.py (now playground/cache/uploads.py): 20 sessions x 3 o200k-size uploads took a
fresh server from 54 MB to 2.5 GB, still 2.5 GB 140 s after every session closed.
Not a test: numbers depend on the machine and on what else runs.
"""
from __future__ import annotations

import argparse
import gzip
import os
import re
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.served import CHROMIUM, CHROMIUM_ARGS, VIEWPORT, served, settle  # noqa: E402
from engine.formats.tiktoken_files import DATA_DIR  # noqa: E402
from playwright.sync_api import expect, sync_playwright  # noqa: E402

FILES = ("o200k_base.tiktoken.gz", "llama4.tiktoken.gz", "cl100k_base.tiktoken.gz")
WAIT = 120_000  # ms for one load on a busy 2-core machine


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError(f"no VmRSS for pid {pid}")


class Sampler(threading.Thread):
    """The peak RSS of one process, sampled every `every` seconds until stopped."""

    def __init__(self, pid: int, every: float = 0.2) -> None:
        super().__init__(daemon=True)
        self.pid, self.peak, self.every, self._stop_event = pid, 0.0, every, threading.Event()

    def run(self) -> None:
        while not self._stop_event.is_set():
            self.peak = max(self.peak, rss_mb(self.pid))
            time.sleep(self.every)

    def stop(self) -> float:
        self._stop_event.set()
        self.join()
        return self.peak


def upload_three(page, files: list[Path], legacy: bool = False) -> tuple[int, list[str]]:
    """One session: upload and load each file; (loaded, refusals' texts)."""
    page.goto("/train")
    expect(page.get_by_role("button", name="Train", exact=True)).to_be_visible(timeout=WAIT)
    page.get_by_test_id("stMain").get_by_role("radio", name="tiktoken rank file", exact=True).click()
    uploader = page.get_by_test_id("stFileUploader").filter(has_text="Rank file")
    loaded, refused = 0, []
    for path in files:
        uploader.get_by_test_id("stFileUploaderDropzoneInput").set_input_files(str(path))
        name_box = page.get_by_label("Name", exact=True)  # filled from the file ("my-o200k_base": a built-in's)
        if legacy:  # a checkout before issue 21: no name box, names are stem-<hash>
            expect(uploader).to_contain_text(path.name, timeout=WAIT)
            time.sleep(1)  # the upload's rerun
            name = path.stem
        else:
            expect(name_box).to_have_value(re.compile(re.escape(path.stem) + "$"), timeout=WAIT)
            name = name_box.input_value()
        page.get_by_role("button", name="Load tokenizer").click()
        outcome = page.get_by_test_id("stAlertContentSuccess").filter(has_text=f"Loaded {name}").or_(
            page.get_by_test_id("stAlertContentError"))
        expect(outcome).to_be_visible(timeout=WAIT)
        text = outcome.inner_text()
        if text.startswith("Loaded"):
            loaded += 1
        else:
            refused.append(text)
    return loaded, refused


def load_detected(page, path: Path) -> str:
    """On Train your own, as "Any tokenizer file": upload `path`, load it; the outcome's text."""
    page.goto("/train")
    expect(page.get_by_role("button", name="Train", exact=True)).to_be_visible(timeout=WAIT)
    detecting_uploader(page).get_by_test_id("stFileUploaderDropzoneInput").set_input_files(str(path))
    expect(page.get_by_label("Name", exact=True)).not_to_have_value("", timeout=WAIT)
    page.get_by_role("button", name="Load tokenizer").click()
    return outcome_text(page)


def detecting_uploader(page):
    """The "Any tokenizer file" uploader (the Train section above has one for its text)."""
    return page.get_by_test_id("stFileUploader").filter(has_text="Tokenizer file(s)")


def outcome_text(page) -> str:
    outcome = page.get_by_test_id("stAlertContentSuccess").filter(has_text="Loaded").or_(
        page.get_by_test_id("stAlertContentError"))
    expect(outcome.first).to_be_visible(timeout=WAIT)
    return outcome.first.inner_text()


def crafted(args) -> None:
    """``--crafted``: each crafted file alone, then `--together` big real ones at once (see the module doc)."""
    from tests.engine.formats.crafted_big_files import BIG_FILES

    tmp = Path(tempfile.mkdtemp(prefix="bench_upload_crafted_"))
    with served(args.app, prefix="bench_upload_") as server, sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        warm = browser.new_context(viewport=VIEWPORT, base_url=server.url)
        warm.new_page().goto("/train")
        time.sleep(5)
        warm.close()
        settle(server.proc.pid)
        print(f"{'file':<26} {'MB':>5} {'before':>7} {'peak':>7} {'after':>7}  outcome")
        for name, (filename, _kind, build) in BIG_FILES.items():
            path = tmp / filename
            path.write_bytes(build())
            context = browser.new_context(viewport=VIEWPORT, base_url=server.url)
            page = context.new_page()
            page.goto("/train")
            settle(server.proc.pid)
            before = rss_mb(server.proc.pid)
            sampler = Sampler(server.proc.pid, 0.1)
            sampler.start()
            text = load_detected(page, path)
            peak = sampler.stop()
            context.close()
            settle(server.proc.pid)
            print(f"{name:<26} {path.stat().st_size / 1e6:>5.1f} {before:>7,.0f} {peak:>7,.0f} "
                  f"{rss_mb(server.proc.pid):>7,.0f}  {' '.join(text.split())[:150]}", flush=True)
            path.unlink()
        path = big_real_file(tmp)
        contexts = [browser.new_context(viewport=VIEWPORT, base_url=server.url) for _ in range(args.together)]
        pages = [context.new_page() for context in contexts]
        for page in pages:
            page.goto("/train")
            expect(page.get_by_role("button", name="Train", exact=True)).to_be_visible(timeout=WAIT)
            detecting_uploader(page).get_by_test_id("stFileUploaderDropzoneInput").set_input_files(str(path))
            expect(page.get_by_label("Name", exact=True)).not_to_have_value("", timeout=WAIT)
        settle(server.proc.pid)
        before = rss_mb(server.proc.pid)
        sampler = Sampler(server.proc.pid, 0.1)
        sampler.start()
        t0 = time.perf_counter()
        for page in pages:  # the clicks go out at once; the server runs the loads side by side
            page.get_by_role("button", name="Load tokenizer").click()
        texts = [outcome_text(page) for page in pages]
        seconds = time.perf_counter() - t0
        peak = sampler.stop()
        loaded = sum(t.startswith("Loaded") for t in texts)
        print(f"\n{args.together} sessions load {path.name} ({path.stat().st_size / 1e6:.1f} MB) at once: {loaded} loaded, "
              f"{args.together - loaded} refused, in {seconds:.1f} s; server RSS {before:,.0f} -> peak {peak:,.0f} MB")
        for text in sorted(set(t for t in texts if not t.startswith("Loaded"))):
            print("  refused:", " ".join(text.split())[:300])
        browser.close()


def big_real_file(tmp: Path) -> Path:
    try:
        from tests.reference_packages import member

        data = member("llama-cpp-python", "llama_cpp_python-0.3.36/vendor/llama.cpp/models/ggml-vocab-gemma-4.gguf")
        path = tmp / "gemma-4.gguf"
    except Exception:  # noqa: BLE001  (no test packages on this machine)
        data = gzip.decompress((DATA_DIR / "o200k_base.tiktoken.gz").read_bytes())
        path = tmp / "o200k_base.tiktoken"
    path.write_bytes(data)
    return path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, default=3)
    parser.add_argument("--after", type=float, default=20.0, help="seconds to wait after the sessions closed")
    parser.add_argument("--budget-mb", type=int, default=None, help="BPE_UPLOAD_BUDGET_MB for the server")
    parser.add_argument("--app", type=Path, default=ROOT, help="another checkout to serve (e.g. one before issue 21)")
    parser.add_argument("--same-browser", action="store_true", help="the sessions as tabs of one browser")
    parser.add_argument("--crafted", action="store_true", help="upload the crafted files instead (see above)")
    parser.add_argument("--together", type=int, default=3, help="with --crafted: sessions loading a big file at once")
    args = parser.parse_args()
    if args.budget_mb is not None:
        os.environ["BPE_UPLOAD_BUDGET_MB"] = str(args.budget_mb)  # the server inherits the environment
    if args.crafted:
        crafted(args)
        return

    tmp = Path(tempfile.mkdtemp(prefix="bench_upload_"))
    files = []
    for name in FILES:
        path = tmp / name.removesuffix(".gz")
        path.write_bytes(gzip.decompress((DATA_DIR / name).read_bytes()))
        files.append(path)

    legacy = not any((args.app / "playground" / sub / "uploads.py").exists() for sub in ("", "cache"))
    with served(args.app, prefix="bench_upload_") as server, sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        warm = browser.new_context(viewport=VIEWPORT, base_url=server.url)
        warm.new_page().goto("/train")  # the first page of a server loads modules: not an upload's cost
        # ... and starts the warm-up, which loads every built-in (playground/serving/warmup.py): "before" is the
        # warm server, once its CPU use has settled, so that what stays after the sessions close is theirs
        settle(server.proc.pid, limit=120)
        warm.close()
        settle(server.proc.pid)
        before = rss_mb(server.proc.pid)
        sampler = Sampler(server.proc.pid)
        sampler.start()
        contexts, loaded, refused = [], 0, []
        t0 = time.perf_counter()
        shared = browser.new_context(viewport=VIEWPORT, base_url=server.url) if args.same_browser else None
        for i in range(args.sessions):
            context = shared or browser.new_context(viewport=VIEWPORT, base_url=server.url)
            if context not in contexts:
                contexts.append(context)
            n, why = upload_three(context.new_page(), files, legacy)
            loaded, refused = loaded + n, refused + why
            print(f"session {i + 1}: {n} loaded, {len(why)} refused; server RSS {rss_mb(server.proc.pid):,.0f} MB",
                  flush=True)
        all_open = rss_mb(server.proc.pid)
        for context in contexts:
            context.close()
        closed = time.perf_counter()
        after_1 = None
        while time.perf_counter() - closed < args.after:
            time.sleep(0.5)
            if after_1 is None and time.perf_counter() - closed >= 2:
                after_1 = rss_mb(server.proc.pid)
        peak = sampler.stop()
        after = rss_mb(server.proc.pid)
        browser.close()

    print(f"\n{args.sessions} sessions x {len(files)} uploads in {closed - t0:.0f} s: {loaded} loaded, "
          f"{len(refused)} refused by the budget")
    for text in sorted(set(refused)):
        print("  refused:", text[:300])
    print(f"server RSS (MB): before {before:,.0f}, with every session open {all_open:,.0f}, peak {peak:,.0f}, "
          f"2 s after they closed {after_1:,.0f}, {args.after:.0f} s after {after:,.0f}")


if __name__ == "__main__":
    main()
