"""OpenAI Harmony, the chat format of gpt-oss (encoding ``o200k_harmony``).

Each message is ``<|start|>{header}<|message|>{content}<|end|>``; the header
is the role, ``role:name`` when the author has a name, and for a tool message
the tool's name alone (``functions.get_weather``).  The header and the content
are each encoded as ordinary text, so special-token text typed in content
stays text.  The reply is primed with ``<|start|>assistant`` (2 tokens).  This
is what ``openai_harmony``'s ``render_conversation_for_completion(conv,
Role.ASSISTANT)`` produces for text messages (checked in the tests).

Left out: Harmony's structured system and developer contents (model identity,
reasoning effort, tool namespaces), channels, and assistant tool calls -- a
system message here is plain text, as ``Message.from_role_and_content`` makes it.
"""
from __future__ import annotations

from typing import Sequence

from .base import Builder, ChatTokens, Message, unsupported_call

FORMAT = "harmony"


def render(enc: object, messages: Sequence[Message]) -> ChatTokens:
    unsupported_call(messages, "which this Harmony format does not model yet (openai-harmony sends a call to a "
                     "recipient on the commentary channel)")
    b = Builder(enc)
    for i, m in enumerate(messages):
        b.message = i
        b.special("<|start|>")
        if m.role == "tool":
            b.text(m.name or "tool")
        else:
            b.text(f"{m.role}:{m.name}" if m.name else m.role)
        b.special("<|message|>")
        b.content(m.content)
        b.special("<|end|>")
    b.message = -1
    b.special("<|start|>")
    b.text("assistant")
    return ChatTokens(FORMAT, enc.name, tuple(b.segments), priming=2)
