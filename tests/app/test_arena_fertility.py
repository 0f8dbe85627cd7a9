"""The Arena's fertility and parity (playground/views/arena.py over engine.explain.fertility) through AppTest:
the parity table is the engine's, the heatmap colours by tokens per word, the published numbers carry their
papers, and the user's own sentences stay out of the Gini."""
from __future__ import annotations

import io
import json

import pyarrow.ipc
import pytest

import engine
from engine.explain import fertility
from engine.explain.arena import language_matrix, language_samples
from playground import state
from tests.conftest import plain, run_view

PICK = ["gpt2", "o200k_base"]


def arena(**values):
    return run_view("views.arena", timeout=120, **{state.TEXT: "Hello world", state.ARENA_PICK: PICK, **values})


@pytest.fixture(scope="module")
def at():
    return arena(**{state.ARENA_METRIC: "fertility"})


def _texts(at) -> str:
    return "\n".join(plain(m.value) for m in at.markdown) + "\n" + "\n".join(plain(c.value) for c in at.caption)


def test_the_parity_table_is_the_engines(at):
    table = at.table[0].value
    rows = fertility.parity_rows(language_matrix([engine.get_encoding(n) for n in PICK]),
                                 {s.code for s in language_samples()})
    by_gini = sorted(rows, key=lambda r: r.gini)
    assert list(table.index) == [r.encoding for r in by_gini]  # most equal first
    for r in rows:
        assert table.loc[r.encoding, "Gini"] == pytest.approx(r.gini)
        assert table.loc[r.encoding, "× English, median"] == pytest.approx(r.median_vs_english)
        assert table.loc[r.encoding, "costliest"] == f"{r.worst_language} {r.worst_vs_english:.1f}×"
        assert table.loc[r.encoding, "tokens per word, median"] == pytest.approx(r.median_fertility)


def test_the_heatmap_colours_by_tokens_per_word(at):
    chart = at.get("vega_lite_chart")[1].proto
    spec = json.loads(chart.spec)
    assert spec["layer"][0]["encoding"]["color"]["field"] == "fertility"
    data = pyarrow.ipc.open_stream(io.BytesIO(chart.datasets[0].data.data)).read_all().to_pandas()
    cells = {(c.code, c.encoding): c for c in fertility.fertility_cells(
        language_matrix([engine.get_encoding(n) for n in PICK]))}
    for _, row in data.iterrows():
        assert row["fertility"] == pytest.approx(cells[(row["code"], row["encoding"])].fertility)
    labels = set(data["label"])
    assert "Chinese (Simplified) (zh-Hans) · per char" in labels and "English (en)" in labels


def test_published_numbers_with_their_papers_and_the_caption(at):
    text = _texts(at)
    for b in fertility.PUBLISHED:
        assert f"]({b.url})" in "\n".join(m.value for m in at.markdown) and b.finding in text
    assert "choose cl100k_base above" in text  # the cl100k baseline's tokenizer is not picked
    assert "choose cl100k_base and gemma4 above" in text
    o200k = next(r for r in fertility.parity_rows(language_matrix([engine.get_encoding(n) for n in PICK]),
                                                  {s.code for s in language_samples()}) if r.encoding == "o200k_base")
    assert f"o200k_base's median over our 31 other languages is {o200k.median_vs_english:.2f}× English" in text
    assert "Fewer tokens is not by itself a better model" in text
    assert "scripts written without spaces" in text  # the word method is stated


def test_cl100k_live_number_and_own_sentences_stay_out_of_the_gini():
    own = [{"code": "yours-1", "language": "Mine", "text": "x " * 200}]
    at = arena(**{state.ARENA_PICK: ["cl100k_base"], state.ARENA_OWN_SENTENCES: own})
    matrix = language_matrix([engine.get_encoding("cl100k_base")])
    shipped = {s.code for s in language_samples()}
    (row,) = fertility.parity_rows(matrix, shipped)
    assert at.table[0].value.loc["cl100k_base", "Gini"] == pytest.approx(row.gini)
    text = _texts(at)
    assert "your 1 own sentence left out" in text
    assert f"median over our 24 non-Latin languages is {fertility.non_latin_median(matrix, 'cl100k_base'):.1f}× English" in text
    assert "choose gemma4 above" in text  # the Gemma 4 vs cl100k_base figure needs both


def test_a_mean_baseline_prints_each_tokenizers_mean():
    """The view's sentence for a "mean" figure (the Gemma 4 one needs gemma4, slow to load: a cheaper pair here)."""
    from dataclasses import replace

    from playground.views import arena as arena_view

    matrix = language_matrix([engine.get_encoding(n) for n in PICK])
    shipped = {s.code for s in language_samples()}
    rows = fertility.parity_rows(matrix, shipped)
    gemma = next(b for b in fertility.PUBLISHED if b.measure == "mean_vs_english")
    line = plain(arena_view._live(replace(gemma, tokenizers=tuple(PICK)), matrix, rows, shipped))
    assert line.startswith("; ".join(f"{r.encoding}'s mean over our 31 other languages is {r.mean_vs_english:.2f}× English"
                                     for r in rows))


def test_a_tokenizer_that_loses_text_is_marked():
    at = arena(**{state.ARENA_PICK: ["bert-base-uncased", "o200k_base"]})
    table = at.table[0].value
    assert "bert-base-uncased ⚠" in table.index and "o200k_base" in table.index  # [UNK] for Georgian, Hindi...
    assert "numbers are too low, not good" in _texts(at)


def test_the_downloads_carry_words_and_tokens_per_word():
    import csv

    from playground.views import arena as arena_view

    matrix = language_matrix([engine.get_encoding(n) for n in PICK])
    cells = {(c.code, c.encoding): c for c in fertility.fertility_cells(matrix)}
    rows = list(csv.DictReader(io.StringIO(arena_view.heatmap_csv(matrix))))
    assert len(rows) == len(cells)
    for r in rows:
        cell = cells[(r["code"], r["tokenizer"])]
        assert int(r["words"]) == cell.units and r["words_counted_as"] == cell.unit
        assert float(r["tokens_per_word"]) == round(cell.fertility, 4)
    doc = json.loads(arena_view.heatmap_json(matrix))
    ja = next(x for x in doc["languages"] if x["code"] == "ja")
    assert ja["words_counted_as"] == "characters" and ja["words"] == cells[("ja", "gpt2")].units
    assert ja["tokens_per_word"]["o200k_base"] == round(cells[("ja", "o200k_base")].fertility, 4)


def test_a_sentence_without_words_has_no_tokens_per_word():
    """Only emoji and punctuation: no word to divide by, so the cell has no value (a log scale has no 0)."""
    own = [{"code": "yours-1", "language": "Emoji", "text": "👍👍 !!"}]
    at = arena(**{state.ARENA_METRIC: "fertility", state.ARENA_OWN_SENTENCES: own})
    chart = at.get("vega_lite_chart")[1].proto
    data = pyarrow.ipc.open_stream(io.BytesIO(chart.datasets[0].data.data)).read_all().to_pandas()
    mine = data[data["code"] == "yours-1"]
    assert len(mine) == len(PICK) and mine["fertility"].isna().all()
    assert data[data["code"] != "yours-1"]["fertility"].notna().all()
    assert "isValid(datum['fertility'])" in json.dumps(json.loads(chart.spec))
