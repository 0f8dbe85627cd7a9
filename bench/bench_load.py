"""Load benchmark: N concurrent users against one Streamlit server, timed on the server side.

    .venv/bin/python bench/bench_load.py --start-server                     # N = 1, 4, 8, 16
    .venv/bin/python bench/bench_load.py --start-server --sessions 1,4,8,16,32 --out load.md
    .venv/bin/python bench/bench_load.py --url http://127.0.0.1:8501 --pid 1234   # a running server
    .venv/bin/python bench/bench_load.py --start-server --replicas 2                # 2 replicas behind nginx

Each simulated user is a Python client speaking Streamlit's own websocket protocol
(the `streamlit.proto` BackMsg/ForwardMsg messages the browser sends and receives), so
there is no browser and no rendering: an action's time is from sending the rerun
request to receiving ``script_finished`` -- the server's work plus loopback.  Browser
rendering is measured separately by `bench/bench_ui.py`.

The client behaves like Streamlit's frontend (1.67): it loads the page over HTTP (which
sets the XSRF cookie), opens ``/_stcore/stream`` with the ``streamlit, <xsrf token>``
subprotocols, sends ``rerun_script`` with the URL's query string and page name, keeps
the values of the widgets it has set and drops those the last run did not draw; on a
page change it sends only the widgets of the common script (the sidebar) and an empty
query string.  Widgets are found by their ``key``: Streamlit's element id for a keyed
widget ends in ``-<key>``.

Every user runs this script (think time between actions):

| action | what the client sends |
|---|---|
| open_tokenize | connect, rerun page ``tokenize`` with ``?text=<its own text>&enc=gpt2,cl100k_base`` |
| edit_text | the live text box (key ``live_text``) reports a longer text, as a trigger value like the browser |
| compare | page change to Compare |
| merge_tree | page change to Merge tree |
| vocabulary | page change to Vocabulary (cl100k_base's 100k-row table) |
| vocab_search | the search box (key ``vocab_query``) set to ``ing`` |
| train_page | page change to Train your own |
| train_512 | the training text (key ``train_text``) set to ~20 kB and the Train button (key ``train_go``) clicked; vocabulary size 512 (the default) |
| back_to_tokenize | page change to Tokenize |

Each user's texts carry a marker of its own (``u0003x9f2c1a``).  After every run the
client scans the raw messages: another user's marker means crossed state; its own
marker is expected on Tokenize and Compare (they show the text).  Counted per level:
**errors** (an exception element, a compile error, an action that failed its check),
**lost sessions** (the socket closed, an action timed out or the level's time ran out,
or another user's state arrived), and **text lost** (back on Tokenize the user's text
was replaced -- the app's state bug of issue 13, counted apart).  Server RSS (the server
process and its children) is sampled during the level and measured again after every
user has left and a probe session has let Streamlit expire the disconnected ones.

The report has two tables: p50 / p95 per action and N, then per N the p95 over all
actions pooled and its ratio to N = 1 (the issue's "within 3x"), the worst single
action's p95 ratio (noisy: N = 1 has one sample per action), the slowest action, the
counts above, wall time, server and client CPU seconds (the client shares the CPUs), and
RSS.  An unmeasured warm-up user runs first, so N = 1 is not charged for cold caches.  N = 1 is
`--baseline-rounds` users (default 5) one after another, pooled: with a single user's 9 samples
its "p95" was simply its slowest action (the training), and that one sample moved by ±30% from
run to run (0.10-0.27 s), more than any change being measured.
"""
from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import random
import re
import resource
import json
import statistics
import sys
import time
import urllib.parse
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

APP_DIR = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(APP_DIR))
from bench.served import served  # noqa: E402
from deploy.run_replicas import Cluster  # noqa: E402

CORPUS = APP_DIR / "tests" / "data" / "corpus" / "taylorswift.txt"  # minbpe's training text
MARKER = re.compile(rb"u\d{4}x[0-9a-f]{6}")
ACTIONS = ["open_tokenize", "edit_text", "compare", "merge_tree", "vocabulary", "vocab_search",
           "train_page", "train_512", "back_to_tokenize"]
BASE_TEXT = ("Hello world! Tokenizers cut text into pieces: \"unbelievable\" isn't one word to GPT-2. "
             "Numbers: 1234567 + 2026 = 1236593. Languages: こんにちは世界 · Привет мир · مرحبا بالعالم · 👋🏽 🇯🇵\n")
