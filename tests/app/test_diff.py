"""Tokenizer diff in AppTest: presets, the counts (equal to set arithmetic), your text's counts, a trained tokenizer."""
from __future__ import annotations

import pyarrow
import pytest

from tests.conftest import plain, run_view

import engine
from playground import state
from playground.views.diff import GROUPS


def diff_app(**session):
    return run_view("views.diff", timeout=120, **session)


def metrics(at) -> dict[str, str]:
    return {m.label: m.value for m in at.metric}


def test_gpt2_to_o200k_counts_are_set_arithmetic():
    at = diff_app()
    assert at.selectbox(key="diff_a").value == "gpt2" and at.selectbox(key="diff_b").value == "o200k_base"
    a, b = (set(engine.get_encoding(n).mergeable_ranks) for n in ("gpt2", "o200k_base"))
    m = metrics(at)
    assert m["Shared"] == f"{len(a & b):,}" and m["Only in A"] == f"{len(a - b):,}" and m["Only in B"] == f"{len(b - a):,}"
    text = at.session_state[state.TEXT]
    assert m["Tokens in A · gpt2"] == f"{len(engine.get_encoding('gpt2').encode_ordinary(text)):,}"
    assert m["Tokens in B · o200k_base"] == f"{len(engine.get_encoding('o200k_base').encode_ordinary(text)):,}"
    chart = at.get("vega_lite_chart")[0].proto
    table = chart.data.data if chart.data.data else chart.datasets[0].data.data
    frame = pyarrow.ipc.open_stream(table).read_all().to_pandas()
    both, only_a, only_b = GROUPS.values()  # the chart's group labels
    assert frame.groupby("group")["tokens"].sum().to_dict() == {both: len(a & b), only_a: len(a - b),
                                                               only_b: len(b - a)}
    page = "\n".join(md.value for md in at.markdown)
    assert 'data-group="only in B"' in page and "&lt;|endoftext|&gt;" in page
    assert len(at.dataframe[0].value) == 40  # the largest rank moves


@pytest.mark.heavy
def test_preset_sets_both_sides_and_the_link():
    at = diff_app()
    at.pills(key="diff_preset").set_value("Llama 3 → Llama 4").run()
    assert at.selectbox(key="diff_a").value == "llama3" and at.selectbox(key="diff_b").value == "llama4"
    at.selectbox(key="diff_b").set_value("qwen3.6").run()
    assert at.session_state["diff_preset"] is None  # picked by hand: no preset highlighted


def test_yours_without_a_tokenizer_says_how_to_make_one():
    at = diff_app()
    at.pills(key="diff_preset").set_value("yours → gpt2").run()
    assert "no tokenizer of your own yet" in at.info[0].value
    assert at.selectbox(key="diff_a").value == "gpt2"


@pytest.mark.heavy
def test_a_link_opens_the_pair():
    at = diff_app(query={"v.diff_a": '"qwen2.5"', "v.diff_b": '"qwen3.6"'})
    assert at.selectbox(key="diff_a").value == "qwen2.5" and at.selectbox(key="diff_b").value == "qwen3.6"


def test_a_trained_tokenizer_against_gpt2():
    at = run_view("views.train_steps", timeout=120, tsteps_source="two scripts", tsteps_pattern="gpt2")
    for _ in range(8):
        at.button(key="tsteps_next").click().run()
    at.button(key="tsteps_use_cmp").click().run()  # registers it as the session's own tokenizer
    name = at.session_state[state.ENCODINGS][-1]
    at.session_state["_view"] = "views.diff"
    at.run()
    at.pills(key="diff_preset").set_value("yours → gpt2").run()
    assert not at.exception
    assert at.selectbox(key="diff_a").value == name and at.selectbox(key="diff_b").value == "gpt2"
    mine, gpt2 = set(at.session_state[state.CUSTOM][name].mergeable_ranks), set(engine.get_encoding("gpt2").mergeable_ranks)
    m = metrics(at)
    assert m["Only in A"] == f"{len(mine - gpt2):,}" and m["Shared"] == f"{len(mine & gpt2):,}"
    assert m["Shared"] != "264"  # some of its 8 merges are GPT-2 tokens, not all (Cyrillic pairs are not)


def test_deepseek_preset_compares_v3_with_v4():
    """DeepSeek V3 and V4 share one vocabulary: the preset shows every ordinary token shared, and only their
    special tokens differ."""
    import engine
    from engine.explain.diff import vocab_diff

    at = run_view("views.diff", timeout=180)
    at.pills(key="diff_preset").set_value("DeepSeek V3 → V4").run()
    assert not at.exception
    assert (at.session_state[state.DIFF_A], at.session_state[state.DIFF_B]) == ("deepseek-v3", "deepseek-v4")
    d = vocab_diff(engine.get_encoding("deepseek-v3"), engine.get_encoding("deepseek-v4"))
    assert d.only_a == d.only_b == 0 and d.specials_only_b
    m = {x.label: x.value for x in at.metric}
    assert m["Only in A"] == "0" and m["Only in B"] == "0" and m["Shared"] == f"{d.shared:,}"
