"""Server memory while N sessions each upload three 200k-token tokenizers, and after they close.

    .venv/bin/python bench/bench_upload_memory.py [--sessions 3] [--after 20] [--budget-mb 600]

Starts the app (bench/served.py), then opens N browser sessions one after the other (Debian's
chromium; each a fresh context, so a fresh Streamlit session), and in each uploads on Train
your own o200k_base, llama4 and cl100k_base as tiktoken rank files (3.6, 3.4 and 1.7 MB; about
200,000 ids each) and loads them.  All sessions stay open until the last has loaded, then all
close.  Prints the Streamlit process's RSS (MB; job processes are separate and short-lived):
before the first session, the peak while sampling every 0.2 s, and `--after` seconds after
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

from bench.served import CHROMIUM, CHROMIUM_ARGS, VIEWPORT, served  # noqa: E402
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
    """The peak RSS of one process, sampled every 0.2 s until stopped."""

    def __init__(self, pid: int) -> None:
        super().__init__(daemon=True)
        self.pid, self.peak, self._stop_event = pid, 0.0, threading.Event()

    def run(self) -> None:
        while not self._stop_event.is_set():
            self.peak = max(self.peak, rss_mb(self.pid))
            time.sleep(0.2)

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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, default=3)
    parser.add_argument("--after", type=float, default=20.0, help="seconds to wait after the sessions closed")
    parser.add_argument("--budget-mb", type=int, default=None, help="BPE_UPLOAD_BUDGET_MB for the server")
    parser.add_argument("--app", type=Path, default=ROOT, help="another checkout to serve (e.g. one before issue 21)")
    args = parser.parse_args()
    if args.budget_mb is not None:
        os.environ["BPE_UPLOAD_BUDGET_MB"] = str(args.budget_mb)  # the server inherits the environment

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
        time.sleep(5)
        warm.close()
        time.sleep(2)
        before = rss_mb(server.proc.pid)
        sampler = Sampler(server.proc.pid)
        sampler.start()
        contexts, loaded, refused = [], 0, []
        t0 = time.perf_counter()
        for i in range(args.sessions):
            context = browser.new_context(viewport=VIEWPORT, base_url=server.url)
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
