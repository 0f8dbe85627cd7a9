"""OpenAI Harmony, the chat format of gpt-oss (encoding ``o200k_harmony``).

Each message is ``<|start|>{header}<|message|>{content}<|end|>``; the header
is the role, ``role:name`` when the author has a name, and for a tool message
the tool's name alone (``functions.get_weather``).  The header and the content
are each encoded as ordinary text, so special-token text typed in content
stays text.  The reply is primed with ``<|start|>assistant`` (2 tokens).  This
is what ``openai_harmony``'s ``render_conversation_for_completion(conv,
Role.ASSISTANT)`` produces for text messages (checked in the tests).

A tool call is written as the Harmony guide writes a function call, on the
commentary channel with a JSON constraint:
``<|start|>assistant to=functions.{call}<|channel|>commentary <|constrain|>json<|message|>{arguments}<|call|>``;
a tool message that answers a call is
``<|start|>functions.{call} to=assistant<|channel|>commentary<|message|>{result}<|end|>``
(its header is the message's name when it has one).  openai-harmony renders the
same ids from those messages (checked in the tests).

Left out: Harmony's structured system and developer contents (model identity,
reasoning effort, tool namespaces) and the channels of text messages -- a
system message here is plain text, as ``Message.from_role_and_content`` makes it.
"""
from __future__ import annotations

from typing import Sequence

from .base import Builder, ChatTokens, Message

FORMAT = "harmony"
THINKING_NOTE = ("reasoning effort in the system message; unset (the default here) writes no system header, "
                 "as openai-harmony does for plain messages")


def render(enc: object, messages: Sequence[Message], tools: Sequence[dict] = (), thinking: object = None) -> ChatTokens:
    b = Builder(enc)
    calls: dict[str, str] = {}  # tool_call_id -> the tool called, so a result names its tool
    last_call = None
    for i, m in enumerate(messages):
        b.message = i
        b.special("<|start|>")
        if m.call:
            last_call = m.call
            if m.tool_call_id:
                calls[m.tool_call_id] = m.call
            b.text(f"assistant to=functions.{m.call}")
            b.special("<|channel|>")
            b.text("commentary ")
            b.special("<|constrain|>")
            b.text("json")
            b.special("<|message|>")
            b.content(m.content)
            b.special("<|call|>")
            continue
        answered = calls.get(m.tool_call_id or "", last_call) if m.role == "tool" else None
        if answered:  # a result of a call: from the tool, to the assistant, on the call's channel
            b.text(f"{m.name or 'functions.' + answered} to=assistant")
            b.special("<|channel|>")
            b.text("commentary")
        elif m.role == "tool":
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
