"""Gemma 4's chat format (``<|turn>user`` / ``model``, tools, calls, the thinking switch), as its own
Jinja chat template renders it.

The template is the ``tokenizer.chat_template`` in the header of llama.cpp's Gemma 4 vocabulary
GGUF (llama-cpp-python 0.3.36's source package).  It writes:

- ``<bos>``, then a system turn ``<|turn>system\\n`` ... ``<turn|>\\n`` when thinking is on, tools
  are given or the first message is a system message: ``<|think|>`` (thinking on), the first
  system message's text trimmed, then per tool ``<|tool>declaration:NAME{...}<tool|>``;
- each other message as ``<|turn>{role}\\n`` + its calls + its text + ``<turn|>\\n``, the assistant
  written ``model``; a call is ``<|tool_call>call:NAME{key:value,...}<tool_call|>``; a model
  message's text has its thought channels (``<|channel>`` ... ``<channel|>``) removed and is
  trimmed, any other message's text is trimmed; a tool result is a ``tool`` turn;
- the reply priming ``<|turn>model\\n``, followed, when thinking is off (the default), by an empty
  thought channel ``<|channel>thought\\n<channel|>``.

Tools and arguments are not JSON but Gemma's own notation, which `declaration` and `argument`
restate from the template's macros: strings between ``<|"|>`` quote tokens, keys sorted case-
insensitively (Jinja's ``dictsort``), types upper-cased, and the template's quirks kept as they
are -- properties named like schema keywords (``description``, ``type``, ``properties``,
``required``, ``nullable``) are skipped, an object property opens ``,properties:{`` even when
nothing precedes it, ``parameters`` without a ``type`` is never closed, a missing description is
written empty.  Values print as Jinja prints Python values (``None``, ``1.5``).  A call's JSON
arguments are parsed (the convention for templates that iterate them); arguments that are not a
JSON object are written as the string.

Checked against: that template rendered with jinja2 as transformers renders it, the string and
then the ids (the string encoded by our gemma4 encoding, built from the same GGUF: no pinned package
ships Gemma 4's tokenizer.json).
"""
from __future__ import annotations

from typing import Any, Iterable, Sequence

from .base import FRAME, TOOLS, ChatFormatError, ChatTokens, Kind, Message, ignored_names, render_whole
from .tools import arguments_object

FORMAT = "gemma4"
Q = '<|"|>'
STANDARD_KEYS = ("description", "type", "properties", "required", "nullable")
THINKING_NOTE = ("Gemma 4's enable_thinking: on writes <|think|> in a system turn and primes the reply plainly; "
                 "off (the template's default) primes it with an empty thought channel")


class _Undefined:
    """Jinja's Undefined: what a missing key (or a key looked up on a non-object) gives."""

    def __bool__(self) -> bool:
        return False

    def __str__(self) -> str:
        return ""


UNDEF = _Undefined()


def _get(value: Any, key: str) -> Any:
    return value.get(key, UNDEF) if isinstance(value, dict) else UNDEF


def _s(value: Any) -> str:
    """How Jinja prints a value (``{{ x }}``): Python's str, nothing for undefined."""
    return str(value)


def _upper(value: Any) -> str:
    return str(value).upper()


def _dictsort(d: dict) -> list[tuple[Any, Any]]:
    return sorted(d.items(), key=lambda kv: kv[0].lower() if isinstance(kv[0], str) else kv[0])


def _iterate(value: Any, where: str) -> Iterable:
    if isinstance(value, (list, str, dict)):
        return value
    raise ChatFormatError(f"{where}: 'required' must be a list of property names")


def argument(value: Any, escape_keys: bool = True) -> str:
    """The template's ``format_argument`` macro."""
    if isinstance(value, str):
        return Q + value + Q
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, dict):
        return "{" + ",".join((Q + str(k) + Q if escape_keys else str(k)) + ":" + argument(v, escape_keys)
                              for k, v in _dictsort(value)) + "}"
    if isinstance(value, list):
        return "[" + ",".join(argument(v, escape_keys) for v in value) + "]"
    return _s(value)


def _required(value: Any, where: str) -> str:
    return "[" + ",".join(Q + _s(item) + Q for item in _iterate(value, where)) + "]"


