"""Another session's keystrokes while two hostile tabs paste a costly text with a crafted upload (issue 33, 1c).

    .venv/bin/python bench/bench_hostile_tabs.py [--seconds 30] [--chars 12000] [name ...]
    .venv/bin/python bench/bench_hostile_tabs.py --app /work/hostile-before      # another checkout, as "before"

For each crafted file (tests/engine/formats/crafted_slow_files.py: the ones of `CRAFTED_SLOW` that still load,
and `AT_THE_BOUNDS`, the costliest files within the load-time bounds), on a fresh server
(`streamlit run app.py`, bench/served.py):

1. **alone**: one *normal* session on Tokenize (gpt2 + cl100k_base, a 2,000-character text) types: each
   keystroke sends the live text box's text one character longer, waits for the run to finish
   (``script_finished``), pauses `--think` seconds, and again, for half of `--seconds` (the other half
   comes after step 3, once the hostile tabs have gone: the machine's load drifts, and "alone" then
   brackets the round it is compared with);
2. two **hostile** sessions each upload the file on Train your own (the detecting uploader: the same
   websocket messages and HTTP PUT as a browser) and load it, which selects it in the sidebar; once both
   have loaded, each goes to Tokenize and pastes ``"a" * --chars`` (a counter at its end, so no paste is
   cached), waits for its run to finish and `--paste-every` seconds, and pastes again, for as long as the
   round lasts;
3. **with hostile tabs**: the normal session types as in 1 for `--seconds`.

The clients speak Streamlit's websocket protocol (bench/bench_load.py's `StreamlitClient`): a keystroke's
time is from sending the rerun request to receiving ``script_finished``, the server's work plus loopback.
Prints per file the keystrokes, p50 and p95 alone and with the hostile tabs, the ratio of the p95s (goal:
1.5 or less), the hostile pastes finished, the upload's load time, and the server process's CPU seconds in
each round (its job processes apart: a crafted file's work in the server shows here, whatever else the
machine runs).  A keystroke that gets no answer
within `--timeout` counts as that long.  Not a test: numbers depend on the machine (2 shared cores here).
"""
from __future__ import annotations

import argparse
import asyncio
import os
import sys
import time
import urllib.parse
import urllib.request
import uuid
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from streamlit.proto.BackMsg_pb2 import BackMsg  # noqa: E402
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg  # noqa: E402

from bench.bench_load import SessionLost, StreamlitClient, pct, training_text  # noqa: E402
from bench.served import cpu_seconds, served  # noqa: E402
from tests.engine.formats.crafted_slow_files import AT_THE_BOUNDS, CRAFTED_SLOW  # noqa: E402

# The app's names the clients rely on (playground/pages.py, playground/views/train.py's keys).
TOKENIZE, TRAIN = "tokenize", "train"
KEY_TEXT = "live_text"
KEY_UPLOAD = "upload_file_0"  # the detecting uploader ("Any tokenizer file"), before its first load
KEY_LOAD = "upload_go"
LOADS = ["sp_250k_user_defined"]  # of CRAFTED_SLOW, the files the load-time bounds let through
FILES = {**{n: CRAFTED_SLOW[n] for n in LOADS}, **AT_THE_BOUNDS}
VERBOSE = False


