"""Run N Streamlit replicas on loopback ports with nginx in front (sticky sessions), and stop them all.

    .venv/bin/python deploy/run_replicas.py --replicas 2 --port 8080     # Ctrl+C stops everything
    .venv/bin/python deploy/run_replicas.py --replicas 3 --print-config  # only show the nginx config

nginx runs as the current user from a temporary prefix (its config, pid, logs and
temp files live there; /etc/nginx is never read or touched).  The config comes from
`deploy/nginx.conf.template`.  `tests/deploy/test_replicas.py` drives the same `Cluster`.
"""
from __future__ import annotations

import argparse
import os
import pwd
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import tomllib
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

APP_DIR = Path(__file__).resolve().parent.parent
TEMPLATE = Path(__file__).resolve().parent / "nginx.conf.template"
COOKIE = "stroute"
DEFAULT_UPLOAD_MB = 200  # Streamlit's own default for server.maxUploadSize


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def upload_cap_mb(app_dir: Path = APP_DIR) -> int:
    """server.maxUploadSize from the app's .streamlit/config.toml (MB)."""
    path = app_dir / ".streamlit" / "config.toml"
    if not path.exists():
        return DEFAULT_UPLOAD_MB
    return int(tomllib.loads(path.read_text()).get("server", {}).get("maxUploadSize", DEFAULT_UPLOAD_MB))


def render_config(ports: list[int], listen: str, prefix: Path, *, fail_timeout: int = 10) -> str:
    """The nginx config for replicas on 127.0.0.1:<ports>, listening on `listen` (host:port)."""
    servers = "\n".join(f"        server 127.0.0.1:{p} max_fails=1 fail_timeout={fail_timeout}s;" for p in ports)
    # Workers run as the current user; nginx wants that said explicitly only when it starts as root.
    user_line = f"user {pwd.getpwuid(os.geteuid()).pw_name};" if os.geteuid() == 0 else ""
    cap = upload_cap_mb()
    values = {"USER_LINE": user_line, "PREFIX": str(prefix), "COOKIE": COOKIE, "SERVERS": servers,
              "LISTEN": listen, "UPLOAD_MB": str(cap), "BODY_MB": str(cap + 1)}
    text = TEMPLATE.read_text()
    for key, value in values.items():
        text = text.replace("{{" + key + "}}", value)
    left = re.findall(r"\{\{\w+\}\}", text)
    if left:
        raise ValueError(f"nginx template: no value for {', '.join(sorted(set(left)))}")
    return text