FINISHED_OK = ForwardMsg.FINISHED_SUCCESSFULLY
FINISHED_EARLY = ForwardMsg.FINISHED_EARLY_FOR_RERUN
FINISHED_FRAGMENT = ForwardMsg.FINISHED_FRAGMENT_RUN_SUCCESSFULLY


class ActionFailed(Exception):
    """The server answered, but not as a working app would (exception shown, check failed)."""


class SessionLost(Exception):
    """The session stopped answering, its socket closed, or it received another user's state."""


# ------------------------------------------------------------------ the protocol client
@dataclass
class Widget:
    id: str
    kind: str
    script_hash: str  # the script that drew it: the main script's for sidebar widgets


@dataclass
class RunResult:
    seconds: float
    status: int
    raw: bytes  # every message of the run, serialized, for marker checks
    exceptions: list[str]
    n_messages: int
    kinds: set[str]  # element types drawn (metric, dataframe, markdown, ...)


class StreamlitClient:
    """One browser tab, minus the browser: HTTP page load, then ForwardMsg/BackMsg over the websocket."""

    def __init__(self, base_url: str, timeout: float):
        self.base = base_url.rstrip("/")
        self.timeout = timeout
        self.ws = None
        self.query_string = ""
        self.page_hash = ""
        self.main_hash = ""
        self.pages: dict[str, str] = {}  # url path -> page script hash
        self.widgets: dict[str, Widget] = {}  # user key -> widget drawn in the last run
        self.values: dict[str, object] = {}  # widget id -> WidgetState (values the user set)
        self.auto_reruns: dict[str, float] = {}  # fragment id -> interval (st.fragment(run_every=...))

    async def open(self, page: str, query: str) -> RunResult:
        """Load the page like a browser (cookies), connect the websocket, run the script."""
        cookies = await asyncio.to_thread(self._http_cookies, f"{self.base}/{page}?{query}")
        xsrf = cookies.get("_streamlit_xsrf", "")
        ws_url = "ws" + self.base[len("http"):] + "/_stcore/stream"
        headers = {"Origin": self.base}
        if cookies:
            headers["Cookie"] = "; ".join(f"{k}={v}" for k, v in cookies.items())
        self.ws = await asyncio.wait_for(
            connect(ws_url, subprotocols=["streamlit", xsrf] if xsrf else ["streamlit"],
                    additional_headers=headers, max_size=None, open_timeout=self.timeout),
            self.timeout)
        self.query_string = query
        return await self._rerun(page_name=page)

    def _http_cookies(self, url: str) -> dict[str, str]:
        with urllib.request.urlopen(url, timeout=self.timeout) as r:
            r.read()
            found = {}
            for header in r.headers.get_all("Set-Cookie") or []:
                name, _, rest = header.partition("=")
                found[name.strip()] = rest.split(";", 1)[0]
            return found

    async def set_widgets(self, **values) -> RunResult:
        """Set widgets by key (str -> string_value, bool True on a button -> a click), one rerun."""
        triggers = []
        for key, value in values.items():
            widget = self.widgets.get(key)
            if widget is None:
                raise ActionFailed(f"no widget with key {key!r} in the last run (drawn: {sorted(self.widgets)})")
            state = BackMsg().rerun_script.widget_states.widgets.add()
            state.id = widget.id
            if widget.kind == "button":
                state.trigger_value = True
                triggers.append(state)
                continue
            if isinstance(value, dict):  # a custom component's trigger values (the live text box: {"text": ...}),
                # sent as the browser sends them: one-shot events on the component's "__events" widget
                state.id = f"$$STREAMLIT_INTERNAL_KEY_{widget.id}__events"
                state.json_trigger_value = json.dumps([{"event": k, "value": v} for k, v in value.items()])
                triggers.append(state)
                continue
            elif isinstance(value, str):
                state.string_value = value
            elif isinstance(value, int):
                state.int_value = value
            else:
                raise TypeError(f"unsupported widget value {value!r}")
            self.values[widget.id] = state
        return await self._rerun(page_hash=self.page_hash, extra=triggers)

    async def switch_page(self, url_path: str) -> RunResult:
        """A click in the navigation: only the common script's widgets are kept, the query string is cleared."""
        target = self.pages.get(url_path)
        if target is None:
            raise ActionFailed(f"no page {url_path!r} in the navigation ({sorted(self.pages)})")
        if target != self.page_hash:
            keep = {w.id for w in self.widgets.values() if w.script_hash == self.main_hash}
            self.values = {wid: s for wid, s in self.values.items() if wid in keep}
            self.query_string = ""
        return await self._rerun(page_hash=target)

    async def until(self, first: RunResult, done, timeout: float) -> RunResult:
        """Follow the app's fragment auto-reruns (as the browser does) until `done(result)` holds.

        An app that shows a long job's progress with ``st.fragment(run_every=...)``
        finishes its script before the job; the action ends when its result is shown.
        Returns the merged result, timed from the first request."""
        result, deadline = first, time.perf_counter() + timeout
        while not done(result) and self.auto_reruns and time.perf_counter() < deadline:
            fragment_id, interval = next(iter(self.auto_reruns.items()))
            await asyncio.sleep(interval)
            more = await self._rerun(page_hash=self.page_hash, fragment_id=fragment_id)
            result = RunResult(result.seconds + interval + more.seconds, more.status, result.raw + more.raw,
                               result.exceptions + more.exceptions, result.n_messages + more.n_messages,
                               result.kinds | more.kinds)
        return result

    async def _rerun(self, *, page_hash: str = "", page_name: str = "", extra=(), fragment_id: str = "") -> RunResult:
        msg = BackMsg()
        cs = msg.rerun_script
        cs.query_string = self.query_string
        cs.page_script_hash = page_hash
        cs.page_name = page_name
        if fragment_id:
            cs.fragment_id = fragment_id
            cs.is_auto_rerun = True
        for state in [*self.values.values(), *extra]:
            cs.widget_states.widgets.add().CopyFrom(state)
        cs.context_info.timezone = "UTC"
        cs.context_info.locale = "en-US"
        cs.context_info.url = f"{self.base}/?{self.query_string}"
        t0 = time.perf_counter()
        try:
            await self.ws.send(msg.SerializeToString())
            return await asyncio.wait_for(self._read_run(t0, fragment=bool(fragment_id)), self.timeout)
        except (ConnectionClosed, OSError) as exc:
            raise SessionLost(f"connection closed: {exc}") from exc
        except TimeoutError as exc:
            raise SessionLost(f"no script_finished within {self.timeout:.0f} s") from exc

    async def _read_run(self, t0: float, fragment: bool = False) -> RunResult:
        raw, exceptions, n, kinds = [], [], 0, set()
        widgets: dict[str, Widget] = dict(self.widgets) if fragment else {}
        while True:
            data = await self.ws.recv()
            n += 1
            raw.append(data)
            fm = ForwardMsg()
            fm.ParseFromString(data)
            kind = fm.WhichOneof("type")
            if kind == "new_session":
                if not fragment:
                    widgets = {}  # a new full run (also after a rerun the script asked for)
                    self.auto_reruns = {}
                self.main_hash = fm.new_session.main_script_hash or self.main_hash
                self.page_hash = fm.new_session.page_script_hash or self.page_hash
            elif kind == "navigation":
                self.pages = {p.url_pathname: p.page_script_hash for p in fm.navigation.app_pages}
                for p in fm.navigation.app_pages:  # the default page's url path is "": also by its name
                    self.pages.setdefault(p.page_name.lower(), p.page_script_hash)
                self.page_hash = fm.navigation.page_script_hash or self.page_hash
            elif kind == "auto_rerun":
                self.auto_reruns[fm.auto_rerun.fragment_id] = fm.auto_rerun.interval
            elif kind == "stop_auto_rerun":
                for fragment_id in fm.stop_auto_rerun.fragment_ids:
                    self.auto_reruns.pop(fragment_id, None)
            elif kind == "page_info_changed":
                self.query_string = fm.page_info_changed.query_string
            elif kind == "delta" and fm.delta.WhichOneof("type") == "new_element":
                el = fm.delta.new_element
                el_kind = el.WhichOneof("type")
                kinds.add(el_kind)
                if el_kind == "exception":
                    exceptions.append(f"{el.exception.type}: {el.exception.message}"[:300])
                elif el_kind:
                    wid = getattr(getattr(el, el_kind), "id", "")
                    if isinstance(wid, str) and wid.startswith("$$ID-"):
                        key = wid.split("-", 2)[2]
                        widgets[key] = Widget(wid, el_kind, fm.metadata.active_script_hash)
            elif kind == "script_finished":
                if fm.script_finished == FINISHED_EARLY:
                    continue  # the script called st.rerun / switch_page: the next run follows
                self.widgets = widgets
                if not fragment:  # the browser forgets widgets a full run did not draw
                    live = {w.id for w in widgets.values()}
                    self.values = {wid: s for wid, s in self.values.items() if wid in live}
                return RunResult(time.perf_counter() - t0, fm.script_finished, b"".join(raw), exceptions, n, kinds)

    async def close(self) -> None:
        if self.ws is not None:
            with contextlib.suppress(Exception):
                await self.ws.close()


