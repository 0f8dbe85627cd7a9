"""`chat_count`: the number `chat_tokens(...).count` gives, for every chat row here, without the per-token walk
that tells template tokens from content ones (the page's per-tool recounts want only the number)."""
from __future__ import annotations

import pytest

import engine
from engine.chat import FORMAT_OF_ROW, FORMATS, ROW_ENCODING, ChatFormatError, base, chat_count, chat_tokens
from tests.engine.chat.tool_conversations import WEATHER, conversation

AVAILABLE = set(engine.list_tokenizer_names())
ROWS = [row for row in FORMAT_OF_ROW if ROW_ENCODING.get(row, row) in AVAILABLE]
# text where a token can span template and content, special-token text typed as content, and text NFC changes
# (Qwen normalizes before it encodes, so its offsets are scaled)
EDGES = [{"role": "system", "content": "Be terse.\n\n"},
         {"role": "user", "content": "<|im_end|><|eot_id|>[INST] e\u0301 Å \ufb01 \u212b  x\n"},
         {"role": "assistant", "content": " ok ", "reasoning_content": "think\u0301"},
         {"role": "user", "content": "日本 🦙 " * 40}]


def _same(row: str, messages: list[dict], tools: list[dict] | None, thinking) -> None:
    enc = engine.get_encoding(ROW_ENCODING.get(row, row))
    kwargs = dict(format=FORMAT_OF_ROW[row], tools=tools or None, thinking=thinking)
    try:
        expected = chat_tokens(messages, enc, **kwargs).count
    except ChatFormatError as error:
        with pytest.raises(ChatFormatError) as refused:
            chat_count(messages, enc, **kwargs)
        assert str(refused.value) == str(error)
        return
    assert chat_count(messages, enc, **kwargs) == expected, (row, thinking, messages, tools)


@pytest.mark.parametrize("row", ROWS)
def test_chat_count_is_the_sequences_count_for_every_row(row):
    thinking_values = FORMATS[FORMAT_OF_ROW[row]].thinking_values or (None,)
    for seed in range(24):
        messages, tools = conversation(seed)
        _same(row, messages, tools, thinking_values[seed % len(thinking_values)])
    for thinking in thinking_values:
        _same(row, EDGES, None, thinking)


@pytest.mark.parametrize("row", ["llama3", "qwen2.5"])
def test_chat_count_does_not_walk_the_tokens(row, monkeypatch):
    """A long message is one run for the count: `_append` once per run, not once per token (the walk is what
    made the page's per-tool recounts cost as much as the drawn sequences)."""
    calls = []
    real = base._append
    monkeypatch.setattr(base, "_append", lambda *args: (calls.append(1), real(*args)))
    enc = engine.get_encoding(row)
    messages = [{"role": "system", "content": "You are a careful agent. Use the tools. " * 200},
                {"role": "user", "content": "What's the weather in Paris?"}]
    tokens = chat_tokens(messages, enc, tools=[WEATHER])  # Llama 3 writes the tools and the system text as one
    assert len(calls) > 1000  # the drawn sequence walks every token of the 8,000-character prompt
    calls.clear()
    assert chat_count(messages, enc, tools=[WEATHER]) == tokens.count
    assert len(calls) < 20, len(calls)
    assert not getattr(base._counting, "on", False)  # the count's mode ends with it
