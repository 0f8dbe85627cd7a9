"""The engine's cooperative time limit (`engine.deadline`): a caller's limit stops the loops a crafted file makes
long, with a typed error, and nothing else (issue 33, item 1(b)).

The files are tests/engine/formats/crafted_slow_files.py's `AT_THE_BOUNDS`: the costliest that still load
(a 20,000-character run of "a" cost each of them seconds before the heap merges; it still costs every call
15 ms or more, most of them seconds; bench/bench_crafted_files.py times them).  Every
entry point a page uses on a text is run under a limit far shorter than that work, so a call that ends
without `TimeLimitError` ran a loop that does not check the limit.
"""
from __future__ import annotations

import threading

import pytest

import engine
from engine.deadline import current, time_limit
from engine.errors import TimeLimitError
from engine.explain import algorithms, families, pipeline
from engine.families.hf.models.bpe import CharBpe
from engine.sources.uploads import load_files
from tests.engine.formats.crafted_slow_files import AT_THE_BOUNDS

LIMIT = 0.001  # seconds: each call below works on TEXT for at least 15 ms (the fastest, hf_bpe_256_chain encode, since the heap merge made it linear), most for seconds
TEXT = "a" * 20_000


@pytest.fixture(scope="module", params=sorted(AT_THE_BOUNDS))
def crafted(request):
    filename, build, _ = AT_THE_BOUNDS[request.param]
    return load_files([(filename, build())])


CALLS = {
    "encode": lambda enc: enc.encode(TEXT),
    "tokenize": lambda enc: enc.tokenize(TEXT),
    "tokenize_text": lambda enc: families.tokenize_text(enc, TEXT),
    "bpe_trace": lambda enc: enc.bpe_trace(TEXT),
    "piece_story": lambda enc: algorithms.piece_story(enc, TEXT),
    "pipeline_stages": lambda enc: pipeline.pipeline_stages(enc, TEXT),
    "chunk_text": lambda enc: engine.chunk_text(TEXT, enc, 100),
}


@pytest.mark.parametrize("call", sorted(CALLS))
def test_every_call_on_a_crafted_file_stops_at_the_callers_limit(crafted, call):
    """Before `engine.deadline`: each call ran to its end (seconds), whatever the caller wanted."""
    crafted.clear_cache()
    with pytest.raises(TimeLimitError) as stopped:
        with time_limit(LIMIT):
            CALLS[call](crafted)
    assert stopped.value.seconds == LIMIT
    assert f"took more than {LIMIT:g} s on this text and was stopped" in str(stopped.value)
    assert "try a shorter text" in str(stopped.value)
    assert current() is None  # the limit ends with its block


def test_a_stopped_call_leaves_the_encoding_as_it_was(crafted):
    """The per-piece caches are written only after a piece is done: a stop mid-way leaves nothing half made."""
    crafted.clear_cache()
    text = "a" * 300 + "b" + "a" * 40
    expected = crafted.encode(text)
    crafted.clear_cache()
    with pytest.raises(TimeLimitError):
        with time_limit(LIMIT):
            crafted.encode(TEXT)
    assert crafted.encode(text) == expected


def test_no_limit_no_check():
    enc = engine.get_encoding("gpt2")
    assert current() is None
    assert enc.encode("hello world") == [31373, 995]


def test_nested_limits_keep_the_earliest():
    with time_limit(0.5) as outer:
        with time_limit(100) as inner:
            assert inner is outer and current() is outer
        with time_limit(0.1) as sooner:
            assert sooner is not outer and current() is sooner
        assert current() is outer
    assert current() is None


def test_a_limit_is_this_threads_only(crafted):
    """One session's limit never stops another session's work: the other thread runs to its end."""
    text = "a" * 400
    expected = crafted.encode(text)
    crafted.clear_cache()
    seen: list = []
    with time_limit(1e-9):
        worker = threading.Thread(target=lambda: seen.append((current(), crafted.encode(text))))
        worker.start()
        worker.join()
    assert seen == [(None, expected)]


# ------------------------------------------------------------------ the char-level BPE's tokenize
class CountingRanks(dict):
    """A pair-rank dict that counts its lookups (the merge loops read it through ``.get``)."""

    lookups = 0

    def get(self, key, default=None):
        CountingRanks.lookups += 1
        return super().get(key, default)


def test_char_bpe_tokenize_on_one_long_piece_is_not_quadratic():
    """A piece is a whole text without a pre-tokenizer: the plain merge loop rescans it for every merge, so
    20,000 "a" took 105 s to tokenize (its encode, by the heap, 0.07 s).  Counted, not timed: the lookups of
    the pair ranks grow like n, not n^2 (before: 4,500,000 for 3,000 characters)."""
    filename, build, _ = AT_THE_BOUNDS["hf_bpe_256_chain"]
    enc = load_files([(filename, build())])
    model: CharBpe = enc.model
    model.pair_rank = CountingRanks(model.pair_rank)
    CountingRanks.lookups = 0
    n = 3_000
    tokens = model.tokenize("a" * n)
    assert CountingRanks.lookups < 20 * n, CountingRanks.lookups
    assert [t.id for t in tokens] == list(enc.encode("a" * n))


@pytest.mark.parametrize("text", ["a" * 300, "a" * 1001 + "b" + "a" * 514, "é" * 400, "ab" * 200 + "\u4e00" * 300])
def test_char_bpe_tokenize_by_the_heap_equals_the_plain_loop(text):
    """Long pieces go to the heap (`CharBpe._merged_parts`); tokens, offsets and byte indexes stay the plain loop's,
    with byte fallback (one token per byte of a character the vocabulary lacks, two of them merged)."""
    import json

    filename, build, _ = AT_THE_BOUNDS["hf_bpe_256_chain"]
    root = json.loads(build())
    vocab = root["model"]["vocab"]
    for b in range(256):
        vocab.setdefault(f"<0x{b:02X}>", len(vocab))
    for piece in ("b", "ab", "<0xC3><0xA9>"):
        vocab.setdefault(piece, len(vocab))
    root["model"]["byte_fallback"] = True
    root["model"]["merges"] += [["a", "b"], ["<0xC3>", "<0xA9>"]]
    enc = load_files([(filename, json.dumps(root).encode())])
    model: CharBpe = enc.model
    assert len(text) > 256  # longer than LONG_PIECE: the heap's path
    assert model.tokenize(text) == model.tokenize_reference(text)
