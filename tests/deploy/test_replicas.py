"""Beyond one machine: the container image's recipe, and two replicas behind Debian's nginx.

Docker cannot run here (no daemon), so the Dockerfile is checked by reading it: what it
installs and runs must be the README's commands, it must not run as root, and the files
it copies (minus .dockerignore) must be enough to run the app -- an AppTest runs in a copy
of exactly those files, and its CMD and HEALTHCHECK run there in a network namespace with
only loopback.  The proxy test starts two replicas and nginx on loopback
(deploy/run_replicas.py) and drives real browser sessions through it (see deploy/README.md).
"""
from __future__ import annotations

import fnmatch
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import textwrap
import time
import urllib.request
from pathlib import Path
from urllib.parse import quote

import pytest

import engine
from deploy import run_replicas

APP_DIR = Path(__file__).resolve().parents[2]
FIRST = 60_000  # ms: a first render on a fresh replica imports the views and loads a vocabulary


def _need(tool: str | None, what: str, fix: str) -> None:
    """Skip without the tool, except in CI (CI=true), where its absence is a failure."""
    if tool and Path(tool).exists():
        return
    if os.environ.get("CI"):
        pytest.fail(f"{what} is missing in CI: {fix}")
    pytest.skip(f"{what} not found: {fix}")


NGINX = shutil.which("nginx") or "/usr/sbin/nginx"


# ------------------------------------------------------------------ the Dockerfile, read
def dockerfile() -> list[tuple[str, str]]:
    """(INSTRUCTION, arguments) pairs, continuation lines joined, comments dropped."""
    lines, current = [], ""
    for raw in (APP_DIR / "Dockerfile").read_text().splitlines():
        line = raw.strip()
        if not current and (not line or line.startswith("#")):
            continue
        if line.startswith("#"):
            continue
        if line.endswith("\\"):
            current += line[:-1] + " "
            continue
        current += line
        instr, _, args = current.partition(" ")
        lines.append((instr.upper(), args.strip()))
        current = ""
    return lines


def _ignored(rel: str, patterns: list[str]) -> bool:
    parts = rel.split("/")
    for pattern in patterns:
        pat = pattern.removeprefix("**/")
        for i in range(len(parts)):
            prefix = "/".join(parts[: i + 1])
            if fnmatch.fnmatch(prefix, pattern) or (pattern.startswith("**/") and fnmatch.fnmatch(parts[i], pat)):
                return True
    return False


def image_files() -> set[str]:
    """Repo-relative paths the Dockerfile's COPY lines put in the image (after .dockerignore)."""
    patterns = [p.strip() for p in (APP_DIR / ".dockerignore").read_text().splitlines()
                if p.strip() and not p.startswith("#")]
    files = set()
    for instr, args in dockerfile():
        if instr != "COPY":
            continue
        words = [w for w in shlex.split(args) if not w.startswith("--")]
        for src in words[:-1]:
            path = APP_DIR / src
            assert path.exists(), f"COPY {src}: not in the repo"
            candidates = [path] if path.is_file() else [p for p in path.rglob("*") if p.is_file()]
            for p in candidates:
                rel = p.relative_to(APP_DIR).as_posix()
                if not _ignored(rel, patterns):
                    files.add(rel)
    return files


def test_dockerfile_installs_and_runs_what_the_readme_says():
    steps = dockerfile()
    instrs = [i for i, _ in steps]
    readme = (APP_DIR / "README.md").read_text()
    assert "pip install -r requirements.txt" in readme and "streamlit run app.py" in readme

    base = dict(steps)["FROM"]
    assert re.fullmatch(r"python:3\.\d+-slim(-\w+)?", base), base
    assert f"python:{sys.version_info.major}.{sys.version_info.minor}-" in base, \
        f"the image's Python ({base}) differs from the one the tests run on"

    runs = [a for i, a in steps if i == "RUN"]
    assert any(re.search(r"\bpip install -r requirements\.txt\b", r) for r in runs), runs
    copy_reqs = next(n for n, (i, a) in enumerate(steps) if i == "COPY" and "requirements.txt" in a)
    pip = next(n for n, (i, a) in enumerate(steps) if i == "RUN" and "pip install" in a)
    assert copy_reqs < pip, "requirements.txt must be copied before pip install"

    user = [a for i, a in steps if i == "USER"]
    assert user and user[-1] not in ("root", "0"), "the app must not run as root"
    assert instrs.index("USER") < instrs.index("CMD")

    cmd = dict(steps)["CMD"]
    assert "streamlit run app.py" in cmd
    assert "--server.address=0.0.0.0" in cmd, "inside a container Streamlit must listen on every interface"
    assert re.search(r"--server\.port=\\?\"?\$\{PORT\}", cmd), cmd
    env = " ".join(a for i, a in steps if i == "ENV")
    default_port = re.search(r"\bPORT=(\d+)", env).group(1)
    assert dict(steps)["EXPOSE"] == default_port

    health = dict(steps)["HEALTHCHECK"]
    assert "/_stcore/health" in health and "PORT" in health


