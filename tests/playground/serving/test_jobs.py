"""Job processes (playground.serving.jobs): same results as inline, killed at the time limit, failures remembered."""
from __future__ import annotations

import os
import sys
import threading
import time

import pytest

import engine
from tests.conftest import CORPUS
from playground.serving import jobs, test_seams

TEXT = (CORPUS / "taylorswift.txt").read_text(encoding="utf-8")


@pytest.fixture(autouse=True)
def fresh():
    jobs.clear()
    yield
    jobs.clear()


def _gone(pid: int) -> bool:
    deadline = time.monotonic() + 10  # the fork server reaps a killed child within moments
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        time.sleep(0.05)
    return False


def test_a_job_gives_the_inline_result_in_another_process():
    enc = engine.get_encoding("cl100k_base")
    ids = jobs.run("encode", (enc, TEXT, "text"), label="t", timeout=60)
    assert ids == enc.encode_ordinary(TEXT)
    assert jobs.running() == {}


def test_a_session_tokenizer_travels_by_its_data():
    trained = engine.train_bpe(TEXT[:5000], 300, pat_str=engine.sources.openai_public.CL100K_PAT_STR)
    assert jobs.run("tokenize", (trained, TEXT[:3000], "text"), label="t", timeout=60) == trained.tokenize(TEXT[:3000])


def test_training_reports_progress_and_rebuilds_exactly():
    seen: list[int] = []
    enc = jobs.run("train", (TEXT[:20000], 300, None, ["<|end|>"]), label="t", timeout=60,
                   on_progress=lambda batch: seen.extend(i for i, _, _ in batch))
    direct = engine.train_bpe(TEXT[:20000], 300, special_tokens=["<|end|>"])
    assert enc.merges == direct.merges and enc.special_tokens == direct.special_tokens
    assert enc.training.message == direct.training.message
    assert seen == list(range(1, 45))  # every merge, in order, however batched


def test_training_progress_comes_in_batches(monkeypatch):
    """The job batches its merges (one message per PROGRESS_EVERY seconds, plus the last), never one per merge."""
    from playground.serving import job_tasks

    sent: list[list] = []
    clock = iter(range(10_000))
    monkeypatch.setattr(test_seams, "clock", lambda: next(clock) * 0.03)  # 30 ms per merge
    enc = job_tasks.train(TEXT[:20000], 300, None, [], progress=sent.append)
    merges = [i for batch in sent for i, _, _ in batch]
    assert merges == list(range(1, 45)) and len(enc.merges) == 44
    assert [len(batch) for batch in sent] == [4] * 11  # a message once 0.1 s have passed (every 4th merge): 11, not 44
    assert all(total == 44 for batch in sent for _, total, _ in batch)


def test_time_limit_kills_the_process_and_the_failure_is_remembered():
    pids: set[int] = set()
    done = threading.Event()

    def watch() -> None:  # what a load bench would see: the job's process while it runs
        while not done.is_set():
            pids.update(jobs.running())
            time.sleep(0.01)

    watcher = threading.Thread(target=watch)
    watcher.start()
    key = ("train", "slow")
    args = (TEXT * 4, 4096, None, [])  # raw-byte training on 740 kB: many seconds
    try:
        with pytest.raises(jobs.JobError, match="took longer than 1 s and was stopped"):
            jobs.cached_run(key, 1, "train", args, label="Training", timeout=1.0)
    finally:
        done.set()
        watcher.join()
    assert pids and os.getpid() not in pids, "the job ran in a process of its own"
    assert all(_gone(pid) for pid in set(pids))
    assert jobs.running() == {}
    started = test_seams.jobs_started
    with pytest.raises(jobs.JobError, match="took longer"):  # remembered: raised again without a new job
        jobs.cached_run(key, 1, "train", args, label="Training", timeout=1.0)
    assert test_seams.jobs_started == started


