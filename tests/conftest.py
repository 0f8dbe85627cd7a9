"""Shared fixtures: the corpus, encodings, and a live Streamlit server + Debian chromium for browser tests.

Browser tests use pytest-playwright's `page` fixture; only they start the
server (session-scoped, free loopback port, stopped at the end).
"""
from __future__ import annotations

import json
import os
import re
import shutil
from xml.etree import ElementTree
from pathlib import Path

import pytest

APP_DIR = Path(__file__).resolve().parent.parent
DATA = APP_DIR / "tests" / "data"
CORPUS = DATA / "corpus"  # copies of the shared public corpus, see its PROVENANCE.md
# Debian's chromium-headless-shell when it is there (scripts/setup_test_machine.sh installs it): the same Blink without
# the full browser's headless mode, and the browser tests took 25-40% less time on it (41 vs 54 s, 57 vs 96 s for two
# modules, back to back); chromium itself otherwise.
CHROMIUM = os.environ.get("CHROMIUM", shutil.which("chromium-headless-shell") or shutil.which("chromium")
                          or "/usr/bin/chromium")
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]
SCREENSHOTS = APP_DIR / "test-results" / "screenshots"
# Servers the tests start (and AppTest runs) warm only the default vocabularies: a test server lives for a
# few pages, and loading every built-in behind them would only compete for the CPU.  The full warm-up has
# its own test (tests/playground/serving/test_jobs.py).
os.environ.setdefault("BPE_WARM", "defaults")


def diagonal(first: list, second: list) -> list:
    """Every (a, b) pair of `first` x `second` as pytest params: the default run takes a diagonal, in which each a and
    each b appears at least once (max(len) pairs); the other pairs are marked slow (issue 32: a sweep keeps one
    representative of each item in the default run, the full cross product under -m slow)."""
    n = max(len(first), len(second))
    keep = {(first[i % len(first)], second[i % len(second)]) for i in range(n)}
    return [pytest.param(a, b) if (a, b) in keep else pytest.param(a, b, marks=pytest.mark.slow)
            for a in first for b in second]


def plain(markdown: str) -> str:
    """Markdown source with backslash escapes and md's invisible word joiners removed: what a reader sees of
    text escaped by playground.render.markdown.md."""
    return re.sub(r"\\([!-/:-@\[-`{-~])", r"\1", markdown).replace("\u2060", "")


VIEW_APP = str(Path(__file__).parent / "app" / "view_app.py")
BROKE = "Something went wrong"  # the error net's message: a page that shows it broke


def page_messages(at) -> list[str]:
    """Every error, warning, info and success message on an AppTest page, as a reader sees it."""
    return [plain(m.value) for kind in ("error", "warning", "info", "success") for m in at.get(kind)]


def drawn_ok(at) -> list[str]:
    """The page drew without an exception or the error net's message; its messages."""
    assert not at.exception, [e.value for e in at.exception]
    messages = page_messages(at)
    assert not any(BROKE in m for m in messages), messages
    return messages


def merge_trees(at) -> list[str]:
    """The merge trees drawn on an AppTest page (playground.render.tree's SVG, in its box), in page order."""
    return [m.value for m in at.markdown if 'class="merge-tree"' in m.value]


_SVG = "{http://www.w3.org/2000/svg}"


def tree_boxes(markup: str) -> list[tuple[str, str]]:
    """The boxes of a drawn merge tree in pre-order (root first): (kind, its lines of text joined by newlines).
    Parsed as XML: the drawing must be well-formed (a downloaded .svg is read by XML parsers)."""
    svg = ElementTree.fromstring(markup)
    return [(g.get("class").split()[1], "\n".join(t.text or "" for t in g.iter(f"{_SVG}text")))
            for g in svg.iter(f"{_SVG}g") if "node" in g.get("class", "").split()]


def tree_layout(markup: str) -> str:
    """"top-down" or "left-right": how a drawn merge tree is laid out."""
    return ElementTree.fromstring(markup).find(f"{_SVG}svg").get("data-layout")


def blocks(at) -> list[str]:
    """The big markup blocks on an AppTest page: playground.components.html_block's components (and any st.html)."""
    found = [h.value for h in at.get("html")]
    for c in at.get("bidi_component"):
        if c.proto.component_name.endswith("bpe_html_block"):
            found.append(json.loads(c.proto.json)["html"])
    return found


def view_app(view: str, *, timeout: float = 90, query: dict[str, str] | None = None, **session):
    """One view (a module of playground/, as "views.<page>") in tests/app/view_app.py with `session` preset and the
    link's `query` parameters, not run yet (a test may set more before its first run)."""
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(VIEW_APP, default_timeout=timeout)
    for key, value in (query or {}).items():
        at.query_params[key] = value
    at.session_state["_view"] = view
    for key, value in session.items():
        at.session_state[key] = value
    return at


