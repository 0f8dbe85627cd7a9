"""AppTest of the Arena and Token-budget chunks views: numbers are the engine's, choices and errors work."""
from __future__ import annotations

import json

import pytest
from streamlit.testing.v1 import AppTest

from tests.conftest import blocks, plain, run_view

import engine
from playground import state
from playground.views import chunks as chunk_view

TEXT = ("Tokenizers cut text into tokens. Привет, мир! 日本語の文章です。\n\n"
        "A second paragraph with numbers 1234567 and an emoji 👋🏽. The end.")


def app(view: str, **values) -> AppTest:
    return run_view(view, timeout=120, **{state.TEXT: TEXT, **values})


def distinct_builtins() -> list[str]:
    kept, _ = engine.explain.arena.distinct_encodings([engine.get_encoding(n) for n in engine.list_tokenizer_names()])
    return [e.name for e in kept]


# ------------------------------------------------------------------ arena
@pytest.mark.heavy
def test_arena_ranks_every_builtin_with_engine_counts():
    at = app("views.arena")
    table = at.dataframe[0].value
    names = distinct_builtins()
    assert sorted(table["tokenizer"]) == sorted(names) and "r50k_base" not in set(table["tokenizer"])
    counts = {n: len(engine.get_encoding(n).encode(TEXT)) for n in names}
    assert dict(zip(table["tokenizer"], table["tokens"])) == counts
    assert list(table["tokens"]) == sorted(counts.values())
    best = min(counts.values())
    for _, row in table.iterrows():
        assert row["rank"] == 1 + sum(1 for c in counts.values() if c < row["tokens"])
        assert row["× best"] == round(row["tokens"] / best, 3)
        assert row["chars/token"] == round(len(TEXT) / row["tokens"], 3)
    assert any("r50k_base is the same tokenizer as gpt2" in plain(c.value) for c in at.caption)
    assert len(at.get("vega_lite_chart")) == 2  # the bar chart and the heatmap


@pytest.mark.heavy
def test_arena_deselection_and_metric():
    at = app("views.arena", arena_pick=["gpt2", "llama3", "mistral-v3"], arena_metric="tokens")
    assert sorted(at.dataframe[0].value["tokenizer"]) == ["gpt2", "llama3", "mistral-v3"]
    worst = plain(next(m.value for m in at.markdown if "taxes most" in m.value))
    assert "gpt2 → " in worst and "cl100k_base" not in worst
    spec = json.loads(at.get("vega_lite_chart")[1].proto.spec)
    assert "tokens" in json.dumps(spec["layer"][0]["encoding"]["color"])


def test_arena_heatmap_counts_are_measured_now():
    at = app("views.arena", arena_pick=["gpt2", "o200k_base"])
    worst = plain(next(m.value for m in at.markdown if "taxes most" in m.value))
    matrix = engine.language_matrix([engine.get_encoding("gpt2"), engine.get_encoding("o200k_base")])
    for cell in matrix.worst():
        assert f"{cell.encoding} → {cell.language} ({cell.vs_english:.1f}× English)" in worst


def test_arena_includes_the_sessions_own_tokenizer():
    mine = engine.train_bpe("low lower lowest " * 20, 270)
    at = app("views.arena", **{state.CUSTOM: {mine.name: mine}})
    table = at.dataframe[0].value
    assert mine.name in set(table["tokenizer"])
    assert int(table[table["tokenizer"] == mine.name]["tokens"].iloc[0]) == len(mine.encode(TEXT))


def test_arena_refusal_and_empty_selection():
    at = app("views.arena", **{state.TEXT: "a <|endoftext|> b", state.SPECIAL: "refuse"})
    assert at.error and "refused the text" in at.error[0].value
    at = app("views.arena", arena_pick=[])
    assert any("Pick at least one tokenizer" in i.value for i in at.info)


# ------------------------------------------------------------------ chunks
def test_chunks_match_the_engine():
    at = app("views.chunks", chunk_encoding="llama3", chunk_max=12, chunk_prefer="sentence")
    result = engine.chunk_text(TEXT, engine.get_encoding("llama3"), 12, prefer="sentence")
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["Chunks"] == str(len(result.chunks))
    assert metrics["Tokens in the text"] == f"{result.total_tokens:,}"
    cards = next(h for h in blocks(at) if 'class="chunks"' in h)
    assert cards.count('class="chunk ') == len(result.chunks)
    for c in result.chunks:
        assert f'data-index="{c.index}" data-tokens="{c.tokens}"' in cards


def test_chunk_downloads_round_trip():
    result = engine.chunk_text(TEXT, engine.get_encoding("cl100k_base"), 10, prefer="paragraph")
    lines = [json.loads(line) for line in chunk_view.as_jsonl(result).splitlines()]
    assert "".join(r["text"] for r in lines) == TEXT
    assert [r["tokens"] for r in lines] == [c.tokens for c in result.chunks]
    doc = json.loads(chunk_view.as_json(result))
    assert (doc["encoding"], doc["max_tokens"], doc["prefer"]) == ("cl100k_base", 10, "paragraph")
    assert doc["chunks"] == lines
    text = chunk_view.as_text(result)
    assert text.startswith(f"--- chunk 1 of {len(result.chunks)} · {result.chunks[0].tokens} tokens ---\n")
    assert all(c.text in text for c in result.chunks)


