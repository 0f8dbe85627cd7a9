"""The session's own tokenizers (trained or uploaded): held per session, released when the session
ends, weighed against one server-wide memory budget, named uniquely.

Why not `st.session_state` alone: Streamlit keeps it for two minutes after the tab closes (for a
reconnect) and drops it only when a later connection touches its session store, so the tokenizers
of closed tabs (about 50 MB each in memory for an o200k-size one) would pile up in the server.

* **Held per session, released at its end.**  `STORE` holds each session's `SessionTokenizers`
  (name -> encoding, at most `max_count`), and ``st.session_state[state.CUSTOM]`` points to the
  same mapping.  The mapping is registered as a ``scope="session"`` resource, whose release hook
  (`_on_session_end`) Streamlit calls when the session's connection *closes*, not when the session
  ends: a dropped connection (a laptop's sleep, a Wi-Fi change) comes back to the same session
  within ``server.disconnectedSessionTTL`` (two minutes), and its uploads must still be there
  (they were released at once, while "Loaded …" stayed on screen: issue 33).  So a closed
  connection only *parks* the session (`_parked`); `_reap` releases a parked session once
  Streamlit no longer holds it, neither connected nor kept for a reconnect (checked every
  `REAP_EVERY` seconds), and a session shut down outright is released at once.  A session that
  still finds its mapping released (`state.init_state`) is told.
* **A server-wide budget** (`BUDGET_BYTES`, env ``BPE_UPLOAD_BUDGET_MB``) for all sessions'
  tokenizers together.  An upload reserves, before it is parsed, the most its parse can take
  (`upload_reservation`: the engine's bound from the file's counts,
  `engine.sources.upload_memory.upload_cost`, which refuses a file past a limit right there, having cost
  a few MB), and once built keeps the weight of what it holds (`estimate_bytes`).  Both are the engine's
  traced bytes times `RSS_OVER_TRACED`: the process's memory runs that much above what Python allocates.
  Past the budget: `UploadBudgetError`, whose message names the budget -- never an out-of-memory kill.
* **A share per client** (`CLIENT_SHARE` of the budget, three quarters, env ``BPE_UPLOAD_CLIENT_SHARE``):
  one browser, however many tabs it opens, holds and reserves at most that much, so one user cannot take
  the whole budget from the others (and the largest real upload still fits in one share).
  *Who is one browser.*  Each tab is a Streamlit session of its own, with its own session id, so the
  session cannot say.  What the tabs of one browser share is its cookie jar, and Streamlit 1.67 puts
  one cookie in it itself: ``_streamlit_xsrf``, set on the first page a browser loads and renewed on
  every later one around the *same* random token (only the mask XOR-ed over it changes: the value is
  ``2|<mask>|<token XOR mask>|<time>`` in hex).  The browser sends it with each session's websocket
  handshake, and `st.context.cookies` shows that handshake's cookies, so `client_key` unmasks the token
  and keys the client by a hash of it (the token itself is never kept).  Headers (the IP address, the
  user agent) would not do: behind a proxy every user has one address, and one machine's browsers share
  theirs.  This is fairness, not security: a client that drops its cookies, or a server with XSRF
  protection turned off (``server.enableXsrfProtection = false``: no cookie), is a client per session,
  and every client stays within the server-wide budget.
* **Unique names.**  Every cache of the playground (memo, st.cache_*, job results) is keyed by
  encoding name, so one name must never mean two vocabularies while the server runs: the store
  remembers which content (the engine's name, which holds a hash of it) each name was given to,
  and refuses a name that another content holds.

The engine's bounds and weights are measured per kind and class (bench/bench_upload_parse.py prints them
beside the RSS of each real and crafted file; tests/engine/sources/test_upload_memory.py checks them).
"""
from __future__ import annotations

import ctypes
import ctypes.util
import functools
import gc
import hashlib
import os
import re
import threading
import time
from collections import OrderedDict
from contextlib import contextmanager
from typing import Any, Iterator, Mapping

from engine.sources.catalog import canonical_name, catalog
from engine.sources.upload_memory import held_bytes, upload_cost
from playground.cache import memo
from playground.serving import test_seams

