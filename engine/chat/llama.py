"""Meta's Llama 3 and Llama 4 chat formats, as llama-models' ``ChatFormat.encode_dialog_prompt`` makes them.

Llama 3: ``<|begin_of_text|>`` then per message
``<|start_header_id|>{role}<|end_header_id|>`` + ``"\\n\\n"`` + content +
``<|eot_id|>``; the reply is primed with the assistant header (4 tokens).
A tool message's header says ``ipython``.  Llama 4 renames the markers
(``<|header_start|>``, ``<|header_end|>``, ``<|eot|>``) and ends a tool message
with ``<|eom|>`` (end of message: the model's turn goes on).  The role, the
``"\\n\\n"`` and the content are three separate encode calls; content is
encoded as text (special-token text stays text).

An assistant message's tool calls are written as llama-models does in its
default ``ToolPromptFormat.json``: the assistant header, the message's text (if
any), then per call ``json.dumps({"type": "function", "name": ..., "parameters": ...})``
-- Python's defaults, so ``", "`` and ``": "`` separators and non-ASCII
escaped as ``\\uXXXX`` -- as one encode call, then ``<|eot_id|>`` (Llama 3: a
past message has no stop reason) or ``<|eom|>`` (Llama 4 ends every tool-call
message so).  Arguments that are not a JSON object are embedded as a string,
as llama-models embeds a string ``arguments``.

Tool definitions (the ``llama3`` format: Llama 3.1's form, which llama-models uses by default for the
whole Llama 3 family): as llama-models 0.1.0's
``LLama31Interface.system_messages`` writes them with its default ToolPromptFormat.json
(`llama_tools`): a system message built from "Environment: ipython", the dates and the chat's
system text, then a user message with the function list, both before the conversation.  Llama 4's
(the ``llama4`` format): one system message, Meta's Llama 4 tool prompt with the function list and the
chat's system text appended, as llama-stack 0.2.10 writes it (`llama_tools`).  The ``llama3.2`` format
(by name, for Llama 3.2/3.3 text models): llama-stack's Llama 3 python-list prompt the same way, and
past calls written ``[name(key=value, ...)]`` (llama-models' ToolPromptFormat.python_list).

Left out: images, RAG ``context``; the built-in tools (``brave_search``,
``wolfram_alpha``, ``photogen``, ``code_interpreter``), which llama-models
writes as Python calls (refused with the reason); names, which the format has
no place for.
"""
from __future__ import annotations

import json
from typing import Any, Sequence

from ..errors import JsonLimitError
from ..formats.json_limits import load_json_bounded
from .base import TOOLS, Builder, ChatFormatError, ChatTokens, Message, ToolCall, ignored_names
from .llama_tools import BUILT_IN_TOOLS, python_list_call, python_list_system_parts, system_parts, today, tools_message

MARKERS = {
    "llama3": ("<|start_header_id|>", "<|end_header_id|>", "<|eot_id|>", "<|eot_id|>"),
    "llama4": ("<|header_start|>", "<|header_end|>", "<|eot|>", "<|eom|>"),
}
MARKERS["llama3.2"] = MARKERS["llama3"]  # Llama 3.2/3.3 with llama-stack's python-list tool prompt


def _arguments(call: ToolCall) -> Any:
    """A custom call's arguments parsed (bounded: a crafted string is a ChatFormatError, never a
    RecursionError); text that is not JSON comes back as is."""
    if call.name in BUILT_IN_TOOLS:
        raise ChatFormatError(f"{call.name!r} is one of Llama's built-in tools, which llama-models writes as a Python "
                              "call (not modelled here): rename the tool or clear 'call'")
    try:
        return load_json_bounded(call.arguments, name="the tool call's arguments")
    except JsonLimitError as error:
        raise ChatFormatError(str(error)) from None
    except ValueError:
        return call.arguments


def tool_call_json(call: ToolCall) -> str:
    """The text llama-models writes for a custom tool call (ToolPromptFormat.json)."""
    arguments = _arguments(call)
    if not isinstance(arguments, dict):
        arguments = call.arguments  # llama-models takes an object or a string
    return json.dumps({"type": "function", "name": call.name, "parameters": arguments})


def render(enc: object, messages: Sequence[Message], version: str, tools: Sequence[dict] = ()) -> ChatTokens:
    start, end, eot, tool_end = MARKERS[version]
    b = Builder(enc)

    def header(role: str) -> None:
        b.special(start)
        b.text("ipython" if role == "tool" else role)
        b.special(end)
        b.text("\n\n")

    b.special("<|begin_of_text|>")
    first = 0
    if tools:  # the system text becomes Llama 3.1's instruction, or is appended to Llama 4's tool prompt
        b.message = TOOLS
        system = None
        if messages and messages[0].role == "system":
            system, first = messages[0].content, 1
        header("system")
        pieces = system_parts(system, today()) if version == "llama3" else python_list_system_parts(version, tools, system)
        b.ordinary_whole([("content", text, 0) if kind == "content" else ("template", text, TOOLS)
                          for kind, text in pieces])
        b.message = TOOLS
        b.special(eot)
        if version == "llama3":
            header("user")
            b.ordinary_whole([("template", tools_message(tools), TOOLS)])
            b.special(eot)
    for i, m in enumerate(messages):
        if i < first:
            continue
        b.message = i
        header(m.role)
        if m.calls:  # text first, then each call's JSON as one encode call (what the assistant wrote: content)
            b.content(m.text)
            for call in m.calls:
                b.content(tool_call_json(call) if version != "llama3.2" else python_list_call(
                    call.name, _arguments(call)))
            b.special(eot if version != "llama4" else tool_end)
            continue
        b.content(m.content)
        b.special(tool_end if m.role == "tool" else eot)
    b.message = -1
    header("assistant")
    return ChatTokens(version, enc.name, tuple(b.segments), priming=4, note=ignored_names("Llama", messages))
