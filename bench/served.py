"""A Streamlit server for a bench: `streamlit run app.py` on a free loopback port, healthy before use, stopped after.

    with served() as server:             # this checkout
        page.goto(server.url + "/compare")
    with served(Path("/tmp/before")):    # another checkout (bench_live's --app)
        ...

The benches that drive a real server (bench_ui, bench_live, bench_arena, bench_load) start it
exactly as deploy/run_replicas.py starts a replica -- one command, one health check (fail at
once if the process died, with its log), one stop (this process only, never a group or a
name) -- so this module wraps that `Replica` in a context manager and times the start.
tests/conftest.py uses `Replica` itself: tests import nothing from bench/.  Chromium's path
and flags for the browser benches are here too, beside the server they talk to, and the server
process's CPU seconds (`cpu_seconds`, `settle`): on a busy machine they drift less than wall time.
"""
from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

from deploy.run_replicas import Replica, free_port

ROOT = Path(__file__).resolve().parent.parent
CHROMIUM = os.environ.get("CHROMIUM", shutil.which("chromium") or "/usr/bin/chromium")
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]
VIEWPORT = {"width": 1300, "height": 900}


@dataclass(frozen=True)
class Server:
    url: str
    proc: subprocess.Popen
    log: Path
    seconds_to_health: float  # from starting the process until /_stcore/health answered "ok"


@contextlib.contextmanager
def served(app: Path = ROOT, *, prefix: str = "bench_") -> Iterator[Server]:
    """`streamlit run app.py` in `app`, yielded once healthy (60 s at most), stopped on exit; log in a temp dir."""
    replica = Replica(free_port(), Path(tempfile.mkdtemp(prefix=prefix)) / "server.log", app_dir=app)
    t0 = time.perf_counter()
    replica.start()
    try:
        replica.wait_healthy()
        yield Server(replica.url, replica.proc, replica.log, time.perf_counter() - t0)
    finally:
        replica.stop()


def cpu_seconds(pid: int) -> float:
    """User + system CPU seconds process `pid` has used so far (Linux /proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def settle(pid: int, quiet: float = 0.05, limit: float = 30.0) -> None:
    """Wait until the server process spends under `quiet` CPU seconds in a second (at most `limit` s)."""
    end = time.monotonic() + limit
    last = cpu_seconds(pid)
    while time.monotonic() < end:
        time.sleep(1.0)
        now = cpu_seconds(pid)
        if now - last < quiet:
            return
        last = now