class UploadingClient(StreamlitClient):
    """A tab that can also upload a file, as the browser's file uploader does."""

    session_id = ""  # the server's id of this tab (upload URLs are per session)
    xsrf = ""

    async def _read_run(self, t0: float, fragment: bool = False):
        if self.session_id:
            return await super()._read_run(t0, fragment)
        real = self.ws.recv

        async def recv():  # the first run's messages looked at once more, for ``new_session``'s session id
            data = await real()
            fm = ForwardMsg()
            fm.ParseFromString(data)
            if fm.WhichOneof("type") == "new_session" and fm.new_session.initialize.session_id:
                self.session_id = fm.new_session.initialize.session_id
            return data

        self.ws.recv = recv
        try:
            return await super()._read_run(t0, fragment)
        finally:
            self.ws.recv = real

    async def upload(self, key: str, filename: str, data: bytes) -> None:
        """Ask the server for an upload URL (``file_urls_request``), PUT the file there, and give the
        uploader widget its file; the rerun is the caller's next action."""
        widget = self.widgets[key]
        request = BackMsg()
        request.file_urls_request.request_id = uuid.uuid4().hex
        request.file_urls_request.file_names.append(filename)
        request.file_urls_request.session_id = self.session_id
        await self.ws.send(request.SerializeToString())
        while True:  # the answer comes outside any script run
            fm = ForwardMsg()
            fm.ParseFromString(await asyncio.wait_for(self.ws.recv(), self.timeout))
            if fm.WhichOneof("type") == "file_urls_response":
                break
        urls = fm.file_urls_response.file_urls[0]
        await asyncio.to_thread(self._put, urls.upload_url, filename, data)
        state = BackMsg().rerun_script.widget_states.widgets.add()
        state.id = widget.id
        info = state.file_uploader_state_value.uploaded_file_info.add()
        info.name, info.size, info.file_id = filename, len(data), urls.file_id
        info.file_urls.CopyFrom(urls)
        self.values[widget.id] = state

    def _put(self, url: str, filename: str, data: bytes) -> None:
        boundary = uuid.uuid4().hex
        body = (f"--{boundary}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"{filename}\"\r\n"
                "Content-Type: application/octet-stream\r\n\r\n").encode() + data + f"\r\n--{boundary}--\r\n".encode()
        headers = {"Content-Type": f"multipart/form-data; boundary={boundary}", "X-Xsrftoken": self.xsrf,
                   "Cookie": f"_streamlit_xsrf={self.xsrf}"}
        full = url if url.startswith("http") else self.base + url
        with urllib.request.urlopen(urllib.request.Request(full, data=body, headers=headers, method="PUT"),
                                    timeout=self.timeout) as r:
            r.read()

    async def open(self, page: str, query: str):
        # The XSRF cookie an upload's PUT must echo in its header; this server sets it on the health check.
        cookies = await asyncio.to_thread(self._http_cookies, f"{self.base}/_stcore/health")
        self.xsrf = cookies.get("_streamlit_xsrf", "")
        return await super().open(page, query)



@dataclass
class Round:
    times: list[float] = field(default_factory=list)
    timeouts: int = 0


async def typing(base: str, seconds: float, think: float, timeout: float, text: str) -> Round:
    """The normal session: open Tokenize, then one keystroke after another for `seconds`."""
    client = StreamlitClient(base, timeout)
    query = urllib.parse.urlencode({"text": text, "enc": "gpt2,cl100k_base"}, quote_via=urllib.parse.quote)
    out = Round()
    try:
        await client.open(TOKENIZE, query)
        end = time.perf_counter() + seconds
        i = 0
        while time.perf_counter() < end:
            i += 1
            text += "abcdefghij klmnopqrstuvwxyz. "[i % 29]
            t0 = time.perf_counter()
            try:
                await client.set_widgets(**{KEY_TEXT: {"text": text}})
                out.times.append(time.perf_counter() - t0)
                if VERBOSE:
                    print(f"  {time.strftime('%H:%M:%S')} keystroke {out.times[-1]:.3f} s", flush=True)
            except SessionLost:  # no answer within the timeout: counted as that long, then a fresh tab
                out.times.append(timeout)
                out.timeouts += 1
                await client.close()
                client = StreamlitClient(base, timeout)
                await client.open(TOKENIZE, query)
            await asyncio.sleep(think)
    finally:
        await client.close()
    return out


@dataclass
class Hostile:
    loaded: asyncio.Event = field(default_factory=asyncio.Event)
    load_seconds: float = 0.0
    pastes: int = 0
    error: str = ""


async def hostile(k: int, base: str, filename: str, data: bytes, chars: int, pause: float, timeout: float,
                  stop: asyncio.Event, report: Hostile) -> None:
    """A hostile tab: upload `data` on Train your own, load it, then paste a costly text on Tokenize until `stop`."""
    client = UploadingClient(base, timeout)
    try:
        await client.open(TRAIN, "")
        await client.upload(KEY_UPLOAD, filename, data)
        await client._rerun(page_hash=client.page_hash)
        t0 = time.perf_counter()
        await client.set_widgets(**{KEY_LOAD: True})
        report.load_seconds = time.perf_counter() - t0
        report.loaded.set()
        await client.switch_page(TOKENIZE)
        while not stop.is_set():
            report.pastes += 1
            paste = "a" * (chars - 8) + f"{k}{report.pastes:07d}"
            t0 = time.perf_counter()
            try:
                await client.set_widgets(**{KEY_TEXT: {"text": paste}})
                if VERBOSE:
                    print(f"  {time.strftime('%H:%M:%S')} hostile {k} paste {time.perf_counter() - t0:.3f} s", flush=True)
            except SessionLost:
                report.error = "a paste got no answer in time"
                break
            await asyncio.sleep(pause)
    except Exception as exc:  # noqa: BLE001 -- reported beside the numbers, never hidden
        report.error = f"{type(exc).__name__}: {exc}"
        report.loaded.set()
    finally:
        await client.close()