def test_the_task_error_message_comes_back():
    enc = engine.get_encoding("gpt2")
    with pytest.raises(ValueError, match="disallowed special token"):
        jobs.run("encode", (enc, "a<|endoftext|>b", "refuse"), label="t", timeout=60)


def test_an_engine_error_in_a_job_is_raised_as_its_own_class():
    """The engine's own exception comes back from the job process as that class, with the same message and
    fields, so a view catches `engine.DisallowedSpecialTokenError`, not a class name; a remembered failure too."""
    enc = engine.get_encoding("gpt2")
    with pytest.raises(engine.DisallowedSpecialTokenError) as inline:
        enc.encode("a<|endoftext|>b")
    for _ in range(2):  # the second time from the memory of failures, without a job
        with pytest.raises(engine.DisallowedSpecialTokenError) as info:
            jobs.cached_run(("refuse",), 1, "encode", (enc, "a<|endoftext|>b", "refuse"), label="t", timeout=60)
        assert str(info.value) == str(inline.value) and info.value.token == "<|endoftext|>"
    with pytest.raises(engine.RegexTimeoutError, match="took too long") as info:  # a TimeoutError, not a ValueError
        jobs.run("search_regex", (engine.get_encoding("cl100k_base"), "( | )+x", False, 0.2), label="t", timeout=60)
    assert "single repeat" in str(info.value)
    with pytest.raises(jobs.JobError, match="invalid regex") as info:  # not an engine class: the job's error, its message
        jobs.run("search_regex", (enc, "(ab", False, 1.0), label="t", timeout=60)
    assert type(info.value) is jobs.JobError


def test_results_are_cached_within_a_weight_budget(monkeypatch):
    monkeypatch.setattr(jobs, "RESULT_BUDGET", 100)
    enc = engine.get_encoding("gpt2")
    ref = enc
    for i in range(3):
        jobs.cached_run(("k", i), 40, "encode", (ref, f"text {i}", "text"), label="t", timeout=60)
    started = test_seams.jobs_started
    assert jobs.cached_run(("k", 2), 40, "encode", (ref, "text 2", "text"), label="t", timeout=60) == enc.encode("text 2")
    assert test_seams.jobs_started == started  # a hit
    jobs.cached_run(("k", 0), 40, "encode", (ref, "text 0", "text"), label="t", timeout=60)
    assert test_seams.jobs_started == started + 1  # evicted: the oldest went when the budget was passed


def test_default_builtins_warm_in_one_background_thread(monkeypatch):
    """After the first page, the default encodings load in one daemon thread, once per server."""
    from engine.sources import registry
    from playground import state
    from playground.serving import warmup

    monkeypatch.setattr(warmup, "_warm_started", False)
    monkeypatch.setattr(warmup, "WARM_DELAY", 0.01)
    monkeypatch.setenv("BPE_WARM", "defaults")
    # the modules other pages need are imported after the vocabularies; a missing one is passed over
    monkeypatch.setattr(warmup, "PRELOAD_MODULES", ("no_such_module_for_bpe", "colorsys"))
    monkeypatch.delitem(sys.modules, "colorsys", raising=False)
    for name in state.DEFAULT_ENCODINGS:
        monkeypatch.delitem(registry._ENCODINGS, name, raising=False)
    before = {t.ident for t in threading.enumerate()}
    warmup.warm_builtins()
    warmup.warm_builtins()  # a second page: no second thread
    started = [t for t in threading.enumerate() if t.ident not in before and t.name == "bpe-warm-builtins"]
    assert len(started) == 1 and started[0].daemon
    started[0].join(timeout=120)
    assert all(name in registry._ENCODINGS for name in state.DEFAULT_ENCODINGS)
    assert "colorsys" in sys.modules
    assert engine.get_encoding("gpt2").encode("hello world") == [31373, 995]