def run_view(view: str, *, timeout: float = 90, query: dict[str, str] | None = None, **session):
    """`view_app` run once; no exception."""
    at = view_app(view, timeout=timeout, query=query, **session)
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def load_cases() -> list[dict]:
    path = CORPUS / "cases.jsonl"
    return [json.loads(line) for line in path.read_text(encoding="utf-8").split("\n") if line.strip()]


def case_text(case: dict) -> str:
    """The exact str of a case (surrogate cases are given as code points)."""
    if "text_codepoints" in case:
        return "".join(map(chr, case["text_codepoints"]))
    return case["text"]


FOLDER_MARKERS = {"engine", "playground", "app", "browser", "deploy"}  # tests/<folder>/ -> a marker of that name


def pytest_addoption(parser):
    parser.addoption("--one-case", action="store_true",
                     help="run one case of each parametrized test (its first selected one): the quick tier's rule "
                          "(scripts/test.sh --quick); everything else is deselected and counted as such")


@pytest.hookimpl(wrapper=True)
def pytest_collection_modifyitems(config, items):
    """Each test gets its folder's marker (tests/engine/... -> `engine`, ...), and `slow` when its module lists it in
    SLOW_CASES; a test using the `page` fixture is a browser test wherever it is. Without chromium, browser tests fail loudly in CI and are skipped elsewhere.

    A wrapper: the markers go on before `-m` selects, and --one-case runs after it, on what `-m` left."""
    have_browser = Path(CHROMIUM).exists()
    tests = Path(__file__).resolve().parent
    for item in items:
        path = Path(item.path).resolve()
        folder = path.relative_to(tests).parts[0] if path.is_relative_to(tests) else ""
        if folder in FOLDER_MARKERS and folder != "browser":
            item.add_marker(getattr(pytest.mark, folder))
        # A module's SLOW_CASES names cases of a parametrized fixture that go under slow (a mark cannot be put on
        # one parameter of a module-scoped fixture only for some of its tests): issue 32's one-representative rule.
        if item.name in getattr(item.module, "SLOW_CASES", ()):
            item.add_marker(pytest.mark.slow)
        if folder == "browser" or "page" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.browser)
            if not have_browser and not os.environ.get("CI"):
                item.add_marker(pytest.mark.skip(reason=f"no chromium at {CHROMIUM}: apt-get install chromium"))
    result = yield
    if config.getoption("one_case"):
        # the quick tier: a parametrized test keeps its first selected case, which still runs the test's code path
        # (the others repeat it on more data: more built-ins, more files, more texts); CI and the default run keep all
        seen, keep, drop = set(), [], []
        for item in items:
            key = (item.path, item.cls, getattr(item, "originalname", item.name))
            (drop if key in seen else keep).append(item)
            seen.add(key)
        if drop:
            config.hook.pytest_deselected(items=drop)
            items[:] = keep
    return result


@pytest.fixture(scope="session")
def streamlit_server(tmp_path_factory):
    """`streamlit run app.py` on a free loopback port, as deploy/run_replicas.py starts a replica; stopped at the end."""
    from deploy.run_replicas import Replica, free_port

    server = Replica(free_port(), tmp_path_factory.mktemp("streamlit") / "server.log")
    server.start()
    try:
        server.wait_healthy()
        yield server.url
    finally:
        server.stop()


@pytest.fixture(scope="session")
def base_url(streamlit_server):
    return streamlit_server


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args):
    return {**browser_type_launch_args, "executable_path": CHROMIUM, "args": CHROMIUM_ARGS}


@pytest.fixture(scope="session")
def browser_context_args(browser_context_args):
    return {**browser_context_args, "viewport": {"width": 1300, "height": 900}, "locale": "en-US"}


# Playwright's own default waits are 5 s (expect) and 30 s (actions): a loaded 2-core machine outruns the first
# (issue 32).  Every browser test waits for a condition; these are only the ceilings of those waits.
EXPECT_TIMEOUT_MS = 30_000
ACTION_TIMEOUT_MS = 90_000
try:
    from playwright.sync_api import expect as _expect

    _expect.set_options(timeout=EXPECT_TIMEOUT_MS)
except ImportError:  # the engine tests run without playwright
    pass


# One browser context per worker and set of options, reused by every test, each test starting from an empty one
# (no page, cookie, permission, route, localStorage or sessionStorage left by the test before).  A fresh context has an
# empty HTTP and code cache, so its first page downloaded and compiled Streamlit's scripts again: 12-18 s of chromium
# CPU per test on a loaded 2-core machine, against 3-5 s with a reused one (issue 32).  A test that needs another
# browser (another client of the upload budget, another localStorage) still calls browser.new_context() itself.
_POOL: dict[tuple, object] = {}