# ------------------------------------------------------------------ one user
@dataclass
class UserReport:
    times: dict[str, float] = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)
    lost: str | None = None
    text_lost: bool = False


def training_text(n_bytes: int) -> str:
    text = CORPUS.read_text(encoding="utf-8") if CORPUS.exists() else BASE_TEXT * 200
    return text.encode("utf-8")[:n_bytes].decode("utf-8", errors="ignore")


@dataclass(frozen=True)
class Expect:
    """What an action's answer must hold: bytes (text on the page) and element types."""
    text: bytes | None = None
    kinds: frozenset[str] = frozenset()

    def met(self, result: RunResult) -> bool:
        return (self.text is None or self.text in result.raw) and self.kinds <= result.kinds

    def missing(self, result: RunResult) -> str:
        parts = [f"element {k}" for k in sorted(self.kinds - result.kinds)]
        if self.text is not None and self.text not in result.raw:
            parts.append(repr(self.text.decode()))
        return ", ".join(parts)


SEARCH = "ing"  # the Vocabulary search every user types
# The app's names the script relies on: url paths (playground/pages.py) and widget keys (the views).
TOKENIZE, COMPARE, TREE, VOCAB, TRAIN = "tokenize", "compare", "tree", "vocab", "train"
KEY_TEXT, KEY_SEARCH, KEY_TRAIN_TEXT, KEY_TRAIN_GO = "live_text", "vocab_query", "train_text", "train_go"