def test_every_builtin_warms_after_the_defaults_unless_told_not_to(monkeypatch):
    """BPE_WARM unset: after the defaults, every other built-in loads in the same background thread (the
    Arena's first visit finds them); BPE_WARM=defaults stops after the defaults."""
    import gc

    from engine.sources import registry
    from playground.serving import warmup

    monkeypatch.delenv("BPE_WARM", raising=False)
    assert warmup.warm_everything()
    monkeypatch.setenv("BPE_WARM", " Defaults ")
    assert not warmup.warm_everything()
    monkeypatch.delenv("BPE_WARM")
    monkeypatch.setattr(warmup, "WARM_STEP", 0.0)
    monkeypatch.setattr(warmup, "PRELOAD_MODULES", ())
    others = [n for n in engine.list_tokenizer_names() if n not in ("gpt2", "cl100k_base", "o200k_base")][:3]
    for name in others:
        monkeypatch.delitem(registry._ENCODINGS, name, raising=False)
    monkeypatch.setattr(engine, "list_tokenizer_names", lambda: ["gpt2", *others])
    threshold = gc.get_threshold()
    try:
        warmup._warm()
    finally:
        gc.unfreeze()
        gc.set_threshold(*threshold)
    assert all(name in registry._ENCODINGS for name in others)


def test_job_processes_find_the_vocabularies_preloaded_from_any_directory(tmp_path):
    """The fork server's preload works whatever the server's working directory (Python 3.11's fork
    server ignores the parent's sys.path and hides the ImportError): a job finds gpt2, cl100k_base and
    o200k_base already loaded instead of importing the engine and loading one itself."""
    import subprocess
    import sys
    from pathlib import Path

    from playground.serving import job_tasks

    root = Path(__file__).resolve().parents[3]
    script = tmp_path / "main.py"
    script.write_text(  # like Streamlit, which runs app.py as __main__ with no guard: a job must not run it again
        "import sys\n"
        f"sys.path.insert(0, {str(root)!r})\n"
        "from playground.serving import jobs\n"
        "if __name__ == '__mp_main__':\n"
        "    open('main-ran-again', 'w').close()\n"
        "if __name__ == '__main__':\n"
        "    print(jobs.run('preloaded', (), label='check', timeout=120))\n", encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    out = subprocess.run([sys.executable, str(script)], cwd=tmp_path, env=env, capture_output=True, text=True,
                         timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    found = eval(out.stdout.strip().splitlines()[-1])
    assert set(job_tasks.PRELOAD) <= set(found["encodings"])
    assert found == {**found, "streamlit": False, "main_rerun": False}
    assert found["nice"] >= os.nice(0) + 10 or found["nice"] == 19  # jobs yield the CPU to the server's clicks
    assert found["frozen"] > 1000  # the fork server froze what it loaded: a job's collector leaves those pages alone
    assert not (tmp_path / "main-ran-again").exists()


def test_the_time_limit_counts_from_the_job_start_not_from_the_wait_for_a_worker(monkeypatch):
    """A job that waited for a free worker keeps its whole time limit: the wait has its own limit and message.

    A fake clock: the wait for a slot takes 95 "seconds" of a 100 s limit, then the job's first progress report
    10 more; the job (a small training) finishes.  Counted from before the wait, the first report stopped it."""
    import types

    now = [1000.0]
    # jobs' own `time` only: the real module's monotonic also times multiprocessing's waits, which a frozen clock
    # turns into an endless loop (polling the children earlier tests left, in a full run)
    monkeypatch.setattr(jobs, "time", types.SimpleNamespace(monotonic=lambda: now[0]))

    class Slots:
        waited = False

        def acquire(self, timeout=None):
            if not self.waited:
                self.waited = True
                now[0] += 95.0
                return False
            return True

        def release(self):
            pass

    monkeypatch.setattr(jobs, "_SLOTS", Slots())

    seen_batches: list = []

    def tick(batch):
        if not seen_batches:
            now[0] += 10.0  # the job's first report comes "10 s" after its start
        seen_batches.append(batch)

    enc = jobs.run("train", (TEXT[:5000], 270, None, []), label="t", timeout=100, on_progress=tick)
    assert seen_batches and len(enc.merges) == 14
