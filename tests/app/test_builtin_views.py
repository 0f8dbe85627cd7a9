"""Every view draws each new built-in (DeepSeek V3, GLM-4, GLM-5, MiniMax M3, Claude legacy, BERT, Gemma 3) with no
exception or error, and the Vocabulary flags BERT's [unused] and Gemma's <unusedN> slots."""
from __future__ import annotations

import subprocess
import sys

import pytest

from playground import state
from tests.conftest import APP_DIR, diagonal, run_view

TEXT = "Hello world!\nTokenization 🧩 and 日本語, 12345 café नमस्ते ﬁ"
NEW = ["deepseek-v3", "glm4", "glm5", "minimax-m3", "claude-legacy", "bert-base-uncased", "gemma3", "gemma4"]
VIEWS = ["views.tokenize", "views.compare", "views.gallery", "views.tree", "views.steps", "views.vocab", "views.chunks"]


@pytest.fixture(scope="module", autouse=True)
def gemma_installed():
    subprocess.run([sys.executable, "scripts/install_gemma.py"], cwd=APP_DIR, check=True, capture_output=True)


@pytest.mark.parametrize("name, view", diagonal(NEW, VIEWS))  # every pair under -m slow
def test_every_view_draws_the_new_builtins(view, name):
    at = run_view(view, timeout=180, **{state.TEXT: TEXT, state.ENCODINGS: [name, "gpt2"], state.TOKEN_ENC: name,
                                       "chunk_encoding": name})
    assert not at.error, [e.value for e in at.error]


def test_bpe_steps_shows_wordpiece_lookups_for_bert():
    at = run_view("views.steps", **{state.TEXT: "tokenization", state.TOKEN_ENC: "bert-base-uncased"})
    assert "WordPiece never merges" in at.info[0].value
    (frame,) = [d.value for d in at.dataframe]
    assert "##ization" in list(frame["looked up"]) and "✅" in list(frame["in the vocabulary"])
    assert "[19204, 3989]" in at.success[0].value


def test_vocabulary_flags_berts_unused_slots():
    from engine.explain.vocab import filter_tokens
    import engine

    bert = engine.get_encoding("bert-base-uncased")
    ids = filter_tokens(bert, "unused")
    assert len(ids) == 994 and bert.decode_single_token_bytes(ids[0]) == b"[unused0]"
    assert filter_tokens(engine.get_encoding("gpt2"), "unused") == []
    at = run_view("views.vocab", **{state.TOKEN_ENC: "bert-base-uncased", "vocab_filter": "unused"})
    assert any(m.value.startswith("**994** of 30,517 tokens") for m in at.markdown)  # ordinary tokens: the 5 specials aside