def test_image_compiles_the_app_once_at_build_time():
    """PYTHONDONTWRITEBYTECODE keeps the running server from writing .pyc files, so without a build step
    every server start would compile engine/ and playground/ from source during its first page."""
    steps = dockerfile()
    assert "PYTHONDONTWRITEBYTECODE=1" in " ".join(a for i, a in steps if i == "ENV")
    compiled = [n for n, (i, a) in enumerate(steps) if i == "RUN" and "compileall" in a]
    assert compiled, "add RUN python -m compileall -q engine playground after the COPY lines"
    args = steps[compiled[0]][1]
    assert "engine" in args and "playground" in args
    copies = [n for n, (i, a) in enumerate(steps) if i == "COPY" and a.split()[0] in ("engine/", "playground/")]
    assert len(copies) == 2 and max(copies) < compiled[0] < [i for i, _ in steps].index("USER")


def test_image_holds_the_app_and_nothing_else():
    files = image_files()
    tracked = subprocess.run(["git", "ls-files"], cwd=APP_DIR, capture_output=True, text=True).stdout.split()
    if not tracked:  # not a git checkout: every file on disk
        tracked = [p.relative_to(APP_DIR).as_posix() for p in APP_DIR.rglob("*") if p.is_file()]
    needed = {f for f in tracked if f == "app.py" or f == ".streamlit/config.toml"
              or re.match(r"(engine|playground)/", f)}
    assert needed - files == set(), "the image lacks files the app needs"
    assert not {f for f in files if re.match(r"(tests|bench|scripts|deploy|\.git|\.venv)/", f)}
    assert any(f.startswith("engine/data/") for f in files), "the vocabularies must ship in the image"


def test_app_runs_from_the_image_files_alone(tmp_path):
    """An AppTest of app.py in a directory holding only what the Dockerfile copies."""
    _copy_image_files(tmp_path)
    script = textwrap.dedent("""
        from streamlit.testing.v1 import AppTest
        at = AppTest.from_file("app.py", default_timeout=60).run()
        assert not at.exception, [e.value for e in at.exception]
        print([m.label for m in at.metric])
    """)
    done = subprocess.run([sys.executable, "-c", script], cwd=tmp_path, capture_output=True, text=True, timeout=120,
                          env=dict(os.environ, PYTHONPATH=str(tmp_path)))
    assert done.returncode == 0, done.stderr[-3000:]
    assert "Tokens" in done.stdout


