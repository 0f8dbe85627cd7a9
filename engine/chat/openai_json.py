"""Conversations as JSON files: this package's message shape and OpenAI's Chat Completions shape.

A conversation copied out of an API log is usually OpenAI's ``messages`` array::

    {"role": "assistant", "content": null, "refusal": null,
     "tool_calls": [{"id": "call_1", "type": "function",
                     "function": {"name": "get_weather", "arguments": "{\\"city\\": \\"Paris\\"}"}}]}
    {"role": "tool", "tool_call_id": "call_1", "content": "{\\"temp_c\\": 21}"}

`messages_from_json` reads that as well as `Message.to_dict`'s own shape
(``call`` = the tool's name, ``content`` = the JSON arguments,
``tool_call_id`` = the call's id).  Fields that hold nothing (``null``, ``""``,
``[]``, ``{}`` -- API responses are full of ``"refusal": null``) are ignored
and named in the returned notes; a field with a value this model has no place
for is refused, naming the field, so nothing the model would read is dropped
without a word.

Several tool calls in one message (parallel calls) and text beside a call are
read into `Message.tool_calls`; an assistant's ``reasoning_content`` into
`Message.reasoning_content` (formats whose template reads it write it).  Left out (refused with the reason): content
given as a list of parts (images, audio).
"""
from __future__ import annotations

from typing import Any

from .base import FIELDS, REASONING, ChatFormatError, Message, ToolCall


def _empty(value: Any) -> bool:
    return value is None or value == "" or value == [] or value == {}


def _one_call(where: str, call: Any) -> ToolCall:
    function = call.get("function") if isinstance(call, dict) else None
    if not isinstance(function, dict) or not isinstance(function.get("name"), str) or not function["name"]:
        raise ChatFormatError(f'{where}: a tool call needs function.name, as in {{"type": "function", '
                              '"function": {"name": "get_weather", "arguments": "{}"}}')
    if call.get("type", "function") != "function":
        raise ChatFormatError(f"{where}: tool call type {call.get('type')!r} is not modelled; use \"function\"")
    arguments = function.get("arguments", "")
    if not isinstance(arguments, str):
        raise ChatFormatError(f"{where}: function.arguments must be a JSON string (as the API sends it), "
                              f"not {type(arguments).__name__}")
    call_id = call.get("id")
    if call_id is not None and not isinstance(call_id, str):
        raise ChatFormatError(f"{where}: a tool call's id must be text")
    return ToolCall(function["name"], arguments, call_id or None)


def _tool_call(i: int, item: dict) -> dict:
    """OpenAI's tool calls -> this package's fields: one call and no text is the ``call`` shorthand
    (what the Chat page edits); several calls, or text beside them, stay a ``tool_calls`` tuple."""
    calls = item["tool_calls"]
    where = f"message {i + 1}"
    if not isinstance(calls, list):
        raise ChatFormatError(f"{where}: tool_calls must be a list of calls, not {type(calls).__name__}")
    if item.get("role") != "assistant":
        raise ChatFormatError(f"{where}: only an assistant message can make tool calls, not {item.get('role')!r}")
    parsed = tuple(_one_call(f"{where}, tool call {k + 1}" if len(calls) > 1 else where, c)
                   for k, c in enumerate(calls))
    content = item.get("content")
    if content is not None and not isinstance(content, str):
        raise ChatFormatError(f"{where}: content as a list of parts is not modelled: give it as text")
    out: dict = {"role": "assistant"}
    if len(parsed) == 1 and _empty(content):
        out.update(content=parsed[0].arguments, call=parsed[0].name)
        if parsed[0].id:
            out["tool_call_id"] = parsed[0].id
    else:
        out.update(content=content or "", tool_calls=parsed)
    if isinstance(item.get("name"), str) and item["name"]:
        out["name"] = item["name"]
    if item.get(REASONING) is not None:
        out[REASONING] = item[REASONING]
    return out


def message_from_json(i: int, item: Any) -> tuple[Message, list[str]]:
    """Message ``i`` (0-based) of a file and the names of the empty fields it ignored."""
    if not isinstance(item, dict):
        raise ChatFormatError(f"message {i + 1}: a message must be an object with role and content, "
                              f"not {type(item).__name__}")
    known = set(FIELDS) | {"tool_calls", REASONING}
    ignored = sorted(k for k, v in item.items() if k not in known and _empty(v))
    unknown = sorted(k for k, v in item.items() if k not in known and not _empty(v))
    if unknown:
        raise ChatFormatError(f"message {i + 1}: field(s) {unknown} hold values this page has no place for "
                              f"(it reads {', '.join(FIELDS)} and OpenAI's tool_calls): remove them")
    if not _empty(item.get("tool_calls")):
        if not _empty(item.get("call")):
            raise ChatFormatError(f"message {i + 1} has both 'call' and 'tool_calls': keep one")
        data = _tool_call(i, item)
    else:
        if "tool_calls" in item:
            ignored.append("tool_calls")
        data = {k: v for k, v in item.items() if k in FIELDS or (k == REASONING and v is not None)}
        if isinstance(data.get("content"), list):
            raise ChatFormatError(f"message {i + 1}: content as a list of parts is not modelled: give it as text")
        if "content" in data and data["content"] is None:
            raise ChatFormatError(f"message {i + 1}: its content is null; only an assistant message with "
                                  "tool_calls may leave content out: give it text (\"\" if empty)")
    try:
        if "tool_calls" in data:
            calls = data.pop("tool_calls")
            reasoning = data.pop(REASONING, None)
            return Message(**{**Message.from_dict(data).__dict__, "tool_calls": calls,
                              "reasoning_content": reasoning}), ignored
        return Message.from_dict(data), ignored
    except ChatFormatError as error:
        raise ChatFormatError(f"message {i + 1}: {error}") from None


def messages_from_json(raw: list[Any]) -> tuple[list[Message], list[str]]:
    """Messages from a parsed JSON list (either shape) and a note per kind of ignored empty field."""
    messages, ignored = [], {}
    for i, item in enumerate(raw):
        m, empty = message_from_json(i, item)
        messages.append(m)
        for name in empty:
            ignored.setdefault(name, []).append(i + 1)
    notes = [f"ignored the empty field {name!r} (message{'s' if len(at) > 1 else ''} "
             f"{', '.join(map(str, at[:5]))}{' …' if len(at) > 5 else ''})" for name, at in sorted(ignored.items())]
    return messages, notes
