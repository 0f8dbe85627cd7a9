"""Every page that runs a session's own tokenizer on a text runs it under a time limit or in a job (issue 33,
item 1(b)): never inline without a limit, where a crafted file holds the server's one GIL for as long as it likes.

The tokenizer is a crafted Unigram tokenizer.json (tests/engine/formats/crafted_slow_files.py: every run of "a" up
to 256 characters, no pre-tokenizer, so the whole text is one lattice), uploaded as the Train view stores it.  A
tripwire on the Unigram lattice (`Unigram._best_path`, in this process only: a job process runs its own copy)
records every lattice over a long piece built without the engine's time limit set.  Each page runs with the
upload picked where the page picks a tokenizer, on a run of "a"; the seam lowers the inline limit so the work
moves to jobs quickly.  Not timed: the test looks at the tripwire and at what the page shows.
"""
from __future__ import annotations

from collections import OrderedDict

import pytest
import streamlit as st

from engine import deadline
from engine.families.hf.models.unigram import Unigram
from engine.sources.uploads import load_files
from playground import state
from playground.serving import jobs, user_work
from tests.conftest import drawn_ok, view_app
from tests.engine.formats.crafted_slow_files import AT_THE_BOUNDS

LONG_PIECE = 150  # characters: a lattice this long on a page's text is the costly work being watched


@pytest.fixture(scope="module")
def crafted():
    filename, build, _ = AT_THE_BOUNDS["hf_unigram_256_prefixes"]
    enc = load_files([(filename, build())])
    enc.name = "crafted-unigram"  # as the upload store names it (playground.cache.uploads)
    return enc


@pytest.fixture
def lattices(monkeypatch):
    """Lattices over a long piece built in this process: (its length, whether the engine's time limit was set)."""
    found: list[tuple[int, bool]] = []
    real = Unigram._best_path

    def watched(self, piece):
        if len(piece) >= LONG_PIECE:
            found.append((len(piece), deadline.current() is not None))
        return real(self, piece)

    monkeypatch.setattr(Unigram, "_best_path", watched)
    monkeypatch.setattr(user_work, "INLINE_LIMIT", 0.05)
    monkeypatch.setattr(user_work, "_costs", OrderedDict())
    jobs.clear()
    # An earlier AppTest in this worker may have cached a page's result for the same upload and text (the Gallery's
    # st.cache_data): then the page runs nothing and the test sees no lattice (it failed so in a two-worker run).
    st.cache_data.clear()
    yield found
    jobs.clear()


def _text(view: str, n: int = 3_000) -> str:
    """A run of "a" of its own per page (no page finds another's result in a shared cache)."""
    return "a" * (n - len(view)) + "b" * len(view)


def pages(name: str) -> dict[str, dict]:
    """Each page with the session state that makes it run the upload `name` on a costly text."""
    return {
        "views.tokenize": {state.ENCODINGS: [name]},
        "views.compare": {state.ENCODINGS: ["gpt2", name]},
        "views.arena": {state.ENCODINGS: [name]},
        "views.chunks": {state.ENCODINGS: [name]},
        "views.gallery": {state.ENCODINGS: [name], state.GALLERY_SECTION: "yours"},
        "views.diff": {state.DIFF_A: name, state.DIFF_B: "gpt2"},
        "views.pipeline": {state.PIPE_ENCODING: name, state.PIPE_TEXT: _text("pipeline", 1_000)},
        "views.algorithms": {state.ALGO_THIRD: name, state.ALGO_TEXT: _text("algorithms", 200)},
        "views.steps": {state.TOKEN_ENC: name},  # shared by BPE steps and Merge tree
        "views.tree": {state.TOKEN_ENC: name},
    }


@pytest.mark.parametrize("view", sorted(pages("x")))
def test_no_page_runs_an_upload_on_a_text_without_a_limit(view, crafted, lattices):
    """Before: Tokenize, Compare, Arena, Chunks, the Gallery, Diff, Pipeline and BPE steps built the lattice of the
    whole text inline, with no limit, holding the script's turn (12,000 "a": 9 s on the most costly file)."""
    session = {state.CUSTOM: OrderedDict([(crafted.name, crafted)]), state.TEXT: _text(view), "_net": True,
               **pages(crafted.name)[view]}
    at = view_app(view, timeout=180, **session)
    at.run()
    drawn_ok(at)
    assert lattices, "the page never ran the upload on its text"  # tried inline first (its cost is not known yet)
    assert all(limited for _, limited in lattices), lattices
