"""The widely used *estimate* of what OpenAI's chat models charge for function tools and calls.

OpenAI publishes no rule for tools: the API writes the definitions into a hidden
system message in a TypeScript-like form it does not document.  The estimate
that tools and libraries share (first in hmarr's openai-chat-tokens, now
gpt-tokenizer's ``computeChatCompletionTokenCount``; followed here rule by rule,
from gpt-tokenizer 3.4.0's ``functionCalling``) writes the definitions as::

    namespace functions {

    // Current weather in a city.
    type get_weather = (_: {
    // City name, e.g. Paris
    city: string,
    unit?: "celsius" | "fahrenheit",
    }) => any;

    } // namespace functions

and counts: that text's tokens + 9; each message's role, content and name
(+1), + 3 per message; a call's name and arguments + 3; the first system
message gets a ``\\n`` appended when it lacks one, and 4 are taken off when
there is a system message; + 3 to prime the reply.  A nested object's
properties indent by two spaces and lose their descriptions; ``integer`` and
``number`` enums are written bare, string enums as JSON strings.

Mapping of today's API onto that rule (the rule predates ``tools``): the tools'
function objects are its ``functions``; an assistant message with several calls
counts as one message per call (its text on the first); a tool result is a
message of role ``tool`` with its content (and name) -- ``tool_call_id`` is not
counted, as the rule has no such field.  Every count this module makes is an
estimate, and is labelled so.
"""
from __future__ import annotations

import json
from typing import Any, Sequence

from .base import FRAME, TOOLS, Builder, ChatTokens, Message

NOTE = ("ESTIMATE: OpenAI publishes no counting rule for tools and tool calls; this is the widely used estimate "
        "(gpt-tokenizer's function-calling count), not OpenAI's own number.")


def _entries(value: Any) -> list[tuple[str, Any]]:
    """JavaScript's Object.entries for the values a schema may hold."""
    if isinstance(value, dict):
        return [(str(k), v) for k, v in value.items()]
    if isinstance(value, (list, str)):
        return [(str(i), v) for i, v in enumerate(value)]
    return []


def _js(value: Any) -> str:
    """JavaScript's template-string form of a JSON value (`${value}`)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if value is None:
        return "null"
    if isinstance(value, (list, dict)):
        return ",".join(_js(v) for v in value) if isinstance(value, list) else "[object Object]"
    return str(value)


def _get(value: Any, key: str) -> Any:
    return value.get(key) if isinstance(value, dict) else None


def _enum(param: Any) -> list | None:
    e = _get(param, "enum")
    return e if isinstance(e, list) else None


def format_type(param: Any, indent: int) -> str:
    t = _get(param, "type")
    if t == "string":
        e = _enum(param)
        return " | ".join(json.dumps(v, ensure_ascii=False, separators=(",", ":")) for v in e) if e is not None else "string"
    if t in ("integer", "number"):
        e = _enum(param)
        return " | ".join(_js(v) for v in e) if e is not None else "number"
    if t in ("boolean", "null"):
        return t
    if t == "array":
        items = _get(param, "items")
        return f"{format_type(items, indent)}[]" if items else "any[]"
    if t == "object":
        return "{\n" + format_properties(param, indent + 2) + "\n" + " " * indent + "}"
    return "any"


def format_properties(obj: Any, indent: int) -> str:
    props = _get(obj, "properties")
    if not props:
        return ""
    req = _get(obj, "required")
    required = {str(r) for r in req} if isinstance(req, (list, str)) else set()
    pad = " " * indent
    lines = []
    for name, param in _entries(props):
        desc = _get(param, "description")
        if desc and indent < 2:
            lines.append(f"{pad}// {desc if isinstance(desc, str) else _js(desc)}")
        lines.append(f"{pad}{name}{'' if name in required else '?'}: {format_type(param, indent)},")
    return "\n".join(lines)


def format_definitions(tools: Sequence[dict]) -> str:
    lines = ["namespace functions {", ""]
    for tool in tools:
        fn = tool["function"]
        if fn.get("description"):
            lines.append(f"// {fn['description']}")
        params = fn.get("parameters")
        props = _get(params, "properties")
        if not params or not props or not _entries(props):
            lines.append(f"type {fn['name']} = () => any;")
        else:
            lines.append(f"type {fn['name']} = (_: {{")
            formatted = format_properties(params, 0)
            if formatted:
                lines.append(formatted)
            lines.append("}) => any;")
        lines.append("")
    lines.append("} // namespace functions")
    return "\n".join(lines)


def render(enc: object, messages: Sequence[Message], tools: Sequence[dict]) -> ChatTokens:
    b = Builder(enc)
    has_functions = bool(tools)
    if has_functions:  # where the API puts them: a hidden system message before the conversation
        b.message = TOOLS
        b.content(format_definitions(tools))
        overhead = 9 - (4 if any(m.role == "system" for m in messages) else 0)
        b.counted("template", "<functions>", overhead)
    padded = False
    for i, m in enumerate(messages):
        b.message = i
        calls = m.calls or (None,)
        for k, call in enumerate(calls):
            content = m.text if k == 0 else ""
            if m.role == "system" and has_functions and not padded:
                padded = True
                if content and not content.endswith("\n"):
                    content += "\n"
            b.text(m.role)
            b.content(content)
            if m.name:
                b.content(m.name)
                b.counted("template", ":", 1)
            if call is not None:
                b.content(call.name)
                b.content(call.arguments)
                b.counted("template", "<call>", 3)
            b.counted("template", "<|im|>", 3)
    b.message = FRAME
    b.counted("template", "<|start|>assistant<|message|>", 3)
    return ChatTokens("openai-chatml", enc.name, tuple(b.segments), priming=3, note=NOTE)