def search_count() -> str:
    """How many cl100k_base tokens contain SEARCH, as the app prints it ("9,312")."""
    sys.path.insert(0, str(APP_DIR))
    import engine

    return f"{len(engine.explain.vocab.search_substring(engine.get_encoding('cl100k_base'), SEARCH)):,}"


async def user(index: int, base: str, *, seed: int, timeout: float, think: float, train_text: str,
               n_found: str) -> UserReport:
    rng = random.Random(seed * 1000 + index)
    marker = f"u{index:04d}x{rng.getrandbits(24):06x}".encode()
    text = f"Session {marker.decode()} says: {BASE_TEXT}"
    edited = text + "\nAn edited second paragraph: 3.14159 tokens, tokenization, tokenizer, TOKENS."
    report = UserReport()
    client = StreamlitClient(base, timeout)
    query = urllib.parse.urlencode({"text": text, "enc": "gpt2,cl100k_base"}, quote_via=urllib.parse.quote)

    steps = [  # (action, request, what its answer must show)
        ("open_tokenize", lambda: client.open(TOKENIZE, query), Expect(marker, frozenset({"metric"}))),
        ("edit_text", lambda: client.set_widgets(**{KEY_TEXT: {"text": edited}}),
         # the live text box does not echo the text back; the share link (page_info_changed) carries it
         Expect(b"An+edited+second+paragraph", frozenset({"metric"}))),
        ("compare", lambda: client.switch_page(COMPARE), Expect(marker, frozenset({"dataframe"}))),
        ("merge_tree", lambda: client.switch_page(TREE), Expect(b'class="merge-tree"', frozenset({"markdown"}))),
        ("vocabulary", lambda: client.switch_page(VOCAB), Expect(None, frozenset({"dataframe"}))),
        ("vocab_search", lambda: client.set_widgets(**{KEY_SEARCH: SEARCH}), Expect(n_found.encode(), frozenset())),
        ("train_page", lambda: client.switch_page(TRAIN), Expect(None, frozenset({"button"}))),
        ("train_512", lambda: client.set_widgets(
            **{KEY_TRAIN_TEXT: f"{marker.decode()} {train_text}", KEY_TRAIN_GO: True}),
         Expect(b"vocabulary of 512 tokens", frozenset())),
        ("back_to_tokenize", lambda: client.switch_page(TOKENIZE), Expect(None, frozenset({"metric"}))),
    ]
    try:
        for name, step, expect in steps:
            await asyncio.sleep(think * rng.uniform(0.5, 1.5))
            try:
                result = await client.until(await step(), expect.met, timeout)
            except ActionFailed as exc:
                report.errors.append(f"{name}: {exc}")
                continue
            report.times[name] = result.seconds
            foreign = {m for m in MARKER.findall(result.raw) if m != marker}
            if foreign:
                raise SessionLost(f"{name}: received another session's state ({b', '.join(sorted(foreign)).decode()})")
            if result.status not in (FINISHED_OK, FINISHED_FRAGMENT):
                report.errors.append(f"{name}: script finished with status {result.status}")
            for exc in result.exceptions:
                report.errors.append(f"{name}: {exc}")
            if not expect.met(result):
                report.errors.append(f"{name}: the answer lacks {expect.missing(result)}")
            if name == "back_to_tokenize" and marker not in result.raw:
                report.text_lost = True
    except SessionLost as exc:
        report.lost = str(exc)
    except asyncio.CancelledError:
        report.lost = "the level's time limit ran out"
    except Exception as exc:  # noqa: BLE001 - a client-side failure is reported, never hidden
        report.lost = f"{type(exc).__name__}: {exc}"
    finally:
        await client.close()
    return report


