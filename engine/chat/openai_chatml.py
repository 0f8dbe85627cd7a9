"""OpenAI's chat counting for cl100k_base / o200k_base models (GPT-3.5-turbo, GPT-4, GPT-4o, ...).

OpenAI does not publish the ids of its chat wrapper; it publishes a counting
rule (the OpenAI Cookbook's ``num_tokens_from_messages``, the same numbers
tiktokenizer shows): every message costs 3 tokens of wrapper
(``<|start|>{role}\\n{content}<|end|>``) plus its role and content encoded as
text; a ``name`` costs its own tokens plus 1; every reply is primed with
``<|start|>assistant<|message|>`` -- 3 more tokens.  The wrapper tokens are
therefore drawn with ``None`` ids: counted, not identified.  Role, name and
content get real ids.  Every string field of a message is counted, as the
cookbook's loop does, so a ``tool_call_id`` counts too.

Tool definitions and tool calls are past the published rule: with either,
the count is `openai_functions`' estimate, and its note says ESTIMATE.
Left out: the legacy gpt-3.5-turbo-0301 rule (4 per message, -1 per name).
"""
from __future__ import annotations

from typing import Sequence

from . import openai_functions
from .base import Builder, ChatTokens, Message

FORMAT = "openai-chatml"
NOTE = "OpenAI publishes the counting rule, not the wrapper's ids: wrapper tokens are counted, drawn without an id."


def render(enc: object, messages: Sequence[Message], tools: Sequence[dict] = (), thinking: object = None) -> ChatTokens:
    if tools or any(m.calls for m in messages):  # past the published rule: the widely used estimate, labelled so
        return openai_functions.render(enc, messages, tools)
    b = Builder(enc)
    for i, m in enumerate(messages):
        b.message = i
        b.counted("template", "<|start|>", 1)
        b.text(m.role)
        if m.name:
            b.counted("template", ":", 1)
            b.content(m.name)
        b.counted("template", "\n", 1)
        b.content(m.content)
        if m.tool_call_id:
            b.content(m.tool_call_id)
        b.counted("template", "<|end|>", 1)
    b.message = -1
    b.counted("template", "<|start|>", 1)
    b.text("assistant")
    b.counted("template", "<|message|>", 1)
    return ChatTokens(FORMAT, enc.name, tuple(b.segments), priming=3, note=NOTE)