def _emptied(ctx, origin: str) -> None:
    """`ctx` as a new context finds the site: no pages, cookies, permissions, routes or stored items."""
    for p in list(ctx.pages):
        p.close()
    ctx.clear_cookies()
    ctx.clear_permissions()
    ctx.set_offline(False)
    ctx.unroute_all(behavior="ignoreErrors")
    blank = ctx.new_page()
    try:  # storage is per origin: cleared from a same-origin page that does not start the app
        blank.goto(origin.rstrip("/") + "/_stcore/health")
        blank.evaluate("() => { localStorage.clear(); sessionStorage.clear(); }")
    finally:
        blank.close()


@pytest.fixture
def reused_context(browser, browser_context_args, base_url):
    """reused_context(**options) -> a context of this worker's pool with `options` (as browser.new_context takes
    them, but no viewport: set a page's size with page.set_viewport_size), emptied after the test.  Do not close it."""
    used = []

    def get(**options):
        assert "viewport" not in options, "a pooled context keeps its viewport: use page.set_viewport_size"
        options = {**browser_context_args, **options}
        key = tuple(sorted((k, repr(v)) for k, v in options.items()))
        ctx = _POOL.get(key)
        if ctx is None:
            ctx = _POOL[key] = browser.new_context(**options)
        ctx.set_default_timeout(ACTION_TIMEOUT_MS)
        used.append((ctx, options.get("base_url") or base_url))
        return ctx

    yield get
    for ctx, origin in used:
        _emptied(ctx, origin)


@pytest.fixture
def context(reused_context):
    return reused_context()


def until(check, *, timeout: float = 60.0, what: str = "the condition"):
    """Poll `check()` until it returns something truthy (returned), or fail after `timeout` seconds with its last
    value.  For conditions Playwright cannot express as a locator assertion (a measured layout, a count of lines)."""
    import time

    deadline = time.monotonic() + timeout
    while True:
        value = check()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"{what} did not hold within {timeout:.0f} s (last value {value!r})")
        time.sleep(0.05)


def root_font_size_becomes(page, size: str, *, timeout: float = 60.0) -> None:
    """Wait until the page's root font size is `size` (presentation mode's stylesheet arrives after the first
    elements: a one-shot check saw 16px on a loaded machine), naming the last size seen."""
    seen = []

    def check():
        seen.append(page.evaluate("getComputedStyle(document.documentElement).fontSize"))
        return seen[-1] == size

    try:
        until(check, timeout=timeout, what=f"a root font size of {size}")
    except AssertionError:
        raise AssertionError(f"the root font size stayed {seen[-1]}, not {size}, for {timeout:.0f} s") from None


def settle(page) -> None:
    """Streamlit idle (no status widget: no run in progress) and two animation frames drawn after it: the page as
    laid out, for a check that something does *not* appear (a console warning, a late rerun)."""
    from playwright.sync_api import expect

    expect(page.get_by_test_id("stStatusWidget")).to_have_count(0)
    page.evaluate("() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))")


@pytest.fixture
def screenshot(page):
    """screenshot(name): save the whole main column to test-results/screenshots/<name>.png."""
    def take(name: str) -> Path:
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        path = SCREENSHOTS / f"{name}.png"
        h = page.get_by_test_id("stMain").evaluate("e => e.scrollHeight")
        page.set_viewport_size({"width": 1300, "height": max(900, min(h, 6000))})
        page.screenshot(path=str(path), full_page=True, animations="disabled")
        return path
    return take


def platform_fonts(page, selector: str) -> set[str]:
    """Fonts chromium actually used to draw the node matched by `selector` (CDP)."""
    cdp = page.context.new_cdp_session(page)
    cdp.send("DOM.enable")
    cdp.send("CSS.enable")
    root = cdp.send("DOM.getDocument", {"depth": -1})["root"]["nodeId"]
    node = cdp.send("DOM.querySelector", {"nodeId": root, "selector": selector})["nodeId"]
    return {f["familyName"] for f in cdp.send("CSS.getPlatformFontsForNode", {"nodeId": node})["fonts"]}


def traced_peak(call) -> tuple[object, int]:
    """What `call()` returned or raised (a ValueError), and the most memory it held at once (bytes, tracemalloc):
    a refusal *before* the tables are built shows as a small peak, whatever the machine's speed (no timed assert)."""
    import tracemalloc

    tracemalloc.start()
    try:
        try:
            got = call()
        except ValueError as exc:
            got = exc
        return got, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