async def one_file(base: str, pid: int, name: str, args) -> dict:
    filename, build, _ = FILES[name]
    data = build()
    start_text = training_text(2_000)
    cpu0 = cpu_seconds(pid)
    alone = await typing(base, args.seconds / 2, args.think, args.timeout, start_text)
    cpu_alone = cpu_seconds(pid) - cpu0
    stop = asyncio.Event()
    reports = [Hostile(), Hostile()]
    tabs = [asyncio.create_task(hostile(k, base, filename, data, args.chars, args.paste_every, args.timeout, stop,
                                        reports[k]))
            for k in range(2)]
    for r in reports:
        await r.loaded.wait()
    await asyncio.sleep(1.0)  # the first pastes under way
    cpu0 = cpu_seconds(pid)
    busy = await typing(base, args.seconds, args.think, args.timeout, start_text + " ")
    cpu_busy = cpu_seconds(pid) - cpu0
    stop.set()
    done, pending = await asyncio.wait(tabs, timeout=args.timeout)
    for task in pending:
        task.cancel()
    # The second half of "alone" after the hostile tabs are gone: on a shared machine the load drifts, and
    # alone before and after brackets the round it is compared with.
    await asyncio.sleep(2.0)
    cpu0 = cpu_seconds(pid)
    after = await typing(base, args.seconds / 2, args.think, args.timeout, start_text + "  ")
    cpu_alone += cpu_seconds(pid) - cpu0
    alone.times += after.times
    alone.timeouts += after.timeouts
    return {"name": name, "bytes": len(data), "alone": alone, "busy": busy, "hostile": reports,
            "cpu": (cpu_alone, cpu_busy)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("names", nargs="*", help=f"files (default all: {', '.join(FILES)})")
    parser.add_argument("--app", type=Path, default=ROOT, help="the checkout to serve (default this one)")
    parser.add_argument("--seconds", type=float, default=30.0, help="length of each typing round")
    parser.add_argument("--chars", type=int, default=12_000, help="characters of each hostile paste")
    parser.add_argument("--think", type=float, default=0.3, help="pause between keystrokes, s")
    parser.add_argument("--paste-every", type=float, default=0.5,
                        help="a hostile tab's pause between the end of one paste's run and the next paste, s")
    parser.add_argument("--timeout", type=float, default=120.0, help="a keystroke's or paste's limit, s")
    parser.add_argument("--verbose", action="store_true", help="print every keystroke and paste as it ends")
    args = parser.parse_args()
    global VERBOSE
    VERBOSE = args.verbose
    names = args.names or list(FILES)
    print(f"app {args.app}; rounds of {args.seconds:g} s; hostile pastes of {args.chars:,} characters; "
          f"{os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f}")
    print(f"{'file':<26} {'keys':>5} {'p50 alone':>9} {'p95 alone':>9} {'keys':>5} {'p50 busy':>9} "
          f"{'p95 busy':>9} {'ratio':>6} {'pastes':>6} {'load s':>7} {'server CPU s':>13}  notes")
    for name in names:
        with served(args.app, prefix="bench-hostile-") as server:
            row = asyncio.run(one_file(server.url, server.proc.pid, name, args))
        a, b = row["alone"].times, row["busy"].times
        notes = "; ".join(filter(None, [h.error for h in row["hostile"]] +
                                 [f"{row['busy'].timeouts} keystrokes timed out" if row["busy"].timeouts else ""]))
        ratio = pct(b, 0.95) / pct(a, 0.95) if a and b else float("nan")
        print(f"{name:<26} {len(a):>5} {pct(a, 0.5):>9.3f} {pct(a, 0.95):>9.3f} {len(b):>5} {pct(b, 0.5):>9.3f} "
              f"{pct(b, 0.95):>9.3f} {ratio:>6.2f} {sum(h.pastes for h in row['hostile']):>6} "
              f"{max(h.load_seconds for h in row['hostile']):>7.1f} {row['cpu'][0]:>6.1f} {row['cpu'][1]:>6.1f}"
              f"  {notes}", flush=True)


if __name__ == "__main__":
    main()
