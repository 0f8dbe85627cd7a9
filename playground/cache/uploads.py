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
  tokenizers together.  An upload reserves, before it is parsed, the most its file could
  describe (`file_estimate`: as many tokens as fit in the file, at most the engine's limits),
  and once built keeps the estimate from its counts (`estimate_bytes`).  Past the budget:
  `UploadBudgetError`, whose message names the budget -- never an out-of-memory kill.
* **Unique names.**  Every cache of the playground (memo, st.cache_*, job results) is keyed by
  encoding name, so one name must never mean two vocabularies while the server runs: the store
  remembers which content (the engine's name, which holds a hash of it) each name was given to,
  and refuses a name that another content holds.

Per-token weights were measured as the RSS growth of loading one real tokenizer in a fresh
process (o200k as a rank file 199,998 ids: +50.7 MB; DeepSeek V4 tokenizer.json 129,280 ids:
+56.7 MB; Mistral v3 SentencePiece 32,768 ids: +16.1 MB; Tekken 240911 131,072 ids: +42.6 MB; Gemma 3's
tokenizer.json through the general pipeline, 262,145 ids: +164 MB held, +287 MB at the peak), rounded up.
"""
from __future__ import annotations

import ctypes
import ctypes.util
import functools
import gc
import os
import re
import threading
import time
from collections import OrderedDict
from contextlib import contextmanager
from typing import Any, Iterator, Mapping

from engine.sources.catalog import canonical_name, catalog
from engine.formats.limits import MAX_SPECIAL_TOKENS, MAX_TOKENS
from playground.cache import memo
from playground.serving import test_seams

BUDGET_BYTES = int(os.environ.get("BPE_UPLOAD_BUDGET_MB", "600")) * 1_000_000
MAX_NAMES = 100_000  # names remembered for uniqueness (a few MB at most)
FIXED_BYTES = 64_000  # an encoding's own objects besides its tokens (pattern, tables of 256)

# Bytes of memory per token id, by the encoding's class (measured: see the module docstring).
PER_TOKEN = {"Encoding": 260, "ModelEncoding": 340, "HfEncoding": 450, "SentencePieceEncoding": 500,
             "HfPipelineEncoding": 640}
PER_TOKEN_DEFAULT = max(PER_TOKEN.values())
# By upload kind (engine.load_tokenizer's): the class it builds, and the fewest file bytes one token takes.
KIND_CLASS = {"detected": "HfPipelineEncoding", "tiktoken": "Encoding", "data_gym": "Encoding", "minbpe": "Encoding",
              "tokenizer.json": "HfPipelineEncoding",  # the larger of the two a tokenizer.json builds
              "sentencepiece": "SentencePieceEncoding", "tekken": "ModelEncoding"}
MIN_FILE_BYTES_PER_TOKEN = {
    "tiktoken": 7,  # "AA== 0\n"
    "data_gym": 4,  # "a b\n" (a merge line; encoder.json adds more)
    "minbpe": 4,  # "1 2\n"
    "tokenizer.json": 6,  # '"a":1,'
    "sentencepiece": 6,  # a piece's field tag, lengths, one byte, a score
    "tekken": 20,  # '{"token_bytes":"AA=="},' at the least
}
NAME_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,39}")
MAX_NAME_CHARS = 40


class UploadBudgetError(ValueError):
    """An upload that would take the server's tokenizers past `BUDGET_BYTES`."""


class TokenizerNameError(ValueError):
    """A name the user chose that cannot be used (its message says why and what to do)."""


def estimate_bytes(enc: Any) -> int:
    """Memory an encoding takes, from its counts (ids) and its kind."""
    per_token = PER_TOKEN.get(type(enc).__name__, PER_TOKEN_DEFAULT)
    return FIXED_BYTES + per_token * int(enc.n_vocab)


def file_estimate(kind: str, size: int) -> int:
    """The most memory a tokenizer file of `size` bytes can take once built: as many tokens as the
    file can spell (`MIN_FILE_BYTES_PER_TOKEN`), at most the engine's limits.  Known before parsing."""
    tokens = min(MAX_TOKENS + MAX_SPECIAL_TOKENS, size // MIN_FILE_BYTES_PER_TOKEN.get(kind, 4) + 1)
    return FIXED_BYTES + PER_TOKEN.get(KIND_CLASS.get(kind, ""), PER_TOKEN_DEFAULT) * tokens


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
    """Bytes set aside for an upload while it is parsed (`Store.reserve`)."""

    def __init__(self, nbytes: int) -> None:
        self.nbytes = nbytes


class Store:
    """Every session's tokenizers and reservations, against one budget (thread-safe)."""

    def __init__(self, budget: int = BUDGET_BYTES) -> None:
        self.budget = budget
        self._lock = threading.RLock()
        self._sessions: dict[str, SessionTokenizers] = {}
        self._reservations: list[Reservation] = []
        self._names: OrderedDict[str, str] = OrderedDict()  # name -> the engine's content-hashed name

    def used(self) -> int:
        """Bytes of every session's tokenizers and every reservation."""
        with self._lock:
            return sum(t.weight() for t in self._sessions.values()) + sum(r.nbytes for r in self._reservations)

    def session_ids(self) -> list[str]:
        with self._lock:
            return list(self._sessions)

    def _refuse(self, what: str, need: int, used: int) -> UploadBudgetError:
        return UploadBudgetError(
            f"{what} would need about {_mb(need)} of memory, and the server's memory budget for uploaded "
            f"tokenizers ({_mb(self.budget)}, shared by everyone using this server) has {_mb(max(0, self.budget - used))} "
            "left. Try again later, remove one of your own tokenizers, or use a smaller one.")

    @contextmanager
    def reserve(self, nbytes: int, what: str) -> Iterator[Reservation]:
        """Set `nbytes` aside while an upload is parsed and built; given back on leaving the block."""
        with self._lock:
            used = self.used()
            if used + nbytes > self.budget:
                raise self._refuse(what, nbytes, used)
            reservation = Reservation(nbytes)
            self._reservations.append(reservation)
        try:
            yield reservation
        finally:
            with self._lock:
                self._reservations.remove(reservation)

    def open(self, session_id: str) -> SessionTokenizers:
        """The session's tokenizers (a new, empty mapping after the session was released)."""
        with self._lock:
            found = self._sessions.get(session_id)
            if found is None:
                found = self._sessions[session_id] = SessionTokenizers(self, session_id)
            return found

    def release(self, session_id: str) -> int:
        """Forget a session's tokenizers (its end); the bytes given back."""
        with self._lock:
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
            used = self.used() - freed - (reservation.nbytes if reservation is not None else 0)
            if used + weight > self.budget:
                raise self._refuse(f"{target} ({enc.n_vocab:,} ids)", weight, used)
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
    trim = _malloc_trim()
    if trim is not None:
        trim(0)
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
        return STORE.open(session_id)

    return session_tokenizers


_session_tokenizers = _make_session_resource()


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