BUDGET_BYTES = int(os.environ.get("BPE_UPLOAD_BUDGET_MB", "600")) * 1_000_000
# One client's part of the budget.  It must fit the largest real upload on its own: Gemma 3's tokenizer.json
# reserves about 440 MB while it loads (it peaks at 275 MB of RSS, and holds 125 MB once built); a quarter of the
# budget stays for the others.
CLIENT_SHARE = float(os.environ.get("BPE_UPLOAD_CLIENT_SHARE", "0.75"))
MAX_NAMES = 100_000  # names remembered for uniqueness (a few MB at most)
# The process's RSS over the bytes Python allocates (tracemalloc's count): malloc's bookkeeping and the free
# pages it keeps.  Measured up to 1.27 at the peak of a load (bench/bench_upload_parse.py), which the bounds' own room
# (at least 1.1 over every file measured) covers with this.
RSS_OVER_TRACED = 1.2
XSRF_COOKIE = "_streamlit_xsrf"  # Streamlit's XSRF cookie (streamlit.web.server.starlette_server_config)
NAME_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,39}")
MAX_NAME_CHARS = 40


class UploadBudgetError(ValueError):
    """An upload that would take the server's tokenizers past `BUDGET_BYTES`."""


class TokenizerNameError(ValueError):
    """A name the user chose that cannot be used (its message says why and what to do)."""


def estimate_bytes(enc: Any) -> int:
    """Memory an encoding keeps (`engine.sources.upload_memory.held_bytes`, as RSS)."""
    return int(held_bytes(enc) * RSS_OVER_TRACED)


def upload_reservation(kind: str, files: list[tuple[str, bytes]]) -> int:
    """The most memory loading `files` as `kind` ("detected" for the kind read from the content) can take, as
    RSS: known before parsing, from the engine's cheap scan, which raises the loader's own error for a file
    past a limit (`engine.sources.upload_memory.upload_cost`)."""
    return int(upload_cost(kind, files).peak * RSS_OVER_TRACED)


def client_key(cookies: Mapping[str, str], session_id: str) -> str:
    """Who a session belongs to, for the per-client share: a hash of the token in Streamlit's XSRF cookie (one
    per browser, the same in all its tabs), or the session itself without one (see the module doc)."""
    token = _xsrf_token(cookies.get(XSRF_COOKIE, ""))
    if token is None:
        return f"session:{session_id}"
    return "browser:" + hashlib.sha256(token).hexdigest()[:16]


def _xsrf_token(value: str) -> bytes | None:
    """The token of an XSRF cookie: version 2 is ``2|<mask>|<token XOR mask>|<timestamp>`` in hex (Streamlit
    writes a new mask on every page load, around the same token), version 1 the token in hex."""
    value = value.strip("\"'")
    try:
        if value.startswith("2|"):
            _, mask_hex, masked_hex, _timestamp = value.split("|")
            mask, masked = bytes.fromhex(mask_hex), bytes.fromhex(masked_hex)
            if not mask:
                return None
            token = bytes(b ^ mask[i % len(mask)] for i, b in enumerate(masked))
        else:
            token = bytes.fromhex(value)
    except ValueError:
        return None
    return token or None


def _mb(n: int) -> str:
    return f"{n / 1e6:,.0f} MB"


def check_name(name: str) -> str:
    """A name the user typed, stripped; `TokenizerNameError` saying what is wrong (the caller escapes it)."""
    name = name.strip()
    if not name:
        raise TokenizerNameError("Give the tokenizer a name.")
    if not NAME_RE.fullmatch(name):
        raise TokenizerNameError(f"“{name}” cannot be a name: use up to {MAX_NAME_CHARS} letters, digits, '.', '_' or '-', "
                         "starting with a letter or digit.")
    if canonical_name(name) in {entry.name for entry in catalog()}:
        raise TokenizerNameError(f"“{name}” is a built-in tokenizer's name; choose another.")
    return name


def suggest_name(filename: str, kind: str) -> str:
    """A valid default name from an uploaded file's name: its stem, or the kind for generic stems."""
    stem = filename.rsplit("/", 1)[-1]
    stem = stem[: stem.index(".")] if "." in stem[1:] else stem
    stem = re.sub(r"[^A-Za-z0-9._-]+", "-", stem).strip("-._")[:MAX_NAME_CHARS]
    if stem.lower() in {"", "tokenizer", "vocab", "encoder", "model", "merges", "tekken"}:
        stem = f"my-{kind.replace('.', '-')}"[:MAX_NAME_CHARS]
    try:
        return check_name(stem)
    except TokenizerNameError:  # a built-in's name ("gpt2.tiktoken")
        return f"my-{stem}"[:MAX_NAME_CHARS]