def parameters(properties: dict, where: str) -> str:
    """The template's ``format_parameters`` macro (its ``required`` argument is never read there)."""
    out: list[str] = []
    first = False
    for key, value in _dictsort(properties):
        if key in STANDARD_KEYS:
            continue
        if first:
            out.append(",")
        first = True
        out.append(f"{key}:{{")
        comma = False
        if _get(value, "description"):
            out.append(f"description:{Q}{_s(value['description'])}{Q}")
            comma = True
        if _get(value, "nullable"):
            out.append("," if comma else "")
            comma = True
            out.append("nullable:true")
        kind = _upper(_get(value, "type"))
        if kind == "STRING":
            if _get(value, "enum"):
                out.append("," if comma else "")
                comma = True
                out.append("enum:" + argument(value["enum"]))
        elif kind == "OBJECT":
            out.append(",properties:{")
            inner = _get(value, "properties")
            out.append(parameters(inner if isinstance(inner, dict) else value, where))
            out.append("}")
            if _get(value, "required"):
                out.append(",required:" + _required(value["required"], where))
        elif kind == "ARRAY":
            items = _get(value, "items")
            if isinstance(items, dict) and items:
                out.append(",items:{")
                item_first = False
                for item_key, item_value in _dictsort(items):
                    if item_value is None:
                        continue
                    if item_first:
                        out.append(",")
                    item_first = True
                    if item_key == "properties":
                        out.append("properties:{" + (parameters(item_value, where) if isinstance(item_value, dict)
                                                     else "") + "}")
                    elif item_key == "required":
                        out.append("required:" + _required(item_value, where))
                    elif item_key == "type":
                        out.append("type:" + argument(item_value.upper() if isinstance(item_value, str)
                                                      else [_upper(t) for t in _iterate(item_value, where)]))
                    else:
                        out.append(f"{item_key}:" + argument(item_value))
                out.append("}")
        out.append("," if comma else "")
        out.append(f"type:{Q}{kind}{Q}}}")
    return "".join(out)


def declaration(tool: dict) -> str:
    """The template's ``format_function_declaration`` macro, trimmed as the template trims it."""
    f = tool["function"]
    where = f"tool {f['name']}"
    out = f"declaration:{f['name']}{{description:{Q}{_s(f.get('description', UNDEF))}{Q}"
    params = f.get("parameters", UNDEF)
    if params:
        out += ",parameters:{"
        props = _get(params, "properties")
        if props:
            if not isinstance(props, dict):
                raise ChatFormatError(f"{where}: parameters.properties must be an object (Gemma 4's template "
                                      "sorts its keys)")
            out += "properties:{" + parameters(props, where) + "},"
        if _get(params, "required"):
            out += "required:" + _required(params["required"], where) + ","
        if _get(params, "type"):
            out += f"type:{Q}{_upper(params['type'])}{Q}}}"
    return (out + "}").strip()


def call_text(name: str, arguments: str, where: str) -> str:
    args = arguments_object(arguments, where)
    if isinstance(args, dict):
        body = ",".join(f"{k}:{argument(v, escape_keys=False)}" for k, v in _dictsort(args))
    else:
        body = arguments
    return f"<|tool_call>call:{name}{{{body}}}<tool_call|>"


def strip_thinking(text: str) -> str:
    """The template's ``strip_thinking``: drop each ``<|channel>`` ... ``<channel|>`` span, then trim."""
    out = ""
    for part in text.split("<channel|>"):
        out += part.split("<|channel>")[0] if "<|channel>" in part else part
    return out.strip()


def priming(thinking: bool) -> str:
    return "<|turn>model\n" + ("" if thinking else "<|channel>thought\n<channel|>")


def parts(messages: Sequence[Message], tools: Sequence[dict], thinking: bool) -> list[tuple[Kind, str, int]]:
    if not messages:
        raise ChatFormatError("no messages: Gemma 4's template reads the first message; add one")
    out: list[tuple[Kind, str, int]] = [("template", "<bos>", FRAME)]
    first = 0
    if thinking or tools or messages[0].role == "system":
        owner = 0 if messages[0].role == "system" else (TOOLS if tools else FRAME)
        out.append(("template", "<|turn>system\n", owner))
        if thinking:
            out.append(("template", "<|think|>", owner))
        if messages[0].role == "system":
            out.append(("content", messages[0].content.strip(), 0))
            first = 1
        for t in tools:
            out.append(("template", "<|tool>" + declaration(t) + "<tool|>", TOOLS))
        out.append(("template", "<turn|>\n", owner))
    for i, m in enumerate(messages):
        if i < first:
            continue
        role = "model" if m.role == "assistant" else m.role
        out.append(("template", f"<|turn>{role}\n", i))
        for call in m.calls:
            out.append(("content", call_text(call.name, call.arguments, f"message {i + 1}: the call's arguments"), i))
        text = strip_thinking(m.text) if role == "model" else m.text.strip()
        out += [("content", text, i), ("template", "<turn|>\n", i)]
    return out + [("template", priming(thinking), FRAME)]


def render(enc: object, messages: Sequence[Message], tools: Sequence[dict] = (), thinking: Any = False) -> ChatTokens:
    segments = render_whole(enc, parts(messages, tools, bool(thinking)))
    primed = len(enc.encode(priming(bool(thinking)), allowed_special="all"))
    return ChatTokens(FORMAT, enc.name, tuple(segments), priming=primed,
                      note=ignored_names("Gemma 4's template", messages))
