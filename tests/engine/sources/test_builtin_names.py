"""Model names of the tokenizer.json built-ins (DeepSeek V3, GLM-4, GLM-5, MiniMax, Claude's legacy tokenizer) and
the catalog entries a picker shows for them."""
from __future__ import annotations

import pytest

import engine
from engine.errors import UnknownModelError
from engine.sources import catalog


@pytest.mark.parametrize("model, name", [
    ("deepseek-r1", "deepseek-v3"), ("DeepSeek-V3.1", "deepseek-v3"), ("deepseek-ai/DeepSeek-V3", "deepseek-v3"),
    ("DeepSeek-V3.2-Exp", "deepseek-v3"), ("deepseek-ai/DeepSeek-R1-0528", "deepseek-v3"),
    ("glm-5", "glm5"), ("zai-org/GLM-4.7", "glm5"), ("GLM-5.1", "glm5"), ("glm-5.2", "glm5"),
    ("MiniMax-M1", "minimax-m3"), ("MiniMaxAI/MiniMax-Text-01", "minimax-m3"), ("minimax-m3", "minimax-m3"),
    ("claude-2.1", "claude-legacy"), ("claude-instant-1.2", "claude-legacy"), ("claude-v1", "claude-legacy"),
    ("bert-base-uncased", "bert-base-uncased"), ("BAAI/bge-small-en-v1.5", "bert-base-uncased"),
    ("sentence-transformers/all-MiniLM-L6-v2", "bert-base-uncased"), ("bge-large-en", "bert-base-uncased"),
    ("THUDM/glm-4-9b", "glm4"), ("THUDM/glm-4-9b-chat", "glm4"), ("zai-org/GLM-4-32B-0414", "glm4"),
    ("GLM-Z1-9B-0414", "glm4"), ("glm-4v", "glm4"), ("zai-org/GLM-4.5V", "glm4"), ("glm-4.6v-flash", "glm4"),
])
def test_encoding_name_for_model(model, name):
    assert engine.encoding_name_for_model(model) == name


@pytest.mark.parametrize("model", ["deepseek-ai/DeepSeek-R1-Distill-Qwen-7B", "DeepSeek-R1-Distill-Llama-8B",
                                   "glm-4.5", "MiniMax-M2", "claude-3-opus-20240229",
                                   "bert-base-cased", "bert-base-multilingual-uncased", "BAAI/bge-m3", "bge-small-zh-v1.5"])
def test_models_with_another_tokenizer_are_not_mapped(model):
    with pytest.raises(UnknownModelError):
        engine.encoding_name_for_model(model)


@pytest.mark.parametrize("model", ["claude-3-opus-20240229", "claude-3-5-sonnet-latest", "claude-sonnet-4-5", "anthropic/claude-opus-4"])
def test_claude_3_and_later_say_where_counts_come_from(model):
    with pytest.raises(UnknownModelError, match="only from Anthropic's API") as err:
        engine.encoding_for_model(model)
    assert "claude-legacy" in str(err.value)
    assert "only from Anthropic's API" in catalog.search_encodings(model).note


def test_close_matches_are_suggested():
    with pytest.raises(UnknownModelError) as err:
        engine.encoding_name_for_model("glm-5x")
    assert "GLM-5" in err.value.suggestions
    with pytest.raises(UnknownModelError) as err:
        engine.encoding_name_for_model("MiniMax-M")
    assert "MiniMax-M1" in err.value.suggestions


def test_catalog_entries():
    for name, maker in [("deepseek-v3", "DeepSeek"), ("glm4", "Zhipu AI"), ("glm5", "Zhipu AI"), ("minimax-m3", "MiniMax"), ("claude-legacy", "Anthropic"),
                        ("bert-base-uncased", "Google Research")]:
        found = catalog.entry(name)
        assert found is not None and found.maker == maker
        enc = engine.get_encoding(name)
        assert enc.name == name and found.family == enc.family
    legacy = catalog.entry("claude-legacy")
    assert "pre-Claude-3" in legacy.models and "only from Anthropic's API" in legacy.note
    assert [m.name for m in catalog.search_encodings("deepseek-r1").matches][0] == "deepseek-v3"
    assert [m.name for m in catalog.search_encodings("THUDM/glm-4-9b").matches][0] == "glm4"
    assert "GLM-4" in catalog.entry("glm4").models and "GLM-4.5V" in catalog.entry("glm4").note
    groups = catalog.group_by_maker(["claude-legacy", "glm5", "gpt2", "minimax-m3"])
    assert [g for g, _ in groups] == ["OpenAI", "Zhipu AI", "MiniMax", "Anthropic"]
