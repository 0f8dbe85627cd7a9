"""AppTest of scaffold and unreachable tokens: Vocabulary's pane (chart of every built-in, this encoding's
lists, the corpus choice), a token's scaffold line in Vocabulary and Merge tree."""
from __future__ import annotations


import pyarrow as pa
import pytest
from streamlit.testing.v1 import AppTest

import engine
from tests.conftest import view_app
from engine.explain import scaffold, unreachable

def _chart_data(at: AppTest, i: int):
    proto = at.get("vega_lite_chart")[i].proto
    return pa.ipc.open_stream(proto.datasets[0].data.data).read_all().to_pandas()


@pytest.fixture(scope="module")
def gpt2():
    return engine.get_encoding("gpt2")


@pytest.fixture(scope="module")
def gpt2_counts(gpt2):
    return scaffold.scaffold_counts(gpt2, scaffold.builtin_corpus())


def test_pane_charts_every_builtin_and_lists_this_encodings_tokens(gpt2, gpt2_counts):
    at = view_app("views.vocab", token_encoding="gpt2", vocab_pane="scaffold").run()
    assert not at.exception and not at.error
    kinds, shares = _chart_data(at, 0), _chart_data(at, 1)
    assert set(kinds["encoding"]) == set(engine.list_tokenizer_names())
    glitch = kinds[kinds["kind"] == "GPT-2 glitch list"]
    assert set(glitch["encoding"]) == {"gpt2", "r50k_base"} and set(glitch["count"]) == {53}
    o200k = kinds[(kinds["encoding"] == "o200k_base") & (kinds["kind"] == "unreachable")]
    assert list(o200k["count"]) == [len(unreachable.stored_entry("o200k_base").unreachable)]
    assert "bert-base-uncased" not in set(shares["encoding"])  # merges nothing: no scaffold bar
    row = shares[shares["encoding"] == "gpt2"].iloc[0]
    assert row["scaffold"] == len(gpt2_counts.scaffold)
    captions = " ".join(c.value for c in at.caption)
    assert "arxiv.org/abs/2602.04706" in captions and "arxiv.org/abs/2405.05417" in captions
    # this encoding's scaffold list, as a table of its tokens
    assert list(at.dataframe[0].value["id"]) == list(gpt2_counts.scaffold)
    at.segmented_control(key="vocab_health_list").set_value("partial_utf8").run()
    assert len(at.dataframe[0].value) == len(unreachable.stored_entry("gpt2").partial_utf8)


def test_scaffold_over_your_text(gpt2):
    text = "unbelievable unbelievably believable"
    at = view_app("views.vocab", token_encoding="gpt2", vocab_pane="scaffold", text=text, scaffold_corpus="text").run()
    assert not at.exception
    expected = scaffold.scaffold_counts(gpt2, [text])
    assert [m.value for m in at.metric if m.label == "scaffold"] == [f"{len(expected.scaffold):,}"]
    assert any("your text (36 characters)" in c.value for c in at.caption)
    assert list(at.dataframe[0].value["id"]) == list(expected.scaffold)


def test_a_scaffold_token_says_so_in_vocabulary_and_merge_tree(gpt2_counts):
    token = gpt2_counts.scaffold[0]
    line = f"emitted 0×, inside longer tokens {gpt2_counts.inside[token]:,}×"
    at = view_app("views.vocab", token_encoding="gpt2", token_id=token, vocab_pane="token").run()
    assert not at.exception and any(line in i.value and "scaffolding" in i.value for i in at.info)
    facts = at.dataframe[0].value
    assert facts.set_index("fact").loc["reached by text", "value"].startswith("yes")
    at = view_app("views.tree", token_encoding="gpt2", token_id=token).run()
    assert not at.exception and any(line in i.value for i in at.info)


def test_an_emitted_token_gets_its_counts_not_the_scaffold_line(gpt2, gpt2_counts):
    token = max(gpt2_counts.emitted, key=gpt2_counts.emitted.get)
    at = view_app("views.tree", token_encoding="gpt2", token_id=token).run()
    assert not at.exception and not any("scaffolding" in i.value for i in at.info)
    assert any(f"emitted {gpt2_counts.emitted[token]:,}×" in c.value for c in at.caption)


def test_wordpiece_explains_itself_and_still_lists_unreachable_tokens():
    at = view_app("views.vocab", token_encoding="bert-base-uncased", vocab_pane="scaffold").run()
    assert not at.exception and any("pick a BPE encoding" in i.value for i in at.info)
    lists = at.segmented_control(key="vocab_health_list")
    assert lists.value == "unreachable" and not any(o.startswith("Scaffold") for o in lists.options)
    assert len(at.dataframe[0].value) == len(unreachable.stored_entry("bert-base-uncased").unreachable)


@pytest.mark.slow  # 7 s: the job process starts with the built-in vocabularies preloaded
def test_the_sessions_own_tokenizer_is_swept_in_a_job():
    """No stored sweep for a trained tokenizer: the pane sweeps it in a job process with a time limit."""
    from collections import OrderedDict

    from playground import state

    mine = engine.train_bpe("low lower lowest newer newest " * 20, 280)
    at = view_app("views.vocab", token_encoding=mine.name, vocab_pane="scaffold",
              **{state.CUSTOM: OrderedDict({mine.name: mine})}).run()
    assert not at.exception and not at.warning
    swept = unreachable.reachability(mine)
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["unreachable"] == f"{len(swept.unreachable):,}"
    assert metrics["partial UTF-8"] == f"{len(swept.partial_utf8):,}"
    assert metrics["scaffold"] == f"{len(scaffold.scaffold_counts(mine, scaffold.builtin_corpus()).scaffold):,}"
    assert any("Swept now" in c.value for c in at.caption)


def test_an_empty_text_falls_back_to_the_builtin_corpus_and_says_so(gpt2_counts):
    at = view_app("views.vocab", token_encoding="gpt2", vocab_pane="scaffold", text="  ", scaffold_corpus="text").run()
    assert not at.exception and any("text is empty" in c.value for c in at.caption)
    assert [m.value for m in at.metric if m.label == "scaffold"] == [f"{len(gpt2_counts.scaffold):,}"]


@pytest.mark.parametrize("name", ["mistral-v1", "qwen3.6"])  # SentencePiece BPE, a tokenizer.json's listed merges
def test_scaffold_line_for_other_families(name):
    enc = engine.get_encoding(name)
    counts = scaffold.scaffold_counts(enc, scaffold.builtin_corpus())
    token = counts.scaffold[0]
    at = view_app("views.tree", token_encoding=name, token_id=token).run()
    assert not at.exception
    assert any(f"emitted 0×, inside longer tokens {counts.inside[token]:,}×" in i.value for i in at.info)