# ------------------------------------------------------------------ the server and its memory
def descendants(pid: int) -> list[int]:
    """pid and every process below it (a process pool's workers count as the server's)."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                ppid = int(Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            children.setdefault(ppid, []).append(int(entry))
    found, todo = [], [pid]
    while todo:
        p = todo.pop()
        found.append(p)
        todo.extend(children.get(p, []))
    return found


def _all(pid: int | list[int] | None) -> list[int]:
    """The processes of one server (int) or of every replica (a list), each with its children."""
    roots = [pid] if isinstance(pid, int) else list(pid or [])
    return [p for root in roots for p in descendants(root)]


def rss_mb(pid: int | list[int] | None) -> float | None:
    if pid is None:
        return None
    total = 0
    for p in _all(pid):
        with contextlib.suppress(OSError):
            for line in Path(f"/proc/{p}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1])
    return total / 1024


def cpu_seconds(pid: int | list[int] | None) -> float | None:
    if pid is None:
        return None
    tick = os.sysconf("SC_CLK_TCK")
    total = 0.0
    for p in _all(pid):
        with contextlib.suppress(OSError, IndexError, ValueError):
            fields = Path(f"/proc/{p}/stat").read_text().rsplit(")", 1)[1].split()
            total += (int(fields[11]) + int(fields[12]) + int(fields[13]) + int(fields[14])) / tick
    return total


@contextlib.contextmanager
def started_server(ttl: int):
    """`streamlit run app.py` on a free loopback port (bench/served.py), stopped at the end (this PID only)."""
    os.environ["STREAMLIT_SERVER_DISCONNECTED_SESSION_TTL"] = str(ttl)  # the server inherits it
    with served(APP_DIR, prefix="bench-load-") as server:
        print(f"server {server.url} pid {server.proc.pid}, log {server.log}", file=sys.stderr)
        yield server.url, server.proc.pid


@contextlib.contextmanager
def started_replicas(n: int, ttl: int):
    """`n` replicas behind nginx with sticky sessions (deploy/run_replicas.py), stopped at the end.

    Yields the proxy's URL and the replicas' PIDs (CPU and RSS are summed over them; nginx's own
    few MB are left out)."""
    os.environ["STREAMLIT_SERVER_DISCONNECTED_SESSION_TTL"] = str(ttl)  # the replicas inherit it
    with Cluster(n=n) as cluster:
        print(f"proxy {cluster.url}, replicas {[r.url for r in cluster.replicas]}", file=sys.stderr)
        yield cluster.url, [r.proc.pid for r in cluster.replicas]


# ------------------------------------------------------------------ one level of load
@dataclass
class Level:
    n: int
    reports: list[UserReport]
    wall: float
    rss_before: float | None
    rss_peak: float | None
    rss_after: float | None
    server_cpu: float | None
    client_cpu: float


async def run_level(n: int, base: str, pid: int | None, args, train_text: str) -> Level:
    rss_before = rss_mb(pid)
    cpu0, client0 = cpu_seconds(pid), _client_cpu()
    peak = [rss_before or 0.0]
    stop = asyncio.Event()

    async def sample() -> None:
        while not stop.is_set():
            value = await asyncio.to_thread(rss_mb, pid)
            if value is not None:
                peak[0] = max(peak[0], value)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), 0.5)

    sampler = asyncio.create_task(sample())
    t0 = time.perf_counter()
    rounds = args.baseline_rounds if n == 1 else 1  # N = 1: users one after another (a p95 of 9 samples is their max)

    async def lane(i: int) -> list[UserReport]:
        return [await user(i + n * r, base, seed=args.seed + n + 1000 * r, timeout=args.action_timeout,
                           think=args.think, train_text=train_text, n_found=args.n_found) for r in range(rounds)]

    tasks = [asyncio.create_task(lane(i)) for i in range(n)]
    done, pending = await asyncio.wait(tasks, timeout=args.level_timeout)
    for task in pending:
        task.cancel()
    reports = [report for t in tasks for report in await t]
    wall = time.perf_counter() - t0
    stop.set()
    await sampler
    cpu1 = cpu_seconds(pid)
    # Streamlit keeps a disconnected session for server.disconnectedSessionTTL and drops it
    # lazily; a probe session after that lets it expire the ones that left.
    await asyncio.sleep(args.settle)
    with contextlib.suppress(Exception):
        probe = StreamlitClient(base, args.action_timeout)
        await probe.open(TOKENIZE, "text=probe")
        await probe.close()
    await asyncio.sleep(2)
    return Level(n, reports, wall, rss_before, peak[0] if pid else None, rss_mb(pid),
                 None if cpu0 is None else cpu1 - cpu0, _client_cpu() - client0)


def _client_cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


# ------------------------------------------------------------------ report
def pct(values: list[float], q: float) -> float:
    """The q-quantile (nearest rank): p95 of 4 values is the largest."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * len(ordered) + 0.5) - 1))]