class SessionTokenizers(Mapping[str, Any]):
    """One session's tokenizers, oldest first: a read-only mapping; `add`/`remove` go through the store."""

    def __init__(self, store: "Store", session_id: str) -> None:
        self.store = store
        self.session_id = session_id
        self.released = False
        self.forgotten: list[str] = []  # the names it held when it was released (for the reconnect's notice)
        self._encodings: OrderedDict[str, Any] = OrderedDict()
        self._weights: dict[str, int] = {}

    def __getitem__(self, name: str) -> Any:
        return self._encodings[name]

    def __iter__(self) -> Iterator[str]:
        return iter(list(self._encodings))

    def __len__(self) -> int:
        return len(self._encodings)

    def weight(self) -> int:
        return sum(self._weights.values())

    def add(self, enc: Any, *, max_count: int, name: str | None = None, reservation: "Reservation | None" = None,
            suffix_if_taken: bool = False) -> list[str]:
        """Keep `enc`, renamed to `name` if given (a name no other content holds, or with
        `suffix_if_taken` the first free of name-2, name-3, ...); returns the names dropped to stay
        within `max_count` (oldest first).  `UploadBudgetError` past the server's budget,
        `TokenizerNameError` for a name taken by another tokenizer."""
        return self.store._add(self, enc, max_count=max_count, name=name, reservation=reservation,
                               suffix_if_taken=suffix_if_taken)

    def remove(self, name: str) -> None:
        with self.store._lock:
            self._encodings.pop(name, None)
            self._weights.pop(name, None)

    def _clear(self) -> None:
        self.forgotten = list(self._encodings)
        self._encodings.clear()
        self._weights.clear()
        self.released = True


class Reservation:
    """Bytes set aside for an upload while it is parsed (`Store.reserve`), for a client (None: no client)."""

    def __init__(self, nbytes: int, client: str | None = None) -> None:
        self.nbytes = nbytes
        self.client = client


