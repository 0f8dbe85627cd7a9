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

**Tools and reasoning effort** (``tools=`` or ``thinking="low"|"medium"|"high"``)
follow openai-harmony's documented mapping of a chat request: a system message
of ``SystemContent`` (model identity, knowledge cutoff, ``Reasoning: {effort}``,
the valid channels, and -- when there are function tools -- the line that sends
tool calls to the commentary channel), then a developer message
``# Instructions\n\n{the chat's leading system text}`` + the ``# Tools``
section (`harmony_tools`), each written as one encode call; assistant text goes
on the ``final`` channel, text beside tool calls on ``commentary``, and a tool
result's author is ``functions.{the called tool}``.  Given neither, messages are
rendered plain, as ``Message.from_role_and_content`` makes them (the default
here, so a conversation without tools counts as before); tools without an
effort use openai-harmony's default, ``medium``.

Left out: model identity / knowledge cutoff / date other than openai-harmony's
defaults, the built-in ``browser`` and ``python`` tools, and past reasoning
(``analysis``) messages.
"""
from __future__ import annotations

from typing import Sequence

from .base import FRAME, TOOLS, Builder, ChatTokens, Message
from .harmony_tools import tools_section

FORMAT = "harmony"
THINKING_NOTE = ("reasoning effort low / medium / high writes gpt-oss's system and developer messages; unset (the "
                 "default) renders the messages plain, or with effort medium when there are tools")
IDENTITY = "You are ChatGPT, a large language model trained by OpenAI."
CUTOFF = "2024-06"


def system_text(effort: str, has_tools: bool) -> str:
    """openai-harmony's ``SystemContent.new().with_reasoning_effort(effort)`` as text."""
    channels = "# Valid channels: analysis, commentary, final. Channel must be included for every message."
    if has_tools:
        channels += "\nCalls to these tools must go to the commentary channel: 'functions'."
    return f"{IDENTITY}\nKnowledge cutoff: {CUTOFF}\n\nReasoning: {effort}\n\n{channels}"


def render(enc: object, messages: Sequence[Message], tools: Sequence[dict] = (), thinking: object = None) -> ChatTokens:
    structured = bool(tools) or thinking is not None
    b = Builder(enc)
    rest = list(enumerate(messages))
    if structured:
        b.message = FRAME
        b.special("<|start|>")
        b.text("system")
        b.special("<|message|>")
        b.text(system_text(str(thinking or "medium"), bool(tools)))
        b.special("<|end|>")
        parts = []
        if rest and rest[0][1].role == "system":
            parts += [("template", "# Instructions\n\n", 0), ("content", rest[0][1].content, 0)]
            rest = rest[1:]
        if tools:
            parts += [("template", "\n\n" if parts else "", TOOLS), ("content", tools_section(tools), TOOLS)]
        if parts:
            b.message = parts[0][2]
            b.special("<|start|>")
            b.text("developer")
            b.special("<|message|>")
            b.ordinary_whole(parts)
            b.special("<|end|>")
    calls: dict[str, str] = {}  # tool_call_id -> the tool called, so a result names its tool
    last_call = None
    for i, m in rest:
        b.message = i
        if m.role == "assistant" and m.calls:
            if m.text:
                _message(b, "assistant", "commentary" if structured else None, m.text)
            for c in m.calls:
                last_call = c.name
                if c.id:
                    calls[c.id] = c.name
                b.special("<|start|>")
                b.text("assistant")
                b.text(f" to=functions.{c.name}")
                b.special("<|channel|>")
                b.text("commentary")
                b.text(" ")
                b.special("<|constrain|>")
                b.text("json")
                b.special("<|message|>")
                b.content(c.arguments)
                b.special("<|call|>")
            continue
        answered = calls.get(m.tool_call_id or "", last_call) if m.role == "tool" else None
        b.special("<|start|>")
        if answered:  # a result of a call: from the tool, to the assistant, on the call's channel
            if structured:
                author = m.name if m.name and m.name.startswith("functions.") else f"functions.{answered}"
            else:
                author = m.name or "functions." + answered
            b.text(author)
            b.text(" to=assistant")
            b.special("<|channel|>")
            b.text("commentary")
        elif m.role == "tool":
            b.text(m.name or "tool")
        else:
            b.text(m.role)
            if m.name:
                b.text(f":{m.name}")
            if structured and m.role == "assistant":
                b.special("<|channel|>")
                b.text("final")
        b.special("<|message|>")
        b.content(m.content)
        b.special("<|end|>")
    b.message = FRAME
    b.special("<|start|>")
    b.text("assistant")
    return ChatTokens(FORMAT, enc.name, tuple(b.segments), priming=2)


def _message(b: Builder, role: str, channel: str | None, text: str) -> None:
    b.special("<|start|>")
    b.text(role)
    if channel:
        b.special("<|channel|>")
        b.text(channel)
    b.special("<|message|>")
    b.content(text)
    b.special("<|end|>")