def test_chunks_paged():
    long = TEXT * 30
    at = app("views.chunks", **{state.TEXT: long, "chunk_max": 8, "chunk_prefer": "none", "chunk_encoding": "cl100k_base"})
    n = len(engine.chunk_text(long, engine.get_encoding("cl100k_base"), 8).chunks)
    assert n > chunk_view.PAGE_SIZE
    at.number_input(key="chunk_page").set_value(2).run()
    assert not at.exception
    cards = next(h for h in blocks(at) if 'class="chunks"' in h)
    assert f'data-index="{chunk_view.PAGE_SIZE}"' in cards and 'data-index="0"' not in cards


def test_chunk_budget_too_small_says_the_fix():
    at = app("views.chunks", **{state.TEXT: "👋🏽", "chunk_max": 1, "chunk_encoding": "cl100k_base"})
    assert "Choose a budget of at least" in plain(at.error[0].value)


@pytest.mark.parametrize("bad", [{"chunk_encoding": "nope"}, {"chunk_max": "abc"}, {"chunk_max": 0},
                                 {"chunk_prefer": "words"}, {"chunk_page": -3}])
def test_chunk_values_from_a_link_are_checked(bad):
    at = app("views.chunks", **bad)
    assert at.metric and not at.error


def test_a_failing_tokenizer_is_left_out_not_the_arena(monkeypatch):
    """A session tokenizer whose split pattern times out gets a message; the others are still ranked."""
    monkeypatch.setattr("engine.tokenizer.patterns.SPLIT_TIMEOUT", 0.3)  # read when the encoding is built
    slow = engine.Encoding("slow-1", pat_str=r"(a|aa)+b|\S|\s", special_tokens={},
                           mergeable_ranks={bytes([i]): i for i in range(256)})
    text = "a" * 40 + "!"
    at = app("views.arena", **{state.TEXT: text, state.CUSTOM: {"slow-1": slow},
                              "arena_pick": ["gpt2", "slow-1", "cl100k_base"]})
    assert at.error and "slow-1 could not split this text" in plain(at.error[0].value)
    assert sorted(at.dataframe[0].value["tokenizer"]) == ["cl100k_base", "gpt2"]


def test_a_new_own_tokenizer_joins_but_left_out_ones_stay_out():
    at = app("views.arena")
    at.button_group[0].set_value(["gpt2", "llama3"]).run()
    mine = engine.train_bpe("low lower lowest " * 20, 270)
    at.session_state[state.CUSTOM] = {mine.name: mine}
    at.run()
    assert not at.exception
    assert sorted(at.dataframe[0].value["tokenizer"]) == sorted(["gpt2", "llama3", mine.name])


def test_a_failure_is_remembered(monkeypatch):
    from playground.cache import encodings
    from playground.serving import jobs

    monkeypatch.setattr("engine.tokenizer.patterns.SPLIT_TIMEOUT", 0.3)
    slow = engine.Encoding("slow-2", pat_str=r"(a|aa)+b|\S|\s", special_tokens={},
                           mergeable_ranks={bytes([i]): i for i in range(256)})
    text = "a" * 40 + "!"
    with pytest.raises(ValueError) as first:
        encodings.count("slow-2", slow, "k-slow-2", text, "text")
    with pytest.raises(ValueError) as again:
        encodings.count("slow-2", slow, "k-slow-2", text, "text")
    assert again.value is first.value  # raised from memory, not computed again
    jobs.clear()


def test_arena_marks_counts_that_lost_text():
    """BERT writes [UNK] for the emoji: its row says how many, the summary says why the count is not a
    cost, and the heatmap's cells and caption mark the languages it lost; gpt2 loses nothing."""
    from engine.explain.lossless import count_unknown

    at = app("views.arena", arena_pick=["gpt2", "bert-base-uncased"])
    table = at.dataframe[0].value
    bert = engine.get_encoding("bert-base-uncased")
    lost = dict(zip(table["tokenizer"], table["⚠ unknown"]))
    assert lost == {"gpt2": 0, "bert-base-uncased": count_unknown(bert, bert.encode(TEXT))} and lost["bert-base-uncased"] > 0
    summary = plain(next(m.value for m in at.markdown if "fewest tokens" in m.value))
    assert "bert-base-uncased wrote" in summary and "not what the text costs" in summary
    assert any("⚠ = part of that sentence became" in plain(c.value) for c in at.caption)
    spec = json.dumps(json.loads(at.get("vega_lite_chart")[1].proto.spec))
    assert "datum.unknown > 0" in spec


def test_arena_without_lost_text_has_no_unknown_column():
    at = app("views.arena", arena_pick=["gpt2", "o200k_base"])
    assert "⚠ unknown" not in at.dataframe[0].value
    assert not any("⚠ =" in plain(c.value) for c in at.caption)