class Store:
    """Every session's tokenizers and reservations, against one budget and a share of it per client
    (`CLIENT_SHARE`; see the module doc); thread-safe."""

    def __init__(self, budget: int = BUDGET_BYTES, client_share: float = CLIENT_SHARE) -> None:
        self.budget = budget
        self.client_share = client_share
        self._lock = threading.RLock()
        self._sessions: dict[str, SessionTokenizers] = {}
        self._client_of: dict[str, str] = {}  # session id -> its client (`client_key`)
        self._reservations: list[Reservation] = []
        self._names: OrderedDict[str, str] = OrderedDict()  # name -> the engine's content-hashed name

    @property
    def share(self) -> int:
        """The most one client may hold and reserve (bytes)."""
        return int(self.budget * self.client_share)

    def used(self, client: str | None = None) -> int:
        """Bytes of every session's tokenizers and every reservation; of one client's only if given."""
        with self._lock:
            return (sum(t.weight() for sid, t in self._sessions.items() if client is None or self._client_of.get(sid) == client)
                    + sum(r.nbytes for r in self._reservations if client is None or r.client == client))

    def client_of(self, session_id: str) -> str:
        with self._lock:
            return self._client_of.get(session_id, f"session:{session_id}")

    def session_ids(self) -> list[str]:
        with self._lock:
            return list(self._sessions)

    def _refuse(self, what: str, need: int, used: int) -> UploadBudgetError:
        return UploadBudgetError(
            f"{what} would need about {_mb(need)} of memory, and the server's memory budget for uploaded "
            f"tokenizers ({_mb(self.budget)}, shared by everyone using this server) has {_mb(max(0, self.budget - used))} "
            "left. Try again later, remove one of your own tokenizers, or use a smaller one.")

    def _refuse_share(self, what: str, need: int, used: int) -> UploadBudgetError:
        return UploadBudgetError(
            f"{what} would need about {_mb(need)} of memory, and your share of the server's memory budget for "
            f"uploaded tokenizers ({_mb(self.share)} for all the tabs of your browser together) has "
            f"{_mb(max(0, self.share - used))} left. Remove one of your tokenizers (in any of your tabs), wait for "
            "another of your uploads to finish, or use a smaller tokenizer.")

    def _check(self, what: str, need: int, client: str | None, freed: int = 0, freed_client: int = 0) -> None:
        """`UploadBudgetError` if `need` more bytes (`freed` given back first) pass the budget or `client`'s share."""
        used = self.used() - freed
        if used + need > self.budget:
            raise self._refuse(what, need, used)
        if client is not None:
            mine = self.used(client) - freed_client
            if mine + need > self.share:
                raise self._refuse_share(what, need, mine)

    @contextmanager
    def reserve(self, nbytes: int, what: str, client: str | None = None) -> Iterator[Reservation]:
        """Set `nbytes` aside for `client` (None: no share checked) while an upload is parsed and built; given
        back on leaving the block."""
        with self._lock:
            self._check(what, nbytes, client)
            reservation = Reservation(nbytes, client)
            self._reservations.append(reservation)
        try:
            yield reservation
        finally:
            with self._lock:
                self._reservations.remove(reservation)

    def open(self, session_id: str, client: str | None = None) -> SessionTokenizers:
        """The session's tokenizers (a new, empty mapping after the session was released); `client`: whose
        share they count against (`client_key`; None: the session's own)."""
        with self._lock:
            found = self._sessions.get(session_id)
            if found is None:
                found = self._sessions[session_id] = SessionTokenizers(self, session_id)
            self._client_of[session_id] = client or f"session:{session_id}"
            return found

    def release(self, session_id: str) -> int:
        """Forget a session's tokenizers (its end); the bytes given back."""
        with self._lock:
            self._client_of.pop(session_id, None)
            tokenizers = self._sessions.pop(session_id, None)
            if tokenizers is None:
                return 0
            freed = tokenizers.weight()
            tokenizers._clear()
        return freed

    def release_all(self) -> None:
        """Forget every session's tokenizers (tests)."""
        for session_id in self.session_ids():
            self.release(session_id)

    def _free_name(self, base: str, content: str) -> str:
        for n in range(1, 1000):
            name = base if n == 1 else f"{base[:MAX_NAME_CHARS - 4]}-{n}"
            if self._names.get(name, content) == content:
                return name
        return content  # the engine's own name holds a hash of the content: always free for it

    def _claim(self, name: str, content: str) -> None:
        holder = self._names.get(name)
        if holder is not None and holder != content:
            raise TokenizerNameError(f"“{name}” already names another tokenizer on this server (a name stays with its "
                             "content while the server runs); choose another name.")
        self._names[name] = content
        self._names.move_to_end(name)
        while len(self._names) > MAX_NAMES:
            self._names.popitem(last=False)

    def _add(self, tokenizers: SessionTokenizers, enc: Any, *, max_count: int, name: str | None,
             reservation: Reservation | None, suffix_if_taken: bool = False) -> list[str]:
        weight = estimate_bytes(enc)
        with self._lock:
            if tokenizers.released or self._sessions.get(tokenizers.session_id) is not tokenizers:
                raise UploadBudgetError("This session has ended; reload the page and upload again.")
            target = name or enc.name
            if tokenizers._encodings.get(target) is enc:  # added again ("Use in Compare" twice): now the newest
                tokenizers._encodings.move_to_end(target)
                return []
            # The engine's own name holds a hash of the content: it says which content a name was given to.
            if suffix_if_taken:
                target = self._free_name(target, enc.name)
            self._claim(target, enc.name)
            keep = [n for n in tokenizers._encodings if n != target]
            dropped = keep[: max(0, len(keep) - (max_count - 1))]
            freed = tokenizers._weights.get(target, 0) + sum(tokenizers._weights[n] for n in dropped)
            held = reservation.nbytes if reservation is not None else 0  # given back as this takes its place
            client = self._client_of.get(tokenizers.session_id)
            mine = held if reservation is not None and reservation.client == client else 0
            self._check(f"{target} ({enc.n_vocab:,} ids)", weight, client, freed + held, freed + mine)
            for old in dropped:
                tokenizers._encodings.pop(old)
                tokenizers._weights.pop(old)
            enc.name = target  # the session's own, new object: nobody else holds it yet
            tokenizers._encodings.pop(target, None)
            tokenizers._encodings[target] = enc
            tokenizers._weights[target] = weight
        return dropped


STORE = Store()


# --------------------------------------------------------------- Streamlit's side
REAP_EVERY = 15.0  # seconds between checks of the parked sessions (a release comes at most this late)
_park_lock = threading.Lock()
_parked: dict[str, tuple[SessionTokenizers, float]] = {}  # session id -> (its tokenizers, when last seen held)
_reap_timer: threading.Timer | None = None