def _copy_image_files(dest: Path) -> None:
    for rel in image_files():
        (dest / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(APP_DIR / rel, dest / rel)


def _docker_cmd() -> str:
    """The CMD's shell command (exec form ["sh", "-c", "..."])."""
    words = json.loads(dict(dockerfile())["CMD"])
    assert words[:2] == ["sh", "-c"], words
    return words[2]


def test_container_command_serves_without_network(tmp_path):
    """The Dockerfile's CMD and HEALTHCHECK, run on the image's files in a network namespace with only
    loopback: the server answers its health check and never tries to reach the network."""
    if subprocess.run(["unshare", "-rn", "true"], capture_output=True).returncode != 0:
        pytest.skip("cannot create a network namespace here (unshare -rn)")
    _copy_image_files(tmp_path)
    health = dict(dockerfile())["HEALTHCHECK"].split(" CMD ", 1)[1]
    script = textwrap.dedent(f"""
        ip link set lo up
        export PORT=8765 PATH={shlex.quote(str(Path(sys.executable).parent))}:$PATH
        sh -c {shlex.quote(_docker_cmd())} > server.log 2>&1 &
        pid=$!
        ok=1
        for i in $(seq 1 300); do
            if {health} 2>/dev/null; then ok=0; break; fi
            sleep 0.2
        done
        kill -TERM $pid; wait $pid
        exit $ok
    """)
    done = subprocess.run(["unshare", "-rn", "sh", "-c", script], cwd=tmp_path, capture_output=True, text=True,
                          timeout=120)
    log = (tmp_path / "server.log").read_text()
    assert done.returncode == 0, f"no health within 60 s:\n{log}\n{done.stderr}"
    assert "0.0.0.0:8765" in log or "localhost:8765" in log, log
    assert "external IP" not in log and "External URL" not in log, log


# ------------------------------------------------------------------ nginx config
def test_nginx_config_is_valid_and_sticky(tmp_path):
    _need(NGINX, "nginx", "apt-get install nginx")
    conf = run_replicas.render_config([18501, 18502], "127.0.0.1:18080", tmp_path)
    (tmp_path / "nginx.conf").write_text(conf)
    check = subprocess.run([NGINX, "-t", "-q", "-p", str(tmp_path), "-c", str(tmp_path / "nginx.conf"),
                            "-e", str(tmp_path / "error.log")], capture_output=True, text=True)
    assert check.returncode == 0, check.stderr
    cap = run_replicas.upload_cap_mb()
    from playground.views.train import UPLOAD_LIMIT_MB
    assert cap == UPLOAD_LIMIT_MB  # .streamlit/config.toml's server.maxUploadSize: the one upload cap
    assert f"client_max_body_size {cap + 1}m;" in conf
    assert "hash $route_key consistent;" in conf and "ip_hash" not in conf.split("http {", 1)[1]
    assert "proxy_set_header Upgrade $http_upgrade;" in conf
    assert "proxy_set_header Host $http_host;" in conf
    assert conf.count("max_fails=1") == 2 and "proxy_next_upstream error timeout" in conf
    assert "/etc/nginx" not in conf


# ------------------------------------------------------------------ two replicas, live
def _get(url: str, cookie: str | None = None) -> tuple[bytes, dict[str, str]]:
    req = urllib.request.Request(url, headers={"Cookie": f"{run_replicas.COOKIE}={cookie}"} if cookie else {})
    with urllib.request.urlopen(req, timeout=10) as r:
        return r.read(), {k.lower(): v for k, v in r.headers.items()}


def _last(upstreams: str) -> str:
    """The replica that answered: after a failover nginx lists every one it tried ("A, B")."""
    return upstreams.split(",")[-1].strip()


def _log(cluster) -> list[dict[str, str]]:
    """The proxy's access log: one dict per request (cookie, request, upstream = the replica that answered)."""
    rows = []
    for line in cluster.access_log.read_text().splitlines():
        m = re.search(r'cookie=(\S*) "([^"]*)" (\d+) upstream=(.*?) upstream_status=', line)
        if m:
            rows.append({"cookie": m.group(1), "request": m.group(2), "status": m.group(3),
                         "upstream": _last(m.group(4))})
    return rows


def _replicas_of(cluster, cookie: str) -> set[str]:
    """Replicas that answered this browser's finished requests (a websocket is logged when it closes)."""
    rows = [r for r in _log(cluster) if r["cookie"] == cookie]
    assert len(rows) >= 3, f"only {len(rows)} requests carried the route cookie"  # health, host-config, assets
    return {r["upstream"] for r in rows}


def _stream_replicas(cluster, cookie: str, timeout: float = 15) -> set[str]:
    """Replicas that held this browser's websocket(s), once at least one has closed."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = {r["upstream"] for r in _log(cluster) if r["cookie"] == cookie and "/_stcore/stream" in r["request"]}
        if found:
            return found
        time.sleep(0.2)
    return set()


def _route_cookie(context) -> str:
    return next(c["value"] for c in context.cookies() if c["name"] == run_replicas.COOKIE)


def _open_tokenize(context, text: str, n_tokens: int):
    from playwright.sync_api import expect

    page = context.new_page()
    page.goto("/?enc=gpt2&ws=0&text=" + quote(text))
    expect(page.get_by_test_id("stMetric").first).to_contain_text(f"{n_tokens:,}", timeout=FIRST)
    expect(page.get_by_test_id("stException")).to_have_count(0)
    return page


def _type(page, text: str, n_tokens: int) -> None:
    from playwright.sync_api import expect

    box = page.get_by_label("Text", exact=True)
    box.fill(text)
    box.press("Control+Enter")
    expect(page.get_by_test_id("stMetric").first).to_contain_text(f"{n_tokens:,}", timeout=FIRST)


def _healthcheck(port: int) -> int:
    """The Dockerfile's HEALTHCHECK command, run here against a replica."""
    health = dict(dockerfile())["HEALTHCHECK"]
    cmd = shlex.split(health.split(" CMD ", 1)[1])
    if cmd[0] == "python":  # the image's python; here, the one running the tests
        cmd[0] = sys.executable
    return subprocess.run(cmd, env=dict(os.environ, PORT=str(port)), capture_output=True, timeout=30).returncode


@pytest.fixture
def cluster():
    _need(NGINX, "nginx", "apt-get install nginx")
    with run_replicas.Cluster(n=2, fail_timeout=3) as c:
        started = c.pids()  # nginx master and workers, both replicas
        assert len(started) >= 4, started
        yield c
    # Nothing left: nginx (and its workers) and both replicas have exited.
    for pid in started + c.pids():
        assert not Path(f"/proc/{pid}").exists() or "State:\tZ" in Path(f"/proc/{pid}/status").read_text()


@pytest.mark.browser
def test_sessions_stick_to_a_replica_and_move_while_it_restarts(cluster, request):
    from tests.conftest import CHROMIUM

    _need(CHROMIUM, "chromium", "apt-get install chromium")
    browser = request.getfixturevalue("browser")  # pytest-playwright's, on Debian's chromium (conftest)
    gpt2 = engine.get_encoding("gpt2")
    addresses = {r.address for r in cluster.replicas}
    text1 = "Sticky sessions: every request of one browser reaches one replica. 1234567"
    text2 = "A second text, typed later over the same websocket: unbelievable tokenization!"

    # Health and the page, through the proxy; nginx names the replica that answered.
    body, headers = _get(cluster.url + "/_stcore/health")
    assert body == b"ok" and headers["x-upstream"] in addresses
    assert run_replicas.COOKIE in headers.get("set-cookie", "")
    body, _ = _get(cluster.url + "/")
    assert b'<div id="root">' in body

    contexts = []
    try:
        # One browser session: two script runs over its websocket, every request on one replica.
        ctx1 = browser.new_context(base_url=cluster.url)
        contexts.append(ctx1)
        page1 = _open_tokenize(ctx1, text1, len(gpt2.encode(text1)))
        _type(page1, text2, len(gpt2.encode(text2)))
        cookie1 = _route_cookie(ctx1)
        used = _replicas_of(cluster, cookie1)
        assert len(used) == 1, used
        home = used.pop()
        replica_a = next(r for r in cluster.replicas if r.address == home)
        other = (addresses - {home}).pop()
        assert _healthcheck(replica_a.port) == 0

        # Replica A goes down (its websocket closes, and is logged: it was on A).
        replica_a.stop()
        assert _stream_replicas(cluster, cookie1) == {home}
        assert _healthcheck(replica_a.port) != 0
        # New sessions go to B and work: every request of a new browser, its websocket included.
        ctx2 = browser.new_context(base_url=cluster.url)
        contexts.append(ctx2)
        _open_tokenize(ctx2, text2, len(gpt2.encode(text2)))
        cookie2 = _route_cookie(ctx2)
        ctx2.close()
        assert _stream_replicas(cluster, cookie2) == {other}
        assert _replicas_of(cluster, cookie2) == {other}
        for _ in range(10):  # any new visitor, whatever its cookie hashes to
            body, headers = _get(cluster.url + "/_stcore/health", cookie=os.urandom(8).hex())
            assert body == b"ok" and _last(headers["x-upstream"]) == other

        # A is back: the first session (reconnected to B meanwhile) still works, and once nginx
        # retries A (fail_timeout) new visitors reach it; a browser whose cookie hashes to A
        # gets a working session there.
        replica_a.start()
        replica_a.wait_healthy()
        _type(page1, text1, len(gpt2.encode(text1)))
        deadline = time.monotonic() + 30
        cookie3 = None
        while cookie3 is None and time.monotonic() < deadline:
            candidate = os.urandom(8).hex()
            if _last(_get(cluster.url + "/_stcore/health", cookie=candidate)[1]["x-upstream"]) == home:
                cookie3 = candidate
            time.sleep(0.1)
        assert cookie3, f"replica {home} got no new visitor within 30 s of coming back"
        ctx3 = browser.new_context(base_url=cluster.url)
        contexts.append(ctx3)
        ctx3.add_cookies([{"name": run_replicas.COOKIE, "value": cookie3, "url": cluster.url}])
        _open_tokenize(ctx3, text1, len(gpt2.encode(text1)))
        ctx3.close()
        assert _stream_replicas(cluster, cookie3) == {home}
        assert _replicas_of(cluster, cookie3) == {home}
    finally:
        for ctx in contexts:  # close the websockets before the cluster stops
            ctx.close()