def children(pid: int) -> list[int]:
    """PIDs whose parent is `pid` (nginx's workers), read from /proc."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1]) == pid:
                    found.append(int(entry.name))
            except (OSError, IndexError, ValueError):
                continue
    return found


def wait_healthy(url: str, proc: subprocess.Popen, log: Path, timeout: float = 60) -> None:
    """Poll <url>/_stcore/health until it answers "ok"; fail at once if the process died."""
    deadline = time.monotonic() + timeout
    while True:
        if proc.poll() is not None:
            raise RuntimeError(f"{proc.args[0]} exited rc={proc.returncode}; log {log}:\n{log.read_text()[-3000:]}")
        try:
            with urllib.request.urlopen(url + "/_stcore/health", timeout=2) as r:
                if r.read() == b"ok":
                    return
        except OSError:
            pass
        if time.monotonic() > deadline:
            raise RuntimeError(f"{url} not healthy after {timeout:.0f} s; log {log}:\n{log.read_text()[-3000:]}")
        time.sleep(0.1)


def stop_process(proc: subprocess.Popen | None, sig: int = signal.SIGTERM, timeout: float = 10) -> None:
    """Signal this one process (never a group or a name), then wait; kill if it lingers."""
    if proc is None or proc.poll() is not None:
        return
    proc.send_signal(sig)
    try:
        proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


@dataclass
class Replica:
    """One `streamlit run app.py` of `app_dir` on 127.0.0.1:`port` (the benches and tests start theirs so too)."""
    port: int
    log: Path
    proc: subprocess.Popen | None = None
    app_dir: Path = APP_DIR

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.port}"

    def start(self, python: str = sys.executable) -> None:
        cmd = [python, "-m", "streamlit", "run", "app.py", "--server.headless", "true",
               "--server.port", str(self.port), "--server.address", "127.0.0.1",
               "--server.fileWatcherType", "none", "--browser.gatherUsageStats", "false"]
        env = dict(os.environ, STREAMLIT_BROWSER_GATHER_USAGE_STATS="false", STREAMLIT_SERVER_HEADLESS="true")
        with open(self.log, "a") as log:
            self.proc = subprocess.Popen(cmd, cwd=self.app_dir, env=env, stdin=subprocess.DEVNULL, stdout=log,
                                         stderr=subprocess.STDOUT, start_new_session=True)

    def wait_healthy(self, timeout: float = 60) -> None:
        wait_healthy(self.url, self.proc, self.log, timeout)

    def stop(self) -> None:
        stop_process(self.proc)


@dataclass
class Cluster:
    """N replicas + nginx; a context manager that always stops everything it started."""
    n: int = 2
    port: int = 0  # the proxy's port; 0 = a free one
    fail_timeout: int = 10
    prefix: Path | None = None
    replicas: list[Replica] = field(default_factory=list)
    nginx: subprocess.Popen | None = None
    _own_prefix: bool = False

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def access_log(self) -> Path:
        return self.prefix / "access.log"

    def __enter__(self) -> Cluster:
        try:
            self.start()
        except BaseException:
            self.stop()
            raise
        return self

    def __exit__(self, *exc) -> None:
        self.stop()

    def start(self) -> None:
        nginx = shutil.which("nginx") or ("/usr/sbin/nginx" if Path("/usr/sbin/nginx").exists() else None)
        if nginx is None:
            raise FileNotFoundError("nginx not found: apt-get install nginx (Debian's package)")
        if self.prefix is None:
            self.prefix, self._own_prefix = Path(tempfile.mkdtemp(prefix="bpe-replicas-")), True
        self.port = self.port or free_port()
        self.replicas = [Replica(free_port(), self.prefix / f"replica{i}.log") for i in range(self.n)]
        for r in self.replicas:
            r.start()
        conf = self.prefix / "nginx.conf"
        conf.write_text(render_config([r.port for r in self.replicas], f"127.0.0.1:{self.port}", self.prefix,
                                      fail_timeout=self.fail_timeout))
        args = [nginx, "-p", str(self.prefix), "-c", str(conf), "-e", str(self.prefix / "error.log")]
        check = subprocess.run(args + ["-t", "-q"], capture_output=True, text=True)
        if check.returncode:
            raise RuntimeError(f"nginx -t refused {conf}:\n{check.stderr}")
        with open(self.prefix / "nginx.out", "a") as out:
            self.nginx = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT,
                                          start_new_session=True)
        for r in self.replicas:
            r.wait_healthy()
        wait_healthy(self.url, self.nginx, self.prefix / "error.log")

    def stop(self) -> None:
        """nginx first (no new requests reach a stopping replica), then every replica."""
        stop_process(self.nginx, signal.SIGQUIT)  # graceful: finish open requests, close websockets
        for r in self.replicas:
            r.stop()
        if self._own_prefix and self.prefix and not os.environ.get("KEEP_REPLICA_LOGS"):
            shutil.rmtree(self.prefix, ignore_errors=True)

    def pids(self) -> list[int]:
        """Every live process of the cluster: nginx's master and workers, the replicas."""
        procs = [p.pid for p in [self.nginx, *(r.proc for r in self.replicas)] if p is not None and p.poll() is None]
        return procs + (children(self.nginx.pid) if self.nginx is not None else [])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--replicas", type=int, default=2, help="number of Streamlit servers (default 2)")
    parser.add_argument("--port", type=int, default=8080, help="the proxy's port on 127.0.0.1 (default 8080)")
    parser.add_argument("--print-config", action="store_true", help="print the nginx config and exit")
    args = parser.parse_args()
    if args.print_config:
        ports = [8501 + i for i in range(args.replicas)]
        print(render_config(ports, f"127.0.0.1:{args.port}", Path("/tmp/bpe-replicas")))
        return
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))  # SIGTERM: leave through the finally below
    with Cluster(n=args.replicas, port=args.port) as cluster:
        print(f"proxy  {cluster.url}  (nginx pid {cluster.nginx.pid}, logs in {cluster.prefix})")
        for r in cluster.replicas:
            print(f"replica {r.url}  (pid {r.proc.pid})")
        print("Ctrl+C stops everything.", flush=True)
        try:
            while all(p.poll() is None for p in [cluster.nginx, *(r.proc for r in cluster.replicas)]):
                time.sleep(1)
            print("a process exited; stopping the rest", file=sys.stderr)
        except KeyboardInterrupt:
            pass


if __name__ == "__main__":
    main()