def _on_session_end(tokenizers: SessionTokenizers) -> None:
    """Streamlit's on_release for a session's resource: called when the session's connection closes (the
    session is still connected then, and kept for a reconnect), when it shuts down, or when its resources
    are cleared.  Released at once only when Streamlit no longer holds the session; otherwise parked."""
    if _held_by_streamlit(tokenizers.session_id):
        with _park_lock:
            _parked[tokenizers.session_id] = (tokenizers, time.monotonic())
        _reap_soon()
        return
    _release(tokenizers)


def _release(tokenizers: SessionTokenizers) -> None:
    with _park_lock:
        _parked.pop(tokenizers.session_id, None)
    if tokenizers.store.release(tokenizers.session_id):
        memo.forget(tokenizers.forgotten)  # their cached tokens, ids and drawings (keyed by their names)
    with _give_back_lock:
        _ended.add(tokenizers.session_id)
    _give_back_soon()


def _unpark(session_id: str) -> None:
    """The session ran again and registered its tokenizers anew: its next closed connection says so itself."""
    with _park_lock:
        _parked.pop(session_id, None)


def _held_by_streamlit(session_id: str) -> bool:
    """Whether Streamlit holds the session: connected, or disconnected and kept for a reconnect (False
    where no runtime runs: AppTest, where a cleared session never comes back)."""
    from streamlit import runtime

    if not runtime.exists():
        return False
    instance = runtime.get_instance()
    if instance.is_active_session(session_id):
        return True
    # Streamlit keeps a disconnected session in its session manager's storage for the grace period; the
    # manager's get_session_info finds it there (a TTL cache: None once the grace period is over).
    manager = getattr(instance, "_session_mgr", None)
    find = getattr(manager, "get_session_info", None)
    if find is not None:
        return find(session_id) is not None
    # Without that view (another Streamlit): kept for the grace period after it was last seen held.
    with _park_lock:
        seen = _parked.get(session_id, (None, None))[1]
    return seen is not None and time.monotonic() - seen < _grace_period()


def _grace_period() -> float:
    from streamlit import config

    return float(config.get_option("server.disconnectedSessionTTL"))


def _reap(now: float | None = None) -> list[str]:
    """Release every parked session Streamlit no longer holds; returns their ids.  A held one stays
    parked (a session that reconnected may lose its connection again before a run re-registers it)."""
    now = time.monotonic() if now is None else now
    with _park_lock:
        parked = dict(_parked)
    gone = []
    for session_id, (tokenizers, _seen) in parked.items():
        if _held_by_streamlit(session_id):
            with _park_lock:
                if session_id in _parked:
                    _parked[session_id] = (tokenizers, now)
        else:
            gone.append(session_id)
            _release(tokenizers)
    return gone


def _reap_soon() -> None:
    """Check the parked sessions in `REAP_EVERY` seconds, and again while any is parked."""
    global _reap_timer
    with _park_lock:
        if _reap_timer is not None:
            return
        _reap_timer = threading.Timer(REAP_EVERY, _reap_and_again)
        _reap_timer.name, _reap_timer.daemon = "bpe-uploads-reap", True
        _reap_timer.start()


def _reap_and_again() -> None:
    global _reap_timer
    try:
        _reap()
    finally:
        with _park_lock:
            _reap_timer = None
            again = bool(_parked)
        if again:
            _reap_soon()


# An encoding's objects sit in reference cycles, and the server collects cycles rarely (settle_gc
# raises the threshold for the sake of every rerun), so a released tokenizer stays in memory until a
# collection; glibc's malloc_trim after it gives the freed pages back to the system
# (bench/bench_upload_memory.py measures both).  One collection for sessions that end together, a second later.
GIVE_BACK_DELAY = 1.0  # seconds
_give_back_lock = threading.Lock()
_give_back_timer: threading.Timer | None = None
_ended: set[str] = set()  # sessions released since the last give-back


def _give_back_soon() -> None:
    global _give_back_timer
    with _give_back_lock:
        if _give_back_timer is not None:
            return
        _give_back_timer = threading.Timer(GIVE_BACK_DELAY, _give_back)
        _give_back_timer.name, _give_back_timer.daemon = "bpe-uploads-give-back", True
        _give_back_timer.start()