def fmt_mb(value: float | None) -> str:
    return "n/a" if value is None else f"{value:,.0f}"


def _times(lv: Level, action: str) -> list[float]:
    return [r.times[action] for r in lv.reports if action in r.times]


def tables(levels: list[Level]) -> str:
    """Two markdown tables: p50 / p95 per action, then errors, sessions, CPU and memory per N."""
    head = ["N", *ACTIONS]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for lv in levels:
        cells = [str(lv.n)]
        for action in ACTIONS:
            values = _times(lv, action)
            cells.append(f"{statistics.median(values):.2f} / {pct(values, 0.95):.2f}" if values else "–")
        lines.append("| " + " | ".join(cells) + " |")
    base = next((lv for lv in levels if lv.n == 1), None)
    head = ["N", "p95, all actions s", "vs N=1", "worst action's p95 vs N=1", "slowest action s", "errors",
            "lost sessions", "text lost", "wall s", "server CPU-s", "client CPU-s", "RSS before MB",
            "RSS peak MB", "RSS after MB"]
    lines += ["", "| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for lv in levels:
        pooled = [t for a in ACTIONS for t in _times(lv, a)]
        worst = max(pooled, default=0.0)
        p95 = pct(pooled, 0.95) if pooled else 0.0
        ratio = worst_ratio = "–"
        if base is not None and pooled:
            ratio = f"{p95 / pct([t for a in ACTIONS for t in _times(base, a)], 0.95):.1f}×"
            ratios = [pct(_times(lv, a), 0.95) / pct(_times(base, a), 0.95)
                      for a in ACTIONS if _times(lv, a) and _times(base, a)]
            worst_ratio = f"{max(ratios):.1f}×" if ratios else "–"
        cells = [str(lv.n), f"{p95:.2f}", ratio, worst_ratio, f"{worst:.2f}",
                 str(sum(len(r.errors) for r in lv.reports)),
                 str(sum(r.lost is not None for r in lv.reports)), str(sum(r.text_lost for r in lv.reports)),
                 f"{lv.wall:.1f}", "n/a" if lv.server_cpu is None else f"{lv.server_cpu:.1f}",
                 f"{lv.client_cpu:.1f}", fmt_mb(lv.rss_before), fmt_mb(lv.rss_peak), fmt_mb(lv.rss_after)]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def details(levels: list[Level]) -> str:
    out = []
    for lv in levels:
        for i, r in enumerate(lv.reports):
            if r.lost:
                out.append(f"- N={lv.n} user {i}: lost: {r.lost}")
            for e in r.errors[:3]:
                out.append(f"- N={lv.n} user {i}: error: {e}")
    return "\n".join(out[:60]) or "- none"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    where = parser.add_mutually_exclusive_group(required=True)
    where.add_argument("--url", help="a running server, e.g. http://127.0.0.1:8501 (loopback only)")
    where.add_argument("--start-server", action="store_true", help="start `streamlit run app.py` on a free port")
    parser.add_argument("--pid", type=int, help="with --url: the server's PID, for RSS and CPU")
    parser.add_argument("--sessions", default="1,4,8,16", help="concurrent users per level (default 1,4,8,16)")
    parser.add_argument("--think", type=float, default=0.5, help="mean pause between a user's actions, s")
    parser.add_argument("--train-kb", type=int, default=20, help="training text size, kB (default 20)")
    parser.add_argument("--action-timeout", type=float, default=120, help="one action's limit, s (then: lost)")
    parser.add_argument("--level-timeout", type=float, default=900, help="one level's limit, s")
    parser.add_argument("--settle", type=float, default=8, help="wait after a level before the RSS-after probe, s")
    parser.add_argument("--ttl", type=int, default=5, help="with --start-server: server.disconnectedSessionTTL, s")
    parser.add_argument("--replicas", type=int, default=1,
                        help="with --start-server: this many replicas behind nginx (deploy/run_replicas.py)")
    parser.add_argument("--baseline-rounds", type=int, default=5,
                        help="N = 1 runs this many users one after another and pools their times (default 5: "
                             "45 samples, so its p95 is not simply the slowest action)")
    parser.add_argument("--no-warmup", action="store_true", help="skip the unmeasured warm-up user")
    parser.add_argument("--seed", type=int, default=13)
    parser.add_argument("--out", type=Path, help="also write the markdown report here")
    args = parser.parse_args()
    levels_n = [int(x) for x in args.sessions.split(",") if x.strip()]
    if any(n < 1 or n > 64 for n in levels_n):
        parser.error("--sessions: each level between 1 and 64 users")
    if args.url and urllib.parse.urlparse(args.url).hostname not in ("127.0.0.1", "localhost", "::1"):
        parser.error("--url: loopback only (this drives real load)")
    train_text = training_text(args.train_kb * 1000)
    load0 = os.getloadavg()[0]
    where = (f"{args.replicas} replicas behind nginx (sticky sessions)" if args.start_server and args.replicas > 1
             else "one server process")
    args.n_found = search_count()

    with contextlib.ExitStack() as stack:
        if args.start_server and args.replicas > 1:
            base, pid = stack.enter_context(started_replicas(args.replicas, args.ttl))
        elif args.start_server:
            base, pid = stack.enter_context(started_server(args.ttl))
        else:
            base, pid = args.url.rstrip("/"), args.pid
        for w in range(0 if args.no_warmup else max(1, args.replicas)):  # new sessions take turns: one per replica
            warm = asyncio.run(user(9999 - w, base, seed=0, timeout=args.action_timeout, think=0,
                                    train_text=train_text, n_found=args.n_found))
            print(f"warm-up: {sum(warm.times.values()):.1f} s, errors {warm.errors or 'none'}, "
                  f"lost {warm.lost or 'no'}", file=sys.stderr)
        levels = []
        for n in levels_n:
            level = asyncio.run(run_level(n, base, pid, args, train_text))
            levels.append(level)
            print(f"N={n}: wall {level.wall:.1f} s, lost {sum(r.lost is not None for r in level.reports)}, "
                  f"errors {sum(len(r.errors) for r in level.reports)}", file=sys.stderr)

    ttl = f"server.disconnectedSessionTTL={args.ttl} s" if args.start_server else "the server's own session TTL"
    report = (f"Server-side time per action, p50 / p95 in seconds: rerun sent -> script_finished received "
              f"(after any fragment auto-reruns the action waits for), no browser. N users at once, each running "
              f"the {len(ACTIONS)} actions with {args.think} s mean think time; {args.train_kb} kB training text; "
              f"{os.cpu_count()} CPUs, load average {load0:.1f} at the start and {os.getloadavg()[0]:.1f} at the end; "
              f"{where}. RSS: the server process "
              f"and its children; 'after' = {args.settle:.0f} s after the last user left plus one probe session "
              f"({ttl}).\n\n{tables(levels)}\n\nErrors and lost sessions:\n{details(levels)}\n")
    print(report)
    if args.out:
        args.out.write_text(report)


if __name__ == "__main__":
    main()