def _give_back() -> None:
    global _give_back_timer
    with _give_back_lock:
        _give_back_timer = None
        ended = list(_ended)
        _ended.clear()
    _drop_uploaded_files(ended)
    gc.collect()
    _trim()
    test_seams.uploads_gave_back()


def _drop_uploaded_files(session_ids: list[str]) -> None:
    """The raw files of sessions that have gone: Streamlit keeps a closed session's uploads (up to
    40 MB per uploader) until it drops the session itself, two minutes later at the earliest and
    only when another connection touches its store.  A session still connected (the store was
    cleared by `st.cache_resource.clear()`, not by its end) keeps its files."""
    from streamlit import runtime

    if not runtime.exists():
        return
    instance = runtime.get_instance()
    for session_id in session_ids:
        if not instance.is_active_session(session_id):
            instance.uploaded_file_mgr.remove_session_files(session_id)


def _trim() -> None:
    """Free pages of the C heap back to the system (glibc's malloc_trim; elsewhere nothing)."""
    trim = _malloc_trim()
    if trim is not None:
        trim(0)


@functools.lru_cache(maxsize=1)
def _malloc_trim() -> Any:
    """glibc's malloc_trim, or None (another C library: the memory is reused, just not returned)."""
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        return libc.malloc_trim
    except (OSError, AttributeError):
        return None


def _session_id() -> str:
    from streamlit.runtime.scriptrunner import get_script_run_ctx

    ctx = get_script_run_ctx()
    if ctx is None:
        raise RuntimeError("uploads.this_session() runs inside a Streamlit script run only")
    return ctx.session_id


def _make_session_resource():
    import streamlit as st

    @st.cache_resource(scope="session", on_release=_on_session_end, show_spinner=False)
    def session_tokenizers() -> SessionTokenizers:
        session_id = _session_id()
        _unpark(session_id)  # a reconnected session: registered again from here on
        return STORE.open(session_id, client_key(st.context.cookies, session_id))

    return session_tokenizers


_session_tokenizers = _make_session_resource()


def this_client() -> str:
    """The client (`client_key`) of this script run's session: whose share an upload counts against."""
    return STORE.client_of(this_session().session_id)


@contextmanager
def reserve_upload(kind: str, files: list[tuple[str, bytes]], what: str) -> Iterator[Reservation]:
    """`upload_reservation` of `files` set aside in the server's budget and this client's share while they are
    parsed and built (`Store.reserve`); a file the engine's scan refuses raises its error first.  Afterwards the
    parse's free pages go back to the system (`_trim`): the peak is gone, only the encoding stays."""
    try:
        with STORE.reserve(upload_reservation(kind, files), what, this_client()) as reservation:
            yield reservation
    finally:
        _trim()


def this_session(current: Mapping[str, Any] | None = None) -> SessionTokenizers:
    """This session's tokenizers, registered for release at the session's end.  `current` (what
    session state held: a plain dict a test put there) is taken over."""
    tokenizers = _session_tokenizers()
    if tokenizers.released:  # released while this run was under way: start a fresh one
        _session_tokenizers.clear()
        tokenizers = _session_tokenizers()
    if current is not None and current is not tokenizers and not isinstance(current, SessionTokenizers):
        for enc in list(current.values()):
            tokenizers.add(enc, max_count=max(len(current), 1) + len(tokenizers))
    return tokenizers


# ------------------------------------------------- derived, cached: lossy examples, this machine's tokenizers
@memo.shared(max_entries=64, ttl=3600)
def _lossy_example(name: str, _enc: Any) -> Any:
    from engine.explain.lossless import lossy_example

    return lossy_example(_enc)


def lossy_example(enc: Any) -> Any:
    """A short text `enc` does not give back (`engine.explain.lossless.RoundTrip`), or None; once per tokenizer."""
    return _lossy_example(enc.name, enc)


@memo.shared(max_entries=1, ttl=10)
def _local_listing(environ_key: tuple) -> list:
    from engine.sources.local_files import find_local_tokenizers

    return find_local_tokenizers()


def local_tokenizers() -> list:
    """This machine's tokenizers (`engine.sources.local_files`), listed again at most every 10 s."""
    from engine.sources.local_files import ENV_SWITCH

    keys = (ENV_SWITCH, "HF_HUB_CACHE", "HF_HOME", "XDG_CACHE_HOME", "OLLAMA_MODELS", "HOME")
    return _local_listing(tuple(os.environ.get(k) for k in keys))
